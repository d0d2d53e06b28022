"""The values of a matrix run: runs, cells, cases, the grid a report draws, and the exit status policy.

A *run* is one repeat of one case against one model (its ``CaseResult``, or the transport error that prevented
one). A *cell* is every repeat of one case against one model: ``k/n`` passed, and ``ok`` when ``k/n`` reaches the
case's ``min_pass_rate`` (``meets``: the rate read to three decimals). The JSON form (``MatrixResult.as_dict``,
``toolwire matrix --output FILE.json``) is what ``toolwire matrix --compare OLD NEW`` reads; its ``schema`` field
names its version.

Cell statuses, used for colours and in the JSON: ``pass`` (every repeat passed), ``flaky`` (some failed, but the
pass rate reaches the threshold), ``fail`` (below the threshold), ``error`` (no repeat got an answer) and
``unreachable`` (a repeat could not reach the model: no answer at all, or one saying the request never got to a
model, see ``toolwire._common._reach``; the cell says nothing of the model and is not judged).

Exit status policies (``toolwire matrix --fail-on`` error, warning, never): ``threshold`` (error, the default: 1 when
any cell is below its threshold), ``any`` (warning: 1 when any repeat of any cell failed, even in a cell at its
threshold) and ``never`` (always 0; reports only). Under every policy, a run with an unreachable cell exits 3
(``EXIT_UNREACHABLE``): its matrix is incomplete, and a model that cannot be reached is neither a pass nor a
regression.

A report is drawn from a ``Matrix``: what every rendering reads of a run, which ``MatrixResult`` has.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal, Protocol

from toolwire._common._json_data import json_fields
from toolwire.cases._model import CaseResult
from toolwire.cases._spec import ModelSpec

__all__ = [
    "EXIT_UNREACHABLE",
    "FAIL_ON",
    "RATE_ALLOWANCE",
    "REPORT_FORMATS",
    "REPORT_SCHEMA",
    "RUN_PREFIX",
    "TIMES",
    "CaseInfo",
    "Cell",
    "CellStatus",
    "FailOn",
    "FailureGroup",
    "Matrix",
    "ReportFormat",
    "RunRecord",
    "failure_groups",
    "meets",
    "percent",
    "rows",
]

#: The multiplication sign of "case by model" headings in the reports (spelled as an escape: ruff flags the character).
TIMES: Final = "\u00d7"

#: How far below ``min_pass_rate`` a pass rate may fall and still reach it: half a unit of the third decimal, so that
#: a rate written to three decimals (0.667) stands for the fraction it rounds (2/3). See ``meets``.
RATE_ALLOWANCE: Final = Fraction(1, 2000)

#: The ``schema`` of the JSON report; ``--compare`` reads this version.
REPORT_SCHEMA: Final = "toolwire.matrix/1"

FailOn = Literal["threshold", "any", "never"]
#: The exit status policies of ``--fail-on``, with what makes the run exit 1.
FAIL_ON: Final[Mapping[str, str]] = {
    "threshold": "a cell's pass rate is below its case's min_pass_rate",
    "any": "any repeat of any cell failed",
    "never": "nothing: the reports say what failed, the exit status stays 0",
}

CellStatus = Literal["pass", "flaky", "fail", "error", "unreachable"]

#: The exit status of a run in which a model could not be reached, whatever ``--fail-on`` says.
EXIT_UNREACHABLE: Final = 3
# What a run's error says before the cause: the turn, and for a request skipped once the model was known down.
# What a run's error says before the cause: the turn, and for a request skipped once the model was known down.
RUN_PREFIX: Final = re.compile(r"^turn \d+: (?:not sent: )?")

ReportFormat = Literal["text", "markdown", "json", "junit", "html"]
#: The formats ``MatrixResult.render`` writes.
REPORT_FORMATS: Final[tuple[str, ...]] = ("text", "markdown", "json", "junit", "html")


@dataclass(frozen=True)
class RunRecord:
    """One repeat of one case against one model.

    Attributes:
        repeat: The repeat number, from 1.
        result: The judged result; None when no answer came (see ``error``).
        error: Why the case could not be judged: the endpoint refused or never answered, or an answer could not be
            read. None when it was judged.
        retries: One line per retried request.
        cached_turns: Turns answered from the cache.
        sent_turns: Turns answered over HTTP.
        seconds: Wall time of the run, retries included.
        unreachable: The model could not be reached (``error`` says why): not an answer of the model's.
    """

    repeat: int
    result: CaseResult | None
    error: str | None = None
    retries: tuple[str, ...] = ()
    cached_turns: int = 0
    sent_turns: int = 0
    seconds: float = 0.0
    unreachable: bool = False

    @property
    def passed(self) -> bool:
        """Judged and passed."""
        return self.error is None and self.result is not None and self.result.passed

    @property
    def codes(self) -> tuple[str, ...]:
        """The failure codes: ``error`` for a run that got no answer, ``unreachable`` for one that reached no model."""
        if self.unreachable:
            return ("unreachable",)
        if self.error is not None or self.result is None:
            return ("error",)
        return self.result.codes

    def as_dict(self) -> dict[str, Any]:
        """The run as JSON data: the result with every failure, its diff, and every turn's contract report."""
        keys = "repeat passed error unreachable retries cached_turns sent_turns seconds result"
        return json_fields(self, keys, seconds=round(self.seconds, 3))


