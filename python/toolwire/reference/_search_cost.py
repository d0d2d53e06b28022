"""A tool's schema as a graph of subschemas, and what searching invalid arguments for their problems costs.

The cost is known before the search starts. The twin of ``rust/core/src/search_cost.rs``: the same graph and the same counts, so that the core and the reference
decide alike whether a search fits in ``Limits.max_validation_steps``.

``jsonschema``'s own search for errors descends into every branch of a failed ``anyOf``/``oneOf``, every schema of an
``allOf``, both ``then`` and ``else``...; under a recursive schema the branches multiply at each level of the
arguments. So the error search (:mod:`toolwire.reference._error_search`) walks the graph's plans
(:mod:`toolwire.reference._plan`) and judges each (subschema, value) pair once; the library's own search is left
for schemas the walk does not model. :meth:`SearchGraph.pairs_exceed` counts the pairs the walk may judge, each once;
:meth:`SearchGraph.exceeds` the visits of the library's search, each pair with multiplicity. Both count the pairs
reached from the root schema at the arguments through

- ``allOf``, ``anyOf``, ``oneOf`` (each branch), ``not``, ``if``, ``then``, ``else``, ``$ref``, ``$dynamicRef``,
  ``$recursiveRef``: the same value; ``dependentSchemas`` and ``dependencies`` (a schema): the object when it has
  that member;
- ``properties``: the member of that name; ``patternProperties``, ``additionalProperties``,
  ``unevaluatedProperties``: every member (patterns are not matched); ``propertyNames``: every member's name;
- ``prefixItems`` and ``items`` (a list): the item at that position; ``items`` (a schema), ``additionalItems``,
  ``unevaluatedItems``, ``contains``: every item.

It never asks whether a value matches, so it counts at least the visits a search makes. In drafts 4 to 7 a ``$ref``
stands alone: the walk, like the libraries, takes no other keyword beside it. References are resolved as the
libraries resolve them (the ``referencing`` package, the draft meta-schemas included). A ``$dynamicRef`` reaches its
static target and every subschema whose ``$dynamicAnchor`` has the name of its fragment; a ``$recursiveRef`` reaches
``#`` and every subschema with ``$recursiveAnchor: true``: all the places the dynamic scope could pick.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote

import referencing
import referencing.exceptions
import referencing.jsonschema
from referencing._core import Resolver

from toolwire.reference._plan import Boolean, Plan, plan

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
# Where the root schema stands.
_ROOT = ("root",)


class _Edge(NamedTuple):
    kind: str
    key: Any
    to: int


class SearchGraph:
    """A tool's schema as the graph of the (subschema → subschema) steps a search can take; node 0 is the root.

    Attributes:
        plans: How each node applies, indexed by node, when every node the root reaches has a plan: then the error
            search walks the schema (:mod:`toolwire.reference._error_search`); else None.
        specification: The draft every subschema is read in.
    """

    def __init__(
        self,
        schema: Any,
        specification: referencing.Specification[Any],
        registry: referencing.Registry[Any],
        known: Collection[str] | None = None,
    ) -> None:
        """The graph of ``schema``, a schema of ``specification`` whose references resolve in ``registry``.

        A reference that does not resolve leads nowhere; a document whose references cannot be read at all (never
        seen: ``jsonschema`` reads them the same way) fails closed: every search is over any budget. ``known``: the
        keywords the draft's validator class applies, to plan the nodes by (None: no plans, the count alone).
        """
        root = specification.create_resource(schema)
        base = (root.id() or _DEFAULT_BASE).rstrip("#")
        falses: dict[Any, str] = {_ROOT: ""} if schema is False else {}
        _index_falses(schema, "", falses)
        builder = _Builder(specification, known, falses)
        self._edges: list[list[_Edge]] | None = None
        self.plans: list[Plan] | None = None
        self.specification = specification
        try:
            builder.node(schema, registry.with_resource(base, root).crawl().resolver(base), _ROOT)
            while builder.pending:
                node, resolver = builder.pending.pop()
                builder.walk(node, resolver)
        except (referencing.exceptions.Unresolvable, referencing.exceptions.NoSuchResource, ValueError):
            return
        builder.add_dynamic_edges()
        self._edges = builder.edges
        if known is not None and _reached_all_planned(builder.edges, builder.plans):
            # A node the root does not reach (a definition never referred to) is never walked.
            self.plans = [Boolean(True, None) if each is None else each for each in builder.plans]

    def exceeds(self, instance: Any, budget: int) -> bool:
        """Whether a search of ``instance`` from the root could take more than ``budget`` steps.

        Each (subschema, value) pair counts every time a search could reach it: the count for ``jsonschema``'s own
        search, which judges a pair again down every way that leads to it. Each visit counts when the walk schedules
        it, and none is scheduled past the budget: the walk's memory stays within ``budget`` visits, its time within
        ``budget`` and the length of the one container it was reading.
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

    def pairs_exceed(self, instance: Any, budget: int) -> bool:
        """Whether a search of ``instance`` could take more than ``budget`` steps, each pair counted once.

        The count for the error search, which judges each (subschema, value) pair once however many ways lead to it.
        A value is told by where it stands (``location``); a member's name is a value of its own. Memory and time
        stay within ``budget`` pairs, as in :meth:`exceeds`.
        """
        if self._edges is None:
            return True
        root = location(None, None)
        seen = {(0, root)}
        pending: list[tuple[int, Any, Any]] = [(0, instance, root)]
        while pending:
            node, value, at = pending.pop()
            for edge in self._edges[node]:
                for place, reached in _reached_at(edge, value, at):
                    if len(seen) <= budget and (edge.to, place) not in seen:
                        seen.add((edge.to, place))
                        pending.append((edge.to, reached, place))
                if len(seen) > budget:
                    return True
        return len(seen) > budget


