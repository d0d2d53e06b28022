"""Which string of a recorded event carried each fragment of a call's arguments or a choice's text.

The engine reports fragments (``toolwire.recordings._redact_stream`` reads the events through it); each is found among the
leaves of the event that brought it (``toolwire.recordings._stream_frames``), so that a secret found in the reassembled text
is rewritten in the strings that spelled it (``Piece.place``). ``Edits`` gathers the rewrites of every event:
replacements of a string's decoded characters, numbers masked whole, and text outside strings.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence
from typing import Final

from toolwire._common._redact import MASK, mask_number
from toolwire.recordings._jsonspans import Leaf, decode, decode_spans, leaves
from toolwire.recordings._stream_frames import Frame, per_character

__all__ = ["Edits", "Piece", "echoes"]

# What may follow, in a fragment the engine spells, the string it ends with (Gemini closes containers after it).
_CLOSERS: Final = '"]},: \t\r\n'
_TRAILING_NUMBER: Final = re.compile(r'(-?[0-9][0-9.eE+-]*)["\]},:\s]*\Z')
# What a fragment holding nothing but JSON syntax is made of.
_SYNTAX: Final = frozenset('{}[]",: \t\r\n')
# How many leaves after an event's last claimed one a spelled fragment's carrier is looked for among, and how many
# places a whole value's JSON text is tried at: fragments come in document order, so a hostile event of many costs
# linear time, and one not found is refused by ``_checked`` rather than searched for at quadratic cost.
_REACH: Final = 64
_TRIES: Final = 4


class Edits:
    """The rewrites found in the events' texts.

    Attributes:
        frames: The events.
        strings: For each (event, string leaf), replacements of its decoded characters ``(first, end, replacement)``:
            the spelling of characters ``[first, end)`` becomes ``replacement``.
        numbers: The (event, number leaf) masked whole (``mask_number``).
        outside: Spans of an event's text outside its strings, each character masked.
    """

    def __init__(self, frames: list[Frame | None]) -> None:
        """No rewrites yet."""
        self.frames = frames
        self.strings: dict[tuple[int, int], list[tuple[int, int, str]]] = {}
        self.numbers: set[tuple[int, int]] = set()
        self.outside: list[tuple[int, int, int]] = []

    def frame(self, index: int) -> Frame:
        """Event ``index``'s frame (one that has rewrites has one)."""
        frame = self.frames[index]
        assert frame is not None, "an event without a frame has no strings to rewrite"
        return frame

    def chars(self, frame: int, leaf: int, first: int, end: int, replacement: str) -> None:
        """Replace the spelling of the decoded characters ``[first, end)`` of a string leaf."""
        if end > first:
            self.strings.setdefault((frame, leaf), []).append((first, end, replacement))

    def number(self, frame: int, leaf: int) -> None:
        """Mask a number leaf's digits."""
        self.numbers.add((frame, leaf))

    def text_edits(self) -> dict[int, list[tuple[int, int, str]]]:
        """The rewrites of each event's text, ascending and disjoint (a character rewritten twice, once)."""
        found: dict[int, list[tuple[int, int, str]]] = {}
        for (index, leaf), replacements in self.strings.items():
            offsets = self.frame(index).offsets(leaf)
            done = 0
            for first, end, replacement in sorted(replacements):
                if end <= done:
                    continue
                if first < done:  # an overlap: what is left of an aligned run, or nothing of a character's spelling
                    replacement = replacement[done - first :] if len(replacement) == end - first else ""
                    first = done
                pieces = [(first, end, replacement)]
                if not isinstance(offsets, range):  # an escape among the characters: it becomes its own rewrite
                    pieces = list(per_character(pieces, _escape(offsets)))
                found.setdefault(index, []).extend((offsets[low], offsets[high], part) for low, high, part in pieces)
                done = end
        for index, leaf in self.numbers:
            token = self.frame(index).leaves[leaf]
            spelled = self.frame(index).text[token.start : token.end]
            found.setdefault(index, []).append((token.start, token.end, mask_number(spelled)))
        for index, start, end in self.outside:
            found.setdefault(index, []).append((start, end, MASK * (end - start)))
        return {index: sorted(edits) for index, edits in found.items()}