def meets(passed: int, total: int, min_pass_rate: float) -> bool:
    """Whether ``passed`` out of ``total`` reaches ``min_pass_rate``: ``k/n >= rate``, the rate read to three decimals.

    A rate is what a person writes for a fraction (``0.667`` for 2/3), so the comparison allows half a unit of the
    third decimal: ``k/n >= rate - 0.0005``, computed exactly (the rate as the decimal written, ``k/n`` as a
    fraction). 2/3 reaches 0.66, 0.667 and 0.6667, not 0.67. The allowance never exceeds half the step between two
    pass rates of the cell (``1/(2n)``), so it absorbs the rounding of a rate and never a whole repeat: 1.0 is every
    repeat whatever ``n``.

    Raises:
        ValueError: ``min_pass_rate`` is not a finite number.
    """
    if total == 0:
        return False
    try:
        # repr is the shortest text that reads back as the same float: the decimal the rate was written as.
        rate = Fraction(repr(float(min_pass_rate)))
    except ValueError:
        raise ValueError(f"min_pass_rate must be a number from 0 to 1, got {min_pass_rate!r}") from None
    allowance = min(RATE_ALLOWANCE, Fraction(1, 2 * total))
    return Fraction(passed, total) >= rate - allowance


def percent(rate: float) -> str:
    """A threshold as the reports show it: ``100%``, ``50%``, ``66.7%`` (one decimal when it has one)."""
    text = f"{rate:.1%}"
    return text.replace(".0%", "%")


@dataclass(frozen=True)
class Cell:
    """Every repeat of one case against one model.

    Attributes:
        case: The case's name.
        model: The model's label.
        min_pass_rate: The case's threshold.
        runs: The repeats, in repeat order.
    """

    case: str
    model: str
    min_pass_rate: float
    runs: tuple[RunRecord, ...]

    @property
    def passed(self) -> int:
        """Repeats that passed (the ``k`` of ``k/n``)."""
        return sum(run.passed for run in self.runs)

    @property
    def total(self) -> int:
        """Repeats run (the ``n`` of ``k/n``)."""
        return len(self.runs)

    @property
    def rate(self) -> float:
        """``k/n`` (0 for an empty cell)."""
        return self.passed / self.total if self.runs else 0.0

    @property
    def ok(self) -> bool:
        """The pass rate reaches the case's threshold (never for a cell whose model could not be reached)."""
        return not self.unreachable and meets(self.passed, self.total, self.min_pass_rate)

    @property
    def unreachable(self) -> bool:
        """A repeat could not reach the model: the cell's ``k/n`` does not measure it."""
        return any(run.unreachable for run in self.runs)

    @property
    def status(self) -> CellStatus:
        """``pass``, ``flaky``, ``fail``, ``error`` or ``unreachable`` (see the module docstring)."""
        if self.unreachable:
            return "unreachable"
        if self.runs and all(run.error is not None for run in self.runs):
            return "error"
        if self.passed == self.total and self.runs:
            return "pass"
        return "flaky" if self.ok else "fail"

    @property
    def fraction(self) -> str:
        """``k/n``."""
        return f"{self.passed}/{self.total}"

    @property
    def codes(self) -> tuple[str, ...]:
        """Every failure code of the failed repeats, each once, in the order first seen."""
        seen: dict[str, None] = {}
        for run in self.runs:
            if not run.passed:
                seen.update(dict.fromkeys(run.codes))
        return tuple(seen)

    @property
    def retries(self) -> int:
        """Requests retried, over every repeat."""
        return sum(len(run.retries) for run in self.runs)

    @property
    def failed_runs(self) -> tuple[RunRecord, ...]:
        """The repeats that did not pass."""
        return tuple(run for run in self.runs if not run.passed)

    def as_dict(self) -> dict[str, Any]:
        """The cell as JSON data, with every repeat."""
        keys = "case model passed total pass_rate min_pass_rate ok status codes retries repeats"
        return json_fields(self, keys, pass_rate=round(self.rate, 6), repeats=self.runs)


