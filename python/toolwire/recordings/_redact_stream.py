r"""Secrets out of a recorded stream by meaning: found where the stream's values are whole, rewritten where they came.

A model streams a key in pieces (``"sk-p"``, ``"roj-"``, ...), in arguments that are JSON text inside JSON events, where
a character may be spelled as an escape (``\u0073``, ``\\u0073`` in the event) cut between two events; no regex
over the bytes sees it. So the stream is read the way ``toolwire.reassemble`` reads it:

1. The bytes are cut into events in the framing the engine tells from their first bytes (server-sent events, JSON
   lines, a JSON array's elements, AWS event-stream messages' payloads), each event's text kept with where each of
   its lines lies in the bytes (``toolwire.recordings._stream_frames``); recorded chunks are one JSON line each.
2. The core engine reads the events one at a time with progress on, which tells, for each event, the argument
   fragments it added to each call and the content text it added to each choice. Each fragment is found among the
   event's strings (``toolwire.recordings._stream_pieces``): the one it equals (and those repeating it, as a logprob's token
   repeats a delta), the run of strings and numbers of a value the event holds whole (a call's ``args`` object), or,
   for a call the engine spells itself (Gemini's ``partialArgs``), the string or number whose spelling ends it.
3. Each call's whole arguments text and each choice's whole text is searched (``toolwire.recordings._masking``): the text as
   it stands, and, read as JSON, every string in it decoded (keys too) and the values of members whose name says
   secret (``password``, ``token``...). Every other string of every event (a ``.done`` event's arguments, the
   ``response.completed`` output, an echoed request, reasoning and thinking text) is searched the same way on its own;
   the event's own members are the wire format's and never secret by name (a logprob's ``token``).
4. Each character of a secret is rewritten in the event and string it came in: its spelling (one character, an
   escape, the halves of an escape cut between events) becomes one ``*`` where it starts and nothing elsewhere;
   a secret member's number keeps its shape (``4821`` gives ``1000``). Lines, events and every JSON text stay
   valid, and the stream replays to the same calls with the secrets masked; network reads keep their order and, where
   a masked run keeps its length, their boundaries.
5. Text outside the events (comments, event names, data that is not UTF-8, an AWS message's string headers) is
   searched for the detectors' patterns as it stands.
6. An AWS message that changed is framed anew: its total length and both CRC32s are rewritten in place
   (``toolwire._common._eventstream``), so that the body frames and its read boundaries move as any rewrite moves them.

A JSON array or AWS body whose framing breaks (a cut, a bad CRC) is rewritten as far as it frames; the bytes from the
break on are not events and are kept as they came, unless the detectors find a secret in them (their text as it
stands, and the strings in it decoded): then ``ValueError`` names the recording and the break, and nothing is written.

Then the rewritten stream is read again the same way: a secret still found (one carried in a shape this module cannot
place) raises ``ValueError`` and nothing is written. What the engine does not reassemble is searched piece by piece:
a secret split across thinking or reasoning deltas, or across events the engine cannot read, is not seen whole.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any, Final

from toolwire._common._eventstream import reframed
from toolwire._common._redact import Redactor
from toolwire._model import Limits
from toolwire._pipeline import _extension
from toolwire._pipeline._choice import ToolChoice
from toolwire.errors import MalformedChunkError
from toolwire.recordings._masking import units
from toolwire.recordings._stream_frames import Edit, Frame, Reading, apply_edits, read_body, read_chunks
from toolwire.recordings._stream_pieces import Edits, Piece, echoes

if TYPE_CHECKING:
    from toolwire._core import Engine

__all__ = ["redact_chunks", "redact_stream"]

# How many events before the one that completed it a whole value's JSON text is looked for in (Anthropic reports a
# tool_use block's input given at its start only when the block ends).
_LOOK_BACK: Final = 16


class _Channels:
    """The fragments of every call's arguments and every choice's text, in order, with what carried them."""

    def __init__(self) -> None:
        self.pieces: dict[tuple[str, int], list[Piece]] = {}
        self.lengths: dict[tuple[str, int], int] = {}

    def add(
        self, progress: list[tuple[Any, ...]], index: int, frames: list[Frame | None], claimed: list[set[int]]
    ) -> None:
        """Take the fragments the engine reported once it had read event ``index``, and find what carried each."""
        here: list[Piece] = []
        for step in progress:
            if step[0] == "arguments":
                channel, fragment = ("arguments", step[1]), step[3]
            elif step[0] == "text":
                channel, fragment = ("text", step[1]), step[2]
            else:
                continue
            if not isinstance(fragment, str) or not fragment:
                continue
            piece = Piece(self.lengths.get(channel, 0), fragment, index)
            # A value given whole (JSON text) may have come some events before the one that completed it.
            reach = _LOOK_BACK if fragment.lstrip()[:1] in ("{", "[") else 1
            for back in range(index, max(index - reach, -1), -1):
                frame = frames[back]
                if frame is not None and piece.attribute(frame, claimed[back]):
                    piece.frame = back
                    break
            here.append(piece)
            self.pieces.setdefault(channel, []).append(piece)
            self.lengths[channel] = piece.offset + piece.length
        event = frames[index]
        if event is not None and here:
            echoes(event, [piece for piece in here if piece.frame == index], claimed[index])

    def place(self, edits: Edits, redactor: Redactor) -> int:
        """Search each channel whole, and rewrite each unit found in the pieces it spans.

        Returns:
            How many units change their channel (placed or not: a stream already masked has none).
        """
        changes = 0
        for pieces in self.pieces.values():
            starts = [piece.offset for piece in pieces]
            text = "".join(piece.text for piece in pieces)
            for start, end, replacement, aligned in units(text, redactor):
                changes += text[start:end] != replacement
                head = True
                index = max(bisect.bisect_right(starts, start) - 1, 0)
                while index < len(pieces) and pieces[index].offset < end:
                    piece = pieces[index]
                    index += 1
                    low = max(start, piece.offset)
                    high = min(end, piece.offset + piece.length)
                    if high > low:
                        part = replacement[low - start : high - start] if aligned else replacement
                        head = piece.place(edits, low - piece.offset, high - piece.offset, (part, aligned), head)
        return changes


def _engine(format: str, size: int) -> Engine:
    # Limits as large as the stream itself: no call or text of the recording may stop being read before its end.
    limits = Limits(
        max_argument_bytes=size,
        max_calls=max(size, 256),
        max_event_bytes=size,
        max_text_bytes=size,
        max_choices=max(size, 128),
    )
    return _extension.engine_factory()(
        tool_choice=ToolChoice(), emit="call_end", limits=limits, format=format, progress=True
    )


def _read(reading: Reading, size: int, format: str) -> tuple[_Channels, list[set[int]]]:
    """Read the events through the engine: every channel's pieces, and which of each event's leaves they claimed."""
    frames = reading.frames
    channels = _Channels()
    claimed: list[set[int]] = [set() for _ in frames]
    engine = _engine(format, size)
    fresh = False
    for index, feed in enumerate(reading.feeds):
        try:
            if reading.raw:
                engine.feed_bytes(reading.alone[index] if fresh else feed)
            else:
                engine.feed(feed)
        except (MalformedChunkError, ValueError):
            # The engine cannot read this event: its strings are searched on their own, and a fresh engine reads on.
            engine, fresh = _engine(format, size), True
            continue
        fresh = False
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
    edits = Edits(reading.frames)
    channels, claimed = _read(reading, len(data) + 1, format)
    changes = channels.place(edits, redactor)
    for index, frame in enumerate(reading.frames):
        if frame is not None:
            _search_event(edits, index, frame, claimed[index], redactor)
    found: list[Edit] = []
    for index, rewrites in edits.text_edits().items():
        found += edits.frame(index).data_edits(rewrites)
    for begin, finish in reading.outside:
        text = data[begin:finish].decode("latin-1")  # a character per byte: its spans are byte spans
        found += [(begin + start, begin + end, b"*" * (end - start)) for start, end in redactor.spans(text)]
    return sorted(edit for edit in found if data[edit[0] : edit[1]] != edit[2]), changes


def _search_event(edits: Edits, index: int, frame: Frame, claimed: set[int], redactor: Redactor) -> None:
    """Every string of an event that no channel took, searched on its own; and the event's text outside strings."""
    if not redactor.may_hold(frame.text):
        return
    free = [number for number, leaf in enumerate(frame.leaves) if leaf.string and number not in claimed]
    if redactor.may_hold("\0".join(frame.value(number) for number in free)):
        for number in free:
            for start, end, replacement, _ in units(frame.value(number), redactor):
                edits.chars(index, number, start, end, replacement)
    # Data that is not JSON may hold a secret outside any string: masked where it stands.
    strings = [(leaf.start, leaf.end) for leaf in frame.leaves if leaf.string]
    starts = [start for start, _ in strings]
    for start, end in redactor.spans(frame.text):
        inside = max(bisect.bisect_right(starts, start) - 1, 0)
        position = start
        while position < end:
            if inside < len(strings) and strings[inside][0] <= position < strings[inside][1]:
                position = strings[inside][1]
            elif inside < len(strings) and strings[inside][1] <= position:
                inside += 1
            else:
                stop = min(end, strings[inside][0]) if inside < len(strings) else end
                edits.outside.append((index, position, stop))
                position = stop


