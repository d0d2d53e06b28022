"""The seeded stream grid the benchmarks share: ground truth, chunk dicts, SDK objects, and the warm feed.

A grid cell is ``calls`` parallel tool calls, each with ``size`` bytes of JSON arguments, streamed
``sequential``ly (call after call, as OpenAI does) or ``interleaved`` (round-robin fragments, as some
OpenAI-compatible servers do), in fragments of 4 characters, closed by a ``finish_reason: "tool_calls"`` chunk.

How chunks are fed (the same for every implementation)
------------------------------------------------------
A streaming loop sees each chunk right after ``json.loads`` built it, so the chunk is hot in cache. Timing a
pre-built list of 10^5 chunks instead mostly measures memory latency: a chunk decoded by ``json.loads`` is ~20
objects, ~2.5 KiB (its keys are its own strings). So a stream here is a few short *pools* of pre-built chunks,
each re-yielded a number of times by a plain Python generator (``Stream.feed``): the repeated pools hold at
most 512 chunks (16 interleaved calls x 32 fragments, ~1.3 MiB) and stay in L2 while they repeat; the generator
costs one ``yield from`` step per chunk (~0.1x the floor), identical for every implementation.

For that, each call's arguments text is ``head + block * repeats + tail``, where ``head`` and ``block`` are
multiples of 4 characters long, so the fragments of ``block`` are the same chunks on every repetition. The
JSON is realistic (an object with strings, numbers, booleans, nulls, escapes and nested lists/objects of
seeded "records"); what repeats is a 128-byte record (the scanner's cost per byte depends on the mix of tokens,
not on whether they repeat). The text is ASCII (non-ASCII arrives escaped as ``\\u00e9``, as ``json.dumps``
writes it), so a pool's strings carry no cached UTF-8 form that a fresh chunk would not have.

The price of pools: an implementation that keeps the fragment strings (the join loop) shares them between
repetitions instead of holding fresh ones, so memory is measured for the core only (``memory``), which copies.

Every pool chunk is decoded from its JSON text with ``json.loads`` (keys are then not interned, as in a real
stream) and the SDK's objects are built from such dicts with ``openai._models.construct_type``, which is how
``openai.Stream`` builds each ``ChatCompletionChunk`` at runtime.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

SEED = 20_241_116
FRAGMENT = 4
BLOCK = 128
SIZES: dict[str, int] = {"256B": 256, "4KiB": 4 * 1024, "64KiB": 64 * 1024}
PARALLEL = (1, 4, 16)
MODES = ("sequential", "interleaved")

_COMPLETION_ID = "chatcmpl-AU9UWVZJHxSXwx1SffWtyoXswc5zK"
_ENVELOPE: dict[str, Any] = {
    "id": _COMPLETION_ID,
    "object": "chat.completion.chunk",
    "created": 1_731_749_688,
    "model": "gpt-4o-2024-08-06",
    "system_fingerprint": "fp_45cf54deae",
    "usage": None,
}
TOOLS = ("search_products", "get_weather", "create_ticket", "run_sql", "send_email", "book_flight", "summarize")
_WORDS = (
    "alpha beta gamma delta stream token tool call index order cart price ship city north south river "
    "lamp desk chair blue green red quick lazy fox dog report quarter revenue growth user account"
).split()
_FILLER = " lorem ipsum dolor sit amet, consectetur adipiscing elit" * 4
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def size_label(size: int) -> str:
    if size % (1024 * 1024) == 0:
        return f"{size // (1024 * 1024)}MiB"
    if size % 1024 == 0:
        return f"{size // 1024}KiB"
    return f"{size}B"


@dataclass(frozen=True, order=True)
class Cell:
    """One point of the grid."""

    calls: int
    size: int
    mode: str

    @property
    def id(self) -> str:
        return f"{self.calls}x{size_label(self.size)}-{self.mode[:3]}"

    @property
    def smallest(self) -> bool:
        """The cells bench-smoke runs (the others are marked ``slow``)."""
        return self.size == min(SIZES.values())


GRID: tuple[Cell, ...] = tuple(Cell(n, size, mode) for size in SIZES.values() for n in PARALLEL for mode in MODES)


def cell_params() -> list[Any]:
    """Every cell as a pytest parameter named by its id, all but the smallest marked ``slow`` (bench-smoke's cut)."""
    return [pytest.param(cell, id=cell.id, marks=() if cell.smallest else (pytest.mark.slow,)) for cell in GRID]


# --- arguments -----------------------------------------------------------------------------------------------


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _text(rng: random.Random) -> str:
    """A JSON string literal, now and then with an escaped quote, newline or non-ASCII character."""
    value = _words(rng, 1, 5)
    spice = rng.random()
    if spice < 0.15:
        value += ' "quoted"'
    elif spice < 0.25:
        value += "\nline two"
    elif spice < 0.32:
        value += " caf\u00e9"
    return json.dumps(value)


def _record(rng: random.Random) -> str:
    tags = ", ".join(json.dumps(rng.choice(_WORDS)) for _ in range(rng.randint(0, 3)))
    dims = ", ".join(str(rng.randint(0, 999)) for _ in range(rng.randint(1, 4)))
    return (
        f'{{"id": {rng.randint(1, 99_999)}, "title": {_text(rng)}, "score": {rng.uniform(-1, 1):.4f}, '
        f'"tags": [{tags}], "dims": [{dims}], "active": {rng.choice(("true", "false", "null"))}}}'
    )


def _padded(prefix: str, suffix: str, length: int, filler: str = "x") -> str:
    """``prefix + filler... + suffix`` of exactly ``length`` characters (``prefix`` ends inside a string)."""
    gap = length - len(prefix) - len(suffix)
    if gap < 0:
        raise ValueError(f"cannot fit {prefix + suffix!r} in {length} characters")
    return prefix + (filler * gap)[:gap] + suffix


_HEAD = 176  # characters of every head (a multiple of FRAGMENT)
_MIN_TAIL = 80  # room reserved for the shortest tail


@dataclass(frozen=True)
class Call:
    """One call's ground truth: its id, its name, and its arguments as ``head + block * repeats + tail``."""

    id: str
    name: str
    head: str
    block: str
    repeats: int
    tail: str

    @property
    def size(self) -> int:
        return len(self.head) + len(self.block) * self.repeats + len(self.tail)

    @property
    def text(self) -> str:
        """The arguments text (built on demand: at 2 MiB, hold it only as long as needed)."""
        return self.head + self.block * self.repeats + self.tail


def _block(rng: random.Random) -> str:
    """Whole records, each followed by ``, ``, exactly BLOCK characters (the last one padded by a "note")."""
    records: list[str] = []
    while True:
        record = _record(rng)
        closing = "".join(r + ", " for r in records) + record[:-1] + ', "note": "' + '"}, '
        if len(closing) <= BLOCK:
            records.append(record)
        elif records:
            break
    last = records.pop()
    return _padded("".join(r + ", " for r in records) + last[:-1] + ', "note": "', '"}, ', BLOCK, _FILLER)


def _tail(rng: random.Random, room: int) -> str:
    """The last record, then the end of the object, exactly ``room`` characters."""
    final = _record(rng)
    candidates = (
        (final + f'], "total": {rng.randint(0, 10**6)}, "cursor": null, "more": false, "comment": "', '"}'),
        (final + '], "comment": "', '"}'),
        (f'{{"id": {rng.randint(1, 99_999)}, "comment": "', '"}]}'),
    )
    for prefix, suffix in candidates:
        if len(prefix) + len(suffix) <= room:
            return _padded(prefix, suffix, room, _FILLER)
    raise ValueError(f"no tail fits in {room} characters")


def make_call(rng: random.Random, size: int) -> Call:
    """A call whose arguments are exactly ``size`` ASCII characters of valid JSON (an object)."""
    if size < _HEAD + _MIN_TAIL:
        raise ValueError(f"arguments of at least {_HEAD + _MIN_TAIL} bytes")
    call_id = "call_" + "".join(rng.choice(ALNUM) for _ in range(24))
    name = rng.choice(TOOLS)
    head = (
        f'{{"request_id": "req_{rng.getrandbits(48):012x}", "limit": {rng.randint(5, 500)}, '
        f'"filters": {{"lang": "en", "min_score": {rng.uniform(0, 1):.2f}, "tags": ["a", "b"]}}, "query": "'
    )
    head = _padded(head + _words(rng, 1, 3), '", "records": [', _HEAD, _FILLER)
    block = _block(rng)
    repeats = max(0, (size - _HEAD - _MIN_TAIL) // BLOCK)
    tail = _tail(rng, size - _HEAD - repeats * BLOCK)
    call = Call(call_id, name, head, block, repeats, tail)
    if call.size != size:
        raise AssertionError(f"arguments of {call.size} characters, not {size}")
    return call


def _parses(call: Call) -> None:
    value = json.loads(call.text)
    if not isinstance(value, dict):
        raise AssertionError("arguments must be a JSON object")


# --- chunks ----------------------------------------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    """A chunk dict as ``json.loads`` returns it from the wire."""
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
    data: dict[str, Any] = json.loads(json.dumps({**_ENVELOPE, "choices": [choice]}))
    return data


def _opening(index: int, call: Call) -> dict[str, Any]:
    return _chunk(
        {
            "tool_calls": [
                {"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
            ]
        }
    )


def _fragment(index: int, text: str) -> dict[str, Any]:
    return _chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})


def _split(text: str) -> list[str]:
    return [text[i : i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]


Segment = tuple[list[Any], int]


@dataclass
class Stream:
    """One stream of the grid: its ground truth and its chunks as (pool, repetitions) segments."""

    cell: Cell
    calls: tuple[Call, ...]
    segments: list[Segment]
    _sdk: list[Segment] | None = field(default=None, repr=False)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def chunk_count(self) -> int:
        return sum(len(pool) * times for pool, times in self.segments)

    @property
    def argument_bytes(self) -> int:
        return sum(call.size for call in self.calls)

    def feed(self) -> Iterator[dict[str, Any]]:
        """The chunk dicts, warm (see the module docstring)."""
        return feed_segments(self.segments)

    def sdk_feed(self) -> Iterator[Any]:
        """The same chunks as the openai SDK's ``ChatCompletionChunk`` objects, warm."""
        if self._sdk is None:
            self._sdk = sdk_segments(self.segments)
        return feed_segments(self._sdk)

    def chunk_list(self) -> list[dict[str, Any]]:
        """Every chunk dict in order (shared objects; for the small cells and for conversions)."""
        return list(self.feed())

    def expected(self) -> list[tuple[str, str, Any]]:
        """(id, name, parsed arguments) of each call, in call order."""
        return [(call.id, call.name, json.loads(call.text)) for call in self.calls]


def feed_segments(segments: list[Segment]) -> Iterator[Any]:
    """The warm feed: each pool re-yielded its number of times."""
    for pool, times in segments:
        for _ in range(times):
            yield from pool


def _sequential(calls: tuple[Call, ...]) -> list[Segment]:
    segments: list[Segment] = [([_chunk({"role": "assistant", "content": None})], 1)]
    for index, call in enumerate(calls):
        segments.append(([_opening(index, call)] + [_fragment(index, f) for f in _split(call.head)], 1))
        if call.repeats:
            segments.append(([_fragment(index, f) for f in _split(call.block)], call.repeats))
        segments.append(([_fragment(index, f) for f in _split(call.tail)], 1))
    segments.append(([_chunk({}, "tool_calls")], 1))
    return _merged(segments)


def _round_robin(calls: tuple[Call, ...], part: str) -> list[dict[str, Any]]:
    pieces = [_split(getattr(call, part)) for call in calls]
    width = max(len(p) for p in pieces)
    return [_fragment(index, p[k]) for k in range(width) for index, p in enumerate(pieces) if k < len(p)]


def _interleaved(calls: tuple[Call, ...]) -> list[Segment]:
    # Every call of a stream has the same size, so heads, blocks, repeats and tails line up across calls.
    opening = [_chunk({"role": "assistant", "content": None})] + [_opening(i, c) for i, c in enumerate(calls)]
    segments: list[Segment] = [(opening + _round_robin(calls, "head"), 1)]
    if calls[0].repeats:
        segments.append((_round_robin(calls, "block"), calls[0].repeats))
    segments.append(([*_round_robin(calls, "tail"), _chunk({}, "tool_calls")], 1))
    return segments


def _merged(segments: list[Segment]) -> list[Segment]:
    """Join consecutive single-pass segments (fewer generator steps between pools)."""
    out: list[Segment] = []
    for pool, times in segments:
        if times == 1 and out and out[-1][1] == 1:
            out[-1] = (out[-1][0] + pool, 1)
        else:
            out.append((pool, times))
    return out


def make_stream(cell: Cell, seed: int = SEED) -> Stream:
    rng = random.Random(f"{seed}:{cell.calls}:{cell.size}:{cell.mode}")
    calls = tuple(make_call(rng, cell.size) for _ in range(cell.calls))
    if cell.size <= 64 * 1024:
        for call in calls:
            _parses(call)
    segments = _sequential(calls) if cell.mode == "sequential" else _interleaved(calls)
    return Stream(cell, calls, segments)


@cache
def stream(cell: Cell) -> Stream:
    """The (cached) stream of a cell."""
    return make_stream(cell)


# --- the openai SDK's objects -----------------------------------------------------------


def to_sdk(chunk: dict[str, Any]) -> Any:
    """A ``ChatCompletionChunk`` built the way ``openai.Stream`` builds it from a decoded SSE event."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    return construct_type(type_=ChatCompletionChunk, value=json.loads(json.dumps(chunk)))


def sdk_segments(segments: list[Segment]) -> list[Segment]:
    return [([to_sdk(chunk) for chunk in pool], times) for pool, times in segments]
