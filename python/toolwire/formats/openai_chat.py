"""OpenAI Chat Completions (``openai-chat``), and every server that speaks it: what Python knows of the format.

A buffered ``chat.completion`` is one chunk (each ``message`` read as its ``delta``, each call at its position as its
``index``); a call goes back as a ``tool_calls`` entry of one assistant message; an invalid call is answered by a
``role: "tool"`` message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from toolwire.formats._body import sse_event
from toolwire.formats._buffered import as_list, field
from toolwire.formats._history import arguments_text, call_name
from toolwire.formats._tool_result import payload_text

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = [
    "DONE",
    "buffered_events",
    "call_entry",
    "looks_buffered",
    "request_tools",
    "stream_body",
    "tool_result",
    "turn",
]

#: The line a stream ends with.
DONE: Final = b"data: [DONE]\n\n"


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: a ``choices`` list."""
    return field(response, "choices") is not None


def buffered_events(response: Any) -> list[Any]:
    """The one chunk a ``chat.completion`` stands for."""
    choices = []
    for position, choice in enumerate(as_list(field(response, "choices"), "choices")):
        message = field(choice, "message")
        delta: dict[str, Any] | Any = message
        if message is not None:
            calls = as_list(field(message, "tool_calls"), f"choices[{position}].message.tool_calls")
            delta = {
                "content": field(message, "content"),
                "refusal": field(message, "refusal"),
                "tool_calls": [
                    {
                        "index": field(call, "index") if field(call, "index") is not None else at,
                        "id": field(call, "id"),
                        "type": field(call, "type"),
                        "function": field(call, "function"),
                    }
                    for at, call in enumerate(calls)
                ],
            }
        choices.append(
            {"index": field(choice, "index"), "delta": delta, "finish_reason": field(choice, "finish_reason")}
        )
    return [{"choices": choices, "usage": field(response, "usage"), "error": field(response, "error")}]


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """A ``tool_calls`` entry (a custom tool's call: ``{"type": "custom"}`` with its input)."""
    if call.input is not None:
        return {"id": call.id, "type": "custom", "custom": {"name": name, "input": call.input}}
    return {"id": call.id, "type": "function", "function": {"name": name, "arguments": arguments_text(call)}}


def turn(result: ResultView, calls: list[CallView], own: bool) -> dict[str, Any]:
    """One assistant message with its ``content``, ``refusal`` and ``tool_calls`` (the text is the output's, own or not)."""
    message: dict[str, Any] = {"role": "assistant", "content": result.text or None}
    if result.refusal is not None:
        message["refusal"] = result.refusal
    if calls:
        message["tool_calls"] = [call_entry(call, call_name(call)) for call in calls]
    return message


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """A ``role: "tool"`` message answering the call's id."""
    return {"role": "tool", "tool_call_id": call.id, "content": payload_text(call)}


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools as a request of this format offers them."""
    return registry.to_openai()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each chunk as a server-sent event's data, then ``data: [DONE]``."""
    return [*(sse_event(event) for event in events), DONE]
