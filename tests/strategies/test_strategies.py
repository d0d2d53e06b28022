"""toolwire.strategies: valid and hostile arguments from tool schemas, and quirky streams of given calls.

``arguments`` must only ever produce what the validator accepts, over hand-written schemas exercising every
supported keyword, generated schemas (tests/support/strategies_schema.py) and a sample of real ones from
``../shared/corpora/tool-schemas``; ``hostile_arguments`` likewise, and each of its categories must show up;
``streams`` must reassemble, in the core and in the reference, into exactly the calls it was given, in every format.
"""

from __future__ import annotations

import doctest
import ipaddress
import json
import math
import pathlib
import random
import re
import subprocess
import sys
import uuid
import warnings
from datetime import date, datetime, time
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning

import toolwire
import toolwire.reference as reference
import toolwire.strategies
from tests.support.comparable import strict
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import CORPORA
from tests.support.strategies_schema import tool_schemas
from toolwire import ToolCall
from toolwire.strategies import (
    HOSTILE_CATEGORIES,
    STREAM_FORMATS,
    UnsupportedSchemaError,
    _hostile,
    _streams,
    arguments,
    hostile_arguments,
    streams,
)
from toolwire.strategies._json import arguments_objects

EXAMPLES = settings().max_examples
# A third of the profile's examples per schema: recursive and hostile schemas draw large values (the whole file
# runs in under two minutes with the ci profile).
PER_SCHEMA = max(20, EXAMPLES // 3)


def first(strategy: st.SearchStrategy[Any], condition: Any, max_examples: int = 5000) -> Any:
    """The first value drawn that meets ``condition`` (``find`` without shrinking, which costs here)."""
    with warnings.catch_warnings():  # find describes what it found; a long string makes that a large repr
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
        return find(
            strategy, condition, settings=settings(max_examples=max_examples, database=None, phases=[Phase.generate])
        )


def tool(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "parameters": parameters}


def assert_valid(definition: Any, value: Any) -> None:
    assert isinstance(value, dict)
    json.dumps(value, allow_nan=False)  # plain JSON: what a provider could send
    assert toolwire.validate(definition["name"], value, [definition]) == []


# ------------------------------------------------------------------------------------------------ schemas

FORMATS = ["email", "uri", "date", "date-time", "time", "uuid", "ipv4", "ipv6", "hostname"]

SCHEMAS: dict[str, dict[str, Any]] = {
    "types": {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "i": {"type": "integer"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "z": {"type": "null"},
            "any": {},
            "nullable": {"type": ["string", "null"]},
            "several": {"type": ["integer", "boolean", "array"]},
        },
        "required": ["s", "i", "n", "b", "z", "any", "nullable"],
    },
    "strings": {
        "type": "object",
        "properties": {
            "short": {"type": "string", "minLength": 2, "maxLength": 5},
            "exact": {"type": "string", "minLength": 3, "maxLength": 3},
            "long": {"type": "string", "minLength": 40},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
            "unanchored": {"type": "string", "pattern": "[0-9]{2}"},
            "slug": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 6},
            "word": {"type": "string", "pattern": "^\\w+$"},
            "alternatives": {"type": "string", "pattern": "^(foo|bar)$|^baz$"},
        },
        "required": ["short", "exact", "long", "code", "unanchored", "slug", "word", "alternatives"],
        "additionalProperties": False,
    },
    "formats": {
        "type": "object",
        "properties": {
            **{f.replace("-", "_"): {"type": "string", "format": f} for f in FORMATS},
            "short_email": {"type": "string", "format": "email", "maxLength": 30},
            "duration": {"type": "string", "format": "duration"},
        },
        "required": [*(f.replace("-", "_") for f in FORMATS), "short_email"],
    },
    "numbers": {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": -3, "maximum": 7},
            "b": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 3},
            "c": {"type": "number", "minimum": 0.1, "maximum": 0.2},
            "d": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1e-300},
            "e": {"type": "integer", "multipleOf": 7, "minimum": 10, "maximum": 60},
            "f": {"type": "number", "multipleOf": 0.25, "minimum": -1, "maximum": 1},
            "g": {"type": "number", "multipleOf": 0.1},
            "h": {"type": "integer", "minimum": 1e20},
            "i": {"type": "integer", "format": "int32"},
            "j": {"type": "number", "maximum": -1e308},
            "k": {"type": "integer", "multipleOf": 2.5},
            "l": {"type": "number", "minimum": 1.5, "maximum": 1.5},
        },
        "required": list("abcdefghijkl"),
    },
    "arrays": {
        "type": "object",
        "properties": {
            "bounded": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 4},
            "unique": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0, "maximum": 5},
                "uniqueItems": True,
                "minItems": 3,
            },
            "unique_enum": {"type": "array", "items": {"enum": ["x", "y", "z"]}, "uniqueItems": True},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False},
            "contains": {
                "type": "array",
                "items": {"type": "integer"},
                "contains": {"minimum": 100},
                "minContains": 2,
                "maxItems": 5,
            },
            "nested": {"type": "array", "items": {"type": "array", "items": {"type": "string", "maxLength": 2}}},
            "empty": {"type": "array", "maxItems": 0},
        },
        "required": ["bounded", "unique", "unique_enum", "tuple", "contains", "nested", "empty"],
    },
    "combinators": {
        "type": "object",
        "properties": {
            "any_of": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 5}]},
            "one_of": {"oneOf": [{"type": "integer", "multipleOf": 3}, {"type": "integer", "multipleOf": 5}]},
            "tagged": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}},
                        "required": ["kind", "x"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "b"}, "y": {"type": "string"}},
                        "required": ["kind", "y"],
                    },
                ]
            },
            "all_of": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "string"}}, "required": ["b"]},
                ]
            },
            "all_of_closed": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
                    {"required": ["a"]},
                ]
            },
            "not": {"type": "integer", "not": {"multipleOf": 2}},
            "if_then_else": {
                "type": "object",
                "properties": {"kind": {"enum": ["x", "y"]}, "v": {}},
                "required": ["kind", "v"],
                "if": {"properties": {"kind": {"const": "x"}}},
                "then": {"properties": {"v": {"type": "integer"}}},
                "else": {"properties": {"v": {"type": "string"}}},
            },
            "date_or_null": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
            "enum": {"enum": [1, "two", None, [3], {"four": 4}]},
            "const": {"const": {"a": [1, 2]}},
            "typed_enum": {"type": "string", "enum": ["a", 1, "b"]},
        },
        "required": [
            "any_of",
            "one_of",
            "tagged",
            "all_of",
            "all_of_closed",
            "not",
            "if_then_else",
            "date_or_null",
            "enum",
            "const",
            "typed_enum",
        ],
    },
    "refs": {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["value"],
            },
            "Color": {"enum": ["red", "green"]},
            "Pair": {
                "type": "object",
                "properties": {"left": {"$ref": "#/$defs/Color"}, "right": {"$ref": "#/definitions/Old"}},
                "required": ["left", "right"],
                "additionalProperties": False,
            },
        },
        "definitions": {"Old": {"type": "string", "minLength": 1}},
        "properties": {
            "tree": {"$ref": "#/$defs/Node"},
            "pair": {"$ref": "#/$defs/Pair"},
            "colors": {"type": "array", "items": {"$ref": "#/$defs/Color"}},
            "described": {"$ref": "#/$defs/Color", "description": "x", "default": "red"},
            "with_sibling": {"$ref": "#/$defs/Node", "required": ["children"]},
        },
        "required": ["tree", "pair", "colors", "described", "with_sibling"],
    },
    "objects": {
        "type": "object",
        "properties": {
            "open": {"type": "object", "additionalProperties": {"type": "integer"}},
            "patterned": {
                "type": "object",
                "patternProperties": {"^x_": {"type": "string"}},
                "additionalProperties": False,
                "minProperties": 1,
            },
            "exactly_three": {
                "type": "object",
                "properties": {"a": {}, "b": {}, "c": {}, "d": {}},
                "minProperties": 3,
                "maxProperties": 3,
                "additionalProperties": False,
            },
            "dependent": {
                "type": "object",
                "properties": {"card": {"type": "string"}, "cvv": {"type": "string"}, "zip": {"type": "string"}},
                "dependentRequired": {"card": ["cvv", "zip"]},
                "additionalProperties": False,
            },
            "required_only": {"type": "object", "required": ["undeclared"]},
            "short_names": {"type": "object", "propertyNames": {"maxLength": 3}},
            "dependent_schema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "dependentSchemas": {"a": {"required": ["b"]}},
            },
        },
        "required": ["open", "patterned", "exactly_three", "dependent", "required_only", "short_names"],
    },
    "untyped_root": {"properties": {"q": {"type": "string"}}, "required": ["q"]},
    "no_parameters": {"type": "object", "properties": {}},
    "boolean_subschemas": {"type": "object", "properties": {"t": True, "f": False}, "required": ["t"]},
    "unsatisfiable_optional": {
        "type": "object",
        "properties": {"flag": {"type": "boolean", "enum": ["True", "dontcare"]}, "q": {"type": "string"}},
        "required": ["q"],
    },
}


