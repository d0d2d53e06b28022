r"""Python calls of literals, as ``pythonic`` models write them: where one closes as it arrives, and its JSON text.

``Extent`` follows a call's text from its ``(`` to the ``)`` that closes it, knowing only quotes and brackets, so that
a ``)`` or ``]`` inside a string or a nested list ends nothing. ``read_call`` reads the whole call
``NAME(KEY=VALUE, ...)`` exactly as Python's grammar reads these literals: strings in either quote, triple-quoted or
not, with ``r``/``u`` prefixes, escapes decoded and adjacent strings joined; ints (``_``, ``0x``/``0o``/``0b``),
floats, a sign before a number (ASCII digits only, as the grammar has them); ``True``/``False``/``None``; lists and
tuples (as arrays); dicts with string keys.

Each value is written as JSON text, exactly: an int as its decimal digits (``0x10`` is ``16``, ``-0`` is ``0``); a
float as the literal written when that is JSON number syntax (``1.50``, ``1E5``), else as the nearest JSON syntax of
the same decimal (``.5`` is ``0.5``, ``5.`` is ``5.0``, ``1_0.5`` is ``10.5``, ``007.5`` is ``7.5``), so it denotes
the same double; a string as a JSON string (``json.dumps``, non-ASCII kept). What has no JSON form is refused: bytes,
f-strings, sets, complex and non-finite numbers, names, calls and any other expression, a dict key that is not a
string or is repeated, a string holding a surrogate, an int of more than 4300 decimal digits (Python's own limit on
an int's text). A ``\N{...}`` escape is refused too: the character a name stands for depends on the Unicode version
the reader knows, and a call must read the same everywhere.
"""

from __future__ import annotations

import math
import re
from typing import Final

from toolwire._model import Limits
from toolwire.reference._scanner import COMPLETE, INCOMPLETE, INVALID
from toolwire.reference.dialects._shared import quoted, utf8_len

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
_NUMBER: Final = re.compile(rf"(?P<float>{_FLOAT})(?P<fj>[jJ])?|(?P<int>{_INTEGER})(?P<ij>[jJ])?", re.ASCII)
# A float literal's parts once its underscores are gone: JSON writes the same number from them.
_FLOAT_PARTS: Final = re.compile(r"(?P<whole>\d*)(?:\.(?P<fraction>\d*))?(?P<exponent>[eE][+-]?\d+)?", re.ASCII)
# The most decimal digits an int's JSON text may have: Python's default limit on converting an int to text, kept as
# a rule of its own so that the reading does not depend on the interpreter's setting (and is bounded in time).
_MAX_INT_DIGITS: Final = 4300
# An int of more bits than this is at least 2**14285 > 10**4300: more than _MAX_INT_DIGITS digits.
_MAX_INT_BITS: Final = 14285
_DIGITS: Final = "0123456789"


def is_name_char(char: str, first: bool) -> bool:
    """Whether ``char`` may stand in a function's or keyword's name (ASCII identifiers, as models write them)."""
    # Compared as they are, not lowered: the Kelvin sign (U+212A) lowers to "k", U+0130 to "i" and a dot.
    return char == "_" or "a" <= char <= "z" or "A" <= char <= "Z" or (not first and "0" <= char <= "9")


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


def read_call(text: str, max_depth: int) -> tuple[str, str]:
    """The name and arguments (a JSON object's compact text) of the call ``text`` (``NAME(KEY=VALUE, ...)``).

    ``max_depth`` bounds its nesting as ``Extent`` does (the call's parentheses counting as 1), so that the reading
    is bounded whoever delimited the text.

    Raises:
        Malformed: The text is not a call of keyword arguments.
        NoJsonForm: A value is not a literal or has no JSON form.
    """
    return _Reader(text, max_depth).call()


