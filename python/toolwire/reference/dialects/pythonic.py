"""``pythonic``: a Python list of calls ``[f(a=1), g(b='x')]`` (Llama 3.2, Llama 4, LFM2, Olmo 3).

A bare ``[`` anywhere in the text may open the list, so it is held back only while it can still be one: its head is
``[NAME(`` (no whitespace, as models write it and vLLM's rule reads it), and its first call is held to its ``)``; a
first call that is not ``NAME(KEY=VALUE, ...)`` makes the whole of it text (``MARKER_IN_TEXT`` once the head was
whole), reading resuming after it. Llama 4 may wrap the list in ``<|python_start|>`` … ``<|python_end|>`` and LFM2 in
``<|tool_call_start|>`` … ``<|tool_call_end|>``: what follows a wrapper is calls, valid or not, and its end marker is
expected after the list (``MISSING_END_MARKER`` without it). Each call is handed over at its ``)``, its values Python
literals converted exactly (``_python_literals``); a value with no JSON form makes that call invalid
(``INVALID_ARGUMENTS``) and its siblings stand. Calls are separated by ``,`` (one may follow the last); the list ends
at ``]``. Reasoning is ``<think>…</think>`` (LFM2.5), inside which a call is reasoning text.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference._scanner import COMPLETE, INCOMPLETE
from toolwire.reference.dialects._python_literals import Extent, Malformed, NoJsonForm, is_name_char, read_call
from toolwire.reference.dialects._shared import TEXT, FindingCode, Parser, quoted, utf8_len

__all__ = ["PythonicParser"]

_WRAPPERS: Final = {"<|python_start|>": "<|python_end|>", "<|tool_call_start|>": "<|tool_call_end|>"}
_WHITESPACE: Final = " \t\r\n"


class PythonicParser(Parser):
    """The ``pythonic`` dialect."""

    starts = ("[", *_WRAPPERS)
    think = ("<think>", "</think>")

    def _open(self, marker: str) -> None:
        self._end = _WRAPPERS.get(marker)
        self._held = marker
        # Whether the list is known to hold calls: a wrapper says so, a bare list's first call does.
        self._confirmed = self._end is not None
        self._name = ""
        self._extent: Extent | None = None
        self._state = "open" if self._confirmed else "name"

    def _advance_open(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] != "[":
            return self._marker_is_text(f"{self._held.strip()} was not followed by a list")
        self._pos += 1
        self._held += "["
        self._state = "first"
        return True

    def _advance_first(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == "]":
            self._pos += 1
            self._held += "]"
            return self._marker_is_text("an empty call list")
        self._state = "name"
        return True

    def _marker_is_text(self, why: str) -> bool:
        self._text(self._held)
        self._finding("MARKER_IN_TEXT", f"{why}; kept as text", None)
        self._state = TEXT
        return True

    def _advance_name(self) -> bool:
        buf = self._buf
        while self._pos < len(buf):
            char = buf[self._pos]
            if char == "(" and self._name:
                self._pos += 1
                self._extent = Extent(self.limits, utf8_len(self._name) + 1)
                self._state = "arguments"
                return True
            if not is_name_char(char, not self._name):
                return self._broken(f"{quoted(char)} where a call's name or its '(' belongs")
            self._name += char
            self._pos += 1
            if len(self._name) > self.limits.max_argument_bytes:  # an ASCII name: its chars are its bytes
                return self._broken("a name past the limit on a call's bytes", code="TOO_LARGE")
        return False

    def _advance_arguments(self) -> bool:
        extent = self._extent
        assert extent is not None
        state, taken = extent.take(self._rest)
        self._pos += taken
        if extent.overflow:
            # Past the limit after a list's head, a bare list is held as calls: it can no longer be released whole,
            # whether it then closes, breaks or waits for more.
            self._confirmed = True
        if state == INCOMPLETE:
            return False
        # Joined only once the call closed or broke: joined on every delta, a call fed a char at a time is quadratic.
        text = f"{self._name}({extent.text}"
        if state == COMPLETE:
            if extent.overflow:
                self._hand_over(self._name, "", (("TOO_LARGE", "the call's text passed the limit on a call's bytes"),))
                return True
            try:
                name, arguments = read_call(text, self.limits.max_depth)
            except Malformed as error:
                if not self._confirmed:
                    return self._not_a_call(text)
                self._hand_over(self._name, text, (("MALFORMED_CALL", str(error)),))
            except NoJsonForm as error:
                self._hand_over(self._name, text, (("INVALID_ARGUMENTS", str(error)),))
            else:
                self._hand_over(name, arguments, ())
            return True
        if not self._confirmed:
            return self._not_a_call(text)  # it broke before its first call was whole
        return self._broken("the call's brackets or quotes break here", text=text)

    def _hand_over(self, name: str, arguments: str, findings: tuple[tuple[FindingCode, str], ...]) -> None:
        self._call(name, arguments, findings=findings)
        self._confirmed = True
        self._state = "after"

    def _not_a_call(self, text: str) -> bool:
        """A bare list whose first call is not one: all of it is text; reading resumes at the cursor."""
        self._held += text
        return self._marker_is_text("a list that began as calls is not one")

    def _broken(self, why: str, *, code: FindingCode = "MALFORMED_CALL", text: str | None = None) -> bool:
        """The list breaks at the cursor: an unconfirmed one is text, in a confirmed one it is an invalid call.

        The list ends there and the rest is text.
        """
        if not self._confirmed:
            self._text(self._held + self._name)
            self._state = TEXT
            return True
        name = self._name if self._state == "arguments" else None
        self._call(name, self._name if text is None else text, findings=((code, why),))
        self._state = TEXT
        return True

    def _advance_after(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if at == len(self._buf):
            return False  # more may come; at the end of the stream the list is cut (``_cut``)
        char = self._buf[at]
        if char == ",":
            self._pos = at + 1
            self._state = "next"
        elif char == "]":
            self._pos = at + 1
            self._state = TEXT if self._end is None else "end"
        else:
            self._finding(
                "MISSING_END_MARKER", f"the call list was not closed by ']' before {quoted(char)}", self._calls - 1
            )
            self._state = TEXT
        return True

    def _advance_next(self) -> bool:
        self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == "]":
            self._pos += 1
            self._state = TEXT if self._end is None else "end"
            return True
        self._name = ""
        self._state = "name"
        return True

    def _advance_end(self) -> bool:
        assert self._end is not None
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        closed = self._starts_with(self._end, at) if at < len(self._buf) else False
        if closed is None:
            return False
        if closed:
            self._pos = at + len(self._end)
        else:
            self._finding("MISSING_END_MARKER", f"no {self._end} after the call list", self._calls - 1)
        self._state = TEXT
        return True

    def _cut(self) -> None:
        if self._state in ("after", "next"):
            self._finding("CUT", "the stream ended inside the call list", None)
        elif self._state == "name" and not self._confirmed:
            self._text(self._held + self._name)
        elif self._state == "arguments":
            assert self._extent is not None
            arguments = "" if self._extent.overflow else f"{self._name}({self._extent.text}"
            size: tuple[tuple[FindingCode, str], ...] = ()
            if self._extent.overflow:
                size = (("TOO_LARGE", "the call's text passed the limit on a call's bytes"),)
            self._call(
                self._name, arguments, whole=False, findings=(*size, ("CUT", "the stream ended inside the call"))
            )
        else:
            # A wrapper, or a confirmed list's next call, cut before its name was whole.
            self._call(None, self._name, whole=False, findings=(("CUT", "the stream ended before the call's name"),))
