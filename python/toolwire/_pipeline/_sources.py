"""What a source is and how it is read: chunks, or a raw body's items (bytes or text), and how it is closed.

A raw source's items go to the engine as they come: whether they are reads or lines, and which framing the body
uses, the engine tells from the stream itself (``docs/semantics.md``, "Raw bodies"), holding nothing here.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import AsyncIterable, Callable, Iterable, Iterator
from typing import IO, Any, TypeAlias

from toolwire._pipeline._frameworks import framework_adapter
from toolwire._pipeline._protocol import Emitted, Engine

__all__ = [
    "RAW",
    "AsyncSource",
    "RawBody",
    "Source",
    "aclose_source",
    "chunks_of",
    "close_source",
    "is_raw",
    "puller",
    "raw_bytes",
    "reader",
]

RawBody: TypeAlias = bytes | bytearray | memoryview
"""A raw HTTP response body, whole, or one read of it."""

Source: TypeAlias = RawBody | IO[bytes] | Iterable[object]
"""What ``reassemble`` and ``events`` read.

A raw body: one ``bytes`` object, a binary file, or an iterable of ``bytes`` or ``str`` split anywhere (httpx's
``iter_bytes()``, ``iter_text()``, ``iter_lines()``). Or an iterable of chunks: dicts, the official SDKs' event
objects, or the SDK's stream object itself. Its items are ``object`` because an SDK's chunk is an object of the
SDK's own class; a single ``str`` or ``dict`` is refused when the stream is made (``TypeError``).
"""

AsyncSource: TypeAlias = AsyncIterable[object]
"""What ``areassemble`` and ``aevents`` read: the async twin of ``Source`` (httpx's ``aiter_bytes()``, the SDKs'
async streams, an async generator of chunks)."""

RAW = (bytes, bytearray, memoryview)
_BLOCK = 1 << 16  # bytes read at a time from a binary file


def chunks_of(source: Source, *, text_deltas: bool = False) -> Iterator[Any]:
    """The items of a source: its chunks, or the reads of a raw body (one blob, a binary file).

    With ``text_deltas``, a single ``str`` is the model's whole text, one delta.
    """
    if isinstance(source, RAW) or (text_deltas and isinstance(source, str)):
        return iter((source,))
    if isinstance(source, (str, dict)):
        hint = " (encode it: raw stream bytes are read as bytes)" if isinstance(source, str) else ""
        raise TypeError(
            "source must be an iterable of chunks (dicts or SDK chunk objects), an SDK stream, or a raw response "
            f"body (one bytes object, an iterable of bytes, a binary file); got a single {type(source).__name__}" + hint
        )
    if isinstance(source, io.IOBase) and not isinstance(source, io.TextIOBase):
        return iter(lambda: source.read(_BLOCK), b"")
    try:
        return iter(source)
    except TypeError:
        raise TypeError(
            "source must be an iterable of chunks (dicts or SDK chunk objects), an SDK stream, or a raw response "
            f"body; got {type(source).__name__}"
        ) from None


_FIELD = re.compile(r" *(?:(?:data|event|id|retry)(?::|$)|:)")
# Members of the wire formats' events that no call object a model writes has (a Llama 4 call has "type", so it is not
# among them): a JSON line holding one is a body's line (Ollama's NDJSON read as text lines, say).
_ENVELOPE = frozenset({"choices", "candidates", "done", "object", "model", "usageMetadata", "contentBlockDelta"})


def _is_envelope_line(item: str) -> bool:
    """Whether ``item`` is one whole JSON object with a wire format's envelope member."""
    text = item.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and not _ENVELOPE.isdisjoint(value)


def is_raw(item: Any, *, text_deltas: bool = False) -> bool:
    """Whether a source's first item says the source is a raw body (bytes or text), not chunks.

    Bytes always are; a string is when it reads as the opening of an event stream (a field or a comment, or text
    with line ends), of JSON lines (an object) or of a JSON array, as every real body opens. Any other string, the
    empty one too, is a malformed chunk. With ``text_deltas`` (``dialect=`` without ``format=``), strings are the
    model's text deltas, which may hold line ends or open with ``{`` or ``[`` as a body does: a string is then a body
    only when it is unmistakably one, a server-sent event's field or comment, or a whole JSON line carrying a wire
    format's envelope (``choices``, ``candidates``, ``done``...), which no text a model writes opens with.
    """
    if isinstance(item, RAW):
        return True
    if not isinstance(item, str):
        return False
    if text_deltas:
        return _FIELD.match(item) is not None or _is_envelope_line(item)
    opening = item.lstrip()
    return "\n" in item or "\r" in item or opening.startswith(("{", "[")) or _FIELD.match(item) is not None


def reader(engine: Engine, first: Any) -> Callable[[Any], list[Emitted] | None]:
    """How each item of a source is read, as its first item tells: a raw body's item, or a chunk.

    A framework's chunk is read as the wire format's chunk it stands for. Decided once, so that a live stream's
    every read costs the read alone.
    """
    if is_raw(first, text_deltas=engine.text_deltas):
        return engine.feed_item
    adapt = framework_adapter(first)
    if adapt is None:
        return engine.feed
    return lambda chunk: engine.feed(adapt(chunk))


def puller(
    engine: Engine, first: Any, rest: Iterator[Any]
) -> tuple[Callable[[Iterator[Any]], list[Emitted] | None], Iterator[Any]]:
    """``reader``'s twin for a sync source read in bulk, decided the same way.

    Returns the engine's loop that reads items until a call is ready, and the items it reads (``first``, then
    ``rest``).
    """
    items: Iterator[Any] = itertools.chain((first,), rest)
    if is_raw(first, text_deltas=engine.text_deltas):
        return engine.pull_items, items
    adapt = framework_adapter(first)
    return engine.pull, items if adapt is None else map(adapt, items)


def raw_bytes(item: Any) -> bytes:
    """One item of a raw source as bytes: text as its UTF-8 (as the core reads it).

    Raises:
        TypeError: The item is neither bytes nor text, or text holding a character UTF-8 cannot carry.
    """
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
