"""What the provider lint needs to know about one parameters schema, computed once per tool.

The walk visits every subschema where it is written (``properties``, ``items``, ``anyOf``..., and ``$defs``), so
each construct is reported once, at its own JSON pointer. Local ``$ref`` are followed only where the question is
about the schema as a provider expands it: reference cycles (recursion) and nesting depth; both stop at a cycle.
Values of ``enum``, ``const``, ``default`` and ``examples`` are data, never walked as schemas.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from toolwire._common._json import lookup, pointer_token, pointer_tokens

__all__ = ["Node", "SchemaFacts", "declared_types", "is_object", "regex_features"]

# Keywords whose value is a mapping of subschemas, one subschema, or a list of subschemas (draft 2020-12 and the
# draft-7 spellings still met in the wild).
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
_DEFINITIONS = ("$defs", "definitions")
_SCHEMA_ONE = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contentSchema",
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")


def declared_types(schema: Mapping[str, Any]) -> frozenset[str]:
    """The types a schema's ``type`` declares (empty when it declares none)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset((declared,))
    if isinstance(declared, list):
        return frozenset(item for item in declared if isinstance(item, str))
    return frozenset()


def is_object(schema: Mapping[str, Any]) -> bool:
    """Whether a schema describes objects: ``type`` object, or no ``type`` and object keywords."""
    types = declared_types(schema)
    if types:
        return "object" in types
    return any(key in schema for key in ("properties", "additionalProperties", "patternProperties"))


def _children(schema: Mapping[str, Any], pointer: str, *, definitions: bool) -> Iterator[tuple[str, str, Any]]:
    """``(pointer, keyword, subschema)`` for each direct subschema."""
    for keyword in _SCHEMA_MAPS:
        value = schema.get(keyword)
        if isinstance(value, Mapping) and (definitions or keyword not in _DEFINITIONS):
            for name, child in value.items():
                yield f"{pointer}/{pointer_token(keyword)}/{pointer_token(str(name))}", keyword, child
    for keyword in _SCHEMA_ONE:
        value = schema.get(keyword)
        if isinstance(value, Mapping):
            yield f"{pointer}/{pointer_token(keyword)}", keyword, value
    for keyword in _SCHEMA_LISTS:
        value = schema.get(keyword)
        if isinstance(value, list):
            for index, child in enumerate(value):
                yield f"{pointer}/{pointer_token(keyword)}/{index}", keyword, child


@dataclass(frozen=True)
class Node:
    """One subschema where it is written.

    Attributes:
        pointer: Its JSON pointer inside the parameters schema (``""``: the root).
        schema: The subschema.
        in_definition: Whether it lies inside a ``$defs``/``definitions`` entry.
    """

    pointer: str
    schema: Mapping[str, Any]
    in_definition: bool


def _walk(schema: Mapping[str, Any]) -> list[Node]:
    nodes: list[Node] = []
    stack: list[tuple[str, Mapping[str, Any], bool]] = [("", schema, False)]
    while stack:
        pointer, node, in_definition = stack.pop()
        nodes.append(Node(pointer, node, in_definition))
        children = [
            (child_pointer, child, in_definition or keyword in _DEFINITIONS)
            for child_pointer, keyword, child in _children(node, pointer, definitions=True)
            if isinstance(child, Mapping)
        ]
        stack.extend(reversed(children))
    return nodes


def _resolve(root: Mapping[str, Any], ref: str) -> tuple[str, Mapping[str, Any]] | None:
    """The pointer and subschema a local ``#...`` reference names, or None when it names nothing here."""
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment and not fragment.startswith("/"):
        return None  # a plain-name fragment ($anchor), not followed
    node = lookup(root, pointer_tokens(fragment))
    if not isinstance(node, Mapping):
        return None
    pointer = "".join(f"/{pointer_token(part)}" for part in (fragment.split("/")[1:] if fragment else []))
    return pointer, node


def _within(pointer: str, container: str) -> bool:
    return container == "" or pointer == container or pointer.startswith(container + "/")


