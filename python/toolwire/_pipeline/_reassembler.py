"""``Reassembler``: reassembly for callers who drive their own loop (a chunk at a time, from a callback or a queue).

Where ``reassemble`` pulls from a source, a Reassembler is pushed to; both hand over the same calls in the same order,
with the same findings, over the same engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from toolwire._model import InvalidToolCall, Limits, StreamResult, TextDialect
from toolwire._pipeline._choice import ToolChoiceLike
from toolwire._pipeline._options import Options
from toolwire._pipeline._protocol import Emit, Emitted, Implementation, OnInvalid, OnViolation
from toolwire._pipeline._repair import Repair
from toolwire._pipeline._sources import RawBody
from toolwire._pipeline._streams import carry_result, contract_errors
from toolwire.errors import InvalidToolCallError, MalformedChunkError, StreamContractError
from toolwire.formats import WireFormat
from toolwire.registry import ToolsLike

__all__ = ["Reassembler"]


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

    _implementation: ClassVar[Implementation]

    def __init_subclass__(cls, *, implementation: Implementation | None = None, **kwargs: Any) -> None:
        """Bind a package's Reassembler to its implementation; a user's subclass keeps its base's."""
        super().__init_subclass__(**kwargs)
        if implementation is not None:
            cls._implementation = implementation

    def __init__(
        self,
        *,
        tools: ToolsLike | None = None,
        tool_choice: ToolChoiceLike = None,
        emit: Emit = "call_end",
        on_invalid: OnInvalid = "raise",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        repair: Repair | None = None,
        format: WireFormat | None = None,
        dialect: str | TextDialect | None = None,
        snapshots: bool = False,
    ) -> None:
        """Start reassembling one stream; the keywords are those of ``reassemble``.

        With ``snapshots``, each call's partial arguments are kept for ``snapshot(seq)``.
        """
        options = Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair, format, dialect)
        self.tools = options.registry
        self._on_invalid = options.on_invalid
        self._snapshots = snapshots
        self._engine = options.engine(self._implementation, progress=snapshots)
        self._finished = False
        # Calls handed over after an invalid one that raised: the next step returns them.
        self._held: list[Emitted] = []
        # The method running now, if any: a callback it runs must not use this Reassembler.
        self._running: str | None = None

    def feed(self, chunk: object) -> list[Emitted]:
        """Read one chunk; return the calls it made ready, in hand-over order."""
        return self._read("feed", self._engine.feed, chunk)

    def feed_bytes(self, data: RawBody) -> list[Emitted]:
        """Read a raw body's next bytes (split anywhere); return the calls they made ready, in hand-over order.

        The body is framed by what its first bytes say it is: server-sent events, JSON lines, a JSON array or AWS
        event-stream messages (``docs/semantics.md``, "Raw bodies").
        """
        return self._read("feed_bytes", self._engine.feed_bytes, data)

    def _read(self, method: str, read: Callable[[Any], list[Emitted]], item: object) -> list[Emitted]:
        """One step of the stream: ``read(item)``'s calls delivered; a malformed chunk's error carries the result."""
        self._enter(method)
        try:
            if self._finished:
                raise ValueError("this Reassembler has finished; start a new one for the next stream")
            return self._deliver(read(item))
        except MalformedChunkError as error:
            carry_result(error, self._engine)
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
            carry_result(error, self._engine)
            raise
        finally:
            self._running = None

    def close(self) -> StreamResult:
        """Finish if needed and return the final ``StreamResult``."""
        self.finish()
        result = self.result
        errors = contract_errors(result)
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
