"""A ``ReplayReport`` for people and machines: a text table, JSON, markdown.

``text`` is drawn with ``rich`` on a terminal (plain aligned columns otherwise), ``markdown`` suits a pull-request
comment, ``json`` is ``ReplayReport.as_dict``.

Every format gives the totals, the calls and failures per tool, the failing calls per violation code, the first
failures with their ids, origins and violations, the first unreadable records, and the calls made under another
version of their tool's schema.
"""

from __future__ import annotations

import importlib.util
import io
import json
from collections.abc import Sequence
from typing import Final

from toolwire._common._markdown import table_row
from toolwire._model import Violation
from toolwire.schema.replay._replay import ReplayReport

__all__ = ["REPLAY_FORMATS", "render_replay"]

#: The values of ``toolwire replay --output-format``.
REPLAY_FORMATS: Final = ("text", "json", "markdown")

#: Rows of the per-tool table (worst first); the JSON output lists every tool.
TOOL_ROWS: Final = 20
_CLIP: Final = 80
_NUMERIC: Final = frozenset({"calls", "failed", "other schema version"})


def _clip(text: str, width: int = _CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _violation(violation: Violation) -> str:
    where = f" {violation.path}" if violation.path else ""
    return f"{violation.code.value}{where}: {violation.message}"


def summary(report: ReplayReport) -> str:
    """The one-line verdict: counts, time and speed."""
    sources = f" from {_plural(len(report.sources), 'source')}" if report.sources else ""
    return (
        f"toolwire replay: {_plural(report.calls, 'call')}{sources} against {_plural(len(report.tools), 'tool')}: "
        f"{report.valid:,} valid, {report.invalid:,} invalid, {_plural(report.unreadable, 'unreadable record')} "
        f"({report.seconds:.2f} s, {report.calls_per_second:,.0f} calls/s)"
    )


def _tool_rows(report: ReplayReport) -> tuple[list[tuple[str, str, str, str]], int]:
    """The busiest-failing tools first: (tool, calls, failed, other schema version), and how many were left out."""
    ranked = sorted(report.by_tool.items(), key=lambda item: (-item[1].failed, -item[1].calls, item[0]))
    rows = [
        (name, f"{c.calls:,}", f"{c.failed:,}", f"{c.fingerprint_mismatch:,}" if c.fingerprint_mismatch else "")
        for name, c in ranked[:TOOL_ROWS]
    ]
    return rows, max(0, len(ranked) - TOOL_ROWS)


def _failure_rows(report: ReplayReport) -> list[tuple[str, str, str, str]]:
    return [(f.origin, f.id or "-", f.name, "; ".join(_violation(v) for v in f.errors) or "-") for f in report.failures]


def _mismatch_line(report: ReplayReport) -> str | None:
    if not report.fingerprint_mismatches:
        return None
    tools = [(name, c.fingerprint_mismatch) for name, c in report.by_tool.items() if c.fingerprint_mismatch]
    listed = ", ".join(f"{name} ({count:,})" for name, count in tools[:10])
    more = f" and {len(tools) - 10} more tools" if len(tools) > 10 else ""
    return (
        f"{_calls(report.fingerprint_mismatches)} made under another version of their tool's schema "
        f"(schema_fingerprint differs from the current one): {listed}{more}; replay with --history to check each "
        "against the version it was made under"
    )


def _plural(count: int, what: str) -> str:
    return f"{count:,} {what}" if count == 1 else f"{count:,} {what}s"


def _calls(count: int) -> str:
    return f"{count:,} call was" if count == 1 else f"{count:,} calls were"


def _more(shown: int, total: int, what: str) -> str | None:
    return f"first {shown} of {total:,} {what} shown (--limit N to see more)" if total > shown else None


def _plain_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Aligned columns; the last column is left whole."""
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header) - 1)]
    right = [name in _NUMERIC for name in header]
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.rjust(width) if numeric else cell.ljust(width)
            for cell, width, numeric in zip(row, widths, right, strict=False)
        ]
        last = row[-1].rjust(len(header[-1])) if header[-1] in _NUMERIC else row[-1]
        lines.append("  ".join([*cells, last]).rstrip())
    return lines


def _sections(report: ReplayReport) -> list[tuple[str, Sequence[str], list[Sequence[str]], str | None]]:
    """(title, header, rows, note below) of each table that has rows."""
    tools, left = _tool_rows(report)
    found: list[tuple[str, Sequence[str], list[Sequence[str]], str | None]] = []
    if tools:
        note = f"and {left:,} more tools (--output-format json lists every tool)" if left else None
        found.append(("calls by tool", ("tool", "calls", "failed", "other schema version"), list(tools), note))
    if report.by_code:
        rows: list[Sequence[str]] = [(code, f"{count:,}") for code, count in report.by_code.items()]
        found.append(("failing calls by violation code", ("code", "calls"), rows, None))
    if report.notes_by_code:
        rows = [(code, f"{count:,}") for code, count in report.notes_by_code.items()]
        found.append(("warnings and infos (do not fail a call)", ("code", "calls"), rows, None))
    if report.failures:
        note = _more(len(report.failures), report.invalid, "failing calls")
        found.append(("failures", ("origin", "id", "tool", "violations"), list(_failure_rows(report)), note))
    if report.unreadable_records:
        rows = [(u.origin, u.reason) for u in report.unreadable_records]
        note = _more(len(report.unreadable_records), report.unreadable, "unreadable records")
        found.append(("unreadable records (not calls)", ("origin", "reason"), rows, note))
    return found


def _text(report: ReplayReport) -> str:
    lines = [summary(report)]
    for title, header, rows, note in _sections(report):
        lines += ["", f"{title}:"]
        lines += ["  " + line for line in _plain_table(header, rows)]
        if note:
            lines.append(f"  {note}")
    mismatch = _mismatch_line(report)
    if mismatch:
        lines += ["", mismatch]
    lines += ["", "ok" if report.ok else "FAILED: calls already made do not validate against the current tools"]
    return "\n".join(lines)


def _rich(report: ReplayReport, width: int) -> str:
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=width)
    console.print(summary(report), highlight=False)
    for title, header, rows, note in _sections(report):
        table = Table(title=title, title_justify="left", header_style="bold")
        for column in header:
            table.add_column(column, overflow="fold", justify="right" if column in _NUMERIC else "left")
        for row in rows:
            table.add_row(*row)
        console.print(table)
        if note:
            console.print(note, highlight=False)
    mismatch = _mismatch_line(report)
    if mismatch:
        console.print(f"[yellow]{mismatch}[/]", highlight=False)
    console.print("[bold green]ok[/]" if report.ok else "[bold red]FAILED[/]: calls already made do not validate")
    return buffer.getvalue().rstrip("\n")


def _markdown(report: ReplayReport) -> str:
    lines = ["### toolwire replay", "", summary(report).removeprefix("toolwire replay: ")]
    for title, header, rows, note in _sections(report):
        lines += ["", f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        lines += [table_row(_clip(cell, 200) for cell in row) for row in rows]
        if note:
            lines += ["", f"_{note}_"]
    mismatch = _mismatch_line(report)
    if mismatch:
        lines += ["", f"> {mismatch}"]
    lines += ["", "✅ ok" if report.ok else "❌ calls already made do not validate against the current tools"]
    return "\n".join(lines)


def render_replay(report: ReplayReport, fmt: str = "text", *, color: bool = False, width: int = 120) -> str:
    """A replay report in one of ``REPLAY_FORMATS``.

    Args:
        report: The report.
        fmt: ``text``, ``json`` or ``markdown``.
        color: ``text`` only: draw the tables with ``rich`` (when installed), as on a terminal.
        width: ``text`` with colour only: the terminal's width.

    Raises:
        ValueError: An unknown format.
    """
    if fmt == "json":
        return json.dumps(report.as_dict(), indent=2, ensure_ascii=False)
    if fmt == "markdown":
        return _markdown(report)
    if fmt == "text":
        return _rich(report, width) if color and importlib.util.find_spec("rich") else _text(report)
    raise ValueError(f"unknown replay format {fmt!r}; use one of {', '.join(REPLAY_FORMATS)}")
