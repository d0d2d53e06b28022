"""The streams ``reassemble`` and ``areassemble`` return: an engine driven by iterating over a source.

An engine (``_protocol``) reads chunks and hands over calls; a stream adds what both implementations share and that
is not reassembly: ``on_invalid``, the sync/async iteration protocols, the result kept through an exception, and
the source closed when the consumer stops early (``_sources``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Awaitable, Generator, Iterator
from typing import Any

from toolwire._common._closing import AcloseBlock, ClosingBlock
from toolwire._model import InvalidToolCall, Severity, StreamResult, Violation
from toolwire._pipeline._observers import Watches, watch_stream
from toolwire._pipeline._protocol import Emitted, Engine
from toolwire._pipeline._sources import RAW, AsyncSource, Source, aclose_source, chunks_of, close_source, puller, reader
from toolwire.errors import InvalidToolCallError, MalformedChunkError, StreamContractError

__all__ = ["AsyncToolCallStream", "ToolCallStream", "carry_result", "contract_errors", "result_so_far"]

_END = object()


def _checked(calls: list[Emitted], on_invalid: str, engine: Engine) -> Iterator[Emitted]:
    """The calls in hand-over order; under ``raise``, the valid ones before an invalid one come out first."""
    for call in calls:
        if on_invalid == "raise" and isinstance(call, InvalidToolCall):
            raise InvalidToolCallError(call, engine.result())
        yield call


def contract_errors(result: StreamResult) -> tuple[Violation, ...]:
    """The error-severity findings of a result: under ``on_invalid="raise"``, what ``StreamContractError`` raises."""
    return tuple(v for v in result.violations if v.severity is Severity.ERROR)


class _Outcome:
    """Where a stream's generator leaves its result, so the generator needs no reference to its stream.

    A stream that ended keeps its engine and builds the result when it is first asked for: a consumer that never asks
    makes the engine build no call twice (the core keeps records, not objects, of the calls it handed over).
    """

    __slots__ = ("closed", "ended", "error", "stopped_by", "value")

    def __init__(self) -> None:
        self.value: StreamResult | None = None
        self.ended: Engine | None = None
        self.stopped_by: str | None = None
        self.error: BaseException | None = None
        self.closed = False

    def describe(self) -> str:
        """Where the stream stands, for its repr: reading, closed, ended with its calls, or stopped by an error."""
        if self.value is None and self.ended is None:
            if self.stopped_by is not None:
                return f"stopped by {self.stopped_by}"
            return "closed before its end" if self.closed else "reading"
        value = self.result()
        calls = len(value.calls) + len(value.invalid_calls)
        counted = f"{calls} call{'' if calls == 1 else 's'}, {len(value.invalid_calls)} invalid"
        if self.stopped_by is not None:
            return f"stopped by {self.stopped_by} after {counted}"
        return f"ended: {counted}, ok={value.ok}"

    def result(self) -> StreamResult:
        if self.value is None:
            if self.ended is None:
                raise ValueError("the StreamResult is available once the stream has been iterated to its end")
            self.value, self.ended = self.ended.result(), None
        return self.value

    def settle(self, engine: Engine, on_invalid: str) -> None:
        if on_invalid == "raise" and engine.has_stream_errors():
            self.value = engine.result()
            raise StreamContractError(self.value, contract_errors(self.value))
        self.ended = engine

    def tell(self, watch: Watches | None, engine: Engine) -> None:
        """Tell the stream's watchers (if any) what it came to: its result, or the result so far, and what stopped it."""
        if watch is None:
            return
        error = self.error
        if self.value is None and self.ended is None:
            result = result_so_far(engine)
            if error is None and self.closed:
                error = GeneratorExit()  # the consumer closed it (or dropped it) before its end
        else:
            result = self._built()
        watch.ended(result, error)

    def _built(self) -> StreamResult | None:
        try:
            return self.result()
        except Exception:  # the engine could not build it: the watchers get none, the consumer sees the error
            return None

    def stopped(self, engine: Engine, error: BaseException) -> None:
        """Iteration stopped on ``error``: the result so far holds every call handed over, yielded or not."""
        self.stopped_by = type(error).__name__
        self.error = error
        if self.value is None:
            self.value = result_so_far(engine)
        if isinstance(error, MalformedChunkError) and error.result is None:
            error.result = self.value


def result_so_far(engine: Engine) -> StreamResult | None:
    """The engine's result, for an error on its way out (None if building it fails: that error is not the one)."""
    try:
        return engine.result()
    except Exception:
        return None


def carry_result(error: MalformedChunkError, engine: Engine) -> None:
    """A ``MalformedChunkError`` raised from a stream carries the stream's result so far."""
    if error.result is None:
        error.result = result_so_far(engine)