class _Reader:
    """A recursive descent over one call's text, its recursion bounded by ``max_depth``."""

    def __init__(self, text: str, max_depth: int) -> None:
        self._text = text
        self._pos = 0
        self._room = max_depth - 1

    def call(self) -> tuple[str, str]:
        name = self._name()
        if name is None or not self._take("("):
            raise Malformed("the text is not NAME(...)")
        keys: set[str] = set()
        members: list[str] = []
        self._whitespace()
        while not self._take(")"):
            key = self._name()
            self._whitespace()
            if key is None or not self._take("=") or self._peek() == "=":
                raise Malformed("an argument without a keyword; a call's arguments are KEY=VALUE")
            if key in keys:
                raise Malformed(f"the keyword {quoted(key)} is given twice")
            keys.add(key)
            members.append(f"{quoted(key)}:{self._value()}")
            self._whitespace()
            if self._take(","):
                self._whitespace()
            elif self._peek() != ")":
                raise NoJsonForm(f"the value of {quoted(key)} is not a Python literal")
        if self._pos != len(self._text):
            raise Malformed("text after the call's ')'")
        return name, "{" + ",".join(members) + "}"

    # Characters.

    def _peek(self, ahead: int = 0) -> str:
        at = self._pos + ahead
        return self._text[at] if at < len(self._text) else ""

    def _take(self, literal: str) -> bool:
        if self._text.startswith(literal, self._pos):
            self._pos += len(literal)
            return True
        return False

    def _at_quote(self) -> bool:
        # Not `self._peek() in _QUOTES`: at the end of the text the peek is "", which is in every string.
        char = self._peek()
        return bool(char) and char in _QUOTES

    def _whitespace(self) -> None:
        while self._peek() and self._peek() in _WHITESPACE:
            self._pos += 1

    def _name(self) -> str | None:
        start = self._pos
        while self._peek() and is_name_char(self._peek(), self._pos == start):
            self._pos += 1
        return self._text[start : self._pos] or None

    # Values, each read as its JSON text.

    def _is_digit(self, ahead: int = 0) -> bool:
        char = self._peek(ahead)
        return bool(char) and char in _DIGITS

    def _value(self) -> str:
        self._whitespace()
        char = self._peek()
        if char in _OPENERS:
            if self._room == 0:
                raise NoJsonForm("a value nested past Limits.max_depth")
            self._room -= 1
            value = self._items("]") if self._take("[") else self._parenthesized() if char == "(" else self._braced()
            self._room += 1
            return value
        if char and char in "+-":
            return self._signed()
        if self._is_digit() or (char == "." and self._is_digit(1)):
            return self._number()
        start = self._pos
        word = self._name()
        if word is not None and self._at_quote() and word.lower() in _STRING_PREFIXES:
            self._pos = start
            return self._strings()
        if char and char in _QUOTES:
            return self._strings()
        constants = {"True": "true", "False": "false", "None": "null"}
        if word in constants:
            return constants[word]
        what = f"the name {quoted(word)}" if word else quoted(char) if char else "the end of the text"
        raise NoJsonForm(f"{what} is not a Python literal")

    def _items(self, close: str) -> str:
        """Values separated by ``,`` (one after the last allowed) up to ``close``, taken: a JSON array."""
        items: list[str] = []
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
        return "[" + ",".join(items) + "]"

    def _parenthesized(self) -> str:
        self._pos += 1
        self._whitespace()
        if self._take(")"):
            return "[]"
        first = self._value()
        self._whitespace()
        if self._take(")"):
            return first  # parentheses around one value, not a tuple
        if not self._take(","):
            raise NoJsonForm("a parenthesized expression that is not a literal")
        rest = self._items(")")
        return f"[{first}]" if rest == "[]" else f"[{first},{rest[1:]}"

    def _braced(self) -> str:
        self._pos += 1
        self._whitespace()
        if self._take("}"):
            return "{}"
        keys: set[str] = set()
        members: list[str] = []
        while True:
            # A key's JSON text: a string's starts with its quote, and two strings are equal when their texts are.
            key = self._value()
            self._whitespace()
            if not self._take(":"):
                raise NoJsonForm("a set has no JSON form")
            if not key.startswith('"'):
                raise NoJsonForm(f"the dict key {key} is not a string")
            if key in keys:
                raise NoJsonForm(f"the dict key {key} is repeated (reading it would drop a value)")
            keys.add(key)
            members.append(f"{key}:{self._value()}")
            self._whitespace()
            if self._take(","):
                self._whitespace()
                if self._take("}"):
                    break
            elif self._take("}"):
                break
            else:
                raise NoJsonForm("a dict that is not KEY: VALUE pairs separated by ','")
        return "{" + ",".join(members) + "}"

    def _signed(self) -> str:
        negative = self._peek() == "-"
        self._pos += 1
        self._whitespace()
        if not (self._is_digit() or (self._peek() == "." and self._is_digit(1))):
            raise NoJsonForm("a sign before something that is not a number")
        number = self._number()
        # Zero has no sign as an int (-0 is 0); a float keeps it (-0.0 is a double of its own).
        return "-" + number if negative and number != "0" else number

    def _number(self) -> str:
        match = _NUMBER.match(self._text, self._pos)
        if match is None or match["fj"] or match["ij"]:
            raise NoJsonForm("a complex number (or a malformed number) has no JSON form")
        self._pos = match.end()
        if is_name_char(self._peek(), False):
            raise NoJsonForm(f"{quoted(self._text[match.start() : self._pos + 1])} is not a Python number")
        digits = match[0].replace("_", "")
        if match["float"] is not None:
            if not math.isfinite(float(digits)):
                raise NoJsonForm(f"{match[0]} has no finite JSON value")
            return _json_float(digits)
        return _json_int(digits)

    def _strings(self) -> str:
        """One string literal, or several written side by side (Python joins them): a JSON string."""
        parts = [self._string()]
        while True:
            start = self._pos
            self._whitespace()
            char = self._peek()
            word_start = self._pos
            word = self._name()
            if (char and char in _QUOTES) or (word and word.lower() in _STRING_PREFIXES and self._at_quote()):
                self._pos = word_start
                parts.append(self._string())
                continue
            self._pos = start
            return quoted("".join(parts))

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
        if not char:
            raise NoJsonForm("a string that never closes")
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
        if char == "N":
            raise NoJsonForm("a \\N{...} escape: its character depends on the Unicode version the reader knows")
        return "\\" + char


