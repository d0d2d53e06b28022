"""The OpenAI Chat Completions decoder: reads one chunk (a dict or an SDK object) into accumulator calls.

Reading order and type rules are those of ``docs/semantics.md`` ("Reading a chunk"). The engine reads a chunk object
with ``read_chunk`` as it is (an SDK object is never serialized first), as the binding does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolwire._model import OutputItem
from toolwire.reference._accumulator import Accumulator, FinishKind, Fragment
from toolwire.reference._fields import NOT_A_MAPPING, Fields

_SCALARS = (str, bytes, bytearray, int, float, list, tuple)
_CUTTING = frozenset({"length", "content_filter"})


def finish_kind(reason: str) -> FinishKind:
    """What a Chat Completions ``finish_reason`` means.

    ``tool_calls`` calls, ``stop`` stop, ``length`` and ``content_filter`` cut, anything else neutral.
    """
    if reason == "tool_calls":
        return "calls"
    if reason == "stop":
        return "stop"
    return "cut" if reason in _CUTTING else "neutral"


class OpenAiChatDecoder:
    """The state of one Chat Completions stream: none, each chunk is read on its own."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """A chunk with ``choices``, or a ``chat.completion...`` object."""
        obj = event.get("object")
        return event.get("choices") is not None or (isinstance(obj, str) and obj.startswith("chat.completion"))

    def read(self, event: Any, number: int, name: str | None = None) -> None:
        """Apply one chunk (a dict, or an SDK object)."""
        read_chunk(self._accumulator, event, number)

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """Chat Completions sends nothing but text and calls."""
        return ()

    def usage(self) -> None:
        """The usage is the last one sent (the accumulator keeps it)."""


def read_chunk(accumulator: Accumulator, chunk: Any, number: int) -> None:
    """Feed one Chat Completions chunk to the accumulator."""
    reader = _Reader(number)
    reader.record(chunk, "")
    error = reader.get(chunk, "error")
    if error is not None:
        accumulator.provider_error(error)
        return
    choices = reader.sequence(chunk, "choices", "choices")
    for position, choice in enumerate(choices):
        where = f"choices[{position}]"
        reader.record(choice, where)
        choice_number = reader.integer(choice, "index", f"{where}.index")
        if choice_number is None:
            choice_number = position
        if not accumulator.choice_entry(choice_number):
            continue  # a choice past Limits.max_choices: counted, not read
        delta = reader.get(choice, "delta")
        if delta is not None:
            _read_delta(accumulator, reader, delta, choice_number, f"{where}.delta")
        finish_reason = reader.string(choice, "finish_reason", f"{where}.finish_reason")
        if finish_reason is not None:
            accumulator.finish(choice_number, finish_reason, finish_kind(finish_reason))
    usage = reader.get(chunk, "usage")
    if usage is not None:
        accumulator.usage(usage)


def _read_delta(accumulator: Accumulator, reader: _Reader, delta: Any, choice_number: int, where: str) -> None:
    """A choice's ``delta``: its call fragments, then its content text, then its refusal."""
    reader.record(delta, where)
    tool_calls = reader.sequence(delta, "tool_calls", f"{where}.tool_calls")
    for call_position, tool_call in enumerate(tool_calls):
        accumulator.fragment(choice_number, reader.fragment(tool_call, f"{where}.tool_calls[{call_position}]"))
    content = reader.string(delta, "content", f"{where}.content")
    if content is not None:
        accumulator.text(choice_number, content)
    refusal = reader.string(delta, "refusal", f"{where}.refusal")
    if refusal is not None:
        accumulator.refusal(choice_number, refusal)


class _Reader(Fields):
    """``Fields`` of a chunk read as it is: a dict, or an SDK object whose attributes are its fields."""

    @staticmethod
    def get(container: Any, key: str) -> Any:
        """A field of a mapping (by key) or of any other object (by attribute)."""
        if isinstance(container, Mapping):
            return container.get(key)
        return getattr(container, key, None)

    def record(self, value: Any, path: str) -> Any:
        """``value`` itself, which must be a mapping or an object with attributes, not null, a scalar or a list."""
        if value is None or isinstance(value, _SCALARS):
            raise self.fail(path, f"{NOT_A_MAPPING} {type(value).__name__}")
        return value

    def sequence(self, container: Any, key: str, path: str) -> Sequence[Any]:
        """A list field (a tuple is one); absent is empty."""
        value = self.get(container, key)
        if value is None:
            return ()
        if not isinstance(value, (list, tuple)):
            raise self.fail(path, f"expected a list, got {type(value).__name__}")
        return value

    def fragment(self, tool_call: Any, path: str) -> Fragment:
        self.record(tool_call, path)
        index = self.integer(tool_call, "index", f"{path}.index")
        call_id = self.string(tool_call, "id", f"{path}.id")
        kind = self.string(tool_call, "type", f"{path}.type")
        function = self.get(tool_call, "function")
        name = arguments = None
        arguments_was_value = False
        if function is not None:
            self.record(function, f"{path}.function")
            name = self.string(function, "name", f"{path}.function.name")
            raw = self.get(function, "arguments")
            if isinstance(raw, str) or raw is None:
                arguments = raw
            else:
                arguments = self.canonical(raw, f"{path}.function.arguments")
                arguments_was_value = True
        return Fragment(index, call_id, name, kind, arguments, arguments_was_value)
