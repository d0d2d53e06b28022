"""Gemini streamed function-call arguments (``partialArgs``) written as the JSON text of the call's arguments.

The rules are those of ``docs/semantics.md`` ("gemini", *Streamed arguments*). Each entry places one value at a
JSON path (RFC 9535, singular: ``$.a.b[0]``, ``$['a b']``); the writer turns the entries, in the order they arrive,
into JSON text appended to the call, so that the call's ``arguments_json``, its ``ArgumentsDelta`` fragments and its
snapshots are those of any other streamed call. Values arrive in document order, as the model writes them: a path
that goes back into a member already written, skips an array position, names a container of the other kind, or is
not a singular path is ``INVALID_ARGUMENT_PATH``, and nothing more is written for the call but its closers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Segment = str | int


@dataclass(slots=True)
class _Frame:
    """An open object or array of the text: how it is reached, and what it holds so far."""

    segment: Segment | None  # None for the arguments object itself
    is_array: bool
    count: int = 0
    keys: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Entry:
    """One ``partialArgs`` entry, read: its path as sent, its value's JSON text, and whether a string continues.

    ``value`` is the complete JSON text of a number, boolean or null, or (``piece`` True) the escaped content of a
    piece of a string; ``problem`` says why the entry cannot be placed (no value, several), when it cannot.
    """

    json_path: str | None
    value: str
    piece: bool
    will_continue: bool
    problem: str | None = None


class PathError(ValueError):
    """An entry that cannot be placed: the message says why; ``pointer`` is its path as a JSON pointer, if any."""

    def __init__(self, message: str, pointer: str | None) -> None:
        """Say why, and where."""
        super().__init__(message)
        self.pointer = pointer


class ArgumentsWriter:
    """The JSON text of one streamed call's arguments, written as its entries arrive."""

    def __init__(self, max_bytes: int) -> None:
        """Start the arguments object.

        Past ``max_bytes`` of text the writer stops keeping state: the call is over ``Limits.max_argument_bytes``,
        which the accumulator reports.
        """
        self._stack: list[_Frame] = [_Frame(None, is_array=False)]
        self._string: list[Segment] | None = None  # the path of a string awaiting its next piece
        self._failed = False
        self._written = 1
        self._max_bytes = max_bytes

    @property
    def opening(self) -> str:
        """The text the call starts with."""
        return "{"

    def write(self, entry: Entry) -> str:
        """The text one entry adds; raises ``PathError`` (after which nothing more is written) when it cannot."""
        if self._failed or self._written > self._max_bytes:
            return ""
        try:
            text = self._place(entry)
        except PathError:
            self._failed = True
            raise
        self._written += len(text.encode("utf-8", "surrogatepass"))
        return text

    def close(self) -> tuple[str, PathError | None]:
        """The call is over: the text that closes every open string, array and object.

        With it, the error when a string was still awaiting its next piece (a continuation that never came).
        """
        error = None
        if self._string is not None and not self._failed:
            error = PathError(
                f"the string at {_shown(self._string)} was to continue (willContinue) but the call ended",
                _pointer(self._string),
            )
        text = '"' if self._string is not None else ""
        self._string = None
        text += "".join("]" if frame.is_array else "}" for frame in reversed(self._stack))
        self._stack = []
        return text, error

    def _place(self, entry: Entry) -> str:
        if entry.json_path is None:
            raise PathError("a partialArgs entry has no jsonPath", None)
        segments = parse_path(entry.json_path)
        if entry.problem is not None:
            raise PathError(f"the entry at {entry.json_path!r} {entry.problem}", _pointer(segments))
        if self._string is not None:
            if segments == self._string and entry.piece:
                return self._piece(entry)
            awaited = self._string
            raise PathError(
                f"the string at {_shown(awaited)} was to continue (willContinue) but {entry.json_path!r} came",
                _pointer(awaited),
            )
        if not segments:
            raise PathError(f"{entry.json_path!r} names the arguments object itself, not a member", "")
        text = self._navigate(segments, entry.json_path)
        if not entry.piece:
            return text + entry.value
        self._string = segments
        return text + '"' + self._piece(entry)

    def _navigate(self, segments: list[Segment], json_path: str) -> str:
        """The text that closes what the path leaves and opens what it enters, up to its member's key."""
        containers = segments[:-1]
        depth = 0  # how many of the open containers below the root the path goes through
        while (
            depth < len(containers)
            and depth + 1 < len(self._stack)
            and self._stack[depth + 1].segment == containers[depth]
        ):
            depth += 1
        # Check the whole path before writing anything: the first new segment must be a new member of the innermost
        # container the path keeps, and every container it opens starts with its first member.
        new = segments[depth:]
        _check_member(self._stack[depth], new[0], segments[: depth + 1])
        for position in range(1, len(new)):
            if isinstance(new[position], int) and new[position] != 0:
                raise PathError(
                    f"{json_path!r} skips array positions: an array's first element is [0]",
                    _pointer(segments[: depth + position + 1]),
                )
        text = "".join("]" if frame.is_array else "}" for frame in reversed(self._stack[depth + 1 :]))
        del self._stack[depth + 1 :]
        for position, segment in enumerate(new):
            text += self._member(segment)
            if position + 1 < len(new):
                is_array = isinstance(new[position + 1], int)
                self._stack.append(_Frame(segment, is_array=is_array))
                text += "[" if is_array else "{"
        return text

    def _member(self, segment: Segment) -> str:
        """The separator and key that start a new member of the innermost open container."""
        frame = self._stack[-1]
        text = "," if frame.count else ""
        frame.count += 1
        if isinstance(segment, str):
            frame.keys.add(segment)
            text += json.dumps(segment, ensure_ascii=False) + ":"
        return text

    def _piece(self, entry: Entry) -> str:
        if entry.will_continue:
            return entry.value
        self._string = None
        return entry.value + '"'


