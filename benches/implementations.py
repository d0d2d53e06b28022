"""The implementations every benchmark compares, each a function of a ``grid.Stream`` (timed whole).

Each returns what a user would hold at the end — the reassembled calls with parsed arguments — except the
floors, which only read the fields and return the last values they read (enough to check they read them).
``normalize`` turns any result into ``[(id, name, arguments)]`` for the correctness assertions (untimed).

Conversions a competitor needs that a real stream would pay elsewhere happen outside the timed function:
the SDK's ``ChatCompletionChunk`` objects are built once per pool (``Stream.sdk_feed``); LangChain's
``AIMessageChunk`` objects are built once per stream (``langchain_messages``), as langchain-openai builds one per
chunk before the caller adds them up.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import toolwire
import toolwire.reference
from grid import Cell, Stream, feed_segments, size_label, to_langchain

Result = Any


# --- toolwire ------------------------------------------------------------------------------------------------


def run_core(stream: Stream) -> Result:
    return list(toolwire.reassemble(stream.feed()))


def run_core_sdk(stream: Stream) -> Result:
    return list(toolwire.reassemble(stream.sdk_feed()))


def run_reference(stream: Stream) -> Result:
    return list(toolwire.reference.reassemble(stream.feed()))


# --- what a user writes by hand ----------------------------------------------------------------------------------


def join_loop(chunks: Iterator[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """A careful hand-written accumulator: per-index dict, a list of fragments, ``"".join`` and ``json.loads``."""
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        choices = chunk.get("choices")
        if not choices:
            continue
        delta = choices[0].get("delta")
        if not delta:
            continue
        tool_calls = delta.get("tool_calls")
        if not tool_calls:
            continue
        for tool_call in tool_calls:
            index = tool_call.get("index", 0)
            call = calls.get(index)
            if call is None:
                call = calls[index] = {"id": None, "name": None, "parts": []}
            call_id = tool_call.get("id")
            if call_id:
                call["id"] = call_id
            function = tool_call.get("function")
            if function:
                name = function.get("name")
                if name:
                    call["name"] = name
                arguments = function.get("arguments")
                if arguments:
                    call["parts"].append(arguments)
    return [(call["id"], call["name"], json.loads("".join(call["parts"]) or "{}")) for _, call in sorted(calls.items())]


def run_join_loop(stream: Stream) -> Result:
    return join_loop(stream.feed())


def floor(chunks: Iterator[dict[str, Any]]) -> tuple[Any, ...]:
    """Reads each chunk's tool-call fields and does nothing else: the cost of merely looking at the stream."""
    index = call_id = name = arguments = None
    for chunk in chunks:
        tool_calls = chunk["choices"][0]["delta"].get("tool_calls")
        if tool_calls:
            for tool_call in tool_calls:
                index = tool_call["index"]
                call_id = tool_call.get("id")
                function = tool_call.get("function")
                if function:
                    name = function.get("name")
                    arguments = function.get("arguments")
    return index, call_id, name, arguments


def run_floor(stream: Stream) -> Result:
    return floor(stream.feed())


def floor_sdk(chunks: Iterator[Any]) -> tuple[Any, ...]:
    """``floor`` on the SDK's objects, reading attributes."""
    index = call_id = name = arguments = None
    for chunk in chunks:
        tool_calls = chunk.choices[0].delta.tool_calls
        if tool_calls:
            for tool_call in tool_calls:
                index = tool_call.index
                call_id = tool_call.id
                function = tool_call.function
                if function:
                    name = function.name
                    arguments = function.arguments
    return index, call_id, name, arguments


def run_floor_sdk(stream: Stream) -> Result:
    return floor_sdk(stream.sdk_feed())


# --- the alternatives a user would otherwise pick --------------------------------------------------------------


def run_openai_sdk(stream: Stream) -> Result:
    """openai's own accumulator, fed the SDK's chunk objects, then ``json.loads`` of each call's arguments."""
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in stream.sdk_feed():
        state.handle_chunk(chunk)
    completion = state.get_final_completion()
    return [
        (call.id, call.function.name, json.loads(call.function.arguments))
        for call in completion.choices[0].message.tool_calls or ()
    ]


def langchain_messages(stream: Stream) -> list[Any]:
    """The stream as langchain-openai's ``AIMessageChunk`` objects (built once, outside the timed region)."""
    if "langchain" not in stream.cache:
        stream.cache["langchain"] = [to_langchain(chunk) for chunk in stream.feed()]
    messages: list[Any] = stream.cache["langchain"]
    return messages


