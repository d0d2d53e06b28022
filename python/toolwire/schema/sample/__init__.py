"""Sampling: a small, scrubbed fixture of observed calls that still covers every feature the logs showed."""

from __future__ import annotations

from toolwire.schema.sample._sample import DEFAULT_PER_TOOL, SampleResult, ToolSample, sample_calls
from toolwire.schema.sample._scrub import Scrub

__all__ = [
    "DEFAULT_PER_TOOL",
    "SampleResult",
    "Scrub",
    "ToolSample",
    "sample_calls",
]