def _check_member(frame: _Frame, segment: Segment, at: list[Segment]) -> None:
    """``segment`` must name a new member of ``frame``: a key it lacks, or its next position."""
    where = _shown(at)
    if isinstance(segment, int) != frame.is_array:
        holds = "an array" if frame.is_array else "an object"
        raise PathError(f"{where} treats {holds} as {'an array' if isinstance(segment, int) else 'an object'}", None)
    if isinstance(segment, str):
        if segment in frame.keys:
            raise PathError(f"{where} was already written: a member's value arrives once, in order", _pointer(at))
    elif segment < frame.count:
        raise PathError(f"{where} was already written: a member's value arrives once, in order", _pointer(at))
    elif segment > frame.count:
        raise PathError(f"{where} skips array positions: the next element is [{frame.count}]", _pointer(at))


def parse_path(text: str) -> list[Segment]:
    """The segments of a singular JSON path: ``$``, then ``.name``, ``['name']``/``["name"]`` or ``[index]`` each.

    A dot name is any run of characters but ``.``, ``[``, ``]``, quotes and backslashes; an index has no sign and no
    leading zero. Raises ``PathError`` for anything else (wildcards, slices, filters, ``..``, negative indexes).
    """
    if not text.startswith("$"):
        raise PathError(f"the jsonPath {text!r} does not start with '$'", None)
    segments: list[Segment] = []
    position = 1
    while position < len(text):
        character = text[position]
        if character == ".":
            end = position + 1
            while end < len(text) and text[end] not in _NAME_STOPS:
                end += 1
            if end == position + 1:
                raise PathError(f"the jsonPath {text!r} has an empty name at {position}", None)
            segments.append(text[position + 1 : end])
            position = end
        elif character == "[":
            segment, position = _bracketed(text, position + 1)
            segments.append(segment)
        else:
            raise PathError(f"the jsonPath {text!r} has {character!r} at {position}, not '.' or '['", None)
    return segments


_NAME_STOPS = frozenset(".[]'\"\\")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\", "'": "'", '"': '"'}


def _bracketed(text: str, start: int) -> tuple[Segment, int]:
    """The selector after a ``[`` at ``start``, and the position after its ``]``."""
    found = _index(text, start) if text[start : start + 1] in _DIGITS else _quoted(text, start)
    if found is None:
        raise PathError(f"the jsonPath {text!r} has a selector at {start - 1} that is no name or index", None)
    return found


