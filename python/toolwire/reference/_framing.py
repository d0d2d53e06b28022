"""Raw bodies: which framing a body uses, told from its first bytes; the twin of ``rust/core/src/framing.rs``.

A body is server-sent events (``_sse``), JSON lines or one JSON array (``_json_seq``), or AWS event-stream messages
(``_aws_frames``). After a UTF-8 BOM and ASCII whitespace, ``{`` is JSON lines, ``[`` a JSON array, a comment or a
field name (``data``, ``event``, ``id``, ``retry``) followed by ``:`` or a line end server-sent events, and twelve
bytes forming an AWS prelude (its CRC32, sane lengths) AWS messages; anything else is refused, naming its first
bytes. A source's items are reads or lines, told from the stream (an item with a line end says reads, an empty item
after a non-empty one says lines; items are held until then, within the limit); the items of a body of any other
framing are reads. Every framing holds at most the limit (``Limits.max_event_bytes``); a body that failed to frame
stays failed. Read the Rust module's documentation for the reasons.
"""

from __future__ import annotations

import re

from toolwire.reference._aws_frames import PRELUDE, AwsFrames, prelude_fits
from toolwire.reference._framed import Event, FramingError, OnEvent, shown, too_large, unrecognized
from toolwire.reference._json_seq import JsonSeq
from toolwire.reference._sse import SseFramer

__all__ = ["Event", "Framer", "FramingError", "shown"]

_BOM = b"\xef\xbb\xbf"
_SPACE = b" \t\n\r"
_NOT_SPACE = re.compile(rb"[^ \t\n\r]")
_SHOWN = 32
_FIELDS = (b"data", b"event", b"id", b"retry")
# The bytes that may open an event stream's first line: a field name's first letter, or a comment.
_SSE_OPENINGS = frozenset(b"deir:")
_WORD = 8  # what the Rust twin counts for each held item's start (a usize)


