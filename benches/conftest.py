"""Benchmark configuration: the ``slow`` marker and the shared grid on ``sys.path``.

``make bench-smoke`` runs ``-m "not slow"`` with ``--benchmark-disable`` (each body once, as a correctness test
of every harness, on the smallest cells only); ``make bench`` runs everything for real on a release build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHES = Path(__file__).resolve().parent
if str(BENCHES) not in sys.path:
    sys.path.insert(0, str(BENCHES))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: a grid cell beyond the smallest, or a scaling/memory check (deselected by bench-smoke)"
    )
