"""The schema toolkit: registry checks, provider lint, handler drift and prompt examples, offline and in milliseconds.

Every command reports ``Finding``s (a stable rule id, a level, the tool, the JSON pointer of the construct, and the
fix) in a ``FindingReport``, rendered for people or machines by ``render`` (text, JSON, markdown, GitHub workflow
annotations, JUnit XML). Project defaults live in ``[tool.toolstream]`` of ``pyproject.toml`` (``load_config``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolstream.schema._check import CHECK_RULES, DEFAULT_SIMILARITY_THRESHOLD, check_tools
from toolstream.schema._config import Config, load_config
from toolstream.schema._drift import DRIFT_RULES, check_handler, tool_from_function
from toolstream.schema._examples import EXAMPLE_RULES, check_examples
from toolstream.schema._findings import LEVELS, Finding, FindingReport, Level, Rule
from toolstream.schema._output import OUTPUT_FORMATS, render
from toolstream.schema._sources import ToolSource, load_tools

if TYPE_CHECKING:
    from toolstream.schema._lint import LINT_RULES, LINT_TARGETS, lint_tools

# The lint reads its rule files (YAML) when imported; only code that lints should need PyYAML.
_LAZY = frozenset({"LINT_RULES", "LINT_TARGETS", "lint_tools"})


def __getattr__(name: str) -> Any:
    """The lint's names, imported on first use."""
    if name in _LAZY:
        from toolstream.schema import _lint

        return getattr(_lint, name)
    raise AttributeError(f"module 'toolstream.schema' has no attribute {name!r}")


__all__ = [
    "CHECK_RULES",
    "DEFAULT_SIMILARITY_THRESHOLD",
    "DRIFT_RULES",
    "EXAMPLE_RULES",
    "LEVELS",
    "LINT_RULES",
    "LINT_TARGETS",
    "OUTPUT_FORMATS",
    "Config",
    "Finding",
    "FindingReport",
    "Level",
    "Rule",
    "ToolSource",
    "check_examples",
    "check_handler",
    "check_tools",
    "lint_tools",
    "load_config",
    "load_tools",
    "render",
    "tool_from_function",
]