def _check_formats(value: dict[str, Any]) -> None:
    """The validator checks no format: check the generated values here."""
    assert "@" in value["email"] and "@" in value["short_email"] and len(value["short_email"]) <= 30
    for key in ("uri",):
        parts = urlsplit(value[key])
        assert parts.scheme in ("http", "https") and parts.hostname, value[key]
    date.fromisoformat(value["date"])
    stamp = datetime.fromisoformat(value["date_time"].replace("Z", "+00:00"))
    assert value["date_time"][10] == "T" and stamp.tzinfo is not None  # RFC 3339: an offset is required
    time.fromisoformat(value["time"].removesuffix("Z"))
    uuid.UUID(value["uuid"])
    ipaddress.IPv4Address(value["ipv4"])
    ipaddress.IPv6Address(value["ipv6"])
    assert re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)*", value["hostname"])


@pytest.mark.parametrize("name", list(SCHEMAS))
@settings(max_examples=PER_SCHEMA)
@given(data=st.data())
def test_arguments_are_valid(name: str, data: st.DataObject) -> None:
    definition = tool(name, SCHEMAS[name])
    value = data.draw(arguments(definition))
    assert_valid(definition, value)
    if name == "formats":
        _check_formats(value)
    if name == "numbers":
        assert -(2**31) <= value["i"] < 2**31  # int32 bounds the integers, though the validator ignores formats
    if name == "combinators":  # exactly one branch of each oneOf
        assert (value["one_of"] % 3 == 0) != (value["one_of"] % 5 == 0)
    if name == "unsatisfiable_optional":
        assert "flag" not in value


