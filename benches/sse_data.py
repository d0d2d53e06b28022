"""The grid's streams as raw event-stream bytes (issue 4, item 8), and the contenders that read them.

A stream of ``grid`` is rendered as OpenAI sends it: each chunk dict as ``data: <compact JSON>`` and a blank line
(``json.dumps`` with ``(",", ":")`` separators and the chunk's own key order, which is the recorded
``recordings/openai-chat`` order), then ``data: [DONE]`` and a blank line. The bytes are cut into reads of
``READ`` bytes (64 KiB, as httpx's ``iter_bytes()`` hands them over), so events are split across reads wherever
the cut falls. Each pool of the stream is rendered once and repeated, so rendering the 83 MB streams of 16x64KiB
takes a fraction of a second; the reads are cached on the stream (``Stream.cache["sse"]``) for the last ``HOLD``
streams.

The contenders (``CONTENDERS``), each a function of a ``grid.Stream`` timed whole over the same reads:

- ``core-bytes``: ``toolwire.reassemble`` over the reads, every call consumed;
- ``reference-bytes``: ``toolwire.reference.reassemble``, the same in pure Python;
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import Any

import orjson

import toolwire
import toolwire.reference
from grid import Cell, Stream, size_label
from implementations import _OPENAI_SDK_MAX, join_loop
from implementations import check as check_chunks

READ = 64 * 1024
DONE = b"data: [DONE]\n\n"
HOLD = 2  # streams whose bytes stay cached (the benchmarks and report.py go cell by cell)
ENVELOPE = ("id", "object", "created", "model", "system_fingerprint", "usage")
# Where the slow contenders stop in the pytest benchmarks (one run over ~2 s): openai-sdk-bytes is quadratic, as
# openai-sdk is (1.0 s on 4x4KiB); reference-bytes is linear but frames and decodes in Python (~13 MB/s of SSE on
# the development VM: 1.6 s on the 21 MB of 4x64KiB, ~6.5 s on the 83 MB of 16x64KiB). report.py times
# reference-bytes on every cell (best of 3) and openai-sdk-bytes where it runs here.
MAX_BYTES = {
    "openai-sdk-bytes": _OPENAI_SDK_MAX,
    "reference-bytes": {"sequential": 4 * 64 * 1024, "interleaved": 4 * 64 * 1024},
}
SLOW_CONTENDERS = frozenset({"reference-bytes", "openai-sdk-bytes"})
QUADRATIC = frozenset({"openai-sdk-bytes"})  # report.py runs the others on every cell


@dataclass(frozen=True)
class Sse:
    """A stream's event-stream bytes as reads of ``READ`` bytes."""

    reads: tuple[bytes, ...]
    size: int


def event(chunk: dict[str, Any]) -> bytes:
    """One chunk as OpenAI frames it."""
    return b"data: " + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def render(stream: Stream, read: int = READ, drop: tuple[str, ...] = ()) -> Sse:
    """The stream's bytes, cut into reads (each pool rendered once, then repeated); ``drop``: chunk keys left out."""

    def kept(chunk: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in chunk.items() if key not in drop} if drop else chunk

    parts: list[bytes] = []
    for pool, times in stream.segments:
        parts += [b"".join(event(kept(chunk)) for chunk in pool)] * times  # one object, referred to `times` times
    parts.append(DONE)
    data = b"".join(parts)
    del parts
    reads = tuple(data[start : start + read] for start in range(0, len(data), read))
    return Sse(reads, len(data))


_held: list[Stream] = []


def sse(stream: Stream) -> Sse:
    """The stream's event-stream bytes, cached on the stream for the last ``HOLD`` streams asked for.

    (The 64 KiB row of the grid is ~250 MB of event stream in all, so the bytes of older streams are dropped.)
    """
    if "sse" not in stream.cache:
        stream.cache["sse"] = render(stream)
        _held.append(stream)
        while len(_held) > HOLD:
            _held.pop(0).cache.pop("sse", None)
    rendered: Sse = stream.cache["sse"]
    return rendered


# --- the contenders ----------------------------------------------------------------------------------------------


def run_core_bytes(stream: Stream) -> Any:
    return list(toolwire.reassemble(iter(sse(stream).reads)))


def run_reference_bytes(stream: Stream) -> Any:
    return list(toolwire.reference.reassemble(iter(sse(stream).reads)))


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


def _orjson_chunks(reads: tuple[bytes, ...]) -> Iterator[dict[str, Any]]:
    """The floor's framing and decoding, chunk by chunk."""
    loads = orjson.loads
    rest = b""
    for read in reads:
        lines = (rest + read).split(b"\n")
        rest = lines.pop()
        for line in lines:
            if line.startswith(b"data: {"):
                yield loads(line[6:])


def orjson_accumulator(reads: tuple[bytes, ...]) -> list[tuple[str, str, Any]]:
    """The floor's framing and decoding, then ``implementations.join_loop``'s accumulator."""
    return join_loop(_orjson_chunks(reads))


def run_orjson_accumulator(stream: Stream) -> Any:
    return orjson_accumulator(sse(stream).reads)


@cache
def _openai() -> SimpleNamespace:
    """The SDK's pieces, imported once (and its client, which never connects: the response is built here)."""
    import httpx2  # the HTTP client the openai SDK is built on
    from openai import OpenAI
    from openai import Stream as OpenAIStream
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    return SimpleNamespace(
        Response=httpx2.Response,
        Stream=OpenAIStream,
        State=ChatCompletionStreamState,
        Chunk=ChatCompletionChunk,
        client=OpenAI(api_key="sk-bench-no-network", base_url="http://127.0.0.1:9/v1", max_retries=0),
    )


def run_openai_sdk_bytes(stream: Stream) -> Any:
    """``openai.Stream`` over a response whose body is the reads, into ``ChatCompletionStreamState``."""
    sdk = _openai()
    response = sdk.Response(200, headers={"content-type": "text/event-stream"}, content=iter(sse(stream).reads))
    state = sdk.State()
    for chunk in sdk.Stream(cast_to=sdk.Chunk, response=response, client=sdk.client):
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
        _openai()


def skip_reason(name: str, cell: Cell) -> str | None:
    """Why ``name`` does not run on ``cell`` in the pytest benchmarks, or None when it does."""
    bound = MAX_BYTES.get(name, {}).get(cell.mode)
    total = cell.calls * cell.size
    if bound is None or total <= bound:
        return None
    why = "is quadratic" if name in QUADRATIC else "frames and decodes in Python"
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
