"""JSON bodies, the twin of ``rust/core/src/json_seq.rs``: JSON lines and one JSON array, each element an event.

An element is handed over the moment it closes; where it closes is all this framer finds (strings and their escapes,
the nesting of ``{}`` and ``[]``, counted, not matched): judging it is the decoder's, as for any event's data. A value
of JSON lines also ends at a line end. Between elements only whitespace, and in an array the ``,`` between elements
and the closing ``]``; anything else, or a body that ends before the ``]``, is a ``FramingError``. An element is held
up to the limit, as it arrives.
"""

from __future__ import annotations

import re

from toolwire.reference._framed import Event, FramingError, OnEvent, shown, too_large

__all__ = ["JsonSeq"]

_WHAT = "a JSON element"
_SPACE = b" \t\n\r"
# Searched with ``re`` from a position: linear, where ``bytes.find`` for each of two bytes could be quadratic.
_BARE_END = re.compile(rb'[ \t\n\r,\[\]{}":]')
_STRING_STOP = re.compile(rb'["\\]')
_STRUCTURE = re.compile(rb'["{}\[\]]')
# JSON lines: a line end ends a value too.
_LINE_STRING_STOP = re.compile(rb'["\\\n\r]')
_LINE_STRUCTURE = re.compile(rb'["{}\[\]\n\r]')
_NOT_SPACE = re.compile(rb"[^ \t\n\r]")


class JsonSeq:
    """The framer of a JSON-lines or JSON-array body."""

    def __init__(self, limit: int, *, array: bool) -> None:
        """Frame an ``array`` body, or JSON lines; hold no element longer than ``limit`` bytes."""
        self._limit = limit
        self._array = array
        # "open" (an array before its ``[``), "between", "after" (an array after an element), "next" (after ``,``),
        # "element", "closed" (after the array's ``]``).
        self._stage = "open" if array else "between"
        self._kind = ""  # of the element being read: "container", "string" or "bare"
        self._held = bytearray()
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._elements = 0

    def feed(self, data: bytes, on_event: OnEvent) -> None:
        """Read ``data``, calling ``on_event`` for each element it completes."""
        at = 0
        start = 0  # where the element being read begins in ``data`` (0: it began in an earlier read and is held)
        while at < len(data):
            if self._stage == "element":
                end = self._element_end(data, at)
                if end is None:
                    self._hold(data[start:])
                    return
                self._emit(data[start:end], on_event)
                at = end
                continue
            content = _NOT_SPACE.search(data, at)
            if content is None:
                return
            at = content.start()
            self._between(data[at])
            start = at
            at += 1
        if self._stage == "element":
            self._hold(data[start:])

    def _between(self, byte: int) -> None:
        """A byte between elements that is not whitespace: punctuation of the array, or an element's first byte."""
        stage = self._stage
        if stage == "open" and byte == 0x5B:
            self._stage = "between"
        elif stage == "between" and byte == 0x5D and self._array and self._elements == 0:
            self._stage = "closed"
        elif stage == "after" and byte == 0x5D:
            self._stage = "closed"
        elif stage == "after" and byte == 0x2C:
            self._stage = "next"
        elif stage == "open" or (stage in ("between", "next") and byte in b",]}:"):
            raise _broken(f"expected {self._expected()}, got", byte)
        elif stage in ("between", "next"):
            self._begin(byte)
        elif stage == "after":
            raise _broken(f"expected `,` or `]` after element {self._elements - 1} of the JSON array, got", byte)
        else:
            raise _broken("data after the end of the JSON array:", byte)

    def finish(self, on_event: OnEvent) -> None:
        """End the body: an array must have closed; a last value cut short is handed over as it is."""
        if self._array:
            if self._stage != "closed":
                raise FramingError(
                    f"the body ended inside its JSON array, after {self._elements} element(s) and before the closing "
                    "`]`: it was cut"
                )
            return
        if self._stage == "element":
            self._emit(b"", on_event)

    def _expected(self) -> str:
        if self._stage == "open":
            return "the JSON array's `[`"
        if self._stage == "next":
            return "an element after `,` in the JSON array"
        return "an element or `]` in the JSON array" if self._array else "a JSON value"

    def _begin(self, byte: int) -> None:
        self._kind = "container" if byte in b"{[" else "string" if byte == 0x22 else "bare"
        self._depth = 1 if self._kind == "container" else 0
        self._in_string = self._kind == "string"
        self._escaped = False
        self._stage = "element"

    def _element_end(self, data: bytes, at: int) -> int | None:
        """Where the element ends in ``data`` (just past it), scanning from ``at``; None when it goes on past it.

        A value of JSON lines also ends at a line end (before it), wherever it is.
        """
        if self._kind == "bare":
            bare_end = _BARE_END.search(data, at)
            return None if bare_end is None else bare_end.start()
        while True:
            step = self._string_step(data, at) if self._in_string else self._structure_step(data, at)
            if step is None:
                return None
            at, ended = step
            if ended:
                return at

    def _string_step(self, data: bytes, at: int) -> tuple[int, bool] | None:
        """Inside a string: past its next escape or its closing quote, or the element's end (a line end of lines)."""
        lines = not self._array
        if self._escaped:
            if at >= len(data):
                return None
            if lines and data[at] in b"\n\r":
                return at, True
            self._escaped = False
            return at + 1, False
        stop = (_LINE_STRING_STOP if lines else _STRING_STOP).search(data, at)
        if stop is None:
            return None
        at = stop.start()
        byte = data[at]
        if byte == 0x5C:  # a backslash: the next byte is escaped, in this read or the next
            self._escaped = True
            return at + 1, False
        if byte == 0x22:
            self._in_string = False
            return at + 1, self._kind == "string"
        return at, True  # a line end of JSON lines

    def _structure_step(self, data: bytes, at: int) -> tuple[int, bool] | None:
        """Outside strings: past the next quote or bracket, or the element's end (its closer, a line end of lines)."""
        found = (_STRUCTURE if self._array else _LINE_STRUCTURE).search(data, at)
        if found is None:
            return None
        at = found.start()
        byte = data[at]
        if byte == 0x22:
            self._in_string = True
        elif byte in b"{[":
            self._depth += 1
        elif byte in b"}]":
            self._depth -= 1
            return at + 1, self._depth == 0
        else:
            return at, True  # a line end of JSON lines
        return at + 1, False

    def _hold(self, data: bytes) -> None:
        if len(self._held) + len(data) > self._limit:
            raise too_large(_WHAT, self._limit)
        self._held += data

    def _emit(self, tail: bytes, on_event: OnEvent) -> None:
        if len(self._held) + len(tail) > self._limit:
            raise too_large(_WHAT, self._limit)
        self._elements += 1
        self._stage = "after" if self._array else "between"
        element = bytes(self._held) + tail
        self._held.clear()
        on_event(Event(b"message", element))


def _broken(problem: str, byte: int) -> FramingError:
    return FramingError(f"{problem} {shown(bytes([byte]))}")
