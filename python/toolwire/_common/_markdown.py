"""Markdown, the form of every report meant for a pull-request comment or a CI job summary: table cells and fences.

The schema commands, the contract checks and the case matrix each lay out their own report; the escaping that keeps
a table a table and a code block closed is written here once.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["fence", "table_cell", "table_row"]


def table_cell(text: str, line_break: str = " ") -> str:
    """Text fit for one table cell: pipes escaped, and its lines joined with ``line_break`` (``"<br>"`` keeps them)."""
    return line_break.join(text.replace("|", "\\|").splitlines())


def table_row(cells: Iterable[str]) -> str:
    """One table row of plain texts, each made fit for its cell."""
    return "| " + " | ".join(map(table_cell, cells)) + " |"


def fence(text: str) -> str:
    """A code fence longer than any run of backticks inside ``text``, so that the block cannot close early."""
    longest, run = 0, 0
    for character in text:
        run = run + 1 if character == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)
