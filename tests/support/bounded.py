"""Hostile input is tried in a child process with a memory cap and a time limit, and its cost is measured there.

A bug that makes memory or time unbounded must fail the test that found it, not the test run (an allocation
failure aborts the process; a hang never ends). `run_bounded` runs a snippet under ``RLIMIT_AS`` and a wall-clock
timeout and reports what it cost: its time, and the child's peak resident memory minus what it held when the
snippet started (never less than what the snippet used; more only by what start-up held and freed). Tests assert
bounds on both.

The snippet is plain Python run at module level; whatever it assigns to ``outcome`` (any JSON value) comes back.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

__all__ = ["Bounded", "run_bounded"]

_HARNESS = """
import json, resource, sys, time
cap = {cap}
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
{setup}
with open("/proc/self/statm") as statm:
    before = int(statm.read().split()[1]) * resource.getpagesize() // 1024
started = time.perf_counter()
outcome = None
{snippet}
seconds = time.perf_counter() - started
# VmHWM is this process's own peak: ru_maxrss would start at the parent's resident size at fork (Linux carries it
# across exec), so a child of a large pytest process would report the parent's memory as its growth.
with open("/proc/self/status") as status:
    after = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
sys.stdout.write("\\n@@bounded@@" + json.dumps({{"outcome": outcome, "seconds": seconds, "peak_growth_kib": after - before}}))
"""


@dataclass(frozen=True)
class Bounded:
    """What a bounded run cost and gave back."""

    outcome: Any
    seconds: float
    peak_growth_mib: float


def run_bounded(
    snippet: str, *, setup: str = "import toolwire", memory_mib: int = 2048, timeout_s: float = 120.0
) -> Bounded:
    """Run ``snippet`` after ``setup`` in a child capped at ``memory_mib`` of address space and ``timeout_s``.

    Raises AssertionError (with the child's output) when the child fails, is killed, or runs out of time.
    """
    code = _HARNESS.format(cap=memory_mib * 1024 * 1024, setup=textwrap.dedent(setup), snippet=textwrap.dedent(snippet))
    try:
        child = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"the bounded run took longer than {timeout_s} s") from error
    marker = child.stdout.rfind("@@bounded@@")
    if child.returncode != 0 or marker < 0:
        raise AssertionError(
            f"the bounded run failed (exit {child.returncode}, cap {memory_mib} MiB):\n"
            f"{child.stdout[-2000:]}\n{child.stderr[-4000:]}"
        )
    report = json.loads(child.stdout[marker + len("@@bounded@@") :])
    return Bounded(report["outcome"], report["seconds"], report["peak_growth_kib"] / 1024)
