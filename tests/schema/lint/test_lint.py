"""``toolwire lint`` / ``lint_tools``: every rule of every target's data file, the matrix, levels and pointers."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from toolwire.cli import build_parser
from toolwire.cli._lint import run
from toolwire.registry import Tool, ToolRegistry
from toolwire.schema import FindingReport, load_tools
from toolwire.schema.lint._lint import LINT_RULES, LINT_TARGETS, lint_tools, resolve_targets, target_rules
from toolwire.schema.lint._matrix import REQUEST_ROW, render_matrix
from toolwire.schema.lint._rules import EFFECT_LEVELS, parse_rules_yaml, read_target_rules
from toolwire.schema.lint._walk import SchemaFacts, regex_features

# --- building tools ------------------------------------------------------------------------------------------------


def tool(
    parameters: Any = None,
    *,
    name: str = "get_weather",
    description: str | None = "Get the weather.",
    strict: bool | None = None,
) -> Tool:
    return Tool(name, description, parameters, strict=strict)


def closed(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """An object schema strict modes accept: closed, every property required unless told otherwise."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
        **extra,
    }


def prop(**schema: Any) -> dict[str, Any]:
    """A parameters schema holding one property ``a`` with ``schema``."""
    return closed({"a": schema})


def open_prop(**schema: Any) -> dict[str, Any]:
    """Like ``prop`` without ``additionalProperties``."""
    return {"type": "object", "properties": {"a": schema}, "required": ["a"]}


def many(count: int, make: Callable[[int], Tool]) -> list[Tool]:
    return [make(index) for index in range(count)]


def nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = closed({"leaf": {"type": "string"}})
    for _ in range(levels - 1):
        schema = closed({"inner": schema})
    return schema


RECURSIVE = closed(
    {"node": {"$ref": "#/$defs/Node"}},
    **{"$defs": {"Node": closed({"child": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}})}},
)
NOT_RECURSIVE = closed({"node": {"$ref": "#/$defs/Leaf"}}, **{"$defs": {"Leaf": {"type": "string"}}})
NAMED = closed({"a": {"type": "string"}})

Case = tuple[Callable[[], Any], Callable[[], Any]]

