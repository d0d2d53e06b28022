"""Replay (issue 7, item 2): calls read from a JSONL call log and validated against the BFCL-sized schemas, one core.

The workload is a call log as ``toolwire.CallLog`` writes it (``id``, ``name``, ``arguments`` as JSON text,
``tool_fingerprint``, ``ts``, ``outcome``; plus ``kind``, what the call is by construction) against the 3462 tools of
``validation.tools()`` (every distinct BFCL v4 schema). Valid arguments are drawn with
``toolwire.strategies.arguments`` (hypothesis, ``derandomize`` and a fixed seed: the same values every run) for a
seeded sample of the tools, ``PER_TOOL`` values each, into a pool; the calls are drawn from the pool with a seeded
``random.Random``, and ``validation.INVALID_SHARE`` of them broken by ``validation``'s mutations (a number
sent as a string, a required property left out, an enum near miss, an unexpected property). The log is written once
per size and seed into pytest's cache (``.pytest_cache``), untimed; drawing the pool takes ~9 ms a value.

Contenders, each reading the file and judging every call (every error of every call, the first 20 failures kept):

- ``toolwire``: ``toolwire.schema.replay_calls(path, registry)`` (the file read and validated in the core, chunk by
  chunk, the GIL released);
- ``toolwire-python-reading``: the same with ``READ_IN_CORE`` off: lines read in Python with orjson, validated in
  batches through the core (the reference reader, and how replay read logs before the core did);
- ``orjson+jsonschema-rs``: a loop of ``orjson.loads`` and each tool's ``jsonschema_rs`` validator;
- ``json+jsonschema``: a plain Python loop of ``json.loads`` and each tool's ``Draft202012Validator`` (compiled once).

The process is pinned to one core (``os.sched_setaffinity``) for the timing, so the core's batch threads use one
core too. Schemas are compiled beforehand, untimed. Sizes: ``SMALL`` calls (``bench-smoke``) and ``CALLS`` (``slow``).
After timing, every contender's counts must equal the construction. Target (issue 18, item 6): toolwire at least
500,000 calls/s on one core.

A second workload, ``words``, is the same call log made of ``validation.workload``'s calls (words, enum members
and small numbers, as models write them; the workload of ``test_bench_validation``): hypothesis' values are far
heavier to read (arbitrary Unicode and control characters, escaped twice in a log line: ~340 bytes a line against
~150), so the two bracket what a real log costs.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from benches.contenders import core, validators
from benches.contenders.lineups import validation as lineup
from benches.inputs import validation

SEED = 20_250_507
SMALL = 2_000
CALLS = 100_000
PER_TOOL = 4
POOL_TOOLS = {SMALL: 40, CALLS: 800}  # tools whose arguments are drawn (the registry holds all 3462)
FORMAT_VERSION = 2  # bump when the workload's construction changes, so that cached logs are rebuilt
KEEP = 20


@dataclass(frozen=True)
class Log:
    path: Path
    calls: int
    invalid: int
    text_bytes: int


def _draw(definition: dict[str, Any], strategy: Any, into: list[tuple[dict[str, Any], Any]]) -> None:
    """``PER_TOOL`` values of ``strategy``, the same every run (hypothesis derandomized, with a fixed seed)."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    @seed(SEED)
    @settings(
        max_examples=PER_TOOL,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(value: Any) -> None:
        into.append((definition, value))

    draw()


def _pool(tools: int) -> list[tuple[dict[str, Any], Any]]:
    """``(definition, valid arguments)`` drawn with ``toolwire.strategies.arguments`` for a seeded sample of tools."""
    from toolwire.strategies import UnsupportedSchemaError, arguments

    rng = random.Random(SEED)
    definitions = list(validation.tools())
    chosen = rng.sample(definitions, tools)
    # One tool at least that each kind of breakage can hit (a typed additionalProperties is rare in BFCL: 11 tools).
    for kind in validation.KINDS:
        chosen.append(rng.choice([d for d in definitions if kind in validation.breakable(d["parameters"])]))
    pool: list[tuple[dict[str, Any], Any]] = []
    for definition in chosen:
        try:
            strategy = arguments(definition)
        except UnsupportedSchemaError:
            continue  # (3 BFCL tools require a property no value satisfies)
        _draw(definition, strategy, pool)
    return pool


def _broken(pool: list[tuple[dict[str, Any], Any]], rng: random.Random) -> tuple[str, dict[str, Any], Any]:
    """A call broken in a kind drawn uniformly, from a pool value that allows that kind."""
    while True:
        kind = rng.choice(validation.KINDS)
        for _ in range(10 * len(pool)):
            definition, value = rng.choice(pool)
            value = copy.deepcopy(value)
            mutation = validation._mutations(definition["parameters"], value, rng).get(kind)
            if mutation is not None:
                mutation()
                return kind, definition, value


def _word_records(n: int) -> Iterator[dict[str, Any]]:
    """The calls of ``validation.workload(n)`` (words, enum members, small numbers) as call-log records."""
    registry = core.registry()
    load = validation.workload(n)
    start = datetime(2025, 5, 1, tzinfo=timezone.utc)
    for number, ((name, text), kind) in enumerate(zip(load.calls, load.kinds, strict=True)):
        yield {
            "id": f"call_{number}",
            "name": name,
            "arguments": text,
            "tool_fingerprint": registry.get(name).fingerprint,
            "ts": (start + timedelta(milliseconds=number)).isoformat(),
            "outcome": "ok" if kind == "valid" else "invalid",
            "kind": kind,
        }


def _records(n: int) -> Iterator[dict[str, Any]]:
    registry = core.registry()
    pool = _pool(POOL_TOOLS[n])
    rng = random.Random(f"{SEED}:{n}")
    start = datetime(2025, 5, 1, tzinfo=timezone.utc)
    for number in range(n):
        if rng.random() < validation.INVALID_SHARE:
            kind, definition, value = _broken(pool, rng)
        else:
            kind = "valid"
            definition, value = rng.choice(pool)
        name = definition["name"]
        yield {
            "id": f"call_{number}",
            "name": name,
            "arguments": json.dumps(value, ensure_ascii=False),
            "tool_fingerprint": registry.get(name).fingerprint,
            "ts": (start + timedelta(milliseconds=number)).isoformat(),
            "outcome": "ok" if kind == "valid" else "invalid",
            "kind": kind,
        }


WORKLOADS: dict[str, Callable[[int], Iterator[dict[str, Any]]]] = {"strategies": _records, "words": _word_records}


@pytest.fixture(scope="session")
def log_folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's cache (the logs outlive the run), or a temporary folder when the cache plugin is off."""
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("toolwire-bench-replay")
    return Path(cache.mkdir("toolwire-bench-replay"))


def call_log(folder: Path, n: int, workload: str = "strategies") -> Log:
    """The call log of ``n`` calls of a workload, written once into ``folder``."""
    path = folder / f"{workload}-{n}-{SEED}-v{FORMAT_VERSION}.jsonl"
    if not path.is_file():
        partial = path.with_suffix(".partial")
        with partial.open("w", encoding="utf-8") as out:
            for record in WORKLOADS[workload](n):
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        partial.replace(path)
    invalid = text_bytes = 0
    with path.open("rb") as lines:
        for line in lines:
            record = json.loads(line)
            invalid += record["kind"] != "valid"
            text_bytes += len(record["arguments"].encode())
    return Log(path, n, invalid, text_bytes)


@pytest.fixture
def one_core() -> Iterator[int]:
    """Pin the process (and the threads the core starts for a batch) to one core for the test."""
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("os.sched_setaffinity is not available here (the benchmark pins one core)")
    before = os.sched_getaffinity(0)
    core = min(before)
    os.sched_setaffinity(0, {core})
    try:
        yield core
    finally:
        os.sched_setaffinity(0, before)


# --- the contenders -------------------------------------------------------------------------------------------------

Result = tuple[int, int, list[tuple[str, list[Any]]]]  # calls, invalid, first failures (id, errors)


def run_toolwire(path: Path) -> Result:
    from toolwire.schema.replay import _replay

    report = _replay.replay_calls(path, core.registry(), limit_failures=KEEP)
    return report.calls, report.invalid, [(f.id or "", list(f.errors)) for f in report.failures]


def run_toolwire_python_reading(path: Path) -> Result:
    """``replay_calls`` with the lines read in Python (orjson) and validated in batches: the reference reader."""
    from toolwire.schema.replay import _replay

    before = _replay.READ_IN_CORE
    _replay.READ_IN_CORE = False
    try:
        return run_toolwire(path)
    finally:
        _replay.READ_IN_CORE = before


def _python_loop(path: Path, validators: dict[str, Any], loads: Callable[[bytes | str], Any]) -> Result:
    """The loop a user would write: parse each line, parse its arguments, collect every error of the tool's schema."""
    calls = invalid = 0
    failures: list[tuple[str, list[Any]]] = []
    with path.open("rb") as lines:
        for line in lines:
            record = loads(line)
            arguments = record["arguments"]
            errors = list(
                validators[record["name"]].iter_errors(loads(arguments) if type(arguments) is str else arguments)
            )
            calls += 1
            if errors:
                invalid += 1
                if len(failures) < KEEP:
                    failures.append((record["id"], errors))
    return calls, invalid, failures


def run_orjson_jsonschema_rs(path: Path) -> Result:
    import orjson

    return _python_loop(path, validators.jsonschema_rs(), orjson.loads)


def run_json_jsonschema(path: Path) -> Result:
    return _python_loop(path, validators.jsonschema(), json.loads)


CONTENDERS: dict[str, Callable[[Path], Result]] = {
    "toolwire": run_toolwire,
    "toolwire-python-reading": run_toolwire_python_reading,
    "orjson+jsonschema-rs": run_orjson_jsonschema_rs,
    "json+jsonschema": run_json_jsonschema,
}
SLOW_CONTENDERS = frozenset({"json+jsonschema"})  # pure Python: one pass over 100,000 calls takes seconds


def _sizes() -> list[Any]:
    return [pytest.param(n, id=f"{n}calls", marks=() if n == SMALL else (pytest.mark.slow,)) for n in (SMALL, CALLS)]


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("size", _sizes())
def test_replay_log_is_what_it_says(log_folder: Path, size: int, workload: str) -> None:
    """Python's ``jsonschema`` passes every call built valid and fails every call built broken."""
    validation.skip_if_absent()
    log = call_log(log_folder, size, workload)
    draft = validators.jsonschema()
    kinds: dict[str, int] = {}
    with log.path.open("rb") as lines:
        for line in lines:
            record = json.loads(line)
            errors = list(draft[record["name"]].iter_errors(json.loads(record["arguments"])))
            assert bool(errors) == (record["kind"] != "valid"), (record, [e.message for e in errors])
            kinds[record["kind"]] = kinds.get(record["kind"], 0) + 1
    assert set(kinds) == {"valid", *validation.KINDS}, kinds
    assert 0.08 <= log.invalid / size <= 0.12, kinds


@pytest.mark.parametrize("contender", list(CONTENDERS))
@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("size", _sizes())
def test_replay(benchmark: Any, log_folder: Path, one_core: int, contender: str, workload: str, size: int) -> None:
    validation.skip_if_absent()
    log = call_log(log_folder, size, workload)
    lineup.prepare()  # every tool's schema compiled for every contender, untimed
    run = CONTENDERS[contender]
    benchmark.group = f"replay-{workload}-{size}calls"
    benchmark.extra_info.update(calls=size, invalid=log.invalid, text_bytes=log.text_bytes, core=one_core)
    if contender in SLOW_CONTENDERS and size > SMALL:
        calls, invalid, failures = benchmark.pedantic(run, args=(log.path,), rounds=1, iterations=1)
    else:
        calls, invalid, failures = benchmark(run, log.path)
    assert (calls, invalid) == (size, log.invalid), contender
    assert len(failures) == KEEP and all(errors for _, errors in failures)
    # The same first failures, whoever judged them.
    expected = []
    with log.path.open("rb") as lines:
        for line in lines:
            record = json.loads(line)
            if record["kind"] != "valid":
                expected.append(record["id"])
                if len(expected) == KEEP:
                    break
    assert [identifier for identifier, _ in failures] == expected
