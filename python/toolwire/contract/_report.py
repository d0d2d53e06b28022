"""Contract check results and their renderings: text, Markdown, JSON and JUnit XML."""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolwire._common._json_data import json_fields
from toolwire._common._junit import JUnitDocument
from toolwire._common._markdown import table_cell

__all__ = ["Check", "CheckStatus", "ContractReport", "ReportFormat", "Severity", "render_reports"]

ReportFormat = Literal["text", "markdown", "json", "junit"]
Severity = Literal["error", "warning"]

_REPORT_FORMATS: tuple[str, ...] = ("text", "markdown", "json", "junit")


class CheckStatus(str, enum.Enum):
    """The outcome of one check."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_APPLICABLE = "not_applicable"


STATUS_MARKS = {
    CheckStatus.PASSED: "✓",
    CheckStatus.FAILED: "✗",
    CheckStatus.NOT_APPLICABLE: "\u2013",
}  # check, cross, en dash


@dataclass(frozen=True)
class Check:
    """One contract check and what it found.

    Attributes:
        id: A stable id (``finish_reason``, ``arguments_json``...), the same across formats where the concept is.
        title: One line: what the check asserts.
        status: Passed, failed or not applicable.
        evidence: Failed: what was seen and where (choice, index, call id, chunk or event number) and the fix, one
            finding per line. Passed: a short summary. Not applicable: why.
        severity: ``"error"``, or ``"warning"`` for a check whose failure does not make the report fail.
        note: Extra information on a pass, such as a documented provider deviation.
    """

    id: str
    title: str
    status: CheckStatus
    evidence: str
    severity: Severity = "error"
    note: str | None = None

    @property
    def blocking(self) -> bool:
        """Whether this check makes its report fail: failed with severity ``"error"``."""
        return self.status is CheckStatus.FAILED and self.severity == "error"

    def as_dict(self) -> dict[str, Any]:
        """The check as plain JSON data."""
        return json_fields(self, "id title status severity evidence note")


@dataclass(frozen=True)
class ContractReport:
    """Every check run on one response or stream, in a stable order.

    Attributes:
        subject: What was checked: ``"openai-chat streamed"``, a recording's name or a probe's name.
        format: The wire format it was read as.
        mode: ``"buffered"`` (a complete response) or ``"streamed"``.
        checks: The checks, in the order of the format's check table.
    """

    subject: str
    format: str
    mode: Literal["buffered", "streamed"]
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """True when no check with severity ``"error"`` failed (failed warnings do not count)."""
        return not any(check.blocking for check in self.checks)

    @property
    def failed(self) -> tuple[Check, ...]:
        """Every failed check, errors and warnings alike."""
        return tuple(check for check in self.checks if check.status is CheckStatus.FAILED)

    def __getitem__(self, check_id: str) -> Check:
        """The check with this id.

        Raises:
            KeyError: No check has that id (the message lists the ids this report has).
        """
        for check in self.checks:
            if check.id == check_id:
                return check
        known = ", ".join(check.id for check in self.checks)
        raise KeyError(f"no check {check_id!r} in this report; its checks are: {known}")

    def summary(self) -> str:
        """One line: the verdict and the counts."""
        counts = {status: 0 for status in CheckStatus}
        for check in self.checks:
            counts[check.status] += 1
        warnings = sum(1 for check in self.failed if check.severity == "warning")
        verdict = "ok" if self.ok else "FAILED"
        parts = [
            f"{counts[CheckStatus.PASSED]} passed",
            f"{counts[CheckStatus.FAILED] - warnings} failed",
            f"{warnings} warning{'s' if warnings != 1 else ''}",
            f"{counts[CheckStatus.NOT_APPLICABLE]} not applicable",
        ]
        return f"{self.subject} ({self.format}, {self.mode}): {verdict} — {', '.join(parts)}"

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON data (``ok`` included)."""
        return json_fields(self, "subject format mode ok checks")

    def to_text(self) -> str:
        """An aligned table with a status column (check mark, cross, dash); each failure's evidence under its row."""
        return _text(self)

    def to_markdown(self) -> str:
        """A heading and a Markdown table."""
        return _markdown(self)

    def to_json(self) -> str:
        """``as_dict`` as indented JSON text."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def to_junit(self) -> str:
        """A JUnit XML document with this report as its one ``<testsuite>``."""
        return render_reports([self], "junit")


def render_reports(reports: Sequence[ContractReport], fmt: ReportFormat) -> str:
    """Render several reports together.

    Args:
        reports: The reports, in the order to show them.
        fmt: ``"text"`` (the tables one after another), ``"markdown"`` (a table per report), ``"json"`` (a list of
            ``as_dict``) or ``"junit"`` (one ``<testsuites>`` document, a ``<testsuite>`` per report).

    Returns:
        The rendered text.

    Raises:
        ValueError: An unknown ``fmt``.
        TypeError: An item of ``reports`` is not a ``ContractReport``.
    """
    if fmt not in _REPORT_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(map(repr, _REPORT_FORMATS))}; got {fmt!r}")
    for position, report in enumerate(reports):
        if not isinstance(report, ContractReport):
            raise TypeError(f"reports[{position}] must be a ContractReport, got {type(report).__name__}")
    if fmt == "json":
        return json.dumps([report.as_dict() for report in reports], indent=2, ensure_ascii=False)
    if fmt == "junit":
        return _junit(reports)
    render = _text if fmt == "text" else _markdown
    return "\n".join(render(report) for report in reports)


def _text(report: ContractReport) -> str:
    width = max((len(check.id) for check in report.checks), default=0)
    lines = [report.summary()]
    for check in report.checks:
        flag = " [warning]" if check.severity == "warning" else ""
        lines.append(f"  {STATUS_MARKS[check.status]} {check.id:<{width}}  {check.title}{flag}")
        if check.status is CheckStatus.FAILED:
            body = check.evidence
        elif check.status is CheckStatus.NOT_APPLICABLE:
            body = f"not applicable: {check.evidence}"
        else:
            body = f"note: {check.note}" if check.note else ""
        lines.extend(f"  {'':<{width + 4}}{line}" for line in body.splitlines())
    return "\n".join(lines) + "\n"


def _markdown(report: ContractReport) -> str:
    verdict = "✓ ok" if report.ok else "✗ FAILED"
    lines = [
        f"### {table_cell(report.subject, '<br>')} — {report.format}, {report.mode}: {verdict}",
        "",
        "| | check | severity | status | evidence |",
        "|---|---|---|---|---|",
    ]
    for check in report.checks:
        evidence = check.evidence if not check.note else f"{check.evidence}\nnote: {check.note}"
        lines.append(
            f"| {STATUS_MARKS[check.status]} | `{check.id}` | {check.severity} | {check.status.value} | {table_cell(evidence, '<br>')} |"
        )
    return "\n".join(lines) + "\n"


def _junit(reports: Sequence[ContractReport]) -> str:
    document = JUnitDocument("toolwire.contract")
    for report in reports:
        suite = document.suite(report.subject, {"format": report.format, "mode": report.mode})
        for check in report.checks:
            case = suite.case(f"toolwire.contract.{report.subject}", check.id)
            if check.blocking:
                first_line = check.evidence.splitlines()[0] if check.evidence else check.title
                suite.fail(case, "failure", first_line, check.severity, check.evidence)
            elif check.status is CheckStatus.NOT_APPLICABLE:
                suite.skip(case, check.evidence)
            elif check.status is CheckStatus.FAILED:
                # A failed warning passes, so CI dashboards stay green; what it found rides along as output.
                suite.output(case, f"warning (does not fail): {check.evidence}")
            elif check.note:
                suite.output(case, f"note: {check.note}")
    return document.render() + "\n"
