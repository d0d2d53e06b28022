"""Buffered responses (``normalize``) and the assistant turn written back (``to_history``).

Every buffered OpenAI chat completion of the corpus normalises, as a dict and as the openai SDK's
``ChatCompletion``, to its manifest's calls in the core and the reference; the turn a result writes back is accepted
by the official SDKs' message types in each format, with every id echoed exactly.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from anthropic.types import ContentBlockParam, MessageParam
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionAssistantMessageParam,
    ChatCompletionMessageFunctionToolCallParam,
)
from openai.types.responses import ResponseInputParam
from pydantic import TypeAdapter

from tests.corpus.test_validation import expected_errors
from tests.support.paths import CORPORA
from toolwire import MalformedChunkError, Severity, ToolRegistry, ViolationCode
from toolwire.recordings import iter_recordings

BUFFERED = CORPORA / "provider-streams" / "buffered"


def buffered_chat() -> list[Any]:
    manifest = BUFFERED / "MANIFEST.jsonl"
    if not manifest.exists():
        return []
    entries = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [pytest.param(e, id=e["file"]) for e in entries if e["wire_format"] == "openai-chat"]


@pytest.mark.parametrize("entry", buffered_chat())
def test_buffered_chat_completions_normalize_to_their_calls(implementation: ModuleType, entry: dict[str, Any]) -> None:
    response = json.loads((BUFFERED / entry["file"]).read_text(encoding="utf-8"))
    tools = entry.get("request_tools")
    for source in (response, ChatCompletion.model_construct(**response), _sdk(response)):
        result = implementation.normalize(source, tools=tools)
        calls = sorted([*result.calls, *result.invalid_calls], key=lambda call: call.seq)
        assert [(call.name, call.arguments) for call in calls] == [
            (call["name"], call["arguments"]) for call in entry["expected_calls"]
        ]
        for call, wanted in zip(calls, entry["expected_calls"], strict=True):
            assert call.id == (wanted["id"] or f"ts_0_{call.seq}")
            assert isinstance(call.arguments, dict) and isinstance(call.arguments_json, str)
        assert result.finish_reason == entry["expected_finish"]  # "" as sent (snowflake)
        if tools and "expected_validation" in entry:
            for call, verdict in zip(calls, entry["expected_validation"], strict=True):
                errors = [] if call.ok else [(v.code.value, v.path) for v in call.errors]
                assert errors == expected_errors(verdict["errors"])
                assert call.tool_fingerprint == ToolRegistry(tools)[call.name].fingerprint


def _sdk(response: dict[str, Any]) -> Any:
    """The SDK's own object for the response, as a client returns it (lenient about servers' extra fields)."""
    from openai._models import construct_type

    return construct_type(type_=ChatCompletion, value=response)


def completion(message: dict[str, Any], finish: str | None = "tool_calls") -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def test_normalize_reports_as_a_stream_does(implementation: ModuleType) -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
            {"id": "b", "type": "function", "function": {"name": "f", "arguments": '{"x": '}},
        ],
    }
    result = implementation.normalize(completion(message))
    assert [call.id for call in result.calls] == ["a"]
    assert result.calls[0].arguments_json == '{"x":1}'
    assert [v.code for v in result.calls[0].violations] == [ViolationCode.ARGUMENTS_NOT_STRING]
    assert [sorted(v.code.value for v in call.errors) for call in result.invalid_calls] == [["TRUNCATED"]]
    assert (
        implementation.normalize({"error": {"message": "overloaded"}}).violations[0].code
        is ViolationCode.PROVIDER_ERROR
    )
    with pytest.raises(MalformedChunkError) as raised:
        implementation.normalize(completion({"role": "assistant", "content": 3}))
    assert raised.value.path == "choices[0].message.content"
    with pytest.raises(TypeError, match="buffered response"):
        implementation.normalize("{}")
    with pytest.raises(ValueError, match="openai-chat"):
        implementation.normalize(completion({"content": "hi"}), format="palm")


# ------------------------------------------------------------------------------------------------ to_history

ODD_ID = "call_ü\u2028\"' 01"


def turn_result(impl: ModuleType) -> Any:
    message = {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {"id": ODD_ID, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": ""}},
            {"id": "call_3", "type": "function", "function": {"name": "get_weather", "arguments": "[1]"}},
        ],
    }
    return impl.normalize(completion(message))


def test_the_turn_goes_back_in_every_format(implementation: ModuleType) -> None:
    result = turn_result(implementation)
    assert len(result.calls) == 2 and len(result.invalid_calls) == 1

    chat = result.to_history("openai-chat")
    validated = TypeAdapter(ChatCompletionAssistantMessageParam).validate_python(chat)
    assert {k: v for k, v in validated.items() if k != "tool_calls"} == {
        k: v for k, v in chat.items() if k != "tool_calls"
    }
    # tool_calls is an Iterable in the SDK's type, validated lazily: check the list it stands for.
    calls_type = list[ChatCompletionMessageFunctionToolCallParam]
    assert TypeAdapter(calls_type).validate_python(chat["tool_calls"]) == chat["tool_calls"]
    assert chat["content"] == "Let me check."
    assert [entry["id"] for entry in chat["tool_calls"]] == [ODD_ID, "call_2", "call_3"]
    assert [entry["function"]["arguments"] for entry in chat["tool_calls"]] == ['{"city": "Paris"}', "{}", "[1]"]

    items = result.to_history("openai-responses")
    TypeAdapter(ResponseInputParam).validate_python(items)
    assert items[0] == {"role": "assistant", "content": "Let me check."}
    assert [item["call_id"] for item in items[1:]] == [ODD_ID, "call_2", "call_3"]

    anthropic = result.to_history("anthropic-messages")
    TypeAdapter(MessageParam).validate_python(anthropic)
    blocks = anthropic["content"]
    assert TypeAdapter(list[ContentBlockParam]).validate_python(blocks) == blocks
    assert blocks[0] == {"type": "text", "text": "Let me check."}
    assert [(b["id"], b["input"]) for b in blocks[1:]] == [(ODD_ID, {"city": "Paris"}), ("call_2", {}), ("call_3", {})]

    assert result.calls[0].to_history("openai-chat") == chat["tool_calls"][0]
    assert result.invalid_calls[0].to_history("anthropic-messages") == blocks[3]
    with pytest.raises(ValueError, match="'openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'"):
        result.to_history("palm")


def test_a_streamed_turn_round_trips_through_normalize(implementation: ModuleType) -> None:
    """The assistant message a stream writes back reads, as a buffered response, to the same calls."""
    for recording in iter_recordings(format="openai-chat"):
        stream = implementation.reassemble(recording.chunks(), on_invalid="yield")
        list(stream)
        if not stream.result.calls or stream.result.invalid_calls:
            continue
        message = stream.result.to_history("openai-chat")
        again = implementation.normalize(completion(message, stream.result.finish_reason))
        first = stream.result.choices[0].choice
        assert [(c.id, c.name, c.arguments) for c in again.calls] == [
            (c.id, c.name, c.arguments) for c in stream.result.calls if c.choice == first
        ], recording.name
        assert all(v.severity is not Severity.ERROR for v in again.violations), recording.name