# Each rule name (the part after "<target>/") with a schema or tools that trigger it, and a close one that does not.
# A full rule id overrides the name when targets differ (limits, sets).
CASES: dict[str, Case] = {
    "not-loadable": (
        lambda: {"name": "t", "parameters": {"type": "string"}},
        lambda: {"name": "t", "parameters": NAMED},
    ),
    "root-not-object": (lambda: {"properties": {"a": {"type": "string"}}}, lambda: NAMED),
    "root-any-of": (
        lambda: {**NAMED, "anyOf": [{"required": ["a"]}, {"required": []}]},
        lambda: prop(anyOf=[{"type": "string"}, {"type": "null"}]),
    ),
    "constraint-not-enforced": (lambda: prop(type="string", enum=["x", "y"]), lambda: prop(type="string")),
    "name": (lambda: tool(NAMED, name="get weather!"), lambda: tool(NAMED, name="get_weather")),
    "description-length": (lambda: tool(NAMED, description="x" * 1025), lambda: tool(NAMED, description="x" * 1024)),
    "tool-count": (
        lambda: many(129, lambda i: tool(NAMED, name=f"t{i}")),
        lambda: many(128, lambda i: tool(NAMED, name=f"t{i}")),
    ),
    "implicit-open-object": (
        lambda: {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        lambda: NAMED,
    ),
    "open-object": (lambda: {**NAMED, "additionalProperties": True}, lambda: NAMED),
    "optional-property": (lambda: closed({"a": {"type": "string"}}, required=[]), lambda: NAMED),
    "one-of": (
        lambda: prop(oneOf=[{"type": "string"}, {"type": "integer"}]),
        lambda: prop(anyOf=[{"type": "string"}, {"type": "integer"}]),
    ),
    "all-of": (lambda: prop(allOf=[{"type": "string"}, {"minLength": 1}]), lambda: prop(type="string")),
    "not": (lambda: prop(type="string", **{"not": {"const": ""}}), lambda: prop(type="string")),
    "conditional": (lambda: prop(type="string", **{"if": {"minLength": 1}, "then": {}}), lambda: prop(type="string")),
    "default": (lambda: prop(type="string", default="x"), lambda: prop(type="string")),
    "ref-with-siblings": (
        lambda: closed({"a": {"$ref": "#/$defs/A", "description": "d"}}, **{"$defs": {"A": {"type": "string"}}}),
        lambda: closed({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": {"type": "string", "description": "d"}}}),
    ),
    "pattern-lookaround": (
        lambda: prop(type="string", pattern="^(?=a)a+$"),
        lambda: prop(type="string", pattern="^a+$"),
    ),
    "format": (lambda: prop(type="string", format="idn-email"), lambda: prop(type="string", format="date-time")),
    "any-of-same-first-key": (
        lambda: prop(anyOf=[closed({"kind": {"const": "a"}, "x": {}}), closed({"kind": {"const": "b"}, "y": {}})]),
        lambda: prop(anyOf=[closed({"x": {}, "kind": {"const": "a"}}), closed({"y": {}, "kind": {"const": "b"}})]),
    ),
    "enum-budget": (
        lambda: prop(type="string", enum=[f"v{i}" for i in range(1001)]),
        lambda: prop(type="string", enum=[f"v{i}" for i in range(1000)]),
    ),
    "enum-string-length": (
        lambda: prop(type="string", enum=[f"{i:03}" + "x" * 57 for i in range(251)]),
        lambda: prop(type="string", enum=[f"{i:03}" + "x" * 56 for i in range(251)]),
    ),
    "string-budget": (
        lambda: prop(type="string", enum=[f"{i:03}" + "x" * 118 for i in range(1000)]),
        lambda: prop(type="string", enum=[f"{i:03}" + "x" * 116 for i in range(1000)]),
    ),
    "property-budget": (
        lambda: closed({f"p{i}": {"type": "string"} for i in range(5001)}),
        lambda: closed({f"p{i}": {"type": "string"} for i in range(5000)}),
    ),
    "depth": (lambda: nested(11), lambda: nested(10)),
    "enum-complex": (lambda: prop(enum=[{"a": 1}, "b"]), lambda: prop(enum=["a", "b"])),
    "external-ref": (lambda: prop(**{"$ref": "https://example.com/a.json"}), lambda: NOT_RECURSIVE),
    "recursion": (lambda: RECURSIVE, lambda: NOT_RECURSIVE),
    "pattern-feature": (
        lambda: prop(type="string", pattern="^\\bword$"),
        lambda: prop(type="string", pattern="^word$"),
    ),
    "string-length": (lambda: prop(type="string", maxLength=3), lambda: prop(type="string")),
    "numeric-constraint": (lambda: prop(type="integer", maximum=3), lambda: prop(type="integer")),
    "max-items": (lambda: prop(type="array", items={"type": "string"}, maxItems=3), lambda: prop(type="array")),
    "min-items": (lambda: prop(type="array", minItems=2), lambda: prop(type="array", minItems=1)),
    "all-of-with-ref": (
        lambda: closed({"a": {"allOf": [{"$ref": "#/$defs/A"}]}}, **{"$defs": {"A": {"type": "string"}}}),
        lambda: closed({"a": {"allOf": [{"type": "string"}]}}),
    ),
    "required-first": (
        lambda: closed({"opt": {"type": "string"}, "req": {"type": "string"}}, required=["req"]),
        lambda: closed({"req": {"type": "string"}, "opt": {"type": "string"}}, required=["req"]),
    ),
    "optional-budget": (
        lambda: closed({f"p{i}": {"type": "string"} for i in range(25)}, required=[]),
        lambda: closed({f"p{i}": {"type": "string"} for i in range(24)}, required=[]),
    ),
    "union-budget": (
        lambda: closed({f"p{i}": {"type": ["string", "null"]} for i in range(17)}),
        lambda: closed({f"p{i}": {"type": ["string", "null"]} for i in range(16)}),
    ),
    "type-array": (lambda: prop(type=["string", "null"]), lambda: prop(type="string")),
    "enum-non-string": (lambda: prop(type="integer", enum=[1, 2]), lambda: prop(type="string", enum=["1", "2"])),
    "const": (lambda: prop(const="x"), lambda: prop(type="string", enum=["x"])),
    "unknown-field": (lambda: prop(type="string", **{"$comment": "x"}), lambda: prop(type="string", description="x")),
    "nested-defs": (
        lambda: prop(type="object", **{"$defs": {"X": {"type": "string"}}}),
        lambda: closed({"a": {"type": "object"}}, **{"$defs": {"X": {"type": "string"}}}),
    ),
    "additional-properties-schema": (
        lambda: prop(type="object", additionalProperties={"type": "string"}),
        lambda: prop(type="object", additionalProperties=False),
    ),
    "property-order": (
        lambda: closed({"a": {"type": "string"}, "b": {"type": "string"}}),
        lambda: closed({"a": {"type": "string"}, "b": {"type": "string"}}, propertyOrdering=["a", "b"]),
    ),
    "property-name": (lambda: closed({"user-id": {"type": "string"}}), lambda: closed({"user_id": {"type": "string"}})),
    "empty-description": (lambda: tool(NAMED, description=""), lambda: tool(NAMED, description=None)),
    "object-without-required": (lambda: closed({"a": {"type": "string"}}, required=[]), lambda: NAMED),
    "unsupported-keyword": (lambda: prop(type="string", maxLength=3), lambda: prop(type="string")),
    "pattern-syntax": (lambda: prop(type="string", pattern="^a+$"), lambda: prop(type="string", pattern="a+")),
    "field-budget": (
        lambda: [tool(closed({f"p{i}": {"type": "string"} for i in range(101)}), name=f"t{n}") for n in (1, 2)],
        lambda: [tool(closed({f"p{i}": {"type": "string"} for i in range(100)}), name=f"t{n}") for n in (1, 2)],
    ),
    "dropped-keyword": (lambda: prop(type="integer", minimum=0), lambda: prop(type="integer")),
    "enum-not-enforced": (lambda: prop(type="string", enum=["a"]), lambda: prop(type="string")),
    "multiple-of": (lambda: prop(type="number", multipleOf=0.5), lambda: prop(multipleOf=0.5)),
    "array-keyword": (
        lambda: prop(type="array", items={"type": "string"}, uniqueItems=True),
        lambda: prop(type="array", items={"type": "string"}),
    ),
    "pattern-with-length": (
        lambda: prop(type="string", pattern="^a+$", maxLength=3),
        lambda: prop(type="string", maxLength=3),
    ),
    "property-names-conflict": (
        lambda: prop(type="object", properties={"ab": {}}, propertyNames={"pattern": "^a"}),
        lambda: prop(type="object", propertyNames={"pattern": "^a"}),
    ),
    "pattern-properties-several": (
        lambda: prop(type="object", patternProperties={"^a": {}, "^b": {}}),
        lambda: prop(type="object", patternProperties={"^a": {}}),
    ),
    "pattern-properties-with-properties": (
        lambda: prop(type="object", properties={"x": {}}, patternProperties={"^a": {}}),
        lambda: prop(type="object", patternProperties={"^a": {}}),
    ),
    "ignored-keyword": (lambda: prop(type="string", **{"not": {"const": ""}}), lambda: prop(type="string")),
    "nullable": (lambda: prop(type="string", nullable=True), lambda: prop(type=["string", "null"])),
    "implicit-closed-object": (
        lambda: {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        lambda: NAMED,
    ),
    "unanchored-pattern": (lambda: prop(type="string", pattern="a+"), lambda: prop(type="string", pattern="^a+$")),
    "number-bounds": (lambda: prop(type="number", minimum=0), lambda: prop(type="integer", minimum=0)),
    "properties-with-any-of": (
        lambda: prop(type="object", properties={"x": {}}, anyOf=[{"required": ["x"]}]),
        lambda: prop(type="object", properties={"x": {}}),
    ),
    "one-of-as-any-of": (
        lambda: prop(oneOf=[{"type": "string"}, {"type": "integer"}]),
        lambda: prop(anyOf=[{"type": "string"}, {"type": "integer"}]),
    ),
    "nested-ref": (
        lambda: closed(
            {"a": {"$ref": "#/$defs/A"}},
            **{"$defs": {"A": closed({"b": {"$ref": "#/$defs/B"}}), "B": {"type": "string"}}},
        ),
        lambda: closed({"a": {"$ref": "#/$defs/B"}}, **{"$defs": {"B": {"type": "string"}}}),
    ),
    "prefix-items": (
        lambda: prop(type="array", prefixItems=[{"type": "string"}]),
        lambda: prop(type="array", items={"type": "string"}),
    ),
    # unverified constructs (listed with show_unverified only)
    "responses-strict-default": (lambda: tool(NAMED), lambda: tool(NAMED, strict=False)),
    "unique-items": (lambda: prop(type="array", uniqueItems=True), lambda: prop(type="array")),
    "pattern-properties": (lambda: prop(type="object", patternProperties={"^a": {}}), lambda: prop(type="object")),
    "property-names": (lambda: prop(type="object", propertyNames={"maxLength": 3}), lambda: prop(type="object")),
    "property-count": (lambda: prop(type="object", maxProperties=3), lambda: prop(type="object")),
    "examples": (lambda: prop(type="string", examples=["a"]), lambda: prop(type="string", description="e.g. a")),
    "unevaluated-properties": (
        lambda: prop(type="object", unevaluatedProperties=False),
        lambda: prop(type="object", additionalProperties=False),
    ),
    "pattern-quantifier": (
        lambda: prop(type="string", pattern="^a{2,3}$"),
        lambda: prop(type="string", pattern="^aa$"),
    ),
    "composition": (lambda: prop(anyOf=[{"type": "string"}, {"type": "null"}]), lambda: prop(type="string")),
    "ref": (lambda: NOT_RECURSIVE, lambda: NAMED),
    "exclusive-bounds": (lambda: prop(type="number", exclusiveMinimum=0), lambda: prop(type="number")),
    "title": (lambda: prop(type="string", title="A"), lambda: prop(type="string")),
    "all-of-several": (
        lambda: prop(allOf=[{"type": "string"}, {"minLength": 1}]),
        lambda: prop(allOf=[{"type": "string", "minLength": 1}]),
    ),
}
BY_ID: dict[str, Case] = {
    "anthropic-strict/tool-count": (
        lambda: many(21, lambda i: tool(NAMED, name=f"t{i}")),
        lambda: many(20, lambda i: tool(NAMED, name=f"t{i}")),
    ),
    "llama-cpp/unsupported-keyword": (lambda: prop(type="integer", multipleOf=2), lambda: prop(type="integer")),
    # Both report additionalProperties (even false) too, so these cases leave it out.
    "cohere/unsupported-keyword": (lambda: open_prop(type="string", maxLength=3), lambda: open_prop(type="string")),
    "ollama/dropped-keyword": (lambda: open_prop(type="integer", minimum=0), lambda: open_prop(type="integer")),
    "cohere/multiple-of": (lambda: prop(type="number", multipleOf=0.5), lambda: prop(type="number")),
    "llama-cpp/all-of": (lambda: prop(allOf=[{"type": "string"}]), lambda: prop(type="string")),
}


def case_for(rule_id: str) -> Case:
    return BY_ID.get(rule_id) or CASES[rule_id.split("/", 1)[1]]


def as_tools(value: Any) -> Any:
    """Parameters become one tool; tools and definitions pass through (definitions are written to a file)."""
    if isinstance(value, Tool):
        return [value]
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and "name" in value:
        return value
    return [tool(value)]


def lint_case(rule_id: str, value: Any, tmp_path: Path) -> FindingReport:
    tools = as_tools(value)
    if isinstance(tools, dict):
        path = tmp_path / "tools.json"
        path.write_text(json.dumps([tools]), encoding="utf-8")
        tools = [str(path)]
    target = rule_id.split("/", 1)[0]
    return lint_tools(tools, "all" if target == "lint" else target, show_unverified=True)


def resolves(schema: Any, pointer: str) -> bool:
    node = schema
    for token in pointer.split("/")[1:] if pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return True


# --- every rule: a failing and a passing case ------------------------------------------------------------------


@pytest.mark.parametrize("rule", [rule.id for rule in LINT_RULES])
def test_every_rule_has_a_failing_and_a_passing_case(rule: str, tmp_path: Path) -> None:
    failing, passing = case_for(rule)
    failed = [f for f in lint_case(rule, failing(), tmp_path).findings if f.rule == rule]
    assert failed, f"{rule}: the failing case found nothing"
    passed = [f for f in lint_case(rule, passing(), tmp_path).findings if f.rule == rule]
    assert not passed, f"{rule}: the passing case found {[(f.pointer, f.message) for f in passed]}"
    for finding in failed:
        if rule != "lint/not-loadable":
            assert finding.level == EFFECT_LEVELS[finding.effect or ""]
            assert finding.target == rule.split("/")[0] and "(as of 20" in (finding.source or "")
            assert finding.data["as_of"] and not re.search(
                r"{(keyword|value|property|count|limit|name|length)}", finding.message
            )


def test_every_case_belongs_to_a_rule() -> None:
    names = {rule.id.split("/", 1)[1] for rule in LINT_RULES}
    assert set(CASES) <= names, sorted(set(CASES) - names)
    assert set(BY_ID) <= {rule.id for rule in LINT_RULES}


def test_catalogue_matches_the_data_files() -> None:
    ids = [rule.id for rule in LINT_RULES]
    assert len(ids) == len(set(ids))
    expected = {"lint/not-loadable"}
    for target in LINT_TARGETS:
        data = target_rules(target)
        assert data.target == target and data.version and data.description
        expected |= {entry.id for entry in data.entries}
        for rule in data.rules:
            assert rule.source and rule.as_of and rule.effect in ("reject", "ignored", "weakened", "deviation")
        for entry in data.unverified:
            assert entry.construct and entry.why
    assert set(ids) == expected
    levels = {rule.id: rule.level for rule in LINT_RULES}
    assert levels["openai-strict/one-of"] == "error"
    assert levels["openai/constraint-not-enforced"] == "warning"
    assert levels["llama-cpp/nested-ref"] == "warning"
    assert levels["vllm/implicit-closed-object"] == "info"
    assert levels["openai-strict/nullable"] == "info"


# --- unverified cells ------------------------------------------------------------------------------------------


def test_unverified_constructs_only_with_show_unverified() -> None:
    tools = [tool(prop(type="string", nullable=True))]
    hidden = lint_tools(tools, "openai-strict")
    assert not [f for f in hidden.findings if f.pointer == "/properties/a/nullable"]
    shown = lint_tools(tools, "openai-strict", show_unverified=True)
    [finding] = [f for f in shown.findings if f.pointer == "/properties/a/nullable"]
    assert (finding.rule, finding.level, finding.effect) == ("openai-strict/nullable", "info", "unverified")
    assert "No source confirms" in finding.message and finding.data["construct"].startswith("nullable")
    assert shown.exit_code("error") == 0


# --- effects and levels ----------------------------------------------------------------------------------------


def test_effects_map_to_levels() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "pattern": "^(?=a)a$"},  # openai-strict: reject
            "b": {"type": "string", "enum": ["x"]},  # openai: ignored
            "c": {"oneOf": [{"type": "string"}, {"type": "integer"}]},  # vllm: weakened
        },
        "required": ["a", "b", "c"],
    }  # no additionalProperties: vllm and llama-cpp deviate (closed); with nullable-free types, cohere unverified
    report = lint_tools([tool(schema)], "all", show_unverified=True)
    effects = {(f.effect, f.level) for f in report.findings if f.effect}
    assert {
        ("reject", "error"),
        ("ignored", "warning"),
        ("weakened", "warning"),
        ("deviation", "info"),
        ("unverified", "info"),
    } <= effects
    assert all(f.level == EFFECT_LEVELS[f.effect] for f in report.findings if f.effect)
    ignored = [f for f in report.findings if f.effect in ("ignored", "weakened")]
    assert ignored and all("handler" in f.message for f in ignored)
    assert report.exit_code("error") == 1


# --- pointers and $ref ----------------------------------------------------------------------------------------


def test_pointers_are_exact_and_escaped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a/b~c": {"type": "string", "default": "x"},
            "list": {"type": "array", "items": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}]}},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"oneOf": [{"type": "integer"}]}]},
        },
        "required": ["a/b~c", "list", "tuple"],
        "additionalProperties": False,
    }
    report = lint_tools([tool(schema)], "openai-strict")
    pointers = {(f.rule, f.pointer) for f in report.findings}
    assert ("openai-strict/default", "/properties/a~1b~0c/default") in pointers
    assert ("openai-strict/format", "/properties/list/items/anyOf/0/format") in pointers
    assert ("openai-strict/one-of", "/properties/tuple/prefixItems/1/oneOf") in pointers
    assert all(resolves(schema, f.pointer) for f in report.findings)
    root = lint_tools([tool({"properties": {"a": {}}})], "openai")
    assert [(f.rule, f.pointer) for f in root.findings] == [("openai/root-not-object", "")]
    typed = lint_tools([tool({"type": ["object", "null"], "properties": {}})], "openai")
    assert [(f.rule, f.pointer) for f in typed.findings] == [("openai/root-not-object", "/type")]


