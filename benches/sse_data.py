"""The grid's streams as raw event-stream bytes (issue 4, item 8), and the contenders that read them.

A stream of ``grid`` is rendered as OpenAI sends it: each chunk dict as ``data: <compact JSON>`` and a blank line
(``json.dumps`` with ``(",", ":")`` separators and the chunk's own key order, which is the recorded
``recordings/openai-chat`` order), then ``data: [DONE]`` and a blank line. The bytes are cut into reads of
``READ`` bytes (64 KiB, as httpx's ``iter_bytes()`` hands them over), so events are split across reads wherever
the cut falls. Each pool of the stream is rendered once and repeated, so rendering the 70 MB streams takes a
fraction of a second; the reads are cached on the stream (``Stream.cache["sse"]``), and ``evict`` drops them.

The contenders (``CONTENDERS``), each a function of a ``grid.Stream`` timed whole over the same reads:

- ``core-bytes``: ``toolstream.reassemble`` over the reads, every call consumed;
- ``reference-bytes``: ``toolstream.reference.reassemble``, the same in pure Python;
- ``orjson-lines``: the floor the target is relative to: split the reads into lines and ``orjson.loads`` each data
  line, nothing else (it returns the number of chunks decoded and the last one);
- ``orjson-accumulator``: what a careful user writes by hand: the same framing and ``orjson.loads``, then the
  ``implementations.join_loop`` accumulator inline (per-index dict, a list of fragments, ``"".join`` and
  ``json.loads`` at the end);
- ``openai-sdk-bytes``: the openai SDK's own path from bytes: ``openai.Stream`` over an ``httpx2.Response`` whose
  body is the reads (its ``SSEDecoder``, ``json.loads`` of each event and ``construct_type`` into a
  ``ChatCompletionChunk``, exactly as for a real response), each chunk into ``ChatCompletionStreamState``, then
  ``json.loads`` of each call's arguments. Its accumulator is quadratic, so it runs where ``openai-sdk`` runs.

``check`` asserts a result is the stream's ground truth (the floor: that it decoded every chunk, the last one
right).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson

import toolstream
import toolstream.reference
from grid import Cell, Stream, size_label
from implementations import _OPENAI_SDK_MAX
from implementations import check as check_chunks

READ = 64 * 1024
DONE = b"data: [DONE]\n\n"
# Where the slow contenders stop in the pytest benchmarks (one run over ~2 s): openai-sdk-bytes is quadratic, as
# openai-sdk is; reference-bytes is linear but frames and decodes in Python (~30 MB/s of SSE on the development VM,
# 2.6 s on the 68 MB of 16x64KiB), so pytest-benchmark's rounds would take minutes. report.py times it everywhere.
MAX_BYTES = {
    "openai-sdk-bytes": _OPENAI_SDK_MAX,
    "reference-bytes": {"sequential": 16 * 64 * 1024 - 1, "interleaved": 16 * 64 * 1024 - 1},
}
SLOW_CONTENDERS = frozenset({"reference-bytes", "openai-sdk-bytes"})


@dataclass(frozen=True)
class Sse:
    """A stream's event-stream bytes as reads of ``READ`` bytes."""

    reads: tuple[bytes, ...]
    size: int
    events: int  # data events, [DONE] included


def event(chunk: dict[str, Any]) -> bytes:
    """One chunk as OpenAI frames it."""
    return b"data: " + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def render(stream: Stream, read: int = READ) -> Sse:
    """The stream's bytes, cut into reads (each pool rendered once, then repeated)."""
    pieces = [b"".join(event(chunk) for chunk in pool) * times for pool, times in stream.segments]
    data = b"".join([*pieces, DONE])
    del pieces
    reads = tuple(data[start : start + read] for start in range(0, len(data), read))
    return Sse(reads, len(data), stream.chunk_count + 1)


def sse(stream: Stream) -> Sse:
    """The stream's event-stream bytes (cached on the stream)."""
    if "sse" not in stream.cache:
        stream.cache["sse"] = render(stream)
    rendered: Sse = stream.cache["sse"]
    return rendered


