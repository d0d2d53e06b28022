"""Shared test configuration: hypothesis profiles."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# dev: quick local runs; ci: thorough but inside a few minutes on 2 cores; soak: overnight hunting.
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
