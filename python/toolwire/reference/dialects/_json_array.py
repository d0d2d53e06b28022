"""A marker, a JSON array of call objects, an optional end marker: the machinery of five dialects.

``granite``, ``phi4_mini``, ``xlam``, ``apriel`` and ``cohere_command`` are each a configuration of
``JsonArrayParser``. A dialect names its openers (``arrays``: each start marker with the end marker its array is closed by, or None),
the markers that only frame text and are dropped from it (``silent``: Cohere's ``<|START_RESPONSE|>``), whether a
bare array opens calls (``bare``: xLAM), and the keys of a call object (``name_key``, ``argument_keys``, ``id_key``).
After a start marker (and whitespace) comes ``[``, or the marker is text (``MARKER_IN_TEXT``); each element is a call,
its members in any order (Granite writes ``arguments`` first), handed over the moment it closes; an element that
breaks ends the array, and what follows it is text. After ``]`` (and whitespace) the end marker, when the opener has
one, is taken; when something else comes, the calls stand and a ``MISSING_END_MARKER`` says so. A bare array is
``[{`` followed by a call's head (its name key or an arguments key, then ``:``, whitespace between the tokens): held
back only while it can still be one, and text the moment it cannot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._shared import (
    TEXT,
    JsonReader,
    Parser,
    json_call,
    leading_name,
    quoted,
    utf8_len,
)

__all__ = ["BARE", "JsonArrayParser"]

#: The opener of a bare array: ``[`` with its first element's ``{`` right after it.
BARE: Final = "[{"
_WHITESPACE: Final = " \t\r\n"
_NOT_CLOSED: Final = "the array of calls was not closed by ']'"


class JsonArrayParser(Parser):
    """A "marker + JSON array" dialect; a subclass is its configuration."""

    arrays: ClassVar[Mapping[str, str | None]] = {}
    silent: ClassVar[tuple[str, ...]] = ()
    bare: ClassVar[bool] = False
    name_key: ClassVar[str] = "name"
    argument_keys: ClassVar[tuple[str, ...]] = ("arguments",)
    id_key: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The start markers are the configuration's: the arrays' openers, the silent markers, the bare opener."""
        cls.starts = (*cls.arrays, *cls.silent, *((BARE,) if cls.bare else ()))
        super().__init_subclass__(**kwargs)

    def _open(self, marker: str) -> None:
        if marker in self.silent:
            self._state = TEXT
            return
        self._marker = marker
        self._held = marker
        self._elements = 0
        self._gap = ""
        self._reader = JsonReader(self.limits)
        if marker == BARE:
            self._key = ""
            self._keyed = False
            self._state = "head"
        else:
            self._state = "open"

    # After a start marker: the array's `[`.

    def _advance_open(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            # Whitespace is held only up to a call's bytes: past them, no array is coming.
            if utf8_len(self._held) <= self.limits.max_argument_bytes:
                return False
            return self._not_a_call(f"{self._marker} was not followed by a JSON array")
        if self._buf[self._pos] != "[":
            return self._not_a_call(f"{self._marker} was not followed by a JSON array")
        self._pos += 1
        self._held += "["
        self._state = "next"
        return True

    def _not_a_call(self, why: str | None) -> bool:
        """What followed the opener is no array of calls: what was held is text (``why`` said, when given)."""
        self._text(self._held)
        if why is not None:
            self._finding("MARKER_IN_TEXT", why, None)
        self._state = TEXT
        return True

    # A bare array: `[{`, whitespace, a key that starts a call, whitespace, `:`.

    def _advance_head(self) -> bool:
        keys = tuple(quoted(key) for key in (self.name_key, *self.argument_keys))
        buf = self._buf
        while self._pos < len(buf):
            char = buf[self._pos]
            if self._keyed:
                if char == ":":
                    self._pos += 1
                    self._held += char
                    self._reader.take(self._held[1:])
                    self._elements = 1
                    self._state = "element"
                    return True
                if char not in _WHITESPACE:
                    return self._not_a_call(None)
            elif char not in _WHITESPACE or self._key:
                key = self._key + char
                if not any(candidate.startswith(key) for candidate in keys):
                    return self._not_a_call(None)
                self._key = key
                self._keyed = key in keys
            self._pos += 1
            self._held += char
            if utf8_len(self._held) > self.limits.max_argument_bytes:
                return self._not_a_call(None)
        return False

    # The array's elements.

    def _advance_next(self) -> bool:
        """After ``[`` or ``,``: the next element, or (after ``[`` only) the end of an empty array."""
        spaces = self._skip_whitespace()
        if not self._elements:
            self._held += spaces
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == "]" and not self._elements:
            self._pos += 1
            self._held += "]"
            return self._not_a_call(f"{self._marker} was followed by an empty array")
        self._reader = JsonReader(self.limits)
        self._elements += 1
        self._state = "element"
        return True

    def _advance_element(self) -> bool:
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            name, arguments, call_id, findings = json_call(
                self._reader, self.argument_keys, self.id_key, name_key=self.name_key
            )
            self._call(name, arguments, id=call_id, findings=findings)
            self._state = "array"
            return True
        if state == INVALID:
            # The array cannot be followed past a broken element: it ends there, and what follows is text.
            body = self._reader.text
            self._call(self._leading_name(body), body, findings=(("MALFORMED_CALL", "the call is not JSON"),))
            self._state = TEXT
            return True
        return False

    def _leading_name(self, body: str) -> str | None:
        return leading_name(body) if self.name_key == "name" else None

    def _advance_array(self) -> bool:
        """After an element: ``,`` and the next, or ``]`` and the end marker."""
        self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        char = self._buf[self._pos]
        if char == ",":
            self._pos += 1
            self._state = "next"
        elif char == "]":
            self._pos += 1
            self._state = TEXT if self._end is None else "end"
        else:
            self._finding("MISSING_END_MARKER", _NOT_CLOSED, self._calls - 1)
            self._state = TEXT
        return True

    @property
    def _end(self) -> str | None:
        return self.arrays.get(self._marker)

    def _advance_end(self) -> bool:
        """After ``]``: whitespace, then the opener's end marker; the whitespace is text when the marker does not come."""
        end = self._end
        assert end is not None
        self._gap += self._skip_whitespace()
        found = self._starts_with(end)
        # Whitespace is held only up to a call's bytes: past them, the end marker is not coming.
        if found is None and utf8_len(self._gap) <= self.limits.max_argument_bytes:
            return False
        if found:
            self._pos += len(end)
        else:
            self._missing_end(end)
        self._state = TEXT
        return True

    def _missing_end(self, end: str) -> None:
        self._finding("MISSING_END_MARKER", f"the array of calls was not followed by {end}", self._calls - 1)
        self._text(self._gap)

    def _cut(self) -> None:
        if self._state == "head":
            self._text(self._held)
        elif self._state == "open" or (self._state == "next" and not self._elements):
            why = f"the stream ended inside the call after {self._marker}"
            self._call(None, "", whole=False, findings=(("CUT", why),))
        elif self._state == "element":
            body = self._reader.text
            self._call(
                self._leading_name(body), body, whole=False, findings=(("CUT", "the stream ended inside the call"),)
            )
        elif self._state == "next":
            self._finding("CUT", "the stream ended inside the array of calls, before its next call", None)
        elif self._state == "array":
            self._finding("MISSING_END_MARKER", _NOT_CLOSED, self._calls - 1)
        elif self._state == "end":
            end = self._end
            assert end is not None
            self._missing_end(end)
