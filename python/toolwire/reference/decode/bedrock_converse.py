"""The Bedrock ConverseStream decoder: events as the AWS SDK yields them (choice 0, key: ``contentBlockIndex``).

The rules are those of ``docs/semantics.md`` ("bedrock-converse"). Each event is an object with one member named
after its kind; ``toolUse`` blocks are calls, text and reasoning blocks are kept in ``output``, and so are a server
tool's ``toolUse`` block (``type: "server_tool_use"``, run by Bedrock) and the ``toolResult`` block that answers it,
within ``Limits.max_output_bytes``. A block index holds something only for a call kept or a block kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire._model import OutputItem
from toolwire.reference._accumulator import REFUSED, Accumulator, FinishKind, Fragment
from toolwire.reference._fields import Fields
from toolwire.reference._json import value_or_text
from toolwire.reference.decode._output import BOOKKEEPING, text_size, whole_size
from toolwire.reference.decode._shared import is_error

# With any ``...Exception`` (the exception events ConverseStream sends in place of the rest: ``throttlingException``,
# ``modelStreamErrorException``...), these identify Bedrock.
_KEYS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
)
_CALL_TYPE = "tool_use"
_FINISH_KINDS: dict[str, FinishKind] = {
    "tool_use": "calls",
    "end_turn": "stop",
    "max_tokens": "cut",
    "guardrail_intervened": "cut",
    "content_filtered": "cut",
    "model_context_window_exceeded": "cut",
}
_START = "contentBlockStart.start"
_DELTA = "contentBlockDelta.delta"
_CALL = "call"  # what a tool use's block index holds


@dataclass(slots=True)
class _Block:
    """A text or reasoning block, made by its first delta: the text (or reasoning text) its deltas brought."""

    after_calls: int
    text: list[str] = field(default_factory=list)
    reasoning: bool = False
    signature: list[str] | None = None
    redacted: Any = None

    def add_reasoning(self, text: str | None, signature: str | None, redacted: Any) -> None:
        """A reasoning delta: text, a piece of its signature, or redacted content (the last one kept)."""
        self.reasoning = True
        if text is not None:
            self.text.append(text)
        if signature is not None:
            if self.signature is None:
                self.signature = []
            self.signature.append(signature)
        if redacted is not None:
            self.redacted = redacted

    def value(self) -> dict[str, Any]:
        if self.redacted is not None:
            return {"reasoningContent": {"redactedContent": self.redacted}}
        if not self.reasoning:
            return {"text": "".join(self.text)}
        text: dict[str, Any] = {"text": "".join(self.text)}
        if self.signature is not None:
            text["signature"] = "".join(self.signature)
        return {"reasoningContent": {"reasoningText": text}}


@dataclass(slots=True)
class _ServerBlock:
    """A server tool's ``toolUse`` block or its ``toolResult``: the start object, and what the deltas brought."""

    after_calls: int
    member: str
    start: dict[str, Any]
    input: list[str] | None = None
    content: list[Any] | None = None

    def value(self) -> dict[str, Any]:
        value = dict(self.start)
        if self.input is not None:
            text = "".join(self.input)
            value["input"] = value_or_text(text) if text.strip(" \t\r\n") else text
        if self.content is not None:
            value["content"] = list(self.content)
        return {self.member: value}


