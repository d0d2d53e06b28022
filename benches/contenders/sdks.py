"""The SDKs' own accumulators: openai's (Chat Completions and Responses) and anthropic's.

From bytes, each SDK reads exactly as for a real response: its ``Stream`` over an ``httpx2.Response`` whose body
is the reads (its ``SSEDecoder``, ``json.loads`` of each event and ``construct_type`` into the SDK's event type),
each event into the SDK's accumulator, then what the caller holds at the end. No path touches the network: the
clients are built with a dead base URL and never send a request.

- ``chat``: ``ChatCompletionStreamState`` fed the SDK's chunk objects (built outside the timed region), then
  ``json.loads`` of each call's arguments;
- ``chat_bytes``: the same from bytes. Its accumulator is quadratic;
- ``anthropic_bytes``: each event into ``anthropic.lib.streaming._messages.accumulate_event`` (what
  ``MessageStream`` does before it builds its own events, which are left out here); each ``tool_use`` block's
  ``input`` is already parsed. ``accumulate_event`` re-parses a call's whole partial input at every delta
  (quadratic);
- ``responses_bytes``: each event into ``openai.lib.streaming.responses.ResponseStreamState.handle_event`` (what
  ``client.responses.stream()`` does), then ``json.loads`` of each function call's arguments in the final response
  (``_completed_response``, which ``ResponseStream.get_final_response`` returns). It appends each delta to a
  ``str`` attribute (quadratic, mildly).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from types import SimpleNamespace
from typing import Any

from benches.inputs.formats import FormatStream
from benches.inputs.grid import Stream
from benches.inputs.sse import sse

Calls = list[tuple[str, str, Any]]
_EVENT_STREAM = {"content-type": "text/event-stream"}


@cache
def openai_sdk() -> SimpleNamespace:
    """The openai SDK's pieces, imported once (and its client, which never connects: the response is built here)."""
    import httpx2  # the HTTP client the SDKs are built on
    from openai import Omit, OpenAI, Stream
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.lib.streaming.responses import ResponseStreamState
    from openai.types.chat import ChatCompletionChunk
    from openai.types.responses import ResponseStreamEvent

    return SimpleNamespace(
        Response=httpx2.Response,
        Stream=Stream,
        ChatState=ChatCompletionStreamState,
        Chunk=ChatCompletionChunk,
        ResponsesState=ResponseStreamState,
        Event=ResponseStreamEvent,
        omit=Omit(),
        client=OpenAI(api_key="sk-bench-no-network", base_url="http://127.0.0.1:9/v1", max_retries=0),
    )


@cache
def anthropic_sdk() -> SimpleNamespace:
    """The anthropic SDK's pieces, imported once (its client never connects: the response is built here)."""
    import httpx2
    from anthropic import Anthropic, Stream
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    return SimpleNamespace(
        Response=httpx2.Response,
        Stream=Stream,
        Event=RawMessageStreamEvent,
        accumulate=accumulate_event,
        client=Anthropic(api_key="sk-ant-bench-no-network", base_url="http://127.0.0.1:9", max_retries=0),
    )


def _events(sdk: SimpleNamespace, cast_to: Any, reads: tuple[bytes, ...]) -> Iterator[Any]:
    """The SDK's ``Stream`` over a response whose body is ``reads``: its events, as it decodes them."""
    response = sdk.Response(200, headers=_EVENT_STREAM, content=iter(reads))
    return iter(sdk.Stream(cast_to=cast_to, response=response, client=sdk.client))


def _chat_calls(state: Any) -> Calls:
    completion = state.get_final_completion()
    return [
        (call.id, call.function.name, json.loads(call.function.arguments))
        for call in completion.choices[0].message.tool_calls or ()
    ]


def chat(stream: Stream) -> Calls:
    """openai's own accumulator, fed the SDK's chunk objects, then ``json.loads`` of each call's arguments."""
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in stream.sdk_feed():
        state.handle_chunk(chunk)
    return _chat_calls(state)


def chat_bytes(stream: Stream) -> Calls:
    """``openai.Stream`` over the reads, into ``ChatCompletionStreamState``."""
    sdk = openai_sdk()
    state = sdk.ChatState()
    for chunk in _events(sdk, sdk.Chunk, sse(stream).reads):
        state.handle_chunk(chunk)
    return _chat_calls(state)


def anthropic_bytes(fs: FormatStream) -> Calls:
    """``anthropic.Stream`` over the reads, each event into ``accumulate_event``."""
    sdk = anthropic_sdk()
    snapshot = None
    json_bufs: dict[int, bytes] = {}
    for event in _events(sdk, sdk.Event, fs.reads):
        snapshot = sdk.accumulate(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    assert snapshot is not None
    return [(block.id, block.name, block.input) for block in snapshot.content if block.type == "tool_use"]


def responses_bytes(fs: FormatStream) -> Calls:
    """``openai.Stream`` over the reads, each event into ``ResponseStreamState``."""
    sdk = openai_sdk()
    state = sdk.ResponsesState(input_tools=sdk.omit, text_format=sdk.omit)
    for event in _events(sdk, sdk.Event, fs.reads):
        state.handle_event(event)
    final = state._completed_response  # what ResponseStream.get_final_response() returns
    assert final is not None, "no response.completed"
    return [
        (item.call_id, item.name, json.loads(item.arguments)) for item in final.output if item.type == "function_call"
    ]


# --- the openai client end to end (the README's SDK example) -------------------------------------------------------

SDK_READ = 16 * 1024  # what the SDK's httpx response hands over per read here
_SERVING: dict[str, tuple[bytes, ...]] = {}


@cache
def served_openai() -> Any:
    """An ``openai.OpenAI`` client whose transport answers every request with ``_SERVING["reads"]``, streamed.

    An ``httpx2.MockTransport``: the request is built and sent through the client's whole stack, and the response's
    body is an iterator of the reads (not buffered), as a network response's is; nothing touches a socket.
    """
    import httpx2
    from openai import OpenAI

    def answer(request: Any) -> Any:
        return httpx2.Response(200, headers=_EVENT_STREAM, content=iter(_SERVING["reads"]))

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    return OpenAI(api_key="sk-bench-no-network", base_url="http://bench.invalid/v1", http_client=http, max_retries=0)


def serve(reads: tuple[bytes, ...]) -> None:
    """What ``served_openai``'s transport answers from now on."""
    _SERVING["reads"] = reads


def create(stream: Stream) -> Any:
    """``client.chat.completions.create(..., stream=True)`` over the stream's bytes: the SDK's ``Stream``."""
    serve(sse_reads(stream))
    return served_openai().chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "go"}], stream=True
    )


def sse_reads(stream: Stream) -> tuple[bytes, ...]:
    """The stream's event-stream bytes in ``SDK_READ`` reads (cached on the stream)."""
    from benches.inputs.sse import render

    key = f"sse-{SDK_READ}"
    if key not in stream.cache:
        stream.cache[key] = render(stream, read=SDK_READ).reads
    return stream.cache[key]  # type: ignore[no-any-return]


def client_iteration(stream: Stream) -> int:
    """The SDK's own iteration over ``create``'s ``Stream``, nothing else: the chunks it builds, counted."""
    return sum(1 for _ in create(stream))


def client_stream_state(stream: Stream) -> Calls:
    """``create``'s chunks into ``ChatCompletionStreamState``, then ``json.loads`` of each call's arguments."""
    state = openai_sdk().ChatState()
    for chunk in create(stream):
        state.handle_chunk(chunk)
    return _chat_calls(state)
