"""``toolwire.server`` over real HTTP: the official SDKs and raw httpx against the bundled script and recordings.

One endpoint per module (the bundled script plus every recording of ``recordings/``); each test sends real requests
and checks what the clients parse, what toolwire reassembles from it, and the bytes themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import RECORDINGS, REPO
from tests.support.server import (
    FORMATS,
    PARALLEL,
    SCRIPTED,
    TOOLS,
    codes,
    events,
    named,
    reassembled,
    request,
    tools_for,
)
from toolwire.recordings import Recording, iter_recordings, load_recording
from toolwire.server import LocalEndpoint, serve
from toolwire.server._replay import REPLAYED_FORMATS, SERVED_FORMATS

WEATHER_OPENAI = TOOLS.to_openai()
WEATHER_RESPONSES = TOOLS.to_openai_responses()
WEATHER_ANTHROPIC = TOOLS.to_anthropic()
MESSAGES: Any = [{"role": "user", "content": PARALLEL}]
AWS = "application/vnd.amazon.eventstream"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(recordings=RECORDINGS) as running:
        yield running


@pytest.fixture(scope="module")
def url(endpoint: LocalEndpoint) -> str:
    return endpoint.url


def post(url: str, path: str, body: Any, **options: Any) -> httpx.Response:
    with httpx.Client() as http:
        return http.post(url + path, json=body, **options)


# --- The official SDKs against the clean model ---------------------------------------------------------------------


def test_openai_chat_streamed(url: str) -> None:
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        stream = client.chat.completions.create(
            model="clean", messages=MESSAGES, tools=WEATHER_OPENAI, stream=True, stream_options={"include_usage": True}
        )
        calls, result = reassembled(stream, tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert all(call.ok and not call.violations for call in calls)
    assert result.finish_reason == "tool_calls"
    assert result.violations == ()
    assert result.usage is not None and result.usage.total_tokens > 0


def test_openai_chat_streamed_async(url: str) -> None:
    async def run() -> tuple[list[Any], Any]:
        async with openai.AsyncOpenAI(base_url=url, api_key="test", max_retries=0) as client:
            stream = await client.chat.completions.create(
                model="clean", messages=MESSAGES, tools=WEATHER_OPENAI, stream=True
            )
            calls = toolwire.areassemble(stream, tools=TOOLS)
            return [call async for call in calls], calls.result

    calls, result = asyncio.run(run())
    assert named(calls) == SCRIPTED
    assert result.violations == ()


def test_openai_chat_stream_helper(url: str) -> None:
    """The SDK's own accumulator (``chat.completions.stream``) builds the same two calls."""
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        with client.chat.completions.stream(model="clean", messages=MESSAGES, tools=WEATHER_OPENAI) as stream:
            for _ in stream:
                pass
            final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    assert [(call.function.name, call.function.arguments) for call in calls] == [
        ("get_weather", '{"city":"Paris","unit":"celsius"}'),
        ("get_weather", '{"city":"Tokyo","unit":"celsius"}'),
    ]
    assert final.choices[0].finish_reason == "tool_calls"


def test_openai_chat_buffered(url: str) -> None:
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        completion = client.chat.completions.create(model="clean", messages=MESSAGES, tools=WEATHER_OPENAI)
    assert completion.choices[0].finish_reason == "tool_calls"
    result = toolwire.normalize(completion, tools=TOOLS)
    assert named(result.calls) == SCRIPTED
    assert result.invalid_calls == () and result.violations == ()


def test_openai_chat_buffered_async(url: str) -> None:
    async def run() -> Any:
        async with openai.AsyncOpenAI(base_url=url, api_key="test", max_retries=0) as client:
            return await client.chat.completions.create(model="clean", messages=MESSAGES, tools=WEATHER_OPENAI)

    assert named(toolwire.normalize(asyncio.run(run()), tools=TOOLS).calls) == SCRIPTED


