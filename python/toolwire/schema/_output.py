"""One rendering of findings for every schema command: for people (a terminal table, markdown) and machines.

``text`` is a table (drawn with ``rich`` on a terminal when it is installed, plain aligned columns otherwise),
``json`` the whole report, ``markdown`` a pull-request comment, ``github`` workflow annotations (``::error
file=...,title=...::...``, one per finding), ``junit`` one test case per subject with a failure per finding that
reaches ``--fail-on``.
"""

from __future__ import annotations

import importlib.util
import io
import json
from collections.abc import Sequence
from typing import Literal

from toolwire._common._junit import JUnitDocument
from toolwire._common._markdown import table_row
from toolwire.schema._findings import Finding, FindingReport, level_reaches

__all__ = ["OUTPUT_FORMATS", "OutputFormat", "render"]

OutputFormat = Literal["text", "json", "markdown", "github", "junit"]

#: The values of every schema command's ``--output-format``.
OUTPUT_FORMATS: tuple[str, ...] = ("text", "json", "markdown", "github", "junit")

_COLOURS = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
# Messages stay whole; only the table's columns of names and pointers are clipped.
_NAME_WIDTH = 56


def _where(finding: Finding) -> str:
    parts = [part for part in (finding.tool, finding.pointer or None) if part]
    place = " ".join(parts) if parts else "-"
    return f"{place} [{finding.target}]" if finding.target else place


def _summary(report: FindingReport) -> str:
    counts = report.counts()
    found = ", ".join(f"{number} {level}{'s' if number != 1 else ''}" for level, number in reversed(counts.items()))
    what = f"{len(report.subjects)} checked" if report.subjects else "done"
    return f"toolwire {report.command}: {what}; {found}"


def _clip(text: str) -> str:
    return text if len(text) <= _NAME_WIDTH else text[: _NAME_WIDTH - 1] + "…"


def _plain(report: FindingReport) -> str:
    rows = [(f.level, f.rule, _clip(_where(f)), f.message) for f in report.findings]
    header = ("level", "rule", "where", "finding")
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(3)]
    lines = []
    if rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=False)) + "  finding")
        for row in rows:
            lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])
        lines.append("")
    lines.append(_summary(report))
    return "\n".join(lines)


def _rich(report: FindingReport, width: int) -> str:
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=width)
    if report.findings:
        table = Table(show_lines=False, header_style="bold")
        for column in ("level", "rule", "where", "finding"):
            table.add_column(column, overflow="fold")
        for finding in report.findings:
            level = f"[{_COLOURS[finding.level]}]{finding.level}[/]"
            table.add_row(level, finding.rule, _where(finding), finding.message)
        console.print(table)
    console.print(_summary(report), highlight=False)
    return buffer.getvalue().rstrip("\n")


def _markdown(report: FindingReport) -> str:
    lines = [f"### toolwire {report.command}", "", _summary(report)]
    if report.findings:
        lines += ["", "| level | rule | where | finding |", "| --- | --- | --- | --- |"]
        for finding in report.findings:
            cells = (finding.level, f"`{finding.rule}`", f"`{_where(finding)}`", finding.message)
            lines.append(table_row(cells))
    return "\n".join(lines)


def _github_escape(text: str, *, property_value: bool = False) -> str:
    # The workflow-command encoding: %, CR and LF always; ':' and ',' inside a property value.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def _file_and_line(origin: str) -> tuple[str | None, str | None]:
    """The repository file (and line) an origin points at, for an annotation; None for an import path."""
    if origin.startswith("git:"):
        # git:REV:PATH: the annotation belongs on PATH as it is in the checkout.
        origin = origin.split(":", 2)[-1]
    origin = origin.partition("#")[0]
    path, colon, line = origin.rpartition(":")
    if colon and line.isdigit():
        return path, line
    return (None, None) if colon else (origin, None)


def _github(report: FindingReport) -> str:
    lines = []
    for finding in report.findings:
        properties = [f"title={_github_escape(finding.rule, property_value=True)}"]
        path, line = _file_and_line(finding.origin) if finding.origin else (None, None)
        if path:
            properties.insert(0, f"file={_github_escape(path, property_value=True)}")
            if line:
                properties.insert(1, f"line={line}")
        message = f"{_where(finding)}: {finding.message}"
        lines.append(f"::{_GITHUB_LEVEL[finding.level]} {','.join(properties)}::{_github_escape(message)}")
    lines.append(_summary(report))
    return "\n".join(lines)


def _junit(report: FindingReport, fail_on: str) -> str:
    subjects: list[str] = list(report.subjects)
    for finding in report.findings:
        name = finding.tool or "(project)"
        if name not in subjects:
            subjects.append(name)
    document = JUnitDocument("toolwire")
    suite = document.suite(f"toolwire.{report.command}")
    for subject in subjects:
        case = suite.case(f"toolwire.{report.command}", subject)
        mine = [f for f in report.findings if (f.tool or "(project)") == subject]
        failing = [f for f in mine if level_reaches(f.level, fail_on)]
        if failing:
            text = "\n".join(f"{f.level} {f.rule} {_where(f)}: {f.message}" for f in failing)
            suite.fail(case, "failure", f"{len(failing)} finding(s)", failing[0].rule, text)
        below = [f for f in mine if f not in failing]
        if below:
            suite.output(case, "\n".join(f"{f.level} {f.rule}: {f.message}" for f in below))
    return document.render()


def render(
    report: FindingReport,
    fmt: str = "text",
    *,
    fail_on: str = "error",
    color: bool = False,
    width: int = 120,
    extra_sections: Sequence[str] = (),
) -> str:
    """Render a report.

    Args:
        report: The findings.
        fmt: One of ``OUTPUT_FORMATS``.
        fail_on: The level that fails (JUnit failures are the findings that reach it).
        color: ``text`` only: draw with ``rich`` (when installed), as on a terminal.
        width: ``text`` with ``color``: the terminal width.
        extra_sections: ``text`` and ``markdown``: blocks printed before the findings (e.g. a lint matrix).

    Returns:
        The rendered report.

    Raises:
        ValueError: An unknown format.
    """
    if fmt == "json":
        document = {
            "command": report.command,
            "subjects": list(report.subjects),
            "counts": report.counts(),
            "ok": not report.failed(fail_on),
            "findings": [finding.as_dict() for finding in report.findings],
            **dict(report.extra),
        }
        return json.dumps(document, indent=2, ensure_ascii=False)
    if fmt == "github":
        return _github(report)
    if fmt == "junit":
        return _junit(report, fail_on)
    if fmt == "markdown":
        return "\n\n".join([*extra_sections, _markdown(report)])
    if fmt == "text":
        body = _rich(report, width) if color and importlib.util.find_spec("rich") else _plain(report)
        return "\n\n".join([*extra_sections, body])
    raise ValueError(f"output format must be one of {', '.join(OUTPUT_FORMATS)}; got {fmt!r}")
