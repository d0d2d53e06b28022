r"""Secrets out of a recorded stream by meaning: found where the stream's values are whole, rewritten where they came.

A model streams a key in pieces (``"sk-p"``, ``"roj-"``, ...), in arguments that are JSON text inside JSON events, where
a character may be spelled as an escape (``\u0073``, ``\\u0073`` in the event) cut between two events; no regex
over the bytes sees it. So the stream is read the way ``toolstream.reassemble`` reads it:

1. The bytes are cut into events (server-sent events, or JSON lines), each event's JSON text kept with where each
   of its lines lies in the bytes; recorded chunks are one JSON line each.
2. The core engine reads the events one at a time with progress on, which tells, for each event, the argument
   fragments it added to each call and the content text it added to each choice. Each fragment is found among the
   event's string values: the one it equals, or, for a call the engine spells itself (Gemini's ``partialArgs``),
   the one whose JSON spelling ends it.
3. Each call's whole arguments text and each choice's whole text is searched: every string value in it (decoded,
   keys too), the text as it stands, and the values of members whose name says secret (``password``, ``token``,
   ...). Every other string of every event (a ``.done`` event's arguments, an echoed request, a whole call's
   ``args`` object) is searched the same way on its own, with the members of the event itself.
4. Each character of a secret is rewritten in the event and string it came in: its spelling (one character, an
   escape, the halves of an escape cut between events) becomes one ``*`` where it starts and nothing elsewhere;
   a secret member's number keeps its shape (``4821`` gives ``1000``). Lines, events and every JSON text stay
   valid, and the stream replays to the same calls with the secrets masked; network reads keep their order, a
   read boundary inside a rewritten spelling moving to its end.
5. Text outside the events (comments, event names, data that is not UTF-8) is searched for the detectors'
   patterns as it is.

Then the rewritten stream is read again the same way: a secret still found (one the engine carried in a shape this
module cannot place) raises ``ValueError`` and nothing is written. An event the engine cannot read is searched on its
own: a secret split across such events is not seen.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any, Final

from toolstream._choice import ToolChoice
from toolstream._core import Engine
from toolstream._jsonspans import Leaf, decode, decode_spans, leaves
from toolstream._model import Limits
from toolstream._redact import MASK, Redactor, number_units
from toolstream._stream_frames import Edit, Frame, Reading, apply_edits, read_chunks, read_events
from toolstream.errors import MalformedChunkError

__all__ = ["redact_chunks", "redact_stream"]

# What may follow, in a fragment the engine spells, the string it ends with (Gemini closes containers after it).
_CLOSERS: Final = frozenset('"]},: \t\r\n')
_TRAILING_NUMBER: Final = re.compile(r'(-?[0-9][0-9.eE+-]*)["\]},:\s]*\Z')
# How many events before the one that completed it a fragment is looked for in (Anthropic reports a tool_use block's
# input given at its start only when the block ends): bounded, so that a hostile stream costs linear time.
_LOOK_BACK: Final = 16


class _Edits:
    """The rewrites found in the events' texts: (frame, start) -> (end, replacement)."""

    def __init__(self, frames: list[Frame | None]) -> None:
        self.frames = frames
        self.found: dict[tuple[int, int], tuple[int, str]] = {}

    def frame(self, index: int) -> Frame:
        """Event ``index``'s frame (one that has rewrites has one)."""
        frame = self.frames[index]
        assert frame is not None, "an event without a frame has no strings to rewrite"
        return frame

    def chars(self, frame: int, leaf: int, chars: list[int] | range, replacement: str, head: bool) -> bool:
        """Rewrite characters of a string leaf: the first (when ``head``) to ``replacement``, the others to nothing.

        Returns:
            Whether the replacement is still to be placed (by the next part of the same unit).
        """
        offsets = self.frame(frame).offsets(leaf)
        for char in chars:
            self.found.setdefault((frame, offsets[char]), (offsets[char + 1], replacement if head else ""))
            head = False
        return head

    def number(self, frame: int, leaf: int) -> None:
        """Mask a number leaf's digits."""
        event = self.frame(frame)
        token = event.leaves[leaf]
        for start, end, replacement in number_units(event.text, token.start, token.end):
            self.found.setdefault((frame, start), (end, replacement))


