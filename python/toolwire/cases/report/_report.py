"""The result of a matrix run: its cells, JSON form and exit status, and its renderings."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toolwire._common._json_data import json_fields
from toolwire.cases._spec import ModelSpec
from toolwire.cases.report._html import render_html
from toolwire.cases.report._junit import render_junit
from toolwire.cases.report._markdown import render_markdown
from toolwire.cases.report._model import (
    EXIT_UNREACHABLE,
    FAIL_ON,
    REPORT_FORMATS,
    REPORT_SCHEMA,
    RUN_PREFIX,
    CaseInfo,
    Cell,
    FailOn,
    ReportFormat,
)
from toolwire.cases.report._text import render_text

__all__ = ["MatrixResult"]


@dataclass(frozen=True)
class MatrixResult:
    """The case-by-model matrix of one run.

    Attributes:
        source: The case file.
        cases: The rows, in file order.
        models: The columns, in command-line order, labelled.
        cells: One per case and model, row by row.
        started: When the run started (ISO 8601, UTC).
        seconds: How long it took.
        offline: Every answer came from the cache, by request.
    """

    source: str
    cases: tuple[CaseInfo, ...]
    models: tuple[ModelSpec, ...]
    cells: tuple[Cell, ...]
    started: str = ""
    seconds: float = 0.0
    offline: bool = False
    _index: dict[tuple[str, str], Cell] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Index the cells by (case, model)."""
        self._index.update({(cell.case, cell.model): cell for cell in self.cells})

    def cell(self, case: str, model: str) -> Cell:
        """The cell of a case (by name) and a model (by label).

        Raises:
            KeyError: No such cell (the message names the cases and models there are).
        """
        try:
            return self._index[(case, model)]
        except KeyError:
            cases = ", ".join(info.name for info in self.cases)
            models = ", ".join(spec.label for spec in self.models)
            raise KeyError(f"no cell ({case!r}, {model!r}); cases: {cases}; models: {models}") from None

    @property
    def labels(self) -> tuple[str, ...]:
        """The column labels."""
        return tuple(spec.label for spec in self.models)

    @property
    def below_threshold(self) -> tuple[Cell, ...]:
        """The cells whose pass rate is below their threshold (unreachable cells are not judged, so not among them)."""
        return tuple(cell for cell in self.cells if not cell.ok and not cell.unreachable)

    @property
    def unreachable(self) -> tuple[Cell, ...]:
        """The cells whose model could not be reached."""
        return tuple(cell for cell in self.cells if cell.unreachable)

    def unreachable_models(self) -> dict[str, str]:
        """Each model that could not be reached, by label, with why (its first unreachable run's error)."""
        found: dict[str, str] = {}
        for cell in self.unreachable:
            if cell.model not in found:
                error = next(run.error or "unreachable" for run in cell.runs if run.unreachable)
                found[cell.model] = RUN_PREFIX.sub("", error)
        return found

    @property
    def ok(self) -> bool:
        """Every cell was judged and reaches its threshold."""
        return not self.below_threshold and not self.unreachable

    def summary(self) -> dict[str, int]:
        """Counts over the whole run: cells, runs, errors, retries, cached and sent turns.

        Cells are counted ok, below threshold and unreachable; runs passed and unreachable.
        """
        runs = [run for cell in self.cells for run in cell.runs]
        return {
            "cells": len(self.cells),
            "cells_ok": sum(cell.ok for cell in self.cells),
            "cells_below_threshold": len(self.below_threshold),
            "cells_unreachable": len(self.unreachable),
            "runs": len(runs),
            "runs_passed": sum(run.passed for run in runs),
            "runs_unreachable": sum(run.unreachable for run in runs),
            "errors": sum(run.error is not None for run in runs),
            "retries": sum(len(run.retries) for run in runs),
            "cached_turns": sum(run.cached_turns for run in runs),
            "sent_turns": sum(run.sent_turns for run in runs),
        }

    def exit_status(self, fail_on: FailOn = "threshold") -> int:
        """The exit status under a policy (``FAIL_ON``): 0 or 1; ``EXIT_UNREACHABLE`` (3) when a model was unreachable.

        A model that could not be reached gives 3 under every policy: the matrix is incomplete.

        Raises:
            ValueError: An unknown policy.
        """
        if fail_on not in FAIL_ON:
            raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}; got {fail_on!r}")
        if self.unreachable:
            return EXIT_UNREACHABLE
        if fail_on == "threshold":
            return 0 if self.ok else 1
        if fail_on == "any":
            return 0 if all(run.passed for cell in self.cells for run in cell.runs) else 1
        if fail_on == "never":
            return 0
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}; got {fail_on!r}")

    def render(self, fmt: ReportFormat = "text") -> str:
        """The matrix as ``text`` (the terminal table, plain), ``markdown``, ``json``, ``junit`` or ``html``.

        Raises:
            ValueError: An unknown format.
        """
        if fmt == "json":
            return json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n"
        if fmt == "text":
            return render_text(self)
        if fmt == "markdown":
            return render_markdown(self)
        if fmt == "junit":
            return render_junit(self)
        if fmt == "html":
            return render_html(self)
        raise ValueError(f"fmt must be one of {', '.join(REPORT_FORMATS)}; got {fmt!r}")

    def as_dict(self) -> dict[str, Any]:
        """The whole run as JSON data (what ``--output FILE.json`` writes and ``--compare`` reads)."""
        return json_fields(
            self,
            "schema source started seconds offline ok summary models cases cells",
            schema=REPORT_SCHEMA,
            seconds=round(self.seconds, 3),
            summary=self.summary(),
            cases=[json_fields(info, "name origin min_pass_rate") for info in self.cases],
        )