@pytest.mark.parametrize("name", list(SCHEMAS))
@settings(max_examples=PER_SCHEMA)
@given(data=st.data())
def test_hostile_arguments_are_valid(name: str, data: st.DataObject) -> None:
    definition = tool(name, SCHEMAS[name])
    value = data.draw(hostile_arguments(definition, allowed_hosts=["api.example.com"]))
    assert_valid(definition, value)
    if name == "combinators":  # enum and const fields keep their values
        assert value["enum"] in [1, "two", None, [3], {"four": 4}] and value["const"] == {"a": [1, 2]}
    if name == "formats":  # formatted fields keep their format
        ipaddress.IPv4Address(value["ipv4"])
        date.fromisoformat(value["date"])
        uuid.UUID(value["uuid"])
        assert urlsplit(value["uri"]).scheme and "@" in value["email"]


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(schema=tool_schemas(), data=st.data())
def test_generated_schemas(schema: dict[str, Any], data: st.DataObject) -> None:
    """Any generated schema: valid (and valid hostile) arguments, or an error naming a place that exists."""
    definition = tool("f", schema)
    for make in (arguments, hostile_arguments):
        try:
            strategy = make(definition)
        except UnsupportedSchemaError as error:
            place: Any = schema
            for step in error.pointer.split("/")[1:]:
                place = place[step.replace("~1", "/").replace("~0", "~")]
            assert error.tool == "f" and error.reason in str(error)
            return
        assert_valid(definition, data.draw(strategy))


def _depth(node: dict[str, Any]) -> int:
    return 1 + max((_depth(child) for child in node.get("children", [])), default=0)


def test_recursion_is_bounded() -> None:
    """A recursive $ref is entered three times per path: trees three levels deep, never four."""
    definition = tool("tree", SCHEMAS["refs"])
    deepest = first(arguments(definition), lambda v: _depth(v["tree"]) == 3)
    assert_valid(definition, deepest)

    @settings(max_examples=PER_SCHEMA)
    @given(arguments(definition))
    def bounded(value: dict[str, Any]) -> None:
        assert _depth(value["tree"]) <= 3 and _depth(value["with_sibling"]) <= 3

    bounded()


