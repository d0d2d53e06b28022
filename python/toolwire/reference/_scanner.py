r"""Incremental JSON completeness scanner, in plain Python.

This is the readable twin of ``rust/core/src/scanner.rs``: the same byte-level state machine, with the
same verdicts, error kinds and offsets. It is fed a JSON value's bytes in fragments split anywhere and
answers, at any moment, whether the value is still incomplete, has completed (and where it ended), or
is invalid (at which byte, and why).

The grammar is strict RFC 8259: whitespace is only space, tab, line feed and carriage return; no NaN,
comments, trailing commas or leading zeros; UTF-8 is validated inside strings; a ``\u`` escape of a
UTF-16 surrogate must be part of a high-low pair. Any top-level value type is accepted.

Example:
    >>> scanner = Scanner(max_depth=128)
    >>> scanner.feed(b'{"city": "Par')
    'incomplete'
    >>> scanner.feed(b'is"}')
    'complete'
    >>> scanner.end
    17
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

__all__ = [
    "COMPLETE",
    "CONTROL_CHARACTER",
    "INCOMPLETE",
    "INVALID",
    "INVALID_ESCAPE",
    "INVALID_LITERAL",
    "INVALID_NUMBER",
    "INVALID_UTF8",
    "LONE_SURROGATE",
    "TOO_DEEP",
    "TRAILING_DATA",
    "UNEXPECTED_BYTE",
    "DuplicateKey",
    "ScanError",
    "Scanner",
]

INCOMPLETE = "incomplete"
COMPLETE = "complete"
INVALID = "invalid"

# Error kinds; the Rust enum ``ScanErrorKind`` has one variant per name (``as_str`` gives these).
UNEXPECTED_BYTE = "unexpected_byte"
INVALID_NUMBER = "invalid_number"
INVALID_LITERAL = "invalid_literal"
INVALID_ESCAPE = "invalid_escape"
LONE_SURROGATE = "lone_surrogate"
CONTROL_CHARACTER = "control_character"
INVALID_UTF8 = "invalid_utf8"
TRAILING_DATA = "trailing_data"
TOO_DEEP = "too_deep"


class ScanError(NamedTuple):
    """Where and why the input stopped being JSON.

    Attributes:
        offset: Absolute byte offset of the offending byte.
        kind: One of the error-kind names, e.g. ``"unexpected_byte"``.
    """

    offset: int
    kind: str


class DuplicateKey(NamedTuple):
    """A key repeated within one object.

    Attributes:
        path: RFC 6901 JSON pointer of the repeated member, e.g. ``"/a/0/b"``.
        offset: Absolute byte offset of the repeated key's opening quote.
    """

    path: str
    offset: int


# Modes: what the next byte must be.
_START = "start"  # before the top-level value
_VALUE = "value"  # after ':' or after ',' in an array: a value must follow
_ARRAY_FIRST = "array_first"  # after '[': a value or ']'
_OBJECT_FIRST = "object_first"  # after '{': a key or '}'
_KEY = "key"  # after ',' in an object: a key must follow
_COLON = "colon"  # after a key: ':' must follow
_AFTER_VALUE = "after_value"  # after a value in a container: ',' or the closing bracket
_DONE = "done"  # the top-level value ended
_STRING = "string"  # inside a string, between characters
_ESCAPE = "escape"  # after '\' in a string
_HEX = "hex"  # inside '\uXXXX'
_AFTER_HIGH = "after_high"  # after a high surrogate's 4th hex digit: '\' must follow
_AFTER_HIGH_BACKSLASH = "after_high_backslash"  # after a high surrogate and '\': 'u' must follow
_UTF8 = "utf8"  # inside a multi-byte UTF-8 sequence
_NUMBER = "number"
_LITERAL = "literal"
_INVALID = "invalid"

# Number sub-states, for -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
_MINUS = "minus"
_ZERO = "zero"
_INT = "int"
_DOT = "dot"
_FRAC = "frac"
_EXP = "exp"
_EXP_SIGN = "exp_sign"
_EXP_DIGITS = "exp_digits"
_NUMBER_CAN_END = frozenset({_ZERO, _INT, _FRAC, _EXP_DIGITS})

_WHITESPACE = frozenset(b" \t\n\r")
_NUMBER_ENDS = frozenset(b" \t\n\r,]}")
_DIGITS = frozenset(b"0123456789")
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {
    ord('"'): b'"',
    ord("\\"): b"\\",
    ord("/"): b"/",
    ord("b"): b"\b",
    ord("f"): b"\f",
    ord("n"): b"\n",
    ord("r"): b"\r",
    ord("t"): b"\t",
}
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}
_ROOT_KINDS = {
    ord("{"): "object",
    ord("["): "array",
    ord('"'): "string",
    ord("-"): "number",
    **{digit: "number" for digit in b"0123456789"},
    ord("t"): "true",
    ord("f"): "false",
    ord("n"): "null",
}

_ARRAY = "array"
_OBJECT = "object"


def _utf8_lead(byte: int) -> tuple[int, int, int] | None:
    """Continuation bytes a UTF-8 lead byte needs, and the range allowed for the first of them.

    The ranges follow Unicode table 3-7: they exclude overlong forms (after E0 and F0), encoded
    surrogates (after ED) and code points past U+10FFFF (after F4).

    Returns:
        ``(count, low, high)``, or None when ``byte`` cannot start a sequence.
    """
    if 0xC2 <= byte <= 0xDF:
        return (1, 0x80, 0xBF)
    if byte == 0xE0:
        return (2, 0xA0, 0xBF)
    if 0xE1 <= byte <= 0xEC or 0xEE <= byte <= 0xEF:
        return (2, 0x80, 0xBF)
    if byte == 0xED:
        return (2, 0x80, 0x9F)
    if byte == 0xF0:
        return (3, 0x90, 0xBF)
    if 0xF1 <= byte <= 0xF3:
        return (3, 0x80, 0xBF)
    if byte == 0xF4:
        return (3, 0x80, 0x8F)
    return None


def _pointer_token(key: bytes) -> str:
    """One RFC 6901 reference token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return "/" + key.decode("utf-8").replace("~", "~0").replace("/", "~1")


