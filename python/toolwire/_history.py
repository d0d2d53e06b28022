"""The assistant's turn written back into a conversation (``to_history``), in each wire format.

The next request must carry the assistant turn exactly as the model produced it — every call, valid or not, with
its id echoed exactly — so that each tool result that follows answers a call the provider knows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from toolwire._model import InvalidToolCall, StreamResult, ToolCall

__all__ = ["call_entry", "turn"]

_FORMATS: Final = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "ollama", "bedrock-converse")


def _check(format: str) -> None:
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, _FORMATS))}; got {format!r}")


def _arguments_text(call: ToolCall | InvalidToolCall) -> str:
    # A call that came without arguments carries {}; a provider may refuse an empty arguments string on replay.
    return call.arguments_json or "{}"


def _input(call: ToolCall | InvalidToolCall) -> dict[str, Any]:
    # Formats whose arguments are an object (Anthropic's `input`, Gemini's `args`...) must get one: an invalid call
    # whose text was no object is replayed as {} (its tool result, an error, tells the model what it sent).
    return call.arguments if isinstance(call.arguments, dict) else {}


def _provider_id(call: ToolCall | InvalidToolCall) -> bool:
    """Whether the id came from the provider (not generated for a call that had none)."""
    return not any(violation.code.value == "MISSING_ID" for violation in call.violations)


def _chat_entry(call: ToolCall | InvalidToolCall, name: str) -> dict[str, Any]:
    if call.input is not None:
        return {"id": call.id, "type": "custom", "custom": {"name": name, "input": call.input}}
    return {"id": call.id, "type": "function", "function": {"name": name, "arguments": _arguments_text(call)}}


def _responses_entry(call: ToolCall | InvalidToolCall, name: str) -> dict[str, Any]:
    item: dict[str, Any]
    if call.input is not None:
        # A custom tool's call: its input is free text, replayed exactly.
        item = {"type": "custom_tool_call", "call_id": call.id, "name": name, "input": call.input}
    else:
        item = {"type": "function_call", "call_id": call.id, "name": name, "arguments": _arguments_text(call)}
    if "item_id" in call.extra:
        item["id"] = call.extra["item_id"]
    return item


def _anthropic_entry(call: ToolCall | InvalidToolCall, name: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call.id, "name": name, "input": _input(call)}
    if "caller" in call.extra:
        block["caller"] = call.extra["caller"]
    return block


def _gemini_entry(call: ToolCall | InvalidToolCall, name: str) -> dict[str, Any]:
    function_call: dict[str, Any] = {"name": name, "args": _input(call)}
    if _provider_id(call):
        function_call["id"] = call.id
    part: dict[str, Any] = {"functionCall": function_call}
    if "thought_signature" in call.extra:
        part["thoughtSignature"] = call.extra["thought_signature"]
    return part


def _ollama_entry(call: ToolCall | InvalidToolCall, name: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"function": {"name": name, "arguments": _input(call)}}
    if _provider_id(call):
        entry["id"] = call.id
    return entry


def _bedrock_entry(call: ToolCall | InvalidToolCall, name: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": call.id, "name": name, "input": _input(call)}}


_ENTRIES: Final[dict[str, Callable[[ToolCall | InvalidToolCall, str], dict[str, Any]]]] = {
    "openai-chat": _chat_entry,
    "openai-responses": _responses_entry,
    "anthropic-messages": _anthropic_entry,
    "gemini": _gemini_entry,
    "ollama": _ollama_entry,
    "bedrock-converse": _bedrock_entry,
}


def call_entry(call: ToolCall | InvalidToolCall, format: str) -> dict[str, Any]:
    """The assistant-side entry of one call (see ``ToolCall.to_history``), with the provider fields it needs back."""
    _check(format)
    return _ENTRIES[format](call, call.name if call.name is not None else "")


def _interleaved(result: StreamResult, calls: list[ToolCall | InvalidToolCall], format: str) -> list[Any]:
    """The turn's pieces in the order the model produced them: each output item before the calls opened after it."""
    pieces: list[Any] = []
    items = list(result.output)
    for call in calls:
        while items and items[0].after_calls <= call.seq:
            pieces.append(items.pop(0).value)
        pieces.append(call_entry(call, format))
    pieces.extend(item.value for item in items)
    return pieces


def turn(result: StreamResult, format: str) -> Any:
    """The whole assistant turn of the result's first choice (see ``StreamResult.to_history``)."""
    _check(format)
    choice = result.choices[0].choice if result.choices else 0
    every: list[ToolCall | InvalidToolCall] = [*result.calls, *result.invalid_calls]
    calls = sorted((call for call in every if call.choice == choice), key=lambda call: call.seq)
    if format == "openai-chat":
        message: dict[str, Any] = {"role": "assistant", "content": result.text or None}
        if calls:
            message["tool_calls"] = [call_entry(call, format) for call in calls]
        return message
    if format == "ollama":
        ollama: dict[str, Any] = {"role": "assistant", "content": result.text}
        if calls:
            ollama["tool_calls"] = [call_entry(call, format) for call in calls]
        return ollama
    # The output holds the text when the stream was of this format; a result read from another brings only its text.
    own = result.format == format and bool(result.output)
    pieces = _interleaved(result, calls, format) if own else [call_entry(call, format) for call in calls]
    if result.text and not own:
        pieces.insert(0, _text_piece(result.text, format))
    if format == "openai-responses":
        return pieces
    if format == "anthropic-messages":
        # The API refuses empty text blocks (a stream opens each text block with "").
        content = [piece for piece in pieces if not (piece.get("type") == "text" and not piece.get("text"))]
        return {"role": "assistant", "content": content}
    if format == "gemini":
        return {"role": "model", "parts": pieces}
    return {"role": "assistant", "content": pieces}


def _text_piece(text: str, format: str) -> dict[str, Any]:
    if format == "openai-responses":
        return {"role": "assistant", "content": text}
    if format == "anthropic-messages":
        return {"type": "text", "text": text}
    return {"text": text}