def test_openai_responses_streamed(url: str) -> None:
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        stream = client.responses.create(model="clean", input=PARALLEL, tools=WEATHER_RESPONSES, stream=True)
        calls, result = reassembled(stream, tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert result.finish_reason == "completed"
    assert result.violations == ()
    assert all(not call.violations for call in calls)


def test_openai_responses_stream_helper(url: str) -> None:
    """The SDK's own accumulator (``responses.stream``) checks sequence and item bookkeeping as it goes."""
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        with client.responses.stream(model="clean", input=PARALLEL, tools=WEATHER_RESPONSES) as stream:
            for _ in stream:
                pass
            final = stream.get_final_response()
    assert [(item.name, item.arguments) for item in final.output] == [
        ("get_weather", '{"city":"Paris","unit":"celsius"}'),
        ("get_weather", '{"city":"Tokyo","unit":"celsius"}'),
    ]


def test_openai_responses_async_and_buffered(url: str) -> None:
    async def run() -> tuple[list[Any], Any]:
        async with openai.AsyncOpenAI(base_url=url, api_key="test", max_retries=0) as client:
            stream = await client.responses.create(model="clean", input=PARALLEL, tools=WEATHER_RESPONSES, stream=True)
            calls = [call async for call in toolwire.areassemble(stream, tools=TOOLS)]
            response = await client.responses.create(model="clean", input=PARALLEL, tools=WEATHER_RESPONSES)
            return calls, response

    calls, response = asyncio.run(run())
    assert named(calls) == SCRIPTED
    assert response.status == "completed"
    result = toolwire.normalize(response, tools=TOOLS)
    assert named(result.calls) == SCRIPTED and result.violations == ()
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        buffered = client.responses.create(model="clean", input=PARALLEL, tools=WEATHER_RESPONSES)
    assert named(toolwire.normalize(buffered, tools=TOOLS).calls) == SCRIPTED


def anthropic_client(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url.removesuffix("/v1"), api_key="test", max_retries=0)


def test_anthropic_streamed(url: str) -> None:
    with anthropic_client(url) as client:
        stream = client.messages.create(
            model="clean", max_tokens=256, messages=MESSAGES, tools=WEATHER_ANTHROPIC, stream=True
        )
        calls, result = reassembled(stream, tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert result.finish_reason == "tool_use"
    assert result.violations == ()


def test_anthropic_stream_helper(url: str) -> None:
    """``messages.stream`` parses every ``partial_json`` itself and builds the final message."""
    with anthropic_client(url) as client:
        with client.messages.stream(
            model="clean", max_tokens=256, messages=MESSAGES, tools=WEATHER_ANTHROPIC
        ) as stream:
            calls, result = reassembled(stream, tools=TOOLS)
            final = stream.get_final_message()
    assert named(calls) == SCRIPTED
    assert result.violations == ()
    assert [(block.name, block.input) for block in final.content if block.type == "tool_use"] == SCRIPTED
    assert final.stop_reason == "tool_use"


def test_anthropic_async_and_buffered(url: str) -> None:
    async def run() -> tuple[list[Any], list[Any], Any]:
        async with anthropic.AsyncAnthropic(base_url=url.removesuffix("/v1"), api_key="test", max_retries=0) as client:
            stream = await client.messages.create(
                model="clean", max_tokens=256, messages=MESSAGES, tools=WEATHER_ANTHROPIC, stream=True
            )
            calls = [call async for call in toolwire.areassemble(stream, tools=TOOLS)]
            async with client.messages.stream(
                model="clean", max_tokens=256, messages=MESSAGES, tools=WEATHER_ANTHROPIC
            ) as helper:
                helped = [call async for call in toolwire.areassemble(helper, tools=TOOLS)]
            message = await client.messages.create(
                model="clean", max_tokens=256, messages=MESSAGES, tools=WEATHER_ANTHROPIC
            )
            return calls, helped, message

    calls, helped, message = asyncio.run(run())
    assert named(calls) == named(helped) == SCRIPTED
    assert message.stop_reason == "tool_use"
    result = toolwire.normalize(message, tools=TOOLS)
    assert named(result.calls) == SCRIPTED and result.violations == ()


# --- Raw bytes, text, determinism ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_raw_bytes_reassemble_to_the_scripted_calls(url: str, fmt: str) -> None:
    path, body = request(fmt)
    with httpx.Client() as http, http.stream("POST", url + path, json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        calls, result = reassembled(response.iter_bytes(), tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert result.violations == ()
    assert result.format == fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_stream_really_streams_one_event_per_write(url: str, fmt: str) -> None:
    """Each event is its own write: an async client sees several reads, the first long before the end."""
    path, body = request(fmt, "quirk/delay")

    async def run() -> list[bytes]:
        async with httpx.AsyncClient() as http, http.stream("POST", url + path, json=body) as response:
            return [chunk async for chunk in response.aiter_raw()]

    reads = asyncio.run(run())
    assert len(reads) >= 10
    assert all(read.endswith(b"\n\n") for read in reads)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("stream", [True, False])
def test_the_same_request_gives_the_same_bytes(url: str, fmt: str, stream: bool) -> None:
    path, body = request(fmt, stream=stream)
    first, second = post(url, path, body), post(url, path, body)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    other = post(url, path, {**body, "temperature": 0.5})
    assert other.content != first.content  # ids are derived from the request


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_replies_in_every_format(url: str, fmt: str) -> None:
    path, body = request(fmt, choice="none")
    calls, result = reassembled(post(url, path, body).content, tools=TOOLS)
    assert calls == []
    assert result.text == "I will answer this without calling a tool."
    assert result.violations == ()
    _, buffered = request(fmt, choice="none", stream=False)
    normalized = toolwire.normalize(post(url, path, buffered).json(), tools=TOOLS)
    assert normalized.calls == () and normalized.text == result.text


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_before_calls(fmt: str) -> None:
    script = {
        "models": {
            "chatty": {
                "chunking": {"max_fragment": 3, "seed": 7},
                "rules": [
                    {
                        "reply": {
                            "text": "Let me look that up.",
                            "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
                        }
                    }
                ],
            }
        }
    }
    with serve(script) as base:
        path, body = request(fmt, "chatty")
        raw = post(base, path, body).content
        calls, result = reassembled(raw, tools=TOOLS)
        _, buffered = request(fmt, "chatty", stream=False)
        normalized = toolwire.normalize(post(base, path, buffered).json(), tools=TOOLS)
    assert named(calls) == named(normalized.calls) == [("get_weather", {"city": "Oslo"})]
    assert result.text == normalized.text == "Let me look that up."
    assert result.violations == normalized.violations == ()


def test_chunking_is_seeded_and_bounded() -> None:
    """Fragments hold 1..max_fragment characters; another seed splits differently, the arguments stay the same."""

    def fragments(seed: int) -> list[str]:
        script = {
            "models": {
                "m": {
                    "chunking": {"max_fragment": 4, "seed": seed},
                    "rules": [{"reply": {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}}],
                }
            }
        }
        with serve(script) as base:
            raw = post(base, *request("openai-chat", "m")).content
        found = []
        for _, chunk in events(raw):
            if isinstance(chunk, dict) and chunk["choices"]:
                for entry in chunk["choices"][0]["delta"].get("tool_calls", []):
                    found.append(entry["function"]["arguments"])
        return found

    first, again, other = fragments(1), fragments(1), fragments(2)
    assert first == again != other
    assert "".join(first) == "".join(other) == '{"city":"Paris"}'
    assert first[0] == "" and all(1 <= len(text) <= 4 for text in first[1:])


@pytest.mark.parametrize("fmt", FORMATS)
def test_usage_is_reported(url: str, fmt: str) -> None:
    path, body = request(fmt, stream_options={"include_usage": True}) if fmt == "openai-chat" else request(fmt)
    _, result = reassembled(post(url, path, body).content)
    assert result.usage
    if fmt == "openai-chat":
        usage_chunks = [c for _, c in events(post(url, path, body).content) if isinstance(c, dict) and c.get("usage")]
        assert len(usage_chunks) == 1 and usage_chunks[0]["choices"] == []


# --- Models, errors ------------------------------------------------------------------------------------------------


def test_models_list_in_both_sdks(endpoint: LocalEndpoint, url: str) -> None:
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        ids = [model.id for model in client.models.list()]
        assert client.models.retrieve("quirk/truncate").id == "quirk/truncate"
        with pytest.raises(openai.NotFoundError):
            client.models.retrieve("nope")
    assert ids == list(endpoint.models)
    assert ids[0] == "clean"
    assert {f"quirk/{quirk}" for quirk in toolwire.server.QUIRKS} <= set(ids)
    assert "recording:openai-chat/parallel-calls" in ids
    assert "recording:gemini/json-array-thought-then-call" in ids  # replayed on Gemini's own path
    assert not any(name.startswith("recording:ollama/") for name in ids)  # a format the endpoint does not speak
    with anthropic_client(url) as client:
        assert [model.id for model in client.models.list()] == ids


@pytest.mark.parametrize("fmt", FORMATS)
def test_unknown_model_is_404_in_the_formats_shape(url: str, fmt: str) -> None:
    path, body = request(fmt, "gpt-nope")
    response = post(url, path, body)
    assert response.status_code == 404
    error = response.json()
    if fmt == "anthropic-messages":
        assert error["type"] == "error" and error["error"]["type"] == "not_found_error"
    else:
        assert error["error"]["code"] == "model_not_found" and error["error"]["param"] == "model"
    assert "'gpt-nope' does not exist" in str(error) and "clean" in str(error)


def test_the_sdks_raise_their_own_errors(url: str) -> None:
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        with pytest.raises(openai.NotFoundError, match="does not exist"):
            client.chat.completions.create(model="gpt-nope", messages=MESSAGES)
        with pytest.raises(openai.BadRequestError, match="messages"):
            client.chat.completions.create(model="clean", messages=[])
    with anthropic_client(url) as client:
        with pytest.raises(anthropic.NotFoundError, match="does not exist"):
            client.messages.create(model="gpt-nope", max_tokens=5, messages=MESSAGES)


def bad_chat(field: str, fragment: str, *, id: str, **members: Any) -> Any:  # pytest.param's type is not public
    """A malformed Chat Completions body: a valid model and messages, and ``members`` that break it."""
    return pytest.param("openai-chat", {"model": "clean", "messages": MESSAGES, **members}, field, fragment, id=id)


BAD_BODIES = [
    pytest.param("openai-chat", b"{not json", None, "not valid JSON", id="chat-not-json"),
    pytest.param("openai-chat", b"", None, "empty", id="chat-empty"),
    pytest.param("openai-chat", b"[1, 2]", None, "must be a JSON object", id="chat-array"),
    pytest.param("openai-chat", {"messages": MESSAGES}, "model", "model", id="chat-no-model"),
    pytest.param(
        "openai-chat", {"model": "clean", "messages": "hi"}, "messages", "expected an array", id="chat-messages-string"
    ),
    pytest.param(
        "openai-chat",
        {"model": "clean", "messages": [{"role": "robot", "content": "x"}]},
        "messages[0].role",
        "robot",
        id="chat-role",
    ),
    pytest.param(
        "openai-chat",
        {"model": "clean", "messages": [{"role": "user", "content": 3}]},
        "messages[0].content",
        "got number",
        id="chat-content",
    ),
    bad_chat("stream", "boolean", id="chat-stream", stream="yes"),
    bad_chat("tools", "array", id="chat-tools-object", tools={"a": 1}),
    bad_chat(
        "tools",
        "tools[0]: function.name must be a string",
        id="chat-tool-name",
        tools=[{"type": "function", "function": {"name": 3}}],
    ),
    bad_chat(
        "tools",
        "/properties/a/type",
        id="chat-tool-schema",
        tools=[
            {
                "type": "function",
                "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "strin"}}}},
            }
        ],
    ),
    bad_chat(
        "tool_choice",
        "not offered",
        id="chat-choice-not-offered",
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    ),
    bad_chat("tool_choice", "'maybe'", id="chat-choice-string", tool_choice="maybe"),
    bad_chat("tool_choice", "no tools", id="chat-required-no-tools", tool_choice="required"),
    bad_chat("stream_options.include_usage", "boolean", id="chat-usage", stream_options={"include_usage": "y"}),
    pytest.param("openai-responses", {"model": "clean"}, "input", "missing", id="responses-no-input"),
    pytest.param("openai-responses", {"model": "clean", "input": [3]}, "input[0]", "input item", id="responses-item"),
    pytest.param(
        "openai-responses",
        {"model": "clean", "input": "hi", "instructions": 1},
        "instructions",
        "string",
        id="responses-instructions",
    ),
    pytest.param(
        "anthropic-messages",
        {"model": "clean", "messages": MESSAGES},
        "max_tokens",
        "positive integer",
        id="anthropic-no-max-tokens",
    ),
    pytest.param(
        "anthropic-messages",
        {"model": "clean", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]},
        "messages[0].role",
        "user, assistant",
        id="anthropic-role",
    ),
    pytest.param(
        "anthropic-messages",
        {"model": "clean", "max_tokens": 5, "messages": MESSAGES, "system": 5},
        "system",
        "string",
        id="anthropic-system",
    ),
]


@pytest.mark.parametrize(("fmt", "body", "field", "fragment"), BAD_BODIES)
def test_malformed_requests_are_400_naming_the_field(
    url: str, fmt: str, body: Any, field: str | None, fragment: str
) -> None:
    path = request(fmt)[0]
    with httpx.Client() as http:
        if isinstance(body, bytes):
            response = http.post(url + path, content=body, headers={"content-type": "application/json"})
        else:
            response = http.post(url + path, json=body)
    assert response.status_code == 400
    error = response.json()
    message = error["error"]["message"]
    if fmt == "anthropic-messages":
        assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    else:
        assert error["error"]["type"] == "invalid_request_error" and error["error"]["param"] == field
    if field is not None:
        assert message.startswith(f"{field}: ") or message.startswith(f"{field.split('[')[0]}: "), message
    assert fragment in message
    # The server is still answering.
    assert post(url, *request(fmt)).status_code == 200


def test_unknown_paths_are_404(url: str) -> None:
    with httpx.Client() as http:
        response = http.get(url + "/chat/completions")
        assert response.status_code == 404
        assert "POST /v1/chat/completions" in response.json()["error"]["message"]
        assert http.post(url.removesuffix("/v1") + "/v2/nothing", json={}).status_code == 404


@pytest.mark.parametrize("fmt", FORMATS)
def test_reject_keywords_refuses_in_the_formats_shape(url: str, fmt: str) -> None:
    tools = toolwire.ToolRegistry(
        {
            "get_weather": {"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "refund": {
                "parameters": {
                    "type": "object",
                    "properties": {"amount": {"anyOf": [{"type": "number"}, {"type": "string"}]}},
                }
            },
        }
    )
    path, body = request(fmt, "quirk/reject_keywords", tools=tools)
    response = post(url, path, body)
    assert response.status_code == 400
    expected = "Invalid schema for function 'refund': 'anyOf' is not supported (at /properties/amount/anyOf)"
    error = response.json()
    assert error["error"]["message"] == expected
    if fmt != "anthropic-messages":
        assert error["error"]["param"] == "tools[1]" and error["error"]["code"] == "invalid_function_parameters"
    # A property merely *named* like a refused keyword is accepted; so is the same request on the clean model.
    named_like = toolwire.ToolRegistry({"f": {"type": "object", "properties": {"oneOf": {"type": "string"}}}})
    assert post(url, *request(fmt, "quirk/reject_keywords", tools=named_like)).status_code == 200
    assert post(url, *request(fmt, "clean", tools=tools)).status_code == 200


@pytest.mark.parametrize("fmt", FORMATS)
def test_scripted_errors_and_unsynthesizable_tools(fmt: str) -> None:
    script = {
        "models": {
            "busy": {"rules": [{"reply": {"error": {"status": 529, "message": "Overloaded"}}}]},
            "auto": {},
        }
    }
    pattern = toolwire.ToolRegistry(
        {
            "lookup": {
                "type": "object",
                "properties": {"id": {"type": "string", "pattern": "^A[0-9]+$"}},
                "required": ["id"],
            }
        }
    )
    with serve(script) as base:
        busy = post(base, *request(fmt, "busy"))
        assert busy.status_code == 529
        if fmt == "anthropic-messages":
            assert busy.json() == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        else:
            assert busy.json()["error"]["message"] == "Overloaded" and busy.json()["error"]["type"] == "server_error"
        refused = post(base, *request(fmt, "auto", "Look it up", tools=pattern, choice="lookup"))
        assert refused.status_code == 422
        message = refused.json()["error"]["message"]
        assert "'lookup'" in message and "/id" in message and "pattern" in message and "add a rule" in message
        fine = post(base, *request(fmt, "auto", "Look it up", tools=pattern))  # auto, not forced: text
        assert fine.status_code == 200


# --- otherwise: auto -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_auto_calls_the_forced_tool_with_synthesized_arguments(url: str, fmt: str) -> None:
    tools = toolwire.ToolRegistry(
        {
            "book": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "enum": ["blue", "red"]},
                    "nights": {"type": "integer", "minimum": 2},
                    "guest": {
                        "type": "object",
                        "properties": {"name": {"type": "string", "minLength": 10}},
                        "required": ["name"],
                    },
                    "note": {"type": "string"},
                },
                "required": ["room", "nights", "guest"],
            },
            "cancel": {"type": "object", "properties": {}},
        }
    )
    expected = [("book", {"room": "blue", "nights": 2, "guest": {"name": "examplexxx"}})]
    for choice, wanted in (("book", expected), ("required", expected), ("cancel", [("cancel", {})])):
        calls, result = reassembled(
            post(url, *request(fmt, prompt="Do it.", tools=tools, choice=choice)).content, tools=tools, tool_choice=None
        )
        assert named(calls) == wanted, choice
        assert result.violations == ()
    calls, result = reassembled(post(url, *request(fmt, prompt="Do it.", tools=tools, choice="auto")).content)
    assert calls == [] and result.text


