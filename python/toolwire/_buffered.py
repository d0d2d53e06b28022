"""Buffered (non-streamed) responses as the streams they stand for, so ``normalize`` applies every stream rule.

Each format's complete response becomes the events its streaming API would have sent for it: an OpenAI chat
completion one chunk (each ``message`` read as its ``delta``, each call at its position as its ``index``); a
Responses response its items added and done and its terminal event; an Anthropic message its blocks started and
stopped (a ``tool_use`` block's ``input`` read as the start input it is); a Gemini ``generateContent`` response and an
Ollama ``/api/chat`` response one event each, as they are; a Bedrock Converse response its blocks as
``ConverseStream`` events (a ``toolUse`` ``input`` object as the one delta of its compact JSON text). The decoders then
do the rest, so a call comes out the same way whichever way it was received.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from toolwire._formats import WireFormat, event_json
from toolwire.errors import MalformedChunkError

__all__ = ["BUFFERED_FORMATS", "buffered_events", "detect_buffered"]


def _get(value: Any, key: str) -> Any:
    """A field of a dict, a mapping or an SDK object; None when absent."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _as_list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    raise MalformedChunkError(0, where, f"expected a list, got {type(value).__name__}")


def _as_dict(response: Any) -> dict[str, Any]:
    """The response as plain JSON data (an SDK object through its own serialization)."""
    if isinstance(response, dict):
        return response
    return json.loads(event_json(response))  # type: ignore[no-any-return]


def detect_buffered(response: Any) -> WireFormat | None:
    """The format of a buffered response, from its shape."""
    if _get(response, "choices") is not None:
        return "openai-chat"
    if _get(response, "object") == "response" or (
        _get(response, "output") is not None and _get(response, "status") is not None
    ):
        return "openai-responses"
    if _get(response, "type") == "message" and _get(response, "content") is not None:
        return "anthropic-messages"
    if _get(response, "candidates") is not None or _get(response, "promptFeedback") is not None:
        return "gemini"
    if _get(response, "message") is not None and _get(response, "done") is not None:
        return "ollama"
    if _get(response, "stopReason") is not None or _get(_get(response, "output"), "message") is not None:
        return "bedrock-converse"
    if _get(response, "error") is not None:
        # An error body (every provider's has an `error`) reads as a chat chunk that carries one.
        return "openai-chat"
    return None


def _chat(response: Any) -> list[Any]:
    choices = []
    for position, choice in enumerate(_as_list(_get(response, "choices"), "choices")):
        message = _get(choice, "message")
        delta: dict[str, Any] | Any = message
        if message is not None:
            calls = _as_list(_get(message, "tool_calls"), f"choices[{position}].message.tool_calls")
            delta = {
                "content": _get(message, "content"),
                "tool_calls": [
                    {
                        "index": _get(call, "index") if _get(call, "index") is not None else at,
                        "id": _get(call, "id"),
                        "type": _get(call, "type"),
                        "function": _get(call, "function"),
                    }
                    for at, call in enumerate(calls)
                ],
            }
        choices.append({"index": _get(choice, "index"), "delta": delta, "finish_reason": _get(choice, "finish_reason")})
    return [{"choices": choices, "usage": _get(response, "usage"), "error": _get(response, "error")}]


_UNFINISHED = frozenset({"queued", "in_progress"})


def _responses(response: Any) -> list[Any]:
    response = _as_dict(response)
    created: dict[str, Any] = {"status": "in_progress"}
    if response.get("tools") is not None:
        # The tools the response lists decide whether a custom tool call is the application's or the provider's.
        created["tools"] = response["tools"]
    events: list[Any] = [{"type": "response.created", "response": created}]
    for position, item in enumerate(_as_list(response.get("output"), "output")):
        if isinstance(item, Mapping) and item.get("type") == "function_call":
            events.append({"type": "response.output_item.added", "output_index": position, "item": item})
        elif isinstance(item, Mapping) and item.get("type") == "message":
            for part in _as_list(item.get("content"), f"output[{position}].content"):
                if isinstance(part, Mapping) and part.get("type") == "output_text":
                    events.append(
                        {"type": "response.output_text.delta", "output_index": position, "delta": part.get("text")}
                    )
        events.append({"type": "response.output_item.done", "output_index": position, "item": item})
    status = response.get("status") or "completed"
    # A response still "queued" or "in_progress" (background mode) has not finished: like a stream that stopped
    # before its terminal event, it ends without a finish reason (NO_FINISH_REASON) instead of passing as completed.
    if status in _UNFINISHED:
        return events
    terminal = status if status in ("completed", "incomplete", "failed", "cancelled") else "completed"
    events.append(
        {
            "type": f"response.{terminal}",
            "response": {"status": status, "usage": response.get("usage"), "error": response.get("error")},
        }
    )
    return events


