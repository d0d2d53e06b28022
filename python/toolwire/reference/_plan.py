"""How one subschema applies to a value, keyword by keyword, as ``jsonschema`` applies it: what the error search walks.

The twin of ``rust/core/src/plan.rs``. A plan names the subschemas a keyword applies, as nodes of the tool's graph
(:mod:`toolwire.reference._search_cost`), and keeps the keywords that apply none (``type``, ``enum``, ``const``,
bounds, lengths, ``pattern``, ``required``...) as a schema of their own, which ``jsonschema`` runs: whether a value
passes them, and how it fails them, stay the library's.

A keyword applies in the drafts whose validator class declares it (``VALIDATORS``): ``dependencies`` in drafts 4 to 7
only here, where the core's crate also reads it in 2019-09 and 2020-12. In drafts 4 to 7 a ``$ref`` stands alone. A
subschema the walk does not model has no plan (the search falls back to the library's own): one holding
``unevaluatedProperties``/``unevaluatedItems``, ``$dynamicRef``/``$recursiveRef``, a ``$schema`` naming another
draft than the root's, or a ``$ref`` that does not resolve.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import referencing
import referencing.jsonschema

__all__ = ["Boolean", "Bound", "Condition", "Contains", "Keywords", "Plan", "Rest", "plan"]

#: The keywords that apply no subschema, kept in a subschema's plan as a schema the library runs.
ASSERTIONS = (
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
)

# Keywords the walk does not model: they read what every passing branch evaluated, or the dynamic scope.
_UNMODELLED = ("unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef")


@dataclass(frozen=True)
class Boolean:
    """``true`` (any value) or ``false`` (none), with the pointer of a ``false`` in the tool's schema."""

    accepts: bool
    location: str | None


@dataclass(frozen=True)
class Condition:
    """``if``, ``then``, ``else``."""

    test: int
    then: int | None
    otherwise: int | None


@dataclass(frozen=True)
class Rest:
    """The subschema for the items past the prefix, from ``additionalItems`` (reported once when ``false``)."""

    node: int
    additional_items: bool


@dataclass(frozen=True)
class Bound:
    """A bound of ``contains``, as the schema writes it."""

    count: int | float


@dataclass(frozen=True)
class Contains:
    """``contains``, with ``minContains`` and ``maxContains`` where the draft reads them."""

    node: int
    min: Bound | None
    max: Bound | None


@dataclass
class Keywords:
    """The keywords of a schema object that apply, each with its subschemas as graph nodes."""

    assertions: dict[str, Any] | None = None
    references: list[int] = field(default_factory=list)
    all_of: list[int] = field(default_factory=list)
    any_of: list[int] = field(default_factory=list)
    one_of: list[int] = field(default_factory=list)
    # `not`, with its value as JSON for the message.
    not_: tuple[int, str] | None = None
    condition: Condition | None = None
    # `dependentSchemas` and the schemas of `dependencies`: applied to the object when it has that member.
    dependent: list[tuple[str, int]] = field(default_factory=list)
    properties: list[tuple[str, int]] = field(default_factory=list)
    patterns: list[tuple[str, int]] = field(default_factory=list)
    additional: int | None = None
    names: int | None = None
    # `prefixItems`, or `items` as a list (drafts before 2020-12).
    prefix: list[int] = field(default_factory=list)
    rest: Rest | None = None
    contains: Contains | None = None
    # The assertions' validator, compiled the first time a walk needs it.
    compiled: Any = None


Plan = Boolean | Keywords