def run_langchain(stream: Stream) -> Result:
    """LangChain's documented way: ``gathered = gathered + chunk``, then the merged message's ``tool_calls``."""
    gathered = None
    for message in feed_segments([(langchain_messages(stream), 1)]):
        gathered = message if gathered is None else gathered + message
    assert gathered is not None
    return gathered.tool_calls


# --- the table of implementations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Implementation:
    """A competitor. ``max_bytes``: the largest total of argument bytes it runs on (quadratic ones only)."""

    name: str
    run: Callable[[Stream], Result]
    prepare: Callable[[Stream], object] | None = None
    max_bytes: dict[str, int] | None = None

    def skip_reason(self, cell: Cell) -> str | None:
        """Why this competitor does not run on ``cell``, or None when it does."""
        if self.max_bytes is None:
            return None
        total = cell.calls * cell.size
        if total <= self.max_bytes[cell.mode]:
            return None
        return (
            f"{self.name} is quadratic: one run on {cell.id} ({size_label(total)} of arguments) takes over ~2 s; "
            f"it runs up to {size_label(self.max_bytes[cell.mode])} {cell.mode}"
        )


def _prepare_sdk(stream: Stream) -> object:
    return next(stream.sdk_feed())


# Where the quadratic competitors stop (one run under ~2 s), from single runs on the development machine
# (2-core Xeon VM): openai-sdk 0.60 s on 4x4KiB, 2.8-3.3 s on 16x4KiB, 2.3 s on 1x64KiB; langchain 1.6 s on
# 4x4KiB-seq but 4.7 s on 4x4KiB-int (every call still open, so every addition re-parses all of them with
# its partial-JSON parser), 0.65 s on 16x256B-int, 13 s on 16x4KiB-seq.
_OPENAI_SDK_MAX = {"sequential": 16 * 1024, "interleaved": 16 * 1024}
_LANGCHAIN_MAX = {"sequential": 16 * 1024, "interleaved": 4 * 1024}

IMPLEMENTATIONS: dict[str, Implementation] = {
    impl.name: impl
    for impl in (
        Implementation("core", run_core),
        Implementation("core-sdk", run_core_sdk, prepare=_prepare_sdk),
        Implementation("reference", run_reference),
        Implementation("join-loop", run_join_loop),
        Implementation("floor", run_floor),
        Implementation("floor-sdk", run_floor_sdk, prepare=_prepare_sdk),
        Implementation("openai-sdk", run_openai_sdk, prepare=_prepare_sdk, max_bytes=_OPENAI_SDK_MAX),
        Implementation("langchain", run_langchain, prepare=langchain_messages, max_bytes=_LANGCHAIN_MAX),
    )
}


def normalize(name: str, result: Result) -> list[tuple[str | None, str | None, Any]]:
    """``[(id, name, arguments)]`` of any implementation's result (not for the floors)."""
    if name in ("core", "core-sdk", "reference"):
        return [(call.id, call.name, call.arguments) for call in result]
    if name == "langchain":
        return [(call["id"], call["name"], call["args"]) for call in result]
    return list(result)


def check(name: str, stream: Stream, result: Result) -> None:
    """Assert that ``result`` is the stream's ground truth (the floors: that they read its last fragment)."""
    if name in ("floor", "floor-sdk"):
        index = len(stream.calls) - 1
        text = stream.calls[index].text
        expected = (index, None, None, text[(len(text) - 1) // 4 * 4 :])
        assert tuple(result) == expected, f"{name} read {result!r}, expected {expected!r}"
        return
    got = normalize(name, result)
    expected = stream.expected()
    assert len(got) == len(expected), f"{name}: {len(got)} calls, expected {len(expected)}"
    for position, (have, want) in enumerate(zip(got, expected, strict=True)):
        assert have[0] == want[0], f"{name}: call {position} has id {have[0]!r}, expected {want[0]!r}"
        assert have[1] == want[1], f"{name}: call {position} has name {have[1]!r}, expected {want[1]!r}"
        assert have[2] == want[2], f"{name}: call {position} has wrong arguments"
    if name in ("core", "core-sdk", "reference"):
        for call, truth in zip(result, stream.calls, strict=True):
            assert call.arguments_json == truth.text, f"{name}: arguments_json differs from the text streamed"
            assert not call.violations, f"{name}: unexpected violations {call.violations}"
