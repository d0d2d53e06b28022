"""Server-sent events framing, the twin of ``rust/core/src/sse.rs`` (read its module docs for the rules).

WHATWG "event stream" parsing over byte chunks split anywhere, with the same three tolerances for what real
servers send (spaces before a field name, a pending event dispatched at the end, a last line without its end) and
the same bound on an event's size. NDJSON (Ollama's streaming) shares the line splitting: a stream whose first
non-blank line opens with ``{`` is read as one event per non-blank line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["Event", "EventTooLargeError", "SseFramer"]

_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")
_ASCII_WHITESPACE = b" \t\n\r\x0c"  # Rust's ``trim_ascii``


class Event(NamedTuple):
    """One dispatched event: its ``event`` field (``b"message"`` by default) and its joined ``data``."""

    kind: bytes
    data: bytes


class EventTooLargeError(ValueError):
    """An event, or a line of one, grew past the limit."""

    def __init__(self, limit: int) -> None:
        """Name the limit."""
        self.limit = limit
        super().__init__(
            f"a server-sent event is larger than {limit} bytes (Limits.max_event_bytes); is this an event stream?"
        )


class SseFramer:
    """The incremental framer of one stream."""

    def __init__(self, limit: int) -> None:
        """Refuse events (or lines) longer than ``limit`` bytes."""
        self._limit = limit
        self._line = bytearray()
        self._data = bytearray()
        self._kind = b""
        self._has_data = False
        self._after_cr = False
        self._start = bytearray()  # the first bytes, until it is known whether they are a BOM
        self._started = False
        self._json_lines: bool | None = None  # decided by the first non-blank line

    def feed(self, data: bytes, on_event: Callable[[Event], None]) -> None:
        """Read ``data``, calling ``on_event`` for each event it completes."""
        if not self._started:
            opening = self._opening(data)
            if opening is None:
                return
            data = opening
        if self._after_cr:
            self._after_cr = False
            if data.startswith(b"\n"):
                data = data[1:]
        position = 0
        for line_end in _LINE_END.finditer(data):
            line = data[position : line_end.start()]
            position = line_end.end()
            if self._line:
                self._extend_line(line)
                line = bytes(self._line)
                self._line.clear()
            self._line_done(line, on_event)
        # A CRLF split across two reads is one line end: an LF opening the next read belongs to this CR.
        self._after_cr = data.endswith(b"\r")
        self._extend_line(data[position:])

    def _opening(self, data: bytes) -> bytes | None:
        """The stream's first bytes without a BOM; None while they could still be the start of one."""
        self._start += data
        if len(self._start) < len(_BOM) and _BOM.startswith(bytes(self._start)):
            return None
        self._started = True
        data = bytes(self._start)
        self._start.clear()
        return data.removeprefix(_BOM)

    def finish(self, on_event: Callable[[Event], None]) -> None:
        """End the stream: a last line without its end is read, and a pending event dispatched."""
        if not self._started and self._start:
            self._line += self._start
            self._start.clear()
        self._started = True
        if self._line:
            line = bytes(self._line)
            self._line.clear()
            self._line_done(line, on_event)
        self._dispatch(on_event)

    def _extend_line(self, data: bytes) -> None:
        if len(self._line) + len(data) + len(self._data) > self._limit:
            raise EventTooLargeError(self._limit)
        self._line += data

    def _json_line(self, line: bytes, on_event: Callable[[Event], None]) -> bool:
        """Whether the stream is NDJSON (then a non-blank ``line`` is an event); decided by its first non-blank line."""
        content = line.strip(_ASCII_WHITESPACE)
        if self._json_lines is None and content:
            self._json_lines = content.startswith(b"{")
        if self._json_lines and content:
            on_event(Event(b"message", line))
        return bool(self._json_lines)

    def _line_done(self, line: bytes, on_event: Callable[[Event], None]) -> None:
        if self._json_lines is not False and self._json_line(line, on_event):
            return
        if not line:
            self._dispatch(on_event)
            return
        line = line.lstrip(b" ")
        if not line or line.startswith(b":"):
            return
        field, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if field == b"data":
            if len(self._data) + len(value) + 1 > self._limit:
                raise EventTooLargeError(self._limit)
            if self._has_data:
                self._data += b"\n"
            self._data += value
            self._has_data = True
        elif field == b"event":
            self._kind = value

    def _dispatch(self, on_event: Callable[[Event], None]) -> None:
        event = Event(self._kind or b"message", bytes(self._data)) if self._has_data else None
        self._data.clear()
        self._kind = b""
        self._has_data = False
        if event is not None:
            on_event(event)
