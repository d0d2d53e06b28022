"""Peak memory of reassembling a long stream, measured as RSS in a fresh process.

tracemalloc cannot see the Rust core's allocations, so a child process reads its resident set (``/proc/self/
statm``) before the stream and every 4096 chunks while feeding it, and its high-water mark (``VmHWM``, reset
after set-up) at the end. The stream is fed warm from pools (``grid``), so the feed itself allocates nothing.
Per stream, three runs, each in its own process:

- ``core``: ``toolwire.reassemble``; the consumer drops each call as soon as it has it (dispatch and forget).
- ``control``: no reassembly; wherever the core hands calls over, it builds the same output (the arguments
  text as a ``str`` and its value parsed by jiter with the core's settings) and drops it: what any reassembler
  must allocate for its output.
- ``control-retain``: the same, but every output is kept to the end, as a ``StreamResult`` holding every call.

Figures, against the argument bytes in flight (one call's when calls follow each other, all calls' when they
interleave):

- ``streaming``: the core's RSS growth sampled while chunks are fed (before the calls in flight are handed
  over), i.e. its argument buffers and bookkeeping, plus whatever it still holds of calls already handed over;
- ``net``: (core peak - control peak): what the engine adds to the output every reassembler must build;
- ``own``: (core peak - control-retain peak): the same, if keeping every call for the result is granted.

Run ``.venv/bin/python benches/memory.py core sequential 32 2097152`` to see one process's figures as JSON.

``many_streams_memory`` (issue 18, item 7): ``STREAMS`` async streams at once on one event loop, each a 4 KiB call
in one-event reads (``inputs.live``), their calls dropped as they come; the peak RSS growth of ``areassemble``
against the same sources only drained, per stream, against the argument bytes each has in flight.
``.venv/bin/python benches/memory.py many core 1000`` prints one process's figures.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]
if str(REPOSITORY) not in sys.path:  # run as a script, in the child process
    sys.path.insert(0, str(REPOSITORY))

from benches.contenders import core, floors  # noqa: E402
from benches.inputs import grid, live  # noqa: E402

MIB = 1024 * 1024
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


def _high_water() -> int:
    """This process's peak RSS (``VmHWM``).

    Not ``ru_maxrss``: Linux carries the parent's high-water mark into a child spawned with vfork+exec, so a
    large parent (pytest, report.py) would hide the child's own peak.
    """
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _reset_high_water() -> None:
    """Reset ``VmHWM`` to the current RSS (Linux >= 4.0), so that the peak is the run's own."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


class _Sampler:
    """Wraps a feed; reads the RSS every ``every`` chunks."""

    def __init__(self, every: int = 4096) -> None:
        self.every = every
        self.peak = 0

    def feed(self, chunks: Iterator[Any]) -> Iterator[Any]:
        every = self.every
        for number, chunk in enumerate(chunks):
            if number % every == 0:
                self.peak = max(self.peak, _rss())
            yield chunk


RUNS: dict[str, Callable[[grid.Stream, _Sampler], list[int]]] = {
    "core": lambda stream, sampler: core.dropping(sampler.feed(stream.feed())),
    "control": lambda stream, _: floors.outputs(stream, keep=False),
    "control-retain": lambda stream, _: floors.outputs(stream, keep=True),
}


def child(implementation: str, mode: str, calls: int, size: int) -> dict[str, Any]:
    run = RUNS[implementation]
    run(grid.stream(grid.Cell(1, 4 * 1024, mode)), _Sampler())  # warm up: imports, caches, code paths
    stream = grid.make_stream(grid.Cell(calls, size, mode))
    sampler = _Sampler()
    gc.collect()
    _reset_high_water()
    before, high_before = _rss(), _high_water()
    sizes = run(stream, sampler)
    high_after = _high_water()
    assert sizes == [size] * calls, f"{implementation}: got calls of {sizes[:3]}..., expected {calls} of {size}"
    return {
        "implementation": implementation,
        "mode": mode,
        "calls": calls,
        "size": size,
        "chunks": stream.chunk_count,
        "rss_before": before,
        "high_water_before": high_before,
        "high_water_after": high_after,
        "streaming_extra": sampler.peak - before if sampler.peak else None,
        "peak_extra": high_after - before,
    }


