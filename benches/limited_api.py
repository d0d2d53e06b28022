"""What the limited API (``abi3``) costs per call: the same release build with and without it, on the benchmark grid.

    .venv/bin/maturin build --release --locked --out /tmp/abi3
    .venv/bin/maturin build --release --locked --no-default-features --out /tmp/full
    .venv/bin/python benches/limited_api.py /tmp/abi3/toolwire-*.whl /tmp/full/toolwire-*.whl

The shipped wheel is built on the limited API (the ``abi3`` cargo feature, on by default): one wheel for every
CPython from 3.10. Without the feature the build uses the full API of the interpreter that builds it. Each wheel is
unpacked into its own folder, and a child process per wheel times the core's own contenders (``contenders.core``) on
every cell of the grid (``inputs.grid``): chunk dicts, the openai SDK's chunk objects, raw event-stream bytes and chunk
dicts validated with ``tools=``, then ``validate_many`` and ``validate`` per call on 20,000 calls of the validation
workload. Children alternate between the two wheels for ``--rounds`` rounds, and a figure is the best run of all
rounds, so that the machine's drift falls on both alike. Printed: per contender, the ratio abi3/full of every cell's
best time (median and range), as one markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]
CONTENDERS = ("chunks", "sdk_chunks", "sse_bytes", "chunks_with_tools")
VALIDATION = ("validate_many", "validate_loop")
VALIDATION_CALLS = 20_000


def _best(run: Callable[[], Any], budget: float) -> float:
    """The best of the runs that fit in ``budget`` seconds (at least three), after one warm-up run."""
    run()
    best = float("inf")
    spent = 0.0
    runs = 0
    while runs < 3 or spent < budget:
        started = time.perf_counter()
        run()
        took = time.perf_counter() - started
        best = min(best, took)
        spent += took
        runs += 1
    return best


def child(folder: str, budget: float) -> None:
    """Time every contender in this process, on the toolwire unpacked in ``folder``; print the times as JSON."""
    sys.path[:0] = [folder, str(REPOSITORY)]
    import toolwire
    from benches.contenders import core
    from benches.inputs import grid, validation

    assert Path(toolwire._core.__file__).is_relative_to(folder), toolwire._core.__file__
    times: dict[str, float] = {}
    for cell in grid.GRID:
        stream = grid.stream(cell)
        for name in CONTENDERS:
            contender = getattr(core, name)
            times[f"{name} {cell.id}"] = _best(lambda contender=contender, stream=stream: contender(stream), budget)
    calls = validation.workload(VALIDATION_CALLS).calls
    core.registry()
    for name in VALIDATION:
        contender = getattr(core, name)
        times[f"{name} {VALIDATION_CALLS}"] = _best(lambda contender=contender: contender(calls), budget)
    print(json.dumps({"extension": Path(toolwire._core.__file__).name, "times": times}))


def unpack(wheel: Path, into: Path) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(into)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("abi3", type=Path, help="the wheel built on the limited API")
    parser.add_argument("full", type=Path, help="the wheel built on the full API (--no-default-features)")
    parser.add_argument("--rounds", type=int, default=3, help="children per wheel, alternating (default 3)")
    parser.add_argument("--budget", type=float, default=0.2, help="seconds of timed runs per figure (default 0.2)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        child(arguments.child, arguments.budget)
        return
    with tempfile.TemporaryDirectory() as scratch:
        folders = {build: unpack(getattr(arguments, build), Path(scratch) / build) for build in ("abi3", "full")}
        best: dict[str, dict[str, float]] = {"abi3": {}, "full": {}}
        extensions = {}
        for _ in range(arguments.rounds):
            for build, folder in folders.items():
                done = subprocess.run(
                    [sys.executable, __file__, "-", "-", "--child", str(folder), "--budget", str(arguments.budget)],
                    cwd=REPOSITORY,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                measured = json.loads(done.stdout)
                extensions[build] = measured["extension"]
                for key, seconds in measured["times"].items():
                    best[build][key] = min(seconds, best[build].get(key, float("inf")))
    print(f"abi3: {extensions['abi3']}, full: {extensions['full']}, {arguments.rounds} rounds each\n")
    print("| contender | figures | abi3/full median | min | max |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in (*CONTENDERS, *VALIDATION):
        ratios = [best["abi3"][key] / best["full"][key] for key in best["abi3"] if key.split(" ")[0] == name]
        print(f"| {name} | {len(ratios)} | {statistics.median(ratios):.3f} | {min(ratios):.3f} | {max(ratios):.3f} |")


if __name__ == "__main__":
    main()
