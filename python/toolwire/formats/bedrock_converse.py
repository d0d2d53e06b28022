"""Amazon Bedrock ``Converse`` / ``ConverseStream`` (``bedrock-converse``): what Python knows of the format.

A buffered ``Converse`` response is its blocks as ``ConverseStream`` events (a ``toolUse`` ``input`` object as the one
delta of its compact JSON text); a call goes back as a ``toolUse`` block of one assistant message; an invalid call is
answered by a ``toolResult`` block with ``status: "error"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolwire._common._eventstream import message
from toolwire.formats._buffered import as_dict, as_list, field
from toolwire.formats._history import arguments_object, pieces
from toolwire.formats._tool_result import payload

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = ["buffered_events", "call_entry", "looks_buffered", "request_tools", "stream_body", "tool_result", "turn"]


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: a ``stopReason``, or ``output.message``."""
    return field(response, "stopReason") is not None or field(field(response, "output"), "message") is not None


def buffered_events(response: Any) -> list[Any]:
    """The ``ConverseStream`` events a ``Converse`` response stands for."""
    converse = as_dict(response)
    message = (converse.get("output") or {}).get("message") or {}
    events: list[Any] = [{"messageStart": {"role": message.get("role", "assistant")}}]
    for position, block in enumerate(as_list(message.get("content"), "output.message.content")):
        block = block if isinstance(block, Mapping) else {}
        if "toolResult" in block:
            events.extend(_tool_result_events(block["toolResult"] or {}, position))
        elif "toolUse" in block:
            events.extend(_tool_use_events(block["toolUse"] or {}, position))
        elif "text" in block:
            events.append({"contentBlockDelta": {"delta": {"text": block["text"]}, "contentBlockIndex": position}})
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"] or {}
            parts = [{"text": reasoning["reasoningText"].get("text")}] if "reasoningText" in reasoning else []
            if "reasoningText" in reasoning and "signature" in reasoning["reasoningText"]:
                parts.append({"signature": reasoning["reasoningText"]["signature"]})
            if "redactedContent" in reasoning:
                parts.append({"redactedContent": reasoning["redactedContent"]})
            for part in parts:
                delta = {"delta": {"reasoningContent": part}, "contentBlockIndex": position}
                events.append({"contentBlockDelta": delta})
        events.append({"contentBlockStop": {"contentBlockIndex": position}})
    events.append({"messageStop": {"stopReason": converse.get("stopReason")}})
    if converse.get("usage") is not None:
        events.append({"metadata": {"usage": converse["usage"]}})
    return events


def _tool_use_events(tool_use: dict[str, Any], position: int) -> list[Any]:
    """A tool use block (a server tool's keeps its ``type``): its start, and its ``input`` as one compact delta."""
    start = {"toolUseId": tool_use.get("toolUseId"), "name": tool_use.get("name")}
    if "type" in tool_use:
        start["type"] = tool_use["type"]
    events: list[Any] = [{"contentBlockStart": {"start": {"toolUse": start}, "contentBlockIndex": position}}]
    if "input" in tool_use:
        text = json.dumps(tool_use["input"], separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        events.append({"contentBlockDelta": {"delta": {"toolUse": {"input": text}}, "contentBlockIndex": position}})
    return events


def _tool_result_events(result: dict[str, Any], position: int) -> list[Any]:
    """A server tool's result block (Nova's built-in tools): its start, and its content as the one delta."""
    start = {key: value for key, value in result.items() if key != "content"}
    events: list[Any] = [{"contentBlockStart": {"start": {"toolResult": start}, "contentBlockIndex": position}}]
    if "content" in result:
        events.append(
            {"contentBlockDelta": {"delta": {"toolResult": result["content"]}, "contentBlockIndex": position}}
        )
    return events


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """A ``toolUse`` content block."""
    return {"toolUse": {"toolUseId": call.id, "name": name, "input": arguments_object(call)}}


def turn(result: ResultView, calls: list[CallView], own: bool) -> dict[str, Any]:
    """One assistant message of content blocks, each in its place."""
    return {"role": "assistant", "content": pieces(result, calls, own, call_entry, _text_piece)}


def _text_piece(text: str) -> dict[str, Any]:
    return {"text": text}


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """A ``toolResult`` block with ``status: "error"`` answering the call's id, the payload as its ``json``."""
    return {"toolResult": {"toolUseId": call.id, "content": [{"json": payload(call)}], "status": "error"}}


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools in the OpenAI Chat shape: toolwire renders none in Bedrock's own (``toolSpec``) yet."""
    return registry.to_openai()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each event as boto3 yields it, framed as the AWS event-stream message Bedrock sent for it.

    Raises:
        ValueError: An event that is not one member whose value is an object.
    """
    return [_aws_message(event) for event in events]


def _aws_message(event: Any) -> bytes:
    ((kind, payload),) = event.items() if isinstance(event, dict) and len(event) == 1 else ((None, None),)
    if not isinstance(kind, str) or not isinstance(payload, dict):
        raise ValueError(f"a Bedrock event is one member whose value is an object; got {event!r:.80}")
    if kind == "error":  # an AWS error message: its code and message are headers
        fields = {":error-code": payload.get("code"), ":error-message": payload.get("message")}
        headers = {name: value for name, value in fields.items() if isinstance(value, str)}
        return message({":message-type": "error", **headers}, b"")
    headers = (
        {":message-type": "exception", ":exception-type": kind}
        if kind.endswith("Exception")
        else {":message-type": "event", ":event-type": kind}
    )
    return message({**headers, ":content-type": "application/json"}, json.dumps(payload).encode())