def measure(implementation: str, mode: str, calls: int, size: int) -> dict[str, Any]:
    """Run ``child`` in a fresh interpreter and return its figures."""
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), implementation, mode, str(calls), str(size)],
        check=True,
        capture_output=True,
        text=True,
    )
    figures: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return figures


def engine_memory(mode: str, calls: int, size: int) -> dict[str, Any]:
    """The core's memory on one long stream, against the argument bytes in flight."""
    core = measure("core", mode, calls, size)
    control = measure("control", mode, calls, size)
    retain = measure("control-retain", mode, calls, size)
    in_flight = size if mode == "sequential" else size * calls
    return {
        "mode": mode,
        "calls": calls,
        "size": size,
        "total": calls * size,
        "chunks": core["chunks"],
        "in_flight": in_flight,
        "core_streaming": core["streaming_extra"],
        "core_peak": core["peak_extra"],
        "control_peak": control["peak_extra"],
        "retain_peak": retain["peak_extra"],
        "streaming_ratio": core["streaming_extra"] / in_flight,
        "net_ratio": (core["peak_extra"] - control["peak_extra"]) / in_flight,
        "own_ratio": (core["peak_extra"] - retain["peak_extra"]) / in_flight,
    }


MANY_CELL = grid.Cell(1, 4 * 1024, "sequential")


async def _dropping(source: Any) -> int:
    import toolwire

    count = 0
    async for _ in toolwire.areassemble(source, on_invalid="yield"):
        count += 1
    return count


async def _draining(source: Any) -> int:
    count = 0
    async for _ in source:
        count += 0
    return count + 1  # the one call the stream holds, so both ways count alike


def many_child(way: str, streams: int) -> dict[str, Any]:
    consume = {"core": _dropping, "drain": _draining}[way]
    reads = live.events(grid.stream(MANY_CELL))
    streaming = 0

    async def sample(before: int) -> None:
        """The RSS growth between two rounds of reads, while every stream is mid-call (before any hand-over)."""
        nonlocal streaming
        for _ in range(len(reads) - 8):
            await asyncio.sleep(0)
            streaming = max(streaming, _rss() - before)

    async def at_once(count: int) -> list[int]:
        sampler = asyncio.ensure_future(sample(_rss()))
        counts = list(await asyncio.gather(*(consume(live.arrivals(reads)) for _ in range(count))))
        await sampler
        return counts

    asyncio.run(at_once(8))  # warm up: imports, caches, code paths
    streaming = 0
    gc.collect()
    _reset_high_water()
    before = _rss()
    counts = asyncio.run(at_once(streams))
    assert counts == [1] * streams, f"{way}: {counts[:3]}..."
    return {"way": way, "streams": streams, "streaming_extra": streaming, "peak_extra": _high_water() - before}


def many_streams_memory(streams: int) -> dict[str, Any]:
    """The core's memory per stream with ``streams`` at once, against the argument bytes each has in flight.

    ``streaming``: the RSS growth sampled between rounds of reads while every stream is inside its call, less the
    drained sources' own; ``peak``: the high-water mark, which also holds the calls handed over at the end.
    """

    def measured(way: str) -> dict[str, int]:
        completed = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "many", way, str(streams)],
            check=True,
            capture_output=True,
            text=True,
        )
        figures: dict[str, int] = json.loads(completed.stdout.strip().splitlines()[-1])
        return figures

    core, drain = measured("core"), measured("drain")
    streaming = (core["streaming_extra"] - drain["streaming_extra"]) / streams
    peak = (core["peak_extra"] - drain["peak_extra"]) / streams
    return {
        "streams": streams,
        "in_flight": MANY_CELL.size,
        "streaming_per_stream": streaming,
        "peak_per_stream": peak,
        "streaming_ratio": streaming / MANY_CELL.size,
        "peak_ratio": peak / MANY_CELL.size,
    }


if __name__ == "__main__":
    if sys.argv[1] == "many":
        print(json.dumps(many_child(sys.argv[2], int(sys.argv[3]))))
    else:
        name, how, count, each = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        print(json.dumps(child(name, how, count, each)))
