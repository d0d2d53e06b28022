"""One JSON value read as its text arrives (a streamed structured output): the twin of ``rust/py/value_reader.rs``.

The scanner (``_scanner.Scanner``) gives its verdict on the text so far, the moment the value is whole or broken; the
snapshot (``_snapshot.Partial``) is the value as it stands, complete values as values and the one still arriving a
``Pending``. The snapshot reads only the value's own bytes: none after its end or after the byte that broke it.
"""

from __future__ import annotations

from typing import Any

from toolwire.reference._scanner import COMPLETE, INCOMPLETE, INVALID, TRAILING_DATA, Scanner
from toolwire.reference._snapshot import Partial

__all__ = ["ValueReader"]

#: The scanner's verdict: ``(state, end or offset, error kind)``.
Verdict = tuple[str, "int | None", "str | None"]


class ValueReader:
    """One JSON value read as its text arrives: the verdict on the text so far and the value as it stands."""

    def __init__(self, max_depth: int = 128) -> None:
        """A reader of a value nested at most ``max_depth`` levels."""
        self._scanner = Scanner(max_depth)
        self._partial = Partial()

    def feed(self, text: bytes) -> Verdict:
        """Read the next piece of the text (UTF-8 bytes); the verdict on all of it so far.

        ``"incomplete"``, ``"complete"`` with the offset just past the value (or where text after it starts), or
        ``"invalid"`` with the offset of the byte that broke it and why.
        """
        before = self._scanner.bytes_seen
        reading = self._scanner.state == INCOMPLETE
        state = self._scanner.feed(text)
        if reading:
            stop = self._stop(state)
            own = len(text) if stop is None else min(max(stop - before, 0), len(text))
            self._partial.feed(text[:own])
        return self._verdict()

    def finish(self) -> Verdict:
        """Declare the end of the text: a top-level number whole so far completes here; the verdict."""
        self._scanner.finish()
        return self._verdict()

    def snapshot(self) -> Any:
        """The value as it stands (None before it started); the live value, updated in place by later pieces."""
        return self._partial.snapshot()

    def take_duplicate_keys(self) -> list[tuple[str, int]]:
        """The keys found twice in one object so far, not taken before: ``(JSON pointer of the second, offset)``."""
        return [(key.path, key.offset) for key in self._scanner.take_duplicate_keys()]

    def open_values(self) -> list[Any]:
        """The containers of the snapshot still open, outermost first."""
        return [frame.container for frame in self._partial.stack]

    def _stop(self, state: str) -> int | None:
        if state == COMPLETE:
            return self._scanner.end
        error = self._scanner.error
        return error.offset if state == INVALID and error is not None else None

    def _verdict(self) -> Verdict:
        # Text after the value (the scanner's trailing data) is the caller's to judge: the value is complete there.
        state = self._scanner.state
        if state == COMPLETE:
            return (state, self._scanner.end, None)
        error = self._scanner.error
        if state == INVALID and error is not None:
            if error.kind == TRAILING_DATA:
                return (COMPLETE, error.offset, None)
            return (state, error.offset, error.kind)
        return (state, None, None)
