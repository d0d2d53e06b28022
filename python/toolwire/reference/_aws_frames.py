"""AWS event-stream bodies, the twin of ``rust/core/src/aws_frames.rs`` (read its module docs for the rules).

Each message: a prelude (total length, headers length, their CRC32), headers, the payload, the CRC32 of everything
before it; both CRCs checked (``zlib.crc32`` is the CRC-32 AWS uses). A message becomes the event the AWS SDK yields:
``{"<:event-type>": payload}`` or ``{"<:exception-type>": payload}`` without the payload's ``p`` padding member, and an
``error`` message ``{"error": {"code", "message"}}``. One longer than the limit is refused at its prelude.
"""

from __future__ import annotations

import json
import zlib

from toolwire.reference._framed import Event, FramingError, OnEvent, too_large
from toolwire.reference._json import loads

__all__ = ["PRELUDE", "AwsFrames", "prelude_fits"]

PRELUDE = 12
_MAX_HEADERS = 128 * 1024
# Header value sizes by type (bool true, bool false, byte, short, int, long, -, -, timestamp, uuid); 6 and 7 (bytes,
# string) carry their own u16 length.
_SIZES = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_READ = (":message-type", ":event-type", ":exception-type", ":error-code", ":error-message")


class _Broken(Exception):
    """A message that cannot be read: the problem, numbered by the framer."""


def _prelude(data: bytes) -> tuple[int, int]:
    """The total and headers lengths of the prelude opening ``data``, checked."""
    total, headers, crc = (int.from_bytes(data[at : at + 4], "big") for at in (0, 4, 8))
    computed = zlib.crc32(data[:8])
    if computed != crc:
        raise _Broken(f"the prelude's CRC32 is 0x{crc:08x}, its bytes give 0x{computed:08x}")
    if total < PRELUDE + 4 or headers > total - PRELUDE - 4 or headers > _MAX_HEADERS:
        raise _Broken(f"a total length of {total} bytes cannot hold a prelude, {headers} bytes of headers and a CRC")
    return total, headers


def prelude_fits(prelude: bytes) -> bool:
    """Whether twelve bytes are a plausible prelude: its CRC32 matches and the lengths hold together."""
    try:
        _prelude(prelude)
    except _Broken:
        return False
    return True


class AwsFrames:
    """The framer of an AWS event-stream body."""

    def __init__(self, limit: int) -> None:
        """Refuse messages longer than ``limit`` bytes."""
        self._limit = limit
        self._held = bytearray()
        self._total: int | None = None
        self._messages = 0

    def feed(self, data: bytes, on_event: OnEvent) -> None:
        """Read ``data``, calling ``on_event`` for each message it completes."""
        while data:
            if not self._held and len(data) >= PRELUDE:
                total = self._checked_prelude(data)
                if len(data) >= total:
                    self._message(data[:total], on_event)
                    data = data[total:]
                    continue
            want = PRELUDE if self._total is None else self._total
            take = want - len(self._held)
            self._held += data[:take]
            data = data[take:]
            if self._total is None and len(self._held) == PRELUDE:
                self._total = self._checked_prelude(bytes(self._held))
            if self._total == len(self._held):
                message = bytes(self._held)
                self._held.clear()
                self._total = None
                self._message(message, on_event)

    def finish(self, on_event: OnEvent) -> None:
        """End the body: one that ends inside a message was cut (``on_event`` gets nothing: messages come whole)."""
        if self._held:
            want = PRELUDE if self._total is None else self._total
            raise self._fail(f"the body ended inside it, after {len(self._held)} of its {want} bytes: it was cut")

    def _checked_prelude(self, data: bytes) -> int:
        try:
            total, _ = _prelude(data)
        except _Broken as broken:
            raise self._fail(str(broken)) from None
        if total > self._limit:
            raise too_large("an AWS event-stream message", self._limit)
        return total

    def _message(self, message: bytes, on_event: OnEvent) -> None:
        try:
            total, headers_length = _prelude(message)
            body = message[: total - 4]
            crc = int.from_bytes(message[total - 4 :], "big")
            computed = zlib.crc32(body)
            if computed != crc:
                raise _Broken(f"the message's CRC32 is 0x{crc:08x}, its bytes give 0x{computed:08x}")
            headers = _headers(body[PRELUDE : PRELUDE + headers_length])
            event = _event(headers, body[PRELUDE + headers_length :])
        except _Broken as broken:
            raise self._fail(str(broken)) from None
        self._messages += 1
        on_event(Event(b"message", event))

    def _fail(self, problem: str) -> FramingError:
        return FramingError(f"AWS event-stream message {self._messages}: {problem}")


def _headers(data: bytes) -> dict[str, str]:
    """The headers toolwire reads (each of the others skipped by its type)."""
    found: dict[str, str] = {}
    at = 0
    while at < len(data):
        length = data[at]
        name_bytes = data[at + 1 : at + 1 + length]
        if len(name_bytes) < length or at + 1 + length >= len(data):
            raise _Broken("a header runs past the headers' length")
        if not length:
            raise _Broken("a header has an empty name")
        kind = data[at + 1 + length]
        name = name_bytes.decode("utf-8", "replace")
        at += 2 + length
        value = data[at : at + _value_size(data, at, kind, name)]
        at += len(value)
        if name_bytes.decode("latin-1") not in _READ:
            continue
        if name in found:
            raise _Broken(f"header `{name}` is repeated")
        try:
            text = value[2:].decode("utf-8") if kind == 7 else None
        except UnicodeDecodeError:
            text = None
        if text is None:
            raise _Broken(f"header `{name}` is not a UTF-8 string")
        found[name] = text
    return found


def _value_size(data: bytes, at: int, kind: int, name: str) -> int:
    """The size of the header value of type ``kind`` at ``at``, checked to fit in ``data``."""
    if kind in (6, 7):
        if at + 2 > len(data):
            raise _Broken("a header runs past the headers' length")
        size = 2 + int.from_bytes(data[at : at + 2], "big")
    elif kind in _SIZES:
        size = _SIZES[kind]
    else:
        raise _Broken(f"header `{name}` has type {kind}, which the protocol does not define")
    if at + size > len(data):
        raise _Broken("a header runs past the headers' length")
    return size


def _event(headers: dict[str, str], payload: bytes) -> bytes:
    """The event the AWS SDK yields for a message, as JSON."""
    message_type = headers.get(":message-type")
    if message_type is None:
        raise _Broken("it has no `:message-type` header")
    if message_type == "error":
        error = {"code": headers.get(":error-code"), "message": headers.get(":error-message")}
        return json.dumps({"error": error}, separators=(",", ":")).encode()
    if message_type == "event":
        key = headers.get(":event-type")
        if key is None:
            raise _Broken("an `event` message without an `:event-type` header")
    elif message_type == "exception":
        key = headers.get(":exception-type")
        if key is None:
            raise _Broken("an `exception` message without an `:exception-type` header")
    else:
        shown_type = json.dumps(message_type, ensure_ascii=False)
        raise _Broken(f"its `:message-type` is {shown_type}, not event, exception or error")
    try:
        value = loads(payload.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is one
        value = None
    if not isinstance(value, dict):
        raise _Broken("its payload is not a JSON object")
    value.pop("p", None)
    # ASCII-escaped, so that a lone surrogate the payload escaped reads back as the same character.
    return json.dumps({key: value}, separators=(",", ":")).encode()
