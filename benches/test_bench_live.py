"""Live-shaped reads and many streams at once (issue 18, items 2 and 7).

A model that is still generating sends each chunk as it is made, so a client reads one event of a few hundred bytes
at a time (``inputs.live``), not the 64 KiB reads of a buffered body (``inputs.sse``). Each benchmark times one whole
grid stream read both ways, sync (``reassemble``) and async (``areassemble`` over a source that hands the loop over
between reads, as a socket does), and then asserts its calls are the ground truth, so ``--benchmark-disable`` makes
this a correctness test. ``test_many_streams`` runs ``STREAMS`` such async streams on one event loop at once, against
the same streams one after the other. ``benches/report.py --only live`` gives the ratios and the memory.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

import pytest

import toolwire
from benches.inputs import grid, live, sse

STREAMS = 1000
SHAPES = ("64KiB", "event")


def reads_of(stream: grid.Stream, shape: str) -> Sequence[bytes]:
    return sse.sse(stream).reads if shape == "64KiB" else live.events(stream)


def ground_truth(calls: Iterable[Any]) -> list[tuple[str, str, Any]]:
    """(id, name, parsed arguments) of each call, in call order (as ``grid.Stream.expected``)."""
    return [(call.id, call.name, json.loads(call.arguments_json)) for call in sorted(calls, key=lambda c: c.index)]


def read_sync(reads: Sequence[bytes]) -> list[Any]:
    return list(toolwire.reassemble(reads, on_invalid="yield"))


async def read_async(source: AsyncIterator[bytes]) -> list[Any]:
    return [call async for call in toolwire.areassemble(source, on_invalid="yield")]


async def drain(source: AsyncIterator[bytes]) -> int:
    """The floor of an async stream: its reads arrive and are dropped."""
    count = 0
    async for _ in source:
        count += 1
    return count


def at_once(consume: Callable[[AsyncIterator[bytes]], Any], reads: Sequence[bytes], streams: int) -> list[Any]:
    """``streams`` copies of a stream consumed at once on one event loop (each read in turn, round robin)."""

    async def all_of_them() -> list[Any]:
        return list(await asyncio.gather(*(consume(live.arrivals(reads)) for _ in range(streams))))

    return asyncio.run(all_of_them())


def one_by_one(consume: Callable[[AsyncIterator[bytes]], Any], reads: Sequence[bytes], streams: int) -> list[Any]:
    """The same streams consumed one after the other on one event loop."""

    async def each_in_turn() -> list[Any]:
        return [await consume(live.arrivals(reads)) for _ in range(streams)]

    return asyncio.run(each_in_turn())


@pytest.mark.parametrize("way", ["sync", "async"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("cell", grid.cell_params())
def test_reads(benchmark: Any, cell: grid.Cell, shape: str, way: str) -> None:
    stream = grid.stream(cell)
    reads = reads_of(stream, shape)
    benchmark.group = f"live-{way}-{cell.id}"
    benchmark.extra_info.update(reads=len(reads), chunks=stream.chunk_count)
    if way == "sync":
        calls = benchmark(read_sync, reads)
    else:
        calls = benchmark(lambda: asyncio.run(read_async(live.arrivals(reads))))
    assert ground_truth(calls) == stream.expected()


@pytest.mark.slow
@pytest.mark.parametrize("way", [at_once, one_by_one], ids=["at-once", "one-by-one"])
def test_many_streams(benchmark: Any, way: Callable[..., list[Any]]) -> None:
    stream = grid.stream(grid.Cell(1, 4096, "sequential"))
    reads = live.events(stream)
    benchmark.group = f"live-{STREAMS}-streams"
    every = benchmark.pedantic(way, args=(read_async, reads, STREAMS), rounds=3, iterations=1)
    assert len(every) == STREAMS
    assert all(ground_truth(calls) == stream.expected() for calls in every)
