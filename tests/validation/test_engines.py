"""``validate_batch`` on the engines a month of logs already lives in: DuckDB, Ray Data and Spark, for real.

One log of 100,000 calls against the 3,462 BFCL tools (``benches.inputs.validation``: a tenth invalid by
construction) is written as Parquet for the engines and as JSON lines for ``replay_calls``. Each engine runs the
recipe docs/history.md gives (``benches/contenders/engines.py``: a DuckDB UDF over the table, Ray Data's
``map_batches`` with an actor per core on a local Ray, Spark's ``mapInArrow`` in local mode) and must reach
``replay``'s verdicts: the same calls invalid, each with the same codes in the same order, and every other call
valid. ``benches/engines.py`` times the same jobs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from benches.contenders import engines
from benches.inputs import validation

from toolwire.schema.replay import replay_calls

CALLS = 100_000

# Ray Data's DataContext warns about its own deprecated defaults on first use, whoever calls it.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")

Verdicts = tuple[int, dict[str, list[str]]]
"""How many calls are valid, and each invalid call's id with its violation codes."""


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> engines.Log:
    validation.skip_if_absent()
    return engines.write_log(tmp_path_factory.mktemp("engines"), CALLS)


@pytest.fixture(scope="module")
def replayed(log: engines.Log) -> Verdicts:
    report = replay_calls(log.jsonl, log.tools, limit_failures=CALLS)
    assert report.calls == CALLS and report.unreadable == 0
    return report.valid, {str(failure.id): [v.code for v in failure.violations] for failure in report.failures}


def verdicts(table: Any) -> Verdicts:
    rows = table.to_pylist()
    assert len(rows) == CALLS and len({row["id"] for row in rows}) == CALLS
    return sum(row["ok"] for row in rows), {row["id"]: row["codes"] for row in rows if not row["ok"]}


def test_replay_finds_the_invalid_calls_the_log_was_made_with(replayed: Verdicts) -> None:
    valid, invalid = replayed
    kinds = validation.workload(CALLS).kinds
    assert valid == kinds.count("valid") and len(invalid) == CALLS - valid > 0
    assert sorted(invalid) == [f"call_{number:06d}" for number, kind in enumerate(kinds) if kind != "valid"]


@pytest.fixture(scope="module", params=list(engines.ENGINES))
def job(request: pytest.FixtureRequest) -> Iterator[engines.Job]:
    _, engine = engines.ENGINES[request.param]
    with ExitStack() as stack:
        try:
            job = stack.enter_context(engine())
        except engines.EngineMissing as missing:
            pytest.skip(str(missing))
        yield job


def test_each_engine_reaches_replays_verdicts(job: engines.Job, log: engines.Log, replayed: Verdicts) -> None:
    assert verdicts(job(log)) == replayed