@dataclass(frozen=True)
class CaseInfo:
    """A case as the reports need it.

    Attributes:
        name: Its name.
        origin: ``cases.yaml#3``.
        min_pass_rate: Its threshold.
        expected: The expectation in one line (for row headers).
        expectation: The expectation as JSON data (the sequences with their matchers as the case file spells
            them), shown beside what was received.
    """

    name: str
    origin: str
    min_pass_rate: float
    expected: str = ""
    expectation: Mapping[str, Any] = field(default_factory=dict)


class Matrix(Protocol):
    """What a rendering reads of a matrix run (``MatrixResult`` has it)."""

    @property
    def source(self) -> str:
        """The case file."""
        ...

    @property
    def cases(self) -> tuple[CaseInfo, ...]:
        """The rows, in file order."""
        ...

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        """The columns, labelled."""
        ...

    @property
    def cells(self) -> tuple[Cell, ...]:
        """One per case and model, row by row."""
        ...

    @property
    def started(self) -> str:
        """When the run started (ISO 8601, UTC)."""
        ...

    @property
    def seconds(self) -> float:
        """How long it took."""
        ...

    @property
    def offline(self) -> bool:
        """Every answer came from the cache, by request."""
        ...

    @property
    def labels(self) -> tuple[str, ...]:
        """The column labels."""
        ...

    def cell(self, case: str, model: str) -> Cell:
        """The cell of a case (by name) and a model (by label)."""
        ...

    def unreachable_models(self) -> dict[str, str]:
        """Each model that could not be reached, by label, with why."""
        ...

    def summary(self) -> dict[str, int]:
        """Counts over the whole run."""
        ...


def rows(result: Matrix) -> Sequence[tuple[CaseInfo, tuple[Cell, ...]]]:
    """The grid: each case with its cells in column order."""
    return [(info, tuple(result.cell(info.name, label) for label in result.labels)) for info in result.cases]


@dataclass(frozen=True)
class FailureGroup:
    """One failure as it recurs across the repeats of a cell (reports show it once, with the repeats it hit).

    Attributes:
        code: The failure code (``error`` for a run that got no answer).
        message: Its one-line message.
        diff: The diff of its first occurrence.
        repeats: The repeat numbers it occurred in.
    """

    code: str
    message: str
    diff: str
    repeats: tuple[int, ...]

    @property
    def which(self) -> str:
        """``repeat 2`` or ``repeats 1, 3``."""
        return ("repeat " if len(self.repeats) == 1 else "repeats ") + ", ".join(map(str, self.repeats))


def failure_groups(cell: Cell) -> tuple[FailureGroup, ...]:
    """The failures of a cell's failed repeats, grouped by code and message, in the order first seen."""
    groups: dict[tuple[str, str], FailureGroup] = {}
    for run in cell.failed_runs:
        found: list[tuple[str, str, str]] = []
        if run.error is not None or run.result is None:
            found.append((run.codes[0], run.error or "no answer", ""))
        else:
            found.extend((failure.code, failure.message, failure.diff) for failure in run.result.failures)
        for code, message, diff in found:
            group = groups.get((code, message))
            if group is None:
                groups[(code, message)] = FailureGroup(code, message, diff, (run.repeat,))
            elif run.repeat not in group.repeats:
                groups[(code, message)] = FailureGroup(code, message, group.diff, (*group.repeats, run.repeat))
    return tuple(groups.values())