def plan(
    schema: Any,
    specification: referencing.Specification[Any],
    known: Collection[str],
    location: str | None,
    references: list[int] | None,
    node: Callable[[Any, Any], int],
) -> Plan | None:
    """The plan of ``schema`` under ``specification``, whose validator class knows the keywords ``known``.

    ``node(container, key)`` numbers the subschema ``container[key]``, ``references`` are the nodes the ``$ref``
    resolves to (None when it does not), ``location`` the pointer of a ``false``. None when the subschema has no plan.
    """
    if isinstance(schema, bool):
        return Boolean(schema, None if schema else location)
    if not isinstance(schema, dict) or references is None or _other_draft(schema, specification):
        return None
    keywords = Keywords(references=references)
    modern = specification in (referencing.jsonschema.DRAFT201909, referencing.jsonschema.DRAFT202012)
    if not modern and "$ref" in schema:
        return keywords
    if any(keyword in known and keyword in schema for keyword in _UNMODELLED):
        return None

    def one(keyword: str) -> int | None:
        return node(schema, keyword) if keyword in known and keyword in schema else None

    def listed(keyword: str) -> list[int]:
        value = schema.get(keyword) if keyword in known else None
        return [node(value, at) for at in range(len(value))] if isinstance(value, list) else []

    def named(keyword: str) -> list[tuple[str, int]]:
        value = schema.get(keyword) if keyword in known else None
        if not isinstance(value, dict):
            return []
        return [(name, node(value, name)) for name, each in value.items() if isinstance(each, (dict, bool))]

    not_ = one("not")
    if not_ is not None:
        keywords.not_ = (not_, json.dumps(schema["not"], ensure_ascii=False, separators=(",", ":")))
    keywords.additional = one("additionalProperties")
    keywords.names = one("propertyNames")
    keywords.condition = _condition(schema, one("if"), node)
    keywords.all_of = listed("allOf")
    keywords.any_of = listed("anyOf")
    keywords.one_of = listed("oneOf")
    keywords.prefix = listed("prefixItems" if "prefixItems" in known else "items")
    keywords.rest = _rest(schema, known, node)
    keywords.properties = named("properties")
    keywords.patterns = named("patternProperties")
    keywords.dependent = named("dependencies") + named("dependentSchemas")
    keywords.contains = _contains(schema, one("contains"), modern)
    keywords.assertions = _assertions(schema)
    return keywords


def _condition(schema: dict[str, Any], test: int | None, node: Callable[[Any, Any], int]) -> Condition | None:
    """``if`` (its node ``test``, None when it does not apply), with ``then`` and ``else``."""
    if test is None:
        return None
    then = node(schema, "then") if "then" in schema else None
    return Condition(test, then, node(schema, "else") if "else" in schema else None)


def _contains(schema: dict[str, Any], node: int | None, modern: bool) -> Contains | None:
    """``contains`` (its node, None when it does not apply), with its bounds where the draft reads them."""
    if node is None:
        return None
    return Contains(node, _bound(schema, "minContains", modern), _bound(schema, "maxContains", modern))


def _other_draft(schema: dict[str, Any], specification: referencing.Specification[Any]) -> bool:
    """Whether ``schema`` names a dialect other than ``specification``.

    ``$schema`` is read as the core reads it: either scheme, with or without the empty fragment.
    """
    dialect = schema.get("$schema")
    if dialect is None:
        return False
    if not isinstance(dialect, str):
        return True
    path = dialect.removesuffix("#").removeprefix("https://").removeprefix("http://")
    return _DIALECTS.get(path) is not specification


_DIALECTS = {
    "json-schema.org/draft/2020-12/schema": referencing.jsonschema.DRAFT202012,
    "json-schema.org/draft/2019-09/schema": referencing.jsonschema.DRAFT201909,
    "json-schema.org/draft-07/schema": referencing.jsonschema.DRAFT7,
    "json-schema.org/draft-06/schema": referencing.jsonschema.DRAFT6,
    "json-schema.org/draft-04/schema": referencing.jsonschema.DRAFT4,
    # The version-less URI names the current draft.
    "json-schema.org/schema": referencing.jsonschema.DRAFT202012,
}


def _rest(schema: dict[str, Any], known: Collection[str], node: Callable[[Any, Any], int]) -> Rest | None:
    """``items`` as a schema (after ``prefixItems`` in 2020-12), or ``additionalItems`` when ``items`` is a list."""
    items = schema.get("items")
    if isinstance(items, list):
        if "additionalItems" in known and "additionalItems" in schema:
            return Rest(node(schema, "additionalItems"), additional_items=True)
        return None
    if isinstance(items, (dict, bool)):
        return Rest(node(schema, "items"), additional_items=False)
    return None


def _bound(schema: dict[str, Any], keyword: str, modern: bool) -> Bound | None:
    value = schema.get(keyword)
    if not modern or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Bound(value)


def _assertions(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The keywords of ``schema`` that apply no subschema, as a schema; ``dependencies`` keeps its lists of names."""
    kept = {keyword: schema[keyword] for keyword in ASSERTIONS if keyword in schema}
    dependencies = schema.get("dependencies")
    if isinstance(dependencies, dict):
        lists = {name: value for name, value in dependencies.items() if isinstance(value, list)}
        if lists:
            kept["dependencies"] = lists
    return kept or None
