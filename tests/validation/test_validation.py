"""Calls checked against the declared tools: in streams, through ``validate``/``validate_many``, with ``repair``.

Every test runs on the Rust core and on the reference; both must give the same calls and violation keys.
"""

from __future__ import annotations

import gc
import json
import threading
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from toolwire import InvalidToolCall, SchemaError, ToolCall, ToolRegistry, Violation, ViolationCode

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "unit": {"enum": ["c", "f"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}},
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}},
]


def opening(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    call = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def finish(reason: str = "tool_calls") -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


def stream_of(*calls: tuple[str, str, str]) -> list[dict[str, Any]]:
    return [*(opening(i, call_id, name, args) for i, (call_id, name, args) in enumerate(calls)), finish()]


def codes(violations: tuple[Violation, ...] | list[Violation]) -> list[tuple[str, str | None]]:
    return [(v.code.value, v.path) for v in violations]


# ------------------------------------------------------------------------------------------------------ in streams


def test_each_call_is_checked_with_codes_and_pointers(implementation: ModuleType) -> None:
    chunks = stream_of(
        ("a", "get_weather", '{"city": "Paris", "days": "3"}'),
        ("b", "get_wether", "{}"),
        ("c", "get_weather", '{"city": "", "days": 9, "unit": "k", "extra": true}'),
        ("d", "get_weather", '{"city": "Oslo", "days": 2}'),
        ("e", "get_time", ""),
    )
    stream = implementation.reassemble(chunks, tools=TOOLS, on_invalid="yield")
    calls = list(stream)
    assert [call.ok for call in calls] == [False, False, False, True, True]
    assert codes(calls[0].errors) == [("TYPE_MISMATCH", "/days")]
    assert calls[0].errors[0].data == {"expected": ["integer"]}
    assert calls[0].errors[0].recoverable
    assert codes(calls[1].errors) == [("UNKNOWN_TOOL", None)]
    assert calls[1].errors[0].data == {"available": ["get_weather", "get_time"], "closest": "get_weather"}
    assert codes(calls[2].errors) == [
        ("CONSTRAINT_VIOLATION", "/city"),
        ("CONSTRAINT_VIOLATION", "/days"),
        ("UNEXPECTED_ARGUMENT", "/extra"),
        ("ENUM_OUT_OF_RANGE", "/unit"),
    ]
    assert [v.data for v in calls[2].errors] == [
        {"keyword": "minLength", "limit": 1},
        {"keyword": "maximum", "limit": 7},
        None,
        {"allowed": ["c", "f"]},
    ]
    assert all((v.choice, v.seq, v.index) == (0, 2, 2) for v in calls[2].errors)
    assert calls[3].tool_fingerprint == ToolRegistry(TOOLS)["get_weather"].fingerprint
    assert calls[4].arguments == {}
    assert stream.result.calls == (calls[3], calls[4])


def test_invalid_calls_keep_their_fingerprint_and_unknown_ones_have_none(implementation: ModuleType) -> None:
    chunks = stream_of(("a", "get_weather", '{"days": 1}'), ("b", "nope", "{}"))
    calls = list(implementation.reassemble(chunks, tools=TOOLS, on_invalid="yield"))
    assert calls[0].tool_fingerprint == ToolRegistry(TOOLS)["get_weather"].fingerprint
    assert calls[1].tool_fingerprint is None


def test_without_tools_nothing_is_checked_and_an_empty_registry_declares_nothing(implementation: ModuleType) -> None:
    chunks = stream_of(("a", "anything", '{"x": 1}'))
    (call,) = implementation.reassemble(chunks)
    assert call.ok and call.tool_fingerprint is None
    (call,) = implementation.reassemble(chunks, tools=[], on_invalid="yield")
    assert codes(call.errors) == [("UNKNOWN_TOOL", None)]
    assert call.errors[0].message.endswith("no tools are declared")


def test_server_tools_are_declared_and_not_checked(implementation: ModuleType) -> None:
    tools = [*TOOLS, {"type": "web_search_20250305", "name": "web_search"}]
    chunks = stream_of(("a", "web_search", '{"query": 1}'))
    (call,) = implementation.reassemble(chunks, tools=tools)
    assert call.ok and call.tool_fingerprint is None


def test_an_invalid_call_raises_under_the_default_policy(implementation: ModuleType) -> None:
    chunks = stream_of(("a", "get_weather", '{"city": "Paris"}'), ("b", "get_weather", '{"city": 3}'))
    stream = implementation.reassemble(chunks, tools=ToolRegistry(TOOLS))
    assert next(stream).id == "a"
    with pytest.raises(toolwire.InvalidToolCallError) as raised:
        next(stream)
    assert codes(raised.value.violations) == [("TYPE_MISMATCH", "/city")]


def test_arguments_that_are_not_an_object_or_not_json_are_not_checked_again(implementation: ModuleType) -> None:
    chunks = stream_of(("a", "get_weather", "[1]"), ("b", "get_weather", '{"city": nul}'), ("c", "nope", "{,"))
    calls = list(implementation.reassemble(chunks, tools=TOOLS, on_invalid="yield"))
    assert [codes(call.errors) for call in calls] == [
        [("ARGUMENTS_NOT_OBJECT", None)],
        [("INVALID_JSON", None)],
        [("INVALID_JSON", None), ("UNKNOWN_TOOL", None)],
    ]


def test_on_violation_sees_schema_violations_as_they_are_found(implementation: ModuleType) -> None:
    seen: list[Violation] = []
    chunks = stream_of(("a", "get_weather", '{"city": 1}'), ("b", "nope", "{}"))
    list(implementation.reassemble(chunks, tools=TOOLS, on_invalid="yield", on_violation=seen.append))
    assert [(v.code.value, v.seq) for v in seen] == [("TYPE_MISMATCH", 0), ("UNKNOWN_TOOL", 1)]


def test_a_schema_that_does_not_compile_is_a_schema_error_naming_tool_and_pointer(implementation: ModuleType) -> None:
    bad = {"bad": {"type": "object", "properties": {"x": {"type": "integr"}}}}
    with pytest.raises(SchemaError) as raised:
        implementation.validate("bad", "{}", bad)
    assert (raised.value.tool, raised.value.pointer) == ("bad", "/properties/x/type")
    dangling = {"t": {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}}
    with pytest.raises(SchemaError) as raised:
        implementation.validate("t", "{}", dangling)
    assert (raised.value.tool, raised.value.pointer) == ("t", "/properties/x/$ref")
    remote = {"t": {"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}}
    with pytest.raises(SchemaError, match="t"):
        implementation.validate("t", "{}", remote)


def test_the_registry_compiles_at_construction() -> None:
    with pytest.raises(SchemaError, match="'bad'"):
        ToolRegistry({"bad": {"type": "object", "properties": {"x": {"minimum": "1"}}}})


# ------------------------------------------------------------------------------------------- outside a stream


def test_validate_takes_text_bytes_or_values(implementation: ModuleType) -> None:
    registry = ToolRegistry(TOOLS)
    assert implementation.validate("get_weather", '{"city": "Paris"}', registry) == []
    assert implementation.validate("get_weather", b'{"city": "Paris"}', registry) == []
    assert implementation.validate("get_weather", {"city": "Paris", "days": 2}, registry) == []
    assert codes(implementation.validate("get_weather", {"city": 1}, registry)) == [("TYPE_MISMATCH", "/city")]
    assert codes(implementation.validate("get_time", None, registry)) == [("EMPTY_ARGUMENTS", None)]
    assert codes(implementation.validate("get_weather", "", registry)) == [
        ("EMPTY_ARGUMENTS", None),
        ("MISSING_REQUIRED_ARGUMENT", "/city"),
    ]
    assert codes(implementation.validate("get_weather", "[]", registry)) == [("ARGUMENTS_NOT_OBJECT", None)]
    assert codes(implementation.validate("get_weather", '{"city": "\\ud800"}', registry)) == [("INVALID_JSON", None)]
    assert codes(implementation.validate("nope", "{", registry)) == [("INVALID_JSON", None), ("UNKNOWN_TOOL", None)]
    assert codes(implementation.validate("nope", "", registry)) == [("EMPTY_ARGUMENTS", None), ("UNKNOWN_TOOL", None)]
    with pytest.raises(TypeError, match="JSON-compatible"):
        implementation.validate("get_weather", {"city": object()}, registry)
    with pytest.raises(TypeError, match="tool name must be a str"):
        implementation.validate(3, "{}", registry)


def test_validate_judges_exact_types_without_coercion(implementation: ModuleType) -> None:
    tools = {"t": {"type": "object", "properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}}}}
    assert codes(implementation.validate("t", '{"n": "3"}', tools)) == [("TYPE_MISMATCH", "/n")]
    assert implementation.validate("t", '{"n": 1.0}', tools) == [], "1.0 is an integer in JSON Schema"
    assert codes(implementation.validate("t", '{"n": 1.5}', tools)) == [("TYPE_MISMATCH", "/n")]
    assert codes(implementation.validate("t", '{"b": "true"}', tools)) == [("TYPE_MISMATCH", "/b")]
    assert codes(implementation.validate("t", '{"b": 1}', tools)) == [("TYPE_MISMATCH", "/b")]
    assert implementation.validate("t", '{"n": 123456789012345678901234567890}', tools) == []


def test_validate_many_reads_pairs_mappings_and_call_objects(implementation: ModuleType) -> None:
    registry = ToolRegistry(TOOLS)
    call = ToolCall("x", "get_weather", {"city": 5}, '{"city": 5}', 0, 0, 0)
    batch: list[object] = [
        ("get_weather", '{"city": "Paris"}'),
        {"name": "get_weather", "arguments": '{"days": 1}'},
        {"id": "c", "type": "function", "function": {"name": "get_time", "arguments": ""}},
        {"type": "tool_use", "id": "t", "name": "get_weather", "input": {"city": "Oslo"}},
        call,
    ]
    found = implementation.validate_many(batch, registry)
    assert [codes(each) for each in found] == [
        [],
        [("MISSING_REQUIRED_ARGUMENT", "/city")],
        [("EMPTY_ARGUMENTS", None)],
        [],
        [("TYPE_MISMATCH", "/city")],
    ]
    with pytest.raises(TypeError, match=r"calls\[0\]"):
        implementation.validate_many([42], registry)


def test_validate_many_agrees_with_validate_one_by_one(implementation: ModuleType) -> None:
    registry = ToolRegistry(TOOLS)
    batch = [("get_weather", json.dumps({"city": "c" * i, "days": i})) for i in range(12)]
    assert implementation.validate_many(batch, registry) == [
        implementation.validate(name, args, registry) for name, args in batch
    ]


def test_validate_many_lets_other_threads_run() -> None:
    """The core releases the GIL around the batch: another thread's Python code runs meanwhile."""
    registry = ToolRegistry(TOOLS)
    batch = [("get_weather", '{"city": "' + "x" * 20_000 + '", "days": 3}')] * 3_000
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks
        toolwire.validate_many(batch, registry)
        during = ticks - before
    finally:
        done.set()
        counter.join()
    assert during > 0


def test_a_registry_is_compiled_once_per_implementation_and_pair_of_limits() -> None:
    """``validate`` asks for the compiled form on every call: it is built once and kept by the registry."""
    from toolwire.reference._tools import reference_validators
    from toolwire.registry import core_validators

    registry = ToolRegistry(TOOLS)
    core = core_validators(registry)
    assert core_validators(registry) is core
    assert core_validators(registry, 8, 1_000) is core_validators(registry, 8, 1_000) is not core
    reference = reference_validators(registry)
    assert reference_validators(registry) is reference and reference is not core
    toolwire.validate("get_weather", '{"city": "Oslo"}', registry)
    assert core_validators(registry) is core


@pytest.mark.parametrize("enabled", [True, False], ids=["collector-on", "collector-off"])
def test_validate_many_builds_its_results_without_collections_and_leaves_the_collector_as_found(
    enabled: bool,
) -> None:
    """20,000 results are 20,000 new lists, which would start dozens of collections: the core pauses the collector
    while it builds them, and resumes it only if it was running."""
    registry = ToolRegistry(TOOLS)
    batch = [("get_weather", '{"city": "Oslo"}'), ("get_weather", '{"city": 1}')] * 10_000
    started: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    was_enabled = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    gc.callbacks.append(record)
    try:
        found = toolwire.validate_many(batch, registry)
        assert gc.isenabled() is enabled
    finally:
        gc.callbacks.remove(record)
        (gc.enable if was_enabled else gc.disable)()
    assert started == []
    assert [codes(each) for each in found[:2]] == [[], [("TYPE_MISMATCH", "/city")]]
    assert len({id(each) for each in found}) == len(batch)


# ------------------------------------------------------------------------------------------------------- repair


def as_integers(call: InvalidToolCall) -> dict[str, Any] | None:
    arguments = dict(call.arguments)
    arguments["days"] = int(arguments["days"])
    return arguments


def test_a_repaired_call_is_revalidated_and_marked(implementation: ModuleType) -> None:
    seen: list[Violation] = []
    chunks = stream_of(("a", "get_weather", '{"city": "Paris", "days": "3"}'))
    stream = implementation.reassemble(chunks, tools=TOOLS, repair=as_integers, on_violation=seen.append)
    (call,) = stream
    assert isinstance(call, ToolCall)
    assert call.arguments == {"city": "Paris", "days": 3}
    assert json.loads(call.arguments_json) == call.arguments
    assert call.tool_fingerprint == ToolRegistry(TOOLS)["get_weather"].fingerprint
    (repaired,) = call.violations
    assert repaired.code is ViolationCode.REPAIRED and repaired.seq == 0
    assert repaired.data == {
        "original_arguments_json": '{"city": "Paris", "days": "3"}',
        "errors": [{"code": "TYPE_MISMATCH", "path": "/days", "message": "expected integer, got string"}],
    }
    assert stream.result.calls == (call,) and not stream.result.invalid_calls
    assert [v.code for v in seen] == [ViolationCode.TYPE_MISMATCH, ViolationCode.REPAIRED]


def test_a_repair_that_still_fails_or_declines_leaves_the_call_as_sent(implementation: ModuleType) -> None:
    chunks = stream_of(("a", "get_weather", '{"city": "Paris", "days": "30"}'))
    (call,) = implementation.reassemble(chunks, tools=TOOLS, repair=as_integers, on_invalid="yield")
    assert not call.ok and codes(call.errors) == [("TYPE_MISMATCH", "/days")]
    (call,) = implementation.reassemble(chunks, tools=TOOLS, repair=lambda call: None, on_invalid="yield")
    assert not call.ok


def test_repair_is_not_offered_calls_that_did_not_arrive_whole_or_name_no_tool(implementation: ModuleType) -> None:
    offered: list[InvalidToolCall] = []

    def repair(call: InvalidToolCall) -> None:
        offered.append(call)

    chunks = [opening(0, "a", "nope", "{}"), opening(1, "b", "get_weather", '{"city": "x'), finish("length")]
    list(implementation.reassemble(chunks, tools=TOOLS, repair=repair, on_invalid="yield"))
    assert offered == []


def test_repair_must_return_a_dict_and_needs_tools(implementation: ModuleType) -> None:
    chunks = stream_of(("a", "get_weather", '{"days": 1}'))
    with pytest.raises(TypeError, match="as a dict"):
        list(implementation.reassemble(chunks, tools=TOOLS, repair=lambda call: [1]))
    with pytest.raises(ValueError, match="repair needs tools"):
        implementation.reassemble(chunks, repair=lambda call: None)


def test_the_reassembler_repairs_too(implementation: ModuleType) -> None:
    reassembler = implementation.Reassembler(tools=TOOLS, repair=as_integers)
    ready = [
        call
        for chunk in stream_of(("a", "get_weather", '{"city": "P", "days": "2"}'))
        for call in reassembler.feed(chunk)
    ]
    ready += reassembler.finish()
    assert [call.ok for call in ready] == [True]
    assert reassembler.close().calls == tuple(ready)


# ------------------------------------------------------------------------ numbers Python values are not built from

BIG = "9" * 4301


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        pytest.param("get_weather", f'{{"city": "x", "days": {BIG}}}', ["INVALID_JSON"], id="member"),
        # The schema is not applied to a value that cannot be built: `zzz` is not reported.
        pytest.param("get_weather", f'{{"zzz": [-{BIG}]}}', ["INVALID_JSON"], id="negative-item"),
        pytest.param("nope", f'{{"a": {BIG}}}', ["UNKNOWN_TOOL", "INVALID_JSON"], id="unknown-tool"),
        pytest.param("get_weather", f"[{BIG}]", ["ARGUMENTS_NOT_OBJECT", "INVALID_JSON"], id="not-an-object"),
        # jiter's rule, which builds the core's values: the integer part of any number counts.
        pytest.param("get_time", f'{{"a": {BIG}.5}}', ["INVALID_JSON"], id="fraction"),
        pytest.param("get_time", f'{{"a": -{BIG}e-9000}}', ["INVALID_JSON"], id="exponent"),
        # As many digits as Python converts are a number, and so is a fraction of any length.
        pytest.param("get_weather", f'{{"city": "x", "days": {BIG[1:]}}}', ["CONSTRAINT_VIOLATION"], id="4300-digits"),
        pytest.param("get_time", f'{{"a": {BIG[1:]}.{BIG}e1, "b": 0.{BIG}}}', [], id="long-fraction"),
    ],
)
def test_a_number_of_over_4300_integer_digits_is_invalid_json_in_streams_validate_and_replay(
    implementation: ModuleType, name: str, arguments: str, expected: list[str]
) -> None:
    """Issue 15: such a number was INVALID_JSON in a stream and valid through ``validate``; one rule for both."""
    registry = ToolRegistry(TOOLS)
    found = implementation.validate(name, arguments, registry)
    assert [v.code.value for v in found] == expected
    (batch,) = implementation.validate_many([(name, arguments)], registry)
    assert batch == found
    for tools in (registry, None):
        (call,) = implementation.reassemble(stream_of(("c", name, arguments)), tools=tools, on_invalid="yield")
        errors = [] if call.ok else [v.code.value for v in call.errors]
        text_findings = [code for code in expected if code in ("ARGUMENTS_NOT_OBJECT", "INVALID_JSON")]
        assert errors == (expected if tools is not None else text_findings)
        if "INVALID_JSON" in expected:
            # One finding, last, without an offset, worded alike everywhere; the call carries no arguments.
            (invalid_json,) = (v for v in call.errors if v.code is ViolationCode.INVALID_JSON)
            assert invalid_json == call.errors[-1]
            assert invalid_json.offset is None
            assert invalid_json.message == "the arguments hold a number too long to convert (over 4300 digits)"
            assert [v.message for v in found if v.code is ViolationCode.INVALID_JSON] == [invalid_json.message]
            assert call.arguments is None


def test_replay_applies_the_same_rule() -> None:
    from toolwire.schema import ObservedCall, replay_calls

    calls = [
        ObservedCall("get_weather", f'{{"city": "x", "days": {BIG}}}'),
        ObservedCall("get_weather", '{"city": "x"}'),
    ]
    report = replay_calls(calls, ToolRegistry(TOOLS))
    assert (report.valid, report.invalid) == (1, 1)
    assert [v.code.value for v in report.failures[0].violations] == ["INVALID_JSON"]
