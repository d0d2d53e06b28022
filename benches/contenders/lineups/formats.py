"""Anthropic Messages and OpenAI Responses bytes (``inputs.formats``): who reads them, per format.

- ``core-bytes``: ``toolwire.reassemble(reads, format=...)``, every call consumed;
- ``reference-bytes``: ``toolwire.reference.reassemble``, the same in pure Python;
- ``orjson-lines``: ``floors.orjson_lines``, the floor: split the reads into lines and ``orjson.loads`` each data
  line, nothing else;
- ``orjson-accumulator``: the floor's framing and decoding and a minimal hand-written accumulator, correct for these
  streams and nothing more: Anthropic, a ``(id, name, fragments)`` entry per ``tool_use`` block start and an append
  per ``input_json_delta``; Responses, the whole call taken from each function-call ``response.output_item.done``
  (the cheapest correct way: no fragment is kept). ``orjson.loads`` of each call's arguments at the end;
- ``anthropic-sdk-bytes`` / ``openai-sdk-bytes``: the SDK of the format, from bytes (``sdks``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benches.contenders import core, floors, loops, sdks
from benches.contenders.lineups import chunks
from benches.inputs.formats import FormatStream
from benches.inputs.grid import Cell, size_label

_COMMON: dict[str, Callable[[FormatStream], Any]] = {
    "core-bytes": core.format_bytes,
    "reference-bytes": core.reference_format_bytes,
    "orjson-lines": lambda fs: floors.orjson_lines(fs.reads),
}
CONTENDERS: dict[str, dict[str, Callable[[FormatStream], Any]]] = {
    "anthropic-messages": {
        **_COMMON,
        "orjson-accumulator": loops.anthropic_bytes,
        "anthropic-sdk-bytes": sdks.anthropic_bytes,
    },
    "openai-responses": {
        **_COMMON,
        "orjson-accumulator": loops.responses_bytes,
        "openai-sdk-bytes": sdks.responses_bytes,
    },
}
SDK = {"anthropic-messages": "anthropic-sdk-bytes", "openai-responses": "openai-sdk-bytes"}

# Where the slow contenders stop, in the pytest benchmarks and in report.py alike (so that one run stays under ~2 s on
# the development VM): (most argument bytes in the cell, most in one call). From single runs there (2-core VM):
# reference-bytes is linear, ~11 MB/s of Anthropic and ~22 MB/s of Responses SSE (0.7 s on 4x64KiB, 3.3 s on
# 16x64KiB; report.py runs it everywhere, best of 3); anthropic-sdk-bytes re-parses a call's whole input at every
# delta, quadratic in one call's size (0.4 s on 16x4KiB, 4.0 s on 1x64KiB); openai-sdk-bytes costs ~85 us per event
# (1.4 s on 1x64KiB and on 16x4KiB, 5.6 s on 4x64KiB).
_64K = 64 * 1024
BOUNDS: dict[str, tuple[int, int]] = {
    "reference-bytes": (4 * _64K, 4 * _64K),
    "anthropic-sdk-bytes": (_64K, 4 * 1024),
    "openai-sdk-bytes": (_64K, _64K),
}
_WHY = {
    "reference-bytes": "frames and decodes in Python",
    "anthropic-sdk-bytes": "is quadratic in a call's size",
    "openai-sdk-bytes": "costs ~85 us per event",
}
SLOW_CONTENDERS = frozenset({"reference-bytes", "anthropic-sdk-bytes", "openai-sdk-bytes"})


def prepare(name: str) -> None:
    """Everything a contender needs before it is timed but the stream itself: the SDKs' imports and clients."""
    if name == "anthropic-sdk-bytes":
        sdks.anthropic_sdk()
    elif name == "openai-sdk-bytes":
        sdks.openai_sdk()


def skip_reason(name: str, cell: Cell, *, everywhere: frozenset[str] = frozenset()) -> str | None:
    """Why ``name`` does not run on ``cell``, or None when it does (``everywhere``: contenders never skipped)."""
    if name not in BOUNDS or name in everywhere:
        return None
    total, one = BOUNDS[name]
    if cell.calls * cell.size <= total and cell.size <= one:
        return None
    return (
        f"{name} {_WHY[name]}: one run on {cell.id} ({size_label(cell.calls * cell.size)} of arguments) takes over ~2 s; "
        f"it runs up to {size_label(total)} in all and {size_label(one)} per call"
    )


def check(name: str, fs: FormatStream, result: Any) -> None:
    """Assert that ``result`` is the stream's ground truth (the floor: every event decoded, the last one right)."""
    if name == "orjson-lines":
        count, last = result
        assert count == fs.events, f"{name} decoded {count} events, expected {fs.events}"
        assert last == fs.last, f"{name} decoded a wrong last event"
        return
    base = {"core-bytes": "core", "reference-bytes": "reference"}.get(name, "join-loop")
    chunks.check(base, fs, result)  # type: ignore[arg-type]  # a FormatStream has what check reads of a Stream
