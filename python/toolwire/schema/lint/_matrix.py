"""The provider lint's tool x target matrix: for each tool and target, the worst effect found, or ``ok``.

Kept in ``FindingReport.extra["matrix"]`` as ``{"targets": [...], "rows": [{"tool", "origin", "cells": {target:
cell}}]}``; a last row ``(all tools)`` holds the request-wide budgets (tool counts, summed limits) when one is
exceeded. Cells, from the worst: ``not-loadable``, ``reject``, ``ignored``, ``weakened``, ``deviation``,
``unverified`` (only with ``--show-unverified``), ``ok``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from toolwire._common._markdown import table_row
from toolwire.schema._findings import Finding, FindingReport

__all__ = ["CELLS", "NOT_LOADABLE_RULE", "REQUEST_ROW", "UNNAMED", "build_matrix", "refresh_matrix", "render_matrix"]

#: Matrix cells from the mildest to the worst.
CELLS: tuple[str, ...] = ("ok", "unverified", "deviation", "weakened", "ignored", "reject", "not-loadable")
#: The row of request-wide findings (no single tool).
REQUEST_ROW = "(all tools)"
#: The row name of a definition without a usable name.
UNNAMED = "(unnamed)"
#: The rule of a tool that does not load.
NOT_LOADABLE_RULE = "lint/not-loadable"


def _worse(current: str, candidate: str) -> str:
    return candidate if CELLS.index(candidate) > CELLS.index(current) else current


def build_matrix(
    findings: Iterable[Finding], rows: Sequence[tuple[str, str | None]], targets: Sequence[str]
) -> dict[str, Any]:
    """The matrix of a set of findings.

    Args:
        findings: The lint's findings.
        rows: ``(tool name, origin)`` of every tool, in order.
        targets: The targets linted, in order.

    Returns:
        ``{"targets": [...], "rows": [{"tool", "origin", "cells"}]}``.
    """
    cells: dict[tuple[str, str | None], dict[str, str]] = {row: dict.fromkeys(targets, "ok") for row in rows}
    for finding in findings:
        key = (finding.tool or (UNNAMED if finding.origin else REQUEST_ROW), finding.origin)
        if finding.rule == NOT_LOADABLE_RULE and key in cells:
            cells[key] = dict.fromkeys(targets, "not-loadable")
        elif finding.target is not None and finding.target in targets and finding.effect in CELLS:
            row = cells.setdefault(key, dict.fromkeys(targets, "ok"))
            row[finding.target] = _worse(row[finding.target], finding.effect)
    ordered = [*rows, *(key for key in cells if key not in rows)]
    return {
        "targets": list(targets),
        "rows": [{"tool": tool, "origin": origin, "cells": cells[(tool, origin)]} for tool, origin in ordered],
    }


def refresh_matrix(report: FindingReport) -> FindingReport:
    """The report with its matrix recomputed from its findings (after rule levels removed some)."""
    matrix = report.extra.get("matrix")
    if not isinstance(matrix, Mapping):
        return report
    rows = [(row["tool"], row["origin"]) for row in matrix["rows"] if row["tool"] != REQUEST_ROW]
    return replace(report, extra={**report.extra, "matrix": build_matrix(report.findings, rows, matrix["targets"])})


def _table(matrix: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["tool", *matrix["targets"]]
    body = [[row["tool"], *(row["cells"][target] for target in matrix["targets"])] for row in matrix["rows"]]
    return header, body


def render_matrix(matrix: Mapping[str, Any], fmt: str) -> str:
    """The matrix as a markdown table (``fmt == "markdown"``) or aligned plain-text columns."""
    header, body = _table(matrix)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        lines += [table_row(row) for row in body]
        return "\n".join(["#### tool x target", "", *lines])
    widths = [max(len(row[column]) for row in (header, *body)) for column in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (header, *body)
    )