def test_examples_and_defaults_come_up() -> None:
    definition = tool(
        "search",
        {
            "type": "object",
            "properties": {
                "q": {"type": "string", "examples": ["weather in Paris"]},
                "limit": {"type": "integer", "default": 10},
                "bad": {"type": "integer", "default": "ten"},  # an invalid default never comes up
            },
            "required": ["q", "limit"],
        },
    )
    strategy = arguments(definition)
    first(strategy, lambda v: v["q"] == "weather in Paris")
    first(strategy, lambda v: v["limit"] == 10)

    @given(strategy)
    def never_invalid(value: dict[str, Any]) -> None:
        assert value.get("bad") != "ten"

    never_invalid()


def test_extra_keys() -> None:
    definition = tool("open", {"type": "object", "properties": {"a": {"type": "integer"}}})
    first(arguments(definition), lambda v: set(v) - {"a"})

    @given(arguments(definition, extra_keys=False))
    def closed(value: dict[str, Any]) -> None:
        assert set(value) <= {"a"}

    closed()


@pytest.mark.parametrize(
    ("parameters", "pointer", "words"),
    [
        (
            {"properties": {"x": {"type": "integer", "minimum": 5, "maximum": 3}}, "required": ["x"]},
            "/properties/x",
            "[5, 3]",
        ),
        (
            {"properties": {"x": {"type": "string", "pattern": "\\p{L}+"}}, "required": ["x"]},
            "/properties/x/pattern",
            "\\p",
        ),
        (
            {
                "$defs": {"A": {"$anchor": "a", "type": "integer"}},
                "properties": {"x": {"$ref": "#a"}},
                "required": ["x"],
            },
            "/properties/x/$ref",
            "local",
        ),
        ({"properties": {}, "required": ["x"], "additionalProperties": False}, "/required", "'x' is required"),
        ({"properties": {"x": {"type": "boolean", "enum": ["yes"]}}, "required": ["x"]}, "/properties/x/enum", "enum"),
        (
            {"properties": {"x": {"type": "string", "minLength": 3, "maxLength": 2}}, "required": ["x"]},
            "/properties/x",
            "minLength",
        ),
        (
            {
                "properties": {"x": {"anyOf": [{"type": "integer", "minimum": 2, "maximum": 1}, False]}},
                "required": ["x"],
            },
            "/properties/x/anyOf",
            "no branch",
        ),
        (
            {
                "properties": {"x": {"type": "array", "minItems": 3, "items": {"enum": [1, 2]}, "uniqueItems": True}},
                "required": ["x"],
            },
            "/properties/x",
            "uniqueItems",
        ),
    ],
)
def test_unsupported_schemas_name_the_place(parameters: dict[str, Any], pointer: str, words: str) -> None:
    for make in (arguments, hostile_arguments):
        with pytest.raises(UnsupportedSchemaError) as caught:
            make(tool("t", {"type": "object", **parameters}))
        assert caught.value.pointer == pointer and caught.value.tool == "t"
        assert words in str(caught.value) and pointer in str(caught.value)


def test_misuse() -> None:
    with pytest.raises(ValueError, match="holds 2 function tools"):
        arguments([tool("a", {}), tool("b", {})])
    with pytest.raises(toolwire.SchemaError):
        arguments(tool("bfcl", {"type": "object", "properties": {"x": {"type": "float"}}}))
    with pytest.raises(ValueError, match="unknown hostile categories"):
        hostile_arguments(tool("a", {}), categories=["sql", "path_traversal"])
    with pytest.raises(TypeError, match="collection of strings"):
        hostile_arguments(tool("a", {}), allowed_hosts="api.example.com")
    registry = toolwire.ToolRegistry(
        [tool("a", {}), tool("b", {"type": "object", "properties": {"x": {"type": "integer"}}})]
    )
    assert_valid(tool("b", registry["b"].parameters), first(arguments(registry["b"]), lambda v: "x" in v))


# ------------------------------------------------------------------------------------------------ corpus

# The real schemas: pydantic-ai's (strict schemas, $defs/$ref, enums, nested objects) all, BFCL's a fixed sample.
BFCL_SAMPLE = 150


