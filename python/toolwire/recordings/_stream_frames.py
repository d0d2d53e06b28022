"""A recorded stream cut into events, with where each event's text lies in the bytes; and the bytes rewritten.

A body is read in the framing the engine tells from its first bytes (``toolwire._core.framing_of``, the core's own
rule): server-sent events are the ``data:`` lines up to a blank line (CRLF, LF or CR line ends); JSON lines (Ollama) a
line each; a JSON array (Gemini) an element each, as the core frames it (``toolwire._core.frame_body``); AWS
event-stream messages (Bedrock) each message's payload, the messages the core frames (``toolwire._common._eventstream``). A body of no framing is read as server-sent events, which finds its
text outside every event. Recorded chunks are one compact JSON line each. Each event's text is kept with where each of
its lines lies in the bytes, so that a rewrite found in the text lands on the bytes that spell it, and with its string
and number tokens (``toolwire.recordings._jsonspans``). What lies outside every event's data (field names, comments,
keep-alives, data that is not UTF-8, a JSON array's brackets and commas, an AWS message's string headers) is kept as
byte spans, to be searched as it is; an AWS message's prelude, other headers and CRC are not text. A JSON array or AWS
body whose framing breaks (a cut, a bad CRC) is read up to the break: the rest is its ``tail``.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final

from toolwire._common._eventstream import Message, messages
from toolwire._core import frame_body, framing_of
from toolwire.recordings._jsonspans import decode, decode_spans, leaves

__all__ = ["Frame", "Reading", "apply_edits", "per_character", "read_body", "read_chunks"]

_LINE: Final = re.compile(rb"([^\r\n]*)(\r\n|\r|\n|\Z)")
_BOM: Final = b"\xef\xbb\xbf"
_SPACE: Final = re.compile(rb"[ \t\r\n]*")
#: A rewrite of the bytes: ``(start, end, replacement)``.
Edit = tuple[int, int, bytes]


class Frame:
    """One event's text, where each of its lines lies in the bytes, and its string and number tokens.

    Attributes:
        text: The event's data lines, joined by line feeds.
        leaves: Its string and number tokens; the event's own members are the wire format's, never secret by their
            names (a logprob's ``"token"``).
        cursor: The leaf after the last one a fragment claimed in document order (``toolwire.recordings._stream_pieces``).
    """

    __slots__ = (
        "_by_value",
        "_offsets",
        "_starts",
        "_values",
        "ascii",
        "cursor",
        "data_offsets",
        "leaves",
        "starts",
        "text",
    )

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        """An event from its lines: where each starts in the bytes, and its text."""
        self.text = "\n".join(line for _, line in lines)
        self.ascii = self.text.isascii()
        self.data_offsets = [offset for offset, _ in lines]
        self.starts: list[int] = []
        position = 0
        for _, line in lines:
            self.starts.append(position)
            position += len(line) + 1
        self.leaves = list(leaves(self.text))
        self._values: dict[int, str] = {}
        self._offsets: dict[int, Sequence[int]] = {}
        self._by_value: dict[tuple[bool, str], list[int]] | None = None
        self._starts: list[int] | None = None
        self.cursor = 0

    def value(self, leaf: int) -> str:
        """The decoded value of string leaf number ``leaf``."""
        if leaf not in self._values:
            token = self.leaves[leaf]
            self._values[leaf] = decode(self.text, token.start, token.end)
        return self._values[leaf]

    def spelled(self, spelling: str, first: int) -> int | None:
        """The first string value leaf from leaf ``first`` on spelled exactly ``spelling`` (its quotes included)."""
        if self._starts is None:
            self._starts = [leaf.start for leaf in self.leaves]
        position = self.leaves[first].start if first < len(self.leaves) else len(self.text)
        while (position := self.text.find(spelling, position)) >= 0:
            number = bisect.bisect_left(self._starts, position)
            if number < len(self.leaves):
                leaf = self.leaves[number]
                if leaf.start == position and leaf.end == position + len(spelling) and leaf.string and not leaf.key:
                    return number
            position += 1
        return None

    def strings_equal_to(self, value: str, *, keys: bool = False) -> list[int]:
        """The string leaves (values, or keys with ``keys``) whose decoded value is ``value``, in document order."""
        if self._by_value is None:
            self._by_value = {}
            for number, leaf in enumerate(self.leaves):
                if leaf.string:
                    self._by_value.setdefault((leaf.key, self.value(number)), []).append(number)
        return self._by_value.get((keys, value), [])

    def offsets(self, leaf: int) -> Sequence[int]:
        """Where each character of string leaf number ``leaf`` is spelled (see ``decode_spans``)."""
        if leaf not in self._offsets:
            token = self.leaves[leaf]
            self._offsets[leaf] = decode_spans(self.text, token.start, token.end)[1]
        return self._offsets[leaf]

    def lines(self) -> Iterator[tuple[int, int]]:
        """The byte span of each of the event's lines."""
        for line, offset in enumerate(self.data_offsets):
            yield offset, offset + self._bytes(self.starts[line], self._line_end(line))

    def data_edits(self, rewrites: list[tuple[int, int, str]]) -> list[Edit]:
        """Rewrites of the text (ascending, disjoint) as rewrites of the bytes, in one pass over the text.

        A rewrite that spans a line join (data that is not JSON) is split there, its replacement in its first part. A
        rewrite of a character each is split at every character of several bytes, so that each edit either keeps its
        length or is one character's spelling (see ``apply_edits``).
        """
        edits: list[Edit] = []
        line = 0
        char, byte = 0, self.data_offsets[0]  # a position in the text, and where it is in the bytes
        for start, end, replacement in rewrites if self.ascii else per_character(rewrites, self._wide):
            encoded = replacement.encode("utf-8")
            while start < end:
                while line + 1 < len(self.starts) and self.starts[line + 1] <= start:
                    line += 1
                    char, byte = self.starts[line], self.data_offsets[line]
                stop = min(end, self._line_end(line))
                if stop > start:
                    begin = byte + self._bytes(char, start)
                    finish = begin + self._bytes(start, stop)
                    edits.append((begin, finish, encoded))
                    encoded = b""
                    char, byte = stop, finish
                if line + 1 >= len(self.starts):
                    break
                start = max(stop, self.starts[line + 1])
        return edits

    def _wide(self, position: int) -> bool:
        return not self.text[position].isascii()

    def _line_end(self, line: int) -> int:
        return self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)

    def _bytes(self, start: int, end: int) -> int:
        return end - start if self.ascii else len(self.text[start:end].encode("utf-8"))


