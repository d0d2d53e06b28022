"""The grid's streams as raw event-stream bytes (issue 4, item 8), as OpenAI sends them.

A stream of ``grid`` is rendered as OpenAI sends it: each chunk dict as ``data: <compact JSON>`` and a blank line
(``json.dumps`` with ``(",", ":")`` separators and the chunk's own key order, which is the recorded
``recordings/openai-chat`` order), then ``data: [DONE]`` and a blank line. The bytes are cut into reads of
``READ`` bytes (64 KiB, as httpx's ``iter_bytes()`` hands them over), so events are split across reads wherever
the cut falls. Each pool of the stream is rendered once and repeated, so rendering the 83 MB streams of 16x64KiB
takes a fraction of a second; the reads are cached on the stream (``Stream.cache["sse"]``) for the last ``HOLD``
streams.

Who reads them is ``contenders.lineups.BYTES``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from benches.inputs.grid import Stream

READ = 64 * 1024
DONE = b"data: [DONE]\n\n"
HOLD = 2  # streams whose bytes stay cached (the benchmarks and report.py go cell by cell)
ENVELOPE = ("id", "object", "created", "model", "system_fingerprint", "usage")


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