class _Piece:
    """A fragment of a channel (a call's arguments, a choice's text), where it lies there, and what carried it.

    What carried it, in the order it is looked for among the event's leaves:

    - the strings whose value it is (``copies``: every one, since a provider may repeat a piece, as a logprob's
      ``token`` repeats a text delta, and all of them are rewritten alike);
    - the JSON text of a value the event holds as JSON (``run``: a whole call's ``args`` object), leaf for leaf;
    - the string (``spelled``) or number (``number``) whose JSON spelling ends it, in a call the engine spells itself
      from the event's values (Gemini's ``partialArgs``);
    - nothing known: a fragment of JSON syntax, or one this module does not place (see ``_checked``).
    """

    __slots__ = ("copies", "frame", "length", "number", "offset", "run", "spelled", "text")

    def __init__(self, offset: int, text: str, frame: int) -> None:
        self.offset = offset
        self.length = len(text)
        self.text = text
        self.frame = frame
        self.copies: list[int] = []
        self.run: list[tuple[Leaf, int]] | None = None  # the fragment's leaves, and the event's leaves they are
        self.spelled: tuple[int, int] | None = None  # the leaf, and where its spelling starts in the fragment
        self.number: int | None = None

    def attribute(self, frame: Frame, claimed: set[int]) -> bool:
        """Find what carried the fragment among the event's leaves; the leaves found are ``claimed``.

        Returns:
            Whether it was found.
        """
        spelled = json.dumps(self.text, ensure_ascii=False)
        values = [number for number, leaf in enumerate(frame.leaves) if leaf.string and not leaf.key]
        self.copies = [
            number
            for number in values
            if frame.text[frame.leaves[number].start : frame.leaves[number].end] == spelled
            or frame.value(number) == self.text
        ]
        if self.copies:
            claimed.update(self.copies)
            return True
        if self.text.lstrip()[:1] in ("{", "["):
            self.run = _align(self.text, frame, claimed)
            if self.run is not None:
                claimed.update(number for _, number in self.run)
                return True
        self.spelled = self._ending_string(frame, [number for number in values if number not in claimed])
        if self.spelled is not None:
            claimed.add(self.spelled[0])
            return True
        self.number = self._ending_number(frame, claimed)
        if self.number is not None:
            claimed.add(self.number)
            return True
        return False

    def _ending_string(self, frame: Frame, free: list[int]) -> tuple[int, int] | None:
        """The longest string whose JSON spelling ends the fragment (JSON syntax may follow), and where it starts."""
        best: tuple[int, int] | None = None
        for number in free:
            spelled = json.dumps(frame.value(number), ensure_ascii=False)[1:-1]
            at = self.text.rfind(spelled) if spelled else -1
            if at >= 0 and _CLOSERS.issuperset(self.text[at + len(spelled) :]) and (best is None or at < best[1]):
                best = (number, at)
        return best

    def _ending_number(self, frame: Frame, claimed: set[int]) -> int | None:
        """The number whose value ends the fragment (JSON syntax may follow)."""
        match = _TRAILING_NUMBER.search(self.text)
        if match is None:
            return None
        for number, leaf in enumerate(frame.leaves):
            if (
                not leaf.string
                and number not in claimed
                and _equal_numbers(match[1], frame.text[leaf.start : leaf.end])
            ):
                return number
        return None

    def place(self, edits: _Edits, low: int, high: int, replacement: str, head: bool) -> bool:
        """Rewrite the fragment's characters ``[low, high)`` where they came from; see ``_Edits.chars``."""
        if self.copies:
            for leaf in self.copies:
                placed = edits.chars(self.frame, leaf, range(low, high), replacement, head)
            return placed
        if self.spelled is not None:
            leaf, at = self.spelled
            ends = [0]
            for char in edits.frame(self.frame).value(leaf):
                ends.append(ends[-1] + len(json.dumps(char, ensure_ascii=False)) - 2)
            chars = [k for k in range(len(ends) - 1) if at + ends[k] < high and at + ends[k + 1] > low]
            return edits.chars(self.frame, leaf, chars, replacement, head)
        if self.number is not None:
            edits.number(self.frame, self.number)
            return head
        for mine, theirs in self.run or ():
            if mine.end <= low or mine.start >= high:
                continue
            if not mine.string:
                edits.number(self.frame, theirs)
                continue
            offsets = decode_spans(self.text, mine.start, mine.end)[1]
            chars = [k for k in range(len(offsets) - 1) if offsets[k] < high and offsets[k + 1] > low]
            head = edits.chars(self.frame, theirs, chars, replacement, head)
        return head

    @property
    def placed(self) -> bool:
        """Whether what carried the fragment is known."""
        return bool(self.copies) or self.run is not None or self.spelled is not None or self.number is not None


