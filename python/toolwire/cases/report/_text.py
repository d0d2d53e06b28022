"""The matrix for the terminal: the grid of ``k/n`` cells, coloured by status, then what failed and the totals.

``render_text`` gives plain text (ANSI colours on request); ``print_rich`` draws the same with rich, which the
command uses when stdout is a terminal and rich is installed. Marks, so the grid reads without colour too: ``✓``
every repeat passed, ``~`` some failed but the pass rate reaches the threshold, ``✗`` below the threshold, ``!`` no
repeat got an answer; a cell whose model could not be reached reads ``unreachable``, and the models that could not
be are listed once each, with why, before what failed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, TextIO

from toolwire.cases.report._model import TIMES, Cell, CellStatus, Matrix, failure_groups, percent, rows

__all__ = ["MARKS", "UNREACHABLE", "print_rich", "render_text"]

#: The mark of each cell status.
MARKS: Final[dict[CellStatus, str]] = {"pass": "✓", "flaky": "~", "fail": "✗", "error": "!", "unreachable": "?"}
#: What an unreachable cell reads in the grids, instead of a ``k/n`` that would measure nothing.
UNREACHABLE: Final = "unreachable"
_ANSI: Final[dict[str, str]] = {
    "pass": "32",
    "flaky": "33",
    "fail": "31",
    "error": "35",
    "unreachable": "36",
    "dim": "2",
    "bold": "1",
}
_RICH: Final[dict[str, str]] = {
    "pass": "green",
    "flaky": "yellow",
    "fail": "bold red",
    "error": "magenta",
    "unreachable": "cyan",
    "dim": "dim",
}
_LEGEND: Final = "✓ all passed  ~ some failed, at threshold  ✗ below threshold  ! no answer"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def cell_text(cell: Cell) -> str:
    """``k/n`` and the status mark, e.g. ``2/3 ~``; ``unreachable`` for a cell whose model could not be reached."""
    return UNREACHABLE if cell.status == "unreachable" else f"{cell.fraction} {MARKS[cell.status]}"


def unreachable_lines(result: Matrix) -> list[str]:
    """One line per model that could not be reached: its label, its spec and why."""
    by_label = {spec.label: spec for spec in result.models}
    return [
        f"{MARKS['unreachable']} {label} ({by_label[label].compact()}): {cause}"
        for label, cause in result.unreachable_models().items()
    ]


def heading(result: Matrix) -> str:
    """The first line: the case file, the size of the matrix, the repeats."""
    counts = sorted({cell.total for cell in result.cells}) or [0]
    repeats = _plural(counts[0], "repeat") if len(counts) == 1 else f"{counts[0]} to {counts[-1]} repeats"
    size = f"{_plural(len(result.cases), 'case')} {TIMES} {_plural(len(result.models), 'model')}"
    offline = "  (offline, from the cache)" if result.offline else ""
    return f"toolwire matrix  {result.source}  {size}, {repeats}{offline}"


def totals(result: Matrix) -> str:
    """The last line: cells below threshold, runs passed, errors, retries, cache use, time."""
    counts = result.summary()
    below = counts["cells_below_threshold"]
    verdict = "every cell at its threshold" if not below else f"{below} of {counts['cells']} cells below threshold"
    parts = [verdict]
    if counts["cells_unreachable"]:
        down = len(result.unreachable_models())
        parts.append(f"{_plural(down, 'model')} unreachable ({counts['cells_unreachable']} cells not judged)")
    parts.append(f"{counts['runs_passed']}/{counts['runs']} runs passed")
    if counts["errors"]:
        parts.append(_plural(counts["errors"], "run") + " without an answer")
    parts.append(f"{counts['retries']} {'retry' if counts['retries'] == 1 else 'retries'}")
    parts.append(f"{counts['cached_turns']} cached, {counts['sent_turns']} sent")
    parts.append(f"{result.seconds:.1f} s")
    return " · ".join(parts)


def failure_lines(result: Matrix) -> Iterator[tuple[str, str]]:
    """``(line, style)`` for every cell that did not pass every repeat: its failures, each once, with its diff."""
    for _info, cells in rows(result):
        for cell in cells:
            if cell.status in ("pass", "unreachable"):
                continue
            threshold = f"needs {percent(cell.min_pass_rate)}"
            yield f"{MARKS[cell.status]} {cell.case} {TIMES} {cell.model}  {cell.fraction} ({threshold})", cell.status
            for group in failure_groups(cell):
                yield f"    {group.code}: {group.message}  [{group.which}]", ""
                for line in group.diff.splitlines():
                    style = "fail" if line.startswith("+") else "pass" if line.startswith("-") else "dim"
                    yield f"        {line}", style
            for run in cell.runs:
                for retry in run.retries:
                    yield f"    retried (repeat {run.repeat}): {retry}", "dim"


def _grid(result: Matrix) -> tuple[list[str], list[list[tuple[str, str]]]]:
    header = ["case", *result.labels]
    body = [[(info.name, "")] + [(cell_text(cell), cell.status) for cell in cells] for info, cells in rows(result)]
    return header, body


def render_text(result: Matrix, *, color: bool = False) -> str:
    """The matrix as plain text.

    Args:
        result: The matrix.
        color: Colour cells and diffs with ANSI escapes (for a terminal without rich).

    Returns:
        The heading, the grid, a legend, the failures and the totals.
    """

    def paint(text: str, style: str) -> str:
        return f"\x1b[{_ANSI[style]}m{text}\x1b[0m" if color and style else text

    header, body = _grid(result)
    widths = [max(len(row[column][0]) for row in [[(h, "") for h in header], *body]) for column in range(len(header))]
    lines = [heading(result), ""]
    lines.append("  ".join(title.ljust(width) for title, width in zip(header, widths, strict=True)).rstrip())
    lines.append("  ".join("─" * width for width in widths))
    for row in body:
        lines.append(
            "  ".join(
                paint(text.ljust(width), style) for (text, style), width in zip(row, widths, strict=True)
            ).rstrip()
        )
    lines += [paint(_LEGEND, "dim"), ""]
    down = unreachable_lines(result)
    if down:
        lines += [paint("Unreachable (not judged)", "bold"), *(paint(f"  {line}", "unreachable") for line in down), ""]
    failures = list(failure_lines(result))
    if failures:
        lines += [paint("What failed", "bold"), *(paint(text, style) for text, style in failures), ""]
    lines.append(totals(result))
    return "\n".join(lines) + "\n"


def print_rich(result: Matrix, file: TextIO | None = None) -> None:
    """Draw the matrix with rich: a table with coloured cells, the failures and the totals.

    Raises:
        ModuleNotFoundError: rich is not installed.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=file, highlight=False)
    console.print(Text(heading(result), style="bold"), soft_wrap=True)
    console.print()
    table = Table(show_edge=False, pad_edge=False)
    header, body = _grid(result)
    for position, title in enumerate(header):
        table.add_column(title, justify="left" if position == 0 else "center", no_wrap=position > 0)
    for row in body:
        table.add_row(*(Text(text, style=_RICH.get(style, "")) for text, style in row))
    console.print(table)
    console.print(Text(_LEGEND, style="dim"))
    down = unreachable_lines(result)
    if down:
        console.print()
        console.print(Text("Unreachable (not judged)", style="bold"))
        for line in down:
            console.print(Text(f"  {line}", style=_RICH["unreachable"]), soft_wrap=True)
    failures = list(failure_lines(result))
    if failures:
        console.print()
        console.print(Text("What failed", style="bold"))
        for text, style in failures:
            console.print(Text(text, style=_RICH.get(style, "")), soft_wrap=True)
    console.print()
    console.print(Text(totals(result)))
