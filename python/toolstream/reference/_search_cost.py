"""What it costs to search invalid arguments for their problems, known before the search starts.

The twin of ``rust/core/src/search_cost.rs``: the same graph and the same count, so that the core and the reference
decide alike whether a search fits in ``Limits.max_validation_steps``.

A search for errors descends into every branch of a failed ``anyOf``/``oneOf``, every schema of an ``allOf``, both
``then`` and ``else``...; under a recursive schema the branches multiply at each level of the arguments. The count
is one *step* per (subschema, value) pair reached, with multiplicity, from the root schema at the arguments through

- ``allOf``, ``anyOf``, ``oneOf`` (each branch), ``not``, ``if``, ``then``, ``else``, ``$ref``, ``$dynamicRef``,
  ``$recursiveRef``: the same value; ``dependentSchemas`` and ``dependencies`` (a schema): the object when it has
  that member;
- ``properties``: the member of that name; ``patternProperties``, ``additionalProperties``,
  ``unevaluatedProperties``: every member (patterns are not matched); ``propertyNames``: every member's name;
- ``prefixItems`` and ``items`` (a list): the item at that position; ``items`` (a schema), ``additionalItems``,
  ``unevaluatedItems``, ``contains``: every item.

It never asks whether a value matches, so it counts at least the visits any search makes. In drafts 4 to 7 a ``$ref``
stands alone: the walk, like the libraries, takes no other keyword beside it. References are resolved as the
libraries resolve them (the ``referencing`` package, the draft meta-schemas included). A ``$dynamicRef`` reaches its
static target and every subschema whose ``$dynamicAnchor`` has the name of its fragment; a ``$recursiveRef`` reaches
``#`` and every subschema with ``$recursiveAnchor: true``: all the places the dynamic scope could pick.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import referencing
import referencing.exceptions
import referencing.jsonschema
from referencing._core import Resolver

_Resolver = Resolver[Any]

__all__ = ["SearchGraph"]

# Where an edge leads from the value a subschema is applied to: (kind, name or position).
_IN_PLACE = "in place"
_MEMBER = "member"
_WHEN_MEMBER = "when member"
_EVERY_MEMBER = "every member"
_EVERY_NAME = "every name"
_ITEM = "item"
_EVERY_ITEM = "every item"
# The base URI of a document that names none, as the core's `jsonschema` crate gives it.
_DEFAULT_BASE = "json-schema:///"


class _Edge(NamedTuple):
    kind: str
    key: Any
    to: int


class SearchGraph:
    """A tool's schema as the graph of the (subschema → subschema) steps a search can take; node 0 is the root."""

    def __init__(
        self, schema: Any, specification: referencing.Specification[Any], registry: referencing.Registry[Any]
    ) -> None:
        """The graph of ``schema``, a schema of ``specification`` whose references resolve in ``registry``.

        A reference that does not resolve leads nowhere; a document whose references cannot be read at all (never
        seen: ``jsonschema`` reads them the same way) fails closed: every search is over any budget.
        """
        root = specification.create_resource(schema)
        base = (root.id() or _DEFAULT_BASE).rstrip("#")
        builder = _Builder(specification)
        self._edges: list[list[_Edge]] | None = None
        try:
            builder.node(schema, registry.with_resource(base, root).crawl().resolver(base))
            while builder.pending:
                node, resolver = builder.pending.pop()
                builder.walk(node, resolver)
        except (referencing.exceptions.Unresolvable, referencing.exceptions.NoSuchResource, ValueError):
            return
        builder.add_dynamic_edges()
        self._edges = builder.edges

    def exceeds(self, instance: Any, budget: int) -> bool:
        """Whether a search of ``instance`` from the root could take more than ``budget`` steps.

        Each visit counts when the walk schedules it, and none is scheduled past the budget: the walk's memory stays
        within ``budget`` visits, its time within ``budget`` and the length of the one container it was reading.
        """
        if self._edges is None:
            return True
        pending: list[tuple[int, Any]] = [(0, instance)]
        steps = 1
        while pending:
            node, value = pending.pop()
            for edge in self._edges[node]:
                for reached in _reached(edge, value):
                    steps += 1
                    if steps <= budget:
                        pending.append((edge.to, reached))
                if steps > budget:
                    return True
        return steps > budget


def _reached(edge: _Edge, value: Any) -> Iterator[Any]:
    """Every value ``edge`` leads to from ``value``."""
    if edge.kind == _IN_PLACE:
        yield value
    elif isinstance(value, dict):
        if edge.kind == _MEMBER and edge.key in value:
            yield value[edge.key]
        elif edge.kind == _WHEN_MEMBER and edge.key in value:
            yield value
        elif edge.kind == _EVERY_MEMBER:
            yield from value.values()
        elif edge.kind == _EVERY_NAME:
            # A member's name is a string; no keyword's search depends on which one, only the count matters.
            yield from (None for _ in value)
    elif isinstance(value, list):
        if edge.kind == _ITEM and edge.key < len(value):
            yield value[edge.key]
        elif edge.kind == _EVERY_ITEM:
            yield from value


