"""OpenAI Responses custom tools: free-text input, handed over as calls whose ``input`` is the text.

A ``custom_tool_call`` is the application's to run unless the response the stream echoes lists its tools and none is
a custom tool of that name (xAI's server-run ``x_search``); docs/semantics.md, "openai-responses", *Custom tools*.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from openai.types.responses import (
    ResponseCustomToolCallInputDeltaEvent,
    ResponseCustomToolCallInputDoneEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
)

import toolwire
import toolwire.reference
from tests.support.paths import CORPORA, REPO
from toolwire.recordings import load_recording

EXT = CORPORA / "provider-streams-ext"
TOOLS = [{"type": "custom", "name": "code_exec", "description": "Executes Python."}]
CODE = 'print("hi")\n'


def run(implementation: ModuleType, source: Any, **options: Any) -> toolwire.StreamResult:
    stream = implementation.reassemble(source, on_invalid="yield", **options)
    list(stream)
    return stream.result  # type: ignore[no-any-return]


def item(status: str, text: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_1",
        "name": "code_exec",
        "input": text,
        "status": status,
    }


def events(tools: list[dict[str, Any]] | None = TOOLS, *, done: bool = True) -> list[dict[str, Any]]:
    response: dict[str, Any] = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    if tools is not None:
        response["tools"] = tools
    stream: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": response},
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": item("in_progress", ""),
        },
        {
            "type": "response.custom_tool_call_input.delta",
            "sequence_number": 2,
            "output_index": 0,
            "item_id": "ctc_1",
            "delta": 'print("h',
        },
        {
            "type": "response.custom_tool_call_input.delta",
            "sequence_number": 3,
            "output_index": 0,
            "item_id": "ctc_1",
            "delta": 'i")\n',
        },
    ]
    if done:
        stream += [
            {
                "type": "response.custom_tool_call_input.done",
                "sequence_number": 4,
                "output_index": 0,
                "item_id": "ctc_1",
                "input": CODE,
            },
            {
                "type": "response.output_item.done",
                "sequence_number": 5,
                "output_index": 0,
                "item": item("completed", CODE),
            },
            {"type": "response.completed", "sequence_number": 6, "response": {**response, "status": "completed"}},
        ]
    return stream


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["declared in the echo", "no echoed tools"])
def test_a_custom_tool_call_is_handed_over_with_its_input(implementation: ModuleType, tools: Any) -> None:
    result = run(implementation, events(tools))
    (call,) = result.calls
    assert (call.id, call.name, call.input, call.arguments_json, call.arguments) == (
        "call_1",
        "code_exec",
        CODE,
        None,
        {},
    )
    assert call.extra == {"item_id": "ctc_1"}
    assert call.violations == ()
    assert not result.server_calls


def test_sdk_event_objects_read_as_their_json(implementation: ModuleType) -> None:
    models = [
        events()[0],  # a Response needs fields a test has no use for: its created event goes as a dict
        ResponseOutputItemAddedEvent.model_validate(events()[1]),
        ResponseCustomToolCallInputDeltaEvent.model_validate(events()[2]),
        ResponseCustomToolCallInputDeltaEvent.model_validate(events()[3]),
        ResponseCustomToolCallInputDoneEvent.model_validate(events()[4]),
        ResponseOutputItemDoneEvent.model_validate(events()[5]),
    ]
    (call,) = run(implementation, models).calls
    assert (call.input, call.arguments_json) == (CODE, None)


def test_a_custom_call_the_echo_does_not_declare_is_the_providers(implementation: ModuleType) -> None:
    result = run(implementation, events([{"type": "x_search"}]))
    assert not result.calls and not result.invalid_calls
    assert [call["name"] for call in result.server_calls] == ["code_exec"]


@pytest.mark.skipif(not EXT.is_dir(), reason="the shared provider-streams-ext corpus is not present")
def test_xai_x_search_reported_as_a_custom_tool_call_is_a_server_call(implementation: ModuleType) -> None:
    result = run(implementation, (EXT / "streams" / "xai-responses__x-search-server-custom-tool.sse").read_bytes())
    assert not result.calls and not result.invalid_calls
    assert [(call["type"], call["name"]) for call in result.server_calls] == [("custom_tool_call", "x_keyword_search")]
    assert result.finish_reason == "completed" and result.ok


def test_a_custom_call_without_its_end_is_truncated(implementation: ModuleType) -> None:
    (call,) = run(implementation, events(done=False)).invalid_calls
    assert [error.code.value for error in call.errors] == ["TRUNCATED"]
    assert (call.input, call.arguments, call.arguments_json) == (CODE, None, None)
    answer = call.to_tool_result("openai-responses")
    assert answer["type"] == "custom_tool_call_output" and answer["call_id"] == "call_1"
    assert json.loads(answer["output"])["problems"][0]["code"] == "TRUNCATED"


def test_the_done_input_is_authoritative(implementation: ModuleType) -> None:
    stream = events()
    stream[4] = {**stream[4], "input": "print(1)\n"}
    stream[5] = {**stream[5], "item": item("completed", "print(1)\n")}
    (call,) = run(implementation, stream).calls
    assert call.input == "print(1)\n"
    assert [violation.code.value for violation in call.violations] == ["ARGUMENTS_MISMATCH"]


def test_json_looking_input_is_never_parsed(implementation: ModuleType) -> None:
    stream = events()
    for position, text in ((2, '{"a": '), (3, "1}} trailing")):
        stream[position] = {**stream[position], "delta": text}
    stream[4] = {**stream[4], "input": '{"a": 1}} trailing'}
    stream[5] = {**stream[5], "item": item("completed", '{"a": 1}} trailing')}
    (call,) = run(implementation, stream).calls
    assert call.input == '{"a": 1}} trailing' and call.violations == ()


def test_a_registry_declares_custom_tools_and_checks_no_input(implementation: ModuleType) -> None:
    declared = run(implementation, events(), tools=TOOLS)
    (call,) = declared.calls
    assert call.tool_fingerprint is None
    unknown = run(
        implementation, events(), tools=[{"type": "function", "name": "other", "parameters": {"type": "object"}}]
    )
    (invalid,) = unknown.invalid_calls
    assert [error.code.value for error in invalid.errors] == ["UNKNOWN_TOOL"]


def test_history_replays_the_custom_call(implementation: ModuleType) -> None:
    result = run(implementation, events())
    assert result.to_history("openai-responses") == [
        {"type": "custom_tool_call", "call_id": "call_1", "name": "code_exec", "input": CODE, "id": "ctc_1"}
    ]
    assert result.to_history("openai-chat")["tool_calls"] == [
        {"id": "call_1", "type": "custom", "custom": {"name": "code_exec", "input": CODE}}
    ]


def test_a_buffered_response_with_custom_calls(implementation: ModuleType) -> None:
    response = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "tools": TOOLS,
        "output": [item("completed", CODE), {**item("completed", "q"), "name": "x_search", "call_id": "xs_1"}],
    }
    result = implementation.normalize(response)
    assert [(call.name, call.input) for call in result.calls] == [("code_exec", CODE)]
    assert [call["name"] for call in result.server_calls] == ["x_search"]


def test_events_carry_the_input_pieces(implementation: ModuleType) -> None:
    fragments = [
        event.fragment for event in implementation.events(events()) if isinstance(event, implementation.ArgumentsDelta)
    ]
    assert "".join(fragments) == CODE


def test_the_recording_of_the_documented_shapes_is_there() -> None:
    recording = load_recording(REPO / "recordings" / "openai-responses" / "custom-tool-call-then-function-call.json")
    assert recording.expected["calls"][0]["input"] == 'print("hello")\nprint(2 + 2)\n'
