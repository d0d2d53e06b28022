"""The events API, for interfaces that show a stream's calls as they form (``toolwire.events``).

Each event names the call's ``seq``: ``ToolCallStarted`` when a call opens, ``ArgumentsDelta`` for each piece of its
arguments (``snapshot()`` gives the arguments as they stand, honestly: a value still arriving is a ``Pending``),
``ToolCallReady`` / ``ToolCallInvalid`` when it is handed over, ``TextDelta`` for content text, and ``Finished`` with
the ``StreamResult`` at the end. Every call is handed over (an invalid one as ``ToolCallInvalid``): nothing is
raised for a call, only for a source that is not a stream.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolwire._common._closing import AcloseBlock, ClosingBlock
from toolwire._model import InvalidToolCall, StreamResult, ToolCall
from toolwire._pipeline._observers import Watches, watch_stream
from toolwire._pipeline._protocol import Engine
from toolwire._pipeline._sources import AsyncSource, Source, aclose_source, chunks_of, close_source, reader
from toolwire._pipeline._streams import result_so_far

__all__ = [
    "ArgumentsDelta",
    "AsyncEventStream",
    "Event",
    "EventStream",
    "Finished",
    "TextDelta",
    "ToolCallInvalid",
    "ToolCallReady",
    "ToolCallStarted",
]


# The events are built in Rust (``rust/py/events.rs``) when the extension is there; these dataclasses are the same
# classes for an interpreter without it, named as users know them.


@dataclass(frozen=True, slots=True)
class _TextDelta:
    """Content text of a choice, as it arrived."""

    choice: int
    text: str


@dataclass(frozen=True, slots=True)
class _ToolCallStarted:
    """A call opened; its id and name as they stand then (a name may still come later: see ``ToolCallReady``)."""

    seq: int
    choice: int
    index: int | None
    id: str | None
    name: str | None


@dataclass(frozen=True, slots=True, match_args=False)
class _ArgumentsDelta:
    """A piece of a call's arguments text, as it arrived."""

    # The engine behind ``snapshot`` is no part of the value: not matched, as it is not compared.
    __match_args__ = ("seq", "choice", "fragment")

    seq: int
    choice: int
    fragment: str
    _snapshot: Callable[[int], Any] = field(repr=False, compare=False)

    def snapshot(self) -> Any:
        """The call's arguments as they stand now.

        Complete values are values, the value still arriving a ``toolwire.Pending``. The live value, updated in
        place by later fragments: copy it to keep one.
        """
        return self._snapshot(self.seq)


class _HandOver:
    """What the hand-over events share: the call, and its seq."""

    __slots__ = ()
    call: ToolCall | InvalidToolCall

    @property
    def seq(self) -> int:
        """The call's seq."""
        return self.call.seq


@dataclass(frozen=True, slots=True)
class _ToolCallReady(_HandOver):
    """A whole, valid call, handed over."""

    call: ToolCall


@dataclass(frozen=True, slots=True)
class _ToolCallInvalid(_HandOver):
    """An invalid call, handed over (answer it with ``call.to_tool_result(format)``)."""

    call: InvalidToolCall


@dataclass(frozen=True, slots=True)
class _Finished:
    """The stream ended."""

    result: StreamResult


_FALLBACKS = (_TextDelta, _ToolCallStarted, _ArgumentsDelta, _ToolCallReady, _ToolCallInvalid, _Finished)
for _fallback in _FALLBACKS:
    _fallback.__name__ = _fallback.__qualname__ = _fallback.__name__.removeprefix("_")

if TYPE_CHECKING:
    from toolwire._core import ArgumentsDelta, Finished, TextDelta, ToolCallInvalid, ToolCallReady, ToolCallStarted
else:
    try:
        from toolwire._core import ArgumentsDelta, Finished, TextDelta, ToolCallInvalid, ToolCallReady, ToolCallStarted
    except ImportError:  # no compiled extension
        TextDelta, ToolCallStarted, ArgumentsDelta, ToolCallReady, ToolCallInvalid, Finished = _FALLBACKS

_END = object()

Event = TextDelta | ToolCallStarted | ArgumentsDelta | ToolCallReady | ToolCallInvalid | Finished


