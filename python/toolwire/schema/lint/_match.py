"""Where a target's entries match: each entry's ``match`` evaluated on one tool, or on the tools of one request.

A ``CompiledTarget`` indexes a target's keyword entries by keyword, so a schema is visited once per target and
only the entries that can match one of its keywords are evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire._common._json import pointer_token
from toolwire.registry import Tool
from toolwire.schema.lint._rules import LintRule, Match, SiblingTest, TargetRules, Unverified, ValueTest
from toolwire.schema.lint._walk import Node, SchemaFacts, declared_types, is_object, regex_features

__all__ = ["CompiledTarget", "Entry", "Hit"]

#: A rule or an unverified construct.
Entry = LintRule | Unverified

# How much of a keyword's value a message quotes.
_VALUE_CHARS = 60
# How many tools a request-wide budget finding names as the largest contributors.
_CONTRIBUTORS = 10


@dataclass(frozen=True)
class Hit:
    """One place an entry matches.

    Attributes:
        pointer: The JSON pointer of the construct inside the parameters schema (``""`` for the root or the tool).
        data: The evidence (``keyword``, ``value``, ``property``, ``count``, ``limit``...), JSON-ready.
    """

    pointer: str
    data: Mapping[str, Any] = field(default_factory=dict)


def _quoted(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _VALUE_CHARS else text[: _VALUE_CHARS - 1] + "…"


def _first_keys(branches: list[Any]) -> list[str]:
    keys = []
    for branch in branches:
        properties = branch.get("properties") if isinstance(branch, Mapping) else None
        if isinstance(properties, Mapping) and properties:
            keys.append(str(next(iter(properties))))
    return keys


def _more_than(value: Any, limit: int) -> bool:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value > limit
    return isinstance(value, (list, Mapping)) and len(value) > limit


def _large_string_enum(value: Any, limits: tuple[int, int]) -> bool:
    strings = [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
    return len(strings) > limits[0] and sum(map(len, strings)) > limits[1]


_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "not-false": lambda value, _: value is not False,
    "not-true": lambda value, _: value is not True,
    "list": lambda value, _: isinstance(value, list),
    "schema": lambda value, _: isinstance(value, Mapping),
    "non-string-item": lambda value, _: isinstance(value, list) and any(not isinstance(v, str) for v in value),
    "complex-item": lambda value, _: isinstance(value, list) and any(isinstance(v, (list, Mapping)) for v in value),
    "branch-has-ref": lambda value, _: isinstance(value, list)
    and any(isinstance(b, Mapping) and "$ref" in b for b in value),
    "branches-share-first-key": lambda value, _: isinstance(value, list)
    and len(set(_first_keys(value))) < len(_first_keys(value)),
    "unanchored": lambda value, _: isinstance(value, str) and not (value.startswith("^") and value.endswith("$")),
    "more-than": _more_than,
    "not-in": lambda value, allowed: not isinstance(value, str) or value not in allowed,
    "regex-feature": lambda value, wanted: isinstance(value, str) and bool(regex_features(value) & wanted),
    "large-string-enum": _large_string_enum,
}


def passes(test: ValueTest, value: Any) -> bool:
    """Whether a keyword's value passes a value test."""
    return _TESTS[test.name](value, test.argument)


def _sibling_present(test: SiblingTest, schema: Mapping[str, Any]) -> bool:
    return test.keyword in schema and (test.value is None or passes(test.value, schema[test.keyword]))


def _keyword_hit(match: Match, node: Node, keyword: str) -> Hit | None:
    schema = node.schema
    if (match.at == "root" and node.pointer) or (match.at == "nested" and not node.pointer):
        return None
    types = declared_types(schema)
    if (match.types and not types & match.types) or (match.not_types and types & match.not_types):
        return None
    if match.siblings and len(schema) < 2:
        return None
    if match.with_any and not any(_sibling_present(test, schema) for test in match.with_any):
        return None
    value = schema[keyword]
    if match.value is not None and not passes(match.value, value):
        return None
    return Hit(f"{node.pointer}/{pointer_token(keyword)}", {"keyword": keyword, "value": _quoted(value)})


