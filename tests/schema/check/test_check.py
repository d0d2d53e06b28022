"""``toolwire check`` and ``toolwire.schema.check_tools``: every rule failing and passing, pointers, the
similarity measure, the meta-schema binding, output formats, exit codes and project configuration."""

from __future__ import annotations

import datetime
import doctest
import io
import json
import random
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from xml.etree import ElementTree

import pytest

from toolwire._common import _secrets
from toolwire._core import schema_problems
from toolwire.cli import main
from toolwire.registry import ToolRegistry
from toolwire.schema import OUTPUT_FORMATS, _similarity, load_tools
from toolwire.schema._findings import FindingReport
from toolwire.schema._similarity import similar_pairs, similarity, tool_text
from toolwire.schema.check import _check
from toolwire.schema.check._check import CHECK_RULES, DEFAULT_SIMILARITY_THRESHOLD, check_tools, sources_of

TODAY = datetime.date(2026, 6, 1)
DESCRIPTION = "Get the current weather for a city, in Celsius or Fahrenheit."
CITY = {"type": "string", "description": "The city, e.g. Paris."}
UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The temperature unit."}
WEATHER = {"type": "object", "properties": {"city": CITY, "unit": UNIT}, "required": ["city"]}


def tool(name: str = "get_weather", **fields: Any) -> dict[str, Any]:
    """A clean definition (no finding of any rule) with ``fields`` replacing or adding keys."""
    return {"name": name, "description": DESCRIPTION, "parameters": WEATHER, **fields}


def weather(**schema: Any) -> dict[str, Any]:
    """The weather parameters with ``schema`` keys replaced."""
    return {**WEATHER, **schema}


def rules_of(definitions: Sequence[dict[str, Any]], **options: Any) -> set[str]:
    return {finding.rule for finding in check_tools(list(definitions), today=TODAY, **options).findings}


# rule id -> (definitions that must raise it, definitions that must not)
CASES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "tool-not-loadable": ([tool(parameters={"type": "object", "properties": {"x": {"$ref": "#/$defs/no"}}})], [tool()]),
    "duplicate-name": (
        [tool(), tool()],
        [tool(), tool("cancel_subscription", description="Cancel a subscription now.")],
    ),
    "name-not-portable": ([tool("get-weather")], [tool("get_weather")]),
    # A dot breaks OpenAI's, Anthropic's and Bedrock's rule; a hyphen breaks none of the five (only portability).
    "name-rejected-by-target": ([tool("weather.get")], [tool("get-weather")]),
    # A space breaks all five; a dot breaks three of them.
    "name-rejected-everywhere": ([tool("get weather")], [tool("weather.get")]),
    "schema-invalid": ([tool(parameters=weather(properties={"city": {"type": "float"}}))], [tool()]),
    "root-not-object": ([tool(parameters={"type": "array", "items": CITY})], [tool()]),
    "required-not-a-property": (
        [tool(parameters=weather(required=["town"]))],
        [tool(parameters=weather(required=[], anyOf=[{"required": ["city"]}, {"required": ["unit"]}]))],
    ),
    "example-invalid": (
        [tool(examples={"valid": [{"city": 3, "unit": "celsius"}]})],
        [tool(examples={"valid": [{"city": "Paris", "unit": "celsius"}, {"city": "Oslo", "unit": "fahrenheit"}]})],
    ),
    "example-not-refused": (
        [tool(examples={"invalid": [{"city": "Paris"}]})],
        [tool(examples={"invalid": [{"city": "Paris", "unit": "kelvin"}, {}]})],
    ),
    "enum-uncovered": (
        [tool(examples={"valid": [{"city": "Paris", "unit": "celsius"}]})],
        [tool(examples={"valid": [{"city": "Paris", "unit": "celsius"}, {"city": "Oslo", "unit": "fahrenheit"}]})],
    ),
    "description-missing": ([tool(description="  ")], [tool()]),
    "description-too-long": ([tool(description="w" * 1025)], [tool(description="w" * 1024)]),
    "description-too-short": ([tool(description="Get weather.")], [tool(description="Get a city's weather.")]),
    "property-description-missing": (
        [tool(parameters=weather(properties={"city": {"type": "string"}}))],
        [tool(parameters=weather(properties={"city": {"$ref": "#/$defs/city"}}, **{"$defs": {"city": CITY}}))],
    ),
    "ambiguous-tools": (
        [tool(), tool("fetch_weather_report", description="Fetch the weather report for a location.")],
        [tool(), tool("cancel_subscription", description="Cancel the user's subscription at the end of the period.")],
    ),
    "open-object-side-effecting": (
        [tool(side_effects=True)],
        [tool(side_effects=True, parameters=weather(additionalProperties=False)), tool("get_forecast")],
    ),
    "deprecated-without-sunset": ([tool(deprecated=True)], [tool(deprecated="use v2", sunset="2027-01-01")]),
    "sunset-passed": ([tool(deprecated=True, sunset="2026-05-31")], [tool(deprecated=True, sunset="2026-06-01")]),
    "sunset-not-a-date": ([tool(sunset="next spring")], [tool(sunset=datetime.date(2027, 1, 1))]),
    "secret-in-schema": (
        [tool(description=DESCRIPTION + " Key: AKIAIOSFODNN7EXAMPLE")],
        [tool(description=DESCRIPTION + " Uses bearer authentication and sk-learn style names.")],
    ),
}


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    assert list(CASES) == [rule.id for rule in CHECK_RULES]
    assert all(rule.id == rule.id.lower() and " " not in rule.id for rule in CHECK_RULES)


