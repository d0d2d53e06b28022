"""AWS event-stream messages: where the parts of a recorded one lie, its prelude and CRCs rewritten, a new one framed.

A message is a prelude (total length, headers length, both big-endian ``u32``, then the CRC32 of those 8 bytes),
headers (``name length: u8``, name, ``type: u8``, value), the payload and the CRC32 of everything before it
(``docs/semantics.md``, "Raw bodies"). The core frames a recorded body first (``toolwire._core.frame_body``): only
the messages it read are walked here, so their lengths hold together. A message whose payload or header strings are
rewritten gets its total length and both CRCs written anew, in place, so that the body still frames. The local
endpoint frames a recording of Bedrock's events (``message``) as Bedrock sends them.
"""

from __future__ import annotations

import bisect
import zlib
from typing import Final, NamedTuple

__all__ = ["Message", "message", "messages", "reframed"]

PRELUDE: Final = 12
_CRC: Final = 4
# Header value sizes by type (bool true, bool false, byte, short, int, long, -, -, timestamp, uuid); types 6 and 7
# (bytes, string) carry a u16 length.
_SIZES: Final = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_STRING: Final = 7
#: A rewrite of the bytes: ``(start, end, replacement)``.
Edit = tuple[int, int, bytes]


class Message(NamedTuple):
    """Where one message lies in the body.

    Attributes:
        start: Its first byte (its prelude's).
        end: The end of its trailing CRC.
        payload: Where its payload starts (it ends at ``end - 4``).
        strings: The span of each string header's value.
    """

    start: int
    end: int
    payload: int
    strings: list[tuple[int, int]]


def _word(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 4], "big")


def messages(data: bytes, start: int, count: int) -> list[Message]:
    """The first ``count`` messages of a body whose first one starts at ``start`` (messages the core has framed)."""
    found: list[Message] = []
    at = start
    for _ in range(count):
        total, headers = _word(data, at), _word(data, at + 4)
        payload = at + PRELUDE + headers
        found.append(Message(at, at + total, payload, _string_values(data, at + PRELUDE, payload)))
        at += total
    return found


def _string_values(data: bytes, at: int, end: int) -> list[tuple[int, int]]:
    spans = []
    while at < end:
        kind = data[at + 1 + data[at]]
        at += 2 + data[at]
        if kind in _SIZES:
            at += _SIZES[kind]
            continue
        size = int.from_bytes(data[at : at + 2], "big")
        if kind == _STRING:
            spans.append((at + 2, at + 2 + size))
        at += 2 + size
    return spans


def reframed(data: bytes, found: list[Message], edits: list[Edit]) -> list[Edit]:
    """The edits, and for each message they change, its total length and both CRCs written anew (ascending).

    Every edit lies inside a message's payload or one of its string header values, and an edit of a header keeps its
    length (the headers' length is not rewritten).
    """
    if not found:
        return edits
    starts = [message.start for message in found]
    by_message: dict[int, list[Edit]] = {}
    for edit in edits:
        by_message.setdefault(bisect.bisect_right(starts, edit[0]) - 1, []).append(edit)
    out = list(edits)
    for number, inside in by_message.items():
        message = found[number]
        body = bytearray()
        position = message.start
        for start, end, replacement in inside:
            body += data[position:start] + replacement
            position = end
        body += data[position : message.end - _CRC]
        body[:4] = (len(body) + _CRC).to_bytes(4, "big")
        body[8:PRELUDE] = zlib.crc32(body[:8]).to_bytes(4, "big")
        out += [
            (message.start, message.start + 4, bytes(body[:4])),
            (message.start + 8, message.start + PRELUDE, bytes(body[8:PRELUDE])),
            (message.end - _CRC, message.end, zlib.crc32(body).to_bytes(4, "big")),
        ]
    return sorted(edit for edit in out if data[edit[0] : edit[1]] != edit[2])


def message(headers: dict[str, str], payload: bytes) -> bytes:
    """One message with string headers, framed as AWS frames it (both CRC32s)."""
    head = b"".join(
        bytes([len(name)]) + name.encode() + bytes([_STRING]) + len(value.encode()).to_bytes(2, "big") + value.encode()
        for name, value in headers.items()
    )
    prelude = (PRELUDE + len(head) + len(payload) + _CRC).to_bytes(4, "big") + len(head).to_bytes(4, "big")
    body = prelude + zlib.crc32(prelude).to_bytes(4, "big") + head + payload
    return body + zlib.crc32(body).to_bytes(4, "big")