def test_ref_cycles_terminate_and_name_each_recursive_reference() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "self": {"$ref": "#"}, "leaf": {"$ref": "#/$defs/Leaf"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "leaf": {"$ref": "#/$defs/Leaf"}}},
            "Leaf": {"type": "string"},
        },
    }
    facts = SchemaFacts(schema)
    assert facts.recursive_refs == {
        "/properties/self/$ref",  # the root refers to itself
        "/$defs/A/properties/b/$ref",  # A -> B -> A
        "/$defs/B/properties/a/$ref",
    }
    assert facts.depth == (3, "/$defs/B")  # root > A > B, then the cycle adds nothing
    report = lint_tools([tool(schema)], "anthropic-strict")
    assert sorted(f.pointer for f in report.findings if f.rule == "anthropic-strict/recursion") == sorted(
        facts.recursive_refs
    )


def test_depth_follows_refs_and_reports_the_deepest_object() -> None:
    chain = {f"L{i}": {"type": "object", "properties": {"next": {"$ref": f"#/$defs/L{i + 1}"}}} for i in range(10)}
    chain["L10"] = {"type": "object", "properties": {}}
    schema = {"type": "object", "properties": {"start": {"$ref": "#/$defs/L0"}}, "$defs": chain}
    assert SchemaFacts(schema).depth == (12, "/$defs/L10")
    [finding] = [f for f in lint_tools([tool(schema)], "openai-strict").findings if f.rule == "openai-strict/depth"]
    assert finding.pointer == "/$defs/L10" and finding.data["count"] == 12 and finding.data["limit"] == 10