def _align(fragment: str, frame: Frame, claimed: set[int]) -> list[tuple[Leaf, int]] | None:
    """The event's leaves that a JSON fragment's leaves are, in order (strings equal, numbers of equal value)."""
    mine = list(leaves(fragment))
    if not mine:
        return None
    theirs = frame.leaves
    for first in range(len(theirs) - len(mine) + 1):
        if all(first + k not in claimed and _same(fragment, leaf, frame, first + k) for k, leaf in enumerate(mine)):
            return [(leaf, first + k) for k, leaf in enumerate(mine)]
    return None


def _same(fragment: str, leaf: Leaf, frame: Frame, number: int) -> bool:
    other = frame.leaves[number]
    if leaf.string != other.string or leaf.key != other.key:
        return False
    if leaf.string:
        return decode(fragment, leaf.start, leaf.end) == frame.value(number)
    return _equal_numbers(fragment[leaf.start : leaf.end], frame.text[other.start : other.end])


def _equal_numbers(spelled: str, other: str) -> bool:
    """Whether two spellings are the same number (the engine writes a number its own way: ``1e2`` as ``100.0``)."""
    try:
        return spelled == other or float(spelled) == float(other)
    except ValueError:
        return False


class _Channels:
    """The fragments of every call's arguments and every choice's text, in order, with what carried them."""

    def __init__(self) -> None:
        self.pieces: dict[tuple[str, int], list[_Piece]] = {}
        self.lengths: dict[tuple[str, int], int] = {}

    def add(
        self, progress: list[tuple[Any, ...]], index: int, frames: list[Frame | None], claimed: list[set[int]]
    ) -> None:
        """Take the fragments the engine reported once it had read event ``index``, and find what carried each."""
        for step in progress:
            if step[0] == "arguments":
                channel, fragment = ("arguments", step[1]), step[3]
            elif step[0] == "text":
                channel, fragment = ("text", step[1]), step[2]
            else:
                continue
            if not isinstance(fragment, str) or not fragment:
                continue
            piece = _Piece(self.lengths.get(channel, 0), fragment, index)
            # A value given whole (JSON text) may have come some events before the one that completed it.
            reach = _LOOK_BACK if fragment.lstrip()[:1] in ("{", "[") else 1
            for back in range(index, max(index - reach, -1), -1):
                frame = frames[back]
                if frame is not None and piece.attribute(frame, claimed[back]):
                    piece.frame = back
                    break
            self.pieces.setdefault(channel, []).append(piece)
            self.lengths[channel] = piece.offset + piece.length

    def place(self, edits: _Edits, redactor: Redactor) -> int:
        """Search each channel whole, and rewrite each unit found in the pieces it spans.

        Returns:
            How many units change their channel (placed or not: a stream already masked has none).
        """
        changes = 0
        for pieces in self.pieces.values():
            starts = [piece.offset for piece in pieces]
            text = "".join(piece.text for piece in pieces)
            for start, end, replacement in redactor.units(text):
                changes += text[start:end] != replacement
                head = True
                index = max(bisect.bisect_right(starts, start) - 1, 0)
                while index < len(pieces) and pieces[index].offset < end:
                    piece = pieces[index]
                    index += 1
                    low = max(start, piece.offset) - piece.offset
                    high = min(end, piece.offset + piece.length) - piece.offset
                    if high > low:
                        head = piece.place(edits, low, high, replacement, head)
        return changes


def _engine(format: str, size: int) -> Engine:
    # Limits as large as the stream itself: no call of the recording may stop being read before its end.
    limits = Limits(max_argument_bytes=size, max_calls=max(size, 256), max_event_bytes=size)
    return Engine(tool_choice=ToolChoice(), emit="call_end", limits=limits, format=format, progress=True)


def _read(reading: Reading, size: int, format: str) -> tuple[_Channels, list[set[int]]]:
    """Read the events through the engine: every channel's pieces, and which of each event's leaves they claimed."""
    frames = reading.frames
    channels = _Channels()
    claimed: list[set[int]] = [set() for _ in frames]
    engine = _engine(format, size)
    for index, feed in enumerate(reading.feeds):
        try:
            if reading.raw:
                engine.feed_bytes(feed)
            else:
                engine.feed(feed)
        except (MalformedChunkError, ValueError):
            # The engine cannot read this event: its strings are searched on their own, and a fresh engine reads on.
            engine = _engine(format, size)
            continue
        channels.add(engine.take_progress(), index, frames, claimed)
    try:
        engine.end()
    except (MalformedChunkError, ValueError):
        return channels, claimed
    if frames:
        channels.add(engine.take_progress(), len(frames) - 1, frames, claimed)
    return channels, claimed


