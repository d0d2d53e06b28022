"""What ``gemma4`` and ``functiongemma`` share: ``call:NAME{key:VALUE,...}`` between a start and an end marker.

One grammar in two spellings: the markers around a call and the token that quotes a string (Gemma 4's ``<|"|>``,
FunctionGemma's ``<escape>``). A call is ``call:`` then its name (a bare word) and an object whose keys are bare words
(no whitespace and none of ``:,{}[]<``) and whose values are strings between two quote tokens (nothing is escaped:
the next quote token ends the string), JSON numbers, ``true``, ``false``, ``null``, objects and arrays, whitespace
allowed between the parts. The arguments are that object as JSON, keys in the order written, each value typed by
how it is written and never by the schema: the templates quote strings and only strings, so a quoted ``10`` is the
string ``"10"`` (a schema that wants an integer then finds a string: ``TYPE_MISMATCH`` downstream).

A call is whole when its object closes; the end marker is then expected after whitespace (``MISSING_END_MARKER``
without it). Between an object's members the ``,`` may be missing after a value that ends on a token of its own (a
string, an object, an array): FunctionGemma leaves it out when streaming (vLLM's functiongemma tests), and the next
key cannot be read otherwise. A bare value that is no JSON literal (``hello``, ``+1``, ``NaN``), a number no double
holds (``1e999``) or a key repeated in one object makes the call invalid (``INVALID_ARGUMENTS``, its text kept) and
reading goes on to its close; text that breaks the grammar makes it ``MALFORMED_CALL``, its text running to the end
marker (or the next call's start). A start marker not followed by ``call:`` is text (``MARKER_IN_TEXT``).
"""

from __future__ import annotations

import math
import re
from typing import ClassVar, Final

from toolwire.reference.dialects._shared import TEXT, FindingCode, Parser, quoted, utf8_len

__all__ = ["GemmaParser", "bare_word", "literal_problem"]

CALL: Final = "call:"
TOO_LARGE: Final = "the call's text passed the limit on a call's bytes"
_WHITESPACE: Final = " \t\r\n"
# What ends a bare word (a name, a key, a literal): JSON's whitespace, the grammar's punctuation and the start of a
# quote token or marker.
_STOP: Final = frozenset(" \t\r\n:,{}[]<")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# What each place in an object or array expects, as a break names it.
_EXPECTED: Final = {
    "key_first": "a key or '}'",
    "key_next": "a key",
    "colon": "':'",
    "value_first": "a value or ']'",
    "value": "a value",
}


def bare_word(text: str) -> bool:
    """Whether ``text`` can be written bare: a non-empty run of characters none of which ends a bare word."""
    return bool(text) and not any(char in _STOP for char in text)


def literal_problem(token: str) -> str | None:
    """Why a bare value has no JSON form, or None when it is a JSON number, ``true``, ``false`` or ``null``."""
    if token in ("true", "false", "null"):
        return None
    if _NUMBER.fullmatch(token) is None:
        return f"the value {quoted(token)} is not a string, a number, true, false or null"
    # JSON reads a number with a fraction or an exponent as a double, which a huge one overflows.
    if any(char in token for char in ".eE") and math.isinf(float(token)):
        return f"{token} has no finite JSON value"
    return None