@pytest.mark.parametrize(
    ("pattern", "features"),
    [
        ("^[a-z]+$", {"anchor"}),
        ("(?=a)b", {"lookaround", "lookahead"}),
        ("(?<!a)b", {"lookaround"}),
        ("(a)\\1", {"backreference"}),
        ("(?P<x>a)(?P=x)", {"backreference"}),
        ("\\bword\\b", {"word-boundary"}),
        ("[\\b^$]", set()),  # inside a class: backspace and literals
        ("\\\\b\\$", set()),  # an escaped backslash, then b; an escaped dollar
        ("a{2,3}", {"bounded-quantifier"}),
        ("[]a]{2}", {"bounded-quantifier"}),
    ],
)
def test_regex_features(pattern: str, features: set[str]) -> None:
    assert regex_features(pattern) == features


# --- the matrix ------------------------------------------------------------------------------------------------


def test_matrix_has_the_worst_effect_per_tool_and_target(tmp_path: Path) -> None:
    clean = tool(NAMED, name="clean")
    loose = tool(prop(type="string", enum=["x"], nullable=True), name="loose")
    file = tmp_path / "broken.json"
    file.write_text(json.dumps([{"name": "broken", "parameters": {"type": "string"}}]), encoding="utf-8")
    tools = [clean, loose, *load_tools([file])]
    report = lint_tools(tools, "openai-strict,openai,vllm")
    rows = {row["tool"]: row["cells"] for row in report.extra["matrix"]["rows"]}
    assert report.extra["matrix"]["targets"] == ["openai-strict", "openai", "vllm"]
    assert rows["clean"] == {"openai-strict": "ok", "openai": "ok", "vllm": "ok"}
    assert rows["loose"] == {"openai-strict": "ok", "openai": "ignored", "vllm": "ignored"}
    assert rows["broken"] == dict.fromkeys(["openai-strict", "openai", "vllm"], "not-loadable")
    [broken] = [f for f in report.findings if f.rule == "lint/not-loadable"]
    assert broken.level == "error" and "top-level type 'string'" in broken.message
    shown = lint_tools([loose], "openai-strict,gemini", show_unverified=True)
    assert shown.extra["matrix"]["rows"][0]["cells"] == {"openai-strict": "unverified", "gemini": "ignored"}
    assert "matrix" not in lint_tools([clean], "openai").extra


