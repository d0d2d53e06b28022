"""Reassembly of the stream grid, parametrized over implementation x grid cell (``inputs.grid``,
``contenders.lineups.chunks``).

Each benchmark times one whole stream (fed warm by ``Stream.feed``) and then asserts its result is the ground
truth, so ``--benchmark-disable`` makes this a correctness test of every harness. Benchmarks are grouped by cell:
compare rows within a group; ``benches/report.py`` prints the same comparison as ratios.
"""

from __future__ import annotations

import pytest

from benches.contenders.lineups import chunks as lineup
from benches.inputs import grid


@pytest.mark.parametrize("implementation", list(lineup.CONTENDERS))
@pytest.mark.parametrize("cell", grid.cell_params())
def test_reassembly(benchmark, implementation: str, cell: grid.Cell) -> None:
    impl = lineup.CONTENDERS[implementation]
    reason = impl.skip_reason(cell)
    if reason is not None:
        pytest.skip(reason)
    stream = grid.stream(cell)
    if impl.prepare is not None:
        impl.prepare(stream)
    benchmark.group = cell.id
    benchmark.extra_info.update(chunks=stream.chunk_count, argument_bytes=stream.argument_bytes)
    result = benchmark(impl.run, stream)
    lineup.check(implementation, stream, result)