def _index(text: str, start: int) -> tuple[Segment, int] | None:
    end = start
    while end < len(text) and text[end] in _DIGITS:
        end += 1
    digits = text[start:end]
    # An index of 64 bits or more is no position an array of arguments can have (the core holds it in 64 bits).
    if text[end : end + 1] != "]" or (len(digits) > 1 and digits[0] == "0") or int(digits) >= 2**64:
        return None
    return int(digits), end + 1


def _quoted(text: str, start: int) -> tuple[Segment, int] | None:
    quote = text[start : start + 1]
    if quote not in ("'", '"'):
        return None
    name: list[str] = []
    position = start + 1
    while position < len(text) and text[position] != quote:
        character = text[position]
        if character == "\\":
            escape = text[position + 1 : position + 2]
            digits = text[position + 2 : position + 6]
            if escape == "u" and len(digits) == 4 and all(c in _HEX for c in digits):
                name.append(chr(int(digits, 16)))
                position += 6
                continue
            if escape not in _ESCAPES:
                return None
            name.append(_ESCAPES[escape])
            position += 2
            continue
        if ord(character) < 0x20:
            return None
        name.append(character)
        position += 1
    if text[position + 1 : position + 2] != "]":
        return None
    return "".join(name), position + 2


def _pointer(segments: list[Segment]) -> str:
    """A path's segments as a JSON pointer (``/recipe/steps/4``)."""
    return "".join("/" + str(segment).replace("~", "~0").replace("/", "~1") for segment in segments)


def _shown(segments: list[Segment]) -> str:
    return "$" + "".join(f"[{segment}]" if isinstance(segment, int) else f".{segment}" for segment in segments)


def read_entry(value: dict[str, Any], fail: Callable[[str, str], Exception]) -> Entry:
    """One ``partialArgs`` entry: ``fail(field, problem)`` builds the error for a field of the wrong type."""
    json_path = value.get("jsonPath")
    if json_path is not None and not isinstance(json_path, str):
        raise fail("jsonPath", f"expected a string or null, got {type(json_path).__name__}")
    will_continue = value.get("willContinue")
    if will_continue is not None and not isinstance(will_continue, bool):
        raise fail("willContinue", f"expected a boolean or null, got {type(will_continue).__name__}")
    found = _values(value, fail)
    problem = None
    if not found:
        problem = "has no value (stringValue, numberValue, boolValue or nullValue)"
    elif len(found) > 1:
        problem = f"has {len(found)} values where one is expected"
    text, piece = found[0] if len(found) == 1 else ("", False)
    return Entry(json_path, text, piece, will_continue is True, problem)


def _values(value: dict[str, Any], fail: Callable[[str, str], Exception]) -> list[tuple[str, bool]]:
    """The entry's values, each as its JSON text (a string's escaped content, and True)."""
    found: list[tuple[str, bool]] = []
    string = value.get("stringValue")
    if string is not None:
        if not isinstance(string, str):
            raise fail("stringValue", f"expected a string or null, got {type(string).__name__}")
        found.append((json.dumps(string, ensure_ascii=False)[1:-1], True))
    number = value.get("numberValue")
    if number is not None:
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise fail("numberValue", f"expected a number or null, got {type(number).__name__}")
        try:
            found.append((json.dumps(number, allow_nan=False), False))
        except ValueError as error:
            raise fail("numberValue", f"not a JSON number: {error}") from None
    boolean = value.get("boolValue")
    if boolean is not None:
        if not isinstance(boolean, bool):
            raise fail("boolValue", f"expected a boolean or null, got {type(boolean).__name__}")
        found.append(("true" if boolean else "false", False))
    # ``nullValue`` is a protobuf NullValue: JSON ``null`` or ``"NULL_VALUE"``; its presence is the value.
    if "nullValue" in value:
        if value["nullValue"] not in (None, "NULL_VALUE"):
            raise fail("nullValue", f"expected null or 'NULL_VALUE', got {type(value['nullValue']).__name__}")
        found.append(("null", False))
    return found