def test_matrix_request_row_for_request_wide_limits() -> None:
    tools = many(21, lambda i: tool(NAMED, name=f"t{i}"))
    report = lint_tools(tools, ["anthropic-strict", "openai-strict"])
    request = [row for row in report.extra["matrix"]["rows"] if row["tool"] == REQUEST_ROW]
    assert request == [
        {"tool": REQUEST_ROW, "origin": None, "cells": {"anthropic-strict": "reject", "openai-strict": "ok"}}
    ]
    [finding] = [f for f in report.findings if f.rule == "anthropic-strict/tool-count"]
    assert finding.tool is None and finding.data["count"] == 21 and finding.data["limit"] == 20
    text = render_matrix(report.extra["matrix"], "text").splitlines()
    assert text[0].split() == ["tool", "anthropic-strict", "openai-strict"] and text[-1].split()[-2:] == [
        "reject",
        "ok",
    ]
    markdown = render_matrix(report.extra["matrix"], "markdown")
    assert "| tool | anthropic-strict | openai-strict |" in markdown and "| (all tools) | reject | ok |" in markdown


# --- inputs and targets ----------------------------------------------------------------------------------------


def test_targets_resolve_all_lists_and_reject_unknown_names() -> None:
    assert resolve_targets("all") == LINT_TARGETS
    assert resolve_targets("gemini, openai,gemini") == ("gemini", "openai")
    assert resolve_targets(["vllm", "ollama,vllm"]) == ("vllm", "ollama")
    with pytest.raises(ValueError, match=r"unknown lint target 'gpt'; known: openai, openai-strict, .*llama-cpp"):
        lint_tools([tool(NAMED)], "openai,gpt")
    with pytest.raises(ValueError, match=r"unknown lint target 'gemnii' \(did you mean 'gemini'\?\); known: openai"):
        resolve_targets("gemnii")
    with pytest.raises(ValueError, match="no lint target"):
        resolve_targets([])
    with pytest.raises(TypeError, match="lint_tools: a int is not a tool source"):
        lint_tools([42], "openai")