class BedrockConverseDecoder:
    """The state of one ConverseStream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator
        # What each block index holds: a tool use (kept), or a block of ``output``. A block started again at its index
        # is a new one; the one before stays in ``output`` in its place.
        self._slots: dict[int, _Block | _ServerBlock | str] = {}
        self._output: list[_Block | _ServerBlock] = []  # in the order of their first event

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """An event of one member that is one of ConverseStream's, or any ``...Exception``."""
        if len(event) != 1:
            return False
        (key,) = event
        return key in _KEYS or key.endswith("Exception")

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one event (``messageStart``, ``contentBlockDelta``... or an exception)."""
        fields = Fields(number)
        if is_error(event):
            self._accumulator.provider_error(event)
            return
        if event.get("messageStart") is not None:
            self._accumulator.touch(0)
        start = fields.mapping(event, "contentBlockStart", "contentBlockStart")
        if start is not None:
            self._block_start(start, fields)
        delta = fields.mapping(event, "contentBlockDelta", "contentBlockDelta")
        if delta is not None:
            index = fields.key(delta, "contentBlockIndex", "contentBlockDelta.contentBlockIndex")
            body = fields.mapping(delta, "delta", _DELTA)
            if body is not None:
                self._block_delta(index, body, fields)
        stop = fields.mapping(event, "contentBlockStop", "contentBlockStop")
        if stop is not None:
            index = fields.key(stop, "contentBlockIndex", "contentBlockStop.contentBlockIndex")
            if self._slots.get(index) == _CALL:
                self._accumulator.end_call(0, index)
        message_stop = fields.mapping(event, "messageStop", "messageStop")
        reason = None if message_stop is None else fields.string(message_stop, "stopReason", "messageStop.stopReason")
        if reason is not None:
            self._accumulator.finish(0, reason, _FINISH_KINDS.get(reason, "neutral"))
        metadata = fields.mapping(event, "metadata", "metadata")
        if metadata is not None and metadata.get("usage") is not None:
            self._accumulator.usage(metadata["usage"])

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """The text and reasoning blocks, in the order of their first delta."""
        return tuple(OutputItem(block.after_calls, block.value()) for block in self._output)

    def usage(self) -> None:
        """The usage is the last one sent (the accumulator keeps it)."""

    def _block_start(self, start: dict[str, Any], fields: Fields) -> None:
        index = fields.key(start, "contentBlockIndex", "contentBlockStart.contentBlockIndex")
        body = fields.mapping(start, "start", "contentBlockStart.start")
        tool = None if body is None else fields.mapping(body, "toolUse", "contentBlockStart.start.toolUse")
        server = tool is not None and (
            fields.string(tool, "type", "contentBlockStart.start.toolUse.type") == "server_tool_use"
        )
        result = None if body is None else fields.mapping(body, "toolResult", "contentBlockStart.start.toolResult")
        if result is not None:
            self._server_block(index, "toolResult", result, whole_size(result, fields, f"{_START}.toolResult"))
            return
        if server and tool is not None:
            self._server_block(index, "toolUse", tool, whole_size(tool, fields, f"{_START}.toolUse"))
            return
        if tool is None:
            return
        call_id = fields.string(tool, "toolUseId", "contentBlockStart.start.toolUse.toolUseId")
        call_name = fields.string(tool, "name", "contentBlockStart.start.toolUse.name")
        self._call_at(index, Fragment(index, call_id, call_name, _CALL_TYPE, None))

    def _server_block(self, index: int, member: str, start: dict[str, Any], size: int) -> None:
        """A server tool's block opens at ``index``, when the output has room for its start (else its index is empty)."""
        if not self._accumulator.admit_output(size):
            self._slots.pop(index, None)
            return
        block = self._slots[index] = _ServerBlock(self._accumulator.calls_opened(), member, start)
        self._output.append(block)

    def _call_at(self, index: int, fragment: Fragment) -> None:
        """A call's fragment at ``index``: the index is the call's while a call kept is there."""
        if self._accumulator.fragment(0, fragment) == REFUSED:
            self._slots.pop(index, None)  # a call past Limits.max_calls: its index holds nothing now
        else:
            self._slots[index] = _CALL

    def _block_delta(self, index: int, delta: dict[str, Any], fields: Fields) -> None:
        """A tool use's input (nothing else of that delta is read), or text, or reasoning."""
        server = self._slots.get(index)
        if isinstance(server, _ServerBlock):
            self._server_delta(server, delta, fields)
            return
        tool = fields.mapping(delta, "toolUse", f"{_DELTA}.toolUse")
        if tool is not None:
            tool_input = fields.string(tool, "input", f"{_DELTA}.toolUse.input")
            if tool_input is None:
                return
            if self._accumulator.output_is_over and index not in self._slots:
                # The input of a server call left out, as far as anyone can tell: counted with it, never a call.
                self._accumulator.admit_output(text_size(tool_input))
                return
            # Input for the index makes it a call's (its contentBlockStop ends the call), whatever came before.
            self._call_at(index, Fragment(index, None, None, _CALL_TYPE, tool_input))
            return
        text = fields.string(delta, "text", f"{_DELTA}.text")
        if text is not None:
            self._accumulator.text(0, text)
            block = self._block(index, text_size(text))
            if block is not None:
                block.text.append(text)
        reasoning = fields.mapping(delta, "reasoningContent", f"{_DELTA}.reasoningContent")
        if reasoning is None:
            return
        reasoning_text = fields.string(reasoning, "text", f"{_DELTA}.reasoningContent.text")
        signature = fields.string(reasoning, "signature", f"{_DELTA}.reasoningContent.signature")
        redacted = reasoning.get("redactedContent")
        size = sum(text_size(piece) for piece in (reasoning_text, signature) if piece is not None)
        if redacted is not None:
            size += whole_size(redacted, fields, f"{_DELTA}.reasoningContent.redactedContent")
        block = self._block(index, size)
        if block is not None:
            block.add_reasoning(reasoning_text, signature, redacted)

    def _server_delta(self, block: _ServerBlock, delta: dict[str, Any], fields: Fields) -> None:
        """A server block's delta: a ``toolUse`` input piece, or ``toolResult`` content items; nothing else is read."""
        tool = fields.mapping(delta, "toolUse", f"{_DELTA}.toolUse")
        tool_input = None if tool is None else fields.string(tool, "input", f"{_DELTA}.toolUse.input")
        if tool_input is not None and self._accumulator.admit_output(text_size(tool_input)):
            block.input = _extended(block.input, tool_input)
        if delta.get("toolResult") is not None:
            for position, item in enumerate(fields.sequence(delta, "toolResult", f"{_DELTA}.toolResult")):
                if self._accumulator.admit_output(whole_size(item, fields, f"{_DELTA}.toolResult[{position}]")):
                    block.content = _extended(block.content, item)

    def _block(self, index: int, size: int) -> _Block | None:
        """The text or reasoning block at ``index``, made at its first delta, when the output has room for ``size``.

        ``size`` is what the delta brings (a new block counts its bookkeeping too); None at a tool use's or a server
        block's index, or when the output has no room.
        """
        block = self._slots.get(index)
        if block is None:
            if not self._accumulator.admit_output(BOOKKEEPING + size):
                return None
            block = self._slots[index] = _Block(self._accumulator.calls_opened())
            self._output.append(block)
            return block
        if isinstance(block, _Block) and self._accumulator.admit_output(size):
            return block
        return None


def _extended(items: list[Any] | None, *more: Any) -> list[Any]:
    """``items`` with ``more`` appended (None until the first: a member no delta touched stays absent)."""
    if items is None:
        return list(more)
    items.extend(more)
    return items