def location(parent: Any, segment: Any) -> tuple[int | None, Any]:
    """What tells a value from every other of the arguments: its container and its member or index in it.

    The root's is ``location(None, None)``; a member's name is ``("name", member)`` in its object. (``id`` of the value
    itself would not do: equal numbers and strings may be one object in several places.)
    """
    return (None if parent is None else id(parent), segment)


def _reached_at(edge: _Edge, value: Any, at: Any) -> Iterator[tuple[Any, Any]]:
    """Every (location, value) ``edge`` leads to from ``value`` at ``at``, each member's name as itself."""
    if edge.kind == _IN_PLACE:
        yield at, value
    elif edge.kind == _EVERY_NAME and isinstance(value, dict):
        yield from ((location(value, ("name", name)), name) for name in value)
    elif isinstance(value, dict):
        if edge.kind == _MEMBER and edge.key in value:
            yield location(value, edge.key), value[edge.key]
        elif edge.kind == _WHEN_MEMBER and edge.key in value:
            yield at, value
        elif edge.kind == _EVERY_MEMBER:
            yield from ((location(value, name), member) for name, member in value.items())
    elif isinstance(value, list):
        if edge.kind == _ITEM and edge.key < len(value):
            yield location(value, edge.key), value[edge.key]
        elif edge.kind == _EVERY_ITEM:
            yield from ((location(value, index), item) for index, item in enumerate(value))


def _reached_all_planned(edges: list[list[_Edge]], plans: list[Plan | None]) -> bool:
    """Whether every node the root reaches has a plan."""
    seen: set[int] = set()
    pending = [0]
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        if plans[node] is None:
            return False
        pending.extend(edge.to for edge in edges[node])
    return True


