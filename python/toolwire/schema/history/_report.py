"""The history replay's report: its counts and the calls it lists, for people (text, markdown) and machines (JSON)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from toolwire._common._json_data import json_fields
from toolwire._common._markdown import table_cell, table_row

__all__ = [
    "CANNOT_MIGRATE",
    "PROBLEM_KINDS",
    "REPORT_FORMATS",
    "CallProblem",
    "HistoryReport",
    "LinkCount",
    "ProblemKind",
    "ToolVersionCount",
    "markdown",
    "text",
]


#: The kinds that mean a call cannot be carried to the current version.
CANNOT_MIGRATE: Final = ("no_migration_path", "migration_failed", "invalid_after_migration")


#: The values of ``HistoryReport.render``'s ``format``.
REPORT_FORMATS: Final = ("text", "json", "markdown")

#: What can be wrong with a call (``PROBLEM_KINDS`` lists them in the order reports do).
ProblemKind = Literal[
    "invalid_when_produced",
    "no_migration_path",
    "migration_failed",
    "invalid_after_migration",
    "unknown_version",
    "unreadable",
]
#: What can be wrong with a call, in the order reports list them.
PROBLEM_KINDS: Final[tuple[ProblemKind, ...]] = get_args(ProblemKind)


@dataclass(frozen=True)
class CallProblem:
    """One call the report names.

    Attributes:
        kind: One of ``PROBLEM_KINDS``.
        id: The call id, when it has one.
        origin: Where the call was read (``calls.jsonl:12``).
        tool: The tool name (None for an unreadable record).
        version: The label of the version the call was produced under, when known.
        rule: How the version was decided: ``fingerprint``, ``time`` or ``unknown`` (``""`` for unreadable).
        reason: What is wrong: the violations, the migration and its error, or the missing link.
        codes: The violation codes behind it (error severity), when a validation decided.
    """

    kind: str
    id: str | None
    origin: str
    tool: str | None
    version: str | None
    rule: str
    reason: str
    codes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The problem as JSON-ready data."""
        return json_fields(self, "kind id origin tool version rule reason codes")


@dataclass
class ToolVersionCount:
    """The calls of one tool produced under one version (``version`` None: unknown).

    Attributes:
        calls: How many.
        invalid_when_produced: Refused by their own version.
        carried: Valid under the current version (unchanged or migrated).
        migrated: Of ``carried``, those that went through at least one migration.
        cannot_migrate: No migration path, a failed migration, or invalid after migration.
        unknown_invalid_now: For unknown versions: refused by the current version.
    """

    calls: int = 0
    invalid_when_produced: int = 0
    carried: int = 0
    migrated: int = 0
    cannot_migrate: int = 0
    unknown_invalid_now: int = 0


@dataclass
class LinkCount:
    """A step between two versions that calls of one tool crossed.

    Attributes:
        migration: The migration's ``module.qualname``; None when the schema changed and none is registered (the
            arguments were carried unchanged).
        calls: How many calls crossed it.
        failed: For a migration: calls it failed on; without one: calls that then failed against the current
            version.
    """

    migration: str | None
    calls: int = 0
    failed: int = 0