class Framer:
    """The framer of one raw body, fed reads (split anywhere) or a source's items (reads or lines)."""

    def __init__(self, limit: int) -> None:
        """Refuse events (and anything held towards one) longer than ``limit`` bytes."""
        self._limit = limit
        self._framer: SseFramer | JsonSeq | AwsFrames | None = None
        self._failed: FramingError | None = None
        # The opening: BOM bytes matched so far (3 once settled), the first bytes held, and whether they were refused.
        self._bom = 0
        self._held = bytearray()
        self._refused = False
        # How items join: None until told (``_items`` held, ``_starts`` where each began), else lines or reads.
        self._lines: bool | None = None
        self._items = bytearray()
        self._starts: list[int] = []
        self._first: int | None = None  # the body's first byte that is not whitespace, once one came

    def feed(self, data: bytes, on_event: OnEvent) -> None:
        """Read the next bytes of the body, calling ``on_event`` for each event they complete, in order."""
        if self._failed is not None:
            raise self._failed
        if self._framer is None:
            rest = self._opening(data)
            if rest is None:
                return
            held = bytes(self._held)
            self._held.clear()
            self._framed(held, on_event)
            data = rest
        self._framed(data, on_event)

    def feed_item(self, item: bytes, on_event: OnEvent) -> None:
        """Read one item of a raw source: a read or a line, as the stream tells."""
        if self._failed is not None:
            raise self._failed
        if self._lines is not None:
            self.feed(item, on_event)
            if self._lines:
                self.feed(b"\n", on_event)
            return
        if not item:
            if not self._items:
                return  # an empty item before anything: no evidence either way, and nothing to frame
            self._lines = True
            self._replay_lines(on_event)
            self.feed(b"\n", on_event)
            return
        if self._first is None:
            content = _NOT_SPACE.search(item.removeprefix(_BOM) if not self._items else item)
            self._first = None if content is None else content.group()[0]
        # Only an event stream needs telling: the items of any other framing (by its opening) join as reads.
        may_be_lines = self._first is None or self._first in _SSE_OPENINGS
        if not may_be_lines or b"\n" in item or b"\r" in item:
            self._lines = False
            held = bytes(self._items)
            self._items.clear()
            self._starts.clear()
            self.feed(held, on_event)
            self.feed(item, on_event)
            return
        if len(self._items) + len(item) + (len(self._starts) + 1) * _WORD > self._limit:
            raise self._fail(too_large("the stream's opening run of items without a line end", self._limit))
        self._starts.append(len(self._items))
        self._items += item

    def finish(self, on_event: OnEvent) -> None:
        """End the body: items still held are lines, an event pending is dispatched, a cut body fails."""
        if self._lines is None:
            self._lines = True
            self._replay_lines(on_event)
        if self._failed is not None:
            raise self._failed
        if self._framer is None:
            if self._refused or not (not self._held or bytes(self._held) in _FIELDS):
                raise self._fail(unrecognized(bytes(self._held)))
            return
        try:
            self._framer.finish(on_event)
        except FramingError as error:
            raise self._fail(error) from None

    def _replay_lines(self, on_event: OnEvent) -> None:
        held, starts = bytes(self._items), self._starts
        self._items = bytearray()
        self._starts = []
        for start, end in zip(starts, [*starts[1:], len(held)], strict=False):  # no item held: no line
            self.feed(held[start:end], on_event)
            self.feed(b"\n", on_event)

    def _framed(self, data: bytes, on_event: OnEvent) -> None:
        if self._framer is None:
            return
        try:
            self._framer.feed(data, on_event)
        except FramingError as error:
            raise self._fail(error) from None

    def _fail(self, error: FramingError) -> FramingError:
        self._failed = error
        return error

    def _opening(self, data: bytes) -> bytes | None:
        """The rest of ``data`` once its opening told the framing (the framer is then made); None while it has not."""
        at = 0
        while self._bom < len(_BOM):
            if at == len(data):
                return None
            if data[at] == _BOM[self._bom]:
                self._bom += 1
                at += 1
            else:
                self._held += _BOM[: self._bom]  # a broken BOM: its bytes are the body's first
                self._bom = len(_BOM)
        if not self._held:
            content = _NOT_SPACE.search(data, at)
            at = len(data) if content is None else content.start()
        if self._refused:
            self._collect(data[at:])
            return None
        while at < len(data):
            self._held.append(data[at])
            at += 1
            verdict = _tell(bytes(self._held))
            if verdict == "not":
                self._refused = True
                self._collect(data[at:])
                return None
            if verdict is not None:
                self._framer = self._framer_for(verdict)
                return data[at:]
        return None

    def _framer_for(self, framing: str) -> SseFramer | JsonSeq | AwsFrames:
        if framing == "sse":
            return SseFramer(self._limit)
        if framing == "aws":
            return AwsFrames(self._limit)
        return JsonSeq(self._limit, array=framing == "array")

    def _collect(self, data: bytes) -> None:
        """Collect the first bytes of a refused body (up to ``_SHOWN``), then refuse it, naming them."""
        self._held += data[: max(0, _SHOWN - len(self._held))]
        if len(self._held) >= _SHOWN:
            raise self._fail(unrecognized(bytes(self._held)))


def _tell(opening: bytes) -> str | None:
    """What a body's first bytes say its framing is: a name, ``"not"``, or None while they cannot tell yet."""
    first = opening[0]
    if first == 0x7B:  # {
        return "lines"
    if first == 0x5B:  # [
        return "array"
    if first == 0x3A:  # :
        return "sse"
    if chr(first).isascii() and chr(first).isalpha():
        for field in _FIELDS:
            if len(opening) <= len(field):
                if field.startswith(opening):
                    return None
            elif opening.startswith(field) and opening[len(field)] in b":\n\r":
                return "sse"
        return "not"
    if len(opening) < PRELUDE:
        return None
    return "aws" if prelude_fits(opening[:PRELUDE]) else "not"
