"""What a fixture must cover: the features of observed calls, per tool.

A feature is one of:

- ``("tool", tool)``: the tool was called;
- ``("value", tool, pointer, value)``: an enumerated value seen at a pointer (``value`` as compact JSON);
- ``("present", tool, pointer)`` / ``("absent", tool, pointer)``: an optional member seen given, and seen left out;
- ``("violation", tool, code)``: a violation code seen (only when invalid calls are sampled too).

Pointers are JSON pointers into the arguments with every array index written ``*`` (``/items/*/unit``), so that the
same member of any element is one feature.

Which values are enumerated and which members are tracked comes from the tool's schema when the tools are known:
values at a pointer whose schema has ``enum`` or ``const`` (through ``properties``, ``items``, ``prefixItems``,
``anyOf``/``oneOf``/``allOf`` and local ``$ref``), every member the schema declares in ``properties``. Without a
schema it is inferred from the calls themselves: a pointer is enumerated when its strings take at most
``MAX_INFERRED_VALUES`` distinct values, each seen twice on average (a free-text field is not); every member seen is
tracked. Booleans and nulls are enumerated everywhere, in both modes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from toolwire._common._json import lookup, pointer_token, pointer_tokens

__all__ = ["MAX_INFERRED_VALUES", "Feature", "Inference", "ToolShape", "call_features", "feature_label", "schema_shape"]

#: A pointer's strings count as an enumeration when they take at most this many distinct values.
MAX_INFERRED_VALUES: Final = 16
# Deeper schemas are cut off: a fixture does not need features below this nesting.
_MAX_DEPTH: Final = 32

Feature: TypeAlias = tuple[str, ...]


def feature_label(feature: Feature) -> str:
    """A feature for people: ``get_weather``, ``get_weather /unit="celsius"``, ``get_weather /days absent``."""
    kind, tool, *rest = feature
    if kind == "tool":
        return tool
    if kind == "value":
        return f"{tool} {rest[0]}={rest[1]}"
    return f"{tool} {rest[0]} {kind}" if kind in ("present", "absent") else f"{tool} {rest[0]}"


@dataclass
class ToolShape:
    """What is enumerated and tracked for one tool's arguments.

    Attributes:
        enumerated: Pointers whose values are features.
        pinned: Pointers the schema fixes to listed values (``enum``/``const``): scrubbing leaves them alone.
        members: Object pointer -> the member names whose presence and absence are features.
    """

    enumerated: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    members: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


def _resolve(reference: str, root: Mapping[str, Any]) -> Any:
    return lookup(root, pointer_tokens(reference[1:]))


def _children(schema: Mapping[str, Any], pointer: str) -> Iterator[tuple[Any, str]]:
    """The subschemas of a schema with the instance pointer each one describes."""
    for keyword in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(keyword)
        for branch in branches if isinstance(branches, list) else []:
            yield branch, pointer
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, child in properties.items():
            yield child, f"{pointer}/{pointer_token(name)}"
    items = schema.get("items")
    for child in [items] if isinstance(items, Mapping) else items if isinstance(items, list) else []:
        yield child, f"{pointer}/*"
    prefix = schema.get("prefixItems")
    for child in prefix if isinstance(prefix, list) else []:
        yield child, f"{pointer}/*"


def _walk_schema(schema: Any, pointer: str, root: Mapping[str, Any], shape: ToolShape, refs: tuple[str, ...]) -> None:
    if not isinstance(schema, Mapping) or len(refs) + pointer.count("/") > _MAX_DEPTH:
        return
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#") and reference not in refs:
        _walk_schema(_resolve(reference, root), pointer, root, shape, (*refs, reference))
    if "enum" in schema or "const" in schema:
        shape.enumerated.add(pointer)
        shape.pinned.add(pointer)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        shape.members[pointer].update(name for name in properties if isinstance(name, str))
    for child, child_pointer in _children(schema, pointer):
        _walk_schema(child, child_pointer, root, shape, refs)


def schema_shape(parameters: Mapping[str, Any]) -> ToolShape:
    """The enumerated pointers, pinned pointers and declared members of a tool's ``parameters`` schema."""
    shape = ToolShape()
    _walk_schema(parameters, "", parameters, shape, ())
    return shape


def _nodes(value: Any) -> list[tuple[str, Any]]:
    """Every node of a parsed JSON value with its pointer (array indices as ``*``), parents before children."""
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        found.append((pointer, node))
        if isinstance(node, dict):
            stack.extend((f"{pointer}/{pointer_token(key)}", item) for key, item in node.items())
        elif isinstance(node, list):
            stack.extend((f"{pointer}/*", item) for item in node)
    return found


class Inference:
    """Per tool, what the calls themselves show: the members of each object and the strings at each pointer."""

    def __init__(self) -> None:
        """Start with nothing seen."""
        self.members: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.strings: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def observe(self, tool: str, arguments: Any) -> None:
        """Take in one call's parsed arguments."""
        members, strings, counts = self.members[tool], self.strings[tool], self.counts[tool]
        for pointer, node in _nodes(arguments):
            if isinstance(node, dict):
                members[pointer].update(node)
            elif isinstance(node, str):
                counts[pointer] += 1
                distinct = strings[pointer]
                # Past the limit the pointer is free text whatever comes next: stop growing the set.
                if len(distinct) <= MAX_INFERRED_VALUES:
                    distinct.add(node)

    def shape(self, tool: str) -> ToolShape:
        """The tool's shape as inferred from what was observed."""
        shape = ToolShape()
        for pointer, names in self.members[tool].items():
            shape.members[pointer] = set(names)
        for pointer, distinct in self.strings[tool].items():
            if len(distinct) <= MAX_INFERRED_VALUES and self.counts[tool][pointer] >= 2 * len(distinct):
                shape.enumerated.add(pointer)
        return shape


def _canonical(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def call_features(tool: str, arguments: Any, shape: ToolShape) -> set[Feature]:
    """The features of one call whose arguments parsed (``arguments`` a JSON value)."""
    found: set[Feature] = {("tool", tool)}
    for pointer, node in _nodes(arguments):
        if isinstance(node, dict):
            for name in shape.members.get(pointer, ()):
                found.add(("present" if name in node else "absent", tool, f"{pointer}/{pointer_token(name)}"))
        if isinstance(node, (dict, list)) and pointer not in shape.pinned:
            continue
        if node is None or isinstance(node, bool) or pointer in shape.pinned or pointer in shape.enumerated:
            found.add(("value", tool, pointer, _canonical(node)))
    return found