def _corpus() -> list[tuple[str, dict[str, Any]]]:
    folder = CORPORA / "tool-schemas"
    if not folder.exists():
        return []
    bfcl = (folder / "bfcl_v4_jsonschema.jsonl").read_text().splitlines()
    pydantic = (folder / "pydantic-ai_cassettes.jsonl").read_text().splitlines()
    chosen = [("bfcl", line) for line in random.Random(6).sample(bfcl, BFCL_SAMPLE)]
    chosen += [("pydantic-ai", line) for line in pydantic]
    return [(source, json.loads(line)) for source, line in chosen]


CORPUS = _corpus()


def always_valid(definition: dict[str, Any], strategy: st.SearchStrategy[dict[str, Any]], examples: int) -> None:
    @settings(max_examples=examples, suppress_health_check=[HealthCheck.too_slow], database=None)
    @given(strategy)
    def valid(value: dict[str, Any]) -> None:
        assert_valid(definition, value)

    valid()


@pytest.mark.skipif(not CORPUS, reason="../shared/corpora/tool-schemas is absent")
def test_real_schemas() -> None:
    """Every sampled real schema is supported but the BFCL ones whose enum contradicts their type."""
    unsupported = []
    examples = max(3, EXAMPLES // 40)
    for source, definition in CORPUS:
        try:
            strategies = [arguments(definition), hostile_arguments(definition, allowed_hosts=["example.com"])]
        except UnsupportedSchemaError as error:
            unsupported.append((source, definition["name"], error.pointer, error.reason))
            continue
        for strategy in strategies:
            always_valid(definition, strategy, examples)
    # BFCL declares {"type": "boolean", "enum": ["True", "False", "dontcare"]} and the like: no value satisfies
    # such a property; only required ones make the whole tool unsatisfiable.
    assert all(source == "bfcl" and reason.startswith("no enum value") for source, _, _, reason in unsupported), (
        unsupported
    )
    assert len(unsupported) <= BFCL_SAMPLE // 50, unsupported


# ------------------------------------------------------------------------------------------------ hostile

RICH = tool(
    "rich",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "maxLength": 200},
            "query": {"type": "string", "maxLength": 5000},
            "note": {"type": "string", "maxLength": 500},
            "url": {"type": "string", "format": "uri"},
            "email": {"type": "string", "format": "email"},
            "host": {"type": "string", "format": "hostname"},
            "day": {"type": "string", "format": "date"},
            "count": {"type": "integer", "minimum": -5, "maximum": 2**70},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 100}, "maxItems": 20},
            "mode": {"enum": ["fast", "safe"]},
            "meta": {"type": "object"},
        },
        "required": ["path", "mode"],
    },
)
ALLOWED_HOSTS = ("api.example.com",)
ALLOWED_EMAILS = ("ops@example.com", "@corp.example")


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in strings_in(item)]
    if isinstance(value, dict):
        return [*value, *(s for item in value.values() for s in strings_in(item))]
    return []


def numbers_in(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, list):
        return [n for item in value for n in numbers_in(item)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in numbers_in(item)]
    return []


def _contains_payload(category: str) -> Any:
    payloads = _hostile.PAYLOADS[category]
    return lambda v: any(p and p in s for s in strings_in(v) for p in payloads)


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


HOSTILE_FOUND = {
    **{c: _contains_payload(c) for c in _hostile.PAYLOADS if c not in ("hostile_key", "internal_address")},
    "internal_address": lambda v: v.get("host") in _hostile.PAYLOADS["internal_address"],
    "foreign_url": lambda v: v.get("url") in _hostile.url_candidates(_options()),
    "foreign_email": lambda v: "email" in v and v["email"] in _hostile.email_candidates(_options()),
    "long_string": lambda v: len(v["path"]) == 200 or len(v.get("query", "")) == 5000,
    "format_edge": lambda v: v.get("day") in ("0001-01-01", "9999-12-31", "2038-01-19"),
    "extreme_number": lambda v: v.get("count") in (2**70, -5, 2**63, 2**64) or v.get("ratio") in (1, 5e-324),
    "max_items": lambda v: len(v.get("tags", [])) == 20,
    "hostile_key": lambda v: any(k in _hostile.PAYLOADS["hostile_key"] for k in v.get("meta", {})),
}


def _options() -> _hostile.HostileOptions:
    return _hostile.HostileOptions(ALLOWED_HOSTS, ALLOWED_EMAILS, frozenset(HOSTILE_CATEGORIES))


def test_every_category_is_tested_for() -> None:
    assert set(HOSTILE_FOUND) == set(HOSTILE_CATEGORIES)


