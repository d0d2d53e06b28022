"""``DiffReport``: the changes of a diff, their verdicts, and the findings the schema toolkit renders.

Each change is one finding with the rule ``diff/<kind>`` at the level of its verdict (BREAKING: ``error``, RISKY:
``warning``, COMPATIBLE: ``info``; a waived change: ``info``, marked waived); its ``data`` holds the change (old,
new, the checks, the waiver, the evidence). Problems that are not changes (definitions that do not load, expired
waivers, regressions no change explains, unreadable evidence) are findings of their own. Text and markdown open with
the verdict summary: the overall verdict, counts per verdict, the calls in evidence per tool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire._common._json_data import json_fields
from toolwire.schema._findings import Finding, FindingReport, Level
from toolwire.schema._output import render
from toolwire.schema.diff._change import Change, jsonable
from toolwire.schema.diff._policy import FAIL_ON
from toolwire.schema.diff._rubric import CHANGE_KINDS, VERDICT_LEVELS, VERDICTS, Verdict, worst

__all__ = ["DiffReport"]

_SHOWN_CALLS = 3


def _evidence_text(change: Change) -> str:
    evidence = change.evidence
    if not evidence:
        return ""
    valid, failing = evidence["valid_under_old"], evidence["failing"]
    if not evidence["tool_calls"]:
        return " Evidence: no recorded call of this tool."
    if not failing:
        return f" Evidence: all {valid} recorded call(s) OLD accepts pass NEW."
    shown = "; ".join(
        f"{call['id'] or '(no id)'} ({call['origin']}): {', '.join(call['reasons'])}"
        for call in evidence["calls"][:_SHOWN_CALLS]
    )
    more = f" (+{failing - _SHOWN_CALLS} more)" if failing > _SHOWN_CALLS else ""
    return f" Evidence: {failing} of {valid} recorded call(s) OLD accepts fail NEW: {shown}{more}."


def _level(change: Change) -> Level:
    if change.waived:
        return "info"
    level = VERDICT_LEVELS[change.verdict or "COMPATIBLE"]
    return "error" if level == "error" else "warning" if level == "warning" else "info"


def _finding(change: Change) -> Finding:
    spec = CHANGE_KINDS[change.kind]
    waived = f" Waived until {change.waiver['expires']}: {change.waiver['reason']}." if change.waiver else ""
    # The evidence is told in full after the summary; the other reasons (handler, policy) go with the change.
    told = [reason for reason in change.reasons if not reason.startswith("evidence: ") or not change.evidence]
    reasons = f" ({'; '.join(told)})" if told else ""
    message = f"{change.verdict}{' (waived)' if change.waived else ''}: {change.message}{reasons}. {spec.summary}"
    data = change.as_dict()
    for key in ("tool", "path", "message", "origin"):
        data.pop(key, None)
    return Finding(
        f"diff/{change.kind}",
        _level(change),
        message + _evidence_text(change) + waived,
        tool=change.tool,
        pointer=change.path,
        origin=change.origin,
        target=change.detail.get("target") if change.kind.startswith("provider-") else None,
        effect=change.detail.get("effect") if change.kind.startswith("provider-") else None,
        source=change.detail.get("source") if change.kind.startswith("provider-") else None,
        data=data,
    )


def _order(change: Change) -> tuple[int, str, str, str]:
    return (-VERDICTS.index(change.verdict or "COMPATIBLE"), change.tool, change.path, change.kind)


@dataclass(frozen=True)
class DiffReport:
    """What changed between two versions of a registry, and what it does.

    Attributes:
        old: What OLD was read from.
        new: What NEW was read from.
        changes: Every change, the most serious first (then by tool and path).
        problems: Findings that are not changes: definitions that do not load, names declared twice, expired or
            unused waivers, regressions no change explains, unreadable evidence.
        evidence: With ``--evidence``: calls per tool (in evidence, valid under OLD, failing under NEW), calls of
            tools OLD lacks, unreadable records; else None.
        targets: The lint targets provider regressions were checked for.
        notes: What normalisation assumed, by kind (``implicit-open``...): tool -> count, per side.
        tools: Every tool name compared (OLD's, then those only NEW has): the summary's count and JUnit's cases.
    """

    old: str
    new: str
    changes: tuple[Change, ...]
    problems: tuple[Finding, ...] = ()
    evidence: Mapping[str, Any] | None = None
    targets: tuple[str, ...] = ()
    notes: Mapping[str, Any] = field(default_factory=dict)
    tools: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Order the changes: BREAKING first, then by tool and path."""
        object.__setattr__(self, "changes", tuple(sorted(self.changes, key=_order)))

    @property
    def verdict(self) -> Verdict:
        """The overall verdict: the most serious of the changes no live waiver covers."""
        return worst([change.verdict or "COMPATIBLE" for change in self.changes if not change.waived])

    def counts(self) -> dict[str, int]:
        """Changes per verdict (waived ones counted apart, under ``waived``)."""
        counted = Counter(change.verdict for change in self.changes if not change.waived)
        return {
            **{verdict: counted[verdict] for verdict in reversed(VERDICTS)},
            "waived": sum(c.waived for c in self.changes),
        }

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every finding: the problems, then one per change."""
        return (*self.problems, *(_finding(change) for change in self.changes))

    def finding_report(self) -> FindingReport:
        """The findings as the schema toolkit's ``FindingReport`` (command ``diff``), for ``render``."""
        subjects = tuple(dict.fromkeys((*self.tools, *(change.tool for change in self.changes))))
        extra = {
            "old": self.old,
            "new": self.new,
            "verdict": self.verdict,
            "verdict_counts": self.counts(),
            "targets": list(self.targets),
            "evidence": dict(self.evidence) if self.evidence is not None else None,
            "notes": jsonable(self.notes),
        }
        return FindingReport("diff", self.findings, subjects, extra)

    def failed(self, fail_on: str = "breaking") -> bool:
        """Whether a finding reaches ``fail_on`` (``breaking``, ``risky`` or ``never``).

        Raises:
            ValueError: Another ``fail_on``.
        """
        return self.finding_report().failed(_threshold(fail_on))

    def exit_code(self, fail_on: str = "breaking") -> int:
        """``1`` when the report fails at ``fail_on``, else ``0``."""
        return int(self.failed(fail_on))

    def as_dict(self) -> dict[str, Any]:
        """The whole report as JSON-ready data."""
        keys = "old new verdict counts targets changes problems evidence notes"
        evidence = jsonable(self.evidence) if self.evidence is not None else None
        return json_fields(self, keys, counts=self.counts(), evidence=evidence, notes=jsonable(self.notes))

    def summary(self) -> str:
        """The verdict summary: overall verdict, counts, targets, evidence, notes (text and markdown open with it)."""
        counts = self.counts()
        counted = ", ".join(f"{counts[v]} {v.lower()}" for v in reversed(VERDICTS))
        waived = f" ({counts['waived']} waived)" if counts["waived"] else ""
        lines = [f"{self.old} -> {self.new}: {self.verdict} ({counted}){waived}"]
        if self.targets:
            lines.append(f"provider regressions checked for: {', '.join(self.targets)}")
        if self.evidence is not None:
            lines.append(_evidence_summary(self.evidence))
        implicit = self.notes.get("new", {}).get("implicit-open", {})
        if implicit:
            lines.append(
                f"note: {sum(implicit.values())} object(s) in {len(implicit)} tool(s) of NEW leave additionalProperties"
                " unset: read as open (xgrammar and llama.cpp read them as closed)"
            )
        return "\n".join(lines)

    def render(self, fmt: str = "text", *, fail_on: str = "breaking", color: bool = False, width: int = 120) -> str:
        """The report in one of the toolkit's formats (text, json, markdown, github, junit).

        Raises:
            ValueError: An unknown format or ``fail_on``.
        """
        report = self.finding_report()
        threshold = _threshold(fail_on)
        if fmt == "markdown":  # the verdict right under the heading, as a pull-request comment reads
            heading, _, body = render(report, fmt, fail_on=threshold).partition("\n\n")
            first, *rest = self.summary().splitlines()
            verdict = "\n".join([f"**{first}**", *(f"- {line}" for line in rest)])
            return f"{heading}\n\n{verdict}\n\n{body}"
        sections = [self.summary()] if fmt == "text" else []
        return render(report, fmt, fail_on=threshold, color=color, width=width, extra_sections=sections)


def _threshold(fail_on: str) -> str:
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on: one of {', '.join(FAIL_ON)}; got {fail_on!r}")
    return FAIL_ON[fail_on]


def _evidence_summary(evidence: Mapping[str, Any]) -> str:
    per_tool = evidence.get("per_tool", {})
    tools = ", ".join(
        f"{name} {counts['calls']} ({counts['valid_under_old']} valid under OLD, {counts['fail_under_new']} fail NEW)"
        for name, counts in per_tool.items()
    )
    parts = [f"evidence: {evidence.get('calls', 0)} call(s) from {', '.join(evidence.get('sources', []))}"]
    parts.append(f"by tool: {tools}" if tools else "no call of a tool OLD declares")
    unknown = evidence.get("unknown_to_old") or {}
    if unknown:
        parts.append(f"{sum(unknown.values())} call(s) of tools OLD does not declare ({', '.join(unknown)})")
    if evidence.get("unreadable"):
        parts.append(f"{evidence['unreadable']} unreadable record(s)")
    return "; ".join(parts)