def _events(engine: Engine) -> list[Event]:
    """The events of the engine's progress since the last call, in order.

    A list, not a generator: the steps are already taken, and a stream yielding from a list resumes one frame per
    event, not two.
    """
    snapshot = engine.snapshot
    events: list[Event] = []
    for step in engine.take_progress():
        kind = step[0]
        if kind == "arguments":  # first: most of a stream's steps are pieces of arguments
            events.append(ArgumentsDelta(step[1], step[2], step[3], snapshot))
        elif kind == "text":
            events.append(TextDelta(step[1], step[2]))
        elif kind == "started":
            events.append(ToolCallStarted(*step[1:]))
        elif isinstance(step[1], ToolCall):
            events.append(ToolCallReady(step[1]))
        else:
            events.append(ToolCallInvalid(step[1]))
    return events


class _Seen:
    """What an event stream came to, for its watchers: its result once ``Finished`` was made, or what stopped it."""

    __slots__ = ("error", "result")

    def __init__(self) -> None:
        self.result: StreamResult | None = None
        self.error: BaseException | None = None

    def stopped(self, error: BaseException) -> None:
        # A consumer that closes the stream once ``Finished`` came has read it to its end: no early close.
        if not (isinstance(error, GeneratorExit) and self.result is not None):
            self.error = error

    def tell(self, watch: Watches | None, engine: Engine) -> None:
        if watch is None:
            return
        watch.ended(self.result if self.result is not None else result_so_far(engine), self.error)


class EventStream(ClosingBlock, Iterator[Event]):
    """The events of one stream; the source is closed at the end, on an error, or when this is closed early.

    ``with toolwire.events(...) as events:`` closes it when the block ends.
    """

    def __init__(self, source: Source, engine: Engine) -> None:
        """Wrap an engine around a source (use ``toolwire.events`` rather than this)."""
        self._engine = engine
        self._events = _run(chunks_of(source, text_deltas=engine.text_deltas), source, engine, watch_stream("events"))

    def __iter__(self) -> EventStream:
        """Return self."""
        return self

    def __next__(self) -> Event:
        """The next event."""
        return next(self._events)

    def snapshot(self, seq: int) -> Any:
        """The arguments of call ``seq`` as they stand (see ``ArgumentsDelta.snapshot``); None before any came."""
        return self._engine.snapshot(seq)

    def close(self) -> None:
        """Stop reading and close the source (idempotent)."""
        self._events.close()


def _run(chunks: Iterator[Any], source: Any, engine: Engine, watch: Watches | None) -> Generator[Event, None, None]:
    seen = _Seen()
    try:
        first = next(chunks, _END)
        if first is not _END:  # the first item says what the source is: a raw body, or chunks
            read = reader(engine, first)
            for item in itertools.chain((first,), chunks):
                read(item)
                yield from _events(engine)
        engine.end()
        yield from _events(engine)
        seen.result = engine.result()
        yield Finished(seen.result)
    except BaseException as error:
        seen.stopped(error)
        raise
    finally:
        close_source(source)
        seen.tell(watch, engine)


class AsyncEventStream(AcloseBlock):
    """The async twin of ``EventStream``: ``async for event in ...``; ``async with`` awaits ``aclose()`` at its end."""

    def __init__(self, source: AsyncSource, engine: Engine) -> None:
        """Wrap an engine around an async source (use ``toolwire.aevents`` rather than this)."""
        if not hasattr(source, "__aiter__"):
            raise TypeError(f"source must be an async iterable of chunks; got {type(source).__name__}")
        self._engine = engine
        self._events = _arun(source, engine, watch_stream("events"))

    def __aiter__(self) -> AsyncEventStream:
        """Return self."""
        return self

    def __anext__(self) -> Awaitable[Event]:
        """The next event (the generator's own awaitable, not a coroutine awaiting it)."""
        return self._events.__anext__()

    def snapshot(self, seq: int) -> Any:
        """The arguments of call ``seq`` as they stand; None before any came."""
        return self._engine.snapshot(seq)

    async def aclose(self) -> None:
        """Stop reading and close the source (idempotent)."""
        await self._events.aclose()


async def _arun(source: AsyncIterable[Any], engine: Engine, watch: Watches | None) -> AsyncGenerator[Event, None]:
    seen = _Seen()
    try:
        items = aiter(source)
        first = await anext(items, _END)
        if first is not _END:  # the first item says what the source is: a raw body, or chunks
            read = reader(engine, first)
            read(first)
            for event in _events(engine):
                yield event
            async for item in items:
                read(item)
                for event in _events(engine):
                    yield event
        engine.end()
        for event in _events(engine):
            yield event
        seen.result = engine.result()
        yield Finished(seen.result)
    except BaseException as error:
        seen.stopped(error)
        raise
    finally:
        await aclose_source(source)
        seen.tell(watch, engine)
