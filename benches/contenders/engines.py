"""``validate_batch`` inside the engines a log already lives in: DuckDB, Ray Data and Spark (docs/history.md's recipes).

Each job reads the log's Parquet file and returns a ``pyarrow.Table`` of ``id``, ``ok`` and ``codes``, one row per
call. ``tests/validation/test_engines.py`` holds their verdicts to ``replay``'s; ``benches/engines.py`` times them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

import toolwire
from benches.inputs import validation

#: Rows per engine batch.
BATCH = 16_384
#: Parquet files the log is written as, as a month of logs is a folder of days.
FILES = 8
#: What the engines may use: the two cores of the machine the figures come from.
CORES = 2


@dataclass(frozen=True)
class Log:
    """A log of calls as a folder of Parquet files (for the engines) and JSON lines (for ``replay``), and its tools."""

    parquet: Path
    jsonl: Path
    tools: Path
    calls: int


def write_log(folder: Path, calls: int) -> Log:
    """``calls`` calls of the validation workload (a tenth invalid by construction), written into ``folder``."""
    log = Log(folder / "calls", folder / "calls.jsonl", folder / "tools.json", calls)
    made = validation.workload(calls).calls
    ids = [f"call_{number:06d}" for number in range(calls)]
    names = [name for name, _ in made]
    arguments = [text for _, text in made]
    table = pa.table({"id": ids, "name": names, "arguments": arguments})
    log.parquet.mkdir()
    share = -(-calls // FILES)
    for part in range(FILES):
        pq.write_table(table.slice(part * share, share), log.parquet / f"part-{part}.parquet")
    with log.jsonl.open("w", encoding="utf-8") as lines:
        for record in zip(ids, names, arguments, strict=True):
            lines.write(json.dumps(dict(zip(("id", "name", "arguments"), record, strict=True))) + "\n")
    log.tools.write_text(json.dumps(list(validation.tools())), encoding="utf-8")
    return log


def single_process(log: Log) -> pa.Table:
    """The baseline: the whole file read and validated in this process."""
    calls = pq.read_table(log.parquet)  # the folder's files in name order, as written
    result = toolwire.validate_batch(calls["name"], calls["arguments"], toolwire.ToolRegistry.from_file(log.tools))
    return pa.Table.from_arrays([calls["id"], result["ok"], result["codes"]], names=["id", "ok", "codes"])


# --- DuckDB: a scalar UDF over Arrow, called on each vector of rows -----------------------------------------------


def duckdb_job(log: Log, connection: Any) -> pa.Table:
    """A UDF ``toolwire_check(name, arguments)`` registered on ``connection``, over the log read as a table."""
    import duckdb

    registry = toolwire.ToolRegistry.from_file(log.tools)

    def check(names: pa.Array, arguments: pa.Array) -> pa.StructArray:
        result = toolwire.validate_batch(names, arguments, registry)
        columns = [result["ok"].combine_chunks(), result["codes"].combine_chunks()]
        return pa.StructArray.from_arrays(columns, names=["ok", "codes"])

    verdict = duckdb.struct_type({"ok": "BOOLEAN", "codes": "VARCHAR[]"})
    # "special": a null name reaches validate_batch (MISSING_NAME) instead of making the verdict null.
    connection.create_function(
        "toolwire_check", check, ["VARCHAR", "VARCHAR"], verdict, type="arrow", null_handling="special"
    )
    try:
        return connection.sql(
            "SELECT id, checked.ok AS ok, checked.codes AS codes FROM "
            f"(SELECT id, toolwire_check(name, arguments) AS checked FROM read_parquet('{log.parquet}/*.parquet'))"
        ).to_arrow_table()
    finally:
        connection.remove_function("toolwire_check")


# --- Ray Data: map_batches with a callable class, so that each actor compiles the tools once ----------------------


class RayCheck:
    """One actor's validator: the tools loaded and compiled once, then every batch it is given."""

    def __init__(self, tools: str) -> None:
        self.registry = toolwire.ToolRegistry.from_file(tools)

    def __call__(self, batch: pa.Table) -> pa.Table:
        result = toolwire.validate_batch(batch["name"], batch["arguments"], self.registry)
        return pa.Table.from_arrays([batch["id"], result["ok"], result["codes"]], names=["id", "ok", "codes"])


def start_ray() -> Any:
    """A local, private Ray instance on ``CORES`` CPUs."""
    import ray

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=CORES, include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray


def ray_job(log: Log, ray: Any) -> pa.Table:
    checked = ray.data.read_parquet(str(log.parquet)).map_batches(
        RayCheck,
        fn_constructor_args=(str(log.tools),),
        batch_format="pyarrow",
        batch_size=BATCH,
        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=CORES),
        num_cpus=0.5,  # the reading tasks need a share of the CPUs too, or they wait on the actors for ever
    )
    return pa.concat_tables(ray.get(checked.to_arrow_refs()))


# --- Spark: mapInArrow, each task reading its partition as Arrow record batches -----------------------------------


def spark_check(tools: str) -> Any:
    """The function ``mapInArrow`` runs in each task: the tools compiled once per task, then every record batch."""

    def check(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        registry = toolwire.ToolRegistry.from_file(tools)
        for batch in batches:
            result = toolwire.validate_batch(batch.column("name"), batch.column("arguments"), registry)
            columns = [result["ok"].combine_chunks(), result["codes"].combine_chunks()]
            yield pa.RecordBatch.from_arrays([batch.column("id"), *columns], names=["id", "ok", "codes"])

    return check


def start_spark() -> Any:
    """A local Spark session on ``CORES`` cores, its Python workers on this interpreter."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master(f"local[{CORES}]")
        .appName("toolwire")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def spark_job(log: Log, spark: Any) -> pa.Table:
    checked = spark.read.parquet(str(log.parquet)).mapInArrow(
        spark_check(str(log.tools)), "id string, ok boolean, codes array<string>"
    )
    return checked.toArrow()


# --- each engine started, its job given, and stopped ---------------------------------------------------------------

Job = Callable[[Log], pa.Table]


class EngineMissing(RuntimeError):
    """What an engine needs and this machine lacks (the tests skip on it; CI installs it)."""


@contextmanager
def one_process() -> Iterator[Job]:
    yield single_process


@contextmanager
def duckdb_engine() -> Iterator[Job]:
    import duckdb

    with duckdb.connect() as connection:
        connection.execute(f"SET threads = {CORES}")
        yield lambda log: duckdb_job(log, connection)


@contextmanager
def ray_engine() -> Iterator[Job]:
    ray = start_ray()
    try:
        yield lambda log: ray_job(log, ray)
    finally:
        ray.shutdown()


@contextmanager
def spark_engine() -> Iterator[Job]:
    if shutil.which("java") is None:
        raise EngineMissing("Spark needs a Java runtime: apt-get install default-jre-headless")
    spark = start_spark()
    try:
        yield lambda log: spark_job(log, spark)
    finally:
        spark.stop()


#: Every way of running the log, by the name the figures give it: how many cores it is given, and the engine.
ENGINES: dict[str, tuple[int, Callable[[], AbstractContextManager[Job]]]] = {
    "one process": (1, one_process),
    "DuckDB UDF": (CORES, duckdb_engine),
    "Ray Data map_batches": (CORES, ray_engine),
    "Spark mapInArrow": (CORES, spark_engine),
}
