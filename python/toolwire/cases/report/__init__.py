"""The matrix result: runs, cells and the grid, rendered as text, markdown, JSON, JUnit XML or HTML, and compared."""

from __future__ import annotations

from toolwire.cases.report._compare import CellChange, Comparison, compare_reports, load_report
from toolwire.cases.report._model import FAIL_ON, REPORT_FORMATS, TIMES, CaseInfo, Cell, FailOn, ReportFormat, RunRecord
from toolwire.cases.report._report import MatrixResult
from toolwire.cases.report._text import print_rich, render_text

__all__ = [
    "FAIL_ON",
    "REPORT_FORMATS",
    "TIMES",
    "CaseInfo",
    "Cell",
    "CellChange",
    "Comparison",
    "FailOn",
    "MatrixResult",
    "ReportFormat",
    "RunRecord",
    "compare_reports",
    "load_report",
    "print_rich",
    "render_text",
]
