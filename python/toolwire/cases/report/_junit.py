"""The matrix as JUnit XML for CI: a ``<testsuite>`` per model, a ``<testcase>`` per case and model.

A cell below its threshold is a ``<failure>`` (type: its failure codes; text: every failure with its diff); a cell
where no repeat got an answer is an ``<error>``, and so is a cell whose model could not be reached (type
``unreachable``: the endpoint is down or wrong, which is not a failure of the model); a cell at its threshold with
failed repeats passes, and says what failed in ``<system-out>``, so that a dashboard stays green while the flakiness
stays visible.
"""

from __future__ import annotations

from toolwire._common._junit import JUnitDocument
from toolwire.cases.report._model import Cell, Matrix, failure_groups, percent

__all__ = ["render_junit"]


def _details(cell: Cell) -> str:
    lines = []
    for group in failure_groups(cell):
        lines.append(f"{group.code}: {group.message} ({group.which})")
        lines.extend(f"    {line}" for line in group.diff.splitlines())
    for run in cell.runs:
        lines.extend(f"retried (repeat {run.repeat}): {retry}" for retry in run.retries)
    return "\n".join(lines)


def render_junit(result: Matrix) -> str:
    """The matrix as a JUnit XML document."""
    document = JUnitDocument("toolwire.matrix")
    for spec in result.models:
        suite = document.suite(spec.label, {key: str(getattr(spec, key)) for key in ("format", "model", "base_url")})
        for info in result.cases:
            cell = result.cell(info.name, spec.label)
            seconds = sum(run.seconds for run in cell.runs)
            case = suite.case(f"toolwire.matrix.{spec.label}", info.name, seconds)
            message = f"{cell.fraction} passed, needs {percent(cell.min_pass_rate)}: {', '.join(cell.codes)}"
            if cell.status == "unreachable":
                cause = result.unreachable_models()[cell.model]
                suite.fail(case, "error", f"unreachable: {cause}", "unreachable", _details(cell))
            elif cell.status == "error":
                suite.fail(case, "error", message, "error", _details(cell))
            elif not cell.ok:
                suite.fail(case, "failure", message, " ".join(cell.codes), _details(cell))
            elif cell.status == "flaky":
                suite.output(
                    case,
                    f"flaky, at threshold ({cell.fraction}, needs {percent(cell.min_pass_rate)})\n{_details(cell)}",
                )
    return document.render() + "\n"
