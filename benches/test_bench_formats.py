"""Anthropic Messages and OpenAI Responses raw bytes (issue 4, item 8): format x contender x grid cell.

Each benchmark times one whole stream given as the 64 KiB reads of its event-stream bytes (``inputs.formats``: the chat
grid's calls as each API sends them; who reads them: ``contenders.lineups.formats``) and checks, untimed and before it is timed, that the contender's result is the
ground truth (and the timed run's result again after), so ``--benchmark-disable`` makes this a correctness test of
every contender. Benchmarks are grouped by format and cell: compare rows within a group; ``benches/report.py`` prints
the same comparison as ratios ("Anthropic Messages and OpenAI Responses (raw bytes)"), with the targets relative to
``orjson-lines``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benches.contenders.lineups import formats as lineup
from benches.inputs import formats, grid, sse

REPOSITORY = Path(__file__).resolve().parent.parent


def _contenders() -> list[object]:
    return [
        pytest.param(format, name, id=f"{format}-{name}")
        for format, contenders in lineup.CONTENDERS.items()
        for name in contenders
    ]


@pytest.mark.parametrize(("format", "contender"), _contenders())
@pytest.mark.parametrize("cell", grid.cell_params())
def test_format_bytes(benchmark, format: str, contender: str, cell: grid.Cell) -> None:
    reason = lineup.skip_reason(contender, cell)
    if reason is not None:
        pytest.skip(reason)
    stream = formats.stream(format, cell)
    lineup.prepare(contender)
    run = lineup.CONTENDERS[format][contender]
    lineup.check(contender, stream, run(stream))  # set-up: nothing wrong is ever timed
    benchmark.group = f"{format}-{cell.id}"
    benchmark.extra_info.update(sse_bytes=stream.size, reads=len(stream.reads), events=stream.events)
    result = benchmark(run, stream)
    lineup.check(contender, stream, result)


def _kind(event: dict[str, object]) -> tuple[object, object]:
    item = event.get("item")
    return event["type"], item.get("type") if isinstance(item, dict) else None


@pytest.mark.parametrize(
    ("format", "capture"),
    [
        ("anthropic-messages", "anthropic-messages/parallel-no-arg-tools.sse"),
        ("openai-responses", "openai-responses/tool-search-then-call.sse"),
    ],
)
def test_rendering_is_what_the_api_sends(format: str, capture: str) -> None:
    """Every event is ``event: <type>`` then ``data: <compact JSON>`` of that type, with a real capture's key order."""
    stream = formats.stream(format, grid.GRID[0])
    data = b"".join(stream.reads)
    assert stream.size == len(data)
    assert all(len(read) == sse.READ for read in stream.reads[:-1])
    events = data.split(b"\n\n")
    assert events.pop() == b""
    assert len(events) == stream.events
    decoded = []
    for event in events:
        name, line = event.split(b"\n")
        assert name.startswith(b"event: ") and line.startswith(b"data: ")
        value = json.loads(line.removeprefix(b"data: "))
        assert value["type"] == name.removeprefix(b"event: ").decode()
        decoded.append(value)
    assert decoded[-1] == stream.last
    # Each kind of event has the members, in the order, of the same kind in the capture (the capture's own quirks
    # aside: its padded blanks, its namespace member of a tool-search call).
    recorded = {}
    for event in (REPOSITORY / "recordings" / capture).read_bytes().split(b"\n\n"):
        for line in event.split(b"\n"):
            if line.startswith(b"data: "):
                value = json.loads(line.removeprefix(b"data: "))
                recorded.setdefault(_kind(value), value)
    for value in decoded:
        like = recorded[_kind(value)]
        assert list(value) == list(like), value["type"]
        for key in ("item", "content_block", "message", "response", "delta", "usage"):
            if isinstance(value.get(key), dict) and isinstance(like.get(key), dict):
                mine = [k for k in value[key] if k != "output"]
                theirs = [k for k in like[key] if k not in ("output", "namespace")]
                assert mine == theirs, f"{value['type']}.{key}"
