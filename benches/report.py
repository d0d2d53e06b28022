"""Run the whole grid once and print ONE markdown table of ratios measured in this run, for docs/benchmarks.md.

    .venv/bin/maturin develop --release --quiet && .venv/bin/python benches/report.py --write

With ``--write`` the tables replace what lies between the page's two marks (``BEGIN``, ``END``) instead of being
printed, so the page's own prose (what the grid is, how the figures read) stays as written around them.

Every contender of ``contenders.lineups.chunks`` runs on every grid cell it is not skipped on (the
quadratic competitors stop where one run would take over ~2 s), in round-robin order, each run timed with
``time.perf_counter`` over one whole warm stream (``inputs.grid``); a cell's figure is the best of its rounds. Then the
core's scaling (linearity in bytes, per-chunk cost from 1 to 16 parallel calls), its memory (``memory``), and a
breakdown of where its time goes. Then validation (issue 3, item 7): the contenders of
``contenders.lineups.validation`` on 100,000 calls as JSON text against the BFCL schemas (round-robin over whole
batches; ``json+jsonschema`` best of 3, without warm-up runs), what ``tools=`` adds to ``reassemble`` in each grid
cell (plain and validating runs timed round-robin on the same stream), and a breakdown of the core's validation
time. Then raw event-stream bytes (issue 4, item 8): the contenders of ``contenders.lineups.sse`` on every grid cell
rendered as OpenAI's SSE bytes in 64 KiB reads (round-robin as above; ``reference-bytes`` and ``openai-sdk-bytes``
best of 3, runs of over 1 s without warm-up runs), linearity from 0.33 MB to 166 MB of SSE, and a breakdown of
``core-bytes``' time. Then the same for Anthropic Messages and OpenAI Responses streams (issue 4, item 8: "the same
table against the anthropic SDK's accumulation and the openai Responses helper"): the contenders of
``contenders.lineups.formats`` on every grid cell rendered as each API's SSE bytes (``reference-bytes`` and the SDKs best
of 3; the SDKs where one run takes under ~2 s), linearity per format, and a breakdown of ``core-bytes``' time on
both; ``--only formats`` runs that section alone. Then calls written into a model's text (issue 17, item 7): for every
dialect the core reads, ``reassemble(deltas, dialect=...)`` on seeded texts of 4 KiB, 64 KiB and 1 MiB in 4-character
deltas against iterating the deltas (what the parser adds per delta, and its linearity), and against re-parsing the
accumulated text with the reference's parser on every delta, as servers' parsers do; ``--only dialects`` runs that
section alone. Then live-shaped reads (issue 18, items 2 and 7): grid streams read one event per read against 64 KiB
reads, sync and async (each async way less its source drained), and 1,000 async streams at once on one event loop
against one stream alone, with their memory per stream (``memory.many_streams_memory``); ``--only live`` runs that
section alone. Every target of the issue is checked and every miss flagged.
"""

from __future__ import annotations

import argparse
import functools
import gc
import math
import os
import platform
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCHES = Path(__file__).resolve().parent
if str(BENCHES.parent) not in sys.path:  # run as a script
    sys.path.insert(0, str(BENCHES.parent))

from benches import memory  # noqa: E402
from benches.contenders import core, floors, validators  # noqa: E402
from benches.contenders.lineups import chunks, formats, sse, validation  # noqa: E402
from benches.inputs import dialects as dialect_texts  # noqa: E402
from benches.inputs import formats as format_streams  # noqa: E402
from benches.inputs import grid, live  # noqa: E402
from benches.inputs import sse as sse_streams  # noqa: E402
from benches.inputs import validation as workloads  # noqa: E402

MIB = 1024 * 1024
SLOW = {"reference", "openai-sdk", "langchain"}  # few rounds: each run is long, its noise relatively small

# The targets.
CORE_FLOOR_EVERY = 1.0
CORE_FLOOR_MEDIAN = 0.8
REFERENCE_OVER_CORE = 3.0
SDK_FLOOR_EVERY = 1.0
OPENAI_OVER_CORE_SDK = 300.0
LINEARITY = 1.2
DIALECT_NS_PER_DELTA = 500.0  # what a dialect parser may add per 4-character delta over iterating the deltas
DIALECT_LINEARITY = 1.1  # per-byte time at 1 MiB over 4 KiB
DIALECT_OVER_REPARSE = 50.0  # re-parsing the accumulated text per delta (the reference's parser) / the core
LIVE_OVER_BUFFERED = 1.5  # per-byte cost of one event per read over 64 KiB reads (issue 18, item 2)
MANY_OVER_ONE = 1.2  # per-event cost of 1,000 streams at once over the same streams one by one (issue 18, item 7)
LIVE_STREAMS = 1000
FLATNESS = 1.2  # "flat per chunk from 1 to 16 parallel calls": read as within the linearity tolerance
MEMORY = 2.0  # "at most about twice the argument bytes in flight"
# Issue 3, item 7 (validation).
CORE_OVER_JSONSCHEMA_RS = 3.0  # core vs orjson.loads + jsonschema-rs, 100,000 calls as JSON text
CORE_OVER_JSONSCHEMA = 30.0  # core vs json.loads + jsonschema
TOOLS_OVERHEAD = 0.25  # what tools= (validation) may add to reassemble, in every grid cell
# Issue 4, item 8 (raw event-stream bytes; "Anthropic and Responses streams get the same table").
BYTES_OVER_ORJSON_LINES = 0.1  # core-bytes at most this share of orjson.loads-ing each data line
ACCUMULATOR_OVER_BYTES = 10.0  # orjson-accumulator / core-bytes
OPENAI_OVER_BYTES = 500.0  # openai-sdk-bytes / core-bytes (and anthropic-sdk-bytes / core-bytes)

PAGE = BENCHES.parent / "docs" / "benchmarks.md"
BEGIN = "<!-- benches/report.py writes from here to its end mark: run it again rather than edit what lies between -->"
END = "<!-- end of what benches/report.py writes -->"


# --- the build ---------------------------------------------------------------------------------------------------


def _elf_sections(path: Path) -> set[str]:
    """Section names of a 64-bit little-endian ELF file (enough to tell a dev build, which has debug info)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return set()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    names = set()
    for header in headers:
        start = strtab + header[0]
        names.add(data[start : data.index(b"\0", start)].decode())
    return names


def build_info() -> dict[str, Any]:
    import toolwire._core

    path = Path(toolwire._core.__file__)
    stat = path.stat()
    profile = "dev (has debug info)" if ".debug_info" in _elf_sections(path) else "release"
    return {"path": path, "profile": profile, "mtime": stat.st_mtime, "size": stat.st_size}


# --- timing ------------------------------------------------------------------------------------------------------


def _once(run: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


MIN_TIMING = 0.002  # seconds: a timing repeats a short stream until it lasts this long
WARM_UP = 0.02  # seconds of untimed runs before each timing (at least one run)


def _timed(run: Callable[[], object], number: int, warm_up: bool = True) -> float:
    """Seconds per run over ``number`` runs, after untimed warm-up runs (unless ``warm_up`` is false).

    The warm-up matters: on the development VM, memory left untouched for a few tenths of a second goes cold
    (the first run of a 1000-chunk stream after another competitor ran for 0.7 s takes 10-50x longer, with no
    page fault visible in the guest), so a round-robin over competitors would otherwise time cold memory.
    """
    if warm_up:
        warm_until = time.perf_counter() + WARM_UP
        run()
        while time.perf_counter() < warm_until:
            run()
    gc.collect()
    start = time.perf_counter()
    for _ in range(number):
        run()
    return (time.perf_counter() - start) / number


def best_of(ways: list[tuple[str, Callable[[], object]]], rounds: int, warm_up: bool = True) -> dict[str, float]:
    """Best time of one run of each way (by label), over ``rounds`` round-robin rounds: the breakdowns' timing."""
    best = {label: math.inf for label, _ in ways}
    for _ in range(rounds):
        for label, run in ways:
            best[label] = min(best[label], _timed(run, 1, warm_up=warm_up))
    return best


