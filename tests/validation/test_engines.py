"""``validate_batch`` on the engines a month of logs already lives in: DuckDB, Ray Data and Spark, for real.

One log of 100,000 calls against the 3,462 BFCL tools (``benches.inputs.validation``: a tenth invalid by
construction) is written as Parquet for the engines and as JSON lines for ``replay_calls``. Each engine runs the
recipe docs/history.md gives (``benches/contenders/engines.py``: a DuckDB UDF over the table, Ray Data's
``map_batches`` with an actor per core on a local Ray, Spark's ``mapInArrow`` in local mode) and must reach
``replay``'s verdicts: the same calls invalid, each with the same codes in the same order, and every other call
valid. ``benches/engines.py`` times the same jobs.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
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


def test_one_process(log: engines.Log, replayed: Verdicts) -> None:
    assert verdicts(engines.single_process(log)) == replayed


def test_duckdb_udf_over_a_table_of_logged_calls(log: engines.Log, replayed: Verdicts) -> None:
    duckdb = pytest.importorskip("duckdb")
    with duckdb.connect() as connection:
        assert verdicts(engines.duckdb_job(log, connection)) == replayed


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    pytest.importorskip("ray")
    ray = engines.start_ray()
    yield ray
    ray.shutdown()


def test_ray_data_map_batches(ray: Any, log: engines.Log, replayed: Verdicts) -> None:
    assert verdicts(engines.ray_job(log, ray)) == replayed


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime: apt-get install default-jre-headless")
    session = engines.start_spark()
    yield session
    session.stop()


def test_spark_map_in_arrow(spark: Any, log: engines.Log, replayed: Verdicts) -> None:
    assert verdicts(engines.spark_job(log, spark)) == replayed