def test_sources_of_every_kind(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text("- name: a\n  parameters: {type: object, properties: {x: {type: string, enum: [y]}}}\n")
    registry = ToolRegistry.load([{"name": "b", "parameters": prop(type="string", enum=["y"])}])
    for given in (path, str(path), [tool(prop(type="string", enum=["y"]), name="a")], registry):
        report = lint_tools(given, "openai")
        assert [f.rule for f in report.findings] == ["openai/constraint-not-enforced"]
        assert report.subjects in (("a",), ("b",))
    server_tools = tmp_path / "server.json"
    server_tools.write_text(json.dumps([{"type": "web_search_20250305", "name": "web_search"}]), encoding="utf-8")
    assert lint_tools(server_tools, "openai") == FindingReport("lint", (), (), {"targets": ["openai"]})


# --- data files: format errors name the file, the rule and the field ------------------------------------------


GOOD_RULE = {
    "id": "demo/x",
    "effect": "reject",
    "match": {"keyword": "oneOf"},
    "message": "m",
    "source": "s",
    "as_of": "2026-01-01",
}


def document(**changes: Any) -> dict[str, Any]:
    return {"target": "demo", "version": "2026-01-01", "description": "d", "rules": [{**GOOD_RULE, **changes}]}


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        (document(effect="explode"), r"demo.yaml: rule demo/x: 'effect' must be one of reject, ignored"),
        (document(id="other/x"), r"rules\[0\]: id 'other/x' must be 'demo/' followed by a kebab-case name"),
        (document(match={"keyword": "oneOf", "colour": 1}), r"rule demo/x: match: unknown qualifier\(s\) \['colour'\]"),
        (document(match={"object": "round"}), r"rule demo/x: match.object: unknown condition 'round'"),
        (document(match={"keyword": "a", "object": "no-required"}), r"'match' needs exactly one of"),
        (document(match={"budget": "depth", "max": 3, "scope": "request"}), r"'depth' is not a request measure"),
        (document(match={"keyword": "pattern", "value": {"regex-feature": ["magic"]}}), r"unknown \['magic'\]"),
        (document(match={"tool": {"name-not": "("}}), r"name-not is not a valid regular expression"),
        (document(message="uses {nope}"), r"unknown placeholder\(s\) \['nope'\]"),
        (document(effect="ignored"), r"an ignored rule's message must say that the handler has to re-validate"),
        (document(as_of="last year"), r"'as_of' must be a date written YYYY-MM-DD"),
        (document(source=""), r"'source' must be a non-empty string"),
        (
            document(match={"unknown-keyword": {"allowed": ["type"], "skip": ["const"]}}),
            r"skip names \['const'\], which no other entry",
        ),
        ({**document(), "rules": [GOOD_RULE, GOOD_RULE]}, r"id 'demo/x' is used twice"),
        ({**document(), "target": "other"}, r"target is 'other', but the file is named for 'demo'"),
    ],
)
def test_data_file_errors_name_the_file_rule_and_field(doc: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        read_target_rules(doc, "demo.yaml", "demo")


def test_data_file_yaml_errors() -> None:
    with pytest.raises(ValueError, match=r"x.yaml: invalid YAML"):
        parse_rules_yaml("rules: [", "x.yaml")
    parsed = parse_rules_yaml(
        "target: demo\nversion: 2026-01-01\ndescription: d\nrules:\n"
        "  - {id: demo/x, effect: reject, match: {keyword: oneOf}, message: m, source: s, as_of: 2026-01-01}\n",
        "x.yaml",
    )
    assert parsed.version == "2026-01-01" and parsed.rules[0].as_of == "2026-01-01"


# --- the command ------------------------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    return build_parser(["lint"]).parse_args(["lint", *argv])


@pytest.fixture
def command(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str]], tuple[int, str]]:
    def invoke(argv: list[str]) -> tuple[int, str]:
        capsys.readouterr()
        status = run(parse(argv))
        return status, capsys.readouterr().out

    return invoke


