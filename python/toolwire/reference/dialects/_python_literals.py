"""Python calls of literals, as ``pythonic`` models write them: where one closes as it arrives, and its JSON value.

``Extent`` follows a call's text from its ``(`` to the ``)`` that closes it, knowing only quotes and brackets, so that
a ``)`` or ``]`` inside a string or a nested list ends nothing. ``read_call`` reads the whole call
``NAME(KEY=VALUE, ...)`` exactly as Python's grammar reads these literals: strings in either quote, triple-quoted or
not, with ``r``/``u`` prefixes, escapes decoded and adjacent strings joined; ints (``_``, ``0x``/``0o``/``0b``),
floats, a sign before a number; ``True``/``False``/``None``; lists and tuples (as arrays); dicts with string keys.
What has no JSON form is refused: bytes, f-strings, sets, complex and non-finite numbers, names, calls and any other
expression, a dict key that is not a string or is repeated, a string holding a surrogate.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any, Final

from toolwire._model import Limits
from toolwire.reference._scanner import COMPLETE, INCOMPLETE, INVALID
from toolwire.reference.dialects._shared import utf8_len

__all__ = ["Extent", "Malformed", "NoJsonForm", "is_name_char", "read_call"]

_OPENERS: Final = {"(": ")", "[": "]", "{": "}"}
_CLOSERS: Final = frozenset(_OPENERS.values())
_QUOTES: Final = "'\""
_WHITESPACE: Final = " \t\r\n"
_STRING_PREFIXES: Final = frozenset({"r", "u", "b", "f", "rb", "br", "fr", "rf"})
_ESCAPES: Final = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_DECIMAL: Final = r"\d(?:_?\d)*"
_EXPONENT: Final = rf"[eE][+-]?{_DECIMAL}"
_FLOAT: Final = rf"(?:{_DECIMAL}\.(?:{_DECIMAL})?|\.{_DECIMAL})(?:{_EXPONENT})?|{_DECIMAL}{_EXPONENT}"
_INTEGER: Final = r"0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?\d)*|0(?:_?0)*"
_NUMBER: Final = re.compile(rf"(?P<float>{_FLOAT})(?P<fj>[jJ])?|(?P<int>{_INTEGER})(?P<ij>[jJ])?")


def is_name_char(char: str, first: bool) -> bool:
    """Whether ``char`` may stand in a function's or keyword's name (ASCII identifiers, as models write them)."""
    return char == "_" or ("a" <= char.lower() <= "z") or (not first and "0" <= char <= "9")


class Malformed(ValueError):
    """The text is not a call of keyword arguments: a positional argument, no ``=``, a repeated keyword."""


class NoJsonForm(ValueError):
    """A keyword's value is not a Python literal, or is one with no JSON form."""


class Extent:
    """A call's text from just past its ``(``, read as its characters arrive: where its ``)`` closes it.

    Nesting past ``Limits.max_depth`` (the call's parentheses counting as 1), a closing bracket that closes nothing
    open, a ``#`` (a comment could hide a bracket) and a newline in a one-line string break it. Its text is kept up
    to ``Limits.max_argument_bytes``; past that it is scanned, not stored (``overflow``).
    """

    def __init__(self, limits: Limits, kept: int) -> None:
        """An extent whose call already kept ``kept`` bytes (its name and ``(``)."""
        self._limit = limits.max_argument_bytes
        self._depth_limit = limits.max_depth
        self._stack = [")"]
        self._quote = ""
        self._triple = False
        self._escaped = False
        # Quote characters in a row: at a string's start, two may be an empty string or the start of a triple.
        self._run = 0
        self._parts: list[str] = []
        self._bytes = kept
        self.overflow = False

    @property
    def text(self) -> str:
        """The text taken so far (empty once it overflowed)."""
        return "".join(self._parts)

    def take(self, text: str) -> tuple[str, int]:
        """Reads ``text`` until the call closes or breaks: the state and the characters taken, as ``JsonReader``."""
        for taken, char in enumerate(text):
            state = self._step(char)
            if state == INVALID:
                return INVALID, taken
            self._keep(char)
            if state == COMPLETE:
                return COMPLETE, taken + 1
        return INCOMPLETE, len(text)

    def _step(self, char: str) -> str:
        if self._quote:
            if not self._in_string(char):
                return INVALID
            if self._quote:
                return INCOMPLETE
            if self._run == 0:
                return INCOMPLETE
            # The opening of an empty string ('') closed before this character, which is read outside strings.
            self._run = 0
        if char in _QUOTES:
            self._quote, self._triple, self._run = char, False, 1
            return INCOMPLETE
        if char in _OPENERS:
            if len(self._stack) >= self._depth_limit:
                return INVALID
            self._stack.append(_OPENERS[char])
            return INCOMPLETE
        if char in _CLOSERS:
            if char != self._stack[-1]:
                return INVALID
            self._stack.pop()
            return INCOMPLETE if self._stack else COMPLETE
        return INVALID if char == "#" else INCOMPLETE

    def _in_string(self, char: str) -> bool:
        """One character inside a string; False when it breaks the call. Clears ``_quote`` when the string closes."""
        quote = self._quote
        if self._run and not self._triple:
            # Still deciding between '', ''' and 'x: the characters right after the opening quote.
            if char == quote and self._run == 1:
                self._run = 2
                return True
            if char == quote:
                self._triple, self._run = True, 0
                return True
            if self._run == 2:
                self._quote = ""
                return True
            self._run = 0
        if self._escaped:
            self._escaped = False
            return True
        if char == "\\":
            self._escaped, self._run = True, 0
            return True
        if char == quote:
            self._run += 1
            if not self._triple or self._run == 3:
                self._quote, self._run = "", 0
            return True
        self._run = 0
        return self._triple or char != "\n"

    def _keep(self, char: str) -> None:
        if self.overflow:
            return
        self._bytes += utf8_len(char)
        if self._bytes > self._limit:
            self.overflow = True
            self._parts = []
            return
        self._parts.append(char)


