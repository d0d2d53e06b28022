"""The schema toolkit: registry checks, provider lint, handler drift and prompt examples, offline and in milliseconds.

Every command reports ``Finding``s (a stable rule id, a level, the tool, the JSON pointer of the construct, and the
fix) in a ``FindingReport``, rendered for people or machines by ``render`` (text, JSON, markdown, GitHub workflow
annotations, JUnit XML). Project defaults live in ``[tool.toolstream]`` of ``pyproject.toml`` (``load_config``).
"""

from __future__ import annotations

from toolstream.schema._config import Config, load_config
from toolstream.schema._findings import LEVELS, Finding, FindingReport, Level, Rule
from toolstream.schema._output import OUTPUT_FORMATS, render
from toolstream.schema._sources import ToolSource, load_tools

__all__ = [
    "LEVELS",
    "OUTPUT_FORMATS",
    "Config",
    "Finding",
    "FindingReport",
    "Level",
    "Rule",
    "ToolSource",
    "load_config",
    "load_tools",
    "render",
]
