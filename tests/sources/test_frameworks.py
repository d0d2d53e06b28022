"""What frameworks hand their users reassembles like the wire chunks they came from.

LangChain's ``AIMessageChunk`` (its ``tool_call_chunks``, text content, ``response_metadata`` finish and
``usage_metadata``) is built here from each recorded OpenAI Chat stream the way LangChain's OpenAI integration
builds it, and LiteLLM's ``ModelResponseStream`` the way LiteLLM builds it from the same chunks; both must give the
same calls as the chunks themselves, sync and async.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from toolwire.recordings import iter_recordings


def representable(chunks: list[dict[str, Any]]) -> bool:
    """LangChain keeps one choice, no error events, and argument text only (its ``args`` is a string)."""
    numbers: set[Any] = set()
    for chunk in chunks:
        choices = chunk.get("choices") or ()
        if "error" in chunk or len(choices) > 1:
            return False
        numbers.update(choice.get("index") for choice in choices)
        if len(numbers) > 1:  # choices interleaved one per chunk (n > 1): LangChain would merge them
            return False
        for choice in choices:
            for call in (choice.get("delta") or {}).get("tool_calls") or ():
                if not isinstance((call.get("function") or {}).get("arguments"), (str, type(None))):
                    return False
    return True


CHAT = [
    pytest.param(recording, id=recording.name)
    for recording in iter_recordings(format="openai-chat")
    if representable(recording.chunks())
]


def langchain(chunk: dict[str, Any]) -> AIMessageChunk:
    """A chat chunk as LangChain's OpenAI integration turns it into a message chunk."""
    choice = (chunk.get("choices") or [{}])[0]
    delta = choice.get("delta") or {}
    pieces = [
        {
            "name": (call.get("function") or {}).get("name"),
            "args": (call.get("function") or {}).get("arguments"),
            "id": call.get("id"),
            "index": call.get("index"),
        }
        for call in delta.get("tool_calls") or ()
    ]
    metadata = {"finish_reason": choice["finish_reason"]} if choice.get("finish_reason") else {}
    return AIMessageChunk(content=delta.get("content") or "", tool_call_chunks=pieces, response_metadata=metadata)


def described(calls: Any) -> list[tuple[str, str | None, Any, bool]]:
    return [(call.id, call.name, call.arguments, call.ok) for call in sorted(calls, key=lambda call: call.seq)]


@pytest.mark.parametrize("recording", CHAT)
def test_langchain_message_chunks(recording: Any, implementation: ModuleType) -> None:
    chunks = recording.chunks()
    wire = implementation.reassemble(chunks, on_invalid="yield")
    expected = described(wire)
    stream = implementation.reassemble([langchain(chunk) for chunk in chunks], on_invalid="yield")
    assert described(stream) == expected
    assert stream.result.finish_reason == wire.result.finish_reason
    assert stream.result.text == wire.result.text

    async def source() -> AsyncIterator[AIMessageChunk]:
        for chunk in chunks:
            yield langchain(chunk)

    async def run() -> list[tuple[str, str | None, Any, bool]]:
        return described([call async for call in implementation.areassemble(source(), on_invalid="yield")])

    assert asyncio.run(run()) == expected


@pytest.mark.parametrize("recording", CHAT)
def test_litellm_model_response_stream_chunks(recording: Any, implementation: ModuleType) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
    from litellm.types.utils import ModelResponseStream

    chunks = recording.chunks()
    expected = described(implementation.reassemble(chunks, on_invalid="yield"))
    stream = implementation.reassemble([ModelResponseStream(**chunk) for chunk in chunks], on_invalid="yield")
    assert described(stream) == expected
