"""How one lint finding is answered in the schema: the rewrite each construct takes, and what it costs.

Each rewrite changes the schema in place at the finding's pointer and says what it did (an ``Adaptation``), or
declines (None) when the construct has no rewrite that keeps the schema's meaning for the handler. A keyword the
target would refuse or ignore is removed, and what it said is lifted into the description in words, so that the
model still reads it; the provider then no longer enforces it, which the adaptation marks as a weakening.
"""

from __future__ import annotations

import json
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from toolwire._common._json import lookup, pointer_token, pointer_tokens
from toolwire.schema._findings import Finding
from toolwire.schema.lint import LintRule

__all__ = ["Adaptation", "rewrite"]

# A constraint in words, for the description a model reads once the provider no longer holds it.
_WORDS: Final = {
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "pattern": "matches the regular expression {}",
    "format": "format {}",
    "minimum": "at least {}",
    "maximum": "at most {}",
    "exclusiveMinimum": "greater than {}",
    "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "minProperties": "at least {} keys",
    "maxProperties": "at most {} keys",
    "default": "default {}",
    "examples": "for example {}",
}
# Keywords that narrow a schema without a type, enum or anyOf to add null to: null becomes a branch of its own.
_NARROWING: Final = frozenset({"$ref", "const", "oneOf", "allOf", "not"})
# Passes over a schema writing references out: each pass writes out the references the last one brought in.
_MAX_PASSES: Final = 32
# Keywords whose removal takes nothing away from what a valid call may hold: they only document.
_DOCUMENTING: Final = frozenset({"default", "examples", "title", "$comment", "deprecated", "readOnly", "writeOnly"})


@dataclass(frozen=True)
class Adaptation:
    """One change made to a schema so that a target takes it.

    Attributes:
        rule: The lint rule that asked for it (``openai-strict/one-of``).
        pointer: Where, in the schema as it was when the change was made.
        action: ``lifted`` (removed, and said in the description), ``removed``, ``renamed``, ``closed``
            (``additionalProperties: false``), ``required-nullable`` (an optional property made required and
            nullable), ``inlined`` (a ``$ref`` replaced by what it names), ``merged`` (``allOf`` branches),
            ``converted`` (a construct written the target's way: a type list, ``nullable``, ``const``).
        weakening: The provider holds the model to less than the original says: the handler must check what it
            receives against the original (as ``reassemble`` with the original tools does).
        detail: One sentence: what changed and what it means for the calls.
    """

    rule: str
    pointer: str
    action: str
    weakening: bool
    detail: str


def rewrite(schema: Any, finding: Finding, rule: LintRule) -> Adaptation | None:
    """Answer ``finding`` in ``schema`` (changed in place), or None when its construct has no safe rewrite."""
    match = rule.match
    if match.kind in ("keyword", "unknown-keyword"):
        return _keyword(schema, finding, rule)
    if match.kind == "object" and match.condition == "additional-properties-absent":
        node = _node(schema, finding.pointer)
        if isinstance(node, MutableMapping):
            node["additionalProperties"] = False
            return Adaptation(rule.id, finding.pointer, "closed", False, "the object takes no other keys")
    if match.kind == "object" and match.condition == "optional-property":
        return _required_nullable(schema, finding, rule)
    return None


def _node(schema: Any, pointer: str) -> Any:
    return lookup(schema, pointer_tokens(pointer))


def _parent_and_key(schema: Any, pointer: str) -> tuple[MutableMapping[str, Any], str] | None:
    tokens = pointer_tokens(pointer)
    if not tokens:
        return None
    parent = _node(schema, "".join("/" + pointer_token(token) for token in tokens[:-1]))
    return (parent, tokens[-1]) if isinstance(parent, MutableMapping) and tokens[-1] in parent else None


def _keyword(schema: Any, finding: Finding, rule: LintRule) -> Adaptation | None:
    found = _parent_and_key(schema, finding.pointer)
    if found is None:
        return None
    node, keyword = found
    if keyword == "$ref":
        return _inline(schema, node, finding, rule)
    if keyword in ("$defs", "definitions"):
        return _definitions(schema, node, keyword, finding, rule)
    written = _REWRITTEN.get(keyword)
    if written is not None:
        return written(node, finding, rule)
    if keyword in _MEANING:
        return None  # what a call may hold: removing it would change the tool, not adapt it
    return _lift(node, keyword, finding, rule)


