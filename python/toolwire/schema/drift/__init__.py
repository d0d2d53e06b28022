"""Handler drift: a tool's schema against the handler that runs its calls, and a tool made from a function."""

from __future__ import annotations

from toolwire.schema.drift._drift import DRIFT_RULES, check_handler, tool_from_function
from toolwire.schema.drift._handler import describe

__all__ = [
    "DRIFT_RULES",
    "check_handler",
    "describe",
    "tool_from_function",
]