@pytest.mark.parametrize("category", list(HOSTILE_CATEGORIES))
@pytest.mark.parametrize("alone", [True, False], ids=["alone", "among-all"])
def test_each_category_shows_up(category: str, alone: bool) -> None:
    """Each category is drawn (alone, and among all of them), and its values stay schema-valid."""
    strategy = hostile_arguments(
        RICH, allowed_hosts=ALLOWED_HOSTS, allowed_emails=ALLOWED_EMAILS, categories=[category] if alone else None
    )
    found = first(strategy, HOSTILE_FOUND[category])
    assert_valid(RICH, found)


@given(hostile_arguments(RICH, allowed_hosts=ALLOWED_HOSTS, allowed_emails=ALLOWED_EMAILS))
def test_hostile_values_stay_outside_the_allowed_sets(value: dict[str, Any]) -> None:
    assert_valid(RICH, value)
    assert value["mode"] in ("fast", "safe")
    if "url" in value:
        host = _host(value["url"])
        if host == "api.example.com" or host.endswith(".api.example.com"):  # an allowed host, a hostile path
            assert "%2f.." in value["url"] or "%27" in value["url"], value["url"]
    if "email" in value and value["email"] in _hostile.email_candidates(_options()):
        domain = value["email"].rpartition("@")[2]
        assert value["email"] != "ops@example.com" and domain != "corp.example" and not domain.endswith(".corp.example")


def test_hostile_is_mostly_hostile() -> None:
    """Most draws carry a payload: the category events a run reports."""
    seen: list[bool] = []

    @settings(max_examples=200, database=None)
    @given(hostile_arguments(RICH, allowed_hosts=ALLOWED_HOSTS))
    def run(value: dict[str, Any]) -> None:
        seen.append(any(check(value) for check in HOSTILE_FOUND.values()))

    run()
    assert sum(seen) >= 0.8 * len(seen)


def test_candidates_respect_the_allowed_sets() -> None:
    for hosts in [(), ("example.com",), ("api.example.com", "files.example.org"), ("localhost",)]:
        options = _hostile.HostileOptions(hosts, (), frozenset())
        urls = _hostile.url_candidates(options)
        assert urls and all(not any(_host(u) == h or _host(u).endswith("." + h) for h in hosts) for u in urls), (
            hosts,
            urls,
        )
    for emails in [(), ("ops@example.com",), ("@example.com", "corp.example"), ("a@attacker.example",)]:
        options = _hostile.HostileOptions((), emails, frozenset())
        for address in _hostile.email_candidates(options):
            assert address not in emails and "@" in address
            domain = address.rpartition("@")[2]
            for entry in emails:
                if "@" not in entry.lstrip("@"):
                    assert domain != entry.lstrip("@") and not domain.endswith("." + entry.lstrip("@"))


def test_extreme_numbers_respect_bounds_and_multiples() -> None:
    from fractions import Fraction

    values = _hostile.number_candidates(
        integer=False, lo=Fraction(0), hi=Fraction(1), lo_open=True, hi_open=False, multiple=None
    )
    assert 1 in values and 5e-324 in values and 0 not in values and all(0 < v <= 1 for v in values)
    values = _hostile.number_candidates(
        integer=True, lo=Fraction(-10), hi=Fraction(10), lo_open=False, hi_open=True, multiple=Fraction(3)
    )
    assert sorted(values) == [-9, -6, 0, 6, 9]  # the multiples at each bound and next to it, and 0
    values = _hostile.number_candidates(integer=False, lo=None, hi=None, lo_open=False, hi_open=False, multiple=None)
    assert any(math.copysign(1, v) < 0 and v == 0 for v in values)  # -0.0
    assert 2**64 in values and 1e308 in values


# ------------------------------------------------------------------------------------------------ streams

NAMES = ["get_weather", "search", "f", "a.b-c_d", "工具", "x" * 64]
TEXT_FORMATS = ("openai-chat", "openai-responses", "anthropic-messages", "bedrock-converse")