class Piece:
    """A fragment of a channel (a call's arguments, a choice's text), where it lies there, and what carried it.

    What carried it, in the order it is looked for among the event's leaves:

    - the string whose value it is, and the strings after it that repeat it before the next fragment's (``copies``: a
      logprob's ``token`` repeats a text delta), all of them rewritten alike;
    - the JSON text of a value the event holds as JSON (``run``: a whole call's ``args`` object), leaf for leaf;
    - the string (``spelled``) or number (``number``) whose JSON spelling ends it, in a call the engine spells itself
      from the event's values (Gemini's ``partialArgs``);
    - nothing known: a fragment of JSON syntax, or one this module does not place (``_checked`` then refuses).

    The last three are looked for in document order after what the event's earlier fragments claimed, within
    ``_REACH`` leaves, so that an event of many fragments costs linear time.
    """

    __slots__ = ("_ends", "_offsets", "copies", "frame", "length", "number", "offset", "run", "spelled", "text")

    def __init__(self, offset: int, text: str, frame: int) -> None:
        """A fragment at ``offset`` in its channel, reported once event ``frame`` was read."""
        self.offset = offset
        self.length = len(text)
        self.text = text
        self.frame = frame
        self.copies: list[int] = []
        self.run: list[tuple[Leaf, int]] | None = None  # the fragment's leaves, and the event's leaves they are
        self.spelled: tuple[int, int] | None = None  # the leaf, and where its spelling starts in the fragment
        self.number: int | None = None
        self._ends: Sequence[int] | None = None  # where each character of ``spelled`` starts in its spelling
        self._offsets: dict[int, Sequence[int]] = {}  # where each character of a run's string is spelled

    def attribute(self, frame: Frame, claimed: set[int]) -> bool:
        """Find what carried the fragment among the event's leaves; the leaves found are ``claimed``.

        Returns:
            Whether it was found.
        """
        carrier = _equal_string(self.text, frame, claimed)
        if carrier is not None:
            self.copies = [carrier]
            self._claim(frame, claimed, [carrier])
            return True
        if _SYNTAX.issuperset(self.text):
            return False  # JSON syntax the engine wrote: no value of the event spells it
        if self.text.lstrip()[:1] in ("{", "["):
            self.run = _align(self.text, frame, claimed)
            if self.run is not None:
                self._claim(frame, claimed, [number for _, number in self.run])
                return True
        self.spelled = _ending_string(self.text, frame, claimed)
        if self.spelled is not None:
            self._claim(frame, claimed, [self.spelled[0]])
            return True
        self.number = _ending_number(self.text, frame, claimed)
        if self.number is not None:
            self._claim(frame, claimed, [self.number])
            return True
        return False

    @staticmethod
    def _claim(frame: Frame, claimed: set[int], numbers: list[int]) -> None:
        claimed.update(numbers)
        frame.cursor = max(frame.cursor, max(numbers) + 1)

    def place(self, edits: Edits, low: int, high: int, unit: tuple[str, bool], head: bool) -> bool:
        """Rewrite the fragment's characters ``[low, high)`` where they came from.

        Args:
            edits: Where the rewrites go.
            low: The first character of the fragment the unit covers.
            high: The end of what it covers.
            unit: Its replacement for those characters and whether it is aligned (``toolwire.recordings._masking``).
            head: Whether the replacement of a unit that is not aligned is still to be placed (a unit spanning
                fragments, an escape cut between events, is replaced where it starts and removed elsewhere).

        Returns:
            ``head`` once this part is placed.
        """
        replacement, aligned = unit
        if not aligned and not head:
            replacement = ""
        if self.number is not None:
            edits.number(self.frame, self.number)
            return head
        if self.copies:
            for leaf in self.copies:
                edits.chars(self.frame, leaf, low, high, replacement)
            return aligned and head
        if self.spelled is not None:
            return self._place_spelled(edits, low, high, replacement, aligned) and head
        return self._place_run(edits, low, high, replacement, aligned) and head

    def _place_spelled(self, edits: Edits, low: int, high: int, replacement: str, aligned: bool) -> bool:
        """Place in the string whose spelling ends the fragment; whether a unit's replacement is still to place."""
        assert self.spelled is not None
        leaf, at = self.spelled
        if self._ends is None:
            self._ends = _spelling_ends(edits.frame(self.frame).value(leaf))
        chars = _covered(self._ends, low - at, high - at)
        edits.chars(self.frame, leaf, chars.start, chars.stop, MASK * len(chars) if aligned else replacement)
        return aligned or not chars

    def _place_run(self, edits: Edits, low: int, high: int, replacement: str, aligned: bool) -> bool:
        """Place in the leaves of a whole value; whether a unit's replacement is still to place."""
        run = self.run or []
        placed = False
        first = max(bisect.bisect_right([mine.start for mine, _ in run], low) - 1, 0)
        for mine, theirs in run[first:]:
            if mine.start >= high:
                break
            if mine.end <= low:
                continue
            if not mine.string:
                edits.number(self.frame, theirs)
                continue
            if mine.start not in self._offsets:
                self._offsets[mine.start] = decode_spans(self.text, mine.start, mine.end)[1]
            chars = _covered(self._offsets[mine.start], low, high)
            edits.chars(self.frame, theirs, chars.start, chars.stop, MASK * len(chars) if aligned else replacement)
            if chars and not aligned:
                replacement, placed = "", True
        return aligned or not placed