def evict(stream: Stream) -> None:
    """Drop the cached bytes (the 64 KiB row holds ~200 MB of them in all)."""
    stream.cache.pop("sse", None)


# --- the contenders ----------------------------------------------------------------------------------------------


def run_core_bytes(stream: Stream) -> Any:
    return list(toolstream.reassemble(iter(sse(stream).reads)))


def run_reference_bytes(stream: Stream) -> Any:
    return list(toolstream.reference.reassemble(iter(sse(stream).reads)))


def orjson_lines(reads: tuple[bytes, ...]) -> tuple[int, Any]:
    """Split into lines, ``orjson.loads`` each data line but ``[DONE]``, nothing else: the floor."""
    loads = orjson.loads
    count = 0
    last = None
    rest = b""
    for read in reads:
        lines = (rest + read).split(b"\n")
        rest = lines.pop()
        for line in lines:
            if line.startswith(b"data: {"):
                last = loads(line[6:])
                count += 1
    return count, last


def run_orjson_lines(stream: Stream) -> Any:
    return orjson_lines(sse(stream).reads)


def orjson_accumulator(reads: tuple[bytes, ...]) -> list[tuple[str, str, Any]]:
    """The floor's framing and decoding, then ``implementations.join_loop``'s accumulator, inline."""
    loads = orjson.loads
    calls: dict[int, dict[str, Any]] = {}
    rest = b""
    for read in reads:
        lines = (rest + read).split(b"\n")
        rest = lines.pop()
        for line in lines:
            if not line.startswith(b"data: {"):
                continue
            chunk = loads(line[6:])
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


def run_orjson_accumulator(stream: Stream) -> Any:
    return orjson_accumulator(sse(stream).reads)


@cache
def _openai_client() -> Any:
    from openai import OpenAI

    return OpenAI(api_key="sk-bench-no-network", base_url="http://127.0.0.1:9/v1", max_retries=0)


def run_openai_sdk_bytes(stream: Stream) -> Any:
    """``openai.Stream`` over a response whose body is the reads, into ``ChatCompletionStreamState``."""
    import httpx2
    from openai import Stream as OpenAIStream
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    response = httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=iter(sse(stream).reads))
    chunks = OpenAIStream(cast_to=ChatCompletionChunk, response=response, client=_openai_client())
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    completion = state.get_final_completion()
    return [
        (call.id, call.function.name, json.loads(call.function.arguments))
        for call in completion.choices[0].message.tool_calls or ()
    ]


CONTENDERS: dict[str, Callable[[Stream], Any]] = {
    "core-bytes": run_core_bytes,
    "reference-bytes": run_reference_bytes,
    "orjson-lines": run_orjson_lines,
    "orjson-accumulator": run_orjson_accumulator,
    "openai-sdk-bytes": run_openai_sdk_bytes,
}


def prepare(name: str, stream: Stream) -> None:
    """Everything a contender needs before it is timed: the stream's bytes, the SDK's client."""
    sse(stream)
    if name == "openai-sdk-bytes":
        _openai_client()


def skip_reason(name: str, cell: Cell) -> str | None:
    """Why ``name`` does not run on ``cell`` in the pytest benchmarks, or None when it does."""
    bound = MAX_BYTES.get(name, {}).get(cell.mode)
    total = cell.calls * cell.size
    if bound is None or total <= bound:
        return None
    why = "is quadratic" if name == "openai-sdk-bytes" else "frames and decodes in Python"
    return f"{name} {why}: one run on {cell.id} ({size_label(total)} of arguments) takes over ~2 s"


def check(name: str, stream: Stream, result: Any) -> None:
    """Assert that ``result`` is the stream's ground truth (the floor: every chunk decoded, the last one right)."""
    if name == "orjson-lines":
        count, last = result
        expected = stream.chunk_count
        assert count == expected, f"{name} decoded {count} chunks, expected {expected}"
        assert last == stream.segments[-1][0][-1], f"{name} decoded a wrong last chunk {last!r}"
        return
    base = {"core-bytes": "core", "reference-bytes": "reference"}.get(name, "join-loop")
    check_chunks(base, stream, result)
