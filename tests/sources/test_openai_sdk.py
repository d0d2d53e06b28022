"""The official openai SDK as the client: its Stream and AsyncStream objects are reassembled directly.

A loopback HTTP server (started and stopped by the test) serves recorded SSE bytes, exactly as in production. A
stream nothing has read is read from its bytes (``_pipeline/_sdk_bodies.py``: an error event is a ``PROVIDER_ERROR``,
not the SDK's ``APIError``), and the SDK builds its own ``ChatCompletionChunk`` objects once one was read;
``test_sdk_bodies.py`` holds the two paths to each other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionChunk

import toolwire
import toolwire.reference
from tests.support.loopback import loopback, replay_handler
from toolwire.recordings import iter_recordings

SSE_RECORDINGS = [recording for recording in iter_recordings(format="openai-chat") if recording.path.suffix == ".sse"]
SERVED: dict[str, bytes] = {}


Handler = replay_handler(SERVED, 97)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with loopback(Handler) as url:
        yield f"{url}/v1"


def request(client: Any) -> Any:
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)


def expected(recording: Any) -> list[tuple[str, str | None, Any]]:
    return [(call["id"], call["name"], call["arguments"]) for call in recording.expected["calls"]]


@pytest.mark.parametrize("recording", SSE_RECORDINGS, ids=[recording.name for recording in SSE_RECORDINGS])
def test_the_sdk_stream_object_is_a_source(base_url: str, recording: Any, implementation: Any) -> None:
    SERVED["body"] = recording.read_bytes()
    with openai.OpenAI(base_url=base_url, api_key="test", max_retries=0) as client:
        stream = request(client)
        assert isinstance(stream, openai.Stream)
        calls = implementation.reassemble(
            stream, on_invalid="yield", tool_choice=(recording.request or {}).get("tool_choice")
        )
        handed = list(calls)
        every = sorted(handed, key=lambda call: (call.choice, call.seq))
        assert [(call.id, call.name, call.arguments) for call in every] == expected(recording)
        assert calls.result.finish_reason == recording.expected["finish_reason"]
        assert stream.response.is_closed


def test_the_sdk_yields_its_own_chunk_objects(base_url: str) -> None:
    SERVED["body"] = SSE_RECORDINGS[0].read_bytes()
    with openai.OpenAI(base_url=base_url, api_key="test", max_retries=0) as client, request(client) as stream:
        assert all(isinstance(chunk, ChatCompletionChunk) for chunk in stream)


def test_breaking_out_closes_the_sdk_stream(base_url: str) -> None:
    recording = next(r for r in SSE_RECORDINGS if r.name.endswith("parallel-calls"))
    SERVED["body"] = recording.read_bytes()
    with openai.OpenAI(base_url=base_url, api_key="test", max_retries=0) as client:
        stream = request(client)
        for call in toolwire.reassemble(stream):
            assert call.name == "plus"
            break
        assert stream.response.is_closed


def test_the_async_sdk_stream_is_a_source(base_url: str) -> None:
    recording = next(r for r in SSE_RECORDINGS if r.name.endswith("parallel-calls"))
    SERVED["body"] = recording.read_bytes()

    async def run() -> tuple[list[str], bool]:
        async with openai.AsyncOpenAI(base_url=base_url, api_key="test", max_retries=0) as client:
            stream = await request(client)
            assert isinstance(stream, openai.AsyncStream)
            names = [call.name async for call in toolwire.areassemble(stream)]
            return names, stream.response.is_closed

    names, closed = asyncio.run(run())
    assert names == ["plus", "minus"]
    assert closed