def _index_falses(schema: Any, pointer: str, falses: dict[Any, str]) -> None:
    """Record where every ``false`` subschema of ``schema`` stands (by ``_place``), as a pointer for messages."""
    items = schema.items() if isinstance(schema, dict) else enumerate(schema) if isinstance(schema, list) else ()
    for key, value in items:
        child = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
        if value is False:
            falses[_place(schema, key)] = child
        else:
            _index_falses(value, child, falses)


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
    """Numbers the subschemas a search can reach, records the edges between them, and plans each one."""

    def __init__(
        self, specification: referencing.Specification[Any], known: Collection[str] | None, falses: dict[Any, str]
    ) -> None:
        self.specification = specification
        self.known = known
        self.falses = falses
        self.values: list[Any] = []
        self.places: list[Any] = []
        self.edges: list[list[_Edge]] = []
        self.plans: list[Plan | None] = []
        # Nodes by where their subschema stands: a subschema reached twice (by a reference) is one node. An object is
        # told by its identity; `True` and `False`, one object each, by their container and key (`_place`).
        self.at: dict[Any, int] = {}
        # Nodes found and not yet walked, with the resolver their references are read with.
        self.pending: list[tuple[int, _Resolver]] = []

    def node(self, schema: Any, resolver: _Resolver, place: Any) -> int:
        """The node of ``schema`` (standing at ``place``), found in ``resolver``'s scope; numbered the first time."""
        identity = id(schema) if isinstance(schema, dict) else place
        known = self.at.get(identity)
        if known is not None:
            return known
        node = self.at[identity] = len(self.values)
        self.values.append(schema)
        self.places.append(place)
        self.edges.append([])
        self.plans.append(None)
        self.pending.append((node, resolver))
        return node

    def walk(self, node: int, outer: _Resolver) -> None:
        """The edges of ``node`` (to the subschemas in its keywords and to those its references reach), its plan."""
        schema = self.values[node]
        if not isinstance(schema, dict):
            if self.known is not None:
                self.plans[node] = plan(
                    schema, self.specification, self.known, self.falses.get(self.places[node]), [], _none
                )
            return
        resolver = outer.in_subresource(self.specification.create_resource(schema))
        modern = self.specification in (referencing.jsonschema.DRAFT201909, referencing.jsonschema.DRAFT202012)
        alone = not modern and "$ref" in schema
        edges = self.edges[node]
        for keyword, value in [] if alone else schema.items():
            if keyword in ("$defs", "definitions") and isinstance(value, dict):
                # Not applied where they stand, but found now: a dynamic anchor among them may be reached.
                for name, member in value.items():
                    self.node(member, resolver, _place(value, name))
            for kind, key, subschema, place in _subschemas(keyword, value, schema):
                if isinstance(subschema, (dict, bool)):
                    edges.append(_Edge(kind, key, self.node(subschema, resolver, place)))
        references = self._references(schema, resolver, edges)
        if self.known is not None:

            def numbered(container: Any, key: Any) -> int:
                # Every subschema the plan names is one the edges above reach, so the walk stays within the count.
                return self.node(container[key], resolver, _place(container, key))

            location = self.falses.get(self.places[node])
            self.plans[node] = plan(schema, self.specification, self.known, location, references, numbered)

    def _references(self, schema: dict[str, Any], resolver: _Resolver, edges: list[_Edge]) -> list[int] | None:
        """Adds the edges to what the references of ``schema`` reach.

        Returns:
            The targets of ``$ref``, for the plan; None when one does not resolve.
        """
        references: list[int] | None = []
        for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
            reference = schema.get(keyword)
            if not isinstance(reference, str):
                continue
            target = "#" if keyword == "$recursiveRef" else reference
            try:
                resolved = resolver.lookup(target)
                place = _place_of(resolver, target, resolved.contents)
            except (referencing.exceptions.Unresolvable, ValueError):
                if keyword == "$ref":
                    references = None
                continue
            to = self.node(resolved.contents, resolved.resolver, place)
            edges.append(_Edge(_IN_PLACE, None, to))
            if keyword == "$ref" and references is not None:
                references.append(to)
        return references

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


def _subschemas(keyword: str, value: Any, schema: dict[str, Any]) -> list[tuple[str, Any, Any, Any]]:
    """The subschemas a keyword's ``value`` in ``schema`` holds.

    Each with where it applies from the value the keyword is, and where it stands (``_place``).
    """
    if keyword in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
        return [(_IN_PLACE, None, branch, _place(value, at)) for at, branch in enumerate(value)]
    if keyword in ("prefixItems", "items") and isinstance(value, list):
        return [(_ITEM, position, item, _place(value, position)) for position, item in enumerate(value)]
    if isinstance(value, dict) and keyword in _NAMED:
        return [(_NAMED[keyword], name, member, _place(value, name)) for name, member in value.items()]
    return [(_ONE[keyword], None, value, _place(schema, keyword))] if keyword in _ONE else []


def _place(container: Any, key: Any) -> tuple[int, Any]:
    """Where a subschema stands: its container (an object or a list of the schema) and its key or index there."""
    return (id(container), key)


def _place_of(resolver: _Resolver, target: str, contents: Any) -> Any:
    """Where the subschema a reference resolves to stands (only `True` and `False` need it, being one object each).

    A boolean is reached by a JSON pointer (it holds no anchor): its container is what the pointer's parent names.
    """
    if isinstance(contents, dict):
        return None
    base, _, fragment = target.partition("#")
    parent, _, last = fragment.rpartition("/")
    container = resolver.lookup(f"{base}#{parent}").contents
    key = unquote(last).replace("~1", "/").replace("~0", "~")
    return _place(container, int(key) if isinstance(container, list) else key)


def _none(container: Any, key: Any) -> int:
    raise AssertionError("a boolean schema holds no subschema")  # pragma: no cover


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