class _Builder:
    """Numbers the subschemas a search can reach and records the edges between them."""

    def __init__(self, specification: referencing.Specification[Any]) -> None:
        self.specification = specification
        self.values: list[Any] = []
        self.edges: list[list[_Edge]] = []
        # Nodes by the identity of their subschema: a subschema reached twice (by a reference) is one node.
        self.at: dict[int, int] = {}
        # Nodes found and not yet walked, with the resolver their references are read with.
        self.pending: list[tuple[int, _Resolver]] = []

    def node(self, schema: Any, resolver: _Resolver) -> int:
        """The node of ``schema``, found in ``resolver``'s scope; numbered and queued the first time."""
        known = self.at.get(id(schema))
        if known is not None:
            return known
        node = self.at[id(schema)] = len(self.values)
        self.values.append(schema)
        self.edges.append([])
        self.pending.append((node, resolver))
        return node

    def walk(self, node: int, outer: _Resolver) -> None:
        """The edges of ``node``: to the subschemas in its keywords and to those its references reach."""
        schema = self.values[node]
        if not isinstance(schema, dict):
            return
        resolver = outer.in_subresource(self.specification.create_resource(schema))
        modern = self.specification in (referencing.jsonschema.DRAFT201909, referencing.jsonschema.DRAFT202012)
        alone = not modern and "$ref" in schema
        edges = self.edges[node]
        for keyword, value in [] if alone else schema.items():
            if keyword in ("$defs", "definitions") and isinstance(value, dict):
                # Not applied where they stand, but found now: a dynamic anchor among them may be reached.
                for member in value.values():
                    self.node(member, resolver)
            for kind, key, subschema in _subschemas(keyword, value):
                if isinstance(subschema, (dict, bool)):
                    edges.append(_Edge(kind, key, self.node(subschema, resolver)))
        for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
            reference = schema.get(keyword)
            if not isinstance(reference, str):
                continue
            try:
                resolved = resolver.lookup("#" if keyword == "$recursiveRef" else reference)
            except (referencing.exceptions.Unresolvable, ValueError):
                continue
            edges.append(_Edge(_IN_PLACE, None, self.node(resolved.contents, resolved.resolver)))

    def add_dynamic_edges(self) -> None:
        """Every node a ``$dynamicRef`` or ``$recursiveRef`` could reach through the dynamic scope."""
        for node, schema in enumerate(self.values):
            if not isinstance(schema, dict):
                continue
            dynamic, recursive = schema.get("$dynamicRef"), schema.get("$recursiveRef")
            if isinstance(dynamic, str):
                name = dynamic.rpartition("#")[2] if "#" in dynamic else ""
                reached = [
                    other for other, value in enumerate(self.values) if _anchored(value, "$dynamicAnchor") == name
                ]
            elif isinstance(recursive, str):
                reached = [
                    other for other, value in enumerate(self.values) if _anchored(value, "$recursiveAnchor") is True
                ]
            else:
                continue
            self.edges[node].extend(_Edge(_IN_PLACE, None, other) for other in reached)


def _subschemas(keyword: str, value: Any) -> list[tuple[str, Any, Any]]:
    """The subschemas a keyword's ``value`` holds, each with where it applies from the value the keyword is."""
    if keyword in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
        return [(_IN_PLACE, None, branch) for branch in value]
    if keyword in ("prefixItems", "items") and isinstance(value, list):
        return [(_ITEM, position, item) for position, item in enumerate(value)]
    if isinstance(value, dict) and keyword in _NAMED:
        return [(_NAMED[keyword], name, member) for name, member in value.items()]
    return [(_ONE[keyword], None, value)] if keyword in _ONE else []


_NAMED = {
    "properties": _MEMBER,
    "dependentSchemas": _WHEN_MEMBER,
    "dependencies": _WHEN_MEMBER,
    "patternProperties": _EVERY_MEMBER,
}
_ONE = {
    "not": _IN_PLACE,
    "if": _IN_PLACE,
    "then": _IN_PLACE,
    "else": _IN_PLACE,
    "additionalProperties": _EVERY_MEMBER,
    "unevaluatedProperties": _EVERY_MEMBER,
    "propertyNames": _EVERY_NAME,
    "items": _EVERY_ITEM,
    "additionalItems": _EVERY_ITEM,
    "unevaluatedItems": _EVERY_ITEM,
    "contains": _EVERY_ITEM,
}


def _anchored(schema: Any, keyword: str) -> Any:
    """The value of ``keyword`` in ``schema``, when it is an object that has it."""
    return schema.get(keyword) if isinstance(schema, dict) else None
