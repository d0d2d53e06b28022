"""The public entry points, written once over an engine: the Rust core's or the pure-Python reference's.

An engine (``_protocol``) reads chunks and hands over calls; this module adds what both implementations share and
that is not reassembly: argument checking, ``on_invalid``, the sync/async iteration protocols, and, from their own
modules, reading sources (``_sources``: chunks or raw bytes, closed when the consumer stops early) and the
``repair=`` hook (``_repair``).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Generator, Iterable, Iterator
from types import TracebackType
from typing import Any, cast

from toolwire._choice import parse_tool_choice
from toolwire._frameworks import framework_adapter
from toolwire._model import InvalidToolCall, Limits, Severity, StreamResult, Violation
from toolwire._protocol import Emit, Emitted, Engine, EngineFactory, OnInvalid, OnViolation
from toolwire._repair import Repair, Repairing
from toolwire._sources import RAW, aclose_source, chunks_of, close_source, is_raw
from toolwire._validation import CompileTools
from toolwire.errors import InvalidToolCallError, MalformedChunkError, StreamContractError
from toolwire.formats import WireFormat, check_format
from toolwire.registry import ToolRegistry

__all__ = ["AsyncToolCallStream", "Emit", "EngineFactory", "OnInvalid", "Reassembler", "ToolCallStream"]

_EMIT_POLICIES = ("complete", "call_end", "stream_end")
_END = object()
# Built once: constructing the frozen defaults per stream was a measurable share of a short stream's cost.
_DEFAULT_LIMITS = Limits()
_ON_INVALID = ("raise", "yield")


class _Options:
    """The checked keyword arguments shared by every entry point."""

    __slots__ = ("emit", "format", "limits", "on_invalid", "on_violation", "registry", "repair", "tool_choice")

    def __init__(
        self,
        tools: Any,
        tool_choice: Any,
        emit: str,
        on_invalid: str,
        on_violation: OnViolation | None,
        limits: Limits | None,
        repair: Repair | None,
        format: str | None,
    ) -> None:
        self.format = check_format(format)
        if emit not in _EMIT_POLICIES:
            raise ValueError(f"emit must be one of {', '.join(map(repr, _EMIT_POLICIES))}; got {emit!r}")
        if on_invalid not in _ON_INVALID:
            raise ValueError(f"on_invalid must be 'raise' or 'yield'; got {on_invalid!r}")
        if on_violation is not None and not callable(on_violation):
            raise TypeError(f"on_violation must be a callable taking a Violation; got {type(on_violation).__name__}")
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError(f"limits must be a toolwire.Limits; got {type(limits).__name__}")
        if repair is not None and not callable(repair):
            raise TypeError(f"repair must be a callable taking an InvalidToolCall; got {type(repair).__name__}")
        # ``None`` checks nothing; an empty registry declares no tool, so that every call is unknown.
        self.registry = None if tools is None else ToolRegistry.load(tools)
        if repair is not None and self.registry is None:
            raise ValueError("repair needs tools=...: a repaired call is re-validated against its tool's schema")
        self.tool_choice = parse_tool_choice(tool_choice)
        self.emit = cast(Emit, emit)
        self.on_invalid = on_invalid
        self.on_violation = on_violation
        self.limits = limits if limits is not None else _DEFAULT_LIMITS
        self.repair = repair

    def engine(self, factory: EngineFactory, compile_tools: CompileTools, *, progress: bool = False) -> Engine:
        validators = (
            None
            if self.registry is None
            else compile_tools(self.registry, self.limits.max_depth, self.limits.max_validation_steps)
        )
        engine = factory(
            tool_choice=self.tool_choice,
            emit=self.emit,
            limits=self.limits,
            on_violation=self.on_violation,
            validators=validators,
            format=self.format,
            progress=progress,
        )
        if self.repair is not None and validators is not None:
            return Repairing(engine, self.repair, validators, self.on_violation)
        return engine


def _checked(calls: list[Emitted], on_invalid: str, engine: Engine) -> Iterator[Emitted]:
    """The calls in hand-over order; under ``raise``, the valid ones before an invalid one come out first."""
    for call in calls:
        if on_invalid == "raise" and isinstance(call, InvalidToolCall):
            raise InvalidToolCallError(call, engine.result())
        yield call


def _contract_errors(result: StreamResult) -> tuple[Violation, ...]:
    return tuple(v for v in result.violations if v.severity is Severity.ERROR)


class _Outcome:
    """Where a stream's generator leaves its result, so the generator needs no reference to its stream."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: StreamResult | None = None

    def result(self) -> StreamResult:
        if self.value is None:
            raise ValueError("the StreamResult is available once the stream has been iterated to its end")
        return self.value

    def settle(self, engine: Engine, on_invalid: str) -> None:
        self.value = engine.result()
        errors = _contract_errors(self.value)
        if errors and on_invalid == "raise":
            raise StreamContractError(self.value, errors)

    def stopped(self, engine: Engine, error: BaseException) -> None:
        """Iteration stopped on ``error``: the result so far holds every call handed over, yielded or not."""
        if self.value is None:
            self.value = _result_so_far(engine)
        if isinstance(error, MalformedChunkError) and error.result is None:
            error.result = self.value


