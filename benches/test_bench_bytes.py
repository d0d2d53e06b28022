"""Raw event-stream bytes (issue 4, item 8), parametrized over contender x grid cell (``inputs.sse``,
``contenders.lineups.sse``).

Each benchmark times one whole stream given as the 64 KiB reads of its event-stream bytes (``data: <chunk JSON>``
per chunk, then ``data: [DONE]``, as OpenAI sends them) and then asserts its result is the ground truth, so
``--benchmark-disable`` makes this a correctness test of every contender. Benchmarks are grouped by cell: compare
rows within a group; ``benches/report.py`` prints the same comparison as ratios ("Raw event-stream bytes"), with the
targets relative to ``orjson-lines``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benches.contenders.lineups import sse as lineup
from benches.inputs import grid, sse

REPOSITORY = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("contender", list(lineup.CONTENDERS))
@pytest.mark.parametrize("cell", grid.cell_params())
def test_bytes(benchmark, contender: str, cell: grid.Cell) -> None:
    reason = lineup.skip_reason(contender, cell)
    if reason is not None:
        pytest.skip(reason)
    stream = grid.stream(cell)
    lineup.prepare(contender, stream)
    rendered = sse.sse(stream)
    benchmark.group = f"bytes-{cell.id}"
    benchmark.extra_info.update(sse_bytes=rendered.size, reads=len(rendered.reads), chunks=stream.chunk_count)
    result = benchmark(lineup.CONTENDERS[contender], stream)
    lineup.check(contender, stream, result)


def test_rendering_is_what_openai_sends() -> None:
    """Each chunk as ``data: <compact JSON>`` and a blank line, then ``[DONE]``: byte for byte a real capture's framing."""
    stream = grid.stream(grid.GRID[0])
    rendered = sse.sse(stream)
    data = b"".join(rendered.reads)
    events = data.split(b"\n\n")
    assert events.pop() == b""
    assert events.pop() == b"data: [DONE]"
    assert [json.loads(event.removeprefix(b"data: ")) for event in events] == stream.chunk_list()
    # The grid's envelope is the one of recordings/openai-chat/parallel-calls.sse (a real gpt-4o stream), whose
    # first event, the assistant role, is the grid's first chunk too.
    capture = (REPOSITORY / "recordings" / "openai-chat" / "parallel-calls.sse").read_bytes()
    assert events[0] == capture.split(b"\n\n")[0]
    assert rendered.size == len(data)
    assert all(len(read) == sse.READ for read in rendered.reads[:-1])