def per_character(
    rewrites: Iterable[tuple[int, int, str]], wide: Callable[[int], bool]
) -> Iterator[tuple[int, int, str]]:
    """Rewrites that replace each character by one cut at every character ``wide`` says is spelled with several units.

    Each rewrite then either keeps its length or is one character's spelling, so that a read boundary inside a
    character that became one ``*`` moves no further than that ``*`` (``apply_edits``).
    """
    for start, end, replacement in rewrites:
        if len(replacement) != end - start:
            yield start, end, replacement
            continue
        run = start
        for position in range(start, end):
            if wide(position):
                if run < position:
                    yield run, position, replacement[run - start : position - start]
                yield position, position + 1, replacement[position - start]
                run = position + 1
        if run < end:
            yield run, end, replacement[run - start :]


class Reading:
    """A stream cut into events.

    Attributes:
        raw: Whether the stream is bytes (its feeds are bytes) rather than chunks (its feeds are the chunks).
        framing: The body's framing as the engine tells it (``"sse"``, ``"json-lines"``, ``"json-array"``,
            ``"aws-event-stream"``), None for chunks and for a body of no framing.
        frames: Each event's frame; None when its data is not UTF-8.
        feeds: What the engine reads for each event: the bytes from the end of the previous event to the end of this
            one (field lines, comments and its blank line included), or the chunk.
        alone: What an engine that has read nothing yet reads for each event (a JSON array's element needs its ``[``).
        outside: The byte spans outside every event's data that are text.
        messages: An AWS body's messages, as far as it frames.
        tail: Where the bytes that do not frame begin (a JSON array or AWS body that breaks), else None.
        broken: Why they do not frame (the engine's framing error), else None.
    """

    def __init__(self, raw: bool, framing: str | None = None) -> None:
        """An empty reading."""
        self.raw = raw
        self.framing = framing
        self.frames: list[Frame | None] = []
        self.feeds: list[Any] = []
        self.alone: list[Any] = []
        self.outside: list[tuple[int, int]] = []
        self.messages: list[Message] = []
        self.tail: int | None = None
        self.broken: str | None = None

    def add(self, lines: list[tuple[int, bytes]], feed: Any, alone: Any = None) -> None:
        """Add an event from its data lines (where each value starts in the bytes, and its bytes)."""
        try:
            frame: Frame | None = Frame([(offset, line.decode("utf-8")) for offset, line in lines])
        except UnicodeDecodeError:
            frame = None
        self.frames.append(frame)
        self.feeds.append(feed)
        self.alone.append(feed if alone is None else alone)

    def close(self, data: bytes) -> None:
        """Note the byte spans outside the events' data (up to the tail), once every event is in."""
        position = 0
        stop = len(data) if self.tail is None else self.tail
        for frame in self.frames:
            for start, end in frame.lines() if frame is not None else ():
                if start > position:
                    self.outside.append((position, start))
                position = end
        if position < stop:
            self.outside.append((position, stop))