Command = Callable[[list[str]], tuple[int, str]]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps([{"name": "clean", "description": "d", "parameters": NAMED}]), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"name": "bad", "parameters": prop(oneOf=[{"type": "string"}])}]), encoding="utf-8")
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.toolwire]\ntargets = ["openai-strict"]\n', encoding="utf-8")
    return {"clean": clean, "bad": bad, "config": config}


def test_command_exit_status_follows_rejects(files: dict[str, Path], command: Command) -> None:
    assert command([str(files["clean"]), "--target", "openai-strict"])[0] == 0
    status, out = command([str(files["bad"]), "--target", "openai-strict"])
    assert status == 1 and "openai-strict/one-of" in out and "/properties/a/oneOf" in out
    assert command([str(files["bad"]), "--target", "openai-strict", "--fail-on", "never"])[0] == 0
    assert command([str(files["bad"]), "--target", "openai", "--fail-on", "warning"])[0] == 0


def test_command_targets_default_from_the_config_and_unknown_ones_are_usage_errors(
    files: dict[str, Path], command: Command
) -> None:
    status, out = command([str(files["bad"]), "--config", str(files["config"]), "--output-format", "json"])
    assert status == 1 and json.loads(out)["targets"] == ["openai-strict"]
    with pytest.raises(ValueError, match="unknown lint target 'gpt-5'; known: openai"):
        command([str(files["bad"]), "--target", "gpt-5"])
    empty = files["config"].with_name("empty.toml")
    empty.write_text("[tool.toolwire]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no lint target: pass --target"):
        command([str(files["bad"]), "--config", str(empty)])


