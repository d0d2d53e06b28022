r"""JSON Schema ``pattern`` (ECMA-262) read as a Python regular expression, for generating and checking strings.

The validator follows ECMA-262: ``\d``, ``\w``, ``\s`` and ``\b`` are ASCII, and ``$`` matches only at the very
end. Python's ``re`` gets the same meaning from ``re.ASCII`` and ``\Z`` in place of ``$`` (its ``$`` also matches
before a final newline). Syntax Python does not read (``\p{L}``, ``(?<name>``...) is reported, not guessed at.
"""

from __future__ import annotations

import re

__all__ = ["python_regex"]


def _translate(pattern: str) -> str:
    r"""``pattern`` with each ``$`` outside a character class written ``\Z``; ECMA's ``(?<name>`` as Python's."""
    out = []
    in_class = escaped = False
    for position, ch in enumerate(pattern):
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            out.append(ch)
            escaped = True
        elif in_class:
            out.append(ch)
            in_class = ch != "]"
        elif ch == "[":
            out.append(ch)
            in_class = True
            if pattern[position + 1 : position + 2] == "]":  # "[]...]" in Python, "[]" (never matches) in ECMA
                raise re.error("an empty character class '[]' has no Python equivalent", pattern, position)
        elif ch == "$":
            out.append(r"\Z")
        elif (
            ch == "<" and pattern[position - 2 : position] == "(?" and pattern[position + 1 : position + 2] not in "=!"
        ):
            out.append("P<")
        else:
            out.append(ch)
    return "".join(out)


def python_regex(pattern: str) -> re.Pattern[str]:
    r"""The pattern compiled with ECMA-262 meaning (``re.ASCII``, ``$`` at the very end only).

    Raises:
        re.error: Python cannot read the pattern (Unicode property escapes ``\p{...}``, for one).
    """
    if "\\p{" in pattern or "\\P{" in pattern:
        raise re.error("Unicode property escapes (\\p{...}) have no Python equivalent", pattern)
    return re.compile(_translate(pattern), re.ASCII)