def _escape(offsets: Sequence[int]) -> Callable[[int], bool]:
    """Whether a string's character is spelled with more than one character (an escape), its spelling ``offsets``."""
    return lambda char: offsets[char + 1] - offsets[char] != 1


def _spelling_ends(value: str) -> Sequence[int]:
    """Where each character of a string starts in its JSON spelling (``json.dumps``, non-ASCII kept), and the end."""
    if json.dumps(value, ensure_ascii=False)[1:-1] == value:
        return range(len(value) + 1)
    ends = [0]
    for char in value:
        ends.append(ends[-1] + len(json.dumps(char, ensure_ascii=False)) - 2)
    return ends


def _covered(offsets: Sequence[int], low: int, high: int) -> range:
    """The characters whose spelling (``offsets``, see ``decode_spans``) overlaps ``[low, high)``."""
    return range(
        max(bisect.bisect_right(offsets, low) - 1, 0), min(bisect.bisect_left(offsets, high), len(offsets) - 1)
    )


def _ahead(frame: Frame) -> range:
    """The leaves a fragment's carrier is looked for among: those after the event's last claim, within reach."""
    return range(frame.cursor, min(frame.cursor + _REACH, len(frame.leaves)))


def _equal_string(fragment: str, frame: Frame, claimed: set[int]) -> int | None:
    """The first string whose value the fragment is, after the event's last claim (else before it)."""
    found = frame.spelled(json.dumps(fragment, ensure_ascii=False), frame.cursor)
    if found is not None and found not in claimed:
        return found  # spelled as the engine would: the usual case, found without decoding the event
    equal = frame.strings_equal_to(fragment)
    at = bisect.bisect_left(equal, frame.cursor)
    for number in [*equal[at : at + _TRIES], *equal[:_TRIES]]:
        if number not in claimed:
            return number
    return None


def echoes(frame: Frame, pieces: list[Piece], claimed: set[int]) -> None:
    """Give each string of the event that repeats a fragment to the nearest fragment before it with that value."""
    carriers: dict[str, list[tuple[int, Piece]]] = {}
    for piece in pieces:
        if piece.copies:
            carriers.setdefault(piece.text, []).append((piece.copies[0], piece))
    if "\\u" not in frame.text:  # a repeat is spelled as its fragment is: most events hold none, seen at once
        carriers = {
            text: found
            for text, found in carriers.items()
            if frame.text.count(json.dumps(text, ensure_ascii=False)) > len(found)
        }
    for text, found in carriers.items():
        found.sort(key=lambda pair: pair[0])
        positions = [position for position, _ in found]
        for number in frame.strings_equal_to(text):
            before = bisect.bisect_left(positions, number) - 1
            if number not in claimed and before >= 0:
                found[before][1].copies.append(number)
                claimed.add(number)


def _ending_string(fragment: str, frame: Frame, claimed: set[int]) -> tuple[int, int] | None:
    """The string whose JSON spelling ends the fragment (JSON syntax may follow it), and where it starts there."""
    core = fragment.rstrip(_CLOSERS)
    for number in _ahead(frame):
        leaf = frame.leaves[number]
        if not leaf.string or leaf.key or number in claimed:
            continue
        spelled = json.dumps(frame.value(number), ensure_ascii=False)[1:-1]
        spelled_core = spelled.rstrip(_CLOSERS)
        if (
            spelled_core
            and core.endswith(spelled_core)
            and fragment[len(core) :].startswith(spelled[len(spelled_core) :])
        ):
            return number, len(core) - len(spelled_core)
    return None


def _ending_number(fragment: str, frame: Frame, claimed: set[int]) -> int | None:
    """The number whose value ends the fragment (JSON syntax may follow it)."""
    match = _TRAILING_NUMBER.search(fragment)
    if match is None:
        return None
    for number in _ahead(frame):
        leaf = frame.leaves[number]
        if not leaf.string and number not in claimed and _equal_numbers(match[1], frame.text[leaf.start : leaf.end]):
            return number
    return None


def _align(fragment: str, frame: Frame, claimed: set[int]) -> list[tuple[Leaf, int]] | None:
    """The event's leaves that a JSON fragment's leaves are, in order (strings equal, numbers of equal value)."""
    mine = list(leaves(fragment))
    if not mine or not mine[0].string:
        return None
    theirs = frame.leaves
    first = decode(fragment, mine[0].start, mine[0].end)
    starts = frame.strings_equal_to(first, keys=mine[0].key)
    at = bisect.bisect_left(starts, frame.cursor)
    for start in starts[at : at + _TRIES]:
        if start + len(mine) <= len(theirs) and all(
            start + k not in claimed and _same(fragment, leaf, frame, start + k) for k, leaf in enumerate(mine)
        ):
            return [(leaf, start + k) for k, leaf in enumerate(mine)]
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