def test_command_rule_levels_from_the_config_reach_the_matrix(files: dict[str, Path], command: Command) -> None:
    files["config"].write_text(
        '[tool.toolwire]\n[tool.toolwire.rules]\n"openai-strict/one-of" = "off"\n', encoding="utf-8"
    )
    argv = [
        str(files["bad"]),
        "--config",
        str(files["config"]),
        "--target",
        "openai-strict,gemini",
        "--output-format",
        "json",
    ]
    status, out = command(argv)
    data = json.loads(out)
    assert data["matrix"]["rows"][0]["cells"] == {"openai-strict": "ok", "gemini": "reject"}
    assert status == 1 and {f["rule"] for f in data["findings"]} == {"gemini/one-of"}


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "github", "junit"])
def test_command_every_output_format(files: dict[str, Path], fmt: str, command: Command) -> None:
    status, out = command([str(files["bad"]), str(files["clean"]), "--target", "all", "--output-format", fmt])
    assert status == 1
    if fmt == "text":
        assert out.index("openai-strict") < out.index("openai-strict/one-of")  # the matrix comes first
        assert out.splitlines()[0].split()[:3] == ["tool", "openai", "openai-strict"]
    elif fmt == "markdown":
        assert out.startswith("#### tool x target") and "| bad | " in out and "`openai-strict/one-of`" in out
    elif fmt == "json":
        data = json.loads(out)
        assert data["command"] == "lint" and data["ok"] is False
        assert {row["tool"] for row in data["matrix"]["rows"]} == {"bad", "clean"}
        [finding] = [f for f in data["findings"] if f["rule"] == "openai-strict/one-of"]
        assert finding["effect"] == "reject" and finding["pointer"] == "/properties/a/oneOf"
        assert finding["source"].endswith("(as of 2026-09-30)")
    elif fmt == "github":
        assert "::error file=" in out and "title=openai-strict/one-of::" in out and "#### tool" not in out
    else:
        suite = ElementTree.fromstring(out.split("\n", 1)[1]).find("testsuite")
        assert suite is not None and suite.get("name") == "toolwire.lint" and suite.get("failures") == "1"