def _run(
    chunks: Iterator[Any], source: Any, engine: Engine, on_invalid: str, outcome: _Outcome, watch: Watches | None
) -> Generator[Emitted, None, None]:
    try:
        first = next(chunks, _END)
        if first is not _END:  # the first item says what the source is: a raw body, or chunks
            pull, items = puller(engine, first, chunks)
            while (calls := pull(items)) is not None:
                yield from _checked(calls, on_invalid, engine)
        yield from _checked(engine.end(), on_invalid, engine)
        outcome.settle(engine, on_invalid)
    except GeneratorExit:
        outcome.closed = True
        raise  # the consumer stopped early: there is no result
    except BaseException as error:
        outcome.stopped(engine, error)
        raise
    finally:
        close_source(source)
        outcome.tell(watch, engine)


async def _arun(
    source: AsyncIterable[Any], engine: Engine, on_invalid: str, outcome: _Outcome, watch: Watches | None
) -> AsyncGenerator[Emitted, None]:
    try:
        items = aiter(source)
        first = await anext(items, _END)
        if first is not _END:  # the first item says what the source is: a raw body, or chunks
            read = reader(engine, first)
            calls = read(first)
            if calls:
                for call in _checked(calls, on_invalid, engine):
                    yield call
            async for item in items:
                calls = read(item)
                if calls:  # most items make no call ready: no generator of their own
                    for call in _checked(calls, on_invalid, engine):
                        yield call
        for call in _checked(engine.end(), on_invalid, engine):
            yield call
        outcome.settle(engine, on_invalid)
    except GeneratorExit:
        outcome.closed = True
        raise  # the consumer stopped early: there is no result
    except BaseException as error:
        outcome.stopped(engine, error)
        raise
    finally:
        await aclose_source(source)
        outcome.tell(watch, engine)


class ToolCallStream(ClosingBlock, Iterator[Emitted]):
    """The calls of one stream, each handed over as soon as the emission policy allows.

    Iterate it; ``result`` is the ``StreamResult`` once it is exhausted, or, once iteration raised, the result so
    far (every call handed over, yielded or not: an exception loses none). The source is closed when the stream is
    exhausted, when iteration raises, and when this object is closed or collected before the end (``break``), so
    no HTTP connection is left open. Use it as a context manager to close it deterministically.
    """

    def __init__(self, source: Source, engine: Engine, on_invalid: str) -> None:
        """Wrap an engine around a source of chunks (use ``toolwire.reassemble`` rather than this)."""
        self._chunks = chunks_of(source, text_deltas=engine.text_deltas)
        self._outcome = _Outcome()
        # The generator must not refer to self: a cycle would keep the source open until the cyclic GC runs,
        # instead of closing it the moment the consumer drops the stream (``break``).
        self._calls = _run(self._chunks, source, engine, on_invalid, self._outcome, watch_stream("reassemble"))

    def __iter__(self) -> ToolCallStream:
        """Return self."""
        return self

    def __next__(self) -> Emitted:
        """The next call handed over."""
        return next(self._calls)

    def __repr__(self) -> str:
        """Where the stream stands: reading, closed before its end, ended or stopped by an error.

        ``<ToolCallStream ended: 2 calls, 0 invalid, ok=True>``, ``<ToolCallStream stopped by InvalidToolCallError
        after 1 call, 1 invalid>``.
        """
        return f"<{type(self).__name__} {self._outcome.describe()}>"

    @property
    def result(self) -> StreamResult:
        """The stream's result once iteration has finished; after iteration raised, the result so far.

        Raises:
            ValueError: Iteration has not reached the end (nor stopped on an exception).
        """
        return self._outcome.result()

    def close(self) -> None:
        """Stop reading and close the source (idempotent)."""
        self._outcome.closed = True
        self._calls.close()


class AsyncToolCallStream(AcloseBlock, AsyncIterator[Emitted]):
    """The async twin of ``ToolCallStream``: ``async for call in ...``; the source is ``aclose()``d likewise."""

    def __init__(self, source: AsyncSource, engine: Engine, on_invalid: str) -> None:
        """Wrap an engine around an async source of chunks (use ``toolwire.areassemble`` rather than this)."""
        if isinstance(source, (*RAW, str, dict)) or not hasattr(source, "__aiter__"):
            raise TypeError(f"source must be an async iterable of chunks; got {type(source).__name__}")
        self._outcome = _Outcome()
        self._calls = _arun(source, engine, on_invalid, self._outcome, watch_stream("reassemble"))

    def __aiter__(self) -> AsyncToolCallStream:
        """Return self."""
        return self

    def __anext__(self) -> Awaitable[Emitted]:
        """The next call handed over (the generator's own awaitable, not a coroutine awaiting it)."""
        return self._calls.__anext__()

    def __repr__(self) -> str:
        """As ``ToolCallStream``'s: reading, closed, ended with its calls, or stopped by an error."""
        return f"<{type(self).__name__} {self._outcome.describe()}>"

    @property
    def result(self) -> StreamResult:
        """The stream's result once iteration has finished; after iteration raised, the result so far."""
        return self._outcome.result()

    async def aclose(self) -> None:
        """Stop reading and close the source (idempotent)."""
        self._outcome.closed = True
        await self._calls.aclose()