def _result_so_far(engine: Engine) -> StreamResult | None:
    """The engine's result, for an error on its way out (None if building it fails: that error is not the one)."""
    try:
        return engine.result()
    except Exception:
        return None


def _carry_result(error: MalformedChunkError, engine: Engine) -> None:
    """A ``MalformedChunkError`` raised from a stream carries the stream's result so far."""
    if error.result is None:
        error.result = _result_so_far(engine)


def _run(
    chunks: Iterator[Any], source: Any, engine: Engine, on_invalid: str, outcome: _Outcome
) -> Generator[Emitted, None, None]:
    try:
        # The first item says what the source is: a raw body, or chunks.
        first = next(chunks, _END)
        if first is not _END:
            rest: Iterator[Any] = itertools.chain((first,), chunks)
            if is_raw(first):
                while (calls := engine.pull_items(rest)) is not None:
                    yield from _checked(calls, on_invalid, engine)
            else:
                adapt = framework_adapter(first)
                if adapt is not None:
                    rest = map(adapt, rest)
                while (calls := engine.pull(rest)) is not None:
                    yield from _checked(calls, on_invalid, engine)
        yield from _checked(engine.end(), on_invalid, engine)
        outcome.settle(engine, on_invalid)
    except GeneratorExit:
        raise  # the consumer stopped early: there is no result
    except BaseException as error:
        outcome.stopped(engine, error)
        raise
    finally:
        close_source(source)


def _step(
    engine: Engine, chunk: Any, raw: bool, adapt: Callable[[Any], Any] | None, on_invalid: str
) -> Iterator[Emitted]:
    """One item of an async source: a chunk (as its framework's adapter reads it), or an item of a raw body."""
    if raw:
        yield from _checked(engine.feed_item(chunk), on_invalid, engine)
    else:
        yield from _checked(engine.feed(chunk if adapt is None else adapt(chunk)), on_invalid, engine)


async def _arun(
    source: AsyncIterable[Any], engine: Engine, on_invalid: str, outcome: _Outcome
) -> AsyncGenerator[Emitted, None]:
    try:
        raw = False
        adapt: Callable[[Any], Any] | None = None
        first = True
        async for chunk in source:
            if first:  # the first item says what the source is: a raw body, or chunks
                first = False
                raw = is_raw(chunk)
                adapt = None if raw else framework_adapter(chunk)
            for call in _step(engine, chunk, raw, adapt, on_invalid):
                yield call
        for call in _checked(engine.end(), on_invalid, engine):
            yield call
        outcome.settle(engine, on_invalid)
    except GeneratorExit:
        raise  # the consumer stopped early: there is no result
    except BaseException as error:
        outcome.stopped(engine, error)
        raise
    finally:
        await aclose_source(source)