@pytest.mark.parametrize("rule", [rule.id for rule in CHECK_RULES])
def test_rule_fails_and_passes(rule: str) -> None:
    failing, passing = CASES[rule]
    assert rule in rules_of(failing), rule
    assert rule not in rules_of(passing), rule


def test_a_clean_tool_has_no_finding_and_levels_come_from_the_table() -> None:
    assert (
        check_tools(
            [tool(examples={"valid": [{"city": "Paris", "unit": "celsius"}, {"city": "Oslo", "unit": "fahrenheit"}]})]
        ).findings
        == ()
    )
    levels = {rule.id: rule.level for rule in CHECK_RULES}
    for rule, (failing, _) in CASES.items():
        for finding in check_tools(failing, today=TODAY).findings:
            assert finding.level == levels[finding.rule], (rule, finding)


def findings_of(definitions: Any, rule: str, **options: Any) -> list[Any]:
    return [f for f in check_tools(definitions, today=TODAY, **options).findings if f.rule == rule]


def test_duplicate_names_name_both_origins(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps([tool()]), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps(tool(description="Another weather tool, same name.")) + "\n")
    (finding,) = findings_of([tmp_path / "a.json", str(tmp_path / "b.jsonl")], "duplicate-name")
    assert finding.origin == f"{tmp_path / 'b.jsonl'}:1"
    assert f"{tmp_path / 'a.json'}:1#0" in finding.message and finding.origin in finding.message
    assert finding.data["origins"] == [f"{tmp_path / 'a.json'}:1#0", f"{tmp_path / 'b.jsonl'}:1"]
    # A duplicate is not also reported as a pair of look-alike tools.
    assert not findings_of([tmp_path / "a.json", tmp_path / "b.jsonl"], "ambiguous-tools")


def test_target_name_rules_name_the_targets() -> None:
    (dotted,) = findings_of([tool("weather.get")], "name-rejected-by-target")
    assert dotted.data["targets"] == ["openai", "anthropic", "bedrock"]
    (colon,) = findings_of([tool("weather:get")], "name-rejected-by-target")
    assert colon.data["targets"] == ["openai", "anthropic", "vertex", "bedrock"]
    (long_name,) = findings_of([tool("w" * 65)], "name-rejected-by-target")
    assert long_name.data["targets"] == ["openai", "anthropic", "vertex", "bedrock"]
    assert not findings_of([tool("w" * 63)], "name-not-portable")
    assert findings_of([tool("w" * 64)], "name-not-portable")
    assert findings_of([tool("_private")], "name-not-portable") and not findings_of(
        [tool("_private")], "name-rejected-by-target"
    )
    # fullmatch: a trailing newline counts, and no target takes it.
    assert rules_of([tool("get_weather\n")]) == {"name-rejected-everywhere"}