class SchemaFacts:
    """One parameters schema, walked once; the totals and reference facts are computed on first use.

    Attributes:
        schema: The parameters schema.
        nodes: Every subschema, where it is written, in document order.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        """Walk ``schema``."""
        self.schema = schema
        self.nodes = _walk(schema)

    @functools.cached_property
    def refs(self) -> list[tuple[str, str | None]]:
        """``(pointer of the $ref keyword, pointer of its local target or None)`` for every string ``$ref``."""
        found = []
        for node in self.nodes:
            ref = node.schema.get("$ref")
            if isinstance(ref, str):
                resolved = _resolve(self.schema, ref)
                found.append((f"{node.pointer}/$ref", resolved[0] if resolved else None))
        return found

    @functools.cached_property
    def external_refs(self) -> frozenset[str]:
        """Pointers of ``$ref`` keywords that are not local ``#...`` references."""
        return frozenset(
            f"{node.pointer}/$ref"
            for node in self.nodes
            if isinstance(node.schema.get("$ref"), str) and not node.schema["$ref"].startswith("#")
        )

    @functools.cached_property
    def recursive_refs(self) -> frozenset[str]:
        """Pointers of ``$ref`` keywords on a reference cycle: following references from the target leads back."""
        local = [(pointer, target) for pointer, target in self.refs if target is not None]
        recursive = set()
        for pointer, target in local:
            seen, frontier = {target}, [target]
            while frontier:
                current = frontier.pop()
                if _within(pointer, current):
                    recursive.add(pointer)
                    break
                for inner, inner_target in local:
                    if _within(inner, current) and inner_target not in seen:
                        seen.add(inner_target)
                        frontier.append(inner_target)
        return frozenset(recursive)

    @functools.cached_property
    def depth(self) -> tuple[int, str]:
        """The deepest object nesting (the root object is level 1) and the pointer of that deepest object.

        Local ``$ref`` are followed (a provider expands them); a reference back into a cycle adds nothing, and each
        target is measured once.
        """
        memo: dict[str, tuple[int, str]] = {}

        def measure(pointer: str, schema: Mapping[str, Any], stack: frozenset[str]) -> tuple[int, str]:
            best = (0, pointer)
            ref = schema.get("$ref")
            resolved = _resolve(self.schema, ref) if isinstance(ref, str) else None
            if resolved is not None and resolved[0] not in stack:
                target, target_schema = resolved
                if target not in memo:
                    memo[target] = measure(target, target_schema, stack | {target})
                best = memo[target]
            for child_pointer, _, child in _children(schema, pointer, definitions=False):
                if isinstance(child, Mapping):
                    best = max(best, measure(child_pointer, child, stack), key=lambda found: found[0])
            if is_object(schema):
                return best[0] + 1, best[1] if best[0] else pointer
            return best

        return measure("", self.schema, frozenset({""}))

    def count(self, measure: str) -> int:
        """A total over the schema, each subschema counted once where it is written.

        Measures: ``depth``, ``enum-values``, ``string-chars``, ``properties``, ``optional-properties``,
        ``union-parameters``.

        Raises:
            ValueError: An unknown measure.
        """
        if measure == "depth":
            return self.depth[0]
        counter = _COUNTERS.get(measure)
        if counter is None:
            raise ValueError(f"unknown measure {measure!r}; known: depth, {', '.join(sorted(_COUNTERS))}")
        return sum(counter(node.schema) for node in self.nodes)


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _required(schema: Mapping[str, Any]) -> frozenset[str]:
    required = schema.get("required")
    return frozenset(item for item in required if isinstance(item, str)) if isinstance(required, list) else frozenset()


def _chars(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(json.dumps(value, ensure_ascii=False))


def _string_chars(schema: Mapping[str, Any]) -> int:
    total = sum(len(str(name)) for name in _properties(schema))
    for keyword in _DEFINITIONS:
        definitions = schema.get(keyword)
        if isinstance(definitions, Mapping):
            total += sum(len(str(name)) for name in definitions)
    enum = schema.get("enum")
    if isinstance(enum, list):
        total += sum(_chars(value) for value in enum)
    if "const" in schema:
        total += _chars(schema["const"])
    return total


def _enum_values(schema: Mapping[str, Any]) -> int:
    enum = schema.get("enum")
    return len(enum) if isinstance(enum, list) else 0


def _optional_properties(schema: Mapping[str, Any]) -> int:
    required = _required(schema)
    return sum(name not in required for name in _properties(schema))


def _union(schema: Mapping[str, Any]) -> int:
    return int(isinstance(schema.get("anyOf"), list) or isinstance(schema.get("type"), list))


_COUNTERS = {
    "enum-values": _enum_values,
    "string-chars": _string_chars,
    "properties": lambda schema: len(_properties(schema)),
    "optional-properties": _optional_properties,
    "union-parameters": _union,
}


_BOUNDED = re.compile(r"\{\d+(,\d*)?\}")


def _class_end(pattern: str, start: int) -> int:
    """The index just past the character class opening at ``start``."""
    index = start + 1
    if index < len(pattern) and pattern[index] == "^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1  # a ']' first in a class is a literal
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1


def _escape_feature(pattern: str, index: int) -> str | None:
    following = pattern[index + 1 : index + 3]
    if following[:1] in ("b", "B"):
        return "word-boundary"
    if (following[:1].isdigit() and following[:1] != "0") or following == "k<":
        return "backreference"
    return None


def _group_features(pattern: str, index: int) -> set[str]:
    if pattern.startswith(("(?=", "(?!"), index):
        return {"lookaround", "lookahead"}
    if pattern.startswith(("(?<=", "(?<!"), index):
        return {"lookaround"}
    if pattern.startswith("(?P=", index):
        return {"backreference"}
    return set()


@functools.lru_cache(maxsize=4096)
def regex_features(pattern: str) -> frozenset[str]:
    r"""What a ``pattern`` uses that engines differ on.

    Returns:
        A subset of ``lookaround`` (and ``lookahead`` for ``(?=``/``(?!``), ``backreference``, ``word-boundary``
        (``\b``, ``\B``), ``anchor`` (``^``/``$`` outside a character class) and ``bounded-quantifier``
        (``{n,m}``).
    """
    features: set[str] = set()
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            feature = _escape_feature(pattern, index)
            features.update((feature,) if feature else ())
            index += 2
        elif char == "[":
            index = _class_end(pattern, index)
        else:
            if char in "^$":
                features.add("anchor")
            elif char == "(":
                features |= _group_features(pattern, index)
            elif char == "{" and _BOUNDED.match(pattern, index):
                features.add("bounded-quantifier")
            index += 1
    return frozenset(features)
