r"""Where the strings and numbers of a JSON text are, read tolerantly, and which of them a secret-named member holds.

Redaction rewrites secrets in place inside JSON text that may be cut short (arguments still streaming), spread over
network reads, or not JSON at all; so this reads any text as a sequence of tokens rather than parsing it: a string
(its closing quote may be missing at the end), a number, a punctuation character, or any other run. A string
followed by ``:`` is a key; the string or number after a key that names a secret is secret, and so is each one
in an array there (an object there is not: its own keys decide).

``decode_spans`` gives a string's decoded characters with the text each was spelled with (``\u0073`` is one ``s``),
so that a secret found in decoded text can be rewritten where it was written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Final, NamedTuple

__all__ = ["Leaf", "decode", "decode_spans", "leaves"]

_TOKEN: Final = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'  # a string, its closing quote missing at the end of a text cut short
    r"|-?[0-9][0-9.eE+-]*"  # a number (or what passes for one)
    r"|[{}\[\]:,]"
    r'|[^\s"{}\[\]:,]+',  # a literal, or anything else
    re.DOTALL,
)
# Strings (and whether a colon makes them keys) and numbers only: what an event's own members need, in one pass.
_LEAF: Final = re.compile(r'(?P<string>"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z))(?P<key>\s*:)?|-?[0-9][0-9.eE+-]*', re.DOTALL)
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX: Final = frozenset("0123456789abcdefABCDEF")


class Leaf(NamedTuple):
    """A string or number token of a JSON text.

    Attributes:
        start: Where the token starts (a string's opening quote).
        end: Where it ends (after a string's closing quote, or at the end of a text cut short).
        string: Whether it is a string (else a number).
        key: Whether it is a member's key.
        secret: Whether it is (inside) the value of a member whose key names a secret.
    """

    start: int
    end: int
    string: bool
    key: bool
    secret: bool


def decode(text: str, start: int, end: int) -> str:
    """The decoded value of the string token ``text[start:end]`` (tolerantly, when it is cut short or invalid)."""
    token = text[start:end]
    if "\\" not in token and len(token) > 1 and token.endswith('"'):
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return decode_spans(text, start, end)[0]
    return value if isinstance(value, str) else decode_spans(text, start, end)[0]


def decode_spans(text: str, start: int, end: int) -> tuple[str, Sequence[int]]:
    """The decoded value of the string token ``text[start:end]`` and where each of its characters is spelled.

    Returns:
        The value, and ``len(value) + 1`` offsets into ``text`` (a ``range`` when no character is escaped): character
        ``k`` is spelled by ``text[offsets[k]:offsets[k + 1]]`` (one character, an escape, or a surrogate pair of escapes). An escape cut
        short at the end is one U+FFFD; an escape JSON does not know stands for the character after the backslash.
    """
    stop = end - 1 if end - start > 1 and text[end - 1] == '"' and not _escaped(text, start, end - 1) else end
    if "\\" not in text[start:stop]:
        return text[start + 1 : stop], range(start + 1, stop + 1)  # each character spelled by itself
    chars: list[str] = []
    offsets: list[int] = []
    index = start + 1
    while index < stop:
        offsets.append(index)
        char = text[index]
        if char != "\\":
            chars.append(char)
            index += 1
            continue
        code = text[index + 1 : index + 2]
        if code == "u":
            unit = _hex(text, index + 2, stop)
            if unit is None:
                chars.append("\ufffd")
                index = min(index + 6, stop)
                continue
            index += 6
            low = _hex(text, index + 2, stop) if 0xD800 <= unit < 0xDC00 and text[index : index + 2] == "\\u" else None
            if low is not None and 0xDC00 <= low < 0xE000:
                chars.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                index += 6
            else:
                chars.append(chr(unit))
        elif code:
            chars.append(_ESCAPES.get(code, code))
            index += 2
        else:
            chars.append("\ufffd")
            index += 1
    offsets.append(stop)
    return "".join(chars), offsets


def _hex(text: str, start: int, stop: int) -> int | None:
    digits = text[start : start + 4]
    if start + 4 > stop or len(digits) < 4 or not _HEX.issuperset(digits):
        return None
    return int(digits, 16)


def _escaped(text: str, start: int, quote: int) -> bool:
    """Whether the quote at ``quote`` is escaped (an odd run of backslashes before it, after ``start``)."""
    backslashes = 0
    index = quote - 1
    while index > start and text[index] == "\\":
        backslashes += 1
        index -= 1
    return backslashes % 2 == 1


def leaves(
    text: str, secret_name: Callable[[str], bool] | None = None, hint: re.Pattern[str] | None = None
) -> Iterator[Leaf]:
    """Every string and number token of a text, in order, with whether it is a key and whether it is secret.

    A value is secret when it is a string or a number under a key that ``secret_name`` names, or an element of an
    array there (nested arrays too); an object there is not, its own keys decide (a JSON schema's ``"password":
    {"type": "string"}`` names a property, it does not hold one).

    Args:
        text: JSON text, possibly cut short or invalid.
        secret_name: Whether a (decoded) key names a secret; None: no value is secret.
        hint: A regex every secret key's spelling matches; keys that do not are not decoded.
    """
    if secret_name is None:
        yield from _plain_leaves(text)
        return
    secret_arrays: list[bool] = []  # per open container: whether it is an array whose scalars are secret
    value_secret = False  # the next value is a secret member's
    held: tuple[int, int, bool] | None = None  # a string that is a key when ":" follows
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        char = text[start]
        if held is not None:
            held_start, held_end, held_secret = held
            held = None
            key = char == ":"
            yield Leaf(held_start, held_end, True, key, held_secret and not key)
            if key:
                value_secret = _names_secret(text, held_start, held_end, secret_name, hint)
                continue
        inside = value_secret or (bool(secret_arrays) and secret_arrays[-1])
        value_secret = False
        if char == '"':
            held = (start, end, inside)
        elif char in "{[":
            secret_arrays.append(char == "[" and inside)
        elif char in "}]":
            secret_arrays[-1:] = []
        elif char == "-" or char.isdigit():
            yield Leaf(start, end, False, False, inside)
    if held is not None:
        yield Leaf(held[0], held[1], True, False, held[2])


def _plain_leaves(text: str) -> Iterator[Leaf]:
    """``leaves`` when no value is secret: strings and numbers in one regex pass."""
    for match in _LEAF.finditer(text):
        string_end = match.end("string")
        if string_end >= 0:
            yield Leaf(match.start(), string_end, True, match.start("key") >= 0, False)
        else:
            yield Leaf(match.start(), match.end(), False, False, False)


def _names_secret(
    text: str, start: int, end: int, secret_name: Callable[[str], bool] | None, hint: re.Pattern[str] | None
) -> bool:
    """Whether the key spelled at ``text[start:end]`` names a secret."""
    if secret_name is None:
        return False
    if hint is not None and not hint.search(text, start, end) and "\\" not in text[start:end]:
        return False  # an escape may spell what the hint looks for
    return secret_name(decode(text, start, end))
