"""The schema toolkit: registry checks, provider lint, handler drift, prompt examples, breaking-change diff and replay.

Every command reports ``Finding``s (a stable rule id, a level, the tool, the JSON pointer of the construct, and the
fix) in a ``FindingReport``, rendered for people or machines by ``render`` (text, JSON, markdown, GitHub workflow
annotations, JUnit XML). Project defaults live in ``[tool.toolwire]`` of ``pyproject.toml`` (``load_config``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolwire.schema._config import Config, load_config
from toolwire.schema._findings import LEVELS, Finding, FindingReport, Level, Rule, sorted_findings
from toolwire.schema._output import OUTPUT_FORMATS, render
from toolwire.schema._sources import ToolSource, load_tools
from toolwire.schema.check import CHECK_RULES, DEFAULT_SIMILARITY_THRESHOLD, check_tools
from toolwire.schema.drift import DRIFT_RULES, check_handler, tool_from_function
from toolwire.schema.examples import EXAMPLE_RULES, check_examples

if TYPE_CHECKING:
    from toolwire.schema.adapt import AdaptReport, adapt_tools
    from toolwire.schema.calls import ObservedCall, UnreadableRecord, read_calls
    from toolwire.schema.diff import CHANGE_KINDS, Change, DiffReport, diff_tools
    from toolwire.schema.history import (
        CallProblem,
        HistoryReport,
        Migration,
        MigrationError,
        Migrations,
        RegistryHistory,
        RegistryVersion,
        VersionMatch,
        migration,
    )
    from toolwire.schema.lint import LINT_RULES, LINT_TARGETS, lint_tools
    from toolwire.schema.replay import ReplayReport, replay_calls
    from toolwire.schema.sample import SampleResult, Scrub, ToolSample, sample_calls

# Imported on first use: the lint reads its rule files (YAML) when imported, replay reads JSONL with orjson, and the
# diff pulls in the lint; code that only checks tools should need none of that.
_LAZY = {
    "LINT_RULES": "lint",
    "LINT_TARGETS": "lint",
    "lint_tools": "lint",
    "AdaptReport": "adapt",
    "adapt_tools": "adapt",
    "CHANGE_KINDS": "diff",
    "Change": "diff",
    "DiffReport": "diff",
    "diff_tools": "diff",
    "ObservedCall": "calls",
    "UnreadableRecord": "calls",
    "read_calls": "calls",
    "ReplayReport": "replay",
    "replay_calls": "replay",
    "SampleResult": "sample",
    "ToolSample": "sample",
    "sample_calls": "sample",
    "Scrub": "sample",
    "RegistryHistory": "history",
    "RegistryVersion": "history",
    "VersionMatch": "history",
    "CallProblem": "history",
    "HistoryReport": "history",
    "Migration": "history",
    "MigrationError": "history",
    "Migrations": "history",
    "migration": "history",
}


def __getattr__(name: str) -> Any:
    """The names of the heavier commands, imported on first use."""
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(f"toolwire.schema.{module}"), name)
    raise AttributeError(f"module 'toolwire.schema' has no attribute {name!r}")


__all__ = [
    "CHANGE_KINDS",
    "CHECK_RULES",
    "DEFAULT_SIMILARITY_THRESHOLD",
    "DRIFT_RULES",
    "EXAMPLE_RULES",
    "LEVELS",
    "LINT_RULES",
    "LINT_TARGETS",
    "OUTPUT_FORMATS",
    "AdaptReport",
    "CallProblem",
    "Change",
    "Config",
    "DiffReport",
    "Finding",
    "FindingReport",
    "HistoryReport",
    "Level",
    "Migration",
    "MigrationError",
    "Migrations",
    "ObservedCall",
    "RegistryHistory",
    "RegistryVersion",
    "ReplayReport",
    "Rule",
    "SampleResult",
    "Scrub",
    "ToolSample",
    "ToolSource",
    "UnreadableRecord",
    "VersionMatch",
    "adapt_tools",
    "check_examples",
    "check_handler",
    "check_tools",
    "diff_tools",
    "lint_tools",
    "load_config",
    "load_tools",
    "migration",
    "read_calls",
    "render",
    "replay_calls",
    "sample_calls",
    "sorted_findings",
    "tool_from_function",
]
