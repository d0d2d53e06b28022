"""What an implementation is: the engine and the compiled tools the Rust core and the pure-Python reference provide.

The entry points (``_api``) are written once over an ``Implementation``; ``toolwire`` binds them to the core's and
``toolwire.reference`` to the reference's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal, NamedTuple, Protocol

from toolwire._model import InvalidToolCall, Limits, StreamResult, TextDialect, ToolCall, Violation
from toolwire._pipeline._choice import ToolChoice
from toolwire.registry import CompileTools

__all__ = [
    "OUTPUT",
    "CompileSchema",
    "DelegatingEngine",
    "Emit",
    "Emitted",
    "Engine",
    "EngineFactory",
    "Implementation",
    "OnInvalid",
    "OnViolation",
    "SchemaCheck",
    "ValueReaderLike",
]

Emit = Literal["complete", "call_end", "stream_end"]
OnInvalid = Literal["raise", "yield"]
Emitted = ToolCall | InvalidToolCall
OnViolation = Callable[[Violation], object]


class Engine(Protocol):
    """What the Rust core and the reference both provide."""

    @property
    def text_deltas(self) -> bool:
        """A ``str`` chunk is a delta of the model's text (``dialect=`` without ``format=``), not a raw body's."""
        ...

    def feed(self, chunk: Any) -> list[Emitted]:
        """Read one chunk; return the calls it made ready."""
        ...

    def pull(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        """Read chunks until at least one call is ready; None once ``chunks`` is exhausted."""
        ...

    def feed_bytes(self, data: Any) -> list[Emitted]:
        """Read a raw body's next bytes (any split); return the calls they made ready."""
        ...

    def feed_item(self, item: Any) -> list[Emitted] | None:
        """Read one item of a raw source (bytes or text: a read or a line, as the stream tells); return the calls.

        None when it made none ready, so that a live stream's reads build no empty list each; an engine that logs
        progress (``events``) returns a list every time.
        """
        ...

    def pull_items(self, items: Iterator[Any]) -> list[Emitted] | None:
        """``pull`` over the items of a raw source."""
        ...

    def end(self) -> list[Emitted]:
        """End the stream; return the calls that only the end made ready."""
        ...

    def result(self) -> StreamResult:
        """The result so far."""
        ...

    def has_stream_errors(self) -> bool:
        """Whether a stream-level finding of error severity was made (``StreamContractError`` under ``raise``).

        Known without building the result, so that a stream nobody asks the result of never builds it.
        """
        ...

    def take_progress(self) -> list[tuple[Any, ...]]:
        """The stream's progress since the last take (with ``progress``), in order.

        Text, calls started, argument pieces, calls handed over.
        """
        ...

    def snapshot(self, seq: int) -> Any:
        """The arguments of call ``seq`` as they stand (with ``progress``); None before any arrived."""
        ...

    def amend(self, call: Emitted) -> None:
        """Replace the handed-over call with the same (choice, seq) by ``call`` (a repaired one)."""
        ...


class DelegatingEngine:
    """An engine that hands every step to another: a wrapper (``repair=``, an SDK stream) overrides what it changes."""

    __slots__ = ("_engine",)

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @property
    def text_deltas(self) -> bool:
        return self._engine.text_deltas

    def feed(self, chunk: Any) -> list[Emitted]:
        return self._engine.feed(chunk)

    def pull(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        return self._engine.pull(chunks)

    def feed_bytes(self, data: Any) -> list[Emitted]:
        return self._engine.feed_bytes(data)

    def feed_item(self, item: Any) -> list[Emitted] | None:
        return self._engine.feed_item(item)

    def pull_items(self, items: Iterator[Any]) -> list[Emitted] | None:
        return self._engine.pull_items(items)

    def end(self) -> list[Emitted]:
        return self._engine.end()

    def result(self) -> StreamResult:
        return self._engine.result()

    def has_stream_errors(self) -> bool:
        return self._engine.has_stream_errors()

    def take_progress(self) -> list[tuple[Any, ...]]:
        return self._engine.take_progress()

    def snapshot(self, seq: int) -> Any:
        return self._engine.snapshot(seq)

    def amend(self, call: Emitted) -> None:
        self._engine.amend(call)


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
        format: str | None,
        progress: bool,
        dialect: TextDialect | None,
    ) -> Engine:
        """Build the engine.

        ``validators`` is its own implementation's ``CompiledTools``, or None; ``format`` the wire format, or None to
        detect it; ``progress`` keeps the stream's steps and each call's partial arguments (the events API);
        ``dialect`` reads the calls written into the text, their raw values typed by the declared tools' schemas.
        """
        ...


#: The name a structured output's schema is compiled under (a ``SchemaError`` about it names no tool).
OUTPUT = "output"

SchemaCheck = Callable[[str], list[Violation]]
"""Checks one value's JSON text against a compiled schema: every violation, as arguments are checked."""

CompileSchema = Callable[[dict[str, Any], int, int], SchemaCheck]
"""Compiles one JSON Schema (any type at its root) for values nested up to a depth (``Limits.max_depth``) whose
problems are searched for within a budget (``Limits.max_validation_steps``)."""


class ValueReaderLike(Protocol):
    """One JSON value read as its text arrives: the core's ``_core.ValueReader``, the reference's twin."""

    def feed(self, text: bytes) -> tuple[str, int | None, str | None]:
        """Read the next piece; the verdict on the text so far: ``(state, end or offset, error kind)``."""
        ...

    def finish(self) -> tuple[str, int | None, str | None]:
        """Declare the end of the text; the verdict."""
        ...

    def snapshot(self) -> Any:
        """The value as it stands, a ``Pending`` where a value is still arriving; the live value."""
        ...

    def take_duplicate_keys(self) -> list[tuple[str, int]]:
        """The keys found twice in one object, not taken before: ``(JSON pointer, offset)``."""
        ...

    def open_values(self) -> list[Any]:
        """The containers of the snapshot still open, outermost first."""
        ...


class Implementation(NamedTuple):
    """One implementation of toolwire: the Rust core's (``toolwire``) or the reference's (``toolwire.reference``)."""

    engine: EngineFactory
    """Builds the engine of one stream."""
    compile_tools: CompileTools
    """Compiles a registry into the form that engine validates calls with (and ``validate`` uses)."""
    value_reader: Callable[[int], ValueReaderLike]
    """Reads one JSON value as its text arrives (a structured output), nested at most that deep."""
    compile_schema: CompileSchema
    """Compiles a structured output's schema (``stream_object``)."""
