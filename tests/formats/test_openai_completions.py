"""The legacy completions format (``openai-completions``): told from chat, read as text, its turn written back.

The stream rules are held by its recordings (tests/recordings) and the differential tests; these hold what the
format's module says and how chunk objects (dicts, the openai SDK's ``Completion``) are told from chat chunks.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from openai._models import construct_type
from openai.types import Completion

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