def _anthropic(response: Any) -> list[Any]:
    message = _as_dict(response)
    events: list[Any] = [
        {"type": "message_start", "message": {"id": message.get("id"), "usage": message.get("usage")}},
    ]
    for position, block in enumerate(_as_list(message.get("content"), "content")):
        events.append({"type": "content_block_start", "index": position, "content_block": block})
        events.append({"type": "content_block_stop", "index": position})
    events.append({"type": "message_delta", "delta": {"stop_reason": message.get("stop_reason")}})
    events.append({"type": "message_stop"})
    return events


def _as_is(response: Any) -> list[Any]:
    return [_as_dict(response)]


def _bedrock(response: Any) -> list[Any]:
    converse = _as_dict(response)
    message = (converse.get("output") or {}).get("message") or {}
    events: list[Any] = [{"messageStart": {"role": message.get("role", "assistant")}}]
    for position, block in enumerate(_as_list(message.get("content"), "output.message.content")):
        block = block if isinstance(block, Mapping) else {}
        if "toolResult" in block:
            events.extend(_bedrock_tool_result(block["toolResult"] or {}, position))
        elif "toolUse" in block:
            events.extend(_bedrock_tool_use(block["toolUse"] or {}, position))
        elif "text" in block:
            events.append({"contentBlockDelta": {"delta": {"text": block["text"]}, "contentBlockIndex": position}})
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"] or {}
            pieces = [{"text": reasoning["reasoningText"].get("text")}] if "reasoningText" in reasoning else []
            if "reasoningText" in reasoning and "signature" in reasoning["reasoningText"]:
                pieces.append({"signature": reasoning["reasoningText"]["signature"]})
            if "redactedContent" in reasoning:
                pieces.append({"redactedContent": reasoning["redactedContent"]})
            for piece in pieces:
                delta = {"delta": {"reasoningContent": piece}, "contentBlockIndex": position}
                events.append({"contentBlockDelta": delta})
        events.append({"contentBlockStop": {"contentBlockIndex": position}})
    events.append({"messageStop": {"stopReason": converse.get("stopReason")}})
    if converse.get("usage") is not None:
        events.append({"metadata": {"usage": converse["usage"]}})
    return events


def _bedrock_tool_use(tool_use: dict[str, Any], position: int) -> list[Any]:
    """A tool use block (a server tool's keeps its ``type``): its start, and its ``input`` as one compact delta."""
    start = {"toolUseId": tool_use.get("toolUseId"), "name": tool_use.get("name")}
    if "type" in tool_use:
        start["type"] = tool_use["type"]
    events: list[Any] = [{"contentBlockStart": {"start": {"toolUse": start}, "contentBlockIndex": position}}]
    if "input" in tool_use:
        text = json.dumps(tool_use["input"], separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        events.append({"contentBlockDelta": {"delta": {"toolUse": {"input": text}}, "contentBlockIndex": position}})
    return events


def _bedrock_tool_result(result: dict[str, Any], position: int) -> list[Any]:
    """A server tool's result block (Nova's built-in tools): its start, and its content as the one delta."""
    start = {key: value for key, value in result.items() if key != "content"}
    events: list[Any] = [{"contentBlockStart": {"start": {"toolResult": start}, "contentBlockIndex": position}}]
    if "content" in result:
        events.append(
            {"contentBlockDelta": {"delta": {"toolResult": result["content"]}, "contentBlockIndex": position}}
        )
    return events


_EVENTS: dict[str, Callable[[Any], list[Any]]] = {
    "openai-chat": _chat,
    "openai-responses": _responses,
    "anthropic-messages": _anthropic,
    "gemini": _as_is,
    "ollama": _as_is,
    "bedrock-converse": _bedrock,
}

#: Every buffered format ``normalize`` reads.
BUFFERED_FORMATS: tuple[str, ...] = tuple(_EVENTS)


def buffered_events(response: Any, format: WireFormat) -> list[Any]:
    """The stream events a buffered response of ``format`` stands for."""
    return _EVENTS[format](response)