def read_call(text: str) -> tuple[str, dict[str, Any]]:
    """The name and arguments of the call ``text`` (``NAME(KEY=VALUE, ...)``, as ``Extent`` delimited it).

    Raises:
        Malformed: The text is not a call of keyword arguments.
        NoJsonForm: A value is not a literal or has no JSON form.
    """
    return _Reader(text).call()


class _Reader:
    """A recursive descent over one call's text; ``Extent`` bounded its nesting, so the recursion is bounded."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0

    def call(self) -> tuple[str, dict[str, Any]]:
        name = self._name()
        if name is None or not self._take("("):
            raise Malformed("the text is not NAME(...)")
        arguments: dict[str, Any] = {}
        self._whitespace()
        while not self._take(")"):
            key = self._name()
            self._whitespace()
            if key is None or not self._take("=") or self._peek() == "=":
                raise Malformed("an argument without a keyword; a call's arguments are KEY=VALUE")
            if key in arguments:
                raise Malformed(f"the keyword {key!r} is given twice")
            arguments[key] = self._value()
            self._whitespace()
            if self._take(","):
                self._whitespace()
            elif self._peek() != ")":
                raise NoJsonForm(f"the value of {key!r} is not a Python literal")
        if self._pos != len(self._text):
            raise Malformed("text after the call's ')'")
        return name, arguments

    # Characters.

    def _peek(self, ahead: int = 0) -> str:
        at = self._pos + ahead
        return self._text[at] if at < len(self._text) else ""

    def _take(self, literal: str) -> bool:
        if self._text.startswith(literal, self._pos):
            self._pos += len(literal)
            return True
        return False

    def _whitespace(self) -> None:
        while self._peek() and self._peek() in _WHITESPACE:
            self._pos += 1

    def _name(self) -> str | None:
        start = self._pos
        while self._peek() and is_name_char(self._peek(), self._pos == start):
            self._pos += 1
        return self._text[start : self._pos] or None

    # Values.

    def _value(self) -> Any:
        self._whitespace()
        char = self._peek()
        if char == "[":
            self._pos += 1
            return self._items("]")
        if char == "(":
            return self._parenthesized()
        if char == "{":
            return self._braced()
        if char in "+-":
            return self._signed()
        if char.isdigit() or (char == "." and self._peek(1).isdigit()):
            return self._number()
        start = self._pos
        word = self._name()
        if word is not None and self._peek() in _QUOTES and word.lower() in _STRING_PREFIXES:
            self._pos = start
            return self._strings()
        if char in _QUOTES:
            return self._strings()
        constants = {"True": True, "False": False, "None": None}
        if word in constants:
            return constants[word]
        what = f"the name {word!r}" if word else f"{char!r}"
        raise NoJsonForm(f"{what} is not a Python literal")

    def _items(self, close: str) -> list[Any]:
        """Values separated by ``,`` (one after the last allowed) up to ``close``, taken."""
        items: list[Any] = []
        self._whitespace()
        while not self._take(close):
            items.append(self._value())
            self._whitespace()
            if not self._take(","):
                self._whitespace()
                if not self._take(close):
                    raise NoJsonForm("a list, tuple or dict that is not literals separated by ','")
                break
            self._whitespace()
        return items

    def _parenthesized(self) -> Any:
        self._pos += 1
        self._whitespace()
        if self._take(")"):
            return []
        first = self._value()
        self._whitespace()
        if self._take(")"):
            return first  # parentheses around one value, not a tuple
        if not self._take(","):
            raise NoJsonForm("a parenthesized expression that is not a literal")
        return [first, *self._items(")")]

    def _braced(self) -> Any:
        self._pos += 1
        self._whitespace()
        if self._take("}"):
            return {}
        mapping: dict[str, Any] = {}
        while True:
            key = self._value()
            self._whitespace()
            if not self._take(":"):
                raise NoJsonForm("a set has no JSON form")
            if not isinstance(key, str):
                raise NoJsonForm(f"the dict key {key!r} is not a string")
            if key in mapping:
                raise NoJsonForm(f"the dict key {key!r} is repeated (reading it would drop a value)")
            mapping[key] = self._value()
            self._whitespace()
            if self._take(","):
                self._whitespace()
                if self._take("}"):
                    return mapping
            elif self._take("}"):
                return mapping
            else:
                raise NoJsonForm("a dict that is not KEY: VALUE pairs separated by ','")

    def _signed(self) -> Any:
        sign = -1 if self._peek() == "-" else 1
        self._pos += 1
        self._whitespace()
        char = self._peek()
        if not (char.isdigit() or (char == "." and self._peek(1).isdigit())):
            raise NoJsonForm("a sign before something that is not a number")
        return sign * self._number()

    def _number(self) -> int | float:
        match = _NUMBER.match(self._text, self._pos)
        if match is None or match["fj"] or match["ij"]:
            raise NoJsonForm("a complex number (or a malformed number) has no JSON form")
        self._pos = match.end()
        if is_name_char(self._peek(), False):
            raise NoJsonForm(f"{self._text[match.start() : self._pos + 1]!r} is not a Python number")
        digits = match[0].replace("_", "")
        if match["float"] is not None:
            value = float(digits)
            if not math.isfinite(value):
                raise NoJsonForm(f"{match[0]} has no finite JSON value")
            return value
        try:
            return int(digits, 0)
        except ValueError as error:  # past the interpreter's limit on an integer's digits
            raise NoJsonForm(f"an integer too long to read: {error}") from None

    def _strings(self) -> str:
        """One string literal, or several written side by side (Python joins them)."""
        parts = [self._string()]
        while True:
            start = self._pos
            self._whitespace()
            char = self._peek()
            word_start = self._pos
            word = self._name()
            if char in _QUOTES or (word and word.lower() in _STRING_PREFIXES and self._peek() in _QUOTES):
                self._pos = word_start
                parts.append(self._string())
                continue
            self._pos = start
            return "".join(parts)

    def _string(self) -> str:
        prefix = (self._name() or "").lower()
        if "b" in prefix:
            raise NoJsonForm("a bytes literal has no JSON form")
        if "f" in prefix:
            raise NoJsonForm("an f-string is an expression, not a literal")
        quote = self._peek() * 3 if self._text.startswith(self._peek() * 3, self._pos) else self._peek()
        self._pos += len(quote)
        raw = "r" in prefix
        out: list[str] = []
        while not self._take(quote):
            char = self._peek()
            if not char:
                raise NoJsonForm("a string that never closes")  # Extent rules this out; kept for the reader's sake
            self._pos += 1
            if char != "\\":
                out.append(char)
            elif raw:
                out.append(char + self._peek())  # the backslash stays, and shields the quote after it
                self._pos += 1
            else:
                out.append(self._escape())
        return "".join(out)

    def _escape(self) -> str:
        """The character(s) an escape after a backslash stands for, Python's unrecognized escapes keeping the backslash."""
        char = self._peek()
        self._pos += 1
        if char == "\n":
            return ""
        if char in _ESCAPES:
            return _ESCAPES[char]
        if char in "01234567":
            digits = char
            while len(digits) < 3 and self._peek() and self._peek() in "01234567":
                digits += self._peek()
                self._pos += 1
            return chr(int(digits, 8))
        if char in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[char]
            digits = self._text[self._pos : self._pos + size]
            if len(digits) != size or any(digit not in "0123456789abcdefABCDEF" for digit in digits):
                raise NoJsonForm(f"a truncated \\{char} escape")
            self._pos += size
            return _code_point(int(digits, 16))
        if char == "N" and self._take("{"):
            end = self._text.find("}", self._pos)
            try:
                named = unicodedata.lookup(self._text[self._pos : end]) if end >= 0 else None
            except KeyError:
                named = None
            if named is None:
                raise NoJsonForm("a \\N{...} escape naming no character")
            self._pos = end + 1
            return named
        return "\\" + char


def _code_point(value: int) -> str:
    if value > 0x10FFFF:
        raise NoJsonForm(f"the escape U+{value:X} is past Unicode")
    if 0xD800 <= value <= 0xDFFF:
        raise NoJsonForm(f"the escape U+{value:X} is a surrogate, which has no UTF-8 form")
    return chr(value)