def _checked(out: bytes, before: Reading, reading: Reading, redactor: Redactor, format: str, what: str) -> None:
    """Read the rewritten stream again: a secret still found there is one this module could not place."""
    if (reading.framing, len(reading.frames), reading.broken) != (before.framing, len(before.frames), before.broken):
        raise ValueError(  # a rewrite must never change how the body frames: this is a bug of toolwire's
            f"{what}: the rewritten body frames otherwise than the body received ({reading.broken or 'no error'}), so "
            "nothing was written; please report it"
        )
    remaining, changes = _find(reading, out, redactor, format)
    if remaining or changes:
        where = f"byte {remaining[0][0]} of the rewritten stream" if remaining else "a call's arguments or the text"
        raise ValueError(
            f"{what}: a secret is carried in a shape that cannot be rewritten in place ({where}), so nothing was "
            "written; this is a stream shape toolwire does not handle yet: please report it"
        )


def _check_tail(data: bytes, reading: Reading, redactor: Redactor, what: str) -> None:
    """Refuse a body whose bytes past the break in its framing hold a secret: they cannot be rewritten as events."""
    if reading.tail is None:
        return
    text = data[reading.tail :].decode("utf-8", "replace")  # the strings of a cut or broken message are decoded too
    if any(text[start:end] != replacement for start, end, replacement, _ in units(text, redactor, anywhere=True)):
        raise ValueError(
            f"{what}: the body breaks its framing ({reading.broken}), and the bytes from byte {reading.tail} on "
            "hold a secret, which cannot be masked in bytes that are not events, so nothing was written"
        )


