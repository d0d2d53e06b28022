"""The reference engine: the OpenAI Chat decoder in front of the accumulator, one chunk at a time."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from toolstream._choice import ToolChoice
from toolstream._model import InvalidToolCall, Limits, StreamResult, ToolCall, Violation
from toolstream.errors import MalformedChunkError
from toolstream.reference._accumulator import Accumulator, Emit
from toolstream.reference._openai_chat import read_chunk
from toolstream.reference._sse import Event, EventTooLargeError, SseFramer

if TYPE_CHECKING:
    from toolstream._validation import CompiledTools


class Engine:
    """Reads chunks into an ``Accumulator`` (the interface ``toolstream._api`` drives)."""

    def __init__(
        self,
        *,
        tool_choice: ToolChoice,
        emit: Emit,
        limits: Limits,
        on_violation: Callable[[Violation], object] | None,
        validators: CompiledTools | None = None,
    ) -> None:
        """Start one stream; with ``validators``, calls are checked against the declared tools."""
        self._accumulator = Accumulator(
            emit=emit,
            limits=limits,
            tool_choice=tool_choice,
            log_violations=on_violation is not None,
            validators=validators,
        )
        self._on_violation = on_violation
        self._chunks_read = 0
        self._ended = False
        self._framer: SseFramer | None = None
        self._max_event_bytes = limits.max_event_bytes
        # A read's malformed event, held back while the calls its earlier events made ready are handed over: raised
        # by the next call, as a chunk source raises at the chunk after handing over the calls before it.
        self._deferred: MalformedChunkError | None = None

    def feed(self, chunk: Any) -> list[ToolCall | InvalidToolCall]:
        """Read one chunk; return the calls it made ready."""
        if self._ended:
            raise ValueError("the stream has ended; no more chunks can be fed")
        self._read(chunk)
        return self._accumulator.take_ready()

    def _read(self, chunk: Any) -> None:
        number = self._chunks_read
        self._chunks_read += 1
        try:
            read_chunk(self._accumulator, chunk, number)
        finally:
            # What the chunk did before a malformed field still happened: it is reported either way.
            self._notify()

    def pull(self, chunks: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """Read chunks until at least one call is ready; None once ``chunks`` is exhausted."""
        for chunk in chunks:
            ready = self.feed(chunk)
            if ready:
                return ready
        return None

    def feed_bytes(self, data: Any) -> list[ToolCall | InvalidToolCall]:
        """Read raw event-stream bytes (any split); return the calls they made ready."""
        if self._ended:
            raise ValueError("the stream has ended; no more bytes can be fed")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"raw stream chunks must be bytes, bytearray or memoryview; got {type(data).__name__}")
        self._raise_deferred()
        if self._framer is None:
            self._framer = SseFramer(self._max_event_bytes)
        try:
            self._framer.feed(bytes(data), self._read_event)
        except EventTooLargeError as error:
            self._defer(MalformedChunkError(self._chunks_read, "", str(error)))
        except MalformedChunkError as error:
            self._defer(error)
        return self._accumulator.take_ready()

    def _defer(self, error: MalformedChunkError) -> None:
        if not self._accumulator.has_ready():
            raise error
        self._deferred = error

    def _raise_deferred(self) -> None:
        if self._deferred is not None:
            error, self._deferred = self._deferred, None
            raise error

    def pull_bytes(self, chunks: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """``pull`` over an iterator of raw event-stream byte chunks."""
        self._raise_deferred()
        for data in chunks:
            ready = self.feed_bytes(data)
            if ready:
                return ready
        return None

    def _read_event(self, event: Event) -> None:
        """One event's data: a chunk's JSON, or nothing (``[DONE]``, a keep-alive with empty data)."""
        data = event.data.strip(b" \t\n\r\x0c")  # ASCII whitespace, as the core trims it
        if not data or data == b"[DONE]":
            return
        number = self._chunks_read
        try:
            chunk = json.loads(data.decode("utf-8"), parse_constant=_not_json)
        except UnicodeDecodeError as error:
            raise MalformedChunkError(number, "", f"the chunk is not UTF-8: {error}") from None
        except ValueError as error:
            raise MalformedChunkError(number, "", f"not JSON: {error}") from None
        self._read(chunk)

    def end(self) -> list[ToolCall | InvalidToolCall]:
        """End the stream; return the calls only the end made ready."""
        self._raise_deferred()
        if self._framer is not None:
            framer, self._framer = self._framer, None
            framer.finish(self._read_event)
        self._ended = True
        self._accumulator.end()
        self._notify()
        return self._accumulator.take_ready()

    def _notify(self) -> None:
        """``on_violation`` sees a chunk's violations once the chunk has been applied, in the order found."""
        if self._on_violation is not None:
            for violation in self._accumulator.take_log():
                self._on_violation(violation)

    def result(self) -> StreamResult:
        """The result so far."""
        return self._accumulator.result()

    def amend(self, call: ToolCall | InvalidToolCall) -> None:
        """Replace the handed-over call with the same (choice, seq) by ``call`` (a repaired one)."""
        self._accumulator.amend(call)


def _not_json(constant: str) -> None:
    """``NaN`` and ``Infinity`` are not JSON (``json.loads`` would take them)."""
    raise ValueError(f"{constant} is not a JSON value")
