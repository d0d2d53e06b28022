"""``validate_result``: a tool result's shape (the MCP specification's ``CallToolResult``) and its structured content
against the tool's ``outputSchema`` (issue 19, part 2).

Every expectation is derived by hand from the specification's shapes and the schema below, never by running an
implementation; the core and the reference must give the same violations (codes, paths, data and messages).
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
import toolwire.reference
from toolwire import SchemaError, ToolRegistry, ViolationCode

APIS = pytest.mark.parametrize("api", [toolwire, toolwire.reference], ids=["core", "reference"])

FORECAST = {
    "name": "forecast",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "outputSchema": {
        "type": "object",
        "properties": {
            "celsius": {"type": "number"},
            "sky": {"enum": ["clear", "cloudy"]},
            "hours": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        },
        "required": ["celsius"],
        "additionalProperties": False,
    },
}
SEARCH = {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
TOOLS = ToolRegistry([FORECAST, SEARCH])
PNG = base64.b64encode(b"\x89PNG\r\n").decode()


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def found(violations: list[toolwire.Violation]) -> list[tuple[str, str | None]]:
    return [(violation.code.value, violation.path) for violation in violations]


@APIS
def test_a_result_that_keeps_the_contract_has_no_violation(api: Any) -> None:
    result = {"content": [text('{"celsius": 21.5}')], "structuredContent": {"celsius": 21.5, "hours": [0, 3]}}
    assert api.validate_result("forecast", result, TOOLS) == []
    # A tool without an output schema may answer with content alone, or with structured content of any shape.
    assert api.validate_result("search", {"content": []}, TOOLS) == []
    assert api.validate_result("search", {"content": [], "structuredContent": {"any": 1}}, TOOLS) == []


@APIS
def test_structured_content_is_checked_with_the_validator_of_arguments_at_pointers_into_the_result(api: Any) -> None:
    result = {"content": [], "structuredContent": {"celsius": "warm", "sky": "red", "hours": [1, -2], "wind": 3}}
    violations = api.validate_result("forecast", result, TOOLS)
    assert found(violations) == [
        ("TYPE_MISMATCH", "/structuredContent/celsius"),
        ("CONSTRAINT_VIOLATION", "/structuredContent/hours/1"),
        ("ENUM_OUT_OF_RANGE", "/structuredContent/sky"),
        ("UNEXPECTED_ARGUMENT", "/structuredContent/wind"),
    ]
    assert violations[0].data == {"expected": ["number"]}
    assert violations[1].data == {"keyword": "minimum", "limit": 0}
    assert violations[2].data == {"allowed": ["clear", "cloudy"]}
    assert str(violations[0]) == "TYPE_MISMATCH at /structuredContent/celsius: expected number, got string"
    # The same schema given as a tool's parameters finds the same problems at the same places below the root.
    same = api.validate("check", json.dumps(result["structuredContent"]), {"check": FORECAST["outputSchema"]})
    assert [(v.code, "/structuredContent" + (v.path or "")) for v in same] == [(v.code, v.path) for v in violations]


@APIS
def test_a_tool_with_an_output_schema_must_answer_structured_content(api: Any) -> None:
    (missing,) = api.validate_result("forecast", {"content": [text("21.5")]}, TOOLS)
    assert (missing.code, missing.path, missing.severity.value, missing.recoverable) == (
        ViolationCode.MISSING_STRUCTURED_CONTENT,
        "/structuredContent",
        "error",
        False,
    )
    assert api.validate_result("forecast", {"content": [], "structuredContent": None}, TOOLS) == [missing]
    (not_object,) = api.validate_result("forecast", {"content": [], "structuredContent": [21.5]}, TOOLS)
    assert (not_object.code, not_object.path, not_object.data) == (
        ViolationCode.TYPE_MISMATCH,
        "/structuredContent",
        {"expected": ["object"]},
    )


@APIS
def test_an_error_result_or_one_not_final_is_checked_for_its_shape_only(api: Any) -> None:
    assert api.validate_result("forecast", {"content": [text("no such city")], "isError": True}, TOOLS) == []
    wrong = {"content": [], "isError": True, "structuredContent": {"celsius": "?"}}
    assert api.validate_result("forecast", wrong, TOOLS) == []
    asks = {"resultType": "input_required", "inputRequests": {}}
    assert api.validate_result("forecast", asks, TOOLS) == []
    complete = {"resultType": "complete", "content": []}
    assert found(api.validate_result("forecast", complete, TOOLS)) == [
        ("MISSING_STRUCTURED_CONTENT", "/structuredContent")
    ]


@APIS
def test_every_shape_problem_is_named_at_its_member_in_the_order_written(api: Any) -> None:
    result = {
        "content": [
            text("fine"),
            {"type": "text"},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "audio", "data": PNG},
            {"type": "video", "url": "x"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": 3},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "a", "blob": PNG}},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "%%"}},
            {"type": "resource", "resource": "file:///c"},
            "just text",
        ],
        "isError": "no",
        "_meta": [],
    }
    assert found(api.validate_result("search", result, TOOLS)) == [
        ("MALFORMED_RESULT", "/content/1/text"),
        ("MALFORMED_RESULT", "/content/2/data"),
        ("MALFORMED_RESULT", "/content/3/mimeType"),
        ("MALFORMED_RESULT", "/content/4/type"),
        ("MALFORMED_RESULT", "/content/5/name"),
        ("MALFORMED_RESULT", "/content/6/resource"),
        ("MALFORMED_RESULT", "/content/7/resource/blob"),
        ("MALFORMED_RESULT", "/content/8/resource"),
        ("MALFORMED_RESULT", "/content/9"),
        ("MALFORMED_RESULT", "/isError"),
        ("MALFORMED_RESULT", "/_meta"),
    ]
    good = [
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {"type": "audio", "data": "", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "a"}},
        {"type": "resource", "resource": {"uri": "file:///b", "blob": PNG, "mimeType": "image/png"}},
    ]
    assert api.validate_result("search", {"content": good, "isError": False}, TOOLS) == []


@APIS
def test_what_is_no_result_is_one_violation_at_the_root(api: Any) -> None:
    assert found(api.validate_result("search", {"structuredContent": {}}, TOOLS)) == [("MALFORMED_RESULT", "/content")]
    assert found(api.validate_result("search", {"content": "hi"}, TOOLS)) == [("MALFORMED_RESULT", "/content")]
    assert found(api.validate_result("search", [text("hi")], TOOLS)) == [("MALFORMED_RESULT", "")]
    assert found(api.validate_result("search", None, TOOLS)) == [("MALFORMED_RESULT", "")]
    wrapped = {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}
    (rpc,) = api.validate_result("forecast", wrapped, TOOLS)
    assert (rpc.path, rpc.message) == ("", "a JSON-RPC message, not a tool result: pass its 'result' member")
    assert found(api.validate_result("search", "{not json", TOOLS)) == [("MALFORMED_RESULT", "")]
    nan = '{"content": [], "structuredContent": {"celsius": NaN}}'
    assert found(api.validate_result("forecast", nan, TOOLS)) == [("MALFORMED_RESULT", "")]
    assert found(
        api.validate_result("forecast", {"content": [], "structuredContent": {"celsius": float("nan")}}, TOOLS)
    ) == [("MALFORMED_RESULT", "/structuredContent")]


@APIS
def test_json_text_and_sdk_objects_are_read_as_the_mapping_they_spell(api: Any) -> None:
    result = {"content": [text("x")], "structuredContent": {"celsius": "21"}}
    expected = api.validate_result("forecast", result, TOOLS)
    assert found(expected) == [("TYPE_MISMATCH", "/structuredContent/celsius")]
    assert api.validate_result("forecast", json.dumps(result), TOOLS) == expected
    assert api.validate_result("forecast", json.dumps(result).encode(), TOOLS) == expected
    mcp_types = pytest.importorskip("mcp_types")
    sdk = mcp_types.CallToolResult(content=[mcp_types.TextContent(text="x")], structured_content={"celsius": "21"})
    assert api.validate_result("forecast", sdk, TOOLS) == expected


@APIS
def test_an_unknown_tool_is_named_after_the_shape_and_nothing_else_is_checked(api: Any) -> None:
    violations = api.validate_result("forcast", {"content": 1}, TOOLS)
    assert found(violations) == [("MALFORMED_RESULT", "/content"), ("UNKNOWN_TOOL", None)]
    assert violations[1].data == {"available": ["forecast", "search"], "closest": "forecast"}
    server = ToolRegistry([FORECAST, {"type": "web_search_20250305", "name": "web_search"}])
    assert api.validate_result("web_search", {"content": []}, server) == []


@APIS
def test_limits_bound_the_structured_content_as_they_bound_arguments(api: Any) -> None:
    deep: Any = 0
    for _ in range(20):
        deep = [deep]
    shallow = toolwire.Limits(max_depth=16)
    result = {"content": [], "structuredContent": {"celsius": deep}}
    assert found(api.validate_result("forecast", result, TOOLS, limits=shallow)) == [("TOO_DEEP", "/structuredContent")]
    assert found(api.validate_result("forecast", result, TOOLS)) == [("TYPE_MISMATCH", "/structuredContent/celsius")]
    many = {"content": [], "structuredContent": {"celsius": 1, "hours": list(range(-50, 0))}}
    limited = api.validate_result("forecast", many, TOOLS, limits=toolwire.Limits(max_validation_steps=10))
    assert found(limited) == [("VALIDATION_BUDGET_EXCEEDED", "/structuredContent")]


@APIS
def test_a_broken_output_schema_is_named_as_the_output_schema(api: Any) -> None:
    pattern = {**FORECAST, "outputSchema": {"type": "object", "properties": {"s": {"pattern": "(?=a)"}}}}
    registry = ToolRegistry([pattern])  # the input schema compiles: the tool's calls can still be checked
    assert api.validate("forecast", {"city": "Oslo"}, registry) == []
    with pytest.raises(SchemaError) as raised:
        api.validate_result("forecast", {"content": [], "structuredContent": {"s": "a"}}, registry)
    assert (raised.value.tool, raised.value.pointer, raised.value.schema) == (
        "forecast",
        "/properties/s/pattern",
        "outputSchema",
    )
    assert str(raised.value).startswith(
        "the outputSchema schema of tool 'forecast' is invalid at /properties/s/pattern"
    )
    array = ToolRegistry([{**FORECAST, "outputSchema": {"type": "array"}}])
    with pytest.raises(ValueError, match="outputSchema has the top-level type 'array'"):
        api.validate_result("forecast", {"content": [], "structuredContent": {}}, array)
    listed = ToolRegistry([{**FORECAST, "outputSchema": ["type", "object"]}])
    with pytest.raises(TypeError, match="outputSchema must be a JSON Schema object"):
        api.validate_result("forecast", {"content": [], "structuredContent": {}}, listed)


@APIS
def test_what_is_no_result_object_at_all_is_a_type_error(api: Any) -> None:
    with pytest.raises(TypeError, match="the tool name must be a str"):
        api.validate_result(3, {"content": []}, TOOLS)
    with pytest.raises(TypeError, match="a result is an mcp CallToolResult"):
        api.validate_result("search", object(), TOOLS)
    with pytest.raises(TypeError, match="structuredContent is not JSON data"):
        api.validate_result("forecast", {"content": [], "structuredContent": {"at": object()}}, TOOLS)


def test_output_schemas_are_compiled_once_per_registry() -> None:
    registry = ToolRegistry([FORECAST])
    assert registry._outputs() is registry._outputs()
    assert registry._outputs().names == ("forecast",)
    assert TOOLS["forecast"].output_schema == FORECAST["outputSchema"]
    assert TOOLS["search"].output_schema is None


def test_the_core_and_the_reference_give_the_same_messages() -> None:
    cases = [
        {"content": [], "structuredContent": {"celsius": "warm", "sky": "red", "hours": [1, -2], "wind": 3}},
        {"content": [{"type": "image", "data": "!"}, {"type": "resource", "resource": {}}], "isError": 1},
        {"content": [text("21.5")]},
    ]
    for result in cases:
        core = toolwire.validate_result("forecast", result, TOOLS)
        reference = toolwire.reference.validate_result("forecast", result, TOOLS)
        assert [(v.code, v.path, v.data, v.message) for v in core] == [
            (v.code, v.path, v.data, v.message) for v in reference
        ]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-10, 10, allow_nan=False)
    | st.sampled_from(["clear", "x"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["celsius", "sky", "hours", "w"]), inner),
    max_leaves=8,
)
BLOCKS = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "resource_link", "resource", "video"])},
    optional={
        "text": JSON_VALUES,
        "data": st.sampled_from([PNG, "%%", ""]),
        "mimeType": st.sampled_from(["image/png", 3]),
        "uri": st.just("file:///a"),
        "name": JSON_VALUES,
        "resource": st.dictionaries(st.sampled_from(["uri", "text", "blob"]), st.sampled_from(["a", PNG, 1])),
    },
)
RESULTS = st.fixed_dictionaries(
    {},
    optional={
        "content": st.lists(BLOCKS | JSON_VALUES, max_size=3) | JSON_VALUES,
        "structuredContent": st.dictionaries(st.sampled_from(["celsius", "sky", "hours", "w"]), JSON_VALUES)
        | JSON_VALUES,
        "isError": st.sampled_from([True, False, None, "yes"]),
        "resultType": st.sampled_from(["complete", "input_required", 1]),
    },
)


@given(result=RESULTS | JSON_VALUES, name=st.sampled_from(["forecast", "search", "nope"]))
def test_the_core_and_the_reference_agree_on_any_result(result: Any, name: str) -> None:
    core = toolwire.validate_result(name, result, TOOLS)
    reference = toolwire.reference.validate_result(name, result, TOOLS)
    assert [(v.code, v.path, v.data) for v in core] == [(v.code, v.path, v.data) for v in reference]
    # What the rules say whatever the result: the shape first, then the tool, then the structured content.
    found = [(violation.code.value, violation.path) for violation in core]
    unknown = [("UNKNOWN_TOOL", None)] if name == "nope" else []
    if not isinstance(result, dict):
        assert found == [("MALFORMED_RESULT", ""), *unknown]
    elif isinstance(result.get("resultType"), str) and result["resultType"] != "complete":
        assert found == unknown
    else:
        assert (("MALFORMED_RESULT", "/content") in found) == (not isinstance(result.get("content"), list))
        shape = [code == "MALFORMED_RESULT" for code, _ in found]
        assert shape == sorted(shape, reverse=True)
        checked = name == "forecast" and result.get("isError") is not True
        assert any(path and path.startswith("/structuredContent") for _, path in found) <= checked
