"""Provider regressions: what a target refuses or weakens in NEW that it did not in OLD.

Both sides are linted per target (``lint_tools``, the research note's Part A as data). A finding of NEW with no
equal finding of OLD (same tool, rule, target and pointer; a renamed tool is matched under its old name) is a
change: ``reject`` is ``provider-rejects`` (BREAKING for that target), ``ignored`` and ``weakened`` are
``provider-weakens`` (RISKY). ``deviation`` findings (the provider behaves differently from JSON Schema but the
request goes through) are not regressions. Request-wide findings (tool counts, summed limits) carry the tool
``(request)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolwire.schema._findings import Finding
from toolwire.schema.diff._change import ABSENT, Change
from toolwire.schema.diff._tools import Side

__all__ = ["REQUEST", "provider_changes"]

#: The tool name of a request-wide provider regression.
REQUEST = "(request)"

_KINDS = {"reject": "provider-rejects", "ignored": "provider-weakens", "weakened": "provider-weakens"}


def _findings(side: Side, targets: Sequence[str]) -> list[Finding]:
    from toolwire.schema.lint import lint_tools

    return list(lint_tools(list(side.tools.values()), targets).findings)


def _key(finding: Finding, renamed: Mapping[str, str]) -> tuple[str, str, str, str]:
    tool = finding.tool or REQUEST
    return (renamed.get(tool, tool), finding.rule, finding.target or "", finding.pointer)


def provider_changes(old: Side, new: Side, targets: Sequence[str], renamed: Mapping[str, str]) -> list[Change]:
    """The provider regressions of NEW.

    Args:
        old: OLD's side.
        new: NEW's side.
        targets: Lint targets (already resolved).
        renamed: OLD name -> NEW name of renamed tools.

    Returns:
        One change per finding of NEW that OLD does not have, with ``detail`` holding the target, rule, effect and
        source.
    """
    if not targets:
        return []
    before = {_key(finding, renamed) for finding in _findings(old, targets)}
    changes = []
    for finding in _findings(new, targets):
        kind = _KINDS.get(finding.effect or "")
        if kind is None or _key(finding, {}) in before:
            continue
        tool = finding.tool or REQUEST
        changes.append(
            Change(
                tool,
                finding.pointer,
                kind,
                ABSENT,
                finding.rule,
                f"[{finding.target}] {finding.message}",
                {"target": finding.target, "rule": finding.rule, "effect": finding.effect, "source": finding.source},
                origin=finding.origin,
            )
        )
    return changes