def test_a_name_every_target_rejects_is_an_error_alone() -> None:
    (found,) = check_tools([tool("get weather")], today=TODAY).findings
    assert (found.rule, found.level) == ("name-rejected-everywhere", "error")
    assert found.message.startswith(
        "no provider accepts the name 'get weather': it breaks the tool-name rule of openai"
    )
    assert set(found.data["rules"]) == {"openai", "anthropic", "gemini", "vertex", "bedrock"}
    assert rules_of([tool("x" * 129)]) == {"name-rejected-everywhere"}  # Gemini's rule takes 128
    assert "name-rejected-everywhere" not in rules_of([tool("math.sum")])  # Gemini takes dots


def test_bfcl_types_are_schema_invalid_with_pointers_and_fixes() -> None:
    bfcl = {
        "name": "determine_body_mass_index",
        "description": "Calculate body mass index given weight and height.",
        "parameters": {
            "type": "dict",
            "properties": {
                "weight": {"type": "float", "description": "Weight in kilograms."},
                "pair": {"type": "tuple", "items": {"type": "any"}, "description": "Two values."},
            },
            "required": ["weight"],
        },
    }
    found = check_tools([bfcl]).findings
    invalid = {f.pointer: f.message for f in found if f.rule == "schema-invalid"}
    assert set(invalid) == {"/type", "/properties/weight/type", "/properties/pair/type", "/properties/pair/items/type"}
    assert invalid["/type"].startswith("type 'dict' is not a JSON Schema type: write 'object'")
    assert "write 'number'" in invalid["/properties/weight/type"]
    assert "leave 'type' out" in invalid["/properties/pair/items/type"]
    # The registry refuses the top-level dict itself; the root rule leaves a non-type to schema-invalid.
    assert {f.rule for f in found} >= {"tool-not-loadable", "schema-invalid"}
    assert "root-not-object" not in {f.rule for f in found}


@pytest.mark.parametrize(
    ("written", "fix"),
    [
        ("str", "write 'string'"),
        ("int", "write 'integer'"),
        ("bool", "write 'boolean'"),
        ("NoneType", "write 'null'"),
        ("strin", "did you mean 'string'?"),
        ("Integer", "did you mean 'integer'?"),
        ("nubmer", "did you mean 'number'?"),
        (["Integer", "null"], "type 'Integer' is not a JSON Schema type: did you mean 'integer'?"),
    ],
)
def test_a_mistyped_type_says_which_type_was_meant(written: Any, fix: str) -> None:
    properties = {"city": {"type": written, "description": "The city."}}
    found = check_tools([tool(parameters=weather(properties=properties))], today=TODAY).findings
    (invalid,) = [f for f in found if f.rule == "schema-invalid"]
    assert invalid.pointer == "/properties/city/type" and fix in invalid.message
    # The registry refuses the tool for that same problem: its finding points there rather than quoting it again.
    (refused,) = [f for f in found if f.rule == "tool-not-loadable"]
    assert refused.message.endswith("its schema is invalid at /properties/city/type (the schema-invalid finding there)")


def test_a_type_nothing_is_close_to_keeps_the_meta_schemas_words() -> None:
    properties = {"city": {"type": "geolocation", "description": "The city."}}
    (invalid,) = findings_of([tool(parameters=weather(properties=properties))], "schema-invalid")
    assert invalid.message.startswith('"geolocation" is not valid under any of the schemas')


def test_schema_invalid_follows_the_declared_draft() -> None:
    # `dependentRequired` is a 2020-12 keyword (its values are lists of names); draft 7 does not know it.
    (finding,) = findings_of([tool(parameters=weather(dependentRequired={"city": 1}))], "schema-invalid")
    assert finding.pointer == "/dependentRequired/city" and finding.data["draft"] == "2020-12"
    draft7 = weather(**{"$schema": "http://json-schema.org/draft-07/schema#", "dependentRequired": {"city": 1}})
    assert not findings_of([tool(parameters=draft7)], "schema-invalid")
    (old,) = findings_of([tool(parameters={**draft7, "dependencies": {"city": 1}})], "schema-invalid")
    assert old.pointer == "/dependencies/city" and old.data["draft"] == "7"


