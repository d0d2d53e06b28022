"""The OpenAI Responses API (``openai-responses``): what Python knows of the format.

A buffered ``response`` is its items added and done and its terminal event; a call goes back as a ``function_call``
(or ``custom_tool_call``) input item among the turn's other items; an invalid call is answered by a
``function_call_output`` (or ``custom_tool_call_output``) item.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from toolwire.formats._body import named_sse_events
from toolwire.formats._buffered import as_dict, as_list, field
from toolwire.formats._history import arguments_text, pieces
from toolwire.formats._tool_result import payload_text

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = ["buffered_events", "call_entry", "looks_buffered", "request_tools", "stream_body", "tool_result", "turn"]

_UNFINISHED: Final = frozenset({"queued", "in_progress"})
_TERMINAL: Final = ("completed", "incomplete", "failed", "cancelled")


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: a ``response`` object, or ``output`` with a ``status``."""
    return field(response, "object") == "response" or (
        field(response, "output") is not None and field(response, "status") is not None
    )


#: A message's content parts that are words, by type: the event whose delta carries them, and the member holding them.
_WORDS: Final = {
    "output_text": ("response.output_text.delta", "text"),
    "refusal": ("response.refusal.delta", "refusal"),
}


def buffered_events(response: Any) -> list[Any]:
    """The events a ``response`` stands for: each output item added and done, then the terminal event."""
    response = as_dict(response)
    created: dict[str, Any] = {"status": "in_progress"}
    if response.get("tools") is not None:
        # The tools the response lists decide whether a custom tool call is the application's or the provider's.
        created["tools"] = response["tools"]
    events: list[Any] = [{"type": "response.created", "response": created}]
    for position, item in enumerate(as_list(response.get("output"), "output")):
        if isinstance(item, Mapping) and item.get("type") == "function_call":
            events.append({"type": "response.output_item.added", "output_index": position, "item": item})
        elif isinstance(item, Mapping) and item.get("type") == "message":
            for part in as_list(item.get("content"), f"output[{position}].content"):
                kind = part.get("type") if isinstance(part, Mapping) else None
                if kind in _WORDS:
                    event, member = _WORDS[kind]
                    events.append({"type": event, "output_index": position, "delta": part.get(member)})
        events.append({"type": "response.output_item.done", "output_index": position, "item": item})
    status = response.get("status") or "completed"
    # A response still "queued" or "in_progress" (background mode) has not finished: like a stream that stopped
    # before its terminal event, it ends without a finish reason (NO_FINISH_REASON) instead of passing as completed.
    if status in _UNFINISHED:
        return events
    terminal = status if status in _TERMINAL else "completed"
    events.append(
        {
            "type": f"response.{terminal}",
            "response": {"status": status, "usage": response.get("usage"), "error": response.get("error")},
        }
    )
    return events


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """A ``function_call`` input item (a custom tool's: ``custom_tool_call``), with its ``item_id`` as ``id``."""
    item: dict[str, Any]
    if call.input is not None:
        # A custom tool's call: its input is free text, replayed exactly.
        item = {"type": "custom_tool_call", "call_id": call.id, "name": name, "input": call.input}
    else:
        item = {"type": "function_call", "call_id": call.id, "name": name, "arguments": arguments_text(call)}
    if "item_id" in call.extra:
        item["id"] = call.extra["item_id"]
    return item


def turn(result: ResultView, calls: list[CallView], own: bool) -> list[Any]:
    """The input items of the turn, each in its place."""
    return pieces(result, calls, own, call_entry, _text_piece)


def _text_piece(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """A ``function_call_output`` item (a custom tool's: ``custom_tool_call_output``) answering the call's id."""
    kind = "custom_tool_call_output" if call.input is not None else "function_call_output"
    return {"type": kind, "call_id": call.id, "output": payload_text(call)}


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools as a request of this format offers them."""
    return registry.to_openai_responses()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each event as a server-sent event named after its ``type``."""
    return named_sse_events(events)