def redact_stream(
    data: bytes, cuts: list[int], *, format: str, redactor: Redactor, what: str = "the stream"
) -> tuple[bytes, list[int], str | None]:
    """Rewrite every secret of a raw stream (see the module docstring).

    Args:
        data: The stream's bytes.
        cuts: Where each network read ends, ascending; moved with the rewrites.
        format: The wire format the engine reads the events as.
        redactor: What is secret.
        what: The stream, named in the error.

    Returns:
        The rewritten bytes, the read boundaries in them, and the body's framing as the engine tells it (``"sse"``,
        ``"json-lines"``, ``"json-array"``, ``"aws-event-stream"``; None when it tells none).

    Raises:
        ValueError: A secret is still found once the stream is rewritten, or is found in the bytes past a break in
            its framing (nothing may be written).
    """
    reading = read_body(data)
    _check_tail(data, reading, redactor, what)
    edits = reframed(data, reading.messages, _find(reading, data, redactor, format)[0])
    out, moved = apply_edits(data, edits, cuts)
    _checked(out, reading, read_body(out), redactor, format, what)
    return out, moved, reading.framing


def redact_chunks(texts: list[str], *, format: str, redactor: Redactor, what: str = "the stream") -> bytes:
    """Rewrite every secret of recorded chunks (each a compact JSON text) into JSON lines; see ``redact_stream``.

    Raises:
        ValueError: A secret is still found once the chunks are rewritten (nothing may be written).
    """
    reading, data = read_chunks(texts)
    out, _ = apply_edits(data, _find(reading, data, redactor, format)[0], [])
    _checked(out, reading, read_chunks(out.decode("utf-8").split("\n")[:-1])[0], redactor, format, what)
    return out
