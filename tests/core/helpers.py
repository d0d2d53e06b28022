"""Shared by the differential tests of the chat format and of the five event formats (tests/core/).

Both run one source through the core and the reference and compare where each call came out, each call's every
field and how each stream failed; these are the pieces they measure alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tests.support.comparable import strict
from toolwire import InvalidToolCall, ToolCall, Violation

#: How a suite writes a violation for comparison.
Norm = Callable[[Violation], tuple[Any, ...]]


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


def read_all(stream: Any, source: CountedSource, handed: list[Any], positions: list[int]) -> Any:
    """Every call of ``stream`` into ``handed``, with the item after which it came out into ``positions``; its result.

    A stream that raises has put every call before the error in ``handed`` already.
    """
    for call in stream:
        handed.append(call)
        positions.append(source.position())
    return stream.result


def error_form(error: BaseException | None) -> tuple[str, int | None, Any] | None:
    """An exception as the two implementations must agree on it: its type, chunk number and path."""
    if error is None:
        return None
    return (type(error).__name__, getattr(error, "chunk_number", None), getattr(error, "path", None))


def call_form(c: ToolCall | InvalidToolCall, nv: Norm) -> tuple[Any, ...]:
    """A handed-over call, every field but none of its messages (its violations written by ``nv``)."""
    assert type(c) in (ToolCall, InvalidToolCall), type(c)
    errors = tuple(map(nv, c.errors)) if type(c) is InvalidToolCall else None
    return (
        type(c).__name__,
        c.id,
        c.name,
        strict(c.arguments),
        c.arguments_json,
        c.seq,
        c.index,
        c.choice,
        errors,
        tuple(map(nv, c.violations)),
        strict(dict(c.extra)),
        c.tool_fingerprint,
    )