class _Frame:
    """One open array or object, with what paths and duplicate-key detection need.

    Attributes:
        kind: ``"array"`` or ``"object"``.
        index: The index of the array element being scanned.
        keys: The decoded keys seen so far in the object.
        current: The decoded key of the object member being scanned.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.index = 0
        self.keys: set[bytes] = set()
        self.current = b""


class Scanner:
    """An incremental, strict RFC 8259 JSON scanner fed fragments of one value's bytes.

    Bytes are never re-read once passed (the byte that ends a number is looked at twice, at most), so
    the work is linear in the bytes fed. Memory is the open containers plus the decoded keys of the
    objects currently open, until :meth:`stop_tracking_keys`.

    Attributes:
        bytes_seen: Total bytes fed, including any fed after the state became invalid.
        root_kind: The top-level value's type once its first byte was seen: ``"object"``, ``"array"``,
            ``"string"``, ``"number"``, ``"true"``, ``"false"`` or ``"null"`` (None if that byte can
            start no value).
    """

    def __init__(self, max_depth: int) -> None:
        """Creates a scanner.

        Args:
            max_depth: The most arrays and objects that may be open at once (0 allows only scalars).
        """
        self.max_depth = max_depth
        self.bytes_seen = 0
        self.root_kind: str | None = None
        self._mode = _START
        self._end: int | None = None
        self._error: ScanError | None = None
        # One frame per open container; its length is the depth.
        self._stack: list[_Frame] = []
        self._in_key = False
        self._tracking = True
        self._key = bytearray()
        self._key_offset = 0
        self._duplicates: list[DuplicateKey] = []
        # Duplicates kept pending at most; past it they are only counted (no pointer is built for them).
        self._duplicate_limit: int | None = None
        self._duplicates_past_limit = 0
        # Sub-state of the current mode.
        self._number = _MINUS
        self._literal = b""
        self._matched = 0
        self._hex_digits = 0
        self._hex_value = 0
        self._high: int | None = None  # a high surrogate awaiting its low half
        self._utf8_need = 0
        self._utf8_low = 0x80
        self._utf8_high = 0xBF
        # Modes inside strings and literals; the others are between tokens (`_structural_byte`) or in a
        # number (`_number_byte`, which may hand its terminating byte back).
        self._handlers: dict[str, Callable[[int, int], None]] = {
            _STRING: self._string_byte,
            _ESCAPE: self._escape_byte,
            _HEX: self._hex_byte,
            _AFTER_HIGH: self._after_high_byte,
            _AFTER_HIGH_BACKSLASH: self._after_high_backslash_byte,
            _UTF8: self._utf8_byte,
            _LITERAL: self._literal_byte,
        }

    @property
    def state(self) -> str:
        """``"incomplete"``, ``"complete"`` or ``"invalid"``."""
        if self._mode == _DONE:
            return COMPLETE
        if self._mode == _INVALID:
            return INVALID
        return INCOMPLETE

    @property
    def end(self) -> int | None:
        """Absolute offset just past the top-level value's last byte, once complete."""
        return self._end if self._mode == _DONE else None

    @property
    def error(self) -> ScanError | None:
        """Where and why the input was rejected, once invalid."""
        return self._error

    @property
    def is_started(self) -> bool:
        """Whether a non-whitespace byte has been seen."""
        return self.root_kind is not None or self._mode != _START

    @property
    def has_duplicate_keys(self) -> bool:
        """Whether duplicate keys were found and not yet taken (counted ones included)."""
        return bool(self._duplicates) or self._duplicates_past_limit > 0

    def limit_duplicate_keys(self, limit: int) -> None:
        """Keeps at most ``limit`` duplicate keys pending; those found past it are only counted."""
        self._duplicate_limit = limit

    def take_duplicate_keys_past_limit(self) -> int:
        """Drains the count of duplicate keys found past the limit (see :meth:`limit_duplicate_keys`)."""
        count, self._duplicates_past_limit = self._duplicates_past_limit, 0
        return count

    def take_duplicate_keys(self) -> list[DuplicateKey]:
        """Drains the duplicate keys found so far, in the order their closing quotes were seen.

        Returns:
            The duplicate keys not taken before.
        """
        duplicates, self._duplicates = self._duplicates, []
        return duplicates

    def stop_tracking_keys(self) -> None:
        """Forgets every tracked key and stops duplicate-key detection and path tracking.

        Verdicts are unchanged; duplicates already found remain pending until taken.
        """
        self._tracking = False
        self._forget_keys()

    def _forget_keys(self) -> None:
        self._key = bytearray()
        for frame in self._stack:
            frame.keys = set()
            frame.current = b""

    def feed(self, data: bytes) -> str:
        """Scans the next fragment.

        Args:
            data: The next bytes of the value; once invalid, they are only counted.

        Returns:
            The state after this fragment: ``"incomplete"``, ``"complete"`` or ``"invalid"``.
        """
        base = self.bytes_seen
        self.bytes_seen += len(data)
        if self._mode == _INVALID:
            return self.state
        i = 0
        while i < len(data):
            try:
                consumed = self._step(data[i], base + i)
            except _Rejected as rejected:
                self._mode = _INVALID
                self._error = rejected.error
                self._forget_keys()
                break
            if consumed:
                i += 1
        return self.state

    def finish(self) -> str:
        """Declares the end of input: a top-level number that is whole so far completes here.

        Anything else not yet closed (an open container or string, ``tru``, ``-``, ``1.``, empty or
        whitespace-only input) stays incomplete.

        Returns:
            The state: ``"incomplete"``, ``"complete"`` or ``"invalid"``.
        """
        if self._mode == _NUMBER and self._number in _NUMBER_CAN_END and not self._stack:
            self._mode = _DONE
            self._end = self.bytes_seen
        return self.state

    # The state machine. Each handler takes one byte and its absolute offset; `_step` returns False
    # when the byte ended a number without being part of it, so it must be looked at again.

    def _step(self, byte: int, offset: int) -> bool:
        if self._mode == _NUMBER:
            return self._number_byte(byte, offset)
        handler = self._handlers.get(self._mode, self._structural_byte)
        handler(byte, offset)
        return True

    def _after_high_byte(self, byte: int, offset: int) -> None:
        if byte != ord("\\"):
            raise _Rejected(offset, LONE_SURROGATE)
        self._mode = _AFTER_HIGH_BACKSLASH

    def _after_high_backslash_byte(self, byte: int, offset: int) -> None:
        if byte != ord("u"):
            raise _Rejected(offset, LONE_SURROGATE)
        self._begin_hex()

    def _structural_byte(self, byte: int, offset: int) -> None:
        """A byte between tokens: whitespace, punctuation or the first byte of a value."""
        if byte in _WHITESPACE:
            return
        mode = self._mode
        if mode == _START:
            self.root_kind = _ROOT_KINDS.get(byte)
            self._begin_value(byte, offset)
        elif mode in (_ARRAY_FIRST, _AFTER_VALUE) and byte == ord("]"):
            self._close(_ARRAY, offset)
        elif mode in (_OBJECT_FIRST, _AFTER_VALUE) and byte == ord("}"):
            self._close(_OBJECT, offset)
        elif mode in (_VALUE, _ARRAY_FIRST):
            self._begin_value(byte, offset)
        elif mode in (_OBJECT_FIRST, _KEY) and byte == ord('"'):
            self._begin_key(offset)
        elif mode == _COLON and byte == ord(":"):
            self._mode = _VALUE
        elif mode == _AFTER_VALUE and byte == ord(","):
            self._comma()
        elif mode == _DONE:
            raise _Rejected(offset, TRAILING_DATA)
        else:
            raise _Rejected(offset, UNEXPECTED_BYTE)

    def _begin_value(self, byte: int, offset: int) -> None:
        if byte == ord("{"):
            self._open(_OBJECT, offset)
            self._mode = _OBJECT_FIRST
        elif byte == ord("["):
            self._open(_ARRAY, offset)
            self._mode = _ARRAY_FIRST
        elif byte == ord('"'):
            self._in_key = False
            self._mode = _STRING
        elif byte == ord("-"):
            self._begin_number(_MINUS)
        elif byte == ord("0"):
            self._begin_number(_ZERO)
        elif byte in _DIGITS:
            self._begin_number(_INT)
        elif byte in _LITERALS:
            self._literal = _LITERALS[byte]
            self._matched = 1
            self._mode = _LITERAL
        else:
            raise _Rejected(offset, UNEXPECTED_BYTE)

    def _value_done(self, end: int) -> None:
        """A value ended just before offset ``end``."""
        if self._stack:
            self._mode = _AFTER_VALUE
        else:
            self._mode = _DONE
            self._end = end

    def _open(self, kind: str, offset: int) -> None:
        if len(self._stack) >= self.max_depth:
            raise _Rejected(offset, TOO_DEEP)
        self._stack.append(_Frame(kind))

    def _close(self, kind: str, offset: int) -> None:
        if not self._stack or self._stack[-1].kind != kind:
            raise _Rejected(offset, UNEXPECTED_BYTE)
        self._stack.pop()
        self._value_done(offset + 1)

    def _comma(self) -> None:
        frame = self._stack[-1]
        if frame.kind == _ARRAY:
            frame.index += 1
            self._mode = _VALUE
        else:
            self._mode = _KEY

    def _begin_key(self, offset: int) -> None:
        self._in_key = True
        self._key = bytearray()
        self._key_offset = offset
        self._mode = _STRING

    def _end_key(self) -> None:
        self._mode = _COLON
        if not self._tracking:
            return
        frame = self._stack[-1]
        key = bytes(self._key)
        if key in frame.keys:
            if self._duplicate_limit is not None and len(self._duplicates) >= self._duplicate_limit:
                self._duplicates_past_limit += 1
            else:
                path = self._pointer(self._stack[:-1]) + _pointer_token(key)
                self._duplicates.append(DuplicateKey(path, self._key_offset))
        else:
            frame.keys.add(key)
        frame.current = key

    @staticmethod
    def _pointer(frames: list[_Frame]) -> str:
        """RFC 6901 pointer of the members currently being scanned in ``frames``."""
        tokens = []
        for frame in frames:
            if frame.kind == _ARRAY:
                tokens.append(f"/{frame.index}")
            else:
                tokens.append(_pointer_token(frame.current))
        return "".join(tokens)

    def _collect(self, decoded: bytes) -> None:
        """Adds decoded bytes to the key being scanned, when keys are tracked."""
        if self._in_key and self._tracking:
            self._key += decoded

    def _string_byte(self, byte: int, offset: int) -> None:
        if byte == ord('"'):
            if self._in_key:
                self._end_key()
            else:
                self._value_done(offset + 1)
        elif byte == ord("\\"):
            self._mode = _ESCAPE
        elif byte < 0x20:
            raise _Rejected(offset, CONTROL_CHARACTER)
        elif byte < 0x80:
            self._collect(bytes([byte]))
        else:
            lead = _utf8_lead(byte)
            if lead is None:
                raise _Rejected(offset, INVALID_UTF8)
            self._utf8_need, self._utf8_low, self._utf8_high = lead
            self._collect(bytes([byte]))
            self._mode = _UTF8

    def _utf8_byte(self, byte: int, offset: int) -> None:
        if not self._utf8_low <= byte <= self._utf8_high:
            raise _Rejected(offset, INVALID_UTF8)
        self._collect(bytes([byte]))
        self._utf8_need -= 1
        self._utf8_low, self._utf8_high = 0x80, 0xBF
        if self._utf8_need == 0:
            self._mode = _STRING

    def _escape_byte(self, byte: int, offset: int) -> None:
        if byte == ord("u"):
            self._high = None
            self._begin_hex()
        elif byte in _SIMPLE_ESCAPES:
            self._collect(_SIMPLE_ESCAPES[byte])
            self._mode = _STRING
        else:
            raise _Rejected(offset, INVALID_ESCAPE)

    def _begin_hex(self) -> None:
        self._hex_digits = 0
        self._hex_value = 0
        self._mode = _HEX

    def _hex_byte(self, byte: int, offset: int) -> None:
        if byte not in _HEX_DIGITS:
            raise _Rejected(offset, INVALID_ESCAPE)
        self._hex_value = self._hex_value * 16 + int(chr(byte), 16)
        self._hex_digits += 1
        if self._hex_digits == 4:
            self._code_unit(self._hex_value, offset)

    def _code_unit(self, unit: int, offset: int) -> None:
        r"""A whole ``\uXXXX`` escape; ``offset`` is that of its 4th hex digit."""
        is_high = 0xD800 <= unit <= 0xDBFF
        is_low = 0xDC00 <= unit <= 0xDFFF
        if self._high is not None:
            if not is_low:
                raise _Rejected(offset, LONE_SURROGATE)
            code_point = 0x10000 + ((self._high - 0xD800) << 10) + (unit - 0xDC00)
            self._high = None
        elif is_high:
            self._high = unit
            self._mode = _AFTER_HIGH
            return
        elif is_low:
            raise _Rejected(offset, LONE_SURROGATE)
        else:
            code_point = unit
        self._collect(chr(code_point).encode("utf-8"))
        self._mode = _STRING

    def _begin_number(self, number_state: str) -> None:
        self._number = number_state
        self._mode = _NUMBER

    def _number_byte(self, byte: int, offset: int) -> bool:
        """Returns False when ``byte`` ended the number without being part of it."""
        state = self._number
        is_digit = byte in _DIGITS
        if state == _MINUS and byte == ord("0"):
            self._number = _ZERO
        elif (state == _MINUS and is_digit) or (state == _INT and is_digit):
            self._number = _INT
        elif state in (_ZERO, _INT) and byte == ord("."):
            self._number = _DOT
        elif state in (_DOT, _FRAC) and is_digit:
            self._number = _FRAC
        elif state in (_ZERO, _INT, _FRAC) and byte in b"eE":
            self._number = _EXP
        elif state == _EXP and byte in b"+-":
            self._number = _EXP_SIGN
        elif state in (_EXP, _EXP_SIGN, _EXP_DIGITS) and is_digit:
            self._number = _EXP_DIGITS
        elif state in _NUMBER_CAN_END and byte in _NUMBER_ENDS:
            self._value_done(offset)
            return False
        else:
            raise _Rejected(offset, INVALID_NUMBER)
        return True

    def _literal_byte(self, byte: int, offset: int) -> None:
        if byte != self._literal[self._matched]:
            raise _Rejected(offset, INVALID_LITERAL)
        self._matched += 1
        if self._matched == len(self._literal):
            self._value_done(offset + 1)


class _Rejected(Exception):
    """Raised inside the state machine at the first byte that is not JSON."""

    def __init__(self, offset: int, kind: str) -> None:
        super().__init__(offset, kind)
        self.error = ScanError(offset, kind)
