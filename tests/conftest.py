"""Shared test configuration: hypothesis profiles, and the ``implementation`` fixture (the core, then the reference)."""

from __future__ import annotations

import os
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

from tests.support.implementations import IMPLEMENTATIONS

# dev: quick local runs; ci: thorough but inside a few minutes on 2 cores; soak: overnight hunting.
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(params=list(IMPLEMENTATIONS.values()), ids=list(IMPLEMENTATIONS))
def implementation(request: pytest.FixtureRequest) -> ModuleType:
    """``toolwire`` (id ``core``) or ``toolwire.reference`` (id ``reference``): the test runs once with each."""
    module: ModuleType = request.param
    return module