def test_root_not_object_forms() -> None:
    no_type = findings_of([tool(parameters={"properties": {"city": CITY}})], "root-not-object")
    assert "declare no type" in no_type[0].message
    (listed,) = findings_of([tool(parameters={"type": ["string", "null"]})], "root-not-object")
    assert listed.pointer == "/type"
    assert not findings_of([tool(parameters={"type": ["object", "null"], "properties": {}})], "root-not-object")
    assert not findings_of([tool(parameters=None)], "root-not-object")  # no parameters: an empty object


def test_required_is_checked_at_every_level_with_the_entry_pointer() -> None:
    nested = weather(
        properties={
            "city": CITY,
            "address": {
                "type": "object",
                "description": "Where.",
                "properties": {"street": {"type": "string", "description": "Street."}},
                "required": ["street", "zip"],
            },
        },
        required=["city", "country"],
        **{"$defs": {"pin": {"type": "object", "properties": {}, "required": ["code"]}}},
    )
    found = {(f.pointer, f.data["name"]) for f in findings_of([tool(parameters=nested)], "required-not-a-property")}
    assert found == {
        ("/required/1", "country"),
        ("/properties/address/required/1", "zip"),
        ("/$defs/pin/required/0", "code"),
    }
    # Names from a local $ref, a branch and patternProperties count; an external $ref silences the rule.
    quiet = [
        weather(required=["zone"], allOf=[{"properties": {"zone": CITY}}]),
        weather(required=["x_1"], patternProperties={"^x_": CITY}),
        {"$ref": "#/$defs/w", "required": ["city"], "$defs": {"w": WEATHER}},
        {"type": "object", "$ref": "https://example.com/w.json", "required": ["city"]},
    ]
    for parameters in quiet:
        assert not [
            f for f in check_tools([tool(parameters=parameters)]).findings if f.rule == "required-not-a-property"
        ]


def test_examples_point_into_the_example() -> None:
    definitions = [tool(examples={"valid": [{"city": "Paris"}, {"city": "Oslo", "unit": "kelvin", "x": []}]})]
    (finding,) = findings_of(definitions, "example-invalid")
    assert finding.pointer == "/unit" and finding.data == {"example": "valid[1]", "code": "ENUM_OUT_OF_RANGE"}
    assert "valid example 1 is refused at /unit" in finding.message
    closed = [tool(parameters=weather(additionalProperties=False), examples={"valid": [{"city": "P", "x": 1}]})]
    assert [f.pointer for f in findings_of(closed, "example-invalid")] == ["/x"]
    # The JSON Schema `examples` keyword inside the parameters counts as valid examples too.
    keyword = [tool(parameters=weather(examples=[{"unit": "celsius"}]))]
    (missing,) = findings_of(keyword, "example-invalid")
    assert missing.pointer == "/city" and missing.data["code"] == "MISSING_REQUIRED_ARGUMENT"
    (accepted,) = findings_of([tool(examples={"invalid": [{}, {"city": "Paris"}]})], "example-not-refused")
    assert accepted.data == {"example": "invalid[1]"}


def test_enum_coverage_follows_the_instance_paths() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "unit": {"$ref": "#/$defs/unit"},
            "days": {"type": "array", "items": {"enum": ["mon", "tue", 1]}, "description": "Days."},
        },
        "$defs": {"unit": {"enum": ["celsius", "fahrenheit"], "description": "Unit."}},
    }
    examples = {"valid": [{"unit": "celsius", "days": ["mon", 1.0]}, {"days": ["celsius"]}]}
    found = {
        f.pointer: f.data["uncovered"]
        for f in findings_of([tool(parameters=parameters, examples=examples)], "enum-uncovered")
    }
    assert found == {"/$defs/unit/enum": ["fahrenheit"], "/properties/days/items/enum": ["tue"]}
    # Without valid examples there is nothing to cover.
    assert not findings_of([tool(parameters=parameters)], "enum-uncovered")


