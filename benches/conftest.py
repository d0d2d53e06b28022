"""Benchmark configuration: the ``slow`` marker.

``make bench-smoke`` runs ``-m "not slow"`` with ``--benchmark-disable`` (each body once, as a correctness test
of every harness, on the smallest cells only); ``make bench`` runs everything for real on a release build.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: a grid cell beyond the smallest, or a scaling/memory check (deselected by bench-smoke)"
    )
