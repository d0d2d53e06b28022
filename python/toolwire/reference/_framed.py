"""What every framing of a raw body shares: the events it hands over and its errors (``rust/core/src/framing.rs``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

__all__ = ["Event", "FramingError", "OnEvent", "shown", "too_large", "unrecognized"]


class Event(NamedTuple):
    """One framed event: its kind and its JSON.

    ``kind`` is a server-sent event's ``event`` field (``b"message"`` when it named none, and for every other
    framing); ``data`` the event's JSON.
    """

    kind: bytes
    data: bytes


class FramingError(ValueError):
    """A raw body that could not be framed; the message is the core's, word for word."""


def shown(data: bytes) -> str:
    """Bytes as a Python ``bytes`` literal in double quotes shows them (``b"<html>"``), as the core writes them."""
    out = ['b"']
    for byte in data:
        if byte == 0x22:
            out.append('\\"')
        elif byte == 0x5C:
            out.append("\\\\")
        elif byte == 0x0A:
            out.append("\\n")
        elif byte == 0x0D:
            out.append("\\r")
        elif byte == 0x09:
            out.append("\\t")
        elif 0x20 <= byte <= 0x7E:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    out.append('"')
    return "".join(out)


def too_large(what: str, limit: int) -> FramingError:
    """The error of anything held past the limit."""
    return FramingError(f"{what} is larger than {limit} bytes (Limits.max_event_bytes)")


def unrecognized(opening: bytes) -> FramingError:
    """The error of a body of no framing toolwire reads."""
    return FramingError(
        "the body is none of the framings toolwire reads (server-sent events, JSON lines, a JSON array, AWS "
        f"event-stream messages); it opens with {shown(opening)}"
    )


OnEvent = Callable[[Event], None]
