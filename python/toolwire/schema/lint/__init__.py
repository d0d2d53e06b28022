"""The provider lint: what each provider or engine does with each tool schema, from versioned rule files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire.schema.lint import _lint
from toolwire.schema.lint._lint import LINT_TARGETS, lint_tools, message_template, resolve_targets, target_rules
from toolwire.schema.lint._matrix import refresh_matrix, render_matrix
from toolwire.schema.lint._rules import LintRule

if TYPE_CHECKING:
    from toolwire.schema.lint._lint import LINT_RULES


def __getattr__(name: str) -> Any:
    """``LINT_RULES``, read from the rule files on first use (importing the lint needs no PyYAML)."""
    if name == "LINT_RULES":
        return _lint.LINT_RULES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LINT_RULES",
    "LINT_TARGETS",
    "LintRule",
    "lint_tools",
    "message_template",
    "refresh_matrix",
    "render_matrix",
    "resolve_targets",
    "target_rules",
]
