"""Ollama's ``/api/chat`` (``ollama``): what Python knows of the format.

A buffered response is the one line it is; a call goes back as a ``tool_calls`` entry of one assistant message (its
id only when the model gave one); an invalid call is answered by a ``role: "tool"`` message naming the tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire._common._json import compact
from toolwire.formats._buffered import as_dict, field
from toolwire.formats._history import arguments_object, call_name, provider_id
from toolwire.formats._tool_result import payload_text

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = ["buffered_events", "call_entry", "looks_buffered", "request_tools", "stream_body", "tool_result", "turn"]


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: a ``message`` and ``done``."""
    return field(response, "message") is not None and field(response, "done") is not None


def buffered_events(response: Any) -> list[Any]:
    """The one line a response is."""
    return [as_dict(response)]


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """A ``tool_calls`` entry whose arguments are an object."""
    entry: dict[str, Any] = {"function": {"name": name, "arguments": arguments_object(call)}}
    if provider_id(call):
        entry["id"] = call.id
    return entry


def turn(result: ResultView, calls: list[CallView], own: bool) -> dict[str, Any]:
    """One assistant message with its ``content`` and ``tool_calls`` (the text is the output's, own or not)."""
    message: dict[str, Any] = {"role": "assistant", "content": result.text}
    if calls:
        message["tool_calls"] = [call_entry(call, call_name(call)) for call in calls]
    return message


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """A ``role: "tool"`` message naming the tool (Ollama answers calls by name, not by id)."""
    return {"role": "tool", "tool_name": call.name or "", "content": payload_text(call)}


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools as a request of this format offers them (Ollama takes the OpenAI Chat shape)."""
    return registry.to_openai()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each chunk as one JSON line."""
    return [f"{compact(event)}\n".encode() for event in events]