def test_open_objects_are_reported_at_every_level_of_side_effecting_tools() -> None:
    parameters = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "order": {"type": "object", "description": "The order.", "properties": {"id": CITY}},
            "note": {"type": ["object", "null"], "description": "A note.", "unevaluatedProperties": False},
            "lines": {"type": "array", "description": "Lines.", "items": {"properties": {"sku": CITY}}},
        },
        "$defs": {"meta": {"type": "object", "additionalProperties": {"type": "string"}}},
    }
    found = [
        f.pointer
        for f in findings_of(
            [tool("refund_order", side_effects=True, parameters=parameters)], "open-object-side-effecting"
        )
    ]
    assert found == ["/$defs/meta", "/properties/lines/items", "/properties/order"]
    assert not findings_of(
        [tool("refund_order", side_effects=False, parameters=parameters)], "open-object-side-effecting"
    )


def test_property_descriptions_at_every_level() -> None:
    parameters = weather(
        properties={
            "city": CITY,
            "where": {"type": "object", "description": "Place.", "properties": {"lat": {"type": "number"}}},
        }
    )
    assert [f.pointer for f in findings_of([tool(parameters=parameters)], "property-description-missing")] == [
        "/properties/where/properties/lat"
    ]


def test_sunset_is_compared_with_the_given_day() -> None:
    definitions = [tool(deprecated=True, sunset="2026-05-31")]
    (passed,) = findings_of(definitions, "sunset-passed")
    assert passed.data == {"sunset": "2026-05-31", "today": "2026-06-01"}
    assert not [
        f for f in check_tools(definitions, today=datetime.date(2026, 5, 31)).findings if f.rule == "sunset-passed"
    ]
    assert findings_of([tool(sunset="2026-02-30")], "sunset-not-a-date")
    assert not findings_of([tool(deprecated=False)], "deprecated-without-sunset")


def test_secrets_are_found_everywhere_and_never_shown() -> None:
    key = "sk-ant-api03-" + "a1B2" * 10
    definitions = [
        tool(
            parameters=weather(
                properties={
                    "city": {**CITY, "default": "ghp_" + "x" * 36},
                    "unit": {**UNIT, "enum": ["celsius", "xoxb-1234567890-abcdef"]},
                    "token": {
                        "const": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                        "description": "T.",
                    },
                }
            ),
            examples={"valid": [{"city": "AIza" + "B" * 35}]},
            description=f"{DESCRIPTION} Send Authorization: Bearer {key}",
        )
    ]
    found = findings_of(definitions, "secret-in-schema")
    seen = {(f.pointer, f.data["kind"], f.data.get("example", f.data.get("field"))) for f in found}
    assert seen == {
        ("", "Anthropic API key", "description"),
        ("", "Bearer credential", "description"),
        ("/properties/city/default", "GitHub token", "parameters"),
        ("/properties/unit/enum/1", "Slack token", "parameters"),
        ("/properties/token/const", "JWT", "parameters"),
        ("/city", "Google API key", "valid[0]"),
    }
    assert all(key not in f.message and "x" * 36 not in f.message for f in found)
    private = tool(description=DESCRIPTION + " -----BEGIN OPENSSH PRIVATE KEY----- ...")
    assert findings_of([private], "secret-in-schema")[0].data["kind"] == "private key"


def test_secrets_quoted_by_other_rules_are_masked() -> None:
    token = "xoxb-1234567890-abcdef"
    definitions = [
        tool(
            parameters=weather(properties={"city": CITY, "unit": {**UNIT, "enum": ["celsius", token]}}),
            examples={"valid": [{"city": "Paris", "unit": "celsius"}]},
        )
    ]
    found = check_tools(definitions).findings
    (uncovered,) = [f for f in found if f.rule == "enum-uncovered"]
    assert token not in uncovered.message and token not in json.dumps(uncovered.as_dict())
    assert uncovered.data["uncovered"] == ["xoxb… (22 characters)"]