def _event_lines(data: bytes, json_lines: bool) -> Iterator[tuple[list[tuple[int, bytes]], int]]:
    """Each event's data lines (where the value starts, its bytes) and where the event ends in the bytes."""
    lines: list[tuple[int, bytes]] = []
    for match in _LINE.finditer(data):
        start, content_end = match.span(1)
        if start == match.end():
            break
        content = match.group(1)
        if json_lines:
            if content.strip():
                yield [(start, content)], match.end()
        elif not content:
            if lines:
                yield lines, match.end()
            lines = []
        elif content.startswith(b"data:"):
            value = start + 5 + (content[5:6] == b" ")
            lines.append((value, data[value:content_end]))
    if lines:
        yield lines, len(data)


def read_body(data: bytes) -> Reading:
    """A raw body's events, in the framing the engine tells from its first bytes."""
    framing = framing_of(data)
    if framing not in ("json-array", "aws-event-stream"):
        return _lines(data, framing)
    _, events, broken = frame_body(data, len(data) + 1)
    reading = _array(data, events) if framing == "json-array" else _messages(data, len(events))
    framed = sum(map(len, reading.feeds))  # the feeds run from the first byte to the end of the last event
    if broken is not None:
        reading.broken, reading.tail = broken, framed
    elif reading.feeds:
        reading.feeds[-1] += data[framed:]  # the array's closing bracket
        reading.alone[-1] += data[framed:]
    if reading.messages:  # an AWS message's only text outside its payload: its string headers
        reading.outside = [span for message in reading.messages for span in message.strings]
    else:
        reading.close(data)
    return reading


def _lines(data: bytes, framing: str | None) -> Reading:
    """Server-sent events, or JSON lines, read line by line (every line is read: nothing is a tail)."""
    reading = Reading(raw=True, framing=framing)
    fed = 0
    for lines, end in _event_lines(data, framing == "json-lines"):
        reading.add(lines, data[fed:end])
        fed = end
    if fed < len(data) and reading.feeds:
        reading.feeds[-1] += data[fed:]  # comments or keep-alives after the last event
        reading.alone[-1] = reading.feeds[-1]
    reading.close(data)
    return reading


def _opening(data: bytes) -> int:
    """Where a body's content starts: after a UTF-8 BOM and whitespace, as the engine reads it."""
    return _skip(data, len(_BOM) if data.startswith(_BOM) else 0)


def _array(data: bytes, elements: list[bytes]) -> Reading:
    """A JSON array's elements, as the core framed them: each where it lies (only whitespace and ``,`` between)."""
    reading = Reading(raw=True, framing="json-array")
    at = _opening(data) + 1  # past the "["
    fed = 0
    for number, element in enumerate(elements):
        start = _skip(data, at)
        if number:
            start = _skip(data, start + 1)  # past the ","
        if not data.startswith(element, start):
            raise AssertionError(f"element {number} of the JSON array is not where the core framed it")
        end = start + len(element)
        reading.add([(start, element)], data[fed:end], b"[" + element)
        fed = at = end
    return reading


def _skip(data: bytes, at: int) -> int:
    """Where the whitespace at ``at`` ends."""
    match = _SPACE.match(data, at)  # always matches, if only the empty run
    return match.end() if match else at


def _messages(data: bytes, count: int) -> Reading:
    """An AWS body's messages, as far as the core framed them: each one's payload is an event's text."""
    reading = Reading(raw=True, framing="aws-event-stream")
    reading.messages = messages(data, _opening(data), count)
    fed = 0
    for message in reading.messages:
        payload = data[message.payload : message.end - 4]
        reading.add([(message.payload, payload)], data[fed : message.end], data[message.start : message.end])
        fed = message.end
    return reading


def read_chunks(texts: list[str]) -> tuple[Reading, bytes]:
    """Recorded chunks (each a compact JSON text) as JSON lines: an event each, fed to the engine as the chunk."""
    reading = Reading(raw=False)
    offset = 0
    parts = []
    for text in texts:
        encoded = text.encode("utf-8")
        reading.add([(offset, encoded)], json.loads(text))
        parts.append(encoded + b"\n")
        offset += len(encoded) + 1
    data = b"".join(parts)
    reading.close(data)
    return reading, data


def apply_edits(data: bytes, edits: list[Edit], cuts: list[int]) -> tuple[bytes, list[int]]:
    """Apply ascending rewrites, moving the cuts (read boundaries) with them.

    A cut inside a rewritten span stays where it was when the span keeps its length (masked ASCII), else moves to the
    span's end (an escape became one ``*``).
    """
    out = bytearray()
    moved: list[int] = []
    position = 0
    pending = iter(cuts)
    cut = next(pending, None)
    for start, end, replacement in edits:
        if start < position:
            continue  # inside a span already rewritten
        while cut is not None and cut <= start:
            moved.append(cut - position + len(out))
            cut = next(pending, None)
        out += data[position:start]
        kept = len(replacement) == end - start
        while cut is not None and cut < end:
            moved.append(len(out) + (cut - start if kept else len(replacement)))
            cut = next(pending, None)
        out += replacement
        position = end
    while cut is not None:
        moved.append(cut - position + len(out))
        cut = next(pending, None)
    out += data[position:]
    return bytes(out), moved