@st.composite
def call_lists(draw: Any, format: str) -> list[Any]:
    """Calls in each accepted shape: pairs, triples with ids, JSON texts, mappings; choices where several exist."""
    calls: list[Any] = []
    for position in range(draw(st.integers(0, 4))):
        name = draw(st.sampled_from(NAMES))
        value = draw(arguments_objects())
        shape = draw(st.sampled_from(["pair", "triple", "text", "mapping"]))
        if shape == "pair":
            calls.append((name, value))
        elif shape == "triple":
            calls.append((name, value, f"id_{position}"))
        elif shape == "text":
            calls.append((name, json.dumps(value, indent=draw(st.sampled_from([None, 1])), ensure_ascii=False)))
        else:
            choice = draw(st.integers(0, 1)) if format in ("openai-chat", "gemini") else 0
            calls.append({"name": name, "arguments": value, "id": f"m_{position}", "choice": choice})
    return calls


def expected(calls: list[Any]) -> list[tuple[Any, ...]]:
    out = []
    for call in calls:
        if isinstance(call, dict):
            out.append((call["choice"], call["name"], strict(call["arguments"]), call["id"], None))
        else:
            text = call[1] if isinstance(call[1], str) else None
            value = json.loads(text) if text is not None else call[1]
            out.append((0, call[0], strict(value), call[2] if len(call) == 3 else None, text))
    return sorted(out, key=lambda c: c[0])  # by choice, in the given order within one


def reassembled(module: Any, chunks: list[Any], format: str | None) -> toolwire.StreamResult:
    stream = module.reassemble(chunks, on_invalid="yield", format=format)
    handed = list(stream)
    assert all(type(call).__name__ == "ToolCall" for call in handed), handed
    result: toolwire.StreamResult = stream.result
    return result


def check_round_trip(calls: list[Any], chunks: list[Any], format: str, named: bool) -> None:
    truth = expected(calls)
    for module in IMPLEMENTATIONS.values():
        result = reassembled(module, chunks, format if named else None)
        assert result.format == format
        assert result.invalid_calls == ()
        got = result.calls
        assert [(c.choice, c.name, strict(c.arguments)) for c in got] == [t[:3] for t in truth], module.__name__
        for call, (_, _, _, call_id, text) in zip(got, truth, strict=True):
            if call_id is not None:
                assert call.id == call_id
            if text is not None and format in TEXT_FORMATS:  # streamed as given (Anthropic may send it whole)
                whole = json.dumps(call.arguments, separators=(",", ":"), ensure_ascii=False)
                assert call.arguments_json in (text, whole)


