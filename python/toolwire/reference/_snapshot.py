"""Honest partial arguments, in plain Python: the twin of the core's ``rust/py/snapshot.rs``.

A call's arguments as they stand: complete values as values, the value still arriving as a ``Pending`` (its kind
and its text so far), a member whose key arrived but whose value has not started as ``Pending("value", "")``, a key
still arriving not shown. Values are built once, as they complete, into containers already handed out; a snapshot
only places the pending leaf. The snapshot is the live value, updated in place by later fragments. On text that is
not JSON the builder stops where it went wrong and keeps what it had (validation is the scanner's job).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toolwire._model import Pending

__all__ = ["Partial"]

_WHITESPACE = b" \t\r\n"
_NUMBER = frozenset(b"0123456789+-.eE")


@dataclass(slots=True)
class _Frame:
    container: dict[str, Any] | list[Any]
    expect: str = "first"  # first | next | colon | value | comma_or_end
    key: str | None = None
    shown: bool = False  # the pending placeholder is in the container (at ``key``, or as the last item)


@dataclass(slots=True)
class Partial:
    """The partial value of one call's arguments."""

    stack: list[_Frame] = field(default_factory=list)
    root: Any = None
    started: bool = False
    token: str | None = None  # None | "string" | "key" | "number" | "literal"
    raw: bytearray = field(default_factory=bytearray)
    escaped: bool = False
    failed: bool = False

    def feed(self, data: bytes) -> None:
        """Read the next argument bytes."""
        for byte in data:
            if self.failed:
                return
            self._byte(byte)

    def snapshot(self) -> Any:
        """The arguments as they stand: None before any value started."""
        pending = self._pending()
        if not self.stack:
            return self.root if self.started else pending
        frame = self.stack[-1]
        if isinstance(frame.container, dict):
            if frame.key is not None:
                frame.container[frame.key] = pending if pending is not None else Pending("value", "")
                frame.shown = True
        elif pending is not None:
            if frame.shown:
                frame.container[-1] = pending
            else:
                frame.container.append(pending)
                frame.shown = True
        return self.root

    def _pending(self) -> Pending | None:
        if self.token == "string":
            return Pending("string", _decoded_prefix(bytes(self.raw)))
        if self.token == "number":
            return Pending("number", self.raw.decode("utf-8", "replace"))
        if self.token == "literal":
            return Pending("literal", self.raw.decode("utf-8", "replace"))
        return None

    def _byte(self, byte: int) -> None:
        if self.token in ("string", "key"):
            if self.escaped:
                self.escaped = False
            elif byte == 0x5C:  # backslash
                self.escaped = True
            elif byte == 0x22:  # the closing quote
                self._string_done()
                return
            self.raw.append(byte)
            return
        if self.token in ("number", "literal"):
            if (byte in _NUMBER) if self.token == "number" else (chr(byte).isascii() and chr(byte).isalpha()):
                self.raw.append(byte)
                return
            self._scalar_done()
        self._structural(byte)

    def _structural(self, byte: int) -> None:
        if byte in _WHITESPACE:
            return
        frame = self.stack[-1] if self.stack else None
        if frame is None and self.started:
            self.failed = True  # text after the whole value
            return
        in_object = frame is not None and isinstance(frame.container, dict)
        expect = frame.expect if frame is not None else None
        character = chr(byte)
        if in_object and expect in ("first", "next"):
            self._in_object(character, expect)
        elif expect in (None, "value", "first", "next"):
            self._value(character, closing=expect == "first")
        elif character == ":" and expect == "colon":
            self._expect("value")
        elif character == "," and expect == "comma_or_end":
            self._expect("next")
        elif expect == "comma_or_end" and character == ("}" if in_object else "]"):
            self.stack.pop()
        else:
            self.failed = True

    def _in_object(self, character: str, expect: str) -> None:
        """Where an object expects a key: its quote, or (right after ``{``) the closing brace."""
        if character == '"':
            self._start("key")
        elif character == "}" and expect == "first":
            self.stack.pop()
        else:
            self.failed = True

    def _value(self, character: str, *, closing: bool) -> None:
        """Where a value is expected (in an array right after ``[``, also the closing bracket)."""
        if character in "{[":
            container: dict[str, Any] | list[Any] = {} if character == "{" else []
            self._insert(container)
            self.stack.append(_Frame(container))
        elif character == '"':
            self._start("string")
        elif character == "-" or "0" <= character <= "9":
            self._start("number", ord(character))
        elif character in "tfn":
            self._start("literal", ord(character))
        elif character == "]" and closing:
            self.stack.pop()
        else:
            self.failed = True

    def _start(self, token: str, first: int | None = None) -> None:
        self.token = token
        self.raw = bytearray() if first is None else bytearray((first,))
        self.escaped = False

    def _expect(self, expect: str) -> None:
        if self.stack:
            self.stack[-1].expect = expect

    def _string_done(self) -> None:
        token, self.token = self.token, None
        try:
            text = json.loads(b'"' + bytes(self.raw) + b'"', strict=False)
        except ValueError:
            self.failed = True
            return
        if token == "key":
            frame = self.stack[-1]
            frame.key, frame.expect = text, "colon"
            return
        self._insert(text)

    def _scalar_done(self) -> None:
        self.token = None
        try:
            value = json.loads(bytes(self.raw))
        except ValueError:
            self.failed = True
            return
        self._insert(value)

    def _insert(self, value: Any) -> None:
        """Place a value (complete, or a container just opened) where the parent expects it."""
        if not self.stack:
            self.root, self.started = value, True
            return
        frame = self.stack[-1]
        if isinstance(frame.container, dict):
            if frame.key is not None:
                frame.container[frame.key] = value
                frame.key = None
        elif frame.shown:
            frame.container[-1] = value
        else:
            frame.container.append(value)
        frame.expect, frame.shown = "comma_or_end", False


def _decoded_prefix(raw: bytes) -> str:
    """A string's content so far, an escape still arriving left out until it is whole."""
    end = len(raw)
    for _ in range(2):  # twice: cutting an unfinished low half can leave its high half at the end
        slash = _open_escape(raw[:end])
        if slash is None:
            break
        end = slash
    try:
        return str(json.loads(b'"' + raw[:end] + b'"', strict=False))
    except ValueError:
        return raw[:end].decode("utf-8", "replace")


def _open_escape(raw: bytes) -> int | None:
    """Where the escape that ends ``raw`` starts, when it is not whole yet (a high surrogate awaits its low half)."""
    slash = raw.rfind(b"\\")
    if slash < 0:
        return None
    run = len(raw[: slash + 1]) - len(raw[: slash + 1].rstrip(b"\\"))
    if run % 2 == 0:
        return None  # escaped backslashes
    escape = raw[slash + 1 :]
    if not escape:
        return slash
    if escape[:1] == b"u":
        return slash if len(escape) < 5 or _high_surrogate(escape[1:5]) else None
    return None


def _high_surrogate(digits: bytes) -> bool:
    try:
        return 0xD800 <= int(digits, 16) < 0xDC00
    except ValueError:
        return False
