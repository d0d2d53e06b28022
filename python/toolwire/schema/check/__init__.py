"""The registry rules of ``toolwire check``: each tool on its own, then the tools of a project together."""

from __future__ import annotations

from toolwire.schema.check._check import CHECK_RULES, DEFAULT_SIMILARITY_THRESHOLD, check_tools

__all__ = [
    "CHECK_RULES",
    "DEFAULT_SIMILARITY_THRESHOLD",
    "check_tools",
]