# --- the similarity measure ----------------------------------------------------------------------------------

PAIRS = {
    "get_weather": ("Get the current weather for a city.", ["city", "unit"]),
    "fetch_weather_report": ("Fetch the weather report for a location.", ["location", "units"]),
    "search_orders": ("Search the customer's orders by status or date.", ["status", "date_from", "date_to"]),
    "find_orders": ("Find orders of a customer matching a status.", ["customer_id", "status"]),
    "create_calendar_event": ("Create an event in the user's calendar.", ["title", "start", "end"]),
    "add_event": ("Add an event to the calendar.", ["title", "start_time", "end_time"]),
    "cancel_subscription": ("Cancel the user's subscription at the end of the billing period.", ["subscription_id"]),
    "send_email": ("Send an email to a recipient.", ["to", "subject", "body"]),
    "read_email": ("Read the emails in the inbox.", ["folder", "limit"]),
    "get_user": ("Get a user by id.", ["user_id"]),
    "delete_user": ("Delete a user by id.", ["user_id"]),
    "convert_celsius_to_fahrenheit": ("Convert a temperature from Celsius to Fahrenheit.", ["celsius"]),
    "convert_fahrenheit_to_celsius": ("Convert a temperature from Fahrenheit to Celsius.", ["fahrenheit"]),
}


@pytest.mark.parametrize(
    ("first", "second", "score", "flagged"),
    [
        ("get_weather", "fetch_weather_report", 0.60, True),
        ("search_orders", "find_orders", 0.88, True),
        ("create_calendar_event", "add_event", 0.84, True),
        ("get_weather", "cancel_subscription", 0.0, False),
        ("send_email", "read_email", 0.42, False),  # same object, different actions
        ("get_user", "delete_user", 0.50, False),  # the same words but for the verb
        ("convert_celsius_to_fahrenheit", "convert_fahrenheit_to_celsius", 0.49, False),  # opposite directions
    ],
)
def test_similarity_of_pairs(first: str, second: str, score: float, flagged: bool) -> None:
    texts = [tool_text(name, *PAIRS[name]) for name in (first, second)]
    measured = similarity(*texts)
    assert round(measured, 2) == score
    assert (measured >= DEFAULT_SIMILARITY_THRESHOLD) is flagged
    assert measured == similarity(texts[1], texts[0])
    definitions = [
        tool(name, description=description, parameters={"type": "object", "properties": {p: CITY for p in parameters}})
        for name, (description, parameters) in ((n, PAIRS[n]) for n in (first, second))
    ]
    found = findings_of(definitions, "ambiguous-tools")
    assert bool(found) is flagged
    if found:
        assert found[0].tool == second and found[0].data["other"] == first
        assert (
            found[0].data["score"] == round(measured, 3) and found[0].data["threshold"] == DEFAULT_SIMILARITY_THRESHOLD
        )
        assert found[0].data["shared"]


def test_the_threshold_is_configurable_and_checked() -> None:
    pair = [tool(), tool("fetch_weather_report", description="Fetch the weather report for a location.")]
    assert not findings_of(pair, "ambiguous-tools", similarity_threshold=0.9)
    assert findings_of(
        [tool("get_user", description="Get a user by id."), tool("delete_user", description="Delete a user by id.")],
        "ambiguous-tools",
        similarity_threshold=0.5,
    )
    for wrong in (0, 1.5, "0.5", True):
        with pytest.raises(ValueError, match=r"similarity_threshold must be a number in \(0, 1\]"):
            check_tools(pair, similarity_threshold=wrong)  # type: ignore[arg-type]


def test_similar_pairs_is_exact() -> None:
    rng = random.Random(6)
    vocabulary = "get fetch search find weather report order customer city email send read user delete status".split()
    texts = [
        tool_text(
            "_".join(rng.sample(vocabulary, rng.randint(1, 3))),
            " ".join(rng.choices(vocabulary, k=rng.randint(0, 12))),
            rng.sample(vocabulary, rng.randint(0, 3)),
        )
        for _ in range(120)
    ]
    for threshold in (0.2, 0.55, 0.9):
        brute = [
            (i, j, similarity(texts[i], texts[j]))
            for i in range(len(texts))
            for j in range(i + 1, len(texts))
            if similarity(texts[i], texts[j]) >= threshold
        ]
        assert similar_pairs(texts, threshold) == brute


