"""Anthropic Messages: the checks of a buffered ``Message`` and of a stream of its events.

A ``tool_use`` block is a call; its arguments are the concatenated ``input_json_delta.partial_json`` when a delta
brought any byte, else the ``input`` of its ``content_block_start`` (as ``reassemble`` reads it). Server tool blocks
(``server_tool_use``, ``mcp_tool_use``) are the provider's own calls and are not checked as calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire._pipeline._choice import ToolChoice
from toolwire.contract._common import (
    CallSeen,
    CheckSpec,
    Findings,
    error_text,
    is_int,
    judge,
    ordered_checks,
    show,
    single_group_checks,
    span,
    walk_events,
)
from toolwire.contract._report import Check
from toolwire.registry import ToolRegistry

__all__ = ["SPECS", "check_anthropic_message", "check_anthropic_stream"]

SPECS: tuple[CheckSpec, ...] = (
    CheckSpec("finish_reason", "calls end with stop_reason 'tool_use', no calls with another; one stop_reason"),
    CheckSpec("call_ids", "every tool_use block's id is a non-empty string"),
    CheckSpec("tool_names", "every tool name is among the declared tools"),
    CheckSpec("arguments_json", "each tool_use input is one JSON object (streamed: the partial_json concatenated)"),
    CheckSpec("arguments_valid", "each call's input validates against its tool's schema"),
    CheckSpec("forced_tool", "a forced tool choice is honoured: a tool_use, and of the named tool"),
    CheckSpec("index_present", "every content_block_* event has an integer index", streamed_only=True),
    CheckSpec(
        "block_lifecycle",
        "each block is started once, gets deltas only while open, is stopped once; message_stop comes last",
        streamed_only=True,
    ),
    CheckSpec("well_formed", "every event (buffered: the message) is a JSON object of the format's shape"),
)
_BY_ID = {spec.id: spec for spec in SPECS}
_BLOCK_EVENTS = ("content_block_start", "content_block_delta", "content_block_stop")


def _stop_problem(value: object, calls: int) -> str | None:
    if value is None:
        return "no stop_reason (NO_FINISH_REASON); fix: end the message with a stop_reason"
    if not isinstance(value, str):
        return f"stop_reason {show(value)} is not a string; fix: send 'tool_use', 'end_turn', 'max_tokens'..."
    if calls and value != "tool_use":
        return (
            f"stop_reason {value!r} although {calls} tool_use block(s) were sent (FINISH_REASON_MISMATCH); "
            "fix: end a message with tool_use blocks with stop_reason 'tool_use' (a cut such as 'max_tokens' loses them)"
        )
    if not calls and value == "tool_use":
        return "stop_reason 'tool_use' but no tool_use block (FINISH_WITHOUT_CALLS); fix: send the tool_use block"
    return None


def check_anthropic_message(
    message: Mapping[str, Any], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings
) -> tuple[Check, ...]:
    """The ``BufferedChecker`` of a ``Message``."""
    calls: list[CallSeen] = []
    text: list[str] = []
    content = message.get("content")
    if message.get("type") == "error" or message.get("error") is not None:
        problem: str | None = f"the response is an error: {error_text(message.get('error'))}"
    else:
        if not isinstance(content, list):
            findings.add("well_formed", f"content is {show(content)}, not a list of blocks")
            content = []
        for position, block in enumerate(content):
            _block(position, block, calls, text, findings)
        problem = _stop_problem(message.get("stop_reason"), len(calls))
    results = single_group_checks(
        _BY_ID, calls, text, registry=registry, forced=forced, findings=findings, id_field="tool_use id"
    )
    results["finish_reason"] = judge(
        _BY_ID["finish_reason"],
        [problem] if problem else [],
        passed=f"stop_reason {message.get('stop_reason')!r} after {len(calls)} tool_use block(s)",
    )
    results["well_formed"] = judge(_BY_ID["well_formed"], findings.get("well_formed"), passed="a message object")
    return ordered_checks(SPECS, results, streamed=False)


def _block(position: int, block: object, calls: list[CallSeen], text: list[str], findings: Findings) -> None:
    where = f"content[{position}]"
    if not isinstance(block, Mapping):
        findings.add("well_formed", f"{where} is {show(block)}, not a content block object")
        return
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        text.append(block["text"])
    if block.get("type") != "tool_use":
        return
    call = CallSeen(
        label=f"block {position}, tool_use {show(block.get('id'))} ({show(block.get('name'))})",
        where=where,
        id=block.get("id"),
        name=block.get("name"),
    )
    value = block.get("input")
    if not isinstance(value, Mapping):
        findings.add(
            "arguments_json",
            f"{call.label} ({where}): input is {show(value)}, not a JSON object; fix: send the input as an object",
        )
    else:
        call.arguments.append(("input", value))
    calls.append(call)


@dataclass(eq=False)
class _Block:
    """One content block as its events arrive."""

    index: int
    kind: object
    started: int
    call: CallSeen | None = None
    start_input: object = None
    pieces: list[str] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    stopped: int | None = None


class _Stream:
    """Reads an Anthropic event stream."""

    def __init__(self, findings: Findings) -> None:
        self.findings = findings
        self.blocks: dict[int, _Block] = {}
        self.every_block: list[_Block] = []
        self.text: list[str] = []
        self.stops: list[tuple[int, object]] = []
        self.errors: list[str] = []
        self.starts: list[tuple[int, object]] = []
        self.message_stops: list[int] = []

    def event(self, number: int, event: object) -> None:
        if not isinstance(event, Mapping):
            self.findings.add("well_formed", f"event {number}: {show(event)} is not a JSON object")
            return
        kind = event.get("type")
        if kind == "ping":
            return
        if not isinstance(kind, str):
            self.findings.add("well_formed", f"event {number}: type is {show(kind)}; fix: send the event's type")
            return
        if self.message_stops and kind != "error":
            self.findings.add(
                "block_lifecycle",
                f"event {number} ({show(kind)}) comes after message_stop (event {self.message_stops[0]}); "
                "fix: make message_stop the last event",
            )
        if kind in _BLOCK_EVENTS:
            self._block_event(number, kind, event)
        else:
            self._message_event(number, kind, event)

    def _message_event(self, number: int, kind: str, event: Mapping[str, Any]) -> None:
        if kind == "message_start":
            message = event.get("message")
            self.starts.append((number, message.get("id") if isinstance(message, Mapping) else None))
        elif kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, Mapping) and delta.get("stop_reason") is not None:
                self.stops.append((number, delta["stop_reason"]))
        elif kind == "message_stop":
            self.message_stops.append(number)
        elif kind == "error":
            self.errors.append(f"event {number} is an error event: {error_text(event.get('error'))}")

    def _block_event(self, number: int, kind: str, event: Mapping[str, Any]) -> None:
        index = event.get("index")
        if not is_int(index):
            shown = "absent" if "index" not in event else show(index)
            self.findings.add(
                "index_present", f"event {number} ({kind}): index is {shown}; fix: send the block's integer index"
            )
            # Read it as the latest block's, the one a client without the index would pick.
            index = self.every_block[-1].index if self.every_block and kind != "content_block_start" else -1
        if kind == "content_block_start":
            self._start(number, index, event.get("content_block"))
            return
        block = self.blocks.get(index)
        state = "before its start" if block is None else f"after its stop (event {block.stopped})"
        if block is None or block.stopped is not None:
            self.findings.add(
                "block_lifecycle",
                f"event {number} ({kind}) for block {index} {state}; fix: send a block's deltas and its stop between "
                "its content_block_start and one content_block_stop",
            )
            return
        if kind == "content_block_stop":
            block.stopped = number
        else:
            self._delta(number, block, event.get("delta"))

    def _start(self, number: int, index: int, content: object) -> None:
        earlier = self.blocks.get(index)
        if earlier is not None:
            self.findings.add(
                "block_lifecycle",
                f"event {number}: block {index} is started again (first at event {earlier.started}); "
                "fix: start each block once, at a new index",
            )
        if not isinstance(content, Mapping):
            self.findings.add("well_formed", f"event {number}: content_block is {show(content)}, not an object")
            content = {}
        block = _Block(index=index, kind=content.get("type"), started=number, events=[number])
        if block.kind == "tool_use":
            block.call = CallSeen(
                label=f"block {index}, tool_use {show(content.get('id'))} ({show(content.get('name'))})",
                where="",
                id=content.get("id"),
                name=content.get("name"),
            )
            block.start_input = content.get("input")
        elif block.kind == "text" and isinstance(content.get("text"), str):
            self.text.append(content["text"])
        self.blocks[index] = block
        self.every_block.append(block)

    def _delta(self, number: int, block: _Block, delta: object) -> None:
        block.events.append(number)
        if not isinstance(delta, Mapping):
            self.findings.add("well_formed", f"event {number}: delta is {show(delta)}, not an object")
            return
        if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            self.text.append(delta["text"])
        if delta.get("type") != "input_json_delta" or block.call is None:
            return
        piece = delta.get("partial_json")
        if isinstance(piece, str):
            block.pieces.append(piece)
        else:
            self.findings.add(
                "arguments_json",
                f"event {number}: {block.call.label}: partial_json is {show(piece)}, not a string; "
                "fix: stream the input as JSON text fragments",
            )

    def lifecycle(self) -> list[str]:
        failures = []
        if not self.starts:
            failures.append("no message_start event; fix: open the stream with message_start")
        for number, message_id in self.starts[1:]:
            failures.append(
                f"event {number}: a second message_start (message {show(message_id)}, first {show(self.starts[0][1])})"
                " splices another message into the stream (STREAM_SPLICED); fix: one message per stream"
            )
        for block in self.every_block:
            if block.stopped is None:
                failures.append(
                    f"block {block.index} ({show(block.kind)}, started at event {block.started}) is never stopped; "
                    "fix: send content_block_stop for every block"
                )
        if not self.message_stops:
            failures.append("no message_stop event; fix: end the stream with message_stop")
        elif len(self.message_stops) > 1:
            failures.append(f"message_stop sent {len(self.message_stops)} times; fix: send it once, last")
        return failures

    def calls(self) -> list[CallSeen]:
        calls = []
        for block in self.every_block:
            if block.call is None:
                continue
            block.call.where = span("event", block.events)
            text = "".join(block.pieces)
            # As reassemble reads it: deltas that bring bytes replace the start input.
            if text:
                block.call.arguments.append(("concatenated partial_json", text))
            else:
                block.call.arguments.append(("content_block_start input", block.start_input))
            calls.append(block.call)
        return calls


def check_anthropic_stream(
    events: Sequence[object], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings
) -> tuple[Check, ...]:
    """The ``StreamChecker`` of Anthropic message events."""
    walk = _Stream(findings)
    calls = walk_events(walk, events)
    results = single_group_checks(
        _BY_ID, calls, walk.text, registry=registry, forced=forced, findings=findings, id_field="tool_use id"
    )
    failures = list(walk.errors)
    if len(walk.stops) > 1:
        listed = ", ".join(f"event {number}: {show(value)}" for number, value in walk.stops[:6])
        failures.append(f"{len(walk.stops)} stop reasons ({listed}); fix: send one message_delta with the stop_reason")
    first = walk.stops[0] if walk.stops else (None, None)
    problem = _stop_problem(first[1], len(calls))
    if problem is not None:
        failures.append(f"event {first[0]}: {problem}" if first[0] is not None else problem)
    results["finish_reason"] = judge(
        _BY_ID["finish_reason"],
        failures,
        passed=f"stop_reason {first[1]!r} (event {first[0]}) after {len(calls)} call(s)",
    )
    results["index_present"] = judge(
        _BY_ID["index_present"], findings.get("index_present"), passed="every content_block_* event has an index"
    )
    results["block_lifecycle"] = judge(
        _BY_ID["block_lifecycle"],
        [*findings.get("block_lifecycle"), *walk.lifecycle()],
        passed=f"{len(walk.every_block)} block(s), each started, streamed and stopped once; message_stop last",
    )
    results["well_formed"] = judge(
        _BY_ID["well_formed"], findings.get("well_formed"), passed="every event an Anthropic stream event object"
    )
    return ordered_checks(SPECS, results, streamed=True)
