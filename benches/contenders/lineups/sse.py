"""The grid's raw event-stream bytes (``inputs.sse``): who reads them, each timed whole over the same reads.

- ``core-bytes``: ``toolwire.reassemble`` over the reads, every call consumed;
- ``reference-bytes``: ``toolwire.reference.reassemble``, the same in pure Python;
- ``orjson-lines``: the floor the target is relative to: split the reads into lines and ``orjson.loads`` each data
  line, nothing else (it returns the number of chunks decoded and the last one);
- ``orjson-accumulator``: what a careful user writes by hand: the same framing and ``orjson.loads``, then the
  ``loops.join_loop`` accumulator inline (per-index dict, a list of fragments, ``"".join`` and ``json.loads`` at
  the end);
- ``openai-sdk-bytes``: the openai SDK's own path from bytes (``sdks.chat_bytes``), then ``json.loads`` of each
  call's arguments. Its accumulator is quadratic, so it runs where ``openai-sdk`` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benches.contenders import core, floors, loops, sdks
from benches.contenders.lineups import chunks
from benches.inputs.grid import Cell, Stream, size_label
from benches.inputs.sse import sse

CONTENDERS: dict[str, Callable[[Stream], Any]] = {
    "core-bytes": core.sse_bytes,
    "reference-bytes": core.reference_sse_bytes,
    "orjson-lines": lambda stream: floors.orjson_lines(sse(stream).reads),
    "orjson-accumulator": loops.sse_bytes,
    "openai-sdk-bytes": sdks.chat_bytes,
}
# Where the slow contenders stop in the pytest benchmarks (one run over ~2 s): openai-sdk-bytes is quadratic, as
# openai-sdk is (1.0 s on 4x4KiB); reference-bytes is linear but frames and decodes in Python (~13 MB/s of SSE on
# the development VM: 1.6 s on the 21 MB of 4x64KiB, ~6.5 s on the 83 MB of 16x64KiB). report.py times
# reference-bytes on every cell (best of 3) and openai-sdk-bytes where it runs here.
MAX_BYTES = {
    "openai-sdk-bytes": chunks.OPENAI_SDK_MAX,
    "reference-bytes": {"sequential": 4 * 64 * 1024, "interleaved": 4 * 64 * 1024},
}
SLOW_CONTENDERS = frozenset({"reference-bytes", "openai-sdk-bytes"})
QUADRATIC = frozenset({"openai-sdk-bytes"})  # report.py runs the others on every cell


def prepare(name: str, stream: Stream) -> None:
    """Everything a contender needs before it is timed: the stream's bytes, the SDK's client."""
    sse(stream)
    if name == "openai-sdk-bytes":
        sdks.openai_sdk()


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
    chunks.check(base, stream, result)