@dataclass
class HistoryReport:
    """What a replay through a registry history found.

    Attributes:
        versions: Each version's ``label``, ``started``, ``origin``, ``tools`` (count) and ``fingerprint``.
        skipped: ``(label, reason)`` of versions of the source that could not be read.
        current: The current version's label.
        calls: Calls read (unreadable records not included).
        carried: Calls valid under the current version after carrying (their own version resolved and valid).
        by_rule: Calls per resolution rule (``fingerprint``, ``time``, ``unknown``).
        counts: Calls per problem kind (every kind present, 0 when none).
        rows: Per ``(tool, version label or None)``: the counts.
        links: Per ``(tool, from label, to label)``: the migration or missing link, and its counts.
        problems: Per kind, the first ``limit_failures`` calls.
        notes: Migrations that cannot be used with this history (a label it lacks, a step backwards).
        limit_failures: How many calls of each kind ``problems`` keeps.
    """

    versions: list[dict[str, Any]]
    skipped: list[tuple[str, str]]
    current: str
    calls: int = 0
    carried: int = 0
    by_rule: Counter[str] = field(default_factory=Counter)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBLEM_KINDS, 0))
    rows: dict[tuple[str, str | None], ToolVersionCount] = field(default_factory=dict)
    links: dict[tuple[str, str, str], LinkCount] = field(default_factory=dict)
    problems: dict[str, list[CallProblem]] = field(default_factory=lambda: {kind: [] for kind in PROBLEM_KINDS})
    notes: list[str] = field(default_factory=list)
    limit_failures: int = 20

    @property
    def cannot_migrate(self) -> int:
        """Calls valid when produced that cannot be carried to the current version."""
        return sum(self.counts[kind] for kind in CANNOT_MIGRATE)

    @property
    def unknown_invalid_now(self) -> int:
        """Calls of unknown version that the current version refuses."""
        return sum(row.unknown_invalid_now for row in self.rows.values())

    @property
    def migrated(self) -> int:
        """Carried calls that went through at least one migration."""
        return sum(row.migrated for row in self.rows.values())

    @property
    def ok(self) -> bool:
        """True when every call was valid when produced and is carried (or, of unknown version, valid now)."""
        return (
            self.cannot_migrate == 0
            and self.counts["invalid_when_produced"] == 0
            and self.counts["unreadable"] == 0
            and self.unknown_invalid_now == 0
        )

    def exit_code(self) -> int:
        """0 when ``ok``, else 1."""
        return 0 if self.ok else 1

    def _add(self, problem: CallProblem) -> None:
        self.counts[problem.kind] += 1
        kept = self.problems[problem.kind]
        if len(kept) < self.limit_failures:
            kept.append(problem)

    def to_dict(self) -> dict[str, Any]:
        """The whole report as JSON-ready data."""
        return {
            "current": self.current,
            "versions": self.versions,
            "skipped_versions": [{"label": label, "reason": reason} for label, reason in self.skipped],
            "calls": self.calls,
            "carried": self.carried,
            "migrated": self.migrated,
            "cannot_migrate": self.cannot_migrate,
            "unknown_invalid_now": self.unknown_invalid_now,
            "ok": self.ok,
            "by_rule": {rule: self.by_rule.get(rule, 0) for rule in ("fingerprint", "time", "unknown")},
            "counts": dict(self.counts),
            "rows": [{"tool": tool, "version": version, **vars(count)} for (tool, version), count in self.rows.items()],
            "links": [
                {"tool": tool, "from": start, "to": end, **vars(link)}
                for (tool, start, end), link in self.links.items()
            ],
            "problems": {kind: [p.to_dict() for p in found] for kind, found in self.problems.items() if found},
            "notes": self.notes,
        }

    def render(self, format: str = "text") -> str:
        """The report as ``text``, ``json`` or ``markdown``.

        Raises:
            ValueError: Another format.
        """
        if format == "json":
            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        if format == "text":
            return text(self)
        if format == "markdown":
            return markdown(self)
        raise ValueError(f"a history report renders as {', '.join(REPORT_FORMATS)}; got {format!r}")


# -- for people -------------------------------------------------------------------------------------------------------

_TITLES: Final = {
    "invalid_when_produced": "invalid when produced",
    "no_migration_path": "no migration path",
    "migration_failed": "migration failed",
    "invalid_after_migration": "invalid after migration",
    "unknown_version": "version unknown",
    "unreadable": "unreadable records",
}

_ROW_HEADER: Final = ("tool", "version", "calls", "invalid then", "carried", "migrated", "cannot migrate")


def _row_cells(report: HistoryReport) -> list[tuple[str, ...]]:
    cells: list[tuple[str, ...]] = []
    for (tool, version), count in sorted(
        report.rows.items(), key=lambda item: (item[0][0], _order(report, item[0][1]))
    ):
        cannot = str(count.cannot_migrate) if version is not None else f"{count.unknown_invalid_now} invalid now"
        cells.append(
            (
                tool,
                version or "(unknown)",
                str(count.calls),
                str(count.invalid_when_produced),
                str(count.carried),
                str(count.migrated),
                cannot,
            )
        )
    return cells


def _order(report: HistoryReport, label: str | None) -> int:
    labels = [version["label"] for version in report.versions]
    return labels.index(label) if label in labels else len(labels)