# --- Recordings -------------------------------------------------------------------------------------------------------


def served(suffix: str) -> list[Any]:
    return [
        pytest.param(recording, id=recording.name)
        for recording in iter_recordings(RECORDINGS)
        if recording.format in SERVED_FORMATS and recording.path.suffix == suffix
    ]


@pytest.mark.parametrize("recording", served(".sse"))
def test_sse_recordings_replay_byte_for_byte(url: str, recording: Recording) -> None:
    path, body = request(recording.format, f"recording:{recording.name}", tools=None)
    response = post(url, path, body)
    assert response.status_code == 200
    assert response.content == recording.read_bytes()
    assert response.headers["content-type"].startswith("text/event-stream")


def sdk_events(recording: Recording, url: str) -> list[Any]:
    """What the format's official SDK yields for a replayed recording (an error event raises in the SDK)."""
    model = f"recording:{recording.name}"
    if recording.format == "anthropic-messages":
        with anthropic_client(url) as client:
            return list(client.messages.create(model=model, max_tokens=5, messages=MESSAGES, stream=True))
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        if recording.format == "openai-chat":
            return list(client.chat.completions.create(model=model, messages=MESSAGES, stream=True))
        return list(client.responses.create(model=model, input="hi", stream=True))


@pytest.mark.parametrize("recording", served(".sse") + served(".jsonl"))
def test_the_sdk_of_each_recordings_format_parses_it(url: str, recording: Recording) -> None:
    errors = (openai.APIError, anthropic.APIError)
    carries_error = any(isinstance(c, dict) and ("error" in c or c.get("type") == "error") for c in recording.chunks())
    if carries_error:
        with pytest.raises(errors):
            sdk_events(recording, url)
        return
    parsed = sdk_events(recording, url)
    assert parsed
    calls, result = reassembled(parsed, dialect=recording.dialect)
    expected = recording.expected
    calls.sort(key=lambda call: (call.choice, call.seq))
    assert [(call.id, call.name, call.arguments) for call in calls] == [
        (call["id"], call["name"], call["arguments"]) for call in expected["calls"]
    ]
    assert result.finish_reason == expected["finish_reason"]