class GemmaParser(Parser):
    """The Gemma grammar; a dialect gives its markers (``starts`` holds the start marker), ``end`` and ``quote``."""

    end: ClassVar[str] = ""
    quote: ClassVar[str] = ""

    def _open(self, marker: str) -> None:
        self._marker = marker
        # The call's text from `call:` on, up to Limits.max_argument_bytes (then nothing is kept: `_overflow`).
        self._raw: list[str] = []
        self._bytes = 0
        self._overflow = False
        self._name = ""
        self._named = False
        # The arguments as JSON text, built as they are read.
        self._out: list[str] = []
        # Per open object, the keys it has (per open array, None).
        self._stack: list[set[str] | None] = []
        self._expect = "key_first"
        self._token = ""
        # The last value ended on a token of its own (a quote token, `}`, `]`): a key may follow without a ','.
        self._closed = False
        self._problem: str | None = None
        self._why = ""
        self._state = "open"

    # The call's text.

    def _keep(self, text: str) -> None:
        if self._overflow or not text:
            return
        self._bytes += utf8_len(text)
        if self._bytes > self.limits.max_argument_bytes:
            self._overflow = True
            self._raw, self._out, self._token = [], [], ""
            return
        self._raw.append(text)

    def _emit(self, text: str) -> None:
        if not self._overflow:
            self._out.append(text)

    def _consume(self, text: str) -> None:
        self._pos += len(text)
        self._keep(text)

    # The steps.

    def _advance_open(self) -> bool:
        called = self._starts_with(CALL)
        if called is None:
            return False
        if not called:
            self._text(self._marker)
            self._finding("MARKER_IN_TEXT", f"{self._marker} was not followed by {CALL}", None)
            self._state = TEXT
            return True
        self._consume(CALL)
        self._state = "name"
        return True

    def _advance_name(self) -> bool:
        piece = self._word()
        if not self._overflow:
            self._name += piece
        if self._pos == len(self._buf):
            return False
        char = self._buf[self._pos]
        if char != "{":
            return self._break(f"{quoted(char)} where the call's name or its '{{' belongs")
        if not self._name and not self._overflow:
            return self._break("the call has no name before its '{'")
        self._named = not self._overflow
        self._state = "body"
        return self._push(char)

    def _advance_body(self) -> bool:
        while self._state == "body":
            if self._expect == "string":
                if not self._read_string():
                    return False
                continue
            if self._expect in ("key", "bare"):
                piece = self._word()
                if not self._overflow:
                    self._token += piece
                if self._pos == len(self._buf):
                    return False
                self._end_word()
                continue
            start = self._pos
            while self._pos < len(self._buf) and self._buf[self._pos] in _WHITESPACE:
                self._pos += 1
            self._keep(self._buf[start : self._pos])
            if self._pos == len(self._buf) or not self._step(self._buf[self._pos]):
                return False
        return True

    def _word(self) -> str:
        """Takes the bare word's characters at the cursor (kept) and returns them."""
        start = self._pos
        while self._pos < len(self._buf) and self._buf[self._pos] not in _STOP:
            self._pos += 1
        piece = self._buf[start : self._pos]
        self._keep(piece)
        return piece

    def _step(self, char: str) -> bool:
        """One structural character at the cursor; False while a quote token there may still be arriving."""
        expect = self._expect
        if expect == "key_first" and char == "}":
            return self._close(char)
        if expect in ("key_first", "key_next"):
            return self._start_word("key") if char not in _STOP else self._break(self._where(char))
        if expect == "colon":
            if char != ":":
                return self._break(self._where(char))
            self._consume(char)
            self._emit(char)
            self._expect = "value"
            return True
        if expect in ("value_first", "value"):
            return self._value(char)
        return self._after_value(char)

    def _value(self, char: str) -> bool:
        if char == "]" and self._expect == "value_first":
            return self._close(char)
        if char in "{[":
            return self._push(char)
        if char == "<":
            quote = self._starts_with(self.quote)
            if quote is None:
                return False
            if quote:
                self._consume(self.quote)
                self._token = ""
                self._expect = "string"
                return True
        if char in _STOP:
            return self._break(self._where(char))
        return self._start_word("bare")

    def _after_value(self, char: str) -> bool:
        in_object = self._stack[-1] is not None
        if char == ",":
            self._consume(char)
            self._emit(char)
            self._expect = "key_next" if in_object else "value"
            return True
        if char == ("}" if in_object else "]"):
            return self._close(char)
        if in_object and self._closed and char not in _STOP:
            # The ',' FunctionGemma leaves out between members (vLLM's functiongemma streaming tests).
            self._emit(",")
            return self._start_word("key")
        expected = "',' or '}'" if in_object else "',' or ']'"
        return self._break(f"{quoted(char)} where {expected} belongs")

    def _where(self, char: str) -> str:
        return f"{quoted(char)} where {_EXPECTED[self._expect]} belongs"

    def _start_word(self, expect: str) -> bool:
        self._token = ""
        self._expect = expect
        return True

    def _end_word(self) -> None:
        """A key or a bare value ended at the cursor (not taken)."""
        token, self._token = self._token, ""
        if self._expect == "key":
            keys = self._stack[-1]
            assert keys is not None
            if not self._overflow:
                if token in keys and self._problem is None:
                    self._problem = f"the key {quoted(token)} is repeated in one object"
                keys.add(token)
            self._emit(quoted(token))
            self._expect = "colon"
            return
        if not self._overflow and self._problem is None:
            self._problem = literal_problem(token)
        self._emit(token)
        self._expect = "after_value"
        self._closed = False

    def _read_string(self) -> bool:
        parts: list[str] = []
        closed = self._release_until((self.quote,), parts.append)
        piece = "".join(parts)
        self._keep(piece)
        if not self._overflow:
            self._token += piece
        if closed is None:
            return False
        self._keep(self.quote)
        self._emit(quoted(self._token))
        self._token = ""
        self._expect = "after_value"
        self._closed = True
        return True

    def _push(self, char: str) -> bool:
        if len(self._stack) >= self.limits.max_depth:
            return self._break("the arguments nest deeper than Limits.max_depth")
        self._consume(char)
        self._emit(char)
        self._stack.append(set() if char == "{" else None)
        self._expect = "key_first" if char == "{" else "value_first"
        return True

    def _close(self, char: str) -> bool:
        self._consume(char)
        self._emit(char)
        self._stack.pop()
        self._expect = "after_value"
        self._closed = True
        if not self._stack:
            self._whole()
        return True

    def _whole(self) -> None:
        name = self._name if self._named else None
        if self._overflow:
            self._call(name, "", findings=(("TOO_LARGE", TOO_LARGE),))
        elif self._problem is not None:
            self._call(name, "".join(self._raw), findings=(("INVALID_ARGUMENTS", self._problem),))
        else:
            self._call(name, "".join(self._out))
        self._state = "after"

    def _break(self, why: str) -> bool:
        """The call's text stops having the grammar's shape at the cursor: it runs on to the end marker."""
        self._why = why
        self._state = "broken"
        return True

    def _broken_finding(self) -> tuple[FindingCode, str]:
        return ("TOO_LARGE", TOO_LARGE) if self._overflow else ("MALFORMED_CALL", self._why)

    def _advance_broken(self) -> bool:
        parts: list[str] = []
        marker = self._release_until((self.end, self._marker), parts.append)
        self._keep("".join(parts))
        if marker is None:
            return False
        name = self._name if self._named else None
        self._call(name, "".join(self._raw), findings=(self._broken_finding(),))
        if marker == self.end:
            self._state = TEXT
        else:
            self._open(marker)
        return True

    def _advance_after(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        closed = self._starts_with(self.end, at) if at < len(self._buf) else False
        if closed is None:
            return False
        if closed:
            self._pos = at + len(self.end)
        else:
            self._finding("MISSING_END_MARKER", f"no {self.end} after the call", self._calls - 1)
        self._state = TEXT
        return True

    def _cut(self) -> None:
        name = self._name if self._named else None
        findings: tuple[tuple[FindingCode, str], ...]
        if self._state == "broken":
            findings = (self._broken_finding(), ("CUT", f"the stream ended before {self.end}"))
        else:
            size: tuple[tuple[FindingCode, str], ...] = (("TOO_LARGE", TOO_LARGE),) if self._overflow else ()
            findings = (*size, ("CUT", "the stream ended inside the call"))
        self._call(name, "".join(self._raw), whole=False, findings=findings)
