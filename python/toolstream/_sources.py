"""What a source is and how it is read: chunks, or raw event-stream bytes (reads or lines), and how it is closed."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["RAW", "RawReads", "aclose_source", "chunks_of", "close_source", "is_raw", "raw_reads"]

RAW = (bytes, bytearray, memoryview)
_BLOCK = 1 << 16  # bytes read at a time from a binary file


def chunks_of(source: Any) -> Iterator[Any]:
    """The items of a source: its chunks, or byte chunks of raw stream bytes (one blob, a binary file)."""
    if isinstance(source, RAW):
        return iter((source,))
    if isinstance(source, (str, dict)):
        hint = " (encode it: raw stream bytes are read as bytes)" if isinstance(source, str) else ""
        raise TypeError(
            "source must be an iterable of chunks (dicts or SDK chunk objects), an SDK stream, or raw event-stream "
            f"bytes (one bytes object, an iterable of bytes, a binary file); got a single {type(source).__name__}"
            + hint
        )
    if isinstance(source, io.IOBase) and not isinstance(source, io.TextIOBase):
        return iter(lambda: source.read(_BLOCK), b"")
    try:
        return iter(source)
    except TypeError:
        raise TypeError(
            "source must be an iterable of chunks (dicts or SDK chunk objects), an SDK stream, or raw event-stream "
            f"bytes; got {type(source).__name__}"
        ) from None


_FIELD = re.compile(r" *(?:(?:data|event|id|retry)(?::|$)|:)")


def is_raw(item: Any) -> bool:
    """Whether a source's first item says the source is raw event-stream bytes or text, not chunks.

    Bytes always are; a string is when it reads as the opening of an event stream (a field or a comment, or text
    with line ends) or of JSON lines (an object), as every real stream opens. Any other string, the empty one too,
    is a malformed chunk.
    """
    return isinstance(item, RAW) or (
        isinstance(item, str)
        and ("\n" in item or "\r" in item or item.lstrip().startswith("{") or _FIELD.match(item) is not None)
    )


class RawReads:
    """The items of a raw source as reads with their line ends, whichever way the client cut them.

    Reads of any size (httpx ``iter_bytes()``/``iter_text()``, a file) keep their line ends; line iterators
    (httpx ``iter_lines()``, requests ``iter_lines()``) drop them. Which one a source is shows at the first item
    holding a line end (reads) or at the first empty item (the blank line that ends every event: lines); until then
    items are held, at most one event's worth.
    """

    __slots__ = ("held", "lines")

    def __init__(self) -> None:
        self.lines: bool | None = None
        self.held: list[bytes] = []

    def take(self, item: Any) -> list[bytes]:
        data = _raw_bytes(item)
        if self.lines is None:
            if not data and not self.held:
                return []  # an empty read before anything: no evidence either way, and nothing to frame
            if data and b"\n" not in data and b"\r" not in data:
                if not _json_lines(self.held, data):
                    self.held.append(data)
                    return []
                self.lines = True
            else:
                self.lines = not data
            held, self.held = self.held, []
            return [self._read(piece) for piece in (*held, data)]
        return [self._read(data)]

    def rest(self) -> list[bytes]:
        """What is still held at the end: lines (a stream of one line and no blank line)."""
        held, self.held = self.held, []
        return [piece + b"\n" for piece in held]

    def _read(self, data: bytes) -> bytes:
        return data + b"\n" if self.lines else data


def _json_lines(held: list[bytes], data: bytes) -> bool:
    """Whether items without line ends are the lines of JSON-lines text.

    Ollama read through ``iter_lines()`` has no blank line to tell: a held item that closes an object, and a new one
    that opens the next, are two lines.
    """
    return (
        bool(held)
        and held[0].lstrip().startswith(b"{")
        and held[-1].rstrip().endswith(b"}")
        and (data.lstrip().startswith(b"{"))
    )


def _raw_bytes(item: Any) -> bytes:
    if isinstance(item, str):
        try:
            return item.encode("utf-8")
        except UnicodeEncodeError as error:
            raise TypeError(f"raw stream text holds a character UTF-8 cannot carry: {error}") from None
    if isinstance(item, RAW):
        return bytes(item)
    raise TypeError(
        f"raw stream chunks must be bytes, bytearray, memoryview or str (as the first was); got {type(item).__name__}"
    )


def raw_reads(items: Iterable[Any]) -> Iterator[bytes]:
    reads = RawReads()
    for item in items:
        yield from reads.take(item)
    yield from reads.rest()


def close_source(source: Any) -> None:
    close = getattr(source, "close", None)
    if callable(close):
        close()


async def aclose_source(source: Any) -> None:
    close = getattr(source, "aclose", None) or getattr(source, "close", None)
    if callable(close):
        outcome = close()
        if hasattr(outcome, "__await__"):
            await outcome
