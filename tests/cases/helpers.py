"""Shared by the tests of ``toolwire.cases``: case files written on the fly, and turns read from real responses.

Turns are never built by hand: each goes through ``turn_from_response`` from an OpenAI Chat Completions stream (chunk
dicts or their raw SSE bytes, as the API sends them) or a buffered completion, so the reassembly, the schema checks and
the contract report are toolwire's own.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolwire.cases import EXAMPLES, Case, Turn, load_cases, turn_from_response
from toolwire.registry import ToolRegistry

SUPPORT_TOOLS_PATH = EXAMPLES / "support_tools.yaml"
SUPPORT_TOOLS = ToolRegistry.from_file(SUPPORT_TOOLS_PATH)

#: A call as the tests write it: (name, arguments as a dict, or the raw arguments text the model sent).
Call = tuple[str | None, Any]


def write_case_file(folder: Path, data: dict[str, Any], name: str = "cases.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def make_case(folder: Path, expect: dict[str, Any], **fields: Any) -> Case:
    """One case over the support tools, through the real loader (so the matchers are parsed as users write them)."""
    case = {"name": "case", "prompt": "Do it.", "expect": expect, **fields}
    data = {"tools": str(SUPPORT_TOOLS_PATH), "cases": [case]}
    return load_cases(write_case_file(folder, data)).cases[0]


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def chat_chunks(calls: Sequence[Call], text: str = "", finish: str | None = "auto") -> list[dict[str, Any]]:
    """An OpenAI Chat Completions stream: the text, each call's name then its arguments in two fragments, the finish."""

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return _envelope("chat.completion.chunk", {"index": 0, "delta": delta, "finish_reason": finish_reason})

    chunks = [chunk({"role": "assistant", "content": ""})]
    if text:
        chunks.append(chunk({"content": text}))
    for index, (name, arguments) in enumerate(calls):
        body = _arguments_text(arguments)
        half = len(body) // 2
        function: dict[str, Any] = {"arguments": body[:half]}
        if name is not None:
            function["name"] = name
        chunks.append(
            chunk({"tool_calls": [{"index": index, "id": f"call_{index}", "type": "function", "function": function}]})
        )
        chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": body[half:]}}]}))
    reason = ("tool_calls" if calls else "stop") if finish == "auto" else finish
    if reason is not None:
        chunks.append(chunk({}, reason))
    return chunks


def sse(chunks: Sequence[dict[str, Any]]) -> bytes:
    """The raw bytes of a chat stream, as the HTTP body carries them."""
    return b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in chunks) + b"data: [DONE]\n\n"


def chat_completion(calls: Sequence[Call], text: str = "", finish: str = "auto") -> dict[str, Any]:
    """A buffered OpenAI chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": _arguments_text(arguments)}}
            for i, (name, arguments) in enumerate(calls)
        ]
    reason = ("tool_calls" if calls else "stop") if finish == "auto" else finish
    return _envelope("chat.completion", {"index": 0, "message": message, "finish_reason": reason})


def _envelope(kind: str, choice: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions object of ``kind`` (a chunk or a completion) around its one choice."""
    return {"id": "chatcmpl-test", "object": kind, "created": 0, "model": "test", "choices": [choice]}


def turn(
    calls: Sequence[Call] = (),
    text: str = "",
    *,
    finish: str | None = "auto",
    raw: bool = False,
    tools: Any = SUPPORT_TOOLS,
    tool_choice: Any = None,
) -> Turn:
    """A streamed chat answer read into a Turn (as raw SSE bytes with ``raw``, else as chunk dicts)."""
    chunks = chat_chunks(calls, text, finish)
    source: Any = sse(chunks) if raw else chunks
    return turn_from_response(source, format="openai-chat", tools=tools, stream=True, tool_choice=tool_choice)


def anthropic_events(calls: Sequence[Call], text: str = "", stop_reason: str = "auto") -> list[dict[str, Any]]:
    """An Anthropic Messages stream: message_start, a text block, a tool_use block per call (input in two deltas)."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "test",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        }
    ]
    blocks = 0
    if text:
        events.append({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})
        events.append({"type": "content_block_stop", "index": 0})
        blocks = 1
    for offset, (name, arguments) in enumerate(calls):
        index = blocks + offset
        body = _arguments_text(arguments)
        half = len(body) // 2
        block = {"type": "tool_use", "id": f"toolu_{offset}", "name": name, "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        for part in (body[:half], body[half:]):
            delta = {"type": "input_json_delta", "partial_json": part}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    reason = ("tool_use" if calls else "end_turn") if stop_reason == "auto" else stop_reason
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 9},
        }
    )
    events.append({"type": "message_stop"})
    return events


def anthropic_sse(events: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events)


def split(data: bytes, cuts: Sequence[int]) -> list[bytes]:
    """``data`` as the reads of a connection, cut at ``cuts`` (positions, any order, duplicates allowed)."""
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    return [data[start:end] for start, end in itertools.pairwise(points)]
