"""Inclusion proofs between normalised schemas (``_diff_inclusion``): each rule, and soundness against an oracle.

A proof the differ relies on must never be wrong: when ``includes(narrow, wide)`` is True, no instance may be valid
under ``narrow`` and invalid under ``wide``. Hypothesis draws pairs of schemas over the whole vocabulary the proof
reads (and keywords it does not), related in the ways a schema evolves, and values from the small ranges their
constants come from; ``jsonschema`` (not toolwire) decides validity. ``accepts_nothing`` and ``member`` are held to
the same oracle.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from tests.support.strategies_schema import schema_versions, small_values, vocabulary_schemas
from toolwire.schema.diff._inclusion import accepts_nothing, includes, key_schemas, matches, member
from toolwire.schema.diff._normalize import normalise


def proven(narrow: Any, wide: Any) -> bool:
    return includes(normalise(narrow), normalise(wide))


S = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}


def obj(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **extra}


# (why, narrow, wide, proven): the proof holds where it should, and only there.
EXAMPLES: list[tuple[str, Any, Any, bool]] = [
    ("anything in true", {"type": "integer", "minimum": 3}, True, True),
    ("true not in a type", True, INT, False),
    ("false in anything", False, {"type": "null"}, True),
    ("integer in number", INT, NUM, True),
    ("number not in integer", NUM, INT, False),
    ("number with an integer step in integer", {"type": "number", "multipleOf": 2}, INT, True),
    ("a type list", {"type": ["string", "null"]}, {"type": ["null", "string", "boolean"]}, True),
    ("a type list narrowed", {"type": ["string", "null"]}, S, False),
    # enums, null and booleans, value by value
    ("const in its type", {"const": "hello"}, S, True),
    ("enum in a wider enum", {"enum": ["a", "b"]}, {"enum": ["b", "a", "c"]}, True),
    ("enum not in a narrower enum", {"enum": ["a", "b"]}, {"enum": ["a"]}, False),
    ("enum in bounds", {"enum": [1, 2, 3]}, {"type": "integer", "maximum": 3}, True),
    ("enum outside bounds", {"enum": [1, 2, 3]}, {"type": "integer", "maximum": 2}, False),
    ("true and false in boolean enum", {"type": "boolean"}, {"enum": [True, False]}, True),
    ("true is not 1", {"enum": [True]}, {"enum": [1]}, False),
    ("null in an enum with null", {"type": "null"}, {"enum": [None, 1]}, True),
    ("enum with a value its own type refuses", {"type": "string", "enum": ["a", 1]}, {"enum": ["a"]}, True),
    # numbers
    ("bounds inside", {"type": "number", "minimum": 1, "maximum": 5}, {"type": "number", "minimum": 0}, True),
    ("bounds outside", {"type": "number", "minimum": 1, "maximum": 5}, {"type": "number", "maximum": 4}, False),
    ("exclusive inside inclusive", {"type": "number", "exclusiveMaximum": 5}, {"type": "number", "maximum": 5}, True),
    ("inclusive not inside exclusive", {"type": "number", "maximum": 5}, {"type": "number", "exclusiveMaximum": 5},
     False),
    ("integers round the bounds", {"type": "integer", "exclusiveMaximum": 5}, {"type": "integer", "maximum": 4.5},
     True),
    ("fractions do not round", {"type": "number", "exclusiveMaximum": 5}, {"type": "number", "maximum": 4.5}, False),
    ("a multiple of 4 is a multiple of 2", {"type": "integer", "multipleOf": 4}, {"type": "integer", "multipleOf": 2},
     True),
    ("a multiple of 2 is not of 4", {"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 4}, False),
    ("fractional steps are not proven", {"type": "number", "multipleOf": 0.3}, {"type": "number", "multipleOf": 0.1},
     False),
    # strings
    ("lengths inside", {"type": "string", "minLength": 2, "maxLength": 3}, {"type": "string", "maxLength": 5}, True),
    ("lengths outside", {"type": "string", "maxLength": 9}, {"type": "string", "maxLength": 5}, False),
    ("the same pattern", {"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^a"}, True),
    ("another pattern", {"type": "string", "pattern": "^ab"}, {"type": "string", "pattern": "^a"}, False),
    ("the same format", {"type": "string", "format": "date"}, {"format": "date"}, True),
    ("a format added", S, {"type": "string", "format": "date"}, False),
    ("an empty string range", {"type": "string", "minLength": 3, "maxLength": 2}, {"type": "null"}, True),
    # arrays
    ("items narrower", {"type": "array", "items": INT}, {"type": "array", "items": NUM}, True),
    ("items wider", {"type": "array", "items": NUM}, {"type": "array", "items": INT}, False),
    ("maxItems 0 and items false", {"type": "array", "maxItems": 0}, {"type": "array", "items": False}, True),
    ("a tuple in its items", {"type": "array", "prefixItems": [INT, INT], "items": False},
     {"type": "array", "items": NUM}, True),
    ("a tuple with an open tail", {"type": "array", "prefixItems": [INT]}, {"type": "array", "items": NUM}, False),
    ("a false position ends the array", {"type": "array", "prefixItems": [S, False]},
     {"type": "array", "prefixItems": [S], "maxItems": 1}, True),
    ("short arrays are unique", {"type": "array", "maxItems": 1}, {"type": "array", "uniqueItems": True}, True),
    ("long arrays are not", {"type": "array", "maxItems": 2}, {"type": "array", "uniqueItems": True}, False),
    ("contains narrower", {"type": "array", "contains": INT, "minContains": 2}, {"type": "array", "contains": NUM},
     True),
    ("contains not implied", {"type": "array"}, {"type": "array", "contains": NUM}, False),
    ("minItems past a false tail", {"type": "array", "items": False, "minItems": 1}, False, True),
    ("a required position nothing fits", {"type": "array", "prefixItems": [{"not": {}}], "minItems": 1}, False, True),
    ("unevaluatedItems beside an applicator", {"type": "array"},
     {"type": "array", "anyOf": [{}], "unevaluatedItems": False}, False),
    # objects
    ("a removed property admitted by additionalProperties",
     obj({"a": S, "b": S}, additionalProperties=False), obj({"a": S}, additionalProperties=S), True),
    ("a removed property refused by additionalProperties",
     obj({"a": S, "b": INT}, additionalProperties=False), obj({"a": S}, additionalProperties=S), False),
    ("a removed property admitted by patternProperties",
     obj({"x_1": INT}, additionalProperties=False),
     obj({}, patternProperties={"^x_": NUM, "^y_": S}, additionalProperties=False), True),
    ("a property added over additionalProperties it covers",
     obj({}, additionalProperties=S), obj({"a": {"type": ["string", "null"]}}, additionalProperties=S), True),
    ("a property added over additionalProperties it narrows",
     obj({}, additionalProperties=S), obj({"a": INT}, additionalProperties=S), False),
    ("a property added to an open object", obj({}), obj({"a": S}), False),
    ("patterns added to an open object", obj({}), obj({}, patternProperties={"^x_": S}), False),
    ("a property that is false, removed", obj({"a": False}, additionalProperties=False),
     {"type": "object", "additionalProperties": False}, True),
    ("required kept", obj({"a": S}, required=["a"]), obj({"a": S}, required=["a"]), True),
    ("required added", obj({"a": S}), obj({"a": S}, required=["a"]), False),
    ("a required key nothing fits", obj({"a": False}, required=["a"]), False, True),
    ("counts inside", obj({"a": S, "b": S}, additionalProperties=False), {"type": "object", "maxProperties": 2}, True),
    ("counts outside", obj({"a": S, "b": S, "c": S}, additionalProperties=False),
     {"type": "object", "maxProperties": 2}, False),
    ("names of a closed object", obj({"ab": S}, additionalProperties=False),
     {"type": "object", "propertyNames": {"maxLength": 2}}, True),
    ("names of an open object", obj({"ab": S}), {"type": "object", "propertyNames": {"maxLength": 2}}, False),
    ("a dependency kept", {"type": "object", "dependentRequired": {"a": ["b"]}},
     {"type": "object", "dependentRequired": {"a": ["b"]}}, True),
    ("a dependency added", {"type": "object"}, {"type": "object", "dependentRequired": {"a": ["b"]}}, False),
    ("a dependent schema no object fits, changed", {"dependentSchemas": {"a": S}}, {"dependentSchemas": {"a": NUM}},
     True),
    ("a dependent schema narrowed", {"dependentSchemas": {"a": {"required": ["b"]}}},
     {"dependentSchemas": {"a": {"required": ["b", "c"]}}}, False),
    ("unevaluatedProperties beside an applicator", {"type": "object"},
     {"type": "object", "anyOf": [{}], "unevaluatedProperties": False}, False),
    # composition
    ("union regrouped", {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 2}]},
     {"type": ["integer", "string"], "minimum": 1}, True),
    ("intervals covered by a union", {"anyOf": [{"type": "number", "maximum": 10}, {"type": "number", "minimum": 1}]},
     {"anyOf": [{"type": "number", "maximum": 3}, {"type": "number", "minimum": 2}]}, True),
    ("intervals with a gap", {"type": "number"},
     {"anyOf": [{"type": "number", "maximum": 3}, {"type": "number", "minimum": 4}]}, False),
    ("integers across a gap of fractions", {"type": "integer"},
     {"anyOf": [{"type": "integer", "maximum": 3}, {"type": "integer", "minimum": 4}]}, True),
    ("a union whose other branch takes the other kinds",
     {"properties": {"foo": {}}},
     {"anyOf": [{"type": "object", "properties": {"foo": {}}}, {"properties": {"type": {"const": "bar"}}}]}, True),
    ("oneOf of disjoint branches", S, {"oneOf": [{"type": "null"}, S]}, True),
    ("oneOf of overlapping branches", INT, {"oneOf": [NUM, INT]}, False),
    ("allOf in each member", {"type": "integer", "minimum": 2}, {"allOf": [NUM, {"minimum": 1}]}, True),
    ("not narrower", {"not": NUM}, {"not": INT}, True),
    ("not wider", {"not": INT}, {"not": NUM}, False),
    ("not of a disjoint type", S, {"not": NUM}, True),
    ("contradicting allOf", {"allOf": [NUM, S]}, False, True),
    ("if then else by cases", {"type": "integer", "minimum": 5},
     {"if": {"minimum": 3}, "then": {"maximum": 100}, "else": {"type": "string"}}, False),
    ("if then else, the condition taken", {"type": "integer", "minimum": 5, "maximum": 50},
     {"if": {"minimum": 3}, "then": {"maximum": 100}, "else": {"type": "string"}}, True),
    # references
    ("the same remote reference", {"$ref": "https://example.com/a"}, {"$ref": "https://example.com/a"}, True),
    ("a remote reference added", S, {"type": "string", "$ref": "https://example.com/a"}, False),
    ("a type name JSON Schema does not define", {"type": "any"}, {"type": "string"}, False),
]  # fmt: skip


@pytest.mark.parametrize(("narrow", "wide", "expected"), [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES])
def test_each_rule(narrow: Any, wide: Any, expected: bool) -> None:
    assert proven(narrow, wide) is expected


def test_recursion_markers_are_never_taken_as_the_same_schema() -> None:
    # Each marker names its own side's schema: the same marker in OLD and NEW proves nothing.
    marker = {"$recursive": "#", "$depth": 1}
    assert not includes({"type": "array", "items": marker}, {"type": "array", "items": marker})
    assert includes({"type": "array", "items": marker}, {"type": "array"})


def test_what_accepts_nothing() -> None:
    for schema in (
        False,
        {"allOf": [NUM, S]},
        {"type": "integer", "minimum": 1.5, "maximum": 1.9},
        {"type": "array", "maxItems": 0, "minItems": 1},
        obj({"a": {"not": {}}}, required=["a"]),
        {"enum": ["a"], "type": "integer"},
        {"type": "object", "additionalProperties": False, "minProperties": 1},
        {"anyOf": [{"type": "string", "maxLength": 1, "minLength": 2}, {"not": {}}]},
    ):
        assert accepts_nothing(normalise(schema)), schema
    for schema in (True, {"type": "integer", "minimum": 1.5, "maximum": 2}, obj({"a": False}), {"not": INT}):
        assert not accepts_nothing(normalise(schema)), schema


def test_membership_is_three_valued() -> None:
    assert member(3, {"type": ["integer"], "maximum": 3}) is True
    assert member(3.5, {"type": ["integer"]}) is False
    assert member(True, {"enum": [1]}) is False
    assert member("2024-01-01", {"type": ["string"], "format": "date"}) is None  # formats are not evaluated
    assert member(0.3, {"multipleOf": 0.1}) is None  # floating-point validators disagree
    assert member({"a": 1}, {"additionalProperties": False, "patternProperties": {"^a": {}}}) is True
    assert member({"a": 1}, {"$ref": "https://example.com/a"}) is None
    assert member(1, {"oneOf": [{"type": ["integer"]}, {"type": ["number"]}]}) is False


def test_patterns_are_decided_only_where_python_and_ecma_read_them_alike() -> None:
    assert matches("^x_", "x_1") is True
    assert matches("^x_", "y") is False
    assert matches(r"\d", "٣") is None  # an Arabic-Indic digit: \d matches it in Python, not in ECMA-262
    assert matches("a$", "a\n") is None  # Python's $ matches before a final newline, ECMA-262's does not
    assert matches("(?<name>a)", "a") is None  # ECMA-262 syntax Python does not compile
    assert key_schemas({"patternProperties": {"^a": S}, "additionalProperties": False}, "é") is None


# -- soundness against jsonschema --------------------------------------------------------------------------------


def valid(schema: Any, instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


@given(schema_versions(), st.lists(small_values, min_size=10, max_size=30))
def test_a_proof_of_inclusion_is_never_wrong(pair: tuple[Any, Any], found: list[Any]) -> None:
    narrow, wide = pair
    if not includes(normalise(narrow), normalise(wide)):
        event("not proven")
        return
    event("proven")
    for instance in found:
        assert not valid(narrow, instance) or valid(wide, instance), (narrow, wide, instance)


@given(vocabulary_schemas(), st.lists(small_values, min_size=10, max_size=30))
def test_a_proof_of_emptiness_and_membership_are_never_wrong(schema: Any, found: list[Any]) -> None:
    normalised = normalise(schema)
    nothing = accepts_nothing(normalised)
    event("empty" if nothing else "not proven empty")
    for instance in found:
        expected = valid(schema, instance)
        assert not (nothing and expected), (schema, instance)
        decided = member(instance, normalised)
        assert decided is None or decided == expected, (schema, instance, decided)
