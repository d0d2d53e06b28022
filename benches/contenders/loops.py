"""What a careful user writes by hand: a join loop over chunk dicts, and orjson with an accumulator over bytes.

Each is correct for the benchmarks' streams and nothing more: no violation is looked for, nothing is checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson

from benches.contenders.floors import orjson_events
from benches.inputs.formats import FormatStream
from benches.inputs.grid import Stream
from benches.inputs.sse import sse

Calls = list[tuple[str, str, Any]]


def join_loop(chunks: Iterator[dict[str, Any]]) -> Calls:
    """A careful hand-written accumulator: per-index dict, a list of fragments, ``"".join`` and ``json.loads``."""
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        choices = chunk.get("choices")
        if not choices:
            continue
        delta = choices[0].get("delta")
        if not delta:
            continue
        tool_calls = delta.get("tool_calls")
        if not tool_calls:
            continue
        for tool_call in tool_calls:
            index = tool_call.get("index", 0)
            call = calls.get(index)
            if call is None:
                call = calls[index] = {"id": None, "name": None, "parts": []}
            call_id = tool_call.get("id")
            if call_id:
                call["id"] = call_id
            function = tool_call.get("function")
            if function:
                name = function.get("name")
                if name:
                    call["name"] = name
                arguments = function.get("arguments")
                if arguments:
                    call["parts"].append(arguments)
    return [(call["id"], call["name"], json.loads("".join(call["parts"]) or "{}")) for _, call in sorted(calls.items())]


def chunks(stream: Stream) -> Calls:
    return join_loop(stream.feed())


def orjson_accumulator(reads: tuple[bytes, ...]) -> Calls:
    """The floor's framing and decoding, then ``join_loop``'s accumulator."""
    return join_loop(orjson_events(reads))


def sse_bytes(stream: Stream) -> Calls:
    return orjson_accumulator(sse(stream).reads)


def anthropic_accumulator(reads: tuple[bytes, ...]) -> Calls:
    """orjson and a minimal hand-written accumulator for Anthropic's tool_use blocks."""
    loads = orjson.loads
    blocks: dict[int, tuple[str, str, list[str]]] = {}
    for event in orjson_events(reads):
        kind = event["type"]
        if kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "input_json_delta":
                blocks[event["index"]][2].append(delta["partial_json"])
        elif kind == "content_block_start":
            block = event["content_block"]
            if block["type"] == "tool_use":
                blocks[event["index"]] = (block["id"], block["name"], [])
    return [(call_id, name, loads("".join(parts) or "{}")) for _, (call_id, name, parts) in sorted(blocks.items())]


def responses_accumulator(reads: tuple[bytes, ...]) -> Calls:
    """orjson and a minimal hand-written accumulator for Responses: each function call from its output_item.done."""
    loads = orjson.loads
    calls: dict[int, tuple[str, str, Any]] = {}
    for event in orjson_events(reads):
        if event["type"] == "response.output_item.done":
            item = event["item"]
            if item["type"] == "function_call":
                calls[event["output_index"]] = (item["call_id"], item["name"], loads(item["arguments"] or "{}"))
    return [call for _, call in sorted(calls.items())]


def anthropic_bytes(fs: FormatStream) -> Calls:
    return anthropic_accumulator(fs.reads)


def responses_bytes(fs: FormatStream) -> Calls:
    return responses_accumulator(fs.reads)
