"""The OpenAI Responses decoder: output-item events into accumulator calls (choice 0, key: ``output_index``).

The rules are those of ``docs/semantics.md`` ("openai-responses"). Calls are matched by ``output_index``, never by
the item id, which some servers rotate between events (Q27); ``.done`` events carry the authoritative text and end
the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolstream._model import OutputItem
from toolstream.reference._accumulator import Accumulator, Fragment, value_or_none
from toolstream.reference._fields import Fields

_CALL_TYPE = "function_call"
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed", "response.cancelled"})
_CUT_STATUSES = frozenset({"incomplete", "failed", "cancelled"})


class ResponsesDecoder:
    """The state of one Responses stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator
        self._output: list[OutputItem] = []
        self._has_id: dict[int, bool] = {}  # per output index of a call: whether the call has its id

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one event; ``name`` is its server-sent event name, the type when the data has none."""
        fields = Fields(number)
        kind = fields.event_type(event, name)
        if kind in ("response.created", "response.in_progress"):
            self._accumulator.touch(0)
        elif kind == "response.output_item.added":
            self._item(event, fields, done=False)
        elif kind == "response.output_item.done":
            self._item(event, fields, done=True)
        elif kind == "response.function_call_arguments.delta":
            self._delta(event, fields)
        elif kind == "response.function_call_arguments.done":
            self._done(event, fields)
        elif kind == "response.output_text.delta":
            text = fields.string(event, "delta", "delta")
            if text is not None:
                self._accumulator.text(0, text)
        elif kind in _TERMINAL:
            self._terminal(kind, event, fields)
        elif kind == "error":
            self._accumulator.provider_error(event)

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """Every finished output item but the function calls, as sent."""
        return tuple(self._output)

    # ------------------------------------------------------------------------------------------------- events

    def _item(self, event: dict[str, Any], fields: Fields, *, done: bool) -> None:
        """A function call's identity (and at ``.done`` its final text and end); another item, once done, is output."""
        index = fields.key(event, "output_index", "output_index")
        item = fields.mapping(event, "item", "item")
        if item is None:
            return
        if fields.string(item, "type", "item.type") != _CALL_TYPE:
            if done:
                self._output.append(OutputItem(self._accumulator.calls_opened(), item))
            return
        call_id = fields.string(item, "call_id", "item.call_id")
        call_name = fields.string(item, "name", "item.name")
        arguments = _arguments(item, "item.arguments", fields)
        item_id = item.get("id")
        had_id = self._has_id.get(index, False)
        # At ``added`` a non-empty text starts the arguments (a value there is dropped); at ``done`` it is final.
        opening = None if done or arguments is None or arguments.was_value else arguments.text or None
        fragment = Fragment(
            index,
            # A second id for a call that has one could only conflict with it: servers rotate ids, calls stay.
            None if had_id else call_id,
            call_name,
            _CALL_TYPE,
            opening,
            extra=() if item_id is None else (("item_id", item_id),),
        )
        self._accumulator.fragment(0, fragment)  # at ``.done``, opens the call when no ``added`` came
        self._has_id[index] = had_id or value_or_none(call_id) is not None
        if done:
            if arguments is not None:
                self._final(index, arguments)
            self._accumulator.end_call(0, index)

    def _delta(self, event: dict[str, Any], fields: Fields) -> None:
        index = fields.key(event, "output_index", "output_index")
        delta = fields.string(event, "delta", "delta")
        if delta is not None:
            self._accumulator.fragment(0, Fragment(index, None, None, _CALL_TYPE, delta))
            self._has_id.setdefault(index, False)

    def _done(self, event: dict[str, Any], fields: Fields) -> None:
        index = fields.key(event, "output_index", "output_index")
        arguments = _arguments(event, "arguments", fields)
        if arguments is not None:
            if index not in self._has_id:
                # A `.done` before any item or delta opens the call, as a function call.
                self._accumulator.fragment(0, Fragment(index, None, None, _CALL_TYPE, None))
                self._has_id[index] = False
            self._final(index, arguments)
            self._accumulator.end_call(0, index)

    def _final(self, index: int, arguments: _Arguments) -> None:
        """The call's final arguments: a text wins over its deltas.

        A value in its place (only servers that send no deltas send one) is appended as such: ``ARGUMENTS_NOT_STRING``.
        """
        if arguments.was_value:
            fragment = Fragment(index, None, None, _CALL_TYPE, arguments.text, arguments_was_value=True)
            self._accumulator.fragment(0, fragment)
        else:
            self._accumulator.done_arguments(0, index, arguments.text)

    def _terminal(self, kind: str, event: dict[str, Any], fields: Fields) -> None:
        """The finish is the response's status (the event's own name when it has none); an error is reported first."""
        response = fields.mapping(event, "response", "response") or {}
        status = fields.string(response, "status", "response.status")
        reason = status if status is not None else kind.removeprefix("response.")
        error = response.get("error")
        usage = response.get("usage")
        if usage is not None:
            self._accumulator.usage(usage)
        if error is not None:
            self._accumulator.provider_error(error)
        self._accumulator.finish(0, reason, "cut" if reason in _CUT_STATUSES else "neutral")


@dataclass(frozen=True, slots=True)
class _Arguments:
    """A call's ``arguments``: a string as the format promises, or the canonical text of a value sent instead."""

    text: str
    was_value: bool


def _arguments(container: dict[str, Any], path: str, fields: Fields) -> _Arguments | None:
    value = container.get("arguments")
    if value is None:
        return None
    if isinstance(value, str):
        return _Arguments(value, was_value=False)
    text = fields.arguments(container, "arguments", path)
    return None if text is None else _Arguments(text, was_value=True)
