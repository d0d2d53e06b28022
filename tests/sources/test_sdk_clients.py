"""The official SDK clients of every other format, and httpx, stream real recorded bytes from a loopback server.

The anthropic client (``messages.create(stream=True)`` and the ``messages.stream(...)`` helper), the openai client's
Responses API (``responses.create(stream=True)``), plain httpx (``iter_bytes``, ``iter_lines``, async
``aiter_bytes``) aiohttp (``content.iter_any()``, ``iter_chunked``) and boto3's Bedrock client (``converse_stream``, which
parses AWS's binary event stream itself) each read the recordings of `recordings/` over a real HTTP connection; whatever they hand over
reassembles, through the core and the reference, to the recording's expected calls.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import anthropic
import httpx
import openai
import pytest

import toolwire
import toolwire.reference
from tests.support.loopback import loopback, replay_handler
from toolwire.recordings import Recording, iter_recordings

SERVED: dict[str, bytes] = {}


def recordings(wire_format: str, *, sse_only: bool = True) -> list[Any]:
    found = [r for r in iter_recordings(format=wire_format) if r.path.suffix == ".sse" or not sse_only]
    return [pytest.param(recording, id=recording.name) for recording in found]


Handler = replay_handler(SERVED, 89)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with loopback(Handler) as url:
        yield url


def serve(recording: Recording) -> None:
    SERVED["body"] = recording.read_bytes()
    SERVED["type"] = b"application/x-ndjson" if recording.path.suffix == ".jsonl" else b"text/event-stream"


def expected(recording: Recording) -> list[tuple[str, str | None, Any]]:
    return [(call["id"], call["name"], call["arguments"]) for call in recording.expected["calls"]]


def reassembled(
    implementation: Any, source: Any, dialect: str | None = None
) -> tuple[list[tuple[str, str | None, Any]], Any]:
    stream = implementation.reassemble(source, dialect=dialect, on_invalid="yield")
    every = sorted(stream, key=lambda call: (call.choice, call.seq))
    return [(call.id, call.name, call.arguments) for call in every], stream.result


def raises_on_error_events(recording: Recording) -> bool:
    return any(chunk.get("type") == "error" or "error" in chunk for chunk in recording.chunks())


@pytest.mark.parametrize("recording", recordings("anthropic-messages"))
def test_anthropic_client_stream(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    serve(recording)
    with anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0) as client:
        stream = client.messages.create(
            model="claude-opus-4-6", max_tokens=100, messages=[{"role": "user", "content": "hi"}], stream=True
        )
        assert isinstance(stream, anthropic.Stream)
        calls, result = reassembled(implementation, stream)
    assert calls == expected(recording)
    assert result.finish_reason == recording.expected["finish_reason"]


@pytest.mark.parametrize("recording", recordings("anthropic-messages"))
def test_anthropic_stream_helper(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    """``messages.stream(...)`` yields the SDK's own extra events (``text``, ``input_json``) too: they are skipped."""
    if raises_on_error_events(recording):
        pytest.skip("the anthropic SDK raises on an error event instead of yielding it")
    if recording.manifest["quirk"] == "Q25":
        pytest.skip("the helper parses partial_json itself and raises on the invalid text (Q25) before yielding it")
    serve(recording)
    with anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0) as client:
        with client.messages.stream(
            model="claude-opus-4-6", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            calls, result = reassembled(implementation, stream)
    assert calls == expected(recording)
    assert result.output == recording_output(recording)


def recording_output(recording: Recording) -> tuple[Any, ...]:
    return tuple(
        toolwire.OutputItem(item["after_calls"], item["value"]) for item in recording.expected.get("output", [])
    )


@pytest.mark.parametrize("recording", recordings("openai-responses"))
def test_openai_responses_client_stream(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    serve(recording)
    with openai.OpenAI(base_url=f"{base_url}/v1", api_key="test", max_retries=0) as client:
        stream = client.responses.create(model="gpt-5", input="hi", stream=True)
        assert isinstance(stream, openai.Stream)
        calls, result = reassembled(implementation, stream)
    assert calls == expected(recording)
    assert result.finish_reason == recording.expected["finish_reason"]


@pytest.mark.parametrize(
    "recording",
    [
        *recordings("gemini"),
        *recordings("ollama", sse_only=False),
        *recordings("anthropic-messages"),
        *recordings("openai-responses"),
    ],
)
def test_httpx_bytes_and_lines(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    serve(recording)
    with httpx.Client() as http:
        for read in ("iter_bytes", "iter_lines", "iter_raw"):
            with http.stream("POST", f"{base_url}/x", json={}) as response:
                calls, result = reassembled(implementation, getattr(response, read)(), recording.dialect)
            assert calls == expected(recording), read
            assert result.finish_reason == recording.expected["finish_reason"], read


@pytest.mark.parametrize("recording", [*recordings("gemini"), *recordings("ollama", sse_only=False)])
def test_httpx_async_bytes(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    serve(recording)

    async def run() -> list[tuple[str, str | None, Any]]:
        async with httpx.AsyncClient() as http, http.stream("POST", f"{base_url}/x", json={}) as response:
            stream = implementation.areassemble(response.aiter_bytes(), dialect=recording.dialect, on_invalid="yield")
            every = sorted([call async for call in stream], key=lambda call: (call.choice, call.seq))
            return [(call.id, call.name, call.arguments) for call in every]

    assert asyncio.run(run()) == expected(recording)


@pytest.mark.parametrize(
    "recording", [*recordings("openai-chat"), *recordings("anthropic-messages"), *recordings("ollama", sse_only=False)]
)
def test_aiohttp_content_iterators(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    """aiohttp hands over its body as ``content.iter_any()`` (reads as they come) or ``iter_chunked(n)``."""
    import aiohttp

    serve(recording)

    async def run(read: str) -> list[tuple[str, str | None, Any]]:
        async with aiohttp.ClientSession() as session, session.post(f"{base_url}/x", json={}) as response:
            body = response.content.iter_any() if read == "iter_any" else response.content.iter_chunked(7)
            stream = implementation.areassemble(body, dialect=recording.dialect, on_invalid="yield")
            every = sorted([call async for call in stream], key=lambda call: (call.choice, call.seq))
            return [(call.id, call.name, call.arguments) for call in every]

    for read in ("iter_any", "iter_chunked"):
        assert asyncio.run(run(read)) == expected(recording), read


def aws_event(event: dict[str, Any]) -> bytes:
    """One ConverseStream event in AWS's binary event-stream framing, as Bedrock sends it."""
    import struct
    import zlib

    ((kind, payload),) = event.items()
    headers = b""
    for name, value in ((":message-type", "event"), (":event-type", kind), (":content-type", "application/json")):
        headers += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value.encode()
    body = json.dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


BEDROCK = [
    pytest.param(recording, id=recording.name)
    for recording in iter_recordings(format="bedrock-converse")
    if all(next(iter(event)).startswith(("message", "content", "metadata")) for event in recording.chunks())
]


@pytest.mark.parametrize("recording", BEDROCK)
def test_bedrock_converse_stream_through_boto3(base_url: str, recording: Recording, implementation: ModuleType) -> None:
    """boto3 parses Bedrock's binary event stream itself and yields each event as a dict: that is the source."""
    import boto3

    SERVED["body"] = b"".join(aws_event(event) for event in recording.chunks())
    SERVED["type"] = b"application/vnd.amazon.eventstream"
    client = boto3.client(
        "bedrock-runtime",
        endpoint_url=base_url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    response = client.converse_stream(modelId="m", messages=[{"role": "user", "content": [{"text": "hi"}]}])
    calls, result = reassembled(implementation, response["stream"])
    assert calls == expected(recording)
    assert result.finish_reason == recording.expected["finish_reason"]
    assert result.format == "bedrock-converse"
