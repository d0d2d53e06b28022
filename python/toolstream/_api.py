"""The public entry points, written once over an engine: the Rust core's or the pure-Python reference's.

An engine reads chunks and hands over calls; this module adds what both implementations share and that is
not reassembly: argument checking, ``on_invalid``, closing the source when the consumer stops early, and the
sync/async iteration protocols.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
)
from types import TracebackType
from typing import Any, Literal, Protocol, cast

from toolstream._choice import ToolChoice, parse_tool_choice
from toolstream._model import (
    VIOLATION_TABLE,
    InvalidToolCall,
    Limits,
    Severity,
    StreamResult,
    ToolCall,
    Violation,
    ViolationCode,
)
from toolstream._validation import CompiledTools, CompileTools
from toolstream.errors import InvalidToolCallError, StreamContractError
from toolstream.registry import ToolRegistry

__all__ = ["AsyncToolCallStream", "Emit", "EngineFactory", "OnInvalid", "Reassembler", "ToolCallStream"]

Emit = Literal["complete", "call_end", "stream_end"]
OnInvalid = Literal["raise", "yield"]
Emitted = ToolCall | InvalidToolCall
OnViolation = Callable[[Violation], object]
Repair = Callable[[InvalidToolCall], Mapping[str, Any] | None]

#: What a repair hook may fix: arguments the model finished but got wrong. A call cut short (``TRUNCATED``,
#: ``STREAM_CUT``), over a limit, or without a declared name is not repaired: completing it would be inventing it.
_REPAIRABLE = frozenset(
    {
        ViolationCode.INVALID_JSON,
        ViolationCode.TRAILING_DATA,
        ViolationCode.ARGUMENTS_NOT_OBJECT,
        ViolationCode.MISSING_REQUIRED_ARGUMENT,
        ViolationCode.UNEXPECTED_ARGUMENT,
        ViolationCode.TYPE_MISMATCH,
        ViolationCode.ENUM_OUT_OF_RANGE,
        ViolationCode.CONSTRAINT_VIOLATION,
    }
)

_EMIT_POLICIES = ("complete", "call_end", "stream_end")
_END = object()
# Built once: constructing the frozen defaults per stream was a measurable share of a short stream's cost.
_DEFAULT_LIMITS = Limits()
_ON_INVALID = ("raise", "yield")


class Engine(Protocol):
    """What the Rust core and the reference both provide."""

    def feed(self, chunk: Any) -> list[Emitted]:
        """Read one chunk; return the calls it made ready."""
        ...

    def pull(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        """Read chunks until at least one call is ready; None once ``chunks`` is exhausted."""
        ...

    def feed_bytes(self, data: Any) -> list[Emitted]:
        """Read raw event-stream bytes; return the calls they made ready."""
        ...

    def pull_bytes(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        """``pull`` over raw event-stream byte chunks."""
        ...

    def end(self) -> list[Emitted]:
        """End the stream; return the calls that only the end made ready."""
        ...

    def result(self) -> StreamResult:
        """The result so far."""
        ...

    def amend(self, call: Emitted) -> None:
        """Replace the handed-over call with the same (choice, seq) by ``call`` (a repaired one)."""
        ...


class EngineFactory(Protocol):
    """Builds an engine for one stream."""

    def __call__(
        self,
        *,
        tool_choice: ToolChoice,
        emit: Emit,
        limits: Limits,
        on_violation: OnViolation | None,
        validators: Any,
    ) -> Engine:
        """Build the engine; ``validators`` is its own implementation's ``CompiledTools``, or None."""
        ...


