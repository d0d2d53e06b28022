"""The history replay's report for people: a terminal text and a markdown comment (JSON is ``to_dict``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from toolwire.schema.history._replay import PROBLEM_KINDS

if TYPE_CHECKING:
    from toolwire.schema.history._replay import CallProblem, HistoryReport

__all__ = ["markdown", "text"]

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


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: HistoryReport) -> str:
    """The report as a pull-request comment."""
    verdict = "passes" if report.ok else "fails"
    sections = [[f"### toolwire replay --history {verdict}", "", _header(report).split(": ", 1)[1]]]
    notes = [f"- skipped version `{label}`: {_cell(reason)}" for label, reason in report.skipped]
    notes += [f"- note: {_cell(note)}" for note in report.notes]
    if notes:
        sections.append(notes)
    cells = _row_cells(report)
    if cells:
        table = ["| " + " | ".join(_ROW_HEADER) + " |", "|" + "---|" * len(_ROW_HEADER)]
        sections.append(table + ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in cells])
    links = _link_lines(report)
    if links:
        sections.append(["**Links crossed**", "", *(f"- {_cell(line)}" for line in links)])
    for kind in PROBLEM_KINDS:
        found = report.problems[kind]
        if not found:
            continue
        title = f"**{_TITLES[kind].capitalize()}** ({report.counts[kind]})"
        if kind == "unreadable":
            sections.append([title, "", *(f"- {_cell(p.origin)}: {_cell(p.reason)}" for p in found)])
            continue
        rows = [
            f"| {_cell(p.id or '')} | {_cell(p.origin)} | {_cell(p.tool or '')} | {_cell(p.version or '?')} "
            f"({p.rule}) | {_cell(p.reason)} |"
            for p in found
        ]
        sections.append([title, "", "| id | origin | tool | version | reason |", "|---|---|---|---|---|", *rows])
    sections.append([_summary(report)])
    return "\n\n".join("\n".join(section) for section in sections)
