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
    figures = {}
    reference = None
    with tempfile.TemporaryDirectory() as scratch:
        log = engines.write_log(Path(scratch), arguments.calls)
        for name, (cores, engine) in engines.ENGINES.items():
            with engine() as job:
                seconds, table = best(lambda job=job: job(log), arguments.rounds)
            verdicts = sorted(
                zip(table["id"].to_pylist(), table["ok"].to_pylist(), table["codes"].to_pylist(), strict=True)
            )
            reference = verdicts if reference is None else reference
            assert verdicts == reference, f"{name}: verdicts differ from the one process's"
            figures[name] = (cores, seconds)
    baseline = figures["one process"][1]
    print(f"{arguments.calls:,} calls, best of {arguments.rounds} warm runs\n")
    print("| job | cores | seconds | calls/s | calls/s per core | time / one process |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (cores, seconds) in figures.items():
        rate = arguments.calls / seconds
        print(f"| {name} | {cores} | {seconds:.2f} | {rate:,.0f} | {rate / cores:,.0f} | {seconds / baseline:.2f} |")


if __name__ == "__main__":
    main()