def time_runs(
    runs: dict[str, Callable[[], object]],
    check_result: Callable[[str, object], None],
    rounds: int,
    budget: float,
    slow: frozenset[str] | set[str] = SLOW,
    cold_over: float = math.inf,
) -> dict[str, float]:
    """Best time of one run of each of ``runs``, over round-robin rounds (the rules of ``time_cell``).

    ``slow`` runs take part in the first 3 rounds only; a run whose checking run lasted over ``cold_over`` seconds
    is timed without warm-up runs (a run of seconds warms its own memory).
    """
    names = list(runs)
    number = {}
    warm = {}
    # Everything alive now (every stream's pools, SDK objects, LangChain messages) leaves the collector's view,
    # so a timing pays only for collections its own allocations cause, not for scanning other competitors' data.
    gc.collect()
    gc.freeze()
    for name, run in runs.items():
        elapsed, result = _once(run)
        check_result(name, result)
        number[name] = max(1, math.ceil(MIN_TIMING / max(elapsed, 1e-9)))
        warm[name] = elapsed <= cold_over
    best = {name: float("inf") for name in names}
    spent = 0.0
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            if round_number >= 3 and name in slow:
                continue
            elapsed = _timed(runs[name], number[name], warm[name])
            best[name] = min(best[name], elapsed)
            spent += elapsed * number[name]
        if round_number >= 2 and spent > budget:
            break
    return best


def time_cell(stream: grid.Stream, names: list[str], rounds: int, budget: float) -> dict[str, float]:
    """Best time of one run of each implementation on one stream, over round-robin rounds.

    A first, untimed round checks every result and sizes each timing: a timing runs the stream ``number`` times
    so that it lasts at least ``MIN_TIMING`` (a lone run of a 67-chunk stream is mostly cold-cache noise). Each
    timing starts after untimed warm-up runs and a ``gc.collect()``, with the set-up's objects frozen out of the
    collector's reach.
    """
    impls = {name: chunks.CONTENDERS[name] for name in names}
    for impl in impls.values():
        if impl.prepare is not None:
            impl.prepare(stream)
    runs: dict[str, Callable[[], object]] = {name: (lambda impl=impl: impl.run(stream)) for name, impl in impls.items()}
    return time_runs(runs, lambda name, result: chunks.check(name, stream, result), rounds, budget)


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None:
        return None
    return numerator / denominator


def _fmt(value: float | None, target: str | None = None) -> str:
    if value is None:
        return "—"
    text = f"{value:.0f}" if value >= 100 else f"{value:.2f}" if value < 10 else f"{value:.1f}"
    if target is None:
        return text
    kind, bound = target[:2], float(target[2:])
    met = value <= bound if kind == "<=" else value >= bound
    return text if met else f"**{text}** ✗"


# --- where the core's time goes ------------------------------------------------------------------------------------


def breakdown(cell: grid.Cell, rounds: int) -> list[tuple[str, float]]:
    """Per-chunk time of the ways to drive the core, over the floor's, on one cell."""
    import toolwire
    from toolwire import Limits, _core
    from toolwire._pipeline._choice import parse_tool_choice

    stream = grid.stream(cell)

    def engine() -> Any:
        return _core.Engine(tool_choice=parse_tool_choice(None), emit="call_end", limits=Limits())

    def feed_only() -> None:
        for _ in stream.feed():
            pass

    def engine_pull() -> list[Any]:
        machine = engine()
        feed = stream.feed()
        calls = []
        while (ready := machine.pull(feed)) is not None:
            calls += ready
        return calls + machine.end()

    def engine_feed() -> list[Any]:
        machine = engine()
        calls = []
        feed = machine.feed
        for chunk in stream.feed():
            calls += feed(chunk)
        return calls + machine.end()

    def reassembler_feed() -> list[Any]:
        reassembler = toolwire.Reassembler()
        calls = []
        for chunk in stream.feed():
            calls += reassembler.feed(chunk)
        return calls + reassembler.finish()

    ways: list[tuple[str, Callable[[], object]]] = [
        ("floor (Python loop reading the tool-call fields)", lambda: floors.fields(stream.feed())),
        ("the warm feed alone (`for _ in feed: pass`)", feed_only),
        ("`_core.Engine.pull` (the chunk loop in Rust)", engine_pull),
        ("`_core.Engine.feed` per chunk from Python", engine_feed),
        ("`toolwire.reassemble` (public API, drives `pull`)", lambda: list(toolwire.reassemble(stream.feed()))),
        ("`toolwire.Reassembler().feed` per chunk", reassembler_feed),
    ]
    best = best_of(ways, rounds)
    base = best[ways[0][0]]
    return [(label, best[label] / base) for label, _ in ways]


# --- validation (issue 3, item 7) ---------------------------------------------------------------------------------


def time_validation(load: workloads.Workload, rounds: int, budget: float) -> dict[str, float]:
    """Best time of each contender of ``contenders.lineups.validation`` on the whole workload (round-robin)."""
    validation.prepare()  # every schema compiled once, untimed
    runs: dict[str, Callable[[], object]] = {
        name: (lambda run=run: run(load.calls)) for name, run in validation.CONTENDERS.items()
    }

    def check_result(name: str, result: Any) -> None:
        validation.check(name, load, result)

    return time_runs(runs, check_result, rounds, budget, slow=validation.SLOW_CONTENDERS, cold_over=1.0)


def time_tools(stream: grid.Stream, rounds: int, budget: float) -> dict[str, float]:
    """Best time of ``reassemble`` on one stream, plain (``core``) and with ``tools=`` (``core+tools``)."""
    registry = workloads.grid_registry()
    runs: dict[str, Callable[[], object]] = {
        "core": lambda: core.chunks(stream),
        "core+tools": lambda: core.chunks_with_tools(stream),
    }

    def check_result(name: str, result: Any) -> None:
        chunks.check("core", stream, result)
        if name == "core+tools":
            assert all(call.tool_fingerprint == registry[call.name].fingerprint for call in result), name

    return time_runs(runs, check_result, rounds, budget)


def validation_breakdown(load: workloads.Workload, rounds: int) -> list[tuple[str, int, float]]:
    """(way, calls, ns per call) of the pieces of the core's validation and of JSON parsing alone."""
    import json

    import orjson

    import toolwire
    from toolwire.registry import core_validators

    validation.prepare()
    registry = core.registry()
    compiled = core_validators(registry)
    any_object = core_validators(toolwire.ToolRegistry([{"name": "t", "parameters": {"type": "object"}}]))
    calls = load.calls
    valid = load.subset(valid=True)
    invalid = load.subset(valid=False)
    short = load.subset(valid=True, where=lambda _, text: len(text) <= 40)
    long = load.subset(valid=True, where=lambda _, text: len(text) >= 150)
    same_texts = [("t", text) for _, text in calls]
    empty = [("t", "{}")] * len(calls)
    rs = validators.jsonschema_rs()

    def parse(loads: Callable[[str], object]) -> Callable[[], object]:
        def run() -> None:
            for _, text in calls:
                loads(text)

        return run

    def rs_is_valid() -> list[bool]:
        loads = orjson.loads
        return [rs[name].is_valid(loads(text)) for name, text in calls]

    ways: list[tuple[str, list[Any], Callable[[], object]]] = [
        (
            "`toolwire.validate_many` (public API), all calls",
            calls,
            lambda: toolwire.validate_many(calls, registry),
        ),
        (
            "`_core.ToolValidators.validate_many` (no Python wrapper), all calls",
            calls,
            lambda: compiled.validate_many(calls),
        ),
        ("the same, valid calls only", valid, lambda: compiled.validate_many(valid)),
        ("the same, invalid calls only", invalid, lambda: compiled.validate_many(invalid)),
        ("the same, valid calls of at most 40 bytes", short, lambda: compiled.validate_many(short)),
        ("the same, valid calls of at least 150 bytes", long, lambda: compiled.validate_many(long)),
        (
            'the same texts against `{"type": "object"}` (parse + per-call cost)',
            same_texts,
            lambda: any_object.validate_many(same_texts),
        ),
        ('`"{}"` against `{"type": "object"}` (per-call cost alone)', empty, lambda: any_object.validate_many(empty)),
        ("`orjson.loads` of each text alone", calls, parse(orjson.loads)),
        ("`json.loads` of each text alone", calls, parse(json.loads)),
        ("`orjson.loads` + jsonschema-rs `is_valid` (no errors built)", calls, rs_is_valid),
        (
            "orjson+jsonschema-rs (`iter_errors`, as benchmarked)",
            calls,
            lambda: validators.orjson_jsonschema_rs(calls),
        ),
    ]
    gc.collect()
    gc.freeze()
    best = best_of([(label, run) for label, _, run in ways], rounds, warm_up=False)
    return [(label, len(batch), best[label] / len(batch) * 1e9) for label, batch, _ in ways]


