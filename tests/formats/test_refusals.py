"""Refusals: what a model says instead of its answer, kept apart from its text in every way a stream reaches us.

OpenAI's chat model refuses in ``delta.refusal`` (``message.refusal`` when buffered), the Responses API in
``response.refusal.delta`` events. Each choice keeps its own (``ChoiceResult.refusal``; ``StreamResult.refusal`` is the
first choice's), within the same ``Limits.max_text_bytes`` as its text, read alike from SSE bytes, dicts and the SDK's
objects, by the core and the reference. The real multi-choice stream is ``recordings/openai-chat/
structured-gpt4o-n3-one-refuses``; these cases are written by hand in the shapes the providers document.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionAssistantMessageParam, ChatCompletionChunk
from pydantic import TypeAdapter

from toolwire import Limits, MalformedChunkError, ViolationCode


def chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


CHUNKS = [
    chunk(0, {"role": "assistant", "content": "", "refusal": None}),
    chunk(1, {"role": "assistant", "content": None, "refusal": ""}),
    chunk(0, {"content": '{"a": 1}'}),
    chunk(1, {"refusal": "I can\u2019t"}),
    chunk(1, {"refusal": " help."}),
    chunk(0, {}, "stop"),
    chunk(1, {}, "stop"),
]


def sse(chunks: list[dict[str, Any]]) -> list[bytes]:
    return [f"data: {json.dumps(each)}\n\n".encode() for each in chunks] + [b"data: [DONE]\n\n"]


def read(implementation: ModuleType, chunks: Any, **options: Any) -> Any:
    """The ``StreamResult`` of ``chunks``, once every call was taken."""
    stream = implementation.reassemble(chunks, **options)
    list(stream)
    return stream.result


SOURCES = {
    "sse bytes": lambda chunks: sse(chunks),
    "dicts": lambda chunks: chunks,
    "sdk objects": lambda chunks: [ChatCompletionChunk.model_validate(each) for each in chunks],
}


@pytest.mark.parametrize("source", SOURCES)
def test_each_choice_keeps_its_refusal_apart_from_its_text(implementation: ModuleType, source: str) -> None:
    stream = implementation.reassemble(SOURCES[source](CHUNKS), format="openai-chat")
    assert list(stream) == []
    result = stream.result
    assert [(c.choice, c.text, c.refusal, c.finish_reason) for c in result.choices] == [
        (0, '{"a": 1}', None, "stop"),
        (1, "", "I can\u2019t help.", "stop"),
    ]
    assert (result.text, result.refusal, result.violations) == ('{"a": 1}', None, ())


def test_the_first_choice_refusal_is_the_results(implementation: ModuleType) -> None:
    result = read(implementation, [chunk(0, {"refusal": "No."}), chunk(0, {}, "stop")], format="openai-chat")
    assert (result.text, result.refusal, result.finish_reason) == ("", "No.", "stop")


@pytest.mark.parametrize("source", ["sse bytes", "dicts"])
def test_text_and_refusal_share_the_choice_budget(implementation: ModuleType, source: str) -> None:
    chunks = [
        chunk(0, {"content": "ok "}),
        chunk(0, {"refusal": "no, "}),
        chunk(0, {"refusal": "sorry"}),
        chunk(0, {"content": "!"}, "stop"),
    ]
    result = read(
        implementation,
        SOURCES[source](chunks),
        format="openai-chat",
        limits=Limits(max_text_bytes=8),
        on_invalid="yield",
    )
    assert (result.text, result.refusal) == ("ok ", "no, ")
    assert [(v.code, v.choice, v.data) for v in result.violations] == [
        (ViolationCode.TEXT_TOO_LARGE, 0, {"limit": 8, "bytes": 6})
    ]


@pytest.mark.parametrize("source", ["sse bytes", "dicts"])
def test_a_refusal_that_is_no_string_names_its_field(implementation: ModuleType, source: str) -> None:
    stream = implementation.reassemble(SOURCES[source]([chunk(0, {"refusal": ["no"]})]), format="openai-chat")
    with pytest.raises(MalformedChunkError) as raised:
        list(stream)
    assert raised.value.path == "choices[0].delta.refusal"


def test_a_buffered_completion_keeps_its_refusal(implementation: ModuleType) -> None:
    response = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": None, "refusal": "No."}, "finish_reason": "stop"}
        ],
    }
    for source in (response, ChatCompletion.model_validate(response)):
        result = implementation.normalize(source)
        assert (result.text, result.refusal, result.choices[0].refusal) == ("", "No.", "No.")


def test_the_turn_written_back_carries_the_refusal(implementation: ModuleType) -> None:
    result = read(implementation, [chunk(0, {"refusal": "No."}), chunk(0, {}, "stop")])
    message = result.to_history("openai-chat")
    assert message == {"role": "assistant", "content": None, "refusal": "No."}
    TypeAdapter(ChatCompletionAssistantMessageParam).validate_python(message)
    clean = read(implementation, [chunk(0, {"content": "hi"}), chunk(0, {}, "stop")])
    assert "refusal" not in clean.to_history("openai-chat")


RESPONSES_REFUSAL = [
    {"type": "response.created", "sequence_number": 0, "response": {"id": "r", "status": "in_progress"}},
    {
        "type": "response.output_item.added",
        "sequence_number": 1,
        "output_index": 0,
        "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []},
    },
    {
        "type": "response.content_part.added",
        "sequence_number": 2,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "part": {"type": "refusal", "refusal": ""},
    },
    {
        "type": "response.refusal.delta",
        "sequence_number": 3,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "I can\u2019t",
    },
    {
        "type": "response.refusal.delta",
        "sequence_number": 4,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": " help.",
    },
    {
        "type": "response.refusal.done",
        "sequence_number": 5,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "refusal": "I can\u2019t help.",
    },
    {"type": "response.completed", "sequence_number": 6, "response": {"id": "r", "status": "completed"}},
]


def test_a_responses_refusal_is_the_results(implementation: ModuleType) -> None:
    result = read(implementation, RESPONSES_REFUSAL, format="openai-responses")
    assert (result.text, result.refusal, result.violations) == ("", "I can\u2019t help.", ())


def test_a_buffered_responses_refusal_is_the_results(implementation: ModuleType) -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "refusal", "refusal": "No."}],
    }
    response = {"id": "r", "object": "response", "status": "completed", "output": [message]}
    result = implementation.normalize(response, format="openai-responses")
    assert (result.text, result.refusal, result.finish_reason) == ("", "No.", "completed")
    assert [item.value for item in result.output] == [message], "the message item is kept for the next request too"


def test_a_responses_refusal_is_a_structured_output_result(implementation: ModuleType) -> None:
    stream = implementation.stream_object(RESPONSES_REFUSAL, schema={"type": "object"}, format="openai-responses")
    assert list(stream) == []
    result = stream.result
    assert (result.value, result.refusal, result.violations, result.ok) == (None, "I can\u2019t help.", (), False)
