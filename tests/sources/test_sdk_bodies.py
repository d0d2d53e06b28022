"""The official SDKs' streams read from their bytes (``_pipeline/_sdk_bodies.py``), held to the object path.

Every recording of each format the SDKs speak is served over a real HTTP connection (loopback) and read through the
SDK's own client, sync and async, as its ``Stream`` (``create(stream=True)``) and its helper's manager
(``chat.completions.stream``, ``responses.stream``, ``messages.stream``): the bypass must give the same calls,
result and violations as the object path (forced by the private switch), on the core and the reference. Where the
SDK raises on an error event, the bypass reports the ``PROVIDER_ERROR`` the raw path reports. A helper stream the
caller holds (what the manager's ``__enter__`` returns) keeps the object path, its own state readable afterwards. The fallbacks (a stream already read, an internal missing or of another
type, an SDK version outside the tested range, a transport without a body) take the object path and still give the
right calls; every path closes the SDK stream at the end, on an error and on ``break``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import ModuleType
from typing import Any

import anthropic
import httpx2
import openai
import pytest

import toolwire
from tests.support.comparable import strict
from tests.support.loopback import loopback, replay_handler
from tests.support.paths import REPO as REPOSITORY
from toolwire._model import ChoiceResult, InvalidToolCall, OutputItem, Pending, StreamResult, ToolCall, Violation
from toolwire._pipeline import _sdk_bodies
from toolwire.formats import FORMATS
from toolwire.recordings import Recording, iter_recordings

SERVED: dict[str, bytes] = {}
Handler = replay_handler(SERVED, 101)
Handler.disable_nagle_algorithm = True  # each small write sent at once, not held for an ACK
MESSAGES = [{"role": "user", "content": "hi"}]
SDK_FORMATS = ("openai-chat", "openai-responses", "openai-completions", "anthropic-messages")
SDK_ERRORS = (openai.APIError, anthropic.APIError)
HOWS = ["create", "manager"]  # the SDK's stream, its helper's manager (the helper's stream keeps the object path)
HELPER_FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with loopback(Handler) as url:
        yield url
    for client in CLIENTS.values():
        client.close()
    CLIENTS.clear()


@contextmanager
def counted() -> Iterator[list[str]]:
    """The packages whose response bytes the bypass read while inside, in order."""
    seen: list[str] = []
    reads, areads = _sdk_bodies._reads, _sdk_bodies._areads

    def spy(response: Any, package: str) -> Iterator[bytes]:
        seen.append(package)
        return reads(response, package)

    def aspy(response: Any, package: str) -> AsyncIterator[bytes]:
        seen.append(package)
        return areads(response, package)

    _sdk_bodies._reads, _sdk_bodies._areads = spy, aspy
    try:
        yield seen
    finally:
        _sdk_bodies._reads, _sdk_bodies._areads = reads, areads


@pytest.fixture
def bypassed() -> Iterator[list[str]]:
    """The formats whose bytes the bypass read, in order (a spy on the one place it reads them)."""
    with counted() as seen:
        yield seen


def body(recording: Recording) -> bytes:
    """The recording as its server sent it: an ``.sse`` file as stored, a ``.jsonl`` one's events framed as the
    provider frames them (``stream_body``, as the endpoint's replay does)."""
    if recording.path.suffix == ".sse":
        return recording.read_bytes()
    return b"".join(FORMATS[recording.format].module.stream_body(recording.chunks()))


def serve(recording: Recording) -> None:
    SERVED["body"] = body(recording)
    SERVED["type"] = b"text/event-stream"


def sdk_readings() -> list[Any]:
    """Every recording of each format the SDKs speak, with each way its SDK reads it (a helper where it has one)."""
    return [
        pytest.param(recording, how, id=f"{recording.name}-{how}")
        for wire_format in SDK_FORMATS
        for recording in iter_recordings(format=wire_format)
        for how in (HOWS if wire_format in HELPER_FORMATS else HOWS[:1])
    ]


# How each format's SDK is asked, by what the user holds: the stream, the helper's manager, the helper stream.
def openai_client(base_url: str, is_async: bool) -> Any:
    kind = openai.AsyncOpenAI if is_async else openai.OpenAI
    return kind(base_url=f"{base_url}/v1", api_key="test", max_retries=0)


def anthropic_client(base_url: str, is_async: bool) -> Any:
    kind = anthropic.AsyncAnthropic if is_async else anthropic.Anthropic
    return kind(base_url=base_url, api_key="test", max_retries=0)


def client_of(wire_format: str, base_url: str, is_async: bool) -> Any:
    return (anthropic_client if wire_format == "anthropic-messages" else openai_client)(base_url, is_async)


def create(client: Any, wire_format: str) -> Any:
    """``create(..., stream=True)``: the SDK's ``Stream`` (a coroutine of its ``AsyncStream`` on an async client)."""
    if wire_format == "openai-chat":
        return client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    if wire_format == "openai-responses":
        return client.responses.create(model="m", input="hi", stream=True)
    if wire_format == "openai-completions":
        return client.completions.create(model="m", prompt="hi", stream=True)
    return client.messages.create(model="m", max_tokens=100, messages=MESSAGES, stream=True)


def manager(client: Any, wire_format: str) -> Any:
    """The SDK's streaming helper's manager (``None`` where the format has none; openai 1's was under ``beta``)."""
    if wire_format == "openai-chat":
        chat = client.chat if hasattr(client.chat.completions, "stream") else client.beta.chat
        return chat.completions.stream(model="m", messages=MESSAGES)
    if wire_format == "openai-responses":
        return client.responses.stream(model="m", input="hi")
    if wire_format == "anthropic-messages":
        return client.messages.stream(model="m", max_tokens=100, messages=MESSAGES)
    return None


Outcome = tuple[Any, ...]


# The fields that keep a payload as sent: from the bytes the JSON, from the SDK's objects its models of it.
PAYLOADS = frozenset({"usage", "output", "data", "extra", "input"})


BUILT_IN_RUST = (Violation, ToolCall, InvalidToolCall, StreamResult, ChoiceResult, OutputItem, Pending)


def plain(value: Any, payload: bool = False) -> Any:
    """Every field of a value, strictly comparable, the SDK's models as the JSON they were built from.

    What is kept "as sent" (``usage``, an output item, an error's payload) may be the SDK's model on one path and
    its JSON on the other (a chat ``usage`` is a ``CompletionUsage`` on both, ``outcome`` checks its type): compared
    as JSON, its keys in order (a model keeps its fields' order) and its numbers by value (a model makes ``0`` ``0.0``).
    """
    if hasattr(value, "model_dump") and type(value).__module__.startswith(("openai.", "anthropic.")):
        return plain(value.model_dump(exclude_unset=True, by_alias=True), payload=True)
    if (dataclasses.is_dataclass(value) and not isinstance(value, type)) or isinstance(value, BUILT_IN_RUST):
        # Every field: a dataclass's, or those of a value class built in Rust (its __match_args__).
        names = getattr(type(value), "__match_args__", ())
        if dataclasses.is_dataclass(value):
            names = tuple(f.name for f in dataclasses.fields(value))
        return (
            type(value).__name__,
            tuple((name, plain(getattr(value, name), payload or name in PAYLOADS)) for name in names),
        )
    if isinstance(value, Mapping):
        items = ((strict(key), plain(item, payload)) for key, item in value.items())
        return ("dict", tuple(sorted(items)) if payload else tuple(items))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(plain(item, payload) for item in value))
    if payload and type(value) in (int, float):
        return ("number", float(value))
    return strict(value)


