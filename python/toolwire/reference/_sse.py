"""Server-sent events framing, the twin of ``rust/core/src/sse.rs`` (read its module docs for the rules).

WHATWG "event stream" parsing over byte chunks split anywhere, with the same three tolerances for what real
servers send (spaces before a field name, a pending event dispatched at the end, a last line without its end) and
the same bound on an event's size. A BOM opening the body is dropped by the ``Framer`` that chose this framing.
"""

from __future__ import annotations

import re

from toolwire.reference._framed import Event, OnEvent, too_large

__all__ = ["SseFramer"]

_LINE_END = re.compile(rb"\r\n|\r|\n")
_WHAT = "a server-sent event"


class SseFramer:
    """The incremental framer of one event stream."""

    def __init__(self, limit: int) -> None:
        """Refuse events (or lines) longer than ``limit`` bytes."""
        self._limit = limit
        self._line = bytearray()
        self._data = bytearray()
        self._kind = b""
        self._has_data = False
        self._after_cr = False

    def feed(self, data: bytes, on_event: OnEvent) -> None:
        """Read ``data``, calling ``on_event`` for each event it completes."""
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

    def finish(self, on_event: OnEvent) -> None:
        """End the stream: a last line without its end is read, and a pending event dispatched."""
        if self._line:
            line = bytes(self._line)
            self._line.clear()
            self._line_done(line, on_event)
        self._dispatch(on_event)

    def _extend_line(self, data: bytes) -> None:
        if len(self._line) + len(data) + len(self._data) > self._limit:
            raise too_large(_WHAT, self._limit)
        self._line += data

    def _line_done(self, line: bytes, on_event: OnEvent) -> None:
        if not line:
            self._dispatch(on_event)
            return
        if len(line) + len(self._data) > self._limit:  # as ``_extend_line`` bounds a line that spans reads
            raise too_large(_WHAT, self._limit)
        line = line.lstrip(b" ")
        if not line or line.startswith(b":"):
            return
        field, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if field == b"data":
            if self._has_data:
                self._data += b"\n"
            self._data += value
            self._has_data = True
        elif field == b"event":
            self._kind = value

    def _dispatch(self, on_event: OnEvent) -> None:
        event = Event(self._kind or b"message", bytes(self._data)) if self._has_data else None
        self._data.clear()
        self._kind = b""
        self._has_data = False
        if event is not None:
            on_event(event)
