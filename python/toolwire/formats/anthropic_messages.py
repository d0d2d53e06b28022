"""Anthropic's Messages API (``anthropic-messages``): what Python knows of the format.

A buffered ``message`` is its blocks started and stopped (a ``tool_use`` block's ``input`` read as the start input it
is); a call goes back as a ``tool_use`` block of one assistant message; an invalid call is answered by a
``tool_result`` block with ``is_error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire.formats._body import named_sse_events
from toolwire.formats._buffered import as_dict, as_list, field
from toolwire.formats._history import arguments_object, pieces
from toolwire.formats._tool_result import payload_text

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = ["buffered_events", "call_entry", "looks_buffered", "request_tools", "stream_body", "tool_result", "turn"]


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: a ``message`` with ``content``."""
    return field(response, "type") == "message" and field(response, "content") is not None


def buffered_events(response: Any) -> list[Any]:
    """The events a ``message`` stands for: each block started and stopped, then its stop reason."""
    message = as_dict(response)
    events: list[Any] = [
        {"type": "message_start", "message": {"id": message.get("id"), "usage": message.get("usage")}},
    ]
    for position, block in enumerate(as_list(message.get("content"), "content")):
        events.append({"type": "content_block_start", "index": position, "content_block": block})
        events.append({"type": "content_block_stop", "index": position})
    events.append({"type": "message_delta", "delta": {"stop_reason": message.get("stop_reason")}})
    events.append({"type": "message_stop"})
    return events


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """A ``tool_use`` block, with its ``caller``."""
    block = {"type": "tool_use", "id": call.id, "name": name, "input": arguments_object(call)}
    if "caller" in call.extra:
        block["caller"] = call.extra["caller"]
    return block


def turn(result: ResultView, calls: list[CallView], own: bool) -> dict[str, Any]:
    """One assistant message of content blocks, each in its place."""
    # The API refuses empty text blocks (a stream opens each text block with "").
    content = [
        piece
        for piece in pieces(result, calls, own, call_entry, _text_piece)
        if not (piece.get("type") == "text" and not piece.get("text"))
    ]
    return {"role": "assistant", "content": content}


def _text_piece(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """A ``tool_result`` block with ``is_error`` answering the call's id."""
    return {"type": "tool_result", "tool_use_id": call.id, "content": payload_text(call), "is_error": True}


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools as a request of this format offers them."""
    return registry.to_anthropic()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each event as a server-sent event named after its ``type``."""
    return named_sse_events(events)
