"""The legacy completions format (``openai-completions``): told from chat, read as text, its turn written back.

The stream rules are held by its recordings (tests/recordings) and the differential tests; these hold what the
format's module says and how chunk objects (dicts, the openai SDK's ``Completion``) are told from chat chunks.
"""

from __future__ import annotations

import json
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from openai._models import construct_type
from openai.types import Completion
from openai.types.chat import ChatCompletionChunk

import toolwire

CHUNK = {
    "id": "cmpl-1",
    "object": "text_completion",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "text": "Paris", "logprobs": None, "finish_reason": None}],
}
LAST = {**CHUNK, "choices": [{"index": 0, "text": ".", "logprobs": None, "finish_reason": "stop"}]}


def _result(implementation: ModuleType, source: Any, **options: Any) -> toolwire.StreamResult:
    stream = implementation.reassemble(source, on_invalid="yield", **options)
    list(stream)
    result: toolwire.StreamResult = stream.result
    return result


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param([CHUNK, LAST], id="dicts"),
        # As the SDK builds streamed chunks: constructed, since a chunk's null finish_reason fails its Literal.
        pytest.param([construct_type(type_=Completion, value=chunk) for chunk in (CHUNK, LAST)], id="sdk-objects"),
        pytest.param(
            [{"choices": [{"text": "Paris"}]}, {"choices": [{"text": ".", "finish_reason": "stop"}]}], id="bare"
        ),
    ],
)
def test_completions_chunks_are_not_read_as_chat(implementation: ModuleType, chunks: list[Any]) -> None:
    result = _result(implementation, chunks)
    assert (result.format, result.text, result.finish_reason, result.violations) == (
        "openai-completions",
        "Paris.",
        "stop",
        (),
    )


def test_a_chat_stream_is_still_chat(implementation: ModuleType) -> None:
    chunks = [{"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}]
    assert _result(implementation, chunks).format == "openai-chat"


def test_completions_chunks_under_the_chat_format_are_not_understood(implementation: ModuleType) -> None:
    result = _result(implementation, [CHUNK, LAST], format="openai-chat")
    assert "UNRECOGNIZED_STREAM" in [violation.code.value for violation in result.violations]


def test_a_buffered_completion_normalizes_to_its_text(implementation: ModuleType) -> None:
    buffered = {**CHUNK, "choices": [{"index": 0, "text": "Paris.", "finish_reason": "length"}], "usage": {"t": 3}}
    result = implementation.normalize(buffered)
    assert (result.format, result.text, result.finish_reason, result.usage) == (
        "openai-completions",
        "Paris.",
        "length",
        {"t": 3},
    )
    assert [violation.code.value for violation in result.violations] == ["STREAM_CUT"]


def test_a_turn_is_its_text() -> None:
    result = _result(toolwire, [CHUNK, LAST])
    assert result.to_history("openai-completions") == "Paris."


def _chat_call(arguments: str) -> toolwire.StreamResult:
    chunk = {
        "choices": [
            {
                "delta": {
                    "tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": arguments}}]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    return _result(toolwire, [chunk])


def test_calls_and_their_answers_have_no_completions_shape_and_are_refused() -> None:
    valid = _chat_call("{}")
    with pytest.raises(ValueError, match="carries a prompt"):
        valid.to_history("openai-completions")
    with pytest.raises(ValueError, match="carries a prompt"):
        valid.calls[0].to_history("openai-completions")
    (invalid,) = _chat_call("{").invalid_calls
    with pytest.raises(ValueError, match="answer the call with a chat format"):
        invalid.to_tool_result("openai-completions")


def test_tools_are_offered_in_the_shape_chat_templates_take() -> None:
    registry = toolwire.ToolRegistry([{"name": "f", "parameters": {"type": "object"}}])
    assert toolwire.formats.request_tools(registry, "openai-completions") == registry.to_openai()


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events) + b"data: [DONE]\n\n"


USAGE_FIRST = {"id": "cmpl-1", "choices": [], "usage": {"total_tokens": 3}}
BARE = [{"choices": [{"index": 0, "text": "Paris"}]}, {"choices": [{"index": 0, "text": ".", "finish_reason": "stop"}]}]


@pytest.mark.parametrize("raw", [False, True], ids=["objects", "bytes"])
def test_a_first_chunk_of_empty_choices_waits_for_the_chunk_that_decides(implementation: ModuleType, raw: bool) -> None:
    chunks = [USAGE_FIRST, *BARE]
    result = _result(implementation, _sse(chunks) if raw else chunks)
    assert (result.format, result.text, result.usage, result.violations) == (
        "openai-completions",
        "Paris.",
        {"total_tokens": 3},
        (),
    )


@pytest.mark.parametrize("raw", [False, True], ids=["objects", "bytes"])
def test_a_chat_stream_after_a_chunk_of_empty_choices_is_chat_with_its_text_once(
    implementation: ModuleType, raw: bool
) -> None:
    # Azure's first chunk: empty choices, an empty object, its prompt_filter_results.
    azure = {"id": "", "object": "", "choices": [], "prompt_filter_results": []}
    chunks: list[Any] = [azure, {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}]
    if not raw:
        chunks[0] = construct_type(type_=ChatCompletionChunk, value=azure)  # as the SDK builds it
    result = _result(implementation, _sse([azure, chunks[1]]) if raw else chunks)
    assert (result.format, result.text, result.violations) == ("openai-chat", "hi", ())


def test_a_chunk_of_empty_choices_as_a_plain_object_is_read_by_its_attributes(implementation: ModuleType) -> None:
    # Found by the differential test: Azure's first chunk as a client library builds it (not the SDK's model) decides
    # nothing, so it was serialized, and a SimpleNamespace has no JSON form: the stream failed as malformed.
    azure = SimpleNamespace(
        id="", object="", choices=[], prompt_filter_results=[SimpleNamespace(prompt_index=0, content_filter_results={})]
    )
    chat = {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}
    result = _result(implementation, [azure, chat])
    assert (result.format, result.text, result.violations) == ("openai-chat", "hi", ())


@pytest.mark.parametrize("raw", [False, True], ids=["objects", "bytes"])
def test_a_stream_of_only_empty_choices_is_an_understood_chat_stream(implementation: ModuleType, raw: bool) -> None:
    result = _result(implementation, _sse([USAGE_FIRST]) if raw else [USAGE_FIRST])
    assert (result.format, result.usage) == ("openai-chat", {"total_tokens": 3})
    assert "UNRECOGNIZED_STREAM" not in [violation.code.value for violation in result.violations]


ERROR_OBJECT = {"object": "error", "message": "boom", "type": "InternalServerError", "param": None, "code": 500}


@pytest.mark.parametrize("raw", [False, True], ids=["objects", "bytes"])
@pytest.mark.parametrize("before", [[], [CHUNK]], ids=["first", "mid-stream"])
def test_vllms_error_object_is_a_provider_error_with_the_whole_chunk(
    implementation: ModuleType, raw: bool, before: list[dict[str, Any]]
) -> None:
    chunks = [*before, ERROR_OBJECT]
    result = _result(implementation, _sse(chunks) if raw else chunks)
    errors = [violation.data for violation in result.violations if violation.code.value == "PROVIDER_ERROR"]
    assert errors == [ERROR_OBJECT]
    assert "UNRECOGNIZED_STREAM" not in [violation.code.value for violation in result.violations]