def test_recordings_only_stream_and_only_on_their_own_endpoint(url: str) -> None:
    model = "recording:openai-chat/parallel-calls"
    buffered = post(url, *request("openai-chat", model, stream=False, tools=None))
    assert buffered.status_code == 400 and 'send "stream": true' in buffered.json()["error"]["message"]
    elsewhere = post(url, *request("anthropic-messages", model, tools=None))
    assert elsewhere.status_code == 400
    assert "served on /v1/chat/completions, not /v1/messages" in elsewhere.json()["error"]["message"]


# Gemini and Bedrock recordings are replayed on those APIs' own paths, the model named in the path.
CONTENT_TYPES = {".sse": "text/event-stream", ".json-array": "application/json", ".eventstream": AWS}
REPLAYED = [
    pytest.param(recording, id=recording.name)
    for recording in iter_recordings(RECORDINGS)
    if recording.format in REPLAYED_FORMATS
]


def replayed_path(recording: Recording, query: str = "") -> str:
    """The path a Gemini or Bedrock client posts to for a recording, at the endpoint's root."""
    model = f"recording:{recording.name}"
    if recording.format == "gemini":
        return f"/v1beta/models/{model}:streamGenerateContent{query}"
    return f"/model/{model}/converse-stream"


@contextmanager
def bedrock_client(url: str) -> Iterator[Any]:
    """A boto3 Bedrock client of the endpoint (at its root, as Bedrock's paths are), its connections closed after."""
    import boto3

    client = boto3.client(
        "bedrock-runtime",
        endpoint_url=url.removesuffix("/v1"),
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    with closing(client):
        yield client


def converse_stream(url: str, model: str) -> list[Any]:
    """The events boto3 yields for a streamed Converse answer."""
    messages = [{"role": "user", "content": [{"text": "hi"}]}]
    with bedrock_client(url) as client:
        stream = client.converse_stream(modelId=model, messages=messages)["stream"]
        with closing(stream):
            return list(stream)


@pytest.mark.parametrize("recording", [param for param in REPLAYED if param.values[0].path.suffix != ".jsonl"])
def test_raw_gemini_and_bedrock_recordings_replay_byte_for_byte(url: str, recording: Recording) -> None:
    for query in ("", "?alt=sse"):  # a raw body is sent as it was received, whatever the request asks
        response = post(url.removesuffix("/v1"), replayed_path(recording, query), {"contents": []})
        assert response.status_code == 200
        assert response.content == recording.read_bytes()
        assert response.headers["content-type"].startswith(CONTENT_TYPES[recording.path.suffix])


@pytest.mark.parametrize("recording", [param for param in REPLAYED if param.values[0].format == "gemini"])
def test_gemini_recordings_read_as_sent_and_chunks_as_alt_asks(url: str, recording: Recording) -> None:
    expected = [(call["id"], call["name"], call["arguments"]) for call in recording.expected["calls"]]
    for query, framing in (("?alt=sse", "text/event-stream"), ("", "application/json")):
        response = post(url.removesuffix("/v1"), replayed_path(recording, query), {"contents": []})
        if recording.path.suffix == ".jsonl":
            assert response.headers["content-type"].startswith(framing)
        for implementation in IMPLEMENTATIONS.values():
            calls = implementation.reassemble(response.content, on_invalid="yield")
            assert [(call.id, call.name, call.arguments) for call in calls] == expected
            assert calls.result.finish_reason == recording.expected["finish_reason"]


@pytest.mark.parametrize("recording", [param for param in REPLAYED if param.values[0].format == "bedrock-converse"])
def test_boto3_reads_every_bedrock_recording(url: str, recording: Recording) -> None:
    """botocore parses the served AWS event stream itself (both CRCs of every message) and yields the events."""
    from botocore.exceptions import EventStreamError

    model = f"recording:{recording.name}"
    if any(next(iter(chunk)).endswith("Exception") for chunk in recording.chunks()):
        with pytest.raises(EventStreamError, match=next(iter(recording.chunks()[-1]))):
            converse_stream(url, model)
        return
    calls = toolwire.reassemble(converse_stream(url, model), on_invalid="yield")
    assert [(call.id, call.name, call.arguments) for call in calls] == [
        (call["id"], call["name"], call["arguments"]) for call in recording.expected["calls"]
    ]
    assert calls.result.finish_reason == recording.expected["finish_reason"]


def test_bedrock_events_are_framed_as_the_messages_bedrock_sends(tmp_path: Path) -> None:
    """Recorded SDK events become event, exception and error messages, as botocore and the core read them back."""
    from botocore.eventstream import EventStreamBuffer

    events = [
        {"messageStart": {"role": "assistant"}},
        {"throttlingException": {"message": "slow down"}},
        {"error": {"code": "InternalFailure", "message": "it broke"}},
        {"error": {"code": None, "message": "no code"}},
    ]
    recording = toolwire.recordings.write(tmp_path, "bedrock-converse/errors", events, format="bedrock-converse")
    with LocalEndpoint(recordings=tmp_path) as running:
        body = post(running.url.removesuffix("/v1"), replayed_path(recording), {}).content
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    assert [(message.headers, message.payload) for message in buffer] == [
        ({":message-type": "event", ":event-type": "messageStart", ":content-type": "application/json"},
         b'{"role": "assistant"}'),
        ({":message-type": "exception", ":exception-type": "throttlingException", ":content-type": "application/json"},
         b'{"message": "slow down"}'),
        ({":message-type": "error", ":error-code": "InternalFailure", ":error-message": "it broke"}, b""),
        ({":message-type": "error", ":error-message": "no code"}, b""),
    ]  # fmt: skip
    assert toolwire.recordings.decode_eventstream(body) == events
    result = toolwire.reassemble(body, format="bedrock-converse", on_invalid="yield")
    assert list(result) == [] and [v.code.value for v in result.result.violations].count("PROVIDER_ERROR") == 3


def test_replayed_routes_answer_errors_in_their_own_shape(url: str) -> None:
    from botocore.exceptions import ClientError

    root = url.removesuffix("/v1")
    missing = post(root, "/v1beta/models/recording:gemini/nope:streamGenerateContent", {})
    assert missing.status_code == 404
    assert missing.json()["error"]["status"] == "NOT_FOUND"
    assert "recording:gemini/json-array-thought-then-call" in missing.json()["error"]["message"]
    scripted = post(root, "/v1beta/models/clean:streamGenerateContent", {})
    assert scripted.status_code == 400 and "replays recordings only" in scripted.json()["error"]["message"]
    broken = post(root, "/model/recording:bedrock-converse/text-then-tool-use/converse-stream", None, content=b"{")
    assert broken.status_code == 400 and broken.headers["x-amzn-errortype"] == "ValidationException"
    with pytest.raises(ClientError, match=re.escape("served on /v1/chat/completions, not /model/{modelId}/converse-")):
        converse_stream(url, "recording:openai-chat/parallel-calls")
    with pytest.raises(ClientError, match="ResourceNotFoundException"):
        converse_stream(url, "recording:bedrock-converse/nope")
    # A Gemini recording asked for on an OpenAI route says where it is served.
    elsewhere = post(url, *request("openai-chat", "recording:gemini/json-array-thought-then-call", tools=None))
    assert elsewhere.status_code == 400
    assert "served on /v1beta/models/{model}:streamGenerateContent" in elsewhere.json()["error"]["message"]


def test_a_recording_written_without_status_or_content_type_is_served(tmp_path: Path) -> None:
    """``write`` keeps ``"status": null`` when none was given: the endpoint then answers 200, in the framing's type."""
    chunks = load_recording(RECORDINGS / "openai-chat" / "parallel-calls.sse").chunks()
    written = toolwire.recordings.write(tmp_path, "openai-chat/written", chunks, format="openai-chat")
    assert written.manifest["transport"] == {"status": None, "content_type": None}
    with LocalEndpoint(recordings=tmp_path) as running:
        response = post(running.url, *request("openai-chat", "recording:openai-chat/written", tools=None))
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert [call.name for call in toolwire.reassemble(response.content)] == ["plus", "minus"]


def test_recorded_network_reads_are_kept(tmp_path: Path) -> None:
    """With ``transport.chunks`` in the manifest, the bytes go out in those writes."""
    folder = tmp_path / "openai-chat"
    folder.mkdir()
    source = RECORDINGS / "openai-chat" / "parallel-calls"
    data = source.with_suffix(".sse").read_bytes()
    (folder / "cut.sse").write_bytes(data)
    document = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    document["transport"] = {
        "status": 200,
        "content_type": "text/event-stream",
        "chunks": [[0, 7], [5, 100], [9, len(data) - 107]],
    }
    (folder / "cut.json").write_text(json.dumps(document), encoding="utf-8")

    async def reads(base: str) -> list[bytes]:
        path, body = request("openai-chat", "recording:openai-chat/cut", tools=None)
        async with httpx.AsyncClient() as http, http.stream("POST", base + path, json=body) as response:
            return [chunk async for chunk in response.aiter_raw()]

    with serve(recordings=tmp_path) as base:
        got = asyncio.run(reads(base))
    assert b"".join(got) == data
    assert got[0] == data[:7]
    document["transport"]["chunks"] = [[0, 3]]
    (folder / "cut.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ValueError, match="add up to"):
        LocalEndpoint(recordings=tmp_path)


def test_a_rule_can_reply_with_a_recording() -> None:
    script = {
        "models": {"replayer": {"rules": [{"reply": {"recording": "anthropic-messages/text-then-tool-use-paris"}}]}}
    }
    with serve(script) as base:
        raw = post(base, *request("anthropic-messages", "replayer", tools=None)).content
    assert raw == (RECORDINGS / "anthropic-messages" / "text-then-tool-use-paris.sse").read_bytes()
    with pytest.raises(ValueError, match=r"models\.replayer\.rules\[0\]\.reply\.recording: no recording"):
        LocalEndpoint({"models": {"replayer": {"rules": [{"reply": {"recording": "openai-chat/nope"}}]}}})
    with pytest.raises(ValueError, match="is a gemini recording"):
        LocalEndpoint({"models": {"r": {"otherwise": {"recording": "gemini/max-tokens-cut"}}}})


# --- Running: start, stop, log -------------------------------------------------------------------------------------


def test_start_and_stop_repeatedly() -> None:
    endpoint = LocalEndpoint()
    with pytest.raises(RuntimeError, match="not running"):
        _ = endpoint.url
    ports = set()
    for _ in range(3):
        url = endpoint.start()
        assert url == endpoint.url and endpoint.running
        with pytest.raises(RuntimeError, match="already running"):
            endpoint.start()
        assert post(url, *request("openai-chat")).status_code == 200
        ports.add(url.rsplit(":", 1)[1])
        endpoint.stop()
        assert not endpoint.running
        endpoint.stop()  # idempotent
        with pytest.raises(httpx.ConnectError):
            post(url, *request("openai-chat"))
    assert len(endpoint.requests) == 3


def test_serve_picks_free_ports_and_runs_side_by_side() -> None:
    with serve() as first, serve() as second:
        assert first != second
        for base in (first, second):
            assert post(base, *request("openai-chat")).status_code == 200


def test_a_taken_port_is_an_oserror() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            LocalEndpoint(port=port).start()
    with pytest.raises(TypeError, match="port"):
        LocalEndpoint(port=-1)


def test_the_request_log_redacts_credentials() -> None:
    with LocalEndpoint() as endpoint:
        with openai.OpenAI(base_url=endpoint.url, api_key="sk-secret-123", max_retries=0) as client:
            client.chat.completions.create(model="clean", messages=MESSAGES, tools=WEATHER_OPENAI)
        with anthropic.Anthropic(
            base_url=endpoint.url.removesuffix("/v1"), api_key="sk-ant-secret", max_retries=0
        ) as client:
            client.messages.create(model="clean", max_tokens=5, messages=MESSAGES)
        with httpx.Client() as http:
            secrets = {"api-key": "k", "cookie": "c", "x-api-key": "sk-ant-other"}
            http.post(endpoint.url + "/responses", content=b"nope", headers=secrets)
    first, second, third = endpoint.requests
    assert (first.method, first.path) == ("POST", "/v1/chat/completions")
    assert first.body["messages"] == MESSAGES and first.body["tools"] == WEATHER_OPENAI
    assert first.headers["authorization"] == "[REDACTED]"
    # This anthropic SDK sends its key as a bearer token; older ones (and curl examples) use x-api-key.
    assert second.path == "/v1/messages" and second.headers["authorization"] == "[REDACTED]"
    assert third.body is None
    assert third.headers["api-key"] == third.headers["cookie"] == third.headers["x-api-key"] == "[REDACTED]"
    assert "secret" not in repr(endpoint.requests)


def test_agent_loop_gets_a_final_answer_after_tool_results(url: str) -> None:
    """The bundled script answers tool results with text, so an agent loop ends."""
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        messages: list[Any] = list(MESSAGES)
        stream = client.chat.completions.create(model="clean", messages=messages, tools=WEATHER_OPENAI, stream=True)
        calls = toolwire.reassemble(stream, tools=TOOLS)
        ran = [(call.id, f"18 degrees in {call.arguments['city']}") for call in calls]
        messages.append(calls.result.to_history("openai-chat"))
        messages += [{"role": "tool", "tool_call_id": call_id, "content": text} for call_id, text in ran]
        final = client.chat.completions.create(model="clean", messages=messages, tools=WEATHER_OPENAI)
    assert final.choices[0].message.tool_calls is None
    assert final.choices[0].finish_reason == "stop"
    assert final.choices[0].message.content == "Thanks, that is what the tools returned."


# --- The command -----------------------------------------------------------------------------------------------------


def test_the_serve_command_parses_its_options() -> None:
    from toolwire.cli import build_parser

    parser = build_parser(["serve"])
    options = parser.parse_args(["serve"])
    assert (options.script, options.recordings, options.host, options.port) == (None, None, "127.0.0.1", 8000)
    options = parser.parse_args(["serve", "s.yaml", "--recordings", "recs", "--host", "0.0.0.0", "--port", "0"])
    assert (options.script, options.recordings, options.host, options.port) == (
        Path("s.yaml"),
        Path("recs"),
        "0.0.0.0",
        0,
    )


def test_run_serves_until_interrupted(tmp_path: Path) -> None:
    import argparse
    import io

    from toolwire.cli import _serve

    script = tmp_path / "script.json"
    script.write_text('{"models": {"only": {"otherwise": {"text": "hi"}}}}', encoding="utf-8")
    options = argparse.Namespace(script=script, recordings=None, host="127.0.0.1", port=0)
    out = io.StringIO()
    answers = []

    def wait() -> None:
        base = out.getvalue().splitlines()[0].split(": ", 1)[1]
        answers.append(toolwire.normalize(post(base, *request("openai-chat", "only", stream=False)).json()).text)
        raise KeyboardInterrupt

    assert _serve.run(options, out, wait) == 0
    assert answers == ["hi"]
    assert "1 models: only" in out.getvalue() and out.getvalue().endswith("stopped\n")


def test_toolwire_serve_from_a_shell() -> None:
    """``python -m toolwire serve --port 0`` prints its URL, answers, and stops cleanly on Ctrl-C."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("toolwire serve: http://127.0.0.1:"), first + (
            process.stderr.read() if process.stderr else ""
        )
        base = first.split(": ", 1)[1].strip()
        calls, _ = reassembled(post(base, *request("openai-chat")).content)
        assert named(calls) == SCRIPTED
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "stopped" in out


def test_tools_of_every_shape_are_read(url: str) -> None:
    """The endpoint reads each format's own tool shape, and the others' (as ToolRegistry does)."""
    for fmt in FORMATS:
        path, body = request(fmt)
        body["tools"] = tools_for("anthropic-messages" if fmt != "anthropic-messages" else "openai-chat")
        calls, result = reassembled(post(url, path, body).content, tools=TOOLS)
        assert named(calls) == SCRIPTED, fmt
        assert codes(result.violations) == []


def test_a_bug_in_a_renderer_is_a_500_and_the_server_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from toolwire.server import _app

    def broken(turn: Any, context: Any) -> dict[str, Any]:
        raise KeyError("oops")

    chat = _app._FORMATS["openai-chat"]
    monkeypatch.setitem(_app._FORMATS, "openai-chat", dataclasses.replace(chat, buffered=broken))
    with serve() as base:
        response = post(base, *request("openai-chat", stream=False))
        assert response.status_code == 500
        assert response.json()["error"] == {
            "message": "internal error of the toolwire endpoint: KeyError: 'oops'",
            "type": "server_error",
            "param": None,
            "code": None,
        }
        assert post(base, *request("openai-chat")).status_code == 200


def test_a_missing_recordings_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such recordings folder"):
        LocalEndpoint(recordings=tmp_path / "nope")
