"""Every rule id the schema commands' findings carry: what ``[tool.toolwire.rules]`` may name.

The rules of ``check``, ``drift`` and ``examples`` are declared ``Rule``s, the lint's come from its data files (and
``adapt`` reports under them, or ``adapt/not-loadable``), and ``diff`` names a finding after its change kind
(``diff/<kind>``) or after one of its own outcomes below.
"""

from __future__ import annotations

from functools import cache

__all__ = ["DIFF_OUTCOME_RULES", "rule_ids"]

#: The ``diff`` findings that are no change kind: about the diff's inputs, its evidence and its waivers.
DIFF_OUTCOME_RULES: tuple[str, ...] = (
    "diff/duplicate-name",
    "diff/evidence-unreadable",
    "diff/not-loadable",
    "diff/unexplained-failure",
    "diff/waiver-expired",
    "diff/waiver-unused",
)


@cache
def rule_ids() -> frozenset[str]:
    """Every rule id (the lint's read from its data files, which needs PyYAML, the ``schema`` extra's)."""
    from toolwire.schema.adapt import NOT_LOADABLE_RULE
    from toolwire.schema.check import CHECK_RULES
    from toolwire.schema.diff import CHANGE_KINDS
    from toolwire.schema.drift import DRIFT_RULES
    from toolwire.schema.examples import EXAMPLE_RULES
    from toolwire.schema.lint import LINT_RULES

    declared = {rule.id for rule in (*CHECK_RULES, *DRIFT_RULES, *EXAMPLE_RULES, *LINT_RULES)}
    diff = (*DIFF_OUTCOME_RULES, *(f"diff/{kind}" for kind in CHANGE_KINDS))
    return frozenset({*declared, *diff, NOT_LOADABLE_RULE})
