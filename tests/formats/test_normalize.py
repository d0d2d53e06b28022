"""Buffered responses of every format normalise to their calls, and a streamed turn round-trips through
``to_history`` in every format.

The corpus' buffered Anthropic messages and Responses responses normalise, as dicts and as the SDKs' own objects, to
their manifests' calls in the core and the reference. Gemini, Ollama and Bedrock Converse responses (none in the
corpus) are written here from their documented shapes. Every recording's assistant turn, written back with
``to_history`` in its own format, is accepted by the SDKs' message types where an SDK is installed, and reads back
as a buffered response of that format to the same calls and output.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import anthropic._models
import anthropic.types
import openai._models
import openai.types.responses
import pytest
from anthropic.types import MessageParam
from openai.types.responses import ResponseInputParam
from pydantic import TypeAdapter

import toolwire
import toolwire.reference
from tests.support.paths import CORPORA
from toolwire.recordings import TEXT_FORMAT, Recording, iter_recordings

BUFFERED = CORPORA / "provider-streams" / "buffered"
FORMATS = ("anthropic-messages", "openai-responses")


def buffered_entries() -> list[Any]:
    manifest = BUFFERED / "MANIFEST.jsonl"
    if not manifest.exists():
        return []
    entries = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [pytest.param(entry, id=entry["file"]) for entry in entries if entry["wire_format"] in FORMATS]


def sdk_object(wire_format: str, response: dict[str, Any]) -> Any:
    """The response as its SDK's client returns it (``construct_type``: lenient about servers' extra fields)."""
    if wire_format == "anthropic-messages":
        return anthropic._models.construct_type(type_=anthropic.types.Message, value=response)
    return openai._models.construct_type(type_=openai.types.responses.Response, value=response)


@pytest.mark.parametrize("entry", buffered_entries())
def test_buffered_responses_normalize_to_their_calls(implementation: ModuleType, entry: dict[str, Any]) -> None:
    response = json.loads((BUFFERED / entry["file"]).read_text(encoding="utf-8"))
    for source in (response, sdk_object(entry["wire_format"], response)):
        result = implementation.normalize(source, tools=entry.get("request_tools"))
        calls = sorted([*result.calls, *result.invalid_calls], key=lambda call: call.seq)
        assert [(call.id, call.name, call.arguments) for call in calls] == [
            (call["id"], call["name"], call["arguments"]) for call in entry["expected_calls"]
        ]
        for call, wanted in zip(calls, entry["expected_calls"], strict=True):
            assert type(call.arguments) is dict and type(call.arguments_json) is str
            assert json.loads(call.arguments_json) == call.arguments
            if "item_id" in wanted:
                assert call.extra["item_id"] == wanted["item_id"]
            if "caller" in wanted:
                assert call.extra["caller"] == wanted["caller"]
            assert not any(violation.code.value == "ARGUMENTS_NOT_STRING" for violation in call.violations)
        assert result.finish_reason == entry["expected_finish"]
        assert result.format == entry["wire_format"]


GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Checking both cities."},
                    {
                        "functionCall": {"name": "weather", "args": {"city": "Paris", "days": 3}},
                        "thoughtSignature": "c2ln",
                    },
                    {"functionCall": {"name": "weather", "args": {"city": "Oslo", "days": 1}}},
                    {"functionCall": {"name": "now"}},
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 20, "totalTokenCount": 30},
    "modelVersion": "gemini-2.5-flash",
}
OLLAMA = {
    "model": "qwen3",
    "created_at": "2026-11-30T04:00:00Z",
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Paris", "days": 3}}}],
    },
    "done": True,
    "done_reason": "stop",
    "eval_count": 12,
}
BEDROCK = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"text": "Let me look."},
                {"toolUse": {"toolUseId": "tooluse_abc", "name": "weather", "input": {"city": "Paris", "days": 3}}},
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30},
}


def test_gemini_ollama_and_bedrock_responses_normalize(implementation: ModuleType) -> None:
    gemini = implementation.normalize(GEMINI)
    assert gemini.format == "gemini"
    assert [(call.name, call.arguments, call.arguments_json) for call in gemini.calls] == [
        ("weather", {"city": "Paris", "days": 3}, '{"city":"Paris","days":3}'),
        ("weather", {"city": "Oslo", "days": 1}, '{"city":"Oslo","days":1}'),
        ("now", {}, ""),
    ]
    assert [call.id for call in gemini.calls] == ["ts_0_0", "ts_0_1", "ts_0_2"], "Gemini sent no ids"
    assert gemini.calls[0].extra == {"thought_signature": "c2ln"}
    assert (gemini.finish_reason, gemini.text, gemini.usage) == (
        "STOP",
        "Checking both cities.",
        GEMINI["usageMetadata"],
    )
    assert [violation.code.value for violation in gemini.violations] == []

    ollama = implementation.normalize(OLLAMA)
    assert [(call.name, call.arguments, call.index) for call in ollama.calls] == [
        ("weather", {"city": "Paris", "days": 3}, None)
    ]
    assert (ollama.format, ollama.finish_reason, ollama.usage) == ("ollama", "stop", OLLAMA)

    bedrock = implementation.normalize(BEDROCK)
    assert [(call.id, call.name, call.arguments, call.index) for call in bedrock.calls] == [
        ("tooluse_abc", "weather", {"city": "Paris", "days": 3}, 1)
    ]
    assert (bedrock.format, bedrock.finish_reason, bedrock.text, bedrock.usage) == (
        "bedrock-converse",
        "tool_use",
        "Let me look.",
        BEDROCK["usage"],
    )
    assert [item.value for item in bedrock.output] == [{"text": "Let me look."}]


def test_a_response_of_no_known_shape_names_the_formats() -> None:
    with pytest.raises(TypeError, match="pass format="):
        toolwire.normalize({"hello": "world"})
    with pytest.raises(ValueError, match="'gemini'"):
        toolwire.normalize(GEMINI, format="palm")


# ------------------------------------------------------------------------------------------- back into history


def as_buffered(result: toolwire.StreamResult, turn: Any) -> Any:
    """The turn a result wrote back, as the buffered response of its format that would have carried it."""
    finish = result.finish_reason
    return {
        "openai-completions": lambda: {
            "object": "text_completion",
            "choices": [{"index": 0, "text": turn, "finish_reason": finish}],
        },
        "openai-responses": lambda: {"object": "response", "status": finish, "output": turn},
        "anthropic-messages": lambda: {
            "type": "message",
            "id": "msg",
            "content": turn["content"],
            "stop_reason": finish,
        },
        "gemini": lambda: {"candidates": [{"content": turn, "finishReason": finish}]},
        "ollama": lambda: {"message": turn, "done": True, "done_reason": finish},
        "bedrock-converse": lambda: {"output": {"message": turn}, "stopReason": finish},
    }[result.format]()


SDK_TURNS: dict[str, TypeAdapter[Any]] = {
    "anthropic-messages": TypeAdapter(MessageParam),
    "openai-responses": TypeAdapter(ResponseInputParam),
}
ROUND_TRIP = [
    pytest.param(recording, id=recording.name)
    for recording in iter_recordings()
    if recording.format not in ("openai-chat", TEXT_FORMAT)  # a model's text deltas are no wire format's turn
]


@pytest.mark.parametrize("recording", ROUND_TRIP)
def test_a_turn_round_trips_in_its_own_format(recording: Recording, implementation: ModuleType) -> None:
    stream = implementation.reassemble(recording.chunks(), on_invalid="yield")
    list(stream)
    result = stream.result
    if result.invalid_calls or result.finish_reason is None:
        pytest.skip("only a whole turn is sent back as it is")
    if any(call.get("type") == "custom_tool_call" for call in result.server_calls):
        pytest.skip("a custom tool call the provider ran is told apart by the response's tools, which a turn lacks")
    turn = result.to_history(recording.format)
    if recording.format in SDK_TURNS:
        SDK_TURNS[recording.format].validate_python(turn)
    again = implementation.normalize(as_buffered(result, turn), format=recording.format)
    described = [(call.id, call.name, call.arguments, dict(call.extra)) for call in result.calls]
    assert [(call.id, call.name, call.arguments, dict(call.extra)) for call in again.calls] == described
    assert again.text == result.text
    if recording.format != "gemini":  # Gemini text parts are merged on the way in, and stay merged
        assert [item.value for item in again.output] == [
            item.value
            for item in result.output
            if not (item.value.get("type") == "text" and not item.value.get("text"))
        ]


#: The formats whose requests can answer a call (a completions request carries a prompt only: tests/formats/
#: test_openai_completions.py holds its refusal).
ANSWERING = [format for format in toolwire.WIRE_FORMATS if format != "openai-completions"]


@pytest.mark.parametrize("format", ANSWERING)
def test_invalid_calls_answer_in_every_format_that_can(format: str) -> None:
    stream = toolwire.reassemble(
        [
            {
                "choices": [
                    {
                        "delta": {
                            "tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{"}}]
                        },
                        "finish_reason": "tool_calls",
                    }
                ]
            }
        ],
        on_invalid="yield",
    )
    (call,) = list(stream)
    answer = call.to_tool_result(format)
    assert "call_1" in json.dumps(answer) or format in ("ollama",)
    assert "invalid_tool_call" in json.dumps(answer)


@pytest.mark.parametrize("status", ["queued", "in_progress"])
def test_an_unfinished_responses_object_has_no_finish_reason(implementation: ModuleType, status: str) -> None:
    # Regression: a background-mode Response still in progress passed as "completed" (found by the local endpoint's
    # no_finish quirk).
    response = {
        "object": "response",
        "status": status,
        "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}],
    }
    result = implementation.normalize(response)
    assert result.finish_reason is None
    assert [v.code.value for v in result.violations] == ["NO_FINISH_REASON"]
