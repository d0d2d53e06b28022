"""Evidence: recorded calls validated against OLD and NEW, pinned to the changes that make them fail.

Calls are read with ``read_calls`` (call logs, conversation logs, recordings, databases) and validated in two
batches by the core (``toolwire.validate_many``, GIL released), once against OLD and once against NEW. A call
that OLD accepts and NEW refuses is a regression; each of NEW's violations is pinned to the change whose place
covers the violation's argument path most closely (``/properties/a/items/properties/b`` covers ``/a/3/b``; an
unknown tool is the tool's removal or rename), preferring, among equally close changes, the kinds that produce that
violation code. A violation no change covers is pinned to the nearest changes beneath its path: a union or an
unevaluated keyword reports its failure where its subschemas meet, not where they changed. Only changes whose replay
check can fail take calls.

What the calls decide: a change whose replay check is ``unknown`` (a bound newly set, a pattern added or changed,
another constraint added) becomes ``corpus-passes`` (RISKY) when every recorded call of its tool that OLD accepts
still passes, and ``corpus-fails`` (BREAKING, the calls listed) otherwise; a ``caution`` change (an optional key added
to an open object) that calls break becomes BREAKING. A regression no change explains is an error of its own
(``diff/unexplained-failure``): the rubric missed something, and the calls show what.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from toolwire._common._json import pointer_tokens
from toolwire._model import Severity, Violation
from toolwire._pipeline._bound import core
from toolwire.registry import ToolRegistry
from toolwire.schema._findings import Finding
from toolwire.schema.calls import ObservedCall, UnreadableRecord, read_calls
from toolwire.schema.diff._change import Change, instance_path
from toolwire.schema.diff._tools import Side

__all__ = ["DEFAULT_EVIDENCE_LIMIT", "Evidence", "apply_evidence", "read_evidence"]

#: Failing calls shown per change unless told otherwise.
DEFAULT_EVIDENCE_LIMIT: Final = 5

_TOOL_KINDS: Final = frozenset({"tool-removed", "tool-removed-after-sunset", "tool-renamed"})
_CAN_FAIL: Final = frozenset({"fail", "unknown", "caution", "retired"})
_BY_CODE: Final[Mapping[str, frozenset[str]]] = {
    "MISSING_REQUIRED_ARGUMENT": frozenset(
        {
            "param-required-added",
            "param-required-added-with-default",
            "param-optional-added-strict-style",
            "param-became-required",
            "param-renamed",
        }
    ),
    "UNEXPECTED_ARGUMENT": frozenset({"param-removed-closed", "additional-properties-closed", "param-renamed"}),
    "TYPE_MISMATCH": frozenset(
        {
            "type-narrowed",
            "type-changed",
            "became-non-nullable",
            "param-optional-added-open",
            "param-optional-added-partly-open",
            "param-removed-partly-open",
        }
    ),
    "ENUM_OUT_OF_RANGE": frozenset({"enum-value-removed", "enum-added"}),
}
_SHOWN_UNREADABLE: Final = 5


@dataclass(frozen=True)
class Evidence:
    """Recorded calls, as read.

    Attributes:
        calls: The calls.
        unreadable: Records that are not calls (reported, never dropped).
        sources: What was read.
    """

    calls: tuple[ObservedCall, ...]
    unreadable: tuple[UnreadableRecord, ...] = ()
    sources: tuple[str, ...] = ()


def read_evidence(sources: Any, *, query: str | None = None) -> Evidence:
    """Read recorded calls for ``--evidence``.

    Args:
        sources: What ``read_calls`` reads (paths, ``-``, database URLs, or a list of them), an ``Evidence``, or
            ``ObservedCall``/``UnreadableRecord`` objects already read.
        query: The SQL for database sources.

    Returns:
        The calls and the unreadable records.

    Raises:
        ValueError, OSError: As ``read_calls``.
    """
    if isinstance(sources, Evidence):
        return sources
    items: list[Any] = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    read: Iterable[ObservedCall | UnreadableRecord]
    if all(isinstance(item, (ObservedCall, UnreadableRecord)) for item in items):
        read, names = items, ("<calls>",)
    else:
        read, names = read_calls(items, query=query), tuple(os.fspath(item) for item in items)
    calls: list[ObservedCall] = []
    unreadable: list[UnreadableRecord] = []
    for item in read:
        if isinstance(item, ObservedCall):
            calls.append(item)
        else:
            unreadable.append(item)
    return Evidence(tuple(calls), tuple(unreadable), names)


def _errors(violations: Sequence[Violation]) -> list[Violation]:
    return [violation for violation in violations if violation.severity is Severity.ERROR]


def _distance(pattern: Sequence[str], segments: Sequence[str]) -> int | None:
    """How far a change's place is from a violation's argument path, or None when they are apart.

    0 or more when the place covers the path (at it or above it), below 0 when the place lies beneath it.
    """
    if not all(p in ("*", s) for p, s in zip(pattern, segments, strict=False)):
        return None
    return len(segments) - len(pattern)


def _patterns(change: Change) -> list[list[str]]:
    pattern = instance_path(change.path)
    if change.kind == "param-renamed" and pattern and isinstance(change.old, str):
        return [pattern, [*pattern[:-1], change.old]]  # the old key is the unexpected one
    return [pattern]


def _segments(violation: Violation) -> list[str]:
    return pointer_tokens(violation.path or "")


def _pin(violation: Violation, candidates: Sequence[tuple[int, Change]]) -> list[int]:
    """The changes (by index) a violation of NEW is pinned to: the closest places, the kinds of its code first."""
    if violation.code.value == "UNKNOWN_TOOL":
        return [index for index, change in candidates if change.kind in _TOOL_KINDS]
    segments = _segments(violation)
    scored = []
    for index, change in candidates:
        if change.kind in _TOOL_KINDS:
            continue
        distances = [d for p in _patterns(change) if (d := _distance(p, segments)) is not None]
        if distances:
            scored.append((min(distances, key=_closeness), index, change))
    if not scored:
        return []
    closest = min((distance for distance, _, _ in scored), key=_closeness)
    tied = [(index, change) for distance, index, change in scored if distance == closest]
    preferred = [index for index, change in tied if change.kind in _BY_CODE.get(violation.code.value, ())]
    return preferred or [index for index, _ in tied]


def _closeness(distance: int) -> tuple[bool, int]:
    # A change at or above the violation's path comes first, the nearest first. A union or unevaluated keyword
    # reports its failure where its subschemas meet, so a change beneath it explains it when none covers it.
    return (distance < 0, abs(distance))


def _shown(call: ObservedCall, violations: Sequence[Violation]) -> dict[str, Any]:
    return {
        "id": call.id,
        "origin": call.origin,
        "reasons": [f"{v.path or '/'}: {v.message}" if v.path else v.message for v in violations],
    }


class _Judge:
    """The calls of one diff, validated on both sides and pinned to changes."""

    def __init__(self, changes: Sequence[Change], evidence: Evidence, old: Side, new: Side, limit: int) -> None:
        self.changes = list(changes)
        self.limit = limit
        self.old, self.new = old, new
        self.per_tool: dict[str, Counter[str]] = defaultdict(Counter)
        self.unknown_to_old: Counter[str] = Counter()
        self.pinned: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self.unexplained: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.calls = [call for call in evidence.calls if call.name in old.tools]
        for call in evidence.calls:
            if call.name not in old.tools:
                self.unknown_to_old[call.name] += 1

    def candidates(self, name: str) -> list[tuple[int, Change]]:
        found = []
        for index, change in enumerate(self.changes):
            mine = change.tool == name or (change.kind == "tool-renamed" and change.old == name)
            if mine and (change.checks and change.checks.replay in _CAN_FAIL):
                found.append((index, change))
        return found

    def run(self) -> None:
        pairs = [(call.name, call.arguments) for call in self.calls]
        before = core.validate_many(pairs, _registry(self.old)) if pairs else []
        after = core.validate_many(pairs, _registry(self.new)) if pairs else []
        by_tool: dict[str, list[tuple[int, Change]]] = {}
        for call, old_found, new_found in zip(self.calls, before, after, strict=True):
            counts = self.per_tool[call.name]
            counts["calls"] += 1
            if _errors(old_found):
                continue
            counts["valid_under_old"] += 1
            failing = _errors(new_found)
            if not failing:
                continue
            counts["fail_under_new"] += 1
            candidates = by_tool.setdefault(call.name, self.candidates(call.name))
            self.pin(call, failing, candidates)

    def pin(self, call: ObservedCall, failing: Sequence[Violation], candidates: Sequence[tuple[int, Change]]) -> None:
        hit: dict[int, list[Violation]] = defaultdict(list)
        for violation in failing:
            for index in _pin(violation, candidates):
                hit[index].append(violation)
        if not hit:
            self.unexplained[call.name].append(_shown(call, failing))
        for index, violations in hit.items():
            self.pinned[index].append(_shown(call, violations))

    def tool_of(self, change: Change) -> str:
        return str(change.old) if change.kind == "tool-renamed" else change.tool

    def judged(self) -> list[Change]:
        out = []
        for index, change in enumerate(self.changes):
            counts = self.per_tool.get(self.tool_of(change), Counter())
            failing = self.pinned.get(index, [])
            if not (change.checks and change.checks.replay in _CAN_FAIL):
                out.append(change)
                continue
            record = {
                "tool_calls": counts["calls"],
                "valid_under_old": counts["valid_under_old"],
                "failing": len(failing),
                "calls": failing[: self.limit],
            }
            out.append(_decide(replace(change, evidence=record), counts["valid_under_old"], len(failing)))
        return out


def _decide(change: Change, valid: int, failing: int) -> Change:
    replay = change.checks.replay if change.checks else "pass"
    if replay == "unknown":
        if valid == 0:
            reason = "evidence: no recorded call of the tool that OLD accepts, so undecided"
            return replace(change, reasons=(*change.reasons, reason))
        if failing == 0:
            return change.with_checks(f"evidence: all {valid} call(s) OLD accepts pass NEW", replay="corpus-passes")
        return change.with_checks(f"evidence: {failing} of {valid} call(s) fail NEW", replay="corpus-fails")
    if replay == "caution" and failing:
        return change.with_checks(f"evidence: {failing} of {valid} call(s) fail NEW", replay="corpus-fails")
    return change


def _registry(side: Side) -> ToolRegistry:
    return ToolRegistry([source.tool for source in side.tools.values() if source.tool is not None])


def _unreadable_finding(evidence: Evidence) -> Finding:
    shown = "; ".join(f"{r.origin}: {r.reason}" for r in evidence.unreadable[:_SHOWN_UNREADABLE])
    more = len(evidence.unreadable) - _SHOWN_UNREADABLE
    return Finding(
        "diff/evidence-unreadable",
        "warning",
        f"{len(evidence.unreadable)} evidence record(s) are not calls and were not judged: {shown}"
        + (f" (and {more} more)" if more > 0 else ""),
        data={"records": [{"origin": r.origin, "reason": r.reason} for r in evidence.unreadable[:100]]},
    )


def _unexplained_finding(name: str, calls: Sequence[dict[str, Any]], limit: int, side: Side) -> Finding:
    shown = "; ".join(f"{c['id'] or c['origin']}: {', '.join(c['reasons'])}" for c in calls[: max(limit, 1)])
    source = side.tools.get(name)
    return Finding(
        "diff/unexplained-failure",
        "error",
        f"{len(calls)} recorded call(s) of {name!r} that OLD accepts fail NEW, and no change above explains them: "
        f"{shown}",
        tool=name,
        origin=source.origin if source else None,
        data={"calls": list(calls[:limit])},
    )


def apply_evidence(
    changes: Sequence[Change], evidence: Evidence, old: Side, new: Side, *, limit: int = DEFAULT_EVIDENCE_LIMIT
) -> tuple[list[Change], dict[str, Any], list[Finding]]:
    """Validate the recorded calls on both sides and let them decide what they can.

    Args:
        changes: The classified changes.
        evidence: The recorded calls.
        old: OLD's side.
        new: NEW's side.
        limit: Failing calls listed per change.

    Returns:
        The changes (with ``evidence`` and decided checks), a summary (calls per tool: in evidence, valid under OLD,
        failing under NEW; calls of tools OLD lacks; unreadable records), and findings (unreadable records,
        regressions no change explains).
    """
    judge = _Judge(changes, evidence, old, new, limit)
    judge.run()
    findings = [_unexplained_finding(name, calls, limit, old) for name, calls in judge.unexplained.items()]
    if evidence.unreadable:
        findings.append(_unreadable_finding(evidence))
    summary = {
        "sources": list(evidence.sources),
        "calls": len(evidence.calls),
        "unreadable": len(evidence.unreadable),
        "per_tool": {
            name: {key: counts[key] for key in ("calls", "valid_under_old", "fail_under_new")}
            for name, counts in sorted(judge.per_tool.items())
        },
        "unknown_to_old": dict(sorted(judge.unknown_to_old.items())),
    }
    return judge.judged(), summary, findings
