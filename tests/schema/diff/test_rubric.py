"""Every row of the rubric (every change kind) as a pair of schemas: OLD, NEW, and the kinds and verdicts expected.

Each pair is diffed through the public ``diff_tools``; the test asserts the exact set of (kind, verdict) the diff
reports, so a pair that also produced an unexpected change (noise from a spelling, a missed normalisation) fails.
A last test holds the table to ``CHANGE_KINDS``: every kind has at least one pair.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from toolwire.schema.diff._diff import CHANGE_KINDS, diff_tools

TODAY = datetime.date(2026, 1, 15)


def tool(parameters: dict[str, Any], name: str = "t", description: str = "Do the thing.", **extra: Any) -> dict:
    return {"name": name, "description": description, "parameters": parameters, **extra}


def obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required:
        schema["required"] = required
    return schema


def closed(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return obj(properties, required, additionalProperties=False, **extra)


def prop(schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A closed object with one required parameter ``p`` of this schema."""
    return closed({"p": schema}, ["p"], **extra)


WEATHER = tool(obj({"city": {"type": "string"}}, ["city"]), "get_weather", "Get the current weather for a city.")
EMAIL = tool(obj({"to": {"type": "string"}}, ["to"]), "send_email", "Send an email to a recipient.")
STRICT_A = {"type": "function", "function": {**tool(closed({"a": {"type": "string"}}, ["a"])), "strict": True}}
LOOSE_A = {"type": "function", "function": {**tool(closed({"a": {"type": "string"}}, ["a"])), "strict": False}}
S = {"type": "string"}
INT = {"type": "integer"}

