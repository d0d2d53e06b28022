"""The assistant's turn written back into a conversation (``to_history``), in each wire format.

The next request must carry the assistant turn exactly as the model produced it — every call, valid or not, with
its id echoed exactly — so that each tool result that follows answers a call the provider knows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from toolstream._model import InvalidToolCall, StreamResult, ToolCall

__all__ = ["call_entry", "turn"]

_FORMATS: Final = ("openai-chat", "openai-responses", "anthropic-messages")


def _check(format: str) -> None:
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, _FORMATS))}; got {format!r}")


def _arguments_text(call: ToolCall | InvalidToolCall) -> str:
    # A call that came without arguments carries {}; a provider may refuse an empty arguments string on replay.
    return call.arguments_json or "{}"


def _input(call: ToolCall | InvalidToolCall) -> dict[str, Any]:
    # Anthropic's `input` must be an object: an invalid call whose text was no object is replayed as {} (its
    # tool_result, with is_error, tells the model what it sent).
    return call.arguments if isinstance(call.arguments, dict) else {}


def call_entry(call: ToolCall | InvalidToolCall, format: str) -> dict[str, Any]:
    """The assistant-side entry of one call (see ``ToolCall.to_history``)."""
    _check(format)
    name = call.name if call.name is not None else ""
    if format == "openai-chat":
        return {"id": call.id, "type": "function", "function": {"name": name, "arguments": _arguments_text(call)}}
    if format == "openai-responses":
        return {"type": "function_call", "call_id": call.id, "name": name, "arguments": _arguments_text(call)}
    return {"type": "tool_use", "id": call.id, "name": name, "input": _input(call)}


def turn(result: StreamResult, format: str) -> Any:
    """The whole assistant turn of the result's first choice (see ``StreamResult.to_history``)."""
    _check(format)
    choice = result.choices[0].choice if result.choices else 0
    every: list[ToolCall | InvalidToolCall] = [*result.calls, *result.invalid_calls]
    calls = sorted((call for call in every if call.choice == choice), key=lambda call: call.seq)
    entries = [call_entry(call, format) for call in calls]
    if format == "openai-chat":
        message: dict[str, Any] = {"role": "assistant", "content": result.text or None}
        if entries:
            message["tool_calls"] = entries
        return message
    if format == "openai-responses":
        items: list[dict[str, Any]] = []
        if result.text:
            items.append({"role": "assistant", "content": result.text})
        return items + entries
    content: list[dict[str, Any]] = [{"type": "text", "text": result.text}] if result.text else []
    return {"role": "assistant", "content": content + entries}