# --- the meta-schema binding ---------------------------------------------------------------------------------


def test_schema_problems_binding() -> None:
    text = json.dumps({"type": "dict", "properties": {"w": {"type": "float"}}, "required": "w"}).encode()
    assert [pointer for pointer, _ in schema_problems(text)] == ["/properties/w/type", "/required", "/type"]
    assert schema_problems(b'{"type": "object"}') == []
    assert schema_problems(b'{"dependentRequired": {"a": 1}}', "7") == []
    assert schema_problems(b'{"dependentRequired": {"a": 1}}') == [("/dependentRequired/a", '1 is not of type "array"')]
    assert schema_problems(b"true", "4") != []  # draft 4 has no boolean schemas
    with pytest.raises(ValueError, match="not JSON"):
        schema_problems(b"{")
    with pytest.raises(ValueError, match="draft must be one of 4, 6, 7, 2019-09, 2020-12"):
        schema_problems(b"{}", "draft-07")


# --- inputs ----------------------------------------------------------------------------------------------------


def yaml_tools(folder: Path, text: str) -> Path:
    """A tools.yaml holding ``text``, as a user writes one."""
    path = folder / "tools.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_inputs_check_tools_accepts(tmp_path: Path) -> None:
    path = yaml_tools(
        tmp_path,
        "get_weather:\n  description: Get the current weather for a city.\n  parameters:\n"
        "    type: object\n    properties: {city: {type: string, description: The city.}}\n"
        "    required: [city]\n",
    )
    registry = ToolRegistry([tool()])
    for given in (
        path,
        str(path),
        [path],
        load_tools([path]),
        registry,
        registry.get("get_weather"),
        {"get_weather": WEATHER},
    ):
        report = check_tools(given)
        assert report.command == "check" and report.subjects == ("get_weather",), given
    assert check_tools(
        {"tools": [tool(), tool("cancel_subscription", description="Cancel a subscription.")]}
    ).subjects == (
        "get_weather",
        "cancel_subscription",
    )
    with pytest.raises(TypeError, match="is not a tool source"):
        sources_of([3])
    with pytest.raises(TypeError, match="takes tool files"):
        check_tools(3)
    with pytest.raises(FileNotFoundError):
        check_tools([tmp_path / "missing.json"])


def test_yaml_dates_in_examples_are_iso_text_and_non_json_examples_are_named(tmp_path: Path) -> None:
    path = yaml_tools(
        tmp_path,
        "- name: book_room\n  description: Book a meeting room for a day.\n"
        "  examples: {valid: [{day: 2026-06-01}, {day: .nan}]}\n"
        "  parameters: {type: object, properties: {day: {type: string, format: date, description: The day.}}}\n",
    )
    (finding,) = check_tools([path]).findings
    assert finding.rule == "example-invalid" and finding.message.startswith("valid example 1 is not JSON")


def test_an_item_that_is_no_definition_is_only_not_loadable() -> None:
    (finding,) = check_tools({"tools": ["not a tool"]}).findings
    assert finding.rule == "tool-not-loadable" and "not a tool definition" in finding.message


def test_a_yaml_registry_with_meta_keys(tmp_path: Path) -> None:
    path = yaml_tools(
        tmp_path,
        """
- name: refund_order
  description: Refund an order, fully or in part, to the original payment method.
  side_effects: true
  deprecated: use refund_order_v2
  sunset: 2026-01-31
  examples:
    valid: [{order: A1, amount: 3}]
    invalid: [{order: A1, amount: -1}, {order: A1}]
  parameters:
    type: object
    properties:
      order: {type: string, description: The order id.}
      amount: {type: number, description: The amount to refund.}
    required: [order]
""",
    )
    found = {(f.rule, f.pointer) for f in check_tools([path], today=TODAY).findings}
    assert found == {
        ("open-object-side-effecting", ""),
        ("sunset-passed", ""),  # YAML reads the unquoted date as a date
        ("example-not-refused", ""),
    }


