"""``mistral``: ``[TOOL_CALLS]`` then a JSON array of calls (pre-v11) or ``NAME[CALL_ID]ID[ARGS]{...}`` (v11+).

Mistral 7B v0.3 and Nemo write ``[TOOL_CALLS] [{"name": ..., "arguments": {...}, "id": ...}, ...]``: each element
is a call, handed over the moment it closes, its members in any order (Nemo adds a call ``id``). Mistral Small
3.x, Magistral, Devstral and Ministral 3 repeat the marker per call: ``[TOOL_CALLS]NAME[ARGS]{...}``, with
``[CALL_ID]ID`` before ``[ARGS]`` (Small 3.2), or ``NAME{...}`` when the control tokens were decoded away; a call is
whole when its object closes. A name is letters, digits, ``_``, ``-`` and ``.``; anything else after the marker
makes it text (``MARKER_IN_TEXT``). Reasoning is ``[THINK]…[/THINK]``; a call written inside it is reasoning text,
as llama.cpp's Ministral tests pin. There is no end marker: what follows a call is text.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference._scanner import COMPLETE, INCOMPLETE, INVALID
from toolwire.reference.dialects._shared import (
    TEXT,
    FindingCode,
    JsonReader,
    Parser,
    arguments_of,
    json_call,
    leading_name,
    utf8_len,
)

__all__ = ["MistralParser"]

_START: Final = "[TOOL_CALLS]"
_ARGS: Final = "[ARGS]"
_CALL_ID: Final = "[CALL_ID]"
_NAME_PUNCTUATION: Final = "_-."


class MistralParser(Parser):
    """The ``mistral`` dialect."""

    starts = (_START,)
    think = ("[THINK]", "[/THINK]")

    def _open(self, marker: str) -> None:
        self._held = marker
        self._name = ""
        self._id: str | None = None
        self._elements = 0
        self._reader = JsonReader(self.limits)
        self._state = "open"

    # What follows the marker decides the form.

    def _advance_open(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        char = self._buf[self._pos]
        if char == "[":
            self._pos += 1
            self._held += char
            self._state = "next"
        elif _is_name(char):
            self._state = "name"
        else:
            self._not_a_call(f"{_START} was followed by neither a JSON array nor a function name")
        return True

    def _not_a_call(self, why: str) -> None:
        self._text(self._held)
        self._finding("MARKER_IN_TEXT", why, None)
        self._state = TEXT

    # v11+: NAME, then [CALL_ID]ID, then [ARGS] (or nothing), then the arguments object.

    def _advance_name(self) -> bool:
        buf = self._buf
        at = self._pos
        while at < len(buf) and _is_name(buf[at]):
            at += 1
        self._name += buf[self._pos : at]
        self._held += buf[self._pos : at]
        self._pos = at
        if utf8_len(self._name) > self.limits.max_argument_bytes:
            self._not_a_call(f"the name after {_START} passed the limit on a call's bytes")
            return True
        if at == len(buf):
            return False
        return self._after_name()

    def _after_name(self) -> bool:
        if self._buf[self._pos] == "{":
            self._state = "arguments"
            return True
        for marker, state in ((_ARGS, "arguments"), (_CALL_ID, "id")):
            found = self._starts_with(marker)
            if found is None:
                return False
            if found:
                self._pos += len(marker)
                self._held += marker
                self._state = state
                return True
        self._not_a_call(f"the name after {_START} was followed by neither {_ARGS} nor a JSON object")
        return True

    def _advance_id(self) -> bool:
        parts: list[str] = []
        marker = self._release_until((_ARGS,), parts.append)
        self._id = (self._id or "") + "".join(parts)
        self._held += "".join(parts)
        if marker is not None:
            self._held += marker
            self._state = "arguments"
            return True
        if utf8_len(self._id) > self.limits.max_argument_bytes:
            self._not_a_call(f"the call id after {_CALL_ID} passed the limit on a call's bytes")
            return True
        return False

    def _advance_arguments(self) -> bool:
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == INCOMPLETE:
            return False
        # Whole or broken, the call ends here; what a broken object leaves is text.
        arguments, findings = self._arguments(broken=state == INVALID)
        self._call(self._name, arguments, id=self._id, findings=findings)
        self._state = TEXT
        return True

    def _arguments(self, *, broken: bool) -> tuple[str, tuple[tuple[FindingCode, str], ...]]:
        """The arguments object read (compact), or the best text there is and why it is not one."""
        if not broken:
            return arguments_of(self._reader)
        size: tuple[tuple[FindingCode, str], ...] = ()
        if self._reader.overflow:
            size = (("TOO_LARGE", "the call's text passed the limit on a call's bytes"),)
        return self._reader.text, (*size, ("INVALID_ARGUMENTS", "the arguments are not JSON"))

    # pre-v11: a JSON array whose elements are calls.

    def _advance_next(self) -> bool:
        """After ``[`` or ``,``: the next element, or (after ``[`` only) the end of an empty array."""
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == "]" and not self._elements:
            self._pos += 1
            self._held += "]"
            self._not_a_call(f"{_START} was followed by an empty array")
            return True
        self._reader = JsonReader(self.limits)
        self._elements += 1
        self._state = "element"
        return True

    def _advance_element(self) -> bool:
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            name, arguments, call_id, findings = json_call(self._reader, ("arguments",), "id")
            self._call(name, arguments, id=call_id, findings=findings)
            self._state = "array"
            return True
        if state == INVALID:
            # The array cannot be followed past a broken element: it ends there, and what follows is text.
            body = self._reader.text
            self._call(leading_name(body), body, findings=(("MALFORMED_CALL", "the call is not JSON"),))
            self._state = TEXT
            return True
        return False

    def _advance_array(self) -> bool:
        """After an element: ``,`` and the next, or ``]``."""
        self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        char = self._buf[self._pos]
        if char in ",]":
            self._pos += 1
            self._state = "next" if char == "," else TEXT
        else:
            self._finding("MISSING_END_MARKER", "the array of calls was not closed by ']'", self._calls - 1)
            self._state = TEXT
        return True

    def _cut(self) -> None:
        if self._state in ("open", "name", "id", "arguments"):
            body = self._reader.text if self._state == "arguments" else ""
            name = self._name if self._state in ("id", "arguments") else None
            self._call(
                name,
                body,
                id=self._id,
                whole=False,
                findings=(("CUT", f"the stream ended inside the call after {_START}"),),
            )
        elif self._state == "element":
            body = self._reader.text
            self._call(leading_name(body), body, whole=False, findings=(("CUT", "the stream ended inside the call"),))
        elif self._state == "next":
            self._finding("CUT", "the stream ended inside the array of calls, before its next call", None)
        elif self._state == "array":
            self._finding("MISSING_END_MARKER", "the array of calls was not closed by ']'", self._calls - 1)


def _is_name(char: str) -> bool:
    return char.isalnum() or char in _NAME_PUNCTUATION