def _link_lines(report: HistoryReport) -> list[str]:
    lines = []
    for (tool, start, end), link in report.links.items():
        if link.migration is None:
            lines.append(
                f"{tool} {start}->{end}: no migration (the schema changed), {link.calls} carried unchanged, "
                f"{link.failed} then refused by {report.current}"
            )
        else:
            lines.append(f"{tool} {start}->{end}: {link.migration}, {link.calls} calls, {link.failed} failed")
    return lines


def _summary(report: HistoryReport) -> str:
    parts = [
        f"{report.calls} calls",
        f"{report.carried} carried to {report.current} ({report.migrated} through migrations)",
        f"{report.cannot_migrate} cannot be migrated",
        f"{report.counts['invalid_when_produced']} invalid when produced",
        f"{report.counts['unknown_version']} of unknown version ({report.unknown_invalid_now} refused by "
        f"{report.current})",
        f"{report.counts['unreadable']} unreadable",
    ]
    return "; ".join(parts)


def _problem_line(problem: CallProblem) -> str:
    who = f"{problem.id} " if problem.id else ""
    where = f"{problem.tool}@{problem.version or '?'} ({problem.rule})" if problem.tool is not None else ""
    return f"{who}{problem.origin} {where}: {problem.reason}".replace("  ", " ")


def _header(report: HistoryReport) -> str:
    labels = ", ".join(version["label"] for version in report.versions)
    rules = ", ".join(f"{rule} {report.by_rule.get(rule, 0)}" for rule in ("fingerprint", "time", "unknown"))
    return f"toolwire replay --history: versions {labels} (current {report.current}); versions found by {rules}"


def text(report: HistoryReport) -> str:
    """The report for a terminal: the header, the table of tools and versions, the links, the calls named."""
    lines = [_header(report)]
    lines += [f"skipped version {label}: {reason}" for label, reason in report.skipped]
    lines += [f"note: {note}" for note in report.notes]
    cells = _row_cells(report)
    if cells:
        widths = [max(len(row[column]) for row in [_ROW_HEADER, *cells]) for column in range(len(_ROW_HEADER))]
        lines.append("")
        for row in [_ROW_HEADER, *cells]:
            lines.append(
                "  ".join(
                    cell.ljust(width) if column < 2 else cell.rjust(width)
                    for column, (cell, width) in enumerate(zip(row, widths, strict=True))
                ).rstrip()
            )
    links = _link_lines(report)
    if links:
        lines += ["", "links crossed:"] + [f"  {line}" for line in links]
    for kind in PROBLEM_KINDS:
        found = report.problems[kind]
        if found:
            shown = f", first {len(found)}" if len(found) < report.counts[kind] else ""
            lines += ["", f"{_TITLES[kind]} ({report.counts[kind]}{shown}):"]
            lines += [f"  {_problem_line(problem)}" for problem in found]
    lines += ["", _summary(report)]
    return "\n".join(lines)


def markdown(report: HistoryReport) -> str:
    """The report as a pull-request comment."""
    verdict = "passes" if report.ok else "fails"
    sections = [[f"### toolwire replay --history {verdict}", "", _header(report).split(": ", 1)[1]]]
    notes = [f"- skipped version `{label}`: {table_cell(reason)}" for label, reason in report.skipped]
    notes += [f"- note: {table_cell(note)}" for note in report.notes]
    if notes:
        sections.append(notes)
    cells = _row_cells(report)
    if cells:
        table = ["| " + " | ".join(_ROW_HEADER) + " |", "|" + "---|" * len(_ROW_HEADER)]
        sections.append(table + [table_row(row) for row in cells])
    links = _link_lines(report)
    if links:
        sections.append(["**Links crossed**", "", *(f"- {table_cell(line)}" for line in links)])
    for kind in PROBLEM_KINDS:
        found = report.problems[kind]
        if not found:
            continue
        title = f"**{_TITLES[kind].capitalize()}** ({report.counts[kind]})"
        if kind == "unreadable":
            sections.append([title, "", *(f"- {table_cell(p.origin)}: {table_cell(p.reason)}" for p in found)])
            continue
        rows = [
            f"| {table_cell(p.id or '')} | {table_cell(p.origin)} | {table_cell(p.tool or '')} | {table_cell(p.version or '?')} "
            f"({p.rule}) | {table_cell(p.reason)} |"
            for p in found
        ]
        sections.append([title, "", "| id | origin | tool | version | reason |", "|---|---|---|---|---|", *rows])
    sections.append([_summary(report)])
    return "\n\n".join("\n".join(section) for section in sections)