def outcome(stream: Any) -> Outcome:
    """What a ``reassemble`` stream hands over and its result (every field), or the error the SDK raised."""
    try:
        calls = list(stream)
    except Exception as error:
        return ("raised", error)
    return (plain(calls), plain(stream.result), type(stream.result.usage).__name__)


async def aoutcome(stream: Any) -> Outcome:
    try:
        calls = [call async for call in stream]
    except Exception as error:
        return ("raised", error)
    return (plain(calls), plain(stream.result), type(stream.result.usage).__name__)


def read(implementation: ModuleType, recording: Recording, base_url: str, how: str) -> Outcome:
    """``recording`` through its SDK's client as ``how`` (``create``, ``manager``, ``helper``), sync."""
    serve(recording)
    client = shared_client(recording.format, base_url)
    keywords: dict[str, Any] = {"on_invalid": "yield", "dialect": recording.dialect}
    if how == "create":
        stream = create(client, recording.format)
        found = outcome(implementation.reassemble(stream, **keywords))
        assert stream.response.is_closed
        return found
    if how == "manager":
        return outcome(implementation.reassemble(manager(client, recording.format), **keywords))
    with manager(client, recording.format) as helper:
        return outcome(implementation.reassemble(helper, **keywords))


CLIENTS: dict[tuple[str, str], Any] = {}