def _properties(schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties")
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


def _required(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required")
    return {item for item in required if isinstance(item, str)} if isinstance(required, list) else set()


def _property_hit(node: Node, name: str) -> Hit:
    return Hit(f"{node.pointer}/properties/{pointer_token(name)}", {"property": name})


def _object_hits(match: Match, node: Node) -> Iterator[Hit]:
    schema, condition = node.schema, match.condition
    names, required = _properties(schema), _required(schema)
    if condition == "additional-properties-absent" and "additionalProperties" not in schema:
        yield Hit(node.pointer)
    elif condition == "no-required" and not required:
        yield Hit(node.pointer)
    elif condition == "optional-property":
        yield from (_property_hit(node, name) for name in names if name not in required)
    elif condition == "optional-before-required":
        optional = [index for index, name in enumerate(names) if name not in required]
        if optional and any(name in required for name in names[optional[0] :]):
            yield Hit(node.pointer, {"property": names[optional[0]]})
    elif condition == "properties-unordered" and len(names) >= 2 and "propertyOrdering" not in schema:
        yield Hit(node.pointer, {"count": len(names)})
    elif condition == "property-name-not":
        yield from (_property_hit(node, name) for name in names if not match.argument.fullmatch(name))


def _ref_hits(match: Match, facts: SchemaFacts) -> Iterator[Hit]:
    if match.condition == "cycle":
        pointers = sorted(facts.recursive_refs)
    elif match.condition == "external":
        pointers = sorted(facts.external_refs)
    else:
        pointers = [
            f"{node.pointer}/$ref"
            for node in facts.nodes
            if node.in_definition and isinstance(node.schema.get("$ref"), str)
        ]
    for pointer in pointers:
        yield Hit(pointer, {"keyword": "$ref"})


def _root_hits(facts: SchemaFacts) -> Iterator[Hit]:
    schema = facts.schema
    if schema.get("type") != "object":
        if "type" in schema:
            yield Hit("/type", {"keyword": "type", "value": _quoted(schema["type"])})
        else:
            yield Hit("", {"keyword": "type", "value": "(absent)"})


def _tool_hits(match: Match, tool: Tool) -> Iterator[Hit]:
    condition, description = match.condition, tool.description
    if condition == "name-not" and not match.argument.fullmatch(tool.name):
        yield Hit("", {"name": tool.name, "length": len(tool.name)})
    elif condition == "description-longer-than" and description is not None and len(description) > match.argument:
        yield Hit("", {"length": len(description), "limit": match.argument})
    elif condition == "description-empty" and description == "":
        yield Hit("")
    elif condition == "strict-unset" and tool.strict is None:
        yield Hit("")


def _budget_hits(match: Match, facts: SchemaFacts) -> Iterator[Hit]:
    count = facts.count(match.condition)
    if count > match.argument:
        pointer = facts.depth[1] if match.condition == "depth" else ""
        yield Hit(pointer, {"count": count, "limit": match.argument})


class CompiledTarget:
    """A target's entries, indexed for matching.

    Attributes:
        rules: The target's data file.
        entries: The entries matched (the rules, and the unverified constructs when they are shown).
    """

    def __init__(self, rules: TargetRules, *, show_unverified: bool) -> None:
        """Index ``rules`` (and its unverified constructs when ``show_unverified``)."""
        self.rules = rules
        self.entries: tuple[Entry, ...] = rules.entries if show_unverified else rules.rules
        self._by_keyword: dict[str, list[Entry]] = {}
        self._by_kind: dict[str, list[Entry]] = {}
        for entry in self.entries:
            if entry.match.kind == "keyword":
                for keyword in entry.match.keywords:
                    self._by_keyword.setdefault(keyword, []).append(entry)
            else:
                kind = f"{entry.match.kind}:{entry.match.scope}" if entry.match.kind == "budget" else entry.match.kind
                self._by_kind.setdefault(kind, []).append(entry)

    def _node_hits(self, node: Node) -> Iterator[tuple[Entry, Hit]]:
        for keyword in node.schema:
            for entry in self._by_keyword.get(keyword, ()):
                hit = _keyword_hit(entry.match, node, keyword)
                if hit is not None:
                    yield entry, hit
        for entry in self._by_kind.get("unknown-keyword", ()):
            for keyword in node.schema:
                if keyword not in entry.match.allowed and keyword not in entry.match.skip:
                    yield entry, Hit(f"{node.pointer}/{pointer_token(keyword)}", {"keyword": keyword})
        if is_object(node.schema):
            for entry in self._by_kind.get("object", ()):
                yield from ((entry, hit) for hit in _object_hits(entry.match, node))

    def tool_hits(self, tool: Tool, facts: SchemaFacts) -> Iterator[tuple[Entry, Hit]]:
        """Every match inside one tool."""
        for entry in self._by_kind.get("tool", ()):
            yield from ((entry, hit) for hit in _tool_hits(entry.match, tool))
        for entry in self._by_kind.get("root", ()):
            yield from ((entry, hit) for hit in _root_hits(facts))
        for node in facts.nodes:
            yield from self._node_hits(node)
        for entry in self._by_kind.get("ref", ()):
            yield from ((entry, hit) for hit in _ref_hits(entry.match, facts))
        for entry in self._by_kind.get("budget:tool", ()):
            yield from ((entry, hit) for hit in _budget_hits(entry.match, facts))

    def request_hits(self, tools: Sequence[tuple[Tool, SchemaFacts]]) -> Iterator[tuple[Entry, Hit]]:
        """Every request-wide budget exceeded by the tools linted together (sent as one request)."""
        for entry in self._by_kind.get("budget:request", ()):
            measure, limit = entry.match.condition, entry.match.argument
            counts = [(tool.name, 1 if measure == "tools" else facts.count(measure)) for tool, facts in tools]
            total = sum(count for _, count in counts)
            if total > limit:
                largest = sorted(counts, key=lambda item: -item[1])[:_CONTRIBUTORS]
                data = {"count": total, "limit": limit, "largest": [[name, count] for name, count in largest if count]}
                yield entry, Hit("", data)