def validation_report(
    options: argparse.Namespace, say: Callable[[str], None], target: Callable[[bool, str], None]
) -> None:
    """The validation section: contenders at 100,000 calls, the tools= overhead per grid cell, the breakdown."""
    progress = sys.stderr
    say("")
    if not workloads.available():
        say(f"Validation against the BFCL schemas: skipped, {workloads.SCHEMAS} is absent.")
    else:
        size = options.validation_calls
        load = workloads.workload(size)
        invalid = 1 - load.valid.count(True) / size
        print(f"timing validation ({size} calls): {', '.join(validation.CONTENDERS)}", file=progress, flush=True)
        best = time_validation(load, options.rounds, options.validation_budget)
        say(
            f"Validation of {size:,} calls given as JSON text against the {len(workloads.tools())} BFCL schemas "
            f"(`inputs.validation`: {invalid:.0%} invalid, {load.text_bytes / size:.0f} bytes of arguments on average), "
            "every contender producing every error of every call, schemas compiled beforehand:"
        )
        say("")
        say("| contender | calls/s | time / core's |")
        say("| --- | ---: | ---: |")
        targets = {"orjson+jsonschema-rs": CORE_OVER_JSONSCHEMA_RS, "json+jsonschema": CORE_OVER_JSONSCHEMA}
        for name, seconds in best.items():
            ratio = seconds / best["core"]
            bound = targets.get(name)
            say(f"| {name} | {size / seconds:,.0f} | {_fmt(ratio, None if bound is None else f'>={bound}')} |")
        say("")
        for name, bound in targets.items():
            ratio = best[name] / best["core"]
            target(ratio >= bound, f"core at least {bound:.0f}x faster than {name} on {size:,} calls: {ratio:.2f}x")

    print("timing reassembly with and without tools=", file=progress, flush=True)
    overheads: dict[grid.Cell, float] = {}
    say("")
    say(
        'What `tools=` (every call validated against `inputs.validation.GRID_PARAMETERS`, `on_invalid="yield"`) '
        "adds to `toolwire.reassemble` on the grid's streams:"
    )
    say("")
    say("| cell | chunks | core+tools / core - 1 | added ns per KiB of arguments |")
    say("| --- | ---: | ---: | ---: |")
    for cell in grid.GRID:
        stream = grid.stream(cell)
        best = time_tools(stream, options.rounds, options.budget)
        overheads[cell] = overhead = best["core+tools"] / best["core"] - 1
        per_kib = (best["core+tools"] - best["core"]) / stream.argument_bytes * 1024 * 1e9
        shown = f"{overhead:+.0%}" if overhead <= TOOLS_OVERHEAD else f"**{overhead:+.0%}** ✗"
        say(f"| {cell.id} | {stream.chunk_count} | {shown} | {per_kib:,.0f} |")
    say("")
    worst = max(overheads, key=overheads.__getitem__)
    target(
        overheads[worst] <= TOOLS_OVERHEAD,
        f"tools= adds at most {TOOLS_OVERHEAD:.0%} to reassemble in every cell: worst {overheads[worst]:+.0%} "
        f"({worst.id}), median {statistics.median(overheads.values()):+.0%}",
    )

    if workloads.available():
        print("breaking down the core's validation time", file=progress, flush=True)
        say("")
        say("Where the core's validation time goes (ns per call, best of 5, same workload):")
        say("")
        say("| way | calls | ns/call |")
        say("| --- | ---: | ---: |")
        for label, calls, ns in validation_breakdown(load, rounds=5):
            say(f"| {label} | {calls:,} | {ns:,.0f} |")


# --- raw event-stream bytes (issue 4, item 8) ------------------------------------------------------------------------


def bytes_linearity(
    target: Callable[[bool, str], None],
    label: str,
    stream_of: Callable[[grid.Cell], Any],
    run: Callable[[Any], object],
    check: Callable[[str, Any, object], None],
    size_of: Callable[[Any], int],
) -> None:
    """Check that core-bytes is linear: its per-byte time on one call of 2 MiB over one of 4 KiB, in the same run."""
    per_byte = {}
    for size, rounds_here in ((4 * 1024, 7), (2 * MIB, 5)):
        stream = stream_of(grid.Cell(1, size, "sequential"))
        best = time_runs(
            {"core-bytes": lambda stream=stream: run(stream)},
            lambda name, result, stream=stream: check(name, stream, result),
            rounds_here,
            3.0,
        )
        per_byte[size] = (best["core-bytes"] / size_of(stream), size_of(stream))
        del stream  # the 2 MiB stream's bytes go before the next one's are made
    linearity = per_byte[2 * MIB][0] / per_byte[4 * 1024][0]
    target(
        linearity <= LINEARITY,
        f"{label}core-bytes linear in bytes: per-byte time at 1x2MiB-seq ({per_byte[2 * MIB][1] / 1e6:.0f} MB of SSE) "
        f"/ at 1x4KiB-seq ({per_byte[4 * 1024][1] / 1e6:.2f} MB) = {linearity:.2f} (≤ {LINEARITY})",
    )


def time_bytes(stream: grid.Stream, rounds: int, budget: float) -> dict[str, float]:
    """Best time of each contender of ``contenders.lineups.sse`` on one stream's bytes (the quadratic where it runs)."""
    names = [name for name in sse.CONTENDERS if name not in sse.QUADRATIC or sse.skip_reason(name, stream.cell) is None]
    for name in names:
        sse.prepare(name, stream)
    runs: dict[str, Callable[[], object]] = {name: (lambda run=sse.CONTENDERS[name]: run(stream)) for name in names}

    def check_result(name: str, result: Any) -> None:
        sse.check(name, stream, result)

    return time_runs(runs, check_result, rounds, budget, slow=sse.SLOW_CONTENDERS, cold_over=1.0)


def bytes_breakdown(cell: grid.Cell, rounds: int) -> list[tuple[str, float]]:
    """ns per chunk of the floor, its parts and the ways the core reads the same stream, on one cell."""
    import toolwire
    from toolwire import _core

    floor_lines = floors.orjson_lines
    stream = grid.stream(cell)
    reads = sse_streams.sse(stream).reads
    whole = b"".join(reads)
    lines = [line[6:] for line in whole.split(b"\n") if line.startswith(b"data: {")]
    bare = sse_streams.render(stream, drop=sse_streams.ENVELOPE).reads

    def bytes_of(source: Any) -> Callable[[], object]:
        return lambda: list(toolwire.reassemble(iter(source)))

    ways: list[tuple[str, Callable[[], object]]] = [
        ("orjson-lines (the floor: split into lines, `orjson.loads` each data line)", lambda: floor_lines(reads)),
        ("the floor's line splitting alone", lambda: floors.splitting(reads)),
        ("`orjson.loads` of each data line alone (lines split beforehand, untimed)", lambda: floors.loads_each(lines)),
        ("core-bytes (`toolwire.reassemble` over the 64 KiB reads)", bytes_of(reads)),
        ("core-bytes over one `bytes` object of the whole stream", bytes_of((whole,))),
        (
            f"core-bytes on the same stream with the envelope left out ({', '.join(sse_streams.ENVELOPE)}; "
            f"{1 - sum(map(len, bare)) / len(whole):.0%} fewer bytes)",
            bytes_of(bare),
        ),
        ("`_core.frame` (framing alone, but two `bytes` objects built per event)", lambda: _core.frame(reads)),
        (
            "core on the same chunks already decoded (`reassemble(stream.feed())`, the warm dict feed)",
            lambda: list(toolwire.reassemble(stream.feed())),
        ),
    ]
    for source in (reads, (whole,), bare):  # the core's variants give the ground truth
        sse.check("core-bytes", stream, bytes_of(source)())
    assert floor_lines(reads)[0] == stream.chunk_count
    gc.collect()
    gc.freeze()
    best = best_of(ways, rounds)
    return [(label, best[label] / stream.chunk_count * 1e9) for label, _ in ways]