# (id, OLD tools, NEW tools, options, {kind: verdict}) - exactly the changes expected.
PAIRS: list[tuple[str, list[Any], list[Any], dict[str, Any], dict[str, str]]] = [
    # -- tools
    ("tool removed", [WEATHER, EMAIL], [WEATHER], {}, {"tool-removed": "BREAKING"}),
    ("tool removed after sunset", [WEATHER, {**EMAIL, "deprecated": "use notify", "sunset": "2025-12-31"}], [WEATHER],
     {}, {"tool-removed-after-sunset": "COMPATIBLE"}),
    ("tool removed before sunset", [WEATHER, {**EMAIL, "deprecated": "use notify", "sunset": "2026-06-30"}], [WEATHER],
     {}, {"tool-removed": "BREAKING"}),
    ("tool renamed", [WEATHER], [{**WEATHER, "name": "fetch_weather"}], {}, {"tool-renamed": "BREAKING"}),
    ("tool renamed, other description", [WEATHER],
     [{**WEATHER, "name": "current_weather", "description": "Current weather conditions for a city."}], {},
     {"tool-renamed": "BREAKING"}),
    ("unrelated tool swapped is no rename", [WEATHER], [EMAIL], {},
     {"tool-removed": "BREAKING", "tool-added": "COMPATIBLE"}),
    ("tool added", [WEATHER], [WEATHER, EMAIL], {}, {"tool-added": "COMPATIBLE"}),
    ("tool added overlapping", [WEATHER],
     [WEATHER, tool(obj({"city": S}), "fetch_weather_report", "Fetch the weather report for a city.")], {},
     {"tool-added-overlapping": "RISKY"}),
    ("tool description changed", [WEATHER], [{**WEATHER, "description": "Weather now, for a city name."}], {},
     {"tool-description-changed": "RISKY"}),
    ("strict on -> off", [STRICT_A], [LOOSE_A], {}, {"strict-disabled": "RISKY"}),
    ("strict off -> on", [LOOSE_A], [STRICT_A], {}, {"strict-enabled": "RISKY"}),
    ("tool deprecated", [WEATHER], [{**WEATHER, "deprecated": "use forecast", "sunset": "2026-09-01"}], {},
     {"tool-deprecated": "COMPATIBLE"}),
    # -- parameters
    ("required param added", [tool(obj({"a": S}))], [tool(obj({"a": S, "b": S}, ["b"]))], {},
     {"param-required-added": "BREAKING"}),
    ("required param added with default", [tool(obj({"a": S}))],
     [tool(obj({"a": S, "b": {"type": "string", "default": "x"}}, ["b"]))], {},
     {"param-required-added-with-default": "BREAKING"}),
    ("optional param added, closed", [tool(closed({"a": S}))], [tool(closed({"a": S, "b": S}))], {},
     {"param-optional-added-closed": "RISKY"}),
    ("optional param added, open", [tool(obj({"a": S}))], [tool(obj({"a": S, "b": S}))], {},
     {"param-optional-added-open": "RISKY"}),
    ("optional param added, OpenAI-strict style", [tool(closed({"a": S}, ["a"]))],
     [tool(closed({"a": S, "b": {"type": ["string", "null"]}}, ["a", "b"]))], {},
     {"param-optional-added-strict-style": "BREAKING"}),
    ("strict style read as optional", [tool(closed({"a": S}, ["a"]))],
     [tool(closed({"a": S, "b": {"type": ["string", "null"]}}, ["a", "b"]))], {"strict_optional_semantics": True},
     {"param-optional-added-closed": "RISKY"}),
    ("param removed, closed", [tool(closed({"a": S, "b": INT}))], [tool(closed({"a": S}))], {},
     {"param-removed-closed": "BREAKING"}),
    ("param removed, open", [tool(obj({"a": S, "b": INT}))], [tool(obj({"a": S}))], {},
     {"param-removed-open": "RISKY"}),
    ("param removed, partly open", [tool(closed({"a": S, "b": INT}))],
     [tool(obj({"a": S}, additionalProperties=S))], {},
     {"param-removed-partly-open": "BREAKING", "additional-properties-opened": "RISKY"}),
    ("optional param added, partly open", [tool(obj({"a": S}, additionalProperties=S))],
     [tool(obj({"a": S, "b": INT}, additionalProperties=S))], {}, {"param-optional-added-partly-open": "BREAKING"}),
    ("optional param added, matching patternProperties", [tool(obj({"a": S}, patternProperties={"^x_": S}))],
     [tool(obj({"a": S, "x_1": INT}, patternProperties={"^x_": S}))], {},
     {"param-optional-added-partly-open": "BREAKING"}),
    ("param renamed", [tool(closed({"city": S}, ["city"]))], [tool(closed({"city_name": S}, ["city_name"]))], {},
     {"param-renamed": "BREAKING"}),
    ("param became required", [tool(obj({"a": S}))], [tool(obj({"a": S}, ["a"]))], {},
     {"param-became-required": "BREAKING"}),
    ("param became optional", [tool(obj({"a": S}, ["a"]))], [tool(obj({"a": S}))], {},
     {"param-became-optional": "RISKY"}),
    ("param deprecated", [tool(prop(S))], [tool(prop({"type": "string", "deprecated": True}))], {},
     {"param-deprecated": "COMPATIBLE"}),
    ("param description changed", [tool(prop({"type": "string", "description": "A city."}))],
     [tool(prop({"type": "string", "description": "A city, with its country."}))], {},
     {"param-description-changed": "RISKY"}),
    # -- types
    ("integer -> number", [tool(prop(INT))], [tool(prop({"type": "number"}))], {}, {"type-widened": "RISKY"}),
    ("type added to the list", [tool(prop(S))], [tool(prop({"type": ["string", "integer"]}))], {},
     {"type-widened": "RISKY"}),
    ("type narrowed", [tool(prop({"type": ["string", "integer"]}))], [tool(prop(S))], {},
     {"type-narrowed": "BREAKING"}),
    ("number -> integer", [tool(prop({"type": "number"}))], [tool(prop(INT))], {}, {"type-narrowed": "BREAKING"}),
    ("type changed", [tool(prop(S))], [tool(prop(INT))], {}, {"type-changed": "BREAKING"}),
    ("became nullable", [tool(prop(S))], [tool(prop({"anyOf": [S, {"type": "null"}]}))], {},
     {"became-nullable": "RISKY"}),
    ("became non-nullable", [tool(prop({"type": "string", "nullable": True}))], [tool(prop(S))], {},
     {"became-non-nullable": "BREAKING"}),
    ("a union lost its null branch",
     [tool(prop({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}, {"type": "null"}]}))],
     [tool(prop({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}]}))], {},
     {"became-non-nullable": "BREAKING"}),
    # -- enums
    ("enum value added", [tool(prop({"enum": ["a", "b"]}))], [tool(prop({"enum": ["a", "b", "c"]}))], {},
     {"enum-value-added": "RISKY"}),
    ("enum value removed", [tool(prop({"enum": ["a", "b"]}))], [tool(prop({"enum": ["a"]}))], {},
     {"enum-value-removed": "BREAKING"}),
    ("enum value renamed (case)", [tool(prop({"enum": ["Low", "High"]}))], [tool(prop({"enum": ["low", "High"]}))],
     {}, {"enum-value-removed": "BREAKING", "enum-value-added": "RISKY"}),
    ("enum reordered", [tool(prop({"enum": ["a", "b"]}))], [tool(prop({"enum": ["b", "a"]}))], {},
     {"enum-reordered": "COMPATIBLE"}),
    ("free value -> enum", [tool(prop(S))], [tool(prop({"type": "string", "enum": ["a"]}))], {},
     {"enum-added": "BREAKING"}),
    ("const added", [tool(prop(S))], [tool(prop({"type": "string", "const": "a"}))], {}, {"enum-added": "BREAKING"}),
    ("const changed", [tool(prop({"const": "a"}))], [tool(prop({"const": "b"}))], {},
     {"enum-value-removed": "BREAKING", "enum-value-added": "RISKY"}),
    ("enum removed", [tool(prop({"type": "string", "enum": ["a"]}))], [tool(prop(S))], {}, {"enum-removed": "RISKY"}),
    # An enum without a type admits the types of its values, not any type.
    ("const without type -> its type", [tool(prop({"const": "a"}))], [tool(prop(S))], {}, {"enum-removed": "RISKY"}),
    ("type -> const without type", [tool(prop(S))], [tool(prop({"const": "a"}))], {}, {"enum-added": "BREAKING"}),
    ("enum of two types -> one type", [tool(prop({"enum": ["a", 1]}))], [tool(prop(S))], {},
     {"type-narrowed": "BREAKING", "enum-removed": "RISKY"}),
    ("enum of numbers -> number", [tool(prop({"enum": [1, 2.5]}))], [tool(prop({"type": "number"}))], {},
     {"enum-removed": "RISKY"}),
    # -- bounds
    ("maximum down", [tool(prop({"type": "number", "maximum": 10}))], [tool(prop({"type": "number", "maximum": 5}))],
     {}, {"bound-tightened": "BREAKING"}),
    ("maximum made exclusive", [tool(prop({"type": "number", "maximum": 5}))],
     [tool(prop({"type": "number", "exclusiveMaximum": 5}))], {}, {"bound-tightened": "BREAKING"}),
    ("minLength up", [tool(prop({"type": "string", "minLength": 1}))], [tool(prop({"type": "string", "minLength": 3}))],
     {}, {"bound-tightened": "BREAKING"}),
    ("maxItems down", [tool(prop({"type": "array", "maxItems": 5}))], [tool(prop({"type": "array", "maxItems": 2}))],
     {}, {"bound-tightened": "BREAKING"}),
    ("multipleOf non-divisor", [tool(prop({"type": "integer", "multipleOf": 2}))],
     [tool(prop({"type": "integer", "multipleOf": 3}))], {}, {"bound-tightened": "BREAKING"}),
    ("uniqueItems added", [tool(prop({"type": "array"}))], [tool(prop({"type": "array", "uniqueItems": True}))], {},
     {"bound-tightened": "BREAKING"}),
    ("maxProperties down", [tool(prop({"type": "object", "maxProperties": 4}))],
     [tool(prop({"type": "object", "maxProperties": 2}))], {}, {"bound-tightened": "BREAKING"}),
    ("bound newly added", [tool(prop({"type": "number"}))], [tool(prop({"type": "number", "maximum": 100}))], {},
     {"bound-added": "BREAKING"}),
    ("bound relaxed", [tool(prop({"type": "string", "maxLength": 5}))],
     [tool(prop({"type": "string", "maxLength": 50}))], {}, {"bound-relaxed": "RISKY"}),
    ("multipleOf divisor", [tool(prop({"type": "integer", "multipleOf": 4}))],
     [tool(prop({"type": "integer", "multipleOf": 2}))], {}, {"bound-relaxed": "RISKY"}),
    ("bound removed", [tool(prop({"type": "integer", "minimum": 0}))], [tool(prop(INT))], {}, {"bound-removed": "RISKY"}),
    ("pattern added", [tool(prop(S))], [tool(prop({"type": "string", "pattern": "^[A-Z]+$"}))], {},
     {"pattern-added": "BREAKING"}),
    ("pattern changed", [tool(prop({"type": "string", "pattern": "^[A-Z]+$"}))],
     [tool(prop({"type": "string", "pattern": "^[A-Z]{2,}$"}))], {}, {"pattern-changed": "BREAKING"}),
    ("pattern removed", [tool(prop({"type": "string", "pattern": "^a"}))], [tool(prop(S))], {},
     {"pattern-removed": "RISKY"}),
    ("format added", [tool(prop(S))], [tool(prop({"type": "string", "format": "date"}))], {},
     {"format-added": "BREAKING"}),
    ("format changed", [tool(prop({"type": "string", "format": "date"}))],
     [tool(prop({"type": "string", "format": "date-time"}))], {}, {"format-changed": "BREAKING"}),
    ("format removed", [tool(prop({"type": "string", "format": "email"}))], [tool(prop(S))], {},
     {"format-removed": "RISKY"}),
    # -- content model and composition
    ("additionalProperties false -> true", [tool(closed({"a": S}))], [tool(obj({"a": S}, additionalProperties=True))],
     {}, {"additional-properties-opened": "RISKY"}),
    ("additionalProperties false -> schema", [tool(closed({"a": S}))],
     [tool(obj({"a": S}, additionalProperties={"type": "string"}))], {}, {"additional-properties-opened": "RISKY"}),
    ("additionalProperties missing -> false", [tool(obj({"a": S}))], [tool(closed({"a": S}))], {},
     {"additional-properties-closed": "BREAKING"}),
    ("additionalProperties true -> schema", [tool(obj({"a": S}))],
     [tool(obj({"a": S}, additionalProperties={"type": "integer"}))], {}, {"additional-properties-closed": "BREAKING"}),
    ("union branch added",
     [tool(prop({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}]}))],
     [tool(prop({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}, {"type": "boolean"}]}))],
     {}, {"branch-added": "RISKY"}),
    ("type becomes a union", [tool(prop({"type": "string", "maxLength": 3}))],
     [tool(prop({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}]}))], {},
     {"branch-added": "RISKY"}),
    ("union branch removed",
     [tool(prop({"oneOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}]}))],
     [tool(prop({"oneOf": [{"type": "string", "maxLength": 3}]}))], {}, {"branch-removed": "BREAKING"}),
    # oneOf refuses a value two branches accept: a branch added or widened can fail another's calls.
    ("oneOf branch added, overlapping", [tool(prop({"oneOf": [{"type": "integer", "minimum": 0}, S]}))],
     [tool(prop({"oneOf": [{"type": "integer", "minimum": 0}, S, {"type": "number"}]}))], {},
     {"branch-added": "RISKY", "constraint-changed": "BREAKING"}),
    ("oneOf branch widened into another",
     [tool(prop({"oneOf": [{"type": "integer", "minimum": 5}, {"type": "integer", "maximum": 3}]}))],
     [tool(prop({"oneOf": [{"type": "integer", "minimum": 2}, {"type": "integer", "maximum": 3}]}))], {},
     {"bound-relaxed": "RISKY", "constraint-changed": "BREAKING"}),
    ("oneOf branch added, disjoint", [tool(prop({"oneOf": [{"type": "integer", "minimum": 0}, S]}))],
     [tool(prop({"oneOf": [{"type": "integer", "minimum": 0}, S, {"type": "boolean"}]}))], {},
     {"branch-added": "RISKY"}),
    ("allOf member added", [tool(prop({"type": "string", "pattern": "^a"}))],
     [tool(prop({"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "z$"}]}))], {},
     {"allof-member-added": "BREAKING"}),
    ("allOf member removed", [tool(prop({"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "z$"}]}))],
     [tool(prop({"type": "string", "pattern": "^a"}))], {}, {"allof-member-removed": "RISKY"}),
    ("not added", [tool(prop(S))], [tool(prop({"type": "string", "not": {"enum": ["root"]}}))], {},
     {"constraint-added": "BREAKING"}),
    ("patternProperties added", [tool(obj({"a": S}))], [tool(obj({"a": S}, patternProperties={"^x-": S}))], {},
     {"constraint-added": "BREAKING"}),
    ("propertyNames added to an object", [tool(obj({"a": S}))], [tool(obj({"a": S}, propertyNames={"maxLength": 3}))],
     {}, {"constraint-added": "BREAKING"}),
    ("unevaluatedProperties added beside an applicator",
     [tool(obj({"a": S}, dependentSchemas={"a": {"properties": {"b": S}}}))],
     [tool(obj({"a": S}, dependentSchemas={"a": {"properties": {"b": S}}}, unevaluatedProperties=False))], {},
     {"constraint-added": "BREAKING"}),
    ("not removed", [tool(prop({"type": "string", "not": {"enum": ["root"]}}))], [tool(prop(S))], {},
     {"constraint-removed": "RISKY"}),
    ("not changed", [tool(prop({"type": "string", "not": {"enum": ["root"]}}))],
     [tool(prop({"type": "string", "not": {"enum": ["admin"]}}))], {}, {"constraint-changed": "BREAKING"}),
    # -- arrays: where they end, what unevaluatedItems means
    ("maxItems 0 is items false", [tool(prop({"type": "array", "maxItems": 0}))],
     [tool(prop({"type": "array", "items": False}))], {}, {}),
    ("closed tuple extended", [tool(prop({"type": "array", "prefixItems": [S], "items": False}))],
     [tool(prop({"type": "array", "prefixItems": [S, INT], "items": False}))], {}, {"bound-relaxed": "RISKY"}),
    ("closed tuple opened", [tool(prop({"type": "array", "prefixItems": [S, INT], "items": False}))],
     [tool(prop({"type": "array", "prefixItems": [S], "items": INT}))], {}, {"bound-removed": "RISKY"}),
    ("unevaluatedItems is the tail", [tool(prop({"type": "array", "prefixItems": [S], "unevaluatedItems": INT}))],
     [tool(prop({"type": "array", "prefixItems": [S, S], "unevaluatedItems": INT}))], {}, {"type-changed": "BREAKING"}),
    # -- annotations
    ("default added", [tool(obj({"a": S}))], [tool(obj({"a": {"type": "string", "default": "x"}}))], {},
     {"default-added": "RISKY"}),
    ("default changed", [tool(obj({"a": {"type": "string", "default": "x"}}))],
     [tool(obj({"a": {"type": "string", "default": "y"}}))], {}, {"default-changed": "RISKY"}),
    ("default removed", [tool(obj({"a": {"type": "string", "default": "x"}}))], [tool(obj({"a": S}))], {},
     {"default-removed": "RISKY"}),
    ("default null added", [tool(obj({"a": {"type": ["string", "null"]}}))],
     [tool(obj({"a": {"type": ["string", "null"], "default": None}}))], {}, {"default-added": "RISKY"}),
    ("title changed", [tool(prop({"type": "string", "title": "City"}))],
     [tool(prop({"type": "string", "title": "Town"}))], {}, {"title-changed": "COMPATIBLE"}),
    ("examples changed", [tool(prop({"type": "string", "examples": ["Oslo"]}))],
     [tool(prop({"type": "string", "examples": ["Paris"]}))], {}, {"examples-changed": "COMPATIBLE"}),
    ("unknown keyword changed", [tool(prop({"type": "string", "x-ui": "text"}))],
     [tool(prop({"type": "string", "x-ui": "textarea"}))], {}, {"annotation-changed": "COMPATIBLE"}),
    ("property order changed", [tool(closed({"a": S, "b": S}))], [tool(closed({"b": S, "a": S}))], {},
     {"property-order-changed": "COMPATIBLE"}),
    ("$ref refactor, validation-equivalent",
     [tool(closed({"home": closed({"city": S}, ["city"]), "work": closed({"city": S}, ["city"])}))],
     [tool(closed({"home": {"$ref": "#/$defs/Place"}, "work": {"$ref": "#/$defs/Place"}},
                  **{"$defs": {"Place": closed({"city": S}, ["city"])}}))], {},
     {"ref-refactored": "COMPATIBLE"}),
    # -- provider regressions
    ("provider rejects (openai-strict: default)", [tool(closed({"a": S}, ["a"]))],
     [tool(closed({"a": {"type": "string", "default": "x"}}, ["a"]))], {"targets": "openai-strict"},
     {"default-added": "RISKY", "provider-rejects": "BREAKING"}),
    ("provider weakens (anthropic: maxLength)", [tool(closed({"a": S}, ["a"]))],
     [tool(closed({"a": {"type": "string", "maxLength": 20}}, ["a"]))], {"targets": "anthropic"},
     {"bound-added": "BREAKING", "provider-weakens": "RISKY"}),
]  # fmt: skip


def kinds_of(old: list[Any], new: list[Any], options: dict[str, Any]) -> dict[str, str]:
    report = diff_tools(old, new, today=TODAY, **options)
    assert not report.problems, [p.message for p in report.problems]
    found: dict[str, str] = {}
    for change in report.changes:
        assert found.get(change.kind, change.verdict) == change.verdict, change
        found[change.kind] = change.verdict or ""
    return found


@pytest.mark.parametrize(("old", "new", "options", "expected"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_the_pair_yields_exactly_its_kinds(
    old: list[Any], new: list[Any], options: dict[str, Any], expected: dict[str, str]
) -> None:
    assert kinds_of(old, new, options) == expected


@pytest.mark.parametrize(("old", "new", "options", "expected"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_a_version_against_itself_has_no_change(
    old: list[Any], new: list[Any], options: dict[str, Any], expected: dict[str, str]
) -> None:
    for side in (old, new):
        assert kinds_of(side, side, options) == {}


def test_every_change_kind_has_a_pair() -> None:
    covered = {kind for *_, expected in PAIRS for kind in expected}
    assert set(CHANGE_KINDS) - covered == set()
    assert covered - set(CHANGE_KINDS) == set()


def test_every_kind_default_verdict_is_the_fold_of_its_checks() -> None:
    # A pair asserting a kind's verdict with no adjustment (no evidence, handler or policy) is its default.
    defaults = {kind: spec.verdict for kind, spec in CHANGE_KINDS.items()}
    for _, _, _, options, expected in PAIRS:
        if options.get("strict_optional_semantics"):
            continue
        for kind, verdict in expected.items():
            assert defaults[kind] == verdict, kind
