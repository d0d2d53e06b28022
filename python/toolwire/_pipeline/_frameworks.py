"""What the popular frameworks hand their users, read as the wire format it came from.

LangChain's ``AIMessageChunk`` carries its provider's tool-call deltas as ``tool_call_chunks`` (``name``, ``args``
text, ``id``, ``index``): they are OpenAI Chat Completions fragments in another dress, so each chunk is read as the
chat chunk it stands for. LiteLLM's ``ModelResponseStream`` chunks already have the chat shape (``choices`` with
``delta.tool_calls``) and need nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["framework_adapter", "langchain_chunk"]


def framework_adapter(first: Any) -> Callable[[Any], Any] | None:
    """How to read a source whose first item is ``first``: a converter for a framework's chunks, or None."""
    kind = type(first)
    if kind.__name__ == "AIMessageChunk" and kind.__module__.startswith("langchain_core."):
        return langchain_chunk
    return None


def langchain_chunk(chunk: Any) -> Any:
    """A LangChain ``AIMessageChunk`` as the Chat Completions chunk it stands for (anything else as it is)."""
    if type(chunk).__name__ != "AIMessageChunk":
        return chunk
    delta: dict[str, Any] = {}
    text = _text(chunk.content)
    if text:
        delta["content"] = text
    tool_calls = [
        {
            "index": piece.get("index"),
            "id": piece.get("id"),
            # LangChain drops the type; a named fragment opens a function call.
            "type": "function" if piece.get("name") else None,
            "function": {"name": piece.get("name"), "arguments": piece.get("args")},
        }
        for piece in chunk.tool_call_chunks or ()
    ]
    if tool_calls:
        delta["tool_calls"] = tool_calls
    metadata = chunk.response_metadata or {}
    finish = metadata.get("finish_reason") or metadata.get("stop_reason") if isinstance(metadata, Mapping) else None
    converted: dict[str, Any] = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if chunk.usage_metadata:
        converted["usage"] = dict(chunk.usage_metadata)
    return converted


def _text(content: Any) -> str:
    """The text of a message content: a string, or the text blocks of a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            block.get("text", "")
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
    return ""