# --- the command line ----------------------------------------------------------------------------------------


def command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["check", *argv])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.json").write_text(
        json.dumps(
            [
                tool(),
                tool("get-forecast", description="Get the weather forecast for the next days."),
                tool(
                    "refund", description="Refund an order.", parameters={"type": "object", "properties": {"id": CITY}}
                ),
            ]
        ),
        encoding="utf-8",
    )
    (tmp_path / "clean.json").write_text(json.dumps([tool()]), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_every_output_format(fmt: str, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = project / "pyproject.toml"
    status, out = command(
        [str(project / "tools.json"), "--output-format", fmt, "--config", str(config), "--color", "never"], capsys
    )
    assert status == 0  # warnings and infos only
    if fmt == "json":
        document = json.loads(out)
        assert document["command"] == "check" and document["ok"] is True
        assert document["subjects"] == ["get_weather", "get-forecast", "refund"]
        assert {f["rule"] for f in document["findings"]} == {"name-not-portable", "description-too-short"}
    elif fmt == "junit":
        suite = ElementTree.fromstring(out.split("\n", 1)[1]).find("testsuite")
        assert suite is not None and suite.get("tests") == "3" and suite.get("failures") == "0"
    elif fmt == "github":
        assert "::warning file=" in out and "title=name-not-portable" in out and "::notice" in out
    elif fmt == "markdown":
        assert out.startswith("### toolwire check") and "`name-not-portable`" in out
    else:
        assert "name-not-portable" in out and "toolwire check: 3 checked; 0 errors, 1 warning, 1 info" in out


def test_exit_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = ["--config", str(project / "pyproject.toml")]
    assert command([str(project / "clean.json"), *config], capsys)[0] == 0
    assert command([str(project / "tools.json"), *config, "--fail-on", "warning"], capsys)[0] == 1
    assert (
        command([str(project / "tools.json"), *config, "--fail-on", "info", "--output-format", "json"], capsys)[0] == 1
    )
    (project / "bad.json").write_text(json.dumps([tool(), tool()]), encoding="utf-8")
    status, out = command([str(project / "bad.json"), *config], capsys)
    assert status == 1 and "duplicate-name" in out
    status, out = command([str(project / "missing.json"), *config], capsys)
    assert status == 2 and "no such file" in out
    status, out = command([str(project / "tools.json"), *config, "--similarity-threshold", "2"], capsys)
    assert status == 2 and "similarity_threshold" in out
    status, out = command(config, capsys)
    assert status == 2 and "no tools given" in out


def test_project_configuration(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        """
[tool.toolwire]
tools = ["tools.json"]
fail-on = "warning"
similarity-threshold = 0.3

[tool.toolwire.rules]
description-too-short = "error"
name-not-portable = "off"
""",
        encoding="utf-8",
    )
    status, out = command(["--config", str(project / "pyproject.toml"), "--output-format", "json"], capsys)
    document = json.loads(out)
    levels = {(f["rule"], f["tool"]): f["level"] for f in document["findings"]}
    assert levels == {("description-too-short", "refund"): "error", ("ambiguous-tools", "get-forecast"): "warning"}
    assert status == 1
    # The command line wins over the file.
    status, out = command(
        ["--config", str(project / "pyproject.toml"), "--similarity-threshold", "0.9", "--fail-on", "never"], capsys
    )
    assert status == 0 and "ambiguous-tools" not in out


def test_report_is_a_finding_report() -> None:
    report = check_tools([tool()])
    assert isinstance(report, FindingReport) and report.exit_code() == 0
    out = io.StringIO()
    print(report.counts(), file=out)
    assert out.getvalue().strip() == "{'info': 0, 'warning': 0, 'error': 0}"


@pytest.mark.parametrize("module", [_check, _secrets, _similarity])
def test_docstring_examples(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried and not failures
