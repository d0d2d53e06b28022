"""The Anthropic Messages decoder: content-block events into accumulator calls (choice 0, key: the block index).

The rules are those of ``docs/semantics.md`` ("anthropic-messages"). ``tool_use`` blocks are client calls; every
other block (text, thinking, redacted thinking, server and MCP tool use, their results) is kept in ``output``,
completed from its deltas, within ``Limits.max_output_bytes``. A block index holds something only for a call kept or a
block kept: a stream that opens blocks without end at new indexes holds no more than those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire._model import OutputItem
from toolwire.reference._accumulator import REFUSED, Accumulator, FinishKind, Fragment
from toolwire.reference._fields import Fields
from toolwire.reference._json import value_or_text
from toolwire.reference.decode._output import text_size, whole_size

#: The event types of the Messages API: one identifies a stream as this format's.
_TYPES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)
_CALL_TYPE = "tool_use"
_SERVER_CALL_TYPES = frozenset({"server_tool_use", "mcp_tool_use"})
_DELTA_KEYS = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}
_FINISH_KINDS: dict[str, FinishKind] = {
    "tool_use": "calls",
    "end_turn": "stop",
    "max_tokens": "cut",
    "refusal": "cut",
    "model_context_window_exceeded": "cut",
}
_JSON_WHITESPACE = " \t\n\r"


@dataclass(slots=True)
class _CallBlock:
    """A ``tool_use`` block: its start ``input`` is held until it is known that no delta replaces it."""

    index: int
    held: str | None
    stopped: bool = False


@dataclass(slots=True)
class _OutputBlock:
    """Any other block: its start as sent and what its deltas brought, per member (None: no delta of that kind)."""

    start: dict[str, Any]
    after_calls: int
    appended: dict[str, list[str]] = field(default_factory=dict)
    citations: list[Any] | None = None
    partial_json: list[str] | None = None

    def value(self) -> dict[str, Any]:
        value = dict(self.start)
        for key, parts in self.appended.items():
            value[key] = _of_type(self.start.get(key), str, "") + "".join(parts)
        if self.citations is not None:
            value["citations"] = [*_of_type(self.start.get("citations"), list, []), *self.citations]
        if self.partial_json is not None:
            text = "".join(self.partial_json)
            if text.strip(_JSON_WHITESPACE):
                value["input"] = value_or_text(text)
        return value


class AnthropicMessagesDecoder:
    """The state of one Anthropic Messages stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator
        self._message_id: str | None = None  # the first message's
        self._blocks: dict[int, _CallBlock | _OutputBlock] = {}  # a block restarted at its index replaces it
        self._output: list[_OutputBlock] = []
        # The usage: the message's start's, and the latest message_delta's, merged only when asked for (``usage``), so
        # that a stream of deltas costs each one its own members.
        self._usage: tuple[dict[str, Any], dict[str, Any] | None] | None = None

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """An event whose ``type`` (or server-sent event name) is one of the Messages API's."""
        return kind in _TYPES

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one event; ``name`` is its server-sent event name, the type when the data has none."""
        fields = Fields(number)
        kind = fields.event_type(event, name)
        if kind == "message_start":
            self._message_start(event, fields)
        elif kind == "content_block_start":
            self._block_start(event, fields)
        elif kind == "content_block_delta":
            self._block_delta(event, fields)
        elif kind == "content_block_stop":
            self._block_stop(fields.key(event, "index", "index"))
        elif kind == "message_delta":
            self._message_delta(event, fields)
        elif kind == "error":
            error = event.get("error")
            self._feed_held()
            self._accumulator.provider_error(event if error is None else error)

    def end(self) -> None:
        """The stream ended: start inputs of blocks that never stopped still count."""
        self._feed_held()

    def output(self) -> tuple[OutputItem, ...]:
        """Every block but ``tool_use``, in start order, completed from its deltas."""
        return tuple(OutputItem(block.after_calls, block.value()) for block in self._output)

    def usage(self) -> dict[str, Any] | None:
        """The message's usage: its start's, with the members of the latest ``message_delta``'s in place."""
        if self._usage is None:
            return None
        start, latest = self._usage
        return {**start, **(latest or {})}

    # ------------------------------------------------------------------------------------------------- events

    def _message_start(self, event: dict[str, Any], fields: Fields) -> None:
        self._accumulator.touch(0)
        message = fields.mapping(event, "message", "message")
        if message is None:
            return
        message_id = fields.string(message, "id", "message.id")
        if message_id is not None:
            if self._message_id is None:
                self._message_id = message_id
            elif message_id != self._message_id:
                self._accumulator.spliced(self._message_id, message_id)
        usage = fields.mapping(message, "usage", "message.usage")
        if usage is not None:
            self._usage = (usage, None)  # a message's usage starts with its message_start

    def _block_start(self, event: dict[str, Any], fields: Fields) -> None:
        index = fields.key(event, "index", "index")
        block = fields.mapping(event, "content_block", "content_block")
        if block is None:
            return
        if fields.string(block, "type", "content_block.type") == _CALL_TYPE:
            self._call_start(index, block, fields)
        else:
            self._output_start(index, block, fields)

    def _call_start(self, index: int, block: dict[str, Any], fields: Fields) -> None:
        call_id = fields.string(block, "id", "content_block.id")
        call_name = fields.string(block, "name", "content_block.name")
        held = fields.arguments(block, "input", "content_block.input")
        caller = block.get("caller")
        extra = () if caller is None else (("caller", caller),)
        fragment = Fragment(index, call_id, call_name, _CALL_TYPE, None, extra=extra)
        if self._accumulator.fragment(0, fragment) == REFUSED:
            self._blocks.pop(index, None)  # a call past Limits.max_calls keeps nothing, its start input neither
        else:
            self._blocks[index] = _CallBlock(index, held)

    def _output_start(self, index: int, block: dict[str, Any], fields: Fields) -> None:
        if block.get("type") == "text":
            text = fields.string(block, "text", "content_block.text")
            if text is not None:
                self._accumulator.text(0, text)
        if not self._accumulator.admit_output(whole_size(block, fields, "content_block")):
            self._blocks.pop(index, None)  # the block left out: its index holds nothing now
            return
        output = _OutputBlock(block, self._accumulator.calls_opened())
        self._blocks[index] = output
        self._output.append(output)

    def _block_delta(self, event: dict[str, Any], fields: Fields) -> None:
        index = fields.key(event, "index", "index")
        delta = fields.mapping(event, "delta", "delta")
        if delta is None:
            return
        delta_type = fields.string(delta, "type", "delta.type")
        block = self._blocks.get(index)
        if delta_type == "input_json_delta":
            partial = fields.string(delta, "partial_json", "delta.partial_json")
            if partial is not None:
                self._input_delta(index, block, partial)
        elif delta_type in _DELTA_KEYS:
            key = _DELTA_KEYS[delta_type]
            text = fields.string(delta, key, f"delta.{key}")
            if text is not None:
                if key == "text":
                    self._accumulator.text(0, text)
                if isinstance(block, _OutputBlock) and self._accumulator.admit_output(text_size(text)):
                    block.appended.setdefault(key, []).append(text)
        elif delta_type == "citations_delta":
            citation = delta.get("citation")
            if (
                citation is not None
                and isinstance(block, _OutputBlock)
                and self._accumulator.admit_output(whole_size(citation, fields, "delta.citation"))
            ):
                block.citations = _extended(block.citations, citation)

    def _input_delta(self, index: int, block: _CallBlock | _OutputBlock | None, partial: str) -> None:
        """Arguments for a call, or the input of a server call; a text or thinking block takes none."""
        if isinstance(block, _OutputBlock):
            if block.start.get("type") in _SERVER_CALL_TYPES and self._accumulator.admit_output(text_size(partial)):
                block.partial_json = _extended(block.partial_json, partial)
            return
        if block is None and self._accumulator.output_is_over:
            # The input of a server call left out, as far as anyone can tell: counted with it, never a call.
            self._accumulator.admit_output(text_size(partial))
            return
        if self._accumulator.fragment(0, Fragment(index, None, None, _CALL_TYPE, partial)) == REFUSED:
            return
        if block is None:  # a block that never started: its call will lack id and name
            block = _CallBlock(index, None)
            self._blocks[index] = block
        if partial:
            block.held = None  # the SDK's rule: deltas replace the start input

    def _block_stop(self, index: int) -> None:
        block = self._blocks.get(index)
        if isinstance(block, _CallBlock) and not block.stopped:
            block.stopped = True
            self._feed(block)
            self._accumulator.end_call(0, index)

    def _message_delta(self, event: dict[str, Any], fields: Fields) -> None:
        delta = fields.mapping(event, "delta", "delta")
        reason = None if delta is None else fields.string(delta, "stop_reason", "delta.stop_reason")
        if reason is not None:
            self._feed_held()
            self._accumulator.finish(0, reason, _FINISH_KINDS.get(reason, "neutral"))
        usage = fields.mapping(event, "usage", "usage")
        if usage is not None:
            start = {} if self._usage is None else self._usage[0]
            self._usage = (start, usage)

    # ------------------------------------------------------------------------------------------------ helpers

    def _feed(self, call: _CallBlock) -> None:
        """A start input that no delta replaced becomes the call's arguments."""
        if call.held is not None:
            held, call.held = call.held, None
            self._accumulator.fragment(0, Fragment(call.index, None, None, _CALL_TYPE, held))

    def _feed_held(self) -> None:
        """Before calls can be handed over without their block's stop (a finish, an error, the end), by index."""
        for _, block in sorted(self._blocks.items()):
            if isinstance(block, _CallBlock) and not block.stopped:
                self._feed(block)


def _of_type(value: Any, kind: type, default: Any) -> Any:
    """A start member a delta extends, or ``default`` when it is absent or of another type."""
    return value if isinstance(value, kind) else default


def _extended(items: list[Any] | None, item: Any) -> list[Any]:
    """``items`` with one more (None until the first: a member no delta touched stays as it started)."""
    if items is None:
        return [item]
    items.append(item)
    return items