def _one_of(node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation | None:
    if not isinstance(node["oneOf"], list):
        return None
    node["anyOf"] = node.pop("oneOf")
    return Adaptation(rule.id, finding.pointer, "renamed", True, "oneOf became anyOf: exactly one branch became any")


def _const(node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation:
    node["enum"] = [node.pop("const")]
    return Adaptation(rule.id, finding.pointer, "converted", False, "const became an enum of its one value")


def _closed(node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation | None:
    if node["additionalProperties"] is False:
        return None
    node["additionalProperties"] = False
    detail = "the object no longer takes other keys: declare the ones it needs"
    return Adaptation(rule.id, finding.pointer, "closed", False, detail)


def _lift(node: MutableMapping[str, Any], keyword: str, finding: Finding, rule: LintRule) -> Adaptation:
    """Remove ``keyword``, saying in the description what it said (nothing for what only documents)."""
    value = node.pop(keyword)
    if keyword in _QUIET or (keyword in _DOCUMENTING and value is None):
        return Adaptation(rule.id, finding.pointer, "removed", False, f"{keyword} removed (it only documents)")
    words = _WORDS.get(keyword, f"{keyword} {{}}").format(json.dumps(value, ensure_ascii=False, sort_keys=True))
    described = node.get("description")
    if isinstance(described, str) and described:
        node["description"] = f"{described.rstrip()} ({words})"
    else:
        node["description"] = words[:1].upper() + words[1:] + "."
    weakening = keyword not in _DOCUMENTING
    detail = f"{keyword} lifted into the description ({words})"
    if weakening:
        detail += "; the provider no longer enforces it, so the handler checks calls against the original"
    return Adaptation(rule.id, finding.pointer, "lifted", weakening, detail)


def _required_nullable(schema: Any, finding: Finding, rule: LintRule) -> Adaptation | None:
    name = finding.data.get("property")
    parent_pointer = finding.pointer.rsplit("/", 2)[0]  # .../properties/<name> -> the object
    obj = _node(schema, parent_pointer)
    if not isinstance(obj, MutableMapping) or not isinstance(name, str):
        return None
    properties = obj.get("properties")
    if not isinstance(properties, MutableMapping) or name not in properties:
        return None
    properties[name] = _with_null(properties[name])
    required = obj.get("required")
    obj["required"] = [*required, name] if isinstance(required, list) else [name]
    detail = (
        f"{name!r} is now required and may be null: a call sends null where it left {name!r} out; treat null as absent"
    )
    return Adaptation(rule.id, finding.pointer, "required-nullable", False, detail)


def _with_null(schema: Any) -> Any:
    """The schema that also takes null: null added to its type, its enum and its branches, where it has them."""
    if not isinstance(schema, MutableMapping):
        return schema
    widened = dict(schema)
    kind, enum, branches = widened.get("type"), widened.get("enum"), widened.get("anyOf")
    if isinstance(kind, str) and kind != "null":
        widened["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        widened["type"] = [*kind, "null"]
    if isinstance(enum, list) and None not in enum:
        widened["enum"] = [*enum, None]
    if isinstance(branches, list) and not any(
        isinstance(b, MutableMapping) and b.get("type") == "null" for b in branches
    ):
        widened["anyOf"] = [*branches, {"type": "null"}]
    if kind is None and enum is None and branches is None and any(key in widened for key in _NARROWING):
        return {"anyOf": [widened, {"type": "null"}]}  # a $ref or a const: null is another branch
    return widened


def _nullable_keyword(node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation | None:
    value = node.pop("nullable")
    if value is True:
        replaced = _with_null(dict(node))
        node.clear()
        node.update(replaced)
    return Adaptation(rule.id, finding.pointer, "converted", False, "OpenAPI's nullable became null among the types")


def _type_list(node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation | None:
    kinds = [kind for kind in node["type"] if isinstance(kind, str)]
    real = [kind for kind in kinds if kind != "null"]
    if len(real) == 1:  # OpenAPI's subset: one type, and nullable
        node["type"] = real[0]
        if "null" in kinds:
            node["nullable"] = True
        return Adaptation(
            rule.id, finding.pointer, "converted", False, f"the type list became {real[0]!r} and nullable"
        )
    return None


def _merge_all_of(node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation | None:
    branches = node["allOf"]
    if not isinstance(branches, list) or not all(isinstance(b, MutableMapping) for b in branches):
        return None
    merged: dict[str, Any] = {key: value for key, value in node.items() if key != "allOf"}
    for branch in branches:
        for key, value in branch.items():
            if key == "properties" and isinstance(value, MutableMapping):
                existing = merged.setdefault("properties", {})
                if any(name in existing and existing[name] != schema for name, schema in value.items()):
                    return None  # two branches constrain one property: no single schema says both without allOf
                existing.update(value)
            elif key == "required" and isinstance(value, list):
                merged["required"] = [
                    *merged.get("required", []),
                    *(n for n in value if n not in merged.get("required", [])),
                ]
            elif key in merged and merged[key] != value:
                return None
            else:
                merged[key] = value
    node.clear()
    node.update(merged)
    return Adaptation(
        rule.id, finding.pointer, "merged", False, f"the {len(branches)} allOf branches merged into one schema"
    )


def _inline(schema: Any, node: MutableMapping[str, Any], finding: Finding, rule: LintRule) -> Adaptation | None:
    reference = node["$ref"]
    if not isinstance(reference, str) or not reference.startswith("#"):
        return None
    if not _write_out(schema, node):
        return None  # a recursive definition cannot be written out
    return Adaptation(rule.id, finding.pointer, "inlined", False, f"{reference} written out in place")


def _write_out(schema: Any, holder: MutableMapping[str, Any]) -> bool:
    """Replace a local ``$ref`` by a copy of what it names, its siblings kept; False (unchanged) for recursion."""
    reference = holder["$ref"]
    target = _node(schema, reference[1:])
    if not isinstance(target, MutableMapping) or _refers_to(target, reference):
        return False
    siblings = {key: value for key, value in holder.items() if key != "$ref"}
    holder.clear()
    holder.update(json.loads(json.dumps(target)))
    holder.update(siblings)  # the siblings (a description) say more about this use than the definition does
    return True


def _definitions(
    schema: Any, node: MutableMapping[str, Any], keyword: str, finding: Finding, rule: LintRule
) -> Adaptation | None:
    """Write out every reference into the definitions the target refuses, then drop them.

    A definition that refers to itself (recursion) cannot be written out: the references to it and the definitions
    stay, and the lint reports them again.
    """
    prefix = f"#{finding.pointer}/"
    written = 0
    for _ in range(_MAX_PASSES):
        holders = [holder for holder in _reference_holders(schema) if holder["$ref"].startswith(prefix)]
        if not holders:
            break
        for holder in holders:
            if not _write_out(schema, holder):
                return _written(rule, finding, written, keyword, dropped=False)
            written += 1
    if any(holder["$ref"].startswith(prefix) for holder in _reference_holders(schema)):
        return _written(rule, finding, written, keyword, dropped=False)
    node.pop(keyword)
    return _written(rule, finding, written, keyword, dropped=True)


def _written(rule: LintRule, finding: Finding, written: int, keyword: str, *, dropped: bool) -> Adaptation | None:
    references = f"{written} reference{'' if written == 1 else 's'} written out"
    if dropped:
        return Adaptation(rule.id, finding.pointer, "inlined", False, f"{references}, {keyword} removed")
    if written:
        return Adaptation(
            rule.id, finding.pointer, "inlined", False, f"{references}; {keyword} stays for a recursive one"
        )
    return None


def _reference_holders(schema: Any) -> list[MutableMapping[str, Any]]:
    """Every schema holding a local ``$ref``, outermost first."""
    found: list[MutableMapping[str, Any]] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, MutableMapping):
            if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
                found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _refers_to(schema: Any, reference: str) -> bool:
    if isinstance(schema, MutableMapping):
        return schema.get("$ref") == reference or any(_refers_to(value, reference) for value in schema.values())
    if isinstance(schema, list):
        return any(_refers_to(item, reference) for item in schema)
    return False


# Constructs written the target's way rather than lifted, by keyword.
_REWRITTEN: Final[dict[str, Callable[[MutableMapping[str, Any], Finding, LintRule], Adaptation | None]]] = {
    "oneOf": _one_of,
    "allOf": _merge_all_of,
    "const": _const,
    "nullable": _nullable_keyword,
    "type": lambda node, finding, rule: _type_list(node, finding, rule) if isinstance(node["type"], list) else None,
    "additionalProperties": _closed,
}
# What a call may hold: a rewrite never removes these.
_MEANING: Final = frozenset({"required", "properties", "items", "anyOf", "enum", "type", "description"})
# Documentation only, removed without a word in the description. OpenAPI's `discriminator` names the property that
# tells `oneOf` branches apart; the branches themselves say the same, so it constrains nothing a call holds.
_QUIET: Final = frozenset({"title", "$comment", "$schema", "deprecated", "readOnly", "writeOnly", "discriminator"})