def _json_int(digits: str) -> str:
    """The decimal JSON text of an int literal without its underscores (``0x``, ``0o``, ``0b`` or decimal)."""
    if digits[:2].lower() in ("0x", "0o", "0b"):
        value = int(digits[2:], {"x": 16, "o": 8, "b": 2}[digits[1].lower()])
        # Bounded before the conversion, which is quadratic in the digits: more bits are more digits for sure.
        text = _decimal(value) if value.bit_length() <= _MAX_INT_BITS else None
    else:
        text = digits.lstrip("0") or "0"
    if text is None or len(text) > _MAX_INT_DIGITS:
        raise NoJsonForm(f"an int of more than {_MAX_INT_DIGITS} decimal digits has no JSON form here")
    return text


def _decimal(value: int) -> str:
    """``value`` in decimal, without the interpreter's limit on an int's digits (the caller bounds them)."""
    parts: list[str] = []
    while value >= 10**18:
        value, low = divmod(value, 10**18)
        parts.append(f"{low:018d}")
    parts.append(str(value))
    return "".join(reversed(parts))


def _json_float(digits: str) -> str:
    """The JSON text of a float literal without its underscores: as written when JSON can write it so."""
    parts = _FLOAT_PARTS.fullmatch(digits)
    assert parts is not None  # `_NUMBER` matched the literal, so the parts are its whole
    whole = parts["whole"].lstrip("0") or "0"
    fraction = parts["fraction"]
    point = "" if fraction is None else "." + (fraction or "0")
    return whole + point + (parts["exponent"] or "")


def _code_point(value: int) -> str:
    if value > 0x10FFFF:
        raise NoJsonForm(f"the escape U+{value:X} is past Unicode")
    if 0xD800 <= value <= 0xDFFF:
        raise NoJsonForm(f"the escape U+{value:X} is a surrogate, which has no UTF-8 form")
    return chr(value)
