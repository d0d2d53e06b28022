"""Walks over one parameters schema for ``check``: the places its rules look at, each with its JSON pointer.

Only local references (``#/...``) are followed, and each at most once per path, so recursive schemas end; a
``$ref`` that cannot be followed makes a rule that depends on it stay silent rather than guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from toolwire._common._json import lookup, pointer_token, pointer_tokens, unescape_token

__all__ = [
    "JSON_TYPES",
    "draft_of",
    "enum_locations",
    "missing_required",
    "open_objects",
    "resolve",
    "undescribed_properties",
    "value_key",
    "values_at",
]

#: The type names JSON Schema knows.
JSON_TYPES: Final = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})

# Keywords whose value is one subschema, a {name: subschema} map, or a list of subschemas.
_ONE: Final = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
_MAP: Final = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
_LIST: Final = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_ONE_KIND, _MAP_KIND, _LIST_KIND = 1, 2, 4
_KINDS: Final = {
    keyword: sum(
        kind for kind, group in ((_ONE_KIND, _ONE), (_MAP_KIND, _MAP), (_LIST_KIND, _LIST)) if keyword in group
    )
    for keyword in (*_ONE, *_MAP, *_LIST)
}
# Applicators that describe the same instance as their parent (names declared there count for `required` inside).
_SAME_INSTANCE: Final = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")

_DRAFTS: Final = (("draft-04", "4"), ("draft-06", "6"), ("draft-07", "7"), ("2019-09", "2019-09"))


def draft_of(schema: object) -> str:
    """The draft a schema declares with ``$schema`` (a name ``schema_problems`` takes); 2020-12 otherwise."""
    declared = schema.get("$schema") if isinstance(schema, Mapping) else None
    if isinstance(declared, str):
        for marker, name in _DRAFTS:
            if marker in declared:
                return name
    return "2020-12"


def resolve(root: object, reference: object) -> Any:
    """The subschema a local ``$ref`` (``#/$defs/x``) names, or None when it is not local or not there."""
    if not isinstance(reference, str) or not reference.startswith("#"):
        return None
    node = lookup(root, pointer_tokens(reference[1:]))
    return node


def _children(schema: Mapping[str, Any], pointer: str) -> Iterator[tuple[str, str, Any]]:
    """``(keyword, pointer, subschema)`` of every subschema directly inside ``schema``, in the schema's key order."""
    # Over the schema's few keys rather than the two dozen keywords: this runs for every subschema of every tool.
    for keyword, value in schema.items():
        kind = _KINDS.get(keyword)
        if kind is None:
            continue
        if isinstance(value, (Mapping, bool)) and kind & _ONE_KIND:
            yield keyword, f"{pointer}/{pointer_token(keyword)}", value
            continue
        if isinstance(value, Mapping) and kind & _MAP_KIND:
            named: Iterator[tuple[object, Any]] = iter(value.items())
        elif isinstance(value, list) and kind & _LIST_KIND:
            named = enumerate(value)
        else:
            continue
        for name, item in named:
            if isinstance(item, (Mapping, bool)):
                yield keyword, f"{pointer}/{pointer_token(keyword)}/{pointer_token(name)}", item


def _subschemas(schema: Any, pointer: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every subschema that is a mapping, the schema itself first, in document order."""
    if not isinstance(schema, Mapping):
        return
    yield pointer, schema
    for _, where, child in _children(schema, pointer):
        yield from _subschemas(child, where)


def _is_object_schema(schema: Mapping[str, Any]) -> bool:
    declared = schema.get("type")
    if declared == "object" or (isinstance(declared, list) and "object" in declared):
        return True
    return declared is None and isinstance(schema.get("properties"), Mapping)


def open_objects(schema: Any) -> Iterator[str]:
    """The pointer of each object schema that lets undeclared members through.

    An object is closed by ``additionalProperties: false`` or ``unevaluatedProperties: false``; an object schema
    declares ``type: object`` (or lists it), or has ``properties`` and no type.
    """
    for pointer, subschema in _subschemas(schema):
        if not _is_object_schema(subschema):
            continue
        if subschema.get("additionalProperties") is False or subschema.get("unevaluatedProperties") is False:
            continue
        yield pointer


def _declared(root: Any, schema: Mapping[str, Any]) -> set[str] | None:
    """The property names ``schema`` declares itself, in its local ``$ref`` and in its direct branches.

    None when a reference cannot be followed (the rule then stays silent).
    """
    names: set[str] = set()
    parts: list[Any] = [schema]
    for keyword in ("allOf", "anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            parts += schema[keyword]
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        if "$ref" in part or "$dynamicRef" in part:
            target = resolve(root, part.get("$ref"))
            if not isinstance(target, Mapping):
                return None
            part = {**target, **part}
        if isinstance(part.get("properties"), Mapping):
            names |= set(part["properties"])
    return names


def _matches_pattern(schema: Mapping[str, Any], name: str) -> bool:
    patterns = schema.get("patternProperties")
    if not isinstance(patterns, Mapping):
        return False
    for pattern in patterns:
        try:
            if re.search(pattern, name):
                return True
        except re.error:
            return True  # an ECMA regex Python cannot read: assume it matches rather than report a false finding
    return False


def missing_required(root: Any) -> Iterator[tuple[str, str]]:
    """``(pointer of the required entry, name)`` for every ``required`` name no property declares.

    The names declared by the same schema, by its local ``$ref``, by its ``allOf``/``anyOf``/``oneOf`` branches,
    and by the schema a branch belongs to count (``anyOf: [{required: [a]}, {required: [b]}]`` beside
    ``properties`` is a common idiom); a name matching a ``patternProperties`` pattern counts too.
    """
    yield from _missing_required(root, root, "", frozenset())


def _missing_required(
    root: Any, schema: Any, pointer: str, inherited: frozenset[str] | None
) -> Iterator[tuple[str, str]]:
    if not isinstance(schema, Mapping):
        return
    own = _declared(root, schema)
    names = None if own is None or inherited is None else inherited | own
    required = schema.get("required")
    if names is not None and isinstance(required, list):
        for position, name in enumerate(required):
            if isinstance(name, str) and name not in names and not _matches_pattern(schema, name):
                yield f"{pointer}/required/{position}", name
    for keyword, where, child in _children(schema, pointer):
        yield from _missing_required(root, child, where, names if keyword in _SAME_INSTANCE else frozenset())


def undescribed_properties(root: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, name)`` of every property without a ``description`` (its local ``$ref``'s counts)."""
    for pointer, subschema in _subschemas(root):
        properties = subschema.get("properties")
        if not isinstance(properties, Mapping):
            continue
        for name, item in properties.items():
            described = isinstance(item, Mapping) and bool(item.get("description"))
            if isinstance(item, Mapping) and not described and "$ref" in item:
                target = resolve(root, item["$ref"])
                described = isinstance(target, Mapping) and bool(target.get("description"))
            if not described:
                yield f"{pointer}/properties/{pointer_token(name)}", str(name)


# Where the instance goes when a keyword is followed: a member name, any member or item ("*"), or nowhere new.
_INSTANCE_STEP: Final = {
    "additionalProperties": "*",
    "patternProperties": "*",
    "unevaluatedProperties": "*",
    "items": "*",
    "additionalItems": "*",
    "unevaluatedItems": "*",
    "contains": "*",
}


def enum_locations(root: Any) -> dict[str, tuple[list[Any], set[tuple[str, ...]]]]:
    """Every ``enum`` an argument can meet: its pointer -> (its values, the instance paths it applies at).

    An instance path is a tuple of member names and item indexes (``"*"``: any). Local ``$ref``s are followed
    (each once per path); ``not``, ``if``, ``propertyNames`` and ``contentSchema`` do not constrain the value.
    """
    found: dict[str, tuple[list[Any], set[tuple[str, ...]]]] = {}
    _enums(root, root, "", (), found, frozenset())
    return found


def _enums(
    root: Any,
    schema: Any,
    pointer: str,
    path: tuple[str, ...],
    found: dict[str, tuple[list[Any], set[tuple[str, ...]]]],
    followed: frozenset[str],
) -> None:
    if not isinstance(schema, Mapping):
        return
    if isinstance(schema.get("enum"), list):
        found.setdefault(f"{pointer}/enum", (schema["enum"], set()))[1].add(path)
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference not in followed:
        target = resolve(root, reference)
        if target is not None:
            _enums(root, target, reference[1:], path, found, followed | {reference})
    for keyword, where, child in _children(schema, pointer):
        if keyword in ("not", "if", "propertyNames", "contentSchema", "$defs", "definitions", "dependencies"):
            continue
        if keyword == "properties":
            step: tuple[str, ...] = (unescape_token(where.rsplit("/", 1)[1]),)
        elif keyword == "prefixItems" or (keyword == "items" and isinstance(schema.get("items"), list)):
            step = (where.rsplit("/", 1)[1],)
        elif keyword in _INSTANCE_STEP:
            step = (_INSTANCE_STEP[keyword],)
        else:
            step = ()
        _enums(root, child, where, path + step, found, followed)


def values_at(value: Any, path: tuple[str, ...]) -> Iterator[Any]:
    """The values inside ``value`` at an instance path (``"*"`` matches every member or item)."""
    if not path:
        yield value
        return
    head, rest = path[0], path[1:]
    if isinstance(value, Mapping):
        items = list(value.values()) if head == "*" else [value[head]] if head in value else []
    elif isinstance(value, list):
        if head == "*":
            items = value
        else:
            items = [value[int(head)]] if head.isdigit() and int(head) < len(value) else []
    else:
        items = []
    for item in items:
        yield from values_at(item, rest)


def value_key(value: Any) -> str:
    """A key under which JSON-equal values are equal (``1`` and ``1.0`` alike, ``true`` and ``1`` not)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, sort_keys=True, default=str)
