"""The known word a mistyped one most likely meant: what a "did you mean" in an error message names."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to ``word`` (difflib's ratio of at least 0.6), or None when none is close."""
    found = difflib.get_close_matches(word, list(known), n=1)
    return found[0] if found else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known word, or "" when none is close."""
    close = closest(word, known)
    return f" (did you mean {close!r}?)" if close is not None else ""