def shared_client(wire_format: str, base_url: str) -> Any:
    """One sync client per SDK and server (building one costs more than reading a recording)."""
    key = (wire_format.partition("-")[0], base_url)
    if key not in CLIENTS:
        CLIENTS[key] = client_of(wire_format, base_url, False)
    return CLIENTS[key]


def aread(implementation: ModuleType, recording: Recording, base_url: str, how: str) -> Outcome:
    """The async twin of ``read``."""
    serve(recording)

    async def run() -> Outcome:
        async with client_of(recording.format, base_url, True) as client:
            keywords: dict[str, Any] = {"on_invalid": "yield", "dialect": recording.dialect}
            if how == "create":
                stream = await create(client, recording.format)
                found = await aoutcome(implementation.areassemble(stream, **keywords))
                assert stream.response.is_closed
                return found
            if how == "manager":
                return await aoutcome(implementation.areassemble(manager(client, recording.format), **keywords))
            async with manager(client, recording.format) as helper:
                return await aoutcome(implementation.areassemble(helper, **keywords))

    return asyncio.run(run())


def same_as_object_path(
    reader: Callable[[ModuleType, Recording, str, str], Outcome],
    implementation: ModuleType,
    recording: Recording,
    base_url: str,
    how: str,
    bypassed: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bypass, through ``how``, reads as the object path of the SDK's stream (``create``) reads.

    A helper's own object path is not the reference: its bookkeeping fails on some quirks (openai's on a missing
    index, anthropic's on invalid partial JSON) and openai's drops chunks it finds invalid; the bypass never runs it.
    """
    fast = reader(implementation, recording, base_url, how)
    assert bypassed, "the bypass read the bytes"
    with monkeypatch.context() as patch:
        patch.setattr(_sdk_bodies, "_BYPASS", False)
        slow = reader(implementation, recording, base_url, "create")
    assert len(bypassed) == 1, "the object path read no bytes"
    assert_same(fast, slow)


def assert_same(fast: Outcome, slow: Outcome) -> None:
    """The bypass's outcome is the object path's, but for the SDK's error on an error event: a PROVIDER_ERROR."""
    assert fast[0] != "raised", fast
    if slow[0] == "raised":
        assert isinstance(slow[1], SDK_ERRORS), slow[1]
        assert "PROVIDER_ERROR" in repr(fast[1]), slow[1]
    else:
        assert fast == slow


@pytest.mark.parametrize(("recording", "how"), sdk_readings())
def test_the_bypass_reads_as_the_object_path(
    base_url: str,
    recording: Recording,
    how: str,
    implementation: ModuleType,
    bypassed: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    same_as_object_path(read, implementation, recording, base_url, how, bypassed, monkeypatch)


@pytest.mark.parametrize(("recording", "how"), sdk_readings())
def test_the_async_bypass_reads_as_the_object_path(
    base_url: str,
    recording: Recording,
    how: str,
    bypassed: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    same_as_object_path(aread, toolwire, recording, base_url, how, bypassed, monkeypatch)


def recording_named(name: str) -> Recording:
    wire_format = name.partition("/")[0]
    return next(recording for recording in iter_recordings(format=wire_format) if recording.name == name)


PARALLEL = "openai-chat/parallel-calls"


def names(stream: Any) -> list[str | None]:
    return [call.name for call in stream]


# --- error events ------------------------------------------------------------------------------------------------

ERROR_EVENTS = ["openai-chat/error-event-tool-use-failed", "anthropic-messages/error-event-overloaded-mid-tool-use"]


@pytest.mark.parametrize("name", ERROR_EVENTS)
def test_an_error_event_is_a_provider_error_with_the_bypass_and_the_sdk_s_error_without(
    base_url: str, name: str, implementation: ModuleType
) -> None:
    recording = recording_named(name)
    serve(recording)
    with client_of(recording.format, base_url, False) as client:
        stream = implementation.reassemble(create(client, recording.format), on_invalid="yield")
        list(stream)
        assert "PROVIDER_ERROR" in [violation.code for violation in stream.result.violations]
        touched = create(client, recording.format)
        first = next(touched)  # the object path: one event read by the user first
        assert first is not None
        with pytest.raises(SDK_ERRORS):
            list(implementation.reassemble(touched, on_invalid="yield"))
        assert touched.response.is_closed


# --- the fallbacks -----------------------------------------------------------------------------------------------


def test_a_stream_already_read_takes_the_object_path(base_url: str, bypassed: list[str]) -> None:
    recording = recording_named("anthropic-messages/text-then-tool-use-paris")
    serve(recording)
    with anthropic_client(base_url, False) as client:
        stream = create(client, recording.format)
        next(stream)  # message_start, read by the user
        calls = toolwire.reassemble(stream, on_invalid="yield", format="anthropic-messages")
        assert [call.name for call in calls] == [call["name"] for call in recording.expected["calls"]]
        assert stream.response.is_closed
    assert bypassed == []


BREAKS: dict[str, Callable[[Any], None]] = {
    "iterator of another type": lambda stream: setattr(stream, "_iterator", iter(list(stream._iterator))),
    "decoder of another type": lambda stream: setattr(stream, "_decoder", openai_decoder()),
    "no decoder": lambda stream: delattr(stream, "_decoder"),
    "no cast type": lambda stream: delattr(stream, "_cast_to"),
    "response of another type": lambda stream: setattr(stream, "response", Wrapped(stream.response)),
    "response consumed": lambda stream: setattr(stream, "response", consumed(stream.response)),
    "events stream mode": lambda stream: setattr(stream._options, "stream_mode", "events"),
}


class Wrapped:
    """A response in another class, which reads as the one it wraps."""

    def __init__(self, response: Any) -> None:
        self._response = response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._response, name)


def openai_decoder() -> Any:
    from openai._streaming import SSEDecoder

    class Other(SSEDecoder):
        pass

    return Other()


def consumed(response: Any) -> Any:
    """The response, its body read into memory by someone else (which the SDK replays)."""
    response.read()
    del response.__dict__["_content"]  # as after an iter_raw: consumed, nothing kept
    response.is_closed = False
    return response


@pytest.mark.parametrize("breaking", list(BREAKS))
def test_a_stream_whose_internal_is_missing_takes_the_object_path(
    base_url: str, breaking: str, bypassed: list[str]
) -> None:
    serve(recording_named(PARALLEL))
    with openai_client(base_url, False) as client:
        stream = create(client, "openai-chat")
        if breaking == "iterator of another type":
            # a plain iterator over what the SDK would yield: the object path reads it
            pass
        BREAKS[breaking](stream)
        try:
            found = names(toolwire.reassemble(stream))
        except Exception as error:  # what the object path does with a stream it cannot read: the SDK's own error
            assert breaking in ("no decoder", "no cast type", "response consumed"), error
        else:
            assert found == ["plus", "minus"]
    assert bypassed == []


@pytest.mark.parametrize("version", ["1.39.9", "4.0.0", "3.x", ""])
def test_an_sdk_version_outside_the_tested_range_takes_the_object_path(
    base_url: str, version: str, bypassed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openai, "__version__", version)
    serve(recording_named(PARALLEL))
    with openai_client(base_url, False) as client:
        assert names(toolwire.reassemble(create(client, "openai-chat"))) == ["plus", "minus"]
    assert bypassed == []


def test_a_transport_without_a_body_to_read_takes_the_object_path(bypassed: list[str]) -> None:
    """A mock transport's response is buffered whole, which the bypass replays; a closed one is left to the SDK's own
    error, as before."""
    body_bytes = body(recording_named(PARALLEL))

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body_bytes)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    with openai.OpenAI(base_url="http://test/v1", api_key="test", http_client=http, max_retries=0) as client:
        buffered = create(client, "openai-chat")  # a buffered body (MockTransport reads it): the bypass replays it
        assert names(toolwire.reassemble(buffered)) == ["plus", "minus"]
        assert bypassed == ["openai"]
        closed = create(client, "openai-chat")
        del closed.response._content  # as a streamed body closed before it was read
        closed.response.close()
        with pytest.raises(Exception):  # noqa: B017 - the object path's own error, whatever the SDK raises
            list(toolwire.reassemble(closed))
    assert bypassed == ["openai"]


def test_an_observed_anthropic_stream_takes_the_object_path(base_url: str, bypassed: list[str]) -> None:
    recording = recording_named("anthropic-messages/text-then-tool-use-paris")
    serve(recording)
    with anthropic_client(base_url, False) as client:
        stream = create(client, recording.format)
        stream.response.stream.stream_observer = Observer()  # type: ignore[attr-defined]
        calls = names(toolwire.reassemble(stream))
    assert calls == [call["name"] for call in recording.expected["calls"]]
    assert Observer.items > 0
    assert bypassed == []


class Observer:
    """A stand-in for anthropic's tracing observer: it sees every object."""

    items = 0

    def begin(self) -> None:
        pass

    def item(self, item: Any) -> None:
        Observer.items += 1

    def end(self, *args: Any) -> None:
        pass


def test_a_responses_manager_started_after_a_sequence_number_takes_the_object_path(
    base_url: str, bypassed: list[str]
) -> None:
    recording = recording_named("openai-responses/parallel-function-calls")  # its events carry sequence numbers
    serve(recording)
    with openai_client(base_url, False) as client:
        calls = names(toolwire.reassemble(client.responses.stream(response_id="resp_1", starting_after=1)))
    assert calls == [call["name"] for call in recording.expected["calls"]]
    assert bypassed == []


# --- format=, events, closing -------------------------------------------------------------------------------------


def test_format_must_name_the_sdk_stream_s_format(base_url: str) -> None:
    serve(recording_named(PARALLEL))
    with openai_client(base_url, False) as client:
        stream = create(client, "openai-chat")
        with pytest.raises(TypeError, match="SDK stream of 'openai-chat'"):
            toolwire.reassemble(stream, format="openai-responses")
        assert names(toolwire.reassemble(stream, format="openai-chat")) == ["plus", "minus"]


def test_events_read_the_bytes_too(base_url: str, bypassed: list[str]) -> None:
    serve(recording_named(PARALLEL))
    with openai_client(base_url, False) as client:
        stream = create(client, "openai-chat")
        events = list(toolwire.events(stream))
        assert events[-1].result.format == "openai-chat"  # type: ignore[union-attr]
        assert stream.response.is_closed

    async def run() -> list[Any]:
        async with openai_client(base_url, True) as client:
            stream = await create(client, "openai-chat")
            found = [event async for event in toolwire.aevents(stream)]
            assert stream.response.is_closed
            return found

    assert [type(event).__name__ for event in asyncio.run(run())] == [type(event).__name__ for event in events]
    assert bypassed == ["openai", "openai"]


@pytest.mark.parametrize("how", [*HOWS, "helper"])
def test_breaking_out_closes_the_sdk_stream(base_url: str, how: str, bypassed: list[str]) -> None:
    serve(recording_named(PARALLEL))
    with openai_client(base_url, False) as client:
        if how == "create":
            source = create(client, "openai-chat")
            response = source.response
        elif how == "helper":
            source = manager(client, "openai-chat").__enter__()
            response = source._raw_stream.response
        else:
            source = manager(client, "openai-chat")
        calls = toolwire.reassemble(source)
        for call in calls:
            assert call.name == "plus"
            break
        calls.close()
        if how == "manager":
            response = source._ChatCompletionStreamManager__stream._response
        assert response.is_closed
    assert bypassed == ([] if how == "helper" else ["openai"])


def final_calls(wire_format: str, helper: Any) -> list[str]:
    """The names of the calls in the helper's own final state."""
    if wire_format == "openai-chat":
        message = helper.get_final_completion().choices[0].message
        return [call.function.name for call in message.tool_calls or ()]
    if wire_format == "openai-responses":
        return [item.name for item in helper.get_final_response().output if item.type == "function_call"]
    return [block.name for block in helper.get_final_message().content if block.type == "tool_use"]


HELD = [
    "openai-chat/parallel-calls",
    "openai-responses/parallel-function-calls",
    "anthropic-messages/parallel-no-arg-tools",
]


@pytest.mark.parametrize("name", HELD)
def test_a_helper_stream_the_caller_holds_keeps_the_object_path_and_its_state(
    base_url: str, name: str, bypassed: list[str]
) -> None:
    """``with client.messages.stream(...) as stream``: the caller may ask the helper for its final message after."""
    recording = recording_named(name)
    serve(recording)
    expected = [call["name"] for call in recording.expected["calls"]]
    with client_of(recording.format, base_url, False) as client, manager(client, recording.format) as helper:
        assert names(toolwire.reassemble(helper)) == expected
        assert final_calls(recording.format, helper) == expected
    assert bypassed == []


def test_breaking_out_closes_the_async_sdk_stream(base_url: str, bypassed: list[str]) -> None:
    serve(recording_named("anthropic-messages/text-then-tool-use-paris"))

    async def run() -> bool:
        async with anthropic_client(base_url, True) as client:
            stream = await create(client, "anthropic-messages")
            calls = toolwire.areassemble(stream)
            async for _ in calls:
                break
            await calls.aclose()
            return bool(stream.response.is_closed)

    assert asyncio.run(run())
    assert bypassed == ["anthropic"]


def test_an_error_in_the_pipeline_closes_the_sdk_stream(base_url: str) -> None:
    serve(recording_named(PARALLEL))
    with openai_client(base_url, False) as client:
        stream = create(client, "openai-chat")
        with pytest.raises(toolwire.InvalidToolCallError):
            list(toolwire.reassemble(stream, tools={}))
        assert stream.response.is_closed


# --- the oldest SDKs supported ------------------------------------------------------------------------------------

OLDEST = {"openai": "1.40.0", "anthropic": "0.40.0"}
# The oldest SDKs' wheels (``pip download openai==1.40.0 anthropic==0.40.0 --no-deps -d $TOOLWIRE_OLD_SDKS``): the
# tests never download; without the wheels they skip, naming the command.
WHEELS = Path(os.environ.get("TOOLWIRE_OLD_SDKS", "/tmp/toolwire-old-sdks"))


def test_the_supported_range_starts_at_the_oldest_tested() -> None:
    for package, version in OLDEST.items():
        low, _ = _sdk_bodies.SUPPORTED[package]
        assert low == tuple(int(part) for part in version.split(".")[:2])


@pytest.mark.parametrize("package", list(OLDEST))
def test_the_oldest_supported_sdk_is_bypassed_too(package: str, tmp_path: Path) -> None:
    """The oldest SDK of the range, unpacked from its wheel, first on the path of a child that runs
    ``old_sdk_child.py``: every recording of its formats, bypass against object path, sync and async."""
    wheel = WHEELS / f"{package}-{OLDEST[package]}-py3-none-any.whl"
    if not wheel.exists():
        pytest.skip(f"no {wheel.name}: pip download {package}=={OLDEST[package]} --no-deps -d {WHEELS}")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path, [name for name in archive.namelist() if name.startswith(f"{package}/")])
    script = REPOSITORY / "tests" / "sources" / "old_sdk_child.py"
    environment = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPOSITORY}"}
    done = subprocess.run(
        [sys.executable, str(script), package, OLDEST[package]],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- transport errors ---------------------------------------------------------------------------------------------


class Stalling(BaseHTTPRequestHandler):
    """Sends half of a recording, then nothing for longer than the client waits."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        data = body(recording_named(PARALLEL))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        time.sleep(0.5)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize("bypass", [True, False], ids=["bypass", "object-path"])
def test_a_read_timeout_is_the_sdk_s_own_error_on_both_paths(
    bypass: bool, bypassed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_sdk_bodies, "_BYPASS", bypass)
    with loopback(Stalling) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="test", max_retries=0, timeout=0.1)
        with client:
            stream = create(client, "openai-chat")
            with pytest.raises(openai.APITimeoutError):
                list(toolwire.reassemble(stream))
            assert stream.response.is_closed
    assert bypassed == (["openai"] if bypass else [])