class _Repairing:
    """An engine whose invalid calls first go through the user's ``repair`` hook (``reassemble(repair=...)``).

    A proposal is re-validated; only one that passes replaces the call, as a ``ToolCall`` carrying ``REPAIRED``
    (with the original text and errors in its data). A proposal that still fails is discarded: the call stays as
    the model sent it, so the model is told about its own mistakes.
    """

    def __init__(
        self, engine: Engine, repair: Repair, validators: CompiledTools, on_violation: OnViolation | None
    ) -> None:
        self._engine = engine
        self._repair = repair
        self._validators = validators
        self._on_violation = on_violation

    def feed(self, chunk: Any) -> list[Emitted]:
        return self._repaired(self._engine.feed(chunk))

    def pull(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        calls = self._engine.pull(chunks)
        return None if calls is None else self._repaired(calls)

    def feed_bytes(self, data: Any) -> list[Emitted]:
        return self._repaired(self._engine.feed_bytes(data))

    def pull_bytes(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        calls = self._engine.pull_bytes(chunks)
        return None if calls is None else self._repaired(calls)

    def end(self) -> list[Emitted]:
        return self._repaired(self._engine.end())

    def result(self) -> StreamResult:
        return self._engine.result()

    def amend(self, call: Emitted) -> None:
        self._engine.amend(call)

    def _repaired(self, calls: list[Emitted]) -> list[Emitted]:
        return [self._attempt(call) if isinstance(call, InvalidToolCall) else call for call in calls]

    def _attempt(self, call: InvalidToolCall) -> Emitted:
        name = call.name
        if name is None or self._validators.fingerprint(name) is None:
            return call
        if any(error.code not in _REPAIRABLE for error in call.errors):
            return call
        proposal = self._repair(call)
        if proposal is None:
            return call
        if not isinstance(proposal, Mapping):
            raise TypeError(
                f"repair must return the corrected arguments as a dict, or None to leave the call invalid; got "
                f"{type(proposal).__name__} for call seq={call.seq} id={call.id!r}"
            )
        try:
            text = json.dumps(dict(proposal), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as error:
            raise TypeError(f"repair returned arguments that are not JSON for call id={call.id!r}: {error}") from None
        if self._validators.validate(name, text):
            return call
        _, severity, recoverable = VIOLATION_TABLE[ViolationCode.REPAIRED]
        fixed = ", ".join(
            f"{error.code.value} at {error.path}" if error.path else error.code.value for error in call.errors
        )
        repaired = Violation(
            ViolationCode.REPAIRED,
            f"the repair hook replaced the arguments, which then validated; the model's arguments had: {fixed}",
            severity,
            call.choice,
            call.seq,
            call.index,
            recoverable=recoverable,
            data={
                "original_arguments_json": call.arguments_json,
                "errors": [
                    {"code": error.code.value, "path": error.path, "message": error.message} for error in call.errors
                ],
            },
        )
        amended = ToolCall(
            call.id,
            name,
            json.loads(text),
            text,
            call.seq,
            call.index,
            call.choice,
            (*call.violations, repaired),
            self._validators.fingerprint(name),
        )
        self._engine.amend(amended)
        if self._on_violation is not None:
            self._on_violation(repaired)
        return amended


class _Options:
    """The checked keyword arguments shared by every entry point."""

    __slots__ = ("emit", "limits", "on_invalid", "on_violation", "registry", "repair", "tool_choice")

    def __init__(
        self,
        tools: Any,
        tool_choice: Any,
        emit: str,
        on_invalid: str,
        on_violation: OnViolation | None,
        limits: Limits | None,
        repair: Repair | None,
    ) -> None:
        if emit not in _EMIT_POLICIES:
            raise ValueError(f"emit must be one of {', '.join(map(repr, _EMIT_POLICIES))}; got {emit!r}")
        if on_invalid not in _ON_INVALID:
            raise ValueError(f"on_invalid must be 'raise' or 'yield'; got {on_invalid!r}")
        if on_violation is not None and not callable(on_violation):
            raise TypeError(f"on_violation must be a callable taking a Violation; got {type(on_violation).__name__}")
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError(f"limits must be a toolstream.Limits; got {type(limits).__name__}")
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

    def engine(self, factory: EngineFactory, compile_tools: CompileTools) -> Engine:
        validators = None if self.registry is None else compile_tools(self.registry, self.limits.max_depth)
        engine = factory(
            tool_choice=self.tool_choice,
            emit=self.emit,
            limits=self.limits,
            on_violation=self.on_violation,
            validators=validators,
        )
        if self.repair is not None and validators is not None:
            return _Repairing(engine, self.repair, validators, self.on_violation)
        return engine


def _checked(calls: list[Emitted], on_invalid: str, engine: Engine) -> Iterator[Emitted]:
    """The calls in hand-over order; under ``raise``, the valid ones before an invalid one come out first."""
    for call in calls:
        if on_invalid == "raise" and isinstance(call, InvalidToolCall):
            raise InvalidToolCallError(call, engine.result())
        yield call


def _checked_batch(calls: list[Emitted], on_invalid: str, engine: Engine) -> list[Emitted]:
    """``_checked`` for a list-returning step: valid calls before an invalid one ride on the error."""
    if on_invalid == "raise":
        for position, call in enumerate(calls):
            if isinstance(call, InvalidToolCall):
                raise InvalidToolCallError(call, engine.result(), ready=tuple(calls[:position]))
    return calls


def _contract_errors(result: StreamResult) -> tuple[Violation, ...]:
    return tuple(v for v in result.violations if v.severity is Severity.ERROR)


_RAW = (bytes, bytearray, memoryview)
_BLOCK = 1 << 16  # bytes read at a time from a binary file


def _chunks_of(source: Any) -> Iterator[Any]:
    """The items of a source: its chunks, or byte chunks of raw stream bytes (one blob, a binary file)."""
    if isinstance(source, _RAW):
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


_FIELD = re.compile(r" *(?:data|event|id|retry)?(?::|$)")


def _is_raw(item: Any) -> bool:
    """Whether a source's first item says the source is raw event-stream bytes or text, not chunks.

    Bytes always are; a string is when it reads as the opening of an event stream (a field, a comment, a blank
    line, or text with line ends), as every real stream opens. Any other string is a malformed chunk.
    """
    return isinstance(item, _RAW) or (
        isinstance(item, str) and ("\n" in item or "\r" in item or _FIELD.match(item) is not None)
    )


class _Reads:
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
                self.held.append(data)
                return []
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


def _raw_bytes(item: Any) -> bytes:
    if isinstance(item, str):
        try:
            return item.encode("utf-8")
        except UnicodeEncodeError as error:
            raise TypeError(f"raw stream text holds a character UTF-8 cannot carry: {error}") from None
    if isinstance(item, _RAW):
        return bytes(item)
    raise TypeError(
        f"raw stream chunks must be bytes, bytearray, memoryview or str (as the first was); got {type(item).__name__}"
    )


def _raw_reads(items: Iterable[Any]) -> Iterator[bytes]:
    reads = _Reads()
    for item in items:
        yield from reads.take(item)
    yield from reads.rest()


def _run(
    chunks: Iterator[Any], source: Any, engine: Engine, on_invalid: str, outcome: _Outcome
) -> Generator[Emitted, None, None]:
    try:
        # The first item says what the source is: raw event-stream bytes, or chunks.
        first = next(chunks, _END)
        if first is not _END:
            rest = itertools.chain((first,), chunks)
            if _is_raw(first):
                reads = _raw_reads(rest)
                while (calls := engine.pull_bytes(reads)) is not None:
                    yield from _checked(calls, on_invalid, engine)
            else:
                while (calls := engine.pull(rest)) is not None:
                    yield from _checked(calls, on_invalid, engine)
        yield from _checked(engine.end(), on_invalid, engine)
        outcome.settle(engine, on_invalid)
    finally:
        _close_source(source)


async def _arun(
    source: AsyncIterable[Any], engine: Engine, on_invalid: str, outcome: _Outcome
) -> AsyncGenerator[Emitted, None]:
    try:
        reads: _Reads | None = None
        first = True
        async for chunk in source:
            if first:  # the first item says what the source is: raw event-stream bytes, or chunks
                first = False
                reads = _Reads() if _is_raw(chunk) else None
            if reads is None:
                for call in _checked(engine.feed(chunk), on_invalid, engine):
                    yield call
                continue
            for data in reads.take(chunk):
                for call in _checked(engine.feed_bytes(data), on_invalid, engine):
                    yield call
        for data in reads.rest() if reads is not None else ():
            for call in _checked(engine.feed_bytes(data), on_invalid, engine):
                yield call
        for call in _checked(engine.end(), on_invalid, engine):
            yield call
        outcome.settle(engine, on_invalid)
    finally:
        await _aclose_source(source)


class ToolCallStream(Iterator[Emitted]):
    """The calls of one stream, each handed over as soon as the emission policy allows.

    Iterate it; ``result`` is the ``StreamResult`` once it is exhausted. The source is closed when the stream is
    exhausted, when iteration raises, and when this object is closed or collected before the end (``break``), so
    no HTTP connection is left open. Use it as a context manager to close it deterministically.
    """

    def __init__(self, source: Iterable[Any], engine: Engine, on_invalid: str) -> None:
        """Wrap an engine around a source of chunks (use ``toolstream.reassemble`` rather than this)."""
        self._chunks = _chunks_of(source)
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
        """The stream's result; available once iteration has finished."""
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
        """Wrap an engine around an async source of chunks (use ``toolstream.areassemble`` rather than this)."""
        if isinstance(source, (*_RAW, str, dict)) or not hasattr(source, "__aiter__"):
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
        """The stream's result; available once iteration has finished."""
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


def _close_source(source: Any) -> None:
    close = getattr(source, "close", None)
    if callable(close):
        close()


async def _aclose_source(source: Any) -> None:
    close = getattr(source, "aclose", None) or getattr(source, "close", None)
    if callable(close):
        outcome = close()
        if hasattr(outcome, "__await__"):
            await outcome


class Reassembler:
    """Reassembly for callers who drive their own loop: ``feed`` each chunk, then ``finish`` and ``close``.

    ``feed`` returns the calls each chunk made ready; ``finish`` ends the stream and returns the calls only the
    end released; ``close`` (which finishes first if needed) returns the ``StreamResult``. Under
    ``on_invalid="raise"`` an invalid call raises ``InvalidToolCallError`` (whose ``result`` holds every call
    handed over so far) and ``close`` raises ``StreamContractError`` for error-severity stream findings.
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
    ) -> None:
        """Start reassembling one stream; the keywords are those of ``reassemble``."""
        options = _Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair)
        self.tools = options.registry
        self._on_invalid = options.on_invalid
        self._engine = options.engine(type(self)._engine_factory, type(self)._compile_tools)
        self._finished = False

    def feed(self, chunk: Any) -> list[Emitted]:
        """Read one chunk; return the calls it made ready, in hand-over order."""
        if self._finished:
            raise ValueError("this Reassembler has finished; start a new one for the next stream")
        return _checked_batch(self._engine.feed(chunk), self._on_invalid, self._engine)

    def feed_bytes(self, data: bytes | bytearray | memoryview) -> list[Emitted]:
        """Read raw event-stream bytes (split anywhere); return the calls they made ready, in hand-over order."""
        if self._finished:
            raise ValueError("this Reassembler has finished; start a new one for the next stream")
        return _checked_batch(self._engine.feed_bytes(data), self._on_invalid, self._engine)

    def finish(self) -> list[Emitted]:
        """End the stream; return the calls that only the end made ready (idempotent: [] the second time)."""
        if self._finished:
            return []
        self._finished = True
        return _checked_batch(self._engine.end(), self._on_invalid, self._engine)

    def close(self) -> StreamResult:
        """Finish if needed and return the final ``StreamResult``."""
        self.finish()
        result = self._engine.result()
        errors = _contract_errors(result)
        if errors and self._on_invalid == "raise":
            raise StreamContractError(result, errors)
        return result

    @property
    def result(self) -> StreamResult:
        """The result so far (final after ``finish``)."""
        return self._engine.result()


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
    ) -> ToolCallStream:
        """Reassemble the tool calls of a stream, handing each over as soon as ``emit`` allows.

        Args:
            source: An iterable of chunks: dicts in the OpenAI Chat Completions shape, the openai SDK's
                ``ChatCompletionChunk`` objects, or the SDK's ``Stream`` itself. Or, the fast path, the raw
                event-stream bytes of the HTTP response: one ``bytes`` object, an iterable of ``bytes`` split
                anywhere (httpx's ``iter_bytes()``/``iter_raw()``), or a binary file; framed and parsed in Rust.
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

        Returns:
            An iterator of ``ToolCall`` (and ``InvalidToolCall`` under ``on_invalid="yield"``) whose ``result`` is
            the ``StreamResult`` once exhausted.
        """
        options = _Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair)
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
    ) -> AsyncToolCallStream:
        """``reassemble`` over an async iterable (the openai SDK's ``AsyncStream``, an async generator...)."""
        options = _Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair)
        return AsyncToolCallStream(source, options.engine(factory, compile_tools), options.on_invalid)

    return reassemble, areassemble
