"""The reference engine: the OpenAI Chat decoder in front of the accumulator, one chunk at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from toolstream._choice import ToolChoice
from toolstream._model import InvalidToolCall, Limits, StreamResult, ToolCall, Violation
from toolstream.reference._accumulator import Accumulator, Emit
from toolstream.reference._openai_chat import read_chunk

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

    def feed(self, chunk: Any) -> list[ToolCall | InvalidToolCall]:
        """Read one chunk; return the calls it made ready."""
        if self._ended:
            raise ValueError("the stream has ended; no more chunks can be fed")
        number = self._chunks_read
        self._chunks_read += 1
        try:
            read_chunk(self._accumulator, chunk, number)
        finally:
            # What the chunk did before a malformed field still happened: it is reported either way.
            self._notify()
        return self._accumulator.take_ready()

    def pull(self, chunks: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """Read chunks until at least one call is ready; None once ``chunks`` is exhausted."""
        for chunk in chunks:
            ready = self.feed(chunk)
            if ready:
                return ready
        return None

    def end(self) -> list[ToolCall | InvalidToolCall]:
        """End the stream; return the calls only the end made ready."""
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
