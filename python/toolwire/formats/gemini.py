"""Gemini ``generateContent`` / ``streamGenerateContent`` (``gemini``): what Python knows of the format.

A buffered response is the one event it is; a call goes back as a ``functionCall`` part of one ``role: "model"``
content (with its ``thoughtSignature``); an invalid call is answered by a ``functionResponse`` part whose
``response`` is ``{"error": payload}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire.formats._body import sse_event
from toolwire.formats._buffered import as_dict, field
from toolwire.formats._history import arguments_object, pieces, provider_id
from toolwire.formats._tool_result import payload

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = ["buffered_events", "call_entry", "looks_buffered", "request_tools", "stream_body", "tool_result", "turn"]


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: ``candidates`` or a ``promptFeedback``."""
    return field(response, "candidates") is not None or field(response, "promptFeedback") is not None


def buffered_events(response: Any) -> list[Any]:
    """The one event a response is."""
    return [as_dict(response)]


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """A ``functionCall`` part (its id only when the provider gave one), with its ``thoughtSignature``."""
    function_call: dict[str, Any] = {"name": name, "args": arguments_object(call)}
    if provider_id(call):
        function_call["id"] = call.id
    part: dict[str, Any] = {"functionCall": function_call}
    if "thought_signature" in call.extra:
        part["thoughtSignature"] = call.extra["thought_signature"]
    return part


def turn(result: ResultView, calls: list[CallView], own: bool) -> dict[str, Any]:
    """One ``role: "model"`` content of parts, each in its place."""
    return {"role": "model", "parts": pieces(result, calls, own, call_entry, _text_piece)}


def _text_piece(text: str) -> dict[str, Any]:
    return {"text": text}


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """A ``functionResponse`` part (its id only when the call's came from the provider)."""
    response = {"name": call.name or "", "response": {"error": payload(call)}}
    if provider_id(call):
        response["id"] = call.id
    return {"functionResponse": response}


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools in the OpenAI Chat shape: toolwire renders none in Gemini's own (``functionDeclarations``) yet."""
    return registry.to_openai()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each chunk as a server-sent event's data (``alt=sse``; without it Gemini sends one JSON array)."""
    return [sse_event(event) for event in events]
