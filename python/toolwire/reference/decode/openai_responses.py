"""The OpenAI Responses decoder: output-item events into accumulator calls (choice 0, key: ``output_index``).

The rules are those of ``docs/semantics.md`` ("openai-responses"). Calls are matched by ``output_index``, never by
the item id, which some servers rotate between events (Q27); ``.done`` events carry the authoritative text and end
the call. A ``custom_tool_call`` item is a call whose input is free text, unless the response the stream echoes lists
its tools without a custom tool of that name: then the provider ran it (xAI's ``x_search``), and it is output. An
output index holds something only for a call kept or (within ``Limits.max_output_bytes``) an item the provider ran.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolwire._model import OutputItem
from toolwire.reference._accumulator import REFUSED, Accumulator, Fragment, value_or_none
from toolwire.reference._fields import Fields
from toolwire.reference.decode._output import BOOKKEEPING, text_size, whole_size

_CALL_TYPE = "function_call"
_CUSTOM_TYPE = "custom_tool_call"
_TEXT_EVENTS = frozenset(
    {
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
    }
)
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed", "response.cancelled"})
_CUT_STATUSES = frozenset({"incomplete", "failed", "cancelled"})


class OpenAiResponsesDecoder:
    """The state of one Responses stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator
        self._output: list[OutputItem] = []
        self._has_id: dict[int, bool] = {}  # per output index of a call kept: whether the call has its id
        self._custom_tools: set[str] | None = None  # the custom tools the echoed response lists, once it did
        # Output indexes of custom tool calls the provider ran: each counts towards Limits.max_output_bytes (its
        # bookkeeping), as the item it will be.
        self._server_items: set[int] = set()

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """An event whose ``type`` (or server-sent event name) begins with ``response.``."""
        return kind is not None and kind.startswith("response.")

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one event; ``name`` is its server-sent event name, the type when the data has none."""
        fields = Fields(number)
        kind = fields.event_type(event, name)
        if kind in ("response.created", "response.in_progress"):
            self._accumulator.touch(0)
            self._read_tools(event, fields)
        elif kind == "response.output_item.added":
            self._item(event, fields, done=False)
        elif kind == "response.output_item.done":
            self._item(event, fields, done=True)
        elif kind in _TEXT_EVENTS:
            # A function call's arguments, or a custom tool call's input (free text).
            custom = kind.startswith("response.custom_tool_call_input.")
            if kind.endswith(".delta"):
                self._delta(event, fields, custom=custom)
            else:
                self._done(event, fields, custom=custom)
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            self._words(kind, event, fields)
        elif kind in _TERMINAL:
            self._terminal(kind, event, fields)
        elif kind == "error":
            self._accumulator.provider_error(event)

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """Every finished output item but the function calls, as sent."""
        return tuple(self._output)

    def usage(self) -> None:
        """The usage is the last one sent (the accumulator keeps it)."""

    # ------------------------------------------------------------------------------------------------- events

    def _words(self, kind: str, event: dict[str, Any], fields: Fields) -> None:
        """A ``.delta`` of the message's text, or of what it says when it refuses."""
        text = fields.string(event, "delta", "delta")
        if text is None:
            return
        if kind == "response.refusal.delta":
            self._accumulator.refusal(0, text)
        else:
            self._accumulator.text(0, text)

    def _read_tools(self, event: dict[str, Any], fields: Fields) -> None:
        """The custom tools an echoed response object lists."""
        response = fields.mapping(event, "response", "response")
        if response is None or response.get("tools") is None:
            return
        names = set()
        for position, tool in enumerate(fields.sequence(response, "tools", "response.tools")):
            at = f"response.tools[{position}]"
            fields.record(tool, at)
            if fields.string(tool, "type", f"{at}.type") == "custom":
                name = fields.string(tool, "name", f"{at}.name")
                if name is not None:
                    names.add(name)
        self._custom_tools = names

    def _item(self, event: dict[str, Any], fields: Fields, *, done: bool) -> None:
        """A function or custom tool call's identity (and at ``.done`` its final text and end).

        Any other item, once done, is output.
        """
        index = fields.key(event, "output_index", "output_index")
        item = fields.mapping(event, "item", "item")
        if item is None:
            return
        kind = fields.string(item, "type", "item.type")
        custom = kind == _CUSTOM_TYPE and not self._ran_by_provider(item, fields)
        if kind != _CALL_TYPE and not custom:
            if kind == _CUSTOM_TYPE and index not in self._server_items and self._accumulator.admit_output(BOOKKEEPING):
                self._server_items.add(index)
            if done and self._accumulator.admit_output(whole_size(item, fields, "item")):
                self._output.append(OutputItem(self._accumulator.calls_opened(), item))
            return
        call_id = fields.string(item, "call_id", "item.call_id")
        call_name = fields.string(item, "name", "item.name")
        if custom:
            text = fields.string(item, "input", "item.input")
            arguments = None if text is None else _Arguments(text, was_value=False)
        else:
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
            _CUSTOM_TYPE if custom else _CALL_TYPE,
            opening,
            extra=() if item_id is None else (("item_id", item_id),),
            free_text=custom,
        )
        # At ``.done``, opens the call when no ``added`` came.
        if self._accumulator.fragment(0, fragment) == REFUSED:
            self._has_id.pop(index, None)  # a call past Limits.max_calls: its index holds nothing now
        else:
            self._has_id[index] = had_id or value_or_none(call_id) is not None
        if done:
            if arguments is not None:
                self._final(index, arguments)
            self._accumulator.end_call(0, index)

    def _ran_by_provider(self, item: dict[str, Any], fields: Fields) -> bool:
        """A custom tool call is the provider's own when the echoed response lists no custom tool of its name."""
        if self._custom_tools is None:
            return False
        name = fields.string(item, "name", "item.name")
        return name is None or name not in self._custom_tools

    def _delta(self, event: dict[str, Any], fields: Fields, *, custom: bool = False) -> None:
        """A function call's arguments delta, or (``custom``) a custom tool call's input delta."""
        index = fields.key(event, "output_index", "output_index")
        delta = fields.string(event, "delta", "delta")
        if delta is None or (custom and not self._custom_input(index, delta)):
            return
        kind = _CUSTOM_TYPE if custom else _CALL_TYPE
        if self._accumulator.fragment(0, Fragment(index, None, None, kind, delta, free_text=custom)) != REFUSED:
            self._has_id.setdefault(index, False)

    def _done(self, event: dict[str, Any], fields: Fields, *, custom: bool = False) -> None:
        """The final text (``.done``); it opens the call when no item or delta came."""
        index = fields.key(event, "output_index", "output_index")
        if custom:
            text = fields.string(event, "input", "input")
            arguments = None if text is None or not self._custom_input(index, text) else _Arguments(text, False)
        else:
            arguments = _arguments(event, "arguments", fields)
        if arguments is not None:
            if index not in self._has_id:
                kind = _CUSTOM_TYPE if custom else _CALL_TYPE
                opening = Fragment(index, None, None, kind, None, free_text=custom)
                if self._accumulator.fragment(0, opening) != REFUSED:
                    self._has_id[index] = False
            self._final(index, arguments)
            self._accumulator.end_call(0, index)

    def _custom_input(self, index: int, text: str) -> bool:
        """Whether an input event of a custom tool call at ``index`` is read.

        Not when the provider ran that call, nor, once the output went past its limit, when nothing is kept at the
        index (it may be such a call, left out: its input is counted with it).
        """
        if index in self._server_items:
            return False
        if self._accumulator.output_is_over and index not in self._has_id:
            self._accumulator.admit_output(text_size(text))
            return False
        return True

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