def bytes_report(say: Callable[[str], None], target: Callable[[bool, str], None], rounds: int, budget: float) -> None:
    """The raw-bytes section: contenders on every grid cell's SSE bytes, linearity, where core-bytes' time goes."""
    progress = sys.stderr
    results: dict[grid.Cell, dict[str, float]] = {}
    sizes: dict[grid.Cell, int] = {}
    for cell in grid.GRID:
        stream = grid.stream(cell)
        sizes[cell] = sse_streams.sse(stream).size
        print(f"timing raw bytes on {cell.id} ({sizes[cell] / 1e6:.1f} MB of SSE)", file=progress, flush=True)
        results[cell] = time_bytes(stream, rounds, budget)

    def ratio(cell: grid.Cell, numerator: str, denominator: str) -> float | None:
        return _ratio(results[cell].get(numerator), results[cell].get(denominator))

    say("")
    say("Raw event-stream bytes")
    say("")
    say(
        f"Every grid cell's stream as OpenAI sends it (`inputs.sse`: `data: <compact JSON>` per chunk, then "
        f"`data: [DONE]`), in reads of {sse_streams.READ // 1024} KiB; each contender consumes the reads and its result "
        "is checked against the ground truth. orjson-lines splits the reads into lines and `orjson.loads` each data "
        "line, nothing else (the floor the targets are relative to); orjson-accumulator adds a hand-written "
        "accumulator; openai-sdk-bytes is `openai.Stream` over the bytes into `ChatCompletionStreamState` (quadratic, "
        f"run where one run takes under ~2 s). MB = 10^6 bytes."
    )
    say("")
    say(
        f"| cell | MB of SSE | core-bytes MB/s | core-bytes/orjson-lines (≤ {BYTES_OVER_ORJSON_LINES}) "
        f"| orjson-accumulator/core-bytes (≥ {ACCUMULATOR_OVER_BYTES:.0f}) "
        f"| openai-sdk-bytes/core-bytes (≥ {OPENAI_OVER_BYTES:.0f}) | reference-bytes/core-bytes |"
    )
    say("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for cell in grid.GRID:
        megabytes = sizes[cell] / 1e6
        say(
            f"| {cell.id} | {megabytes:.2f} | {megabytes / results[cell]['core-bytes']:.0f} "
            f"| {_fmt(ratio(cell, 'core-bytes', 'orjson-lines'), f'<={BYTES_OVER_ORJSON_LINES}')} "
            f"| {_fmt(ratio(cell, 'orjson-accumulator', 'core-bytes'), f'>={ACCUMULATOR_OVER_BYTES}')} "
            f"| {_fmt(ratio(cell, 'openai-sdk-bytes', 'core-bytes'), f'>={OPENAI_OVER_BYTES}')} "
            f"| {_fmt(ratio(cell, 'reference-bytes', 'core-bytes'))} |"
        )

    def column(numerator: str, denominator: str) -> dict[grid.Cell, float]:
        values = {cell: ratio(cell, numerator, denominator) for cell in grid.GRID}
        return {cell: value for cell, value in values.items() if value is not None}

    say("")
    floor = column("core-bytes", "orjson-lines")
    worst = max(floor, key=floor.__getitem__)
    target(
        floor[worst] <= BYTES_OVER_ORJSON_LINES,
        f"core-bytes/orjson-lines at most {BYTES_OVER_ORJSON_LINES} in every cell: worst {floor[worst]:.2f} "
        f"({worst.id}), median {statistics.median(floor.values()):.2f}; core-bytes at "
        f"{min(sizes[c] / results[c]['core-bytes'] for c in grid.GRID) / 1e6:.0f} to "
        f"{max(sizes[c] / results[c]['core-bytes'] for c in grid.GRID) / 1e6:.0f} MB/s",
    )
    accumulator = column("orjson-accumulator", "core-bytes")
    target(
        min(accumulator.values()) >= ACCUMULATOR_OVER_BYTES,
        f"orjson-accumulator/core-bytes at least {ACCUMULATOR_OVER_BYTES:.0f} in every cell: "
        f"{min(accumulator.values()):.2f} to {max(accumulator.values()):.2f}",
    )
    openai = column("openai-sdk-bytes", "core-bytes")
    target(
        min(openai.values()) >= OPENAI_OVER_BYTES,
        f"openai-sdk-bytes/core-bytes at least {OPENAI_OVER_BYTES:.0f} (on the {len(openai)} cells it runs on): "
        f"{min(openai.values()):.0f} to {max(openai.values()):.0f}",
    )

    print("timing raw-bytes linearity (1 call, 4 KiB and 2 MiB)", file=progress, flush=True)

    def sse_stream(cell: grid.Cell) -> grid.Stream:
        return grid.stream(cell) if cell.size <= 64 * 1024 else grid.make_stream(cell)

    bytes_linearity(target, "", sse_stream, core.sse_bytes, sse.check, lambda stream: sse_streams.sse(stream).size)

    print("breaking down core-bytes' time", file=progress, flush=True)
    cell = grid.Cell(1, 64 * 1024, "sequential")
    ways = bytes_breakdown(cell, rounds=7)
    floor_ns = ways[0][1]
    say("")
    say(f"Where core-bytes' time goes ({cell.id}, ns per chunk, best of 7):")
    say("")
    say("| way | ns/chunk | / orjson-lines |")
    say("| --- | ---: | ---: |")
    for label, ns in ways:
        say(f"| {label} | {ns:,.0f} | {ns / floor_ns:.2f} |")


# --- Anthropic Messages and OpenAI Responses raw bytes (issue 4, item 8) -------------------------------------------

FORMAT_TITLES = {"anthropic-messages": "Anthropic Messages", "openai-responses": "OpenAI Responses"}


def time_format(stream: format_streams.FormatStream, rounds: int, budget: float) -> dict[str, float]:
    """Best time of each contender of ``contenders.lineups.formats`` on one stream (the slow ones where they run)."""
    contenders = formats.CONTENDERS[stream.format]
    names = [name for name in contenders if formats.skip_reason(name, stream.cell, everywhere=_EVERYWHERE) is None]
    for name in names:
        formats.prepare(name)
    runs: dict[str, Callable[[], object]] = {name: (lambda run=contenders[name]: run(stream)) for name in names}

    def check_result(name: str, result: Any) -> None:
        formats.check(name, stream, result)

    return time_runs(runs, check_result, rounds, budget, slow=formats.SLOW_CONTENDERS, cold_over=1.0)


_EVERYWHERE = frozenset({"reference-bytes"})  # linear: timed on every cell here (best of 3), unlike in pytest


def format_breakdown(cell: grid.Cell, rounds: int) -> dict[str, list[tuple[str, float]]]:
    """ns per event of the floor, its parts, and the core, per format, on one cell."""
    import toolwire
    from toolwire import _core

    ways_of: dict[str, list[tuple[str, float]]] = {}
    for fmt in format_streams.FORMATS:
        stream = format_streams.stream(fmt, cell)
        reads = stream.reads
        whole = b"".join(reads)
        lines = [line[6:] for line in whole.split(b"\n") if line.startswith(b"data: {")]

        def core_bytes(source: tuple[bytes, ...], fmt: str = fmt) -> Callable[[], object]:
            return lambda: list(toolwire.reassemble(iter(source), format=fmt))

        ways: list[tuple[str, Callable[[], object]]] = [
            (
                "orjson-lines (the floor: split into lines, `orjson.loads` each data line)",
                lambda reads=reads: floors.orjson_lines(reads),
            ),
            ("the floor's line splitting alone", lambda reads=reads: floors.splitting(reads)),
            (
                "`orjson.loads` of each data line alone (lines split beforehand, untimed)",
                lambda lines=lines: floors.loads_each(lines),
            ),
            ("core-bytes (`toolwire.reassemble(..., format=)` over the 64 KiB reads)", core_bytes(reads)),
            ("core-bytes over one `bytes` object of the whole stream", core_bytes((whole,))),
            (
                "`_core.frame` (framing alone, but two `bytes` objects built per event)",
                lambda reads=reads: _core.frame(reads),
            ),
        ]
        for source in (reads, (whole,)):
            formats.check("core-bytes", stream, core_bytes(source)())
        gc.collect()
        gc.freeze()
        best = best_of(ways, rounds)
        ways_of[fmt] = [(label, best[label] / stream.events * 1e9) for label, _ in ways]
    return ways_of


def dialects_report(
    say: Callable[[str], None], target: Callable[[bool, str], None], rounds: int, budget: float
) -> None:
    """Calls written into text: the core per delta over the floor, its linearity, and re-parsing on every delta."""
    import toolwire
    from toolwire.reference.dialects import Call, parse

    progress = sys.stderr
    say("")
    say("### Calls in text (`dialect=`, text deltas of 4 characters)")
    say("")
    say("| dialect | size | deltas | calls | core ns/delta | floor ns/delta | added ns/delta | core ns/byte |")
    say("|---|---|---|---|---|---|---|---|")
    added_worst = 0.0
    linearity: dict[str, float] = {}
    for dialect in toolwire.DIALECTS:
        # Every size in one round-robin, so that the ratios between sizes see the same machine, whatever it drifts.
        texts = {size_name: dialect_texts.deltas(dialect, size) for size_name, size in dialect_texts.SIZES.items()}
        runs: dict[str, Callable[[], object]] = {}
        expected: dict[str, int] = {}
        for size_name, deltas in texts.items():

            def reassemble(deltas: list[str] = deltas, dialect: str = dialect) -> int:
                stream = toolwire.reassemble(
                    deltas, dialect=dialect, tools=dialect_texts.TOOLS, limits=dialect_texts.LIMITS, on_invalid="yield"
                )
                return sum(call.ok for call in stream)

            def iterate(deltas: list[str] = deltas) -> int:
                count = 0
                for _ in deltas:
                    count += 1
                return count

            runs[f"core {size_name}"], runs[f"floor {size_name}"] = reassemble, iterate
            expected[f"core {size_name}"] = dialect_texts.calls_in(dialect, dialect_texts.SIZES[size_name])
            expected[f"floor {size_name}"] = len(deltas)

        def check(name: str, result: object, expected: dict[str, int] = expected) -> None:
            if result != expected[name]:
                raise AssertionError(f"{name} gave {result}, expected {expected[name]}")

        print(f"timing {dialect} text deltas, {', '.join(texts)}", file=progress, flush=True)
        best = time_runs(runs, check, rounds, budget * len(texts))
        per_byte: dict[str, float] = {}
        for size_name, deltas in texts.items():
            length = sum(len(delta.encode()) for delta in deltas)
            core_ns, floor_ns = (best[f"{way} {size_name}"] / len(deltas) * 1e9 for way in ("core", "floor"))
            added_worst = max(added_worst, core_ns - floor_ns)
            per_byte[size_name] = best[f"core {size_name}"] / length * 1e9
            say(
                f"| {dialect} | {size_name} | {len(deltas):,} | {expected[f'core {size_name}']:,} | {core_ns:.0f} | "
                f"{floor_ns:.0f} | {core_ns - floor_ns:.0f} | {per_byte[size_name]:.1f} |"
            )
        linearity[dialect] = per_byte["1MiB"] / per_byte["4KiB"]
    say("")
    target(
        added_worst <= DIALECT_NS_PER_DELTA,
        f"the dialect parser adds at most {DIALECT_NS_PER_DELTA:.0f} ns per delta over iterating the deltas: "
        f"{added_worst:.0f} ns at worst",
    )
    worst = max(linearity, key=linearity.__getitem__)
    target(
        linearity[worst] <= DIALECT_LINEARITY,
        f"linear in the text: per-byte time at 1 MiB over 4 KiB at most {DIALECT_LINEARITY}: "
        + ", ".join(f"{dialect} {ratio:.2f}" for dialect, ratio in linearity.items()),
    )
    result_cost(say, rounds, budget)
    say("")
    say(
        "Re-parsing the accumulated text on every delta (the reference's parser, as servers' parsers work) over the core:"
    )
    say("")
    say("| dialect | size | re-parse ms | core ms | re-parse/core |")
    say("|---|---|---|---|---|")
    growth = {"hermes": ("1KiB", "2KiB", "4KiB")}
    sizes = {"1KiB": 1 << 10, "2KiB": 2 << 10, "4KiB": 4 << 10}
    lowest = math.inf
    for dialect in toolwire.DIALECTS:
        for size_name in growth.get(dialect, ("1KiB",)):
            deltas = dialect_texts.deltas(dialect, sizes[size_name])
            print(f"timing {dialect} re-parsing, {size_name}", file=progress, flush=True)

            def reparse(deltas: list[str] = deltas, dialect: str = dialect) -> int:
                text = ""
                calls = 0
                for delta in deltas:
                    text += delta
                    calls = sum(isinstance(event, Call) for event in parse(dialect, [text], dialect_texts.TOOLS))
                return calls

            def reassemble(deltas: list[str] = deltas, dialect: str = dialect) -> int:
                stream = toolwire.reassemble(
                    deltas, dialect=dialect, tools=dialect_texts.TOOLS, limits=dialect_texts.LIMITS, on_invalid="yield"
                )
                return len(list(stream))

            def check(name: str, result: object, dialect: str = dialect, size: int = sizes[size_name]) -> None:
                if result != dialect_texts.calls_in(dialect, size):
                    raise AssertionError(f"{dialect} ({size} characters): {name} gave {result} calls")

            best = time_runs({"core": reassemble, "reparse": reparse}, check, 3, budget, slow={"reparse"})
            ratio = best["reparse"] / best["core"]
            lowest = min(lowest, ratio)
            say(f"| {dialect} | {size_name} | {best['reparse'] * 1e3:.1f} | {best['core'] * 1e3:.3f} | {ratio:,.0f} |")
    say("")
    target(
        lowest >= DIALECT_OVER_REPARSE,
        f"at least {DIALECT_OVER_REPARSE:.0f}x faster than re-parsing on every delta: {lowest:,.0f}x at least "
        "(the ratio grows with the text's length: the re-parse is quadratic)",
    )


def result_cost(say: Callable[[str], None], rounds: int, budget: float, dialect: str = "pythonic") -> None:
    """What asking for the result costs a consumer that dropped its calls: the core builds them again from its records
    (docs/semantics.md, "Results"; the calls a consumer holds are the result's as they are)."""
    import toolwire

    texts = {size_name: dialect_texts.deltas(dialect, dialect_texts.SIZES[size_name]) for size_name in ("4KiB", "1MiB")}
    calls = {size_name: dialect_texts.calls_in(dialect, dialect_texts.SIZES[size_name]) for size_name in texts}

    def read(deltas: list[str], ask: bool) -> int:
        stream = toolwire.reassemble(
            deltas, dialect=dialect, tools=dialect_texts.TOOLS, limits=dialect_texts.LIMITS, on_invalid="yield"
        )
        count = sum(call.ok for call in stream)
        return len(stream.result.calls) if ask else count

    runs = {
        f"{way} {size_name}": functools.partial(read, deltas, way == "result")
        for size_name, deltas in texts.items()
        for way in ("calls", "result")
    }

    def check(name: str, result: object) -> None:
        if result != calls[name.split()[1]]:
            raise AssertionError(f"{name} gave {result} calls, expected {calls[name.split()[1]]}")

    print(f"timing {dialect} text deltas with the result asked for", file=sys.stderr, flush=True)
    best = time_runs(runs, check, rounds, budget * len(texts))
    added = {
        size_name: (best[f"result {size_name}"] - best[f"calls {size_name}"]) / calls[size_name] * 1e9
        for size_name in texts
    }
    per_byte = {
        size_name: best[f"result {size_name}"] / sum(len(delta.encode()) for delta in deltas)
        for size_name, deltas in texts.items()
    }
    say("")
    say(
        f"Asking for the result at the end ({dialect}, every call dropped as read, so the core builds each again "
        f"from its record): {added['4KiB']:.0f} and {added['1MiB']:.0f} ns more per call at 4 KiB and 1 MiB; "
        f"per-byte time at 1 MiB over 4 KiB {per_byte['1MiB'] / per_byte['4KiB']:.2f}, the result then holding every "
        "call's object."
    )


def live_report(say: Callable[[str], None], target: Callable[[bool, str], None], rounds: int, budget: float) -> None:
    """Live-shaped reads (one event per read) against 64 KiB reads, sync and async; many async streams at once."""
    import asyncio

    import toolwire

    progress = sys.stderr

    def sync_run(reads: tuple[bytes, ...]) -> Callable[[], object]:
        return lambda: len(list(toolwire.reassemble(reads, on_invalid="yield")))

    async def consume(source: Any) -> int:
        return len([call async for call in toolwire.areassemble(source, on_invalid="yield")])

    async def drain(source: Any) -> int:
        count = 0
        async for _ in source:
            count += 1
        return count

    def async_run(
        reads: tuple[bytes, ...], way: Callable[[Any], Any], streams: int = 1, source: Any = live.ready
    ) -> Callable[[], object]:
        async def run() -> list[int]:
            return list(await asyncio.gather(*(way(source(reads)) for _ in range(streams))))

        return lambda: asyncio.run(run())

    say("")
    say("### Live-shaped reads (one event per read)")
    say("")
    say(
        "| cell | events | bytes | sync 64 KiB ns/event | sync live ns/event | sync live/64 KiB | async 64 KiB "
        "ns/event | async live ns/event | async live/64 KiB |"
    )
    say("|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for cell in grid.GRID:
        if cell.size > 4096:
            continue  # the 64 KiB row repeats the 4 KiB row's shape at 16x the bytes
        stream = grid.stream(cell)
        buffered, events = sse_streams.sse(stream).reads, live.events(stream)
        size = sum(map(len, events))
        print(f"timing live reads, {cell.id}", file=progress, flush=True)
        calls = len(stream.calls)
        runs = {
            "sync-64k": sync_run(buffered),
            "sync-live": sync_run(events),
            "async-64k": async_run(buffered, consume),
            "async-live": async_run(events, consume),
            "floor-64k": async_run(buffered, drain),
            "floor-live": async_run(events, drain),
        }

        def check(name: str, result: object, calls: int = calls, reads: int = len(events)) -> None:
            want = {"floor-64k": None, "floor-live": [reads]}.get(name, calls if name.startswith("sync") else [calls])
            if want is not None and result != want:
                raise AssertionError(f"{name} gave {result}, expected {want}")

        best = time_runs(runs, check, rounds, budget, slow=frozenset())
        per = {name: seconds / len(events) * 1e9 for name, seconds in best.items()}
        # The async source's own cost is not toolwire's: each way is timed less its drained twin.
        async_64k, async_live = per["async-64k"] - per["floor-64k"], per["async-live"] - per["floor-live"]
        sync_ratio, async_ratio = per["sync-live"] / per["sync-64k"], async_live / async_64k
        worst = max(worst, sync_ratio, async_ratio)
        bound = f"<={LIVE_OVER_BUFFERED}"
        say(
            f"| {cell.id} | {len(events):,} | {size:,} | {per['sync-64k']:.0f} | {per['sync-live']:.0f} | "
            f"{_fmt(sync_ratio, bound)} | {async_64k:.0f} | {async_live:.0f} | {_fmt(async_ratio, bound)} |"
        )
    say("")
    target(
        worst <= LIVE_OVER_BUFFERED,
        f"one event per read costs at most {LIVE_OVER_BUFFERED}x per byte what 64 KiB reads cost (sync and async, "
        f"async less its source's own cost): {worst:.2f}x at worst",
    )

    cell = grid.Cell(1, 4096, "sequential")
    events = live.events(grid.stream(cell))
    print(f"timing {LIVE_STREAMS} streams at once", file=progress, flush=True)
    many = {
        "at-once": async_run(events, consume, LIVE_STREAMS, live.arrivals),
        "one-stream": async_run(events, consume, 1, live.arrivals),
        "drain-at-once": async_run(events, drain, LIVE_STREAMS, live.arrivals),
        "drain-one": async_run(events, drain, 1, live.arrivals),
    }

    def check_many(name: str, result: object) -> None:
        count = LIVE_STREAMS if name in ("at-once", "drain-at-once") else 1
        want = [1 if name in ("at-once", "one-stream") else len(events)] * count
        if result != want:
            raise AssertionError(f"{name} gave {str(result)[:80]}, expected {want[:1]} x {count}")

    best = time_runs(many, check_many, 3, budget, slow=frozenset())
    reads_at_once = LIVE_STREAMS * len(events)
    at_once = (best["at-once"] - best["drain-at-once"]) / reads_at_once * 1e9
    alone = (best["one-stream"] - best["drain-one"]) / len(events) * 1e9
    say("")
    say(f"### {LIVE_STREAMS:,} async streams at once")
    say("")
    say(
        f"{LIVE_STREAMS:,} streams of one 4 KiB call ({len(events):,} one-event reads each) consumed at once by "
        "`areassemble` on one event loop, each source handing the loop over between reads, against one such stream "
        "alone; each less its sources drained without reassembly."
    )
    say("")
    say("| way | toolwire ns/event |")
    say("|---|---|")
    say(f"| one stream | {alone:.0f} |")
    say(f"| {LIVE_STREAMS:,} at once | {at_once:.0f} |")
    say("")
    target(
        at_once / alone <= MANY_OVER_ONE,
        f"{LIVE_STREAMS:,} streams at once cost at most {MANY_OVER_ONE}x per event what one stream costs: "
        f"{at_once / alone:.2f}x",
    )
    print(f"memory of {LIVE_STREAMS} streams at once", file=progress, flush=True)
    held = memory.many_streams_memory(LIVE_STREAMS)
    target(
        held["streaming_ratio"] <= MEMORY,
        f"memory per stream with {LIVE_STREAMS:,} at once, every one mid-call (RSS less the drained sources'): "
        f"{held['streaming_per_stream'] / 1024:.1f} KiB against {held['in_flight'] / 1024:.0f} KiB of arguments in "
        f"flight = {held['streaming_ratio']:.2f}x (at most about {MEMORY:.0f}x); the peak, which also holds the "
        f"calls handed over at the end: {held['peak_per_stream'] / 1024:.1f} KiB per stream",
    )


def formats_report(say: Callable[[str], None], target: Callable[[bool, str], None], rounds: int, budget: float) -> None:
    """Anthropic Messages and OpenAI Responses: contenders on every grid cell's bytes, linearity, the breakdown."""
    progress = sys.stderr
    results: dict[tuple[str, grid.Cell], dict[str, float]] = {}
    sizes: dict[tuple[str, grid.Cell], tuple[int, int]] = {}
    # Every contender once, untimed, before any timing: the SDKs' first runs import modules and build their pydantic
    # models, and objects made then (after a cell's gc.freeze) would load the collector during that whole cell
    # (measured: core-bytes 1.5x slower on the first cell of a format when it was timed right after them).
    for fmt in format_streams.FORMATS:
        stream = format_streams.stream(fmt, grid.GRID[0])
        for name, run in formats.CONTENDERS[fmt].items():
            formats.prepare(name)
            formats.check(name, stream, run(stream))
    for fmt in format_streams.FORMATS:
        for cell in grid.GRID:
            stream = format_streams.stream(fmt, cell)
            sizes[fmt, cell] = (stream.size, stream.events)
            print(f"timing {fmt} on {cell.id} ({stream.size / 1e6:.1f} MB of SSE)", file=progress, flush=True)
            results[fmt, cell] = time_format(stream, rounds, budget)

    say("")
    say("### Anthropic Messages and OpenAI Responses (raw bytes)")
    say("")
    say(
        "The grid's calls (the same names and arguments text, with each API's own ids) as each API sends them "
        "(`inputs.formats`, the shapes of the captures in `recordings/`: an `event:` line before each compact `data:` "
        "line; Anthropic: `message_start`, per call a `tool_use` `content_block_start`, an empty and then one "
        "`input_json_delta` per fragment, `content_block_stop`, a `ping`, `message_delta`, `message_stop`; Responses: "
        "`response.created`/`in_progress` carrying the response object and its 7 tools, per call "
        "`output_item.added`, one `function_call_arguments.delta` per fragment with its `sequence_number` and "
        "`obfuscation`, `function_call_arguments.done` and `output_item.done` with the whole arguments, "
        "`response.completed` with every call again), in reads of "
        f"{sse_streams.READ // 1024} KiB; `toolwire.reassemble(reads, format=...)` against the same floor "
        "(orjson-lines: split into lines, `orjson.loads` each data line, nothing else), orjson plus a minimal "
        "hand-written accumulator (Anthropic: fragments per `tool_use` block; Responses: each call from its "
        "`output_item.done`), and each SDK's own path from the bytes: anthropic-sdk-bytes is `anthropic.Stream` "
        "(its SSE decoder, `construct_type` into `RawMessageStreamEvent`) into `accumulate_event` (which re-parses a "
        "call's whole input at every delta: quadratic); openai-sdk-bytes is `openai.Stream` cast to "
        "`ResponseStreamEvent` into `ResponseStreamState.handle_event`, then `json.loads` of each call's arguments. "
        "Every result is checked against the ground truth first. The SDKs run where one run takes under ~2 s "
        "(anthropic: at most 4 KiB per call and 64 KiB in all; openai: at most 64 KiB in all). The real APIs send "
        "calls one after the other; the interleaved cells (every call opened, fragments round-robin by block or "
        "output index) are the chat grid's stress case. MB = 10^6 bytes."
    )

    def ratio(fmt: str, cell: grid.Cell, numerator: str, denominator: str) -> float | None:
        return _ratio(results[fmt, cell].get(numerator), results[fmt, cell].get(denominator))

    def column(fmt: str, numerator: str, denominator: str) -> dict[grid.Cell, float]:
        values = {cell: ratio(fmt, cell, numerator, denominator) for cell in grid.GRID}
        return {cell: value for cell, value in values.items() if value is not None}

    def mbps(fmt: str, cell: grid.Cell) -> float:
        return sizes[fmt, cell][0] / results[fmt, cell]["core-bytes"] / 1e6

    for fmt in format_streams.FORMATS:
        sdk = formats.SDK[fmt]
        say("")
        say(f'{FORMAT_TITLES[fmt]} (`format="{fmt}"`):')
        say("")
        say(
            f"| cell | MB of SSE | events | core-bytes MB/s | core-bytes/orjson-lines (≤ {BYTES_OVER_ORJSON_LINES}) "
            f"| orjson-accumulator/core-bytes (≥ {ACCUMULATOR_OVER_BYTES:.0f}) "
            f"| {sdk}/core-bytes (≥ {OPENAI_OVER_BYTES:.0f}) | reference-bytes/core-bytes |"
        )
        say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for cell in grid.GRID:
            size, events = sizes[fmt, cell]
            say(
                f"| {cell.id} | {size / 1e6:.2f} | {events} | {mbps(fmt, cell):.0f} "
                f"| {_fmt(ratio(fmt, cell, 'core-bytes', 'orjson-lines'), f'<={BYTES_OVER_ORJSON_LINES}')} "
                f"| {_fmt(ratio(fmt, cell, 'orjson-accumulator', 'core-bytes'), f'>={ACCUMULATOR_OVER_BYTES}')} "
                f"| {_fmt(ratio(fmt, cell, sdk, 'core-bytes'), f'>={OPENAI_OVER_BYTES}')} "
                f"| {_fmt(ratio(fmt, cell, 'reference-bytes', 'core-bytes'))} |"
            )
        say("")
        floor = column(fmt, "core-bytes", "orjson-lines")
        worst = max(floor, key=floor.__getitem__)
        speeds = [mbps(fmt, cell) for cell in grid.GRID]
        target(
            floor[worst] <= BYTES_OVER_ORJSON_LINES,
            f"{fmt}: core-bytes/orjson-lines at most {BYTES_OVER_ORJSON_LINES} in every cell: worst "
            f"{floor[worst]:.2f} ({worst.id}), median {statistics.median(floor.values()):.2f}; core-bytes at "
            f"{min(speeds):.0f} to {max(speeds):.0f} MB/s",
        )
        accumulator = column(fmt, "orjson-accumulator", "core-bytes")
        target(
            min(accumulator.values()) >= ACCUMULATOR_OVER_BYTES,
            f"{fmt}: orjson-accumulator/core-bytes at least {ACCUMULATOR_OVER_BYTES:.0f} in every cell: "
            f"{min(accumulator.values()):.2f} to {max(accumulator.values()):.2f}",
        )
        over_sdk = column(fmt, sdk, "core-bytes")
        target(
            min(over_sdk.values()) >= OPENAI_OVER_BYTES,
            f"{fmt}: {sdk}/core-bytes at least {OPENAI_OVER_BYTES:.0f} (on the {len(over_sdk)} cells it runs on): "
            f"{min(over_sdk.values()):.0f} to {max(over_sdk.values()):.0f}",
        )

        print(f"timing {fmt} linearity (1 call, 4 KiB and 2 MiB)", file=progress, flush=True)

        def format_stream(cell: grid.Cell, fmt: str = fmt) -> format_streams.FormatStream:
            if cell.size <= 64 * 1024:
                return format_streams.stream(fmt, cell)
            return format_streams.make(fmt, cell, calls=grid.make_stream(cell).calls)

        bytes_linearity(target, f"{fmt}: ", format_stream, core.format_bytes, formats.check, lambda stream: stream.size)

    print("breaking down core-bytes' time on both formats", file=progress, flush=True)
    cell = grid.Cell(1, 64 * 1024, "sequential")
    ways = format_breakdown(cell, rounds=7)
    first, second = format_streams.FORMATS
    say("")
    say(f"Where core-bytes' time goes ({cell.id}, ns per event, best of 7):")
    say("")
    say(
        f"| way | {FORMAT_TITLES[first]} ns/event | / orjson-lines | {FORMAT_TITLES[second]} ns/event | / orjson-lines |"
    )
    say("| --- | ---: | ---: | ---: | ---: |")
    base = {fmt: ways[fmt][0][1] for fmt in format_streams.FORMATS}
    for (label, a), (_, b) in zip(ways[first], ways[second], strict=True):
        say(f"| {label} | {a:,.0f} | {a / base[first]:.2f} | {b:,.0f} | {b / base[second]:.2f} |")


# --- the Chat Completions grid ---------------------------------------------------------------------------------


def chat_report(options: argparse.Namespace, say: Callable[[str], None], target: Callable[[bool, str], None]) -> None:
    """The Chat Completions tables: every implementation on the grid, its targets, memory, the breakdown."""
    progress = sys.stderr
    cells = list(grid.GRID)
    names = list(chunks.CONTENDERS)
    results: dict[grid.Cell, dict[str, float]] = {}
    for cell in cells:
        stream = grid.stream(cell)
        runnable = [name for name in names if chunks.CONTENDERS[name].skip_reason(cell) is None]
        print(f"timing {cell.id} ({stream.chunk_count} chunks): {', '.join(runnable)}", file=progress, flush=True)
        results[cell] = time_cell(stream, runnable, options.rounds, options.budget)

    def t(cell: grid.Cell, name: str) -> float | None:
        return results[cell].get(name)

    say(
        "| cell | chunks | floor ns/chunk | core/floor | core-sdk/floor-sdk | reference/core | join-loop/core "
        "| openai-sdk/core-sdk | langchain/core |"
    )
    say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    core_floor: list[float] = []
    for cell in cells:
        stream = grid.stream(cell)
        ratios = {
            "core/floor": _ratio(t(cell, "core"), t(cell, "floor")),
            "core-sdk/floor-sdk": _ratio(t(cell, "core-sdk"), t(cell, "floor-sdk")),
            "reference/core": _ratio(t(cell, "reference"), t(cell, "core")),
            "join-loop/core": _ratio(t(cell, "join-loop"), t(cell, "core")),
            "openai-sdk/core-sdk": _ratio(t(cell, "openai-sdk"), t(cell, "core-sdk")),
            "langchain/core": _ratio(t(cell, "langchain"), t(cell, "core")),
        }
        core_floor.append(ratios["core/floor"] or 0.0)
        floor_ns = (t(cell, "floor") or 0.0) / stream.chunk_count * 1e9
        say(
            f"| {cell.id} | {stream.chunk_count} | {floor_ns:.0f} "
            f"| {_fmt(ratios['core/floor'], f'<={CORE_FLOOR_EVERY}')} "
            f"| {_fmt(ratios['core-sdk/floor-sdk'], f'<={SDK_FLOOR_EVERY}')} "
            f"| {_fmt(ratios['reference/core'], f'>={REFERENCE_OVER_CORE}')} "
            f"| {_fmt(ratios['join-loop/core'])} "
            f"| {_fmt(ratios['openai-sdk/core-sdk'], f'>={OPENAI_OVER_CORE_SDK}')} "
            f"| {_fmt(ratios['langchain/core'])} |"
        )

    def column(numerator: str, denominator: str) -> list[float]:
        values = [_ratio(t(cell, numerator), t(cell, denominator)) for cell in cells]
        return [value for value in values if value is not None]

    say("")
    say("Targets (✓ met, ✗ missed):")
    say("")

    median = statistics.median(core_floor)
    worst = max(core_floor)
    target(worst <= CORE_FLOOR_EVERY, f"core/floor at most {CORE_FLOOR_EVERY} in every cell: worst {worst:.2f}")
    target(median <= CORE_FLOOR_MEDIAN, f"core/floor at most {CORE_FLOOR_MEDIAN} at the median: {median:.2f}")
    reference = column("reference", "core")
    target(
        min(reference) >= REFERENCE_OVER_CORE,
        f"reference/core at least {REFERENCE_OVER_CORE:.0f}: {min(reference):.1f} to {max(reference):.1f} "
        f"(median {statistics.median(reference):.1f})",
    )
    sdk = column("core-sdk", "floor-sdk")
    target(
        max(sdk) <= SDK_FLOOR_EVERY,
        f"core-sdk/floor-sdk at most {SDK_FLOOR_EVERY} in every cell: worst {max(sdk):.2f}, "
        f"median {statistics.median(sdk):.2f}",
    )
    openai = column("openai-sdk", "core-sdk")
    target(
        min(openai) >= OPENAI_OVER_CORE_SDK,
        f"openai-sdk/core-sdk at least {OPENAI_OVER_CORE_SDK:.0f} (on the {len(openai)} cells it runs on): "
        f"{min(openai):.0f} to {max(openai):.0f}",
    )

    # Linearity: per-byte time of one call at 4 KiB and at 2 MiB, in the same run.
    print("timing linearity (1 call, 4 KiB and 2 MiB)", file=progress, flush=True)
    small, large = (
        grid.stream(grid.Cell(1, 4 * 1024, "sequential")),
        grid.make_stream(grid.Cell(1, 2 * MIB, "sequential")),
    )
    per_byte = {}
    for stream in (small, large):
        best = time_cell(stream, ["core"], rounds=7 if stream is small else 5, budget=3.0)["core"]
        per_byte[stream.cell.size] = best / stream.argument_bytes
    linearity = per_byte[2 * MIB] / per_byte[4 * 1024]
    target(linearity <= LINEARITY, f"linear in bytes: per-byte time at 2 MiB / at 4 KiB = {linearity:.2f} (≤ 1.2)")

    # Flat per chunk from 1 to 16 parallel calls (64 KiB each), from the grid run.
    for mode in grid.MODES:
        per_chunk = {
            n: (t(grid.Cell(n, 64 * 1024, mode), "core") or 0.0)
            / grid.stream(grid.Cell(n, 64 * 1024, mode)).chunk_count
            for n in grid.PARALLEL
        }
        spread = per_chunk[16] / per_chunk[1]
        four = per_chunk[4] / per_chunk[1]
        target(
            max(spread, four, 1 / spread) <= FLATNESS,
            f"flat per chunk, {mode}, 64 KiB calls: per-chunk time at 4 and 16 calls / at 1 call = "
            f"{four:.2f}, {spread:.2f} (≤ {FLATNESS})",
        )

    # Memory, in fresh processes.
    calls = 8 if options.quick else 32
    print(f"measuring memory ({calls} x 2 MiB sequential, 16 x 2 MiB interleaved)", file=progress, flush=True)
    long = memory.engine_memory("sequential", calls, 2 * MIB)
    wide = memory.engine_memory("interleaved", 16, 2 * MIB)
    target(
        wide["streaming_ratio"] <= MEMORY,
        f"memory for arguments in flight: 16 interleaved calls of 2 MiB (32 MiB in flight) grow the RSS by "
        f"{wide['core_streaming'] / MIB:.1f} MiB while streaming = {wide['streaming_ratio']:.2f}x "
        f"(≤ about {MEMORY:.0f}x)",
    )
    target(
        long["net_ratio"] <= MEMORY,
        f"memory over a long stream: {calls} sequential calls of 2 MiB ({long['total'] // MIB} MiB, "
        "2 MiB in flight), "
        f"the consumer dropping each call: peak RSS +{long['core_peak'] / MIB:.0f} MiB against "
        f"+{long['control_peak'] / MIB:.0f} MiB for building and dropping the same output without reassembly = "
        f"{long['net_ratio']:.1f}x the bytes in flight (≤ about {MEMORY:.0f}x); "
        f"against keeping every output to the end (+{long['retain_peak'] / MIB:.0f} MiB): {long['own_ratio']:+.2f}x",
    )

    # Where the time goes.
    print("breaking down the core's time", file=progress, flush=True)
    ways = breakdown(grid.Cell(1, 64 * 1024, "sequential"), rounds=7)
    say("")
    say("Where the core's time goes (1x64KiB-seq, per-chunk time over the floor's):")
    say("")
    say("| driving the core | / floor |")
    say("| --- | ---: |")
    for label, ratio in ways:
        say(f"| {label} | {ratio:.2f} |")


# --- the report --------------------------------------------------------------------------------------------------


def splice(page: str, report: str) -> str:
    """``page`` with what lies between its marks replaced by ``report``: the prose around them is left as written."""
    begin, end = page.find(BEGIN), page.find(END)
    if begin < 0 or end < begin or page.count(BEGIN) != 1 or page.count(END) != 1:
        raise ValueError(f"the page needs one {BEGIN!r} followed by one {END!r} to write the report between")
    return f"{page[: begin + len(BEGIN)]}\n\n{report}\n\n{page[end:]}"


def written(page: str) -> str:
    """What ``splice`` put between the page's marks (the last report written)."""
    begin, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[begin:end].strip("\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="at most this many rounds per cell (default 15)")
    parser.add_argument("--budget", type=float, default=1.5, help="seconds of timed runs per cell (default 1.5)")
    parser.add_argument("--quick", action="store_true", help="a smaller memory stream (8 calls, not 32)")
    parser.add_argument(
        "--validation-calls", type=int, default=workloads.CALLS, help="calls of the validation workload"
    )
    parser.add_argument(
        "--validation-budget", type=float, default=20.0, help="seconds of timed validation runs (default 20)"
    )
    parser.add_argument(
        "--only",
        choices=["formats", "dialects", "live"],
        help="one section alone: formats = Anthropic Messages and OpenAI Responses raw bytes (issue 4, item 8); "
        "dialects = calls written into text (issue 17, item 7); live = one event per read and many streams at once "
        "(issue 18, items 2 and 7)",
    )
    parser.add_argument(
        "--write",
        nargs="?",
        const=PAGE,
        type=Path,
        metavar="PAGE",
        help=f"write the tables between the marks of PAGE (default {PAGE.relative_to(BENCHES.parent)}), not stdout",
    )
    options = parser.parse_args(argv)
    if options.write is not None and options.only is not None:
        # The page holds every section; one section alone would replace the others.
        parser.error("--write needs the whole report: leave out --only")
    if options.write is not None:
        splice(options.write.read_text(encoding="utf-8"), "")  # a page without its marks fails now, not after the run

    build = build_info()
    started = time.perf_counter()
    misses: list[str] = []
    out: list[str] = []
    say = out.append

    def target(ok: bool, text: str) -> None:
        say(f"- {'✓' if ok else '✗'} {text}")
        if not ok:
            misses.append(text)

    if options.only is None:
        chat_report(options, say, target)
        validation_report(options, say, target)
        bytes_report(say, target, options.rounds, options.budget)
    if options.only in (None, "formats"):
        formats_report(say, target, options.rounds, options.budget)
    if options.only in (None, "dialects"):
        dialects_report(say, target, options.rounds, options.budget)
    if options.only in (None, "live"):
        live_report(say, target, options.rounds, options.budget)

    after = build_info()
    say("")
    if (after["mtime"], after["size"]) != (build["mtime"], build["size"]):
        say("**The extension was rebuilt during this run: the figures above mix two builds; run again.**")
        misses.append("extension rebuilt during the run")
    if build["profile"] != "release":
        say(f"**The extension is a {build['profile']} build: run `.venv/bin/maturin develop --release` first.**")
        misses.append("not a release build")
    repository = BENCHES.parent
    in_repository = build["path"].resolve().is_relative_to(repository.resolve())
    if not in_repository:
        say(f"The extension was loaded from `{build['path']}`, not from this repository's build.")
    command = "benches/report.py" + (f" --only {options.only}" if options.only else "")
    python = ".venv/bin/python" if in_repository else "python"
    how = " (`.venv/bin/maturin develop --release --quiet`)" if in_repository else ""
    slow = sorted(formats.SLOW_CONTENDERS) if options.only == "formats" else sorted(SLOW)
    columns = "x/core-bytes" if options.only == "formats" else "x/core"
    say(
        f"Measured in one run of `{python} {command}` ({time.perf_counter() - started:.0f} s) on a "
        f"{build['profile']} build{how}, CPython "
        f"{platform.python_version()}, {platform.machine()} with {os.cpu_count()} CPUs. Best of up to "
        f"{options.rounds} rounds per cell ({', '.join(slow)}: best of 3), each timing at least "
        f"{MIN_TIMING * 1e3:.0f} ms of repeated runs of one whole stream; quadratic competitors run where one run "
        f"takes under ~2 s. In the {columns} columns, the core is that many times faster than x."
    )
    if misses:
        say(f"Targets missed: {len(misses)}.")
    report = "\n".join(out)
    if options.write is None:
        print(report)
    else:
        options.write.write_text(splice(options.write.read_text(encoding="utf-8"), report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
