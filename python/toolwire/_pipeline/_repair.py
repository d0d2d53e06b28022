"""The opt-in ``repair=`` hook: invalid calls offered to the user's repair, re-validated, marked ``REPAIRED``."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from toolwire._model import InvalidToolCall, ToolCall, ViolationCode, violation
from toolwire._pipeline._protocol import DelegatingEngine, Emitted, Engine, OnViolation
from toolwire.registry import CompiledTools

__all__ = ["Repair", "Repairing"]

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


class Repairing(DelegatingEngine):
    """An engine whose invalid calls first go through the user's ``repair`` hook (``reassemble(repair=...)``).

    A proposal is re-validated; only one that passes replaces the call, as a ``ToolCall`` carrying ``REPAIRED``
    (with the original text and errors in its data). A proposal that still fails is discarded: the call stays as
    the model sent it, so the model is told about its own mistakes. A hook that raises leaves its call as the model
    sent it; that call and the ones after it are returned by the next step (the exception loses none).
    """

    def __init__(
        self, engine: Engine, repair: Repair, validators: CompiledTools, on_violation: OnViolation | None
    ) -> None:
        super().__init__(engine)
        self._repair = repair
        self._validators = validators
        self._on_violation = on_violation
        # Calls taken from the engine and not offered to the hook yet, and calls settled and not returned yet: an
        # exception from the hook (or from on_violation) leaves both for the next step.
        self._unoffered: deque[Emitted] = deque()
        self._settled: list[Emitted] = []

    def feed(self, chunk: Any) -> list[Emitted]:
        return self._repaired(self._engine.feed(chunk))

    def pull(self, chunks: Iterator[Any]) -> list[Emitted] | None:
        calls = self._engine.pull(chunks)
        return None if calls is None else self._repaired(calls)

    def feed_bytes(self, data: Any) -> list[Emitted]:
        return self._repaired(self._engine.feed_bytes(data))

    def feed_item(self, item: Any) -> list[Emitted] | None:
        calls = self._engine.feed_item(item)
        return None if calls is None else self._repaired(calls)

    def pull_items(self, items: Iterator[Any]) -> list[Emitted] | None:
        calls = self._engine.pull_items(items)
        return None if calls is None else self._repaired(calls)

    def end(self) -> list[Emitted]:
        return self._repaired(self._engine.end())

    def _repaired(self, calls: list[Emitted]) -> list[Emitted]:
        self._unoffered.extend(calls)
        while self._unoffered:
            call = self._unoffered.popleft()
            self._settled.append(call)  # a hook that raises leaves the call as the model sent it
            if isinstance(call, InvalidToolCall) and (amended := self._attempt(call)) is not None:
                self._settled[-1] = amended
                if self._on_violation is not None:
                    self._on_violation(amended.violations[-1])
        settled, self._settled = self._settled, []
        return settled

    def _attempt(self, call: InvalidToolCall) -> ToolCall | None:
        """The repaired call, amended in the engine's result, or None when the call stays as the model sent it."""
        name = call.name
        if name is None or self._validators.fingerprint(name) is None:
            return None
        if any(error.code not in _REPAIRABLE for error in call.errors):
            return None
        proposal = self._repair(call)
        if proposal is None:
            return None
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
            return None
        fixed = ", ".join(
            f"{error.code.value} at {error.path}" if error.path else error.code.value for error in call.errors
        )
        repaired = violation(
            ViolationCode.REPAIRED,
            f"the repair hook replaced the arguments, which then validated; the model's arguments had: {fixed}",
            choice=call.choice,
            seq=call.seq,
            index=call.index,
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
        return amended