class ToolCallStream(Iterator[Emitted]):
    """The calls of one stream, each handed over as soon as the emission policy allows.

    Iterate it; ``result`` is the ``StreamResult`` once it is exhausted, or, once iteration raised, the result so
    far (every call handed over, yielded or not: an exception loses none). The source is closed when the stream is
    exhausted, when iteration raises, and when this object is closed or collected before the end (``break``), so
    no HTTP connection is left open. Use it as a context manager to close it deterministically.
    """

    def __init__(self, source: Iterable[Any], engine: Engine, on_invalid: str) -> None:
        """Wrap an engine around a source of chunks (use ``toolwire.reassemble`` rather than this)."""
        self._chunks = chunks_of(source)
        self._outcome = _Outcome()
        # The generator must not refer to self: a cycle would keep the source open until the cyclic GC runs,
        # instead of closing it the moment the consumer drops the stream (``break``).
        self._calls = _run(self._chunks, source, engine, on_invalid, self._outcome)

    def __iter__(self) -> ToolCallStream:
        """Return self."""
        return self

    def __next__(self) -> Emitted:
        """The next call handed over."""
        return next(self._calls)

    @property
    def result(self) -> StreamResult:
        """The stream's result once iteration has finished; after iteration raised, the result so far.

        Raises:
            ValueError: Iteration has not reached the end (nor stopped on an exception).
        """
        return self._outcome.result()

    def close(self) -> None:
        """Stop reading and close the source (idempotent)."""
        self._calls.close()

    def __enter__(self) -> ToolCallStream:
        """Enter a ``with`` block that closes the source on exit."""
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the source."""
        self.close()


class AsyncToolCallStream(AsyncIterator[Emitted]):
    """The async twin of ``ToolCallStream``: ``async for call in ...``; the source is ``aclose()``d likewise."""

    def __init__(self, source: AsyncIterable[Any], engine: Engine, on_invalid: str) -> None:
        """Wrap an engine around an async source of chunks (use ``toolwire.areassemble`` rather than this)."""
        if isinstance(source, (*RAW, str, dict)) or not hasattr(source, "__aiter__"):
            raise TypeError(f"source must be an async iterable of chunks; got {type(source).__name__}")
        self._outcome = _Outcome()
        self._calls = _arun(source, engine, on_invalid, self._outcome)

    def __aiter__(self) -> AsyncToolCallStream:
        """Return self."""
        return self

    async def __anext__(self) -> Emitted:
        """The next call handed over."""
        return await self._calls.__anext__()

    @property
    def result(self) -> StreamResult:
        """The stream's result once iteration has finished; after iteration raised, the result so far."""
        return self._outcome.result()

    async def aclose(self) -> None:
        """Stop reading and close the source (idempotent)."""
        await self._calls.aclose()

    async def __aenter__(self) -> AsyncToolCallStream:
        """Enter an ``async with`` block that closes the source on exit."""
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the source."""
        await self.aclose()


class Reassembler:
    """Reassembly for callers who drive their own loop: ``feed`` each chunk, then ``finish`` and ``close``.

    ``feed`` returns the calls each chunk made ready; ``finish`` ends the stream and returns the calls only the
    end released; ``close`` (which finishes first if needed) returns the ``StreamResult``. Under
    ``on_invalid="raise"`` an invalid call raises ``InvalidToolCallError`` (whose ``result`` holds every call
    handed over so far) and ``close`` raises ``StreamContractError`` for error-severity stream findings.

    No exception loses a call: a call handed over is in ``result`` at once, and one that a step could not return
    (an exception from ``on_violation``, a ``KeyboardInterrupt``, an invalid call before it under ``raise``) is
    returned by the next ``feed``/``finish``. ``finish`` after an exception finishes what is left of the end. A
    Reassembler is not re-entrant: using it from its own ``on_violation`` or ``repair`` raises ``RuntimeError``.
    """

    _engine_factory: EngineFactory
    _compile_tools: CompileTools

    def __init__(
        self,
        *,
        tools: Any = None,
        tool_choice: Any = None,
        emit: Emit = "call_end",
        on_invalid: OnInvalid = "raise",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        repair: Repair | None = None,
        format: WireFormat | None = None,
        snapshots: bool = False,
    ) -> None:
        """Start reassembling one stream; the keywords are those of ``reassemble``.

        With ``snapshots``, each call's partial arguments are kept for ``snapshot(seq)``.
        """
        options = _Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair, format)
        self.tools = options.registry
        self._on_invalid = options.on_invalid
        self._snapshots = snapshots
        self._engine = options.engine(type(self)._engine_factory, type(self)._compile_tools, progress=snapshots)
        self._finished = False
        # Calls handed over after an invalid one that raised: the next step returns them.
        self._held: list[Emitted] = []
        # The method running now, if any: a callback it runs must not use this Reassembler.
        self._running: str | None = None

    def feed(self, chunk: Any) -> list[Emitted]:
        """Read one chunk; return the calls it made ready, in hand-over order."""
        self._enter("feed")
        try:
            if self._finished:
                raise ValueError("this Reassembler has finished; start a new one for the next stream")
            return self._deliver(self._engine.feed(chunk))
        except MalformedChunkError as error:
            _carry_result(error, self._engine)
            raise
        finally:
            self._running = None

    def feed_bytes(self, data: bytes | bytearray | memoryview) -> list[Emitted]:
        """Read a raw body's next bytes (split anywhere); return the calls they made ready, in hand-over order.

        The body is framed by what its first bytes say it is: server-sent events, JSON lines, a JSON array or AWS
        event-stream messages (``docs/semantics.md``, "Raw bodies").
        """
        self._enter("feed_bytes")
        try:
            if self._finished:
                raise ValueError("this Reassembler has finished; start a new one for the next stream")
            return self._deliver(self._engine.feed_bytes(data))
        except MalformedChunkError as error:
            _carry_result(error, self._engine)
            raise
        finally:
            self._running = None

    def finish(self) -> list[Emitted]:
        """End the stream; return the calls that only the end made ready ([] once every call was returned).

        After an exception (from ``on_violation`` at the end, an invalid call under ``raise``), calling it again
        finishes what is left of the end and returns the calls not returned yet.
        """
        self._enter("finish")
        try:
            self._finished = True
            return self._deliver(self._engine.end())
        except MalformedChunkError as error:
            _carry_result(error, self._engine)
            raise
        finally:
            self._running = None

    def close(self) -> StreamResult:
        """Finish if needed and return the final ``StreamResult``."""
        self.finish()
        result = self.result
        errors = _contract_errors(result)
        if errors and self._on_invalid == "raise":
            raise StreamContractError(result, errors)
        return result

    @property
    def result(self) -> StreamResult:
        """The result so far (final after ``finish``): every call handed over, returned by a step or not."""
        self._enter("result")
        try:
            return self._engine.result()
        finally:
            self._running = None

    def snapshot(self, seq: int) -> Any:
        """The arguments of call ``seq`` as they stand, honestly.

        Complete values are values, the value still arriving a ``toolwire.Pending`` (``{"n": 12`` is
        ``{"n": Pending("number", "12")}``, never ``{"n": 12}``).

        The live value, updated in place by later chunks (copy it to keep one); None before any argument arrived.
        Each snapshot costs time proportional to what changed since the last one.

        Raises:
            ValueError: The Reassembler was made without ``snapshots=True``.
        """
        if not self._snapshots:
            raise ValueError("snapshots need Reassembler(snapshots=True): partial values are built as bytes arrive")
        self._enter("snapshot")
        try:
            return self._engine.snapshot(seq)
        finally:
            self._running = None

    def _enter(self, method: str) -> None:
        if self._running is not None:
            raise RuntimeError(
                f"Reassembler.{method} was used while its {self._running} was running (from on_violation or "
                f"repair): a Reassembler is not re-entrant; act on what the callback saw once {self._running} "
                f"has returned"
            )
        self._running = method

    def _deliver(self, ready: list[Emitted]) -> list[Emitted]:
        """The step's calls, after those held back.

        Under ``raise``, the valid calls before an invalid one ride on the error; the calls after it are held for the
        next step.
        """
        if self._snapshots:
            self._engine.take_progress()  # only the partial values are kept: the steps themselves are not wanted
        calls = [*self._held, *ready] if self._held else ready
        self._held = []
        if self._on_invalid == "raise":
            for position, call in enumerate(calls):
                if isinstance(call, InvalidToolCall):
                    self._held = calls[position + 1 :]
                    raise InvalidToolCallError(call, self._engine.result(), ready=tuple(calls[:position]))
        return calls


def make_entry_points(
    factory: EngineFactory, compile_tools: CompileTools
) -> tuple[Callable[..., ToolCallStream], Callable[..., AsyncToolCallStream]]:
    """Build ``reassemble`` and ``areassemble`` over one engine implementation."""

    def reassemble(
        source: Iterable[Any],
        *,
        tools: Any = None,
        tool_choice: Any = None,
        emit: Emit = "call_end",
        on_invalid: OnInvalid = "raise",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        repair: Repair | None = None,
        format: WireFormat | None = None,
    ) -> ToolCallStream:
        """Reassemble the tool calls of a stream, handing each over as soon as ``emit`` allows.

        Args:
            source: The fast path: the raw body of the HTTP response (server-sent events, JSON lines as Ollama sends,
                the JSON array of Gemini's ``streamGenerateContent`` without ``alt=sse``, or Bedrock's AWS
                event-stream messages; told from its first bytes), as one ``bytes`` object, an iterable of ``bytes``
                or ``str`` split anywhere (httpx's ``iter_bytes()``/``iter_raw()``/``iter_text()``/``iter_lines()``),
                or a binary file; framed and parsed in Rust. Or an iterable of
                events: dicts or the official SDKs' objects (openai ``ChatCompletionChunk`` and Responses events,
                anthropic ``RawMessageStreamEvent``), or the SDK's stream object itself.
            tools: The tools declared in the request: a ``ToolRegistry`` or anything it loads (OpenAI, Anthropic or
                MCP definitions, a ``{name: schema}`` mapping...). Every call is then checked: an undeclared name is
                ``UNKNOWN_TOOL``, arguments that break the tool's schema are invalid (``TYPE_MISMATCH``,
                ``MISSING_REQUIRED_ARGUMENT``... each with its JSON pointer), and a valid call carries the
                ``tool_fingerprint`` it was checked against. ``None`` (the default) checks no names or schemas.
            tool_choice: The ``tool_choice`` sent with the request, to check the stream against it.
            emit: ``"complete"`` (the moment a call's JSON closes), ``"call_end"`` (closed and the call is over;
                the default) or ``"stream_end"`` (only once the stream ended with an acceptable finish).
            on_invalid: ``"raise"`` (default) raises ``InvalidToolCallError`` for an invalid call and
                ``StreamContractError`` for error-severity stream findings at the end; ``"yield"`` hands invalid
                calls over as ``InvalidToolCall`` so an agent loop can answer every call id.
            on_violation: Called with every ``Violation`` as it is found.
            limits: Bounds on argument size, nesting depth and number of calls.
            repair: Opt-in: called with each ``InvalidToolCall`` whose arguments were whole but wrong (bad JSON,
                schema violations); may return corrected arguments (a dict), which are re-validated and, if valid,
                hand the call over as a ``ToolCall`` marked ``REPAIRED`` (never a silent change). Return None to
                leave the call invalid. Needs ``tools``.
            format: The wire format (``"openai-chat"``, ``"openai-responses"``, ``"anthropic-messages"``,
                ``"gemini"``, ``"ollama"``, ``"bedrock-converse"``); by default detected from the first event that
                identifies one.

        Returns:
            An iterator of ``ToolCall`` (and ``InvalidToolCall`` under ``on_invalid="yield"``) whose ``result`` is
            the ``StreamResult`` once exhausted.
        """
        options = _Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair, format)
        return ToolCallStream(source, options.engine(factory, compile_tools), options.on_invalid)

    def areassemble(
        source: AsyncIterable[Any],
        *,
        tools: Any = None,
        tool_choice: Any = None,
        emit: Emit = "call_end",
        on_invalid: OnInvalid = "raise",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        repair: Repair | None = None,
        format: WireFormat | None = None,
    ) -> AsyncToolCallStream:
        """``reassemble`` over an async iterable (the openai SDK's ``AsyncStream``, an async generator...)."""
        options = _Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair, format)
        return AsyncToolCallStream(source, options.engine(factory, compile_tools), options.on_invalid)

    return reassemble, areassemble
