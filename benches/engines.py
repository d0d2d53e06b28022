"""What ``validate_batch`` does inside DuckDB, Ray Data and Spark, against the same log validated in one process.

    .venv/bin/maturin develop --release --quiet && .venv/bin/python benches/engines.py

One log of 100,000 calls (``contenders.engines.write_log``: the validation workload against the BFCL tools, as eight
Parquet files) goes through each job of ``contenders.engines`` once to warm it (Ray's actors and Spark's JVM and Python
workers started, the tools compiled) and then ``--rounds`` times; a figure is the best run, wall time from reading the
files to holding every verdict. Each engine is given the machine's two cores; ``one process`` is the whole folder
read and validated by one ``validate_batch`` call on one core.
Printed: calls per second and per core, and each job's time over the one process's, as one markdown table for
docs/history.md. Every job's verdicts are checked against the one process's first.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benches.contenders import engines


def best(job: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    """The best wall time of ``rounds`` runs after one warm-up run, and the warm-up's result."""
    result = job()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        job()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100_000, help="calls in the log (default 100,000)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per job after the warm-up (default 3)")
    arguments = parser.parse_args()
    import duckdb

    with tempfile.TemporaryDirectory() as scratch:
        log = engines.write_log(Path(scratch), arguments.calls)
        ray = engines.start_ray()
        spark = engines.start_spark()
        connection = duckdb.connect()
        connection.execute(f"SET threads = {engines.CORES}")
        jobs: dict[str, tuple[int, Callable[[], Any]]] = {
            "one process": (1, lambda: engines.single_process(log)),
            "DuckDB UDF": (engines.CORES, lambda: engines.duckdb_job(log, connection)),
            "Ray Data map_batches": (engines.CORES, lambda: engines.ray_job(log, ray)),
            "Spark mapInArrow": (engines.CORES, lambda: engines.spark_job(log, spark)),
        }
        figures = {}
        reference = None
        for name, (cores, job) in jobs.items():
            seconds, table = best(job, arguments.rounds)
            verdicts = sorted(
                zip(table["id"].to_pylist(), table["ok"].to_pylist(), table["codes"].to_pylist(), strict=False)
            )
            reference = verdicts if reference is None else reference
            assert verdicts == reference, f"{name}: verdicts differ from the one process's"
            figures[name] = (cores, seconds)
        connection.close()
        spark.stop()
        ray.shutdown()
    baseline = figures["one process"][1]
    print(f"{arguments.calls:,} calls, best of {arguments.rounds} warm runs\n")
    print("| job | cores | seconds | calls/s | calls/s per core | time / one process |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (cores, seconds) in figures.items():
        rate = arguments.calls / seconds
        print(f"| {name} | {cores} | {seconds:.2f} | {rate:,.0f} | {rate / cores:,.0f} | {seconds / baseline:.2f} |")


if __name__ == "__main__":
    main()
