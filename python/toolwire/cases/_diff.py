"""Diff-style blocks for failures: what was expected against what was received.

Lines of the expected side that differ start with ``- ``, lines of the received side with ``+ ``, shared lines with two
spaces. JSON is pretty-printed with sorted keys, so both sides line up; a container whose compact form is short stays
on one line, which keeps a matcher such as ``{"one_of": ["a", "b"]}`` readable. Lines are aligned ignoring a trailing
comma, so a member added after the last one does not mark the last one as changed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any, Final

__all__ = ["compact", "diff_json", "diff_lines", "pretty"]

#: A container whose compact JSON is at most this long is written on one line.
INLINE_WIDTH: Final = 60


def compact(value: Any) -> str:
    """One-line JSON with sorted keys and non-ASCII kept."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "), default=repr)


def _members(value: Any, indent: str, opened: int) -> list[str]:
    inner = indent + "  "
    if isinstance(value, dict):
        items = [(f"{json.dumps(key, ensure_ascii=False)}: ", value[key]) for key in sorted(value)]
    else:
        items = [("", item) for item in value]
    lines: list[str] = []
    for position, (label, item) in enumerate(items):
        rendered = _pretty(item, inner, opened - 1)
        rendered[0] = inner + label + rendered[0].lstrip()
        if position < len(items) - 1:
            rendered[-1] += ","
        lines.extend(rendered)
    return lines


def _pretty(value: Any, indent: str, opened: int) -> list[str]:
    one_line = compact(value)
    if not isinstance(value, (dict, list, tuple)) or not value or (len(one_line) <= INLINE_WIDTH and opened <= 0):
        return [indent + one_line]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return [indent + opening, *_members(value, indent, opened), indent + closing]


def pretty(value: Any, opened: int = 0) -> list[str]:
    """``value`` as pretty-printed JSON lines (sorted keys; short containers inline).

    Args:
        value: A JSON value.
        opened: How many levels are written one member per line however short they are (1: the top-level object's
            members each on their own line, so that a diff marks only the member that differs).
    """
    return _pretty(value, "", opened)


def diff_lines(expected: Sequence[str], received: Sequence[str]) -> str:
    """The two line lists as one diff block (``- `` expected, ``+ `` received, two spaces for shared lines)."""
    matcher = difflib.SequenceMatcher(
        None, [line.rstrip(",") for line in expected], [line.rstrip(",") for line in received], autojunk=False
    )
    out: list[str] = []
    for tag, expected_start, expected_end, received_start, received_end in matcher.get_opcodes():
        if tag == "equal":
            # Shared lines differ at most by a trailing comma: show the one with it, which reads as JSON on both sides.
            pairs = zip(expected[expected_start:expected_end], received[received_start:received_end], strict=True)
            out.extend(f"  {mine if mine.endswith(',') else theirs}" for mine, theirs in pairs)
            continue
        out.extend(f"- {line}" for line in expected[expected_start:expected_end])
        out.extend(f"+ {line}" for line in received[received_start:received_end])
    return "\n".join(out)


def diff_json(expected: Any, received: Any, opened: int = 1) -> str:
    """Two JSON values as a diff block of their pretty-printed lines (``opened`` as for ``pretty``)."""
    return diff_lines(pretty(expected, opened), pretty(received, opened))