def _find(reading: Reading, data: bytes, redactor: Redactor, format: str) -> tuple[list[Edit], int]:
    """Every rewrite of the stream and how many units change a channel (see ``_Channels.place``).

    The rewrites are in byte coordinates, ascending, those that change nothing left out.
    """
    edits = _Edits(reading.frames)
    channels, claimed = _read(reading, len(data) + 1, format)
    changes = channels.place(edits, redactor)
    for index, frame in enumerate(reading.frames):
        if frame is not None:
            _search_event(edits, index, frame, claimed[index], redactor)
    found: list[Edit] = []
    for (index, start), (end, replacement) in edits.found.items():
        for number, (data_start, data_end) in enumerate(edits.frame(index).data_spans(start, end)):
            found.append((data_start, data_end, replacement.encode("utf-8") if number == 0 else b""))
    for begin, finish in reading.outside:
        text = data[begin:finish].decode("latin-1")  # a character per byte: its spans are byte spans
        found += [(begin + i, begin + i + 1, b"*") for start, end in redactor.spans(text) for i in range(start, end)]
    return sorted(edit for edit in found if data[edit[0] : edit[1]] != edit[2]), changes


def _search_event(edits: _Edits, index: int, frame: Frame, claimed: set[int], redactor: Redactor) -> None:
    """Every string of an event that no channel took, searched on its own; and the event's text outside strings."""
    if not redactor.may_hold(frame.text):
        return
    free = [number for number, leaf in enumerate(frame.leaves) if leaf.string and number not in claimed]
    if redactor.may_hold("\0".join(frame.value(number) for number in free)):
        for number in free:
            for start, end, replacement in redactor.units(frame.value(number)):
                edits.chars(index, number, range(start, end), replacement, True)
    strings = [(leaf.start, leaf.end) for leaf in frame.leaves if leaf.string]
    starts = [start for start, _ in strings]
    for start, end in redactor.spans(frame.text):
        for position in range(start, end):
            inside = bisect.bisect_right(starts, position) - 1
            if inside < 0 or strings[inside][1] <= position:  # data that is not JSON: masked where it stands
                edits.found.setdefault((index, position), (position + 1, MASK))


def _checked(out: bytes, reading: Reading, redactor: Redactor, format: str, what: str) -> None:
    """Read the rewritten stream again: a secret still found there is one this module could not place."""
    remaining, changes = _find(reading, out, redactor, format)
    if remaining or changes:
        where = f"byte {remaining[0][0]} of the rewritten stream" if remaining else "a call's arguments or the text"
        raise ValueError(
            f"{what}: a secret is carried in a shape that cannot be rewritten in place ({where}), so nothing was "
            "written; record the chunks instead of the bytes, or report the stream"
        )


def redact_stream(
    data: bytes, cuts: list[int], *, format: str, json_lines: bool, redactor: Redactor, what: str = "the stream"
) -> tuple[bytes, list[int]]:
    """Rewrite every secret of a raw stream (see the module docstring).

    Args:
        data: The stream's bytes.
        cuts: Where each network read ends, ascending; moved with the rewrites.
        format: The wire format the engine reads the events as.
        json_lines: Whether the stream is JSON lines (Ollama) rather than server-sent events.
        redactor: What is secret.
        what: The stream, named in the error.

    Returns:
        The rewritten bytes and the read boundaries in them.

    Raises:
        ValueError: A secret is still found once the stream is rewritten (nothing may be written).
    """
    out, moved = apply_edits(data, _find(read_events(data, json_lines), data, redactor, format)[0], cuts)
    _checked(out, read_events(out, json_lines), redactor, format, what)
    return out, moved


def redact_chunks(texts: list[str], *, format: str, redactor: Redactor, what: str = "the stream") -> bytes:
    """Rewrite every secret of recorded chunks (each a compact JSON text) into JSON lines; see ``redact_stream``.

    Raises:
        ValueError: A secret is still found once the chunks are rewritten (nothing may be written).
    """
    reading, data = read_chunks(texts)
    out, _ = apply_edits(data, _find(reading, data, redactor, format)[0], [])
    _checked(out, read_chunks(out.decode("utf-8").split("\n")[:-1])[0], redactor, format, what)
    return out