@pytest.mark.parametrize("format", STREAM_FORMATS)
@settings(max_examples=max(10, EXAMPLES // 2))
@given(data=st.data())
def test_streams_reassemble_into_the_given_calls(format: str, data: st.DataObject) -> None:
    calls = data.draw(call_lists(format), label="calls")
    noise, extras = data.draw(st.booleans(), label="noise"), data.draw(st.booleans(), label="extras")
    finish = data.draw(st.sampled_from([None, True, False]), label="finish")
    chunks = data.draw(streams(calls, format=format, noise=noise, extras=extras, finish=finish), label="chunks")
    json.dumps(chunks)  # plain JSON chunks, as an SDK parses them
    check_round_trip(calls, chunks, format, data.draw(st.booleans(), label="named"))


@pytest.mark.parametrize("format", STREAM_FORMATS)
@settings(max_examples=max(10, EXAMPLES // 5))
@given(data=st.data())
def test_tool_calls_re_render_into_any_format(format: str, data: st.DataObject) -> None:
    """The calls of one stream, as ``ToolCall`` objects, render into another format's stream."""
    calls = data.draw(call_lists("anthropic-messages"), label="calls")
    first = reassembled(toolwire, data.draw(streams(calls, format="anthropic-messages")), None).calls
    assert all(isinstance(call, ToolCall) for call in first)
    again = reassembled(reference, data.draw(streams(list(first), format=format)), None).calls
    assert [(c.id, c.name, strict(c.arguments)) for c in again] == [(c.id, c.name, strict(c.arguments)) for c in first]


def test_text_is_streamed_exactly_as_given() -> None:
    text = '{ "city" : "Par\\u00eds", "days":3 }'
    for format in TEXT_FORMATS:
        chunks = first(streams([("get_weather", text)], format=format, noise=False), lambda c: True)
        (call,) = reassembled(toolwire, chunks, format).calls
        assert call.arguments == {"city": "París", "days": 3}
        assert call.arguments_json in (text, '{"city":"París","days":3}'), format  # Anthropic may send it whole


@pytest.mark.parametrize(
    ("format", "quirk"),
    [
        ("openai-chat", lambda chunks: any(c.get("choices") == [] for c in chunks)),  # noise chunks
        ("openai-chat", lambda chunks: any("usage" in c and c["usage"] for c in chunks)),  # usage-only
        ("openai-chat", lambda chunks: _placeholders(chunks)),  # placeholders on later fragments
        ("openai-chat", lambda chunks: _interleaved(chunks)),  # parallel calls interleaved by index
        (
            "openai-chat",
            lambda chunks: not any(ch.get("finish_reason") for c in chunks for ch in c.get("choices") or []),
        ),
        ("openai-responses", lambda chunks: _interleaved_items(chunks)),
        ("anthropic-messages", lambda chunks: any(c.get("type") == "ping" for c in chunks)),
        ("gemini", lambda chunks: any(len(c.get("candidates") or []) == 2 for c in chunks)),
    ],
)
def test_quirks_show_up(format: str, quirk: Any) -> None:
    calls = [
        {"name": "f", "arguments": {"a": 1}, "id": "c1", "choice": 0},
        {"name": "g", "arguments": {"b": [1, 2]}, "id": "c2", "choice": 0},
    ]
    if format == "gemini":
        calls.append({"name": "h", "arguments": {}, "id": "c3", "choice": 1})
    found = first(streams(calls, format=format), quirk)
    check_round_trip(calls, found, format, False)


def _fragments(chunks: list[Any]) -> list[dict[str, Any]]:
    return [
        frag
        for c in chunks
        for choice in c.get("choices") or []
        for frag in ((choice.get("delta") or {}).get("tool_calls") or [])
    ]


def _placeholders(chunks: list[Any]) -> bool:
    """An id or a name sent as a placeholder: ``""``, ``"null"`` or null."""
    for frag in _fragments(chunks):
        function = frag.get("function") or {}
        if frag.get("id", "x") in ("", "null", None) or function.get("name", "x") in ("", "null", None):
            return True
    return False


def _interleaved(chunks: list[Any]) -> bool:
    order = [frag["index"] for frag in _fragments(chunks) if frag.get("index") is not None]
    runs = [k for j, k in enumerate(order) if j == 0 or order[j - 1] != k]
    return len(runs) > len(set(runs))


def _interleaved_items(chunks: list[Any]) -> bool:
    order = [c["output_index"] for c in chunks if "output_index" in c]
    runs = [k for j, k in enumerate(order) if j == 0 or order[j - 1] != k]
    return len(runs) > len(set(runs))


def test_stream_misuse() -> None:
    with pytest.raises(ValueError, match="format must be one of"):
        streams([("f", {})], format="openai")
    with pytest.raises(ValueError, match="one choice"):
        streams([{"name": "f", "arguments": {}, "choice": 1}], format="anthropic-messages")
    with pytest.raises(ValueError, match="JSON object"):
        streams([("f", "[1, 2]")])
    with pytest.raises(ValueError, match="not JSON"):
        streams([("f", "{nope")])
    with pytest.raises(TypeError, match="not a JSON value"):
        streams([("f", {"a": object()})])
    with pytest.raises(TypeError, match="keys must be str"):
        streams([("f", {1: 2})])
    with pytest.raises(ValueError, match="not a JSON number"):
        streams([("f", {"a": math.nan})])
    with pytest.raises(TypeError, match="expected a"):
        streams([42])


# ------------------------------------------------------------------------------------------------ the module


def test_docstring_examples_run() -> None:
    for module in (toolwire.strategies, _streams):
        failures, tried = doctest.testmod(module, raise_on_error=False)
        assert tried and not failures, module.__name__


def test_import_toolwire_needs_no_hypothesis() -> None:
    code = "import sys, toolwire; assert 'hypothesis' not in sys.modules and 'toolwire.strategies' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_project_tests_use_these_renderers() -> None:
    """tests/support/strategies_*.py draw their streams from toolwire.strategies: one generator, not two."""
    from tests.support import strategies_chat, strategies_formats
    from toolwire.strategies import _chat, _formats

    assert strategies_chat.ChatCase is _chat.ChatCase and strategies_chat.pack is _chat.pack
    assert strategies_formats.FormatCase is _formats.FormatCase
    source = pathlib.Path(strategies_chat.__file__).read_text() + pathlib.Path(strategies_formats.__file__).read_text()
    assert "chat_cases(" in source and "FORMAT_CASES[format]" in source
