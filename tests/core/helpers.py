"""Shared by the differential tests of the chat format and of the five event formats (tests/core/).

Both run one source through the core and the reference and compare where each call came out and how each stream
failed; these are the two pieces they measure alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any


class CountedSource:
    """Items handed out one at a time, counting how many were read, so a call is placed after the item that made it.

    A generator and not the list itself: an implementation must not see an item before it asks for it.
    """

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items
        self.read = 0
        self.exhausted = False

    def __iter__(self) -> Iterator[Any]:
        for item in self.items:
            self.read += 1
            yield item
        self.exhausted = True

    def position(self) -> int:
        """The item after which the call just handed over came out; ``len(items)`` once all were read (the end)."""
        return len(self.items) if self.exhausted else self.read - 1


def error_form(error: BaseException | None) -> tuple[str, int | None, Any] | None:
    """An exception as the two implementations must agree on it: its type, chunk number and path."""
    if error is None:
        return None
    return (type(error).__name__, getattr(error, "chunk_number", None), getattr(error, "path", None))
