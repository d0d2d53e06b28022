"""The matrix in Markdown (a pull-request comment, a CI job summary): the grid, then each failing cell folded.

GitHub renders ``<details>`` in Markdown, so every cell that did not pass all its repeats is a folded section with
its failures and their diffs in ``diff`` code blocks. A cell whose model could not be reached reads ``unreachable``;
such models are listed once each, with why, above the failures.
"""

from __future__ import annotations

from toolwire._common._markdown import fence, table_cell
from toolwire.cases.report._model import TIMES, Matrix, failure_groups, rows
from toolwire.cases.report._text import MARKS, cell_text, heading, totals, unreachable_lines

__all__ = ["render_markdown"]


def render_markdown(result: Matrix) -> str:
    """The matrix as Markdown: a heading, the grid, the legend, each failing cell folded, and the totals."""
    lines = [f"### {table_cell(heading(result))}", ""]
    lines.append("| case | " + " | ".join(table_cell(label) for label in result.labels) + " |")
    lines.append("|---|" + "---|" * len(result.labels))
    for info, cells in rows(result):
        lines.append(f"| `{table_cell(info.name)}` | " + " | ".join(cell_text(cell) for cell in cells) + " |")
    lines += [
        "",
        f"{MARKS['pass']} all passed · {MARKS['flaky']} some failed, at threshold · "
        f"{MARKS['fail']} below threshold · {MARKS['error']} no answer",
        "",
    ]
    down = unreachable_lines(result)
    if down:
        lines += ["**Unreachable (not judged)**", "", *(f"- {table_cell(line)}" for line in down), ""]
    for _info, cells in rows(result):
        for cell in cells:
            if cell.status in ("pass", "unreachable"):
                continue
            codes = ", ".join(f"`{code}`" for code in cell.codes)
            where = f"<code>{cell.case}</code> {TIMES} {cell.model}"
            summary = f"{MARKS[cell.status]} {where} — {cell.fraction} — {codes}"
            lines += ["<details>", f"<summary>{summary}</summary>", ""]
            for group in failure_groups(cell):
                lines.append(f"- **`{group.code}`** {table_cell(group.message)} ({group.which})")
                if group.diff:
                    ticks = fence(group.diff)
                    lines += ["", f"  {ticks}diff", *(f"  {line}" for line in group.diff.splitlines()), f"  {ticks}"]
            lines += ["", "</details>", ""]
    lines.append(f"**{totals(result)}**")
    return "\n".join(lines) + "\n"
