"""The grid as Anthropic Messages and OpenAI Responses event streams (issue 4, item 8).

Each cell of ``grid`` (``calls`` parallel calls x ``size`` bytes of arguments, ``sequential`` or ``interleaved``, in
fragments of ``grid.FRAGMENT`` characters) is rendered as the raw event-stream bytes each API sends, with the very
same calls (names and arguments text) as the Chat Completions grid; only the ids are the format's own. The shapes are
those of the real captures in ``recordings/`` (compact JSON, the API's key order, an ``event:`` line before each
``data:`` line):

- ``anthropic-messages`` (``recordings/anthropic-messages/parallel-no-arg-tools.sse``, claude-haiku-4-5):
  ``message_start``, then per call a ``tool_use`` ``content_block_start`` (``input: {}``, ``caller``), an empty
  ``input_json_delta``, one ``input_json_delta`` per fragment and a ``content_block_stop``; a ``ping`` after the first
  block's start; ``message_delta`` (``stop_reason: "tool_use"``, usage) and ``message_stop``.
- ``openai-responses`` (``recordings/openai-responses/tool-search-then-call.sse``, gpt-5.4): ``response.created`` and
  ``response.in_progress`` (the whole response object, the request's tools included), then per call
  ``response.output_item.added``, one ``response.function_call_arguments.delta`` per fragment (with its
  ``obfuscation`` padding: the delta and it are 16 characters together, as in the capture),
  ``response.function_call_arguments.done`` and ``response.output_item.done`` (the whole arguments text again), and
  ``response.completed`` (every item once more, and usage). Every event carries its ``sequence_number``.

``interleaved`` opens every call first, then sends the fragments round-robin, then closes every call: the formats
allow it (each event names its block index / output index) and both toolwire and the SDKs' accumulators key on
it, but the real APIs send calls one after the other; the interleaved cells are the same stress test as in the chat
grid. Neither API ends with ``[DONE]``.

Anthropic's events repeat exactly when the arguments repeat, so each pool of fragments is rendered once and repeated
(as ``inputs.sse`` does); the Responses events carry a running ``sequence_number`` and are each rendered. The bytes are
cut into reads of ``sse.READ`` bytes (64 KiB), as httpx's ``iter_bytes()`` hands them over. The last ``HOLD``
streams rendered stay cached.

Who reads them is ``contenders.lineups.FORMATS``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from typing import Any

from benches.inputs import grid, sse
from benches.inputs.grid import Call, Cell

FORMATS = ("anthropic-messages", "openai-responses")
HOLD = 2  # rendered streams kept (the benchmarks and report.py go cell by cell, format by format)
_OBFUSCATED = 16  # characters of a Responses delta plus its obfuscation padding


@dataclass
class FormatStream:
    """One grid cell as one format's event stream: the ground truth and the reads."""

    format: str
    cell: Cell
    calls: tuple[Call, ...]  # the grid's calls with this format's ids (``Call.id`` is what toolwire reports)
    reads: tuple[bytes, ...]
    size: int
    events: int  # data lines
    last: dict[str, Any]  # the last event, decoded

    @property
    def argument_bytes(self) -> int:
        return sum(call.size for call in self.calls)

    def expected(self) -> list[tuple[str, str, Any]]:
        """(id, name, parsed arguments) of each call, in call order."""
        return [(call.id, call.name, json.loads(call.text)) for call in self.calls]


# --- rendering -----------------------------------------------------------------------------------------------------

Piece = tuple[bytes, int]  # bytes repeated a number of times


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _sse(name: str, data: bytes) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + data + b"\n\n"


def _string(text: str) -> bytes:
    """A JSON string literal, as the APIs write one (compact, non-ASCII escaped: the grid's text is ASCII anyway)."""
    return json.dumps(text).encode()


def _alnum(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(grid.ALNUM) for _ in range(count))


def _hex(rng: random.Random, count: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(count))


def _runs(calls: tuple[Call, ...], mode: str) -> list[tuple[list[tuple[int, str]], int]]:
    """The fragments in stream order, as (pool of (call index, fragment), repetitions) runs."""
    split = grid._split
    if mode == "sequential":
        runs: list[tuple[list[tuple[int, str]], int]] = []
        for index, call in enumerate(calls):
            runs.append(([(index, f) for f in split(call.head)], 1))
            if call.repeats:
                runs.append(([(index, f) for f in split(call.block)], call.repeats))
            runs.append(([(index, f) for f in split(call.tail)], 1))
        return runs

    def round_robin(part: str) -> list[tuple[int, str]]:
        pieces = [split(getattr(call, part)) for call in calls]
        width = max(len(p) for p in pieces)
        return [(index, p[k]) for k in range(width) for index, p in enumerate(pieces) if k < len(p)]

    runs = [(round_robin("head"), 1)]
    if calls[0].repeats:
        runs.append((round_robin("block"), calls[0].repeats))
    runs.append((round_robin("tail"), 1))
    return runs


# Anthropic Messages ------------------------------------------------------------------------------------------------

_ANTHROPIC_MODEL = "claude-haiku-4-5-20251001"


def _anthropic(cell: Cell, calls: tuple[Call, ...], rng: random.Random) -> tuple[list[Piece], dict[str, Any]]:
    """The pieces of an Anthropic Messages stream (and its last event)."""
    message = {
        "model": _ANTHROPIC_MODEL,
        "id": "msg_01" + _alnum(rng, 22),
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "stop_details": None,
        "usage": {
            "input_tokens": 1_846,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 1,
            "service_tier": "standard",
            "inference_geo": "not_available",
        },
    }
    pieces: list[Piece] = [(_sse("message_start", _dumps({"type": "message_start", "message": message})), 1)]

    def start(index: int, call: Call) -> bytes:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}, "caller": {"type": "direct"}}
        event = _sse(
            "content_block_start", _dumps({"type": "content_block_start", "index": index, "content_block": block})
        )
        return event + (_sse("ping", b'{"type": "ping"}') if index == 0 else b"")

    def delta(index: int, fragment: str) -> bytes:
        return _sse(
            "content_block_delta",
            b'{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}'
            % (index, _string(fragment)),
        )

    def stop(index: int) -> bytes:
        return _sse("content_block_stop", b'{"type":"content_block_stop","index":%d}' % index)

    runs = _runs(calls, cell.mode)
    if cell.mode == "sequential":
        per_call: dict[int, list[tuple[list[tuple[int, str]], int]]] = {}
        for pool, times in runs:
            per_call.setdefault(pool[0][0], []).append((pool, times))
        for index, call in enumerate(calls):
            pieces.append((start(index, call) + delta(index, ""), 1))
            pieces += [(b"".join(delta(i, f) for i, f in pool), times) for pool, times in per_call[index]]
            pieces.append((stop(index), 1))
    else:
        pieces.append((b"".join(start(i, call) for i, call in enumerate(calls)), 1))
        pieces.append((b"".join(delta(i, "") for i in range(len(calls))), 1))
        pieces += [(b"".join(delta(i, f) for i, f in pool), times) for pool, times in runs]
        pieces.append((b"".join(stop(i) for i in range(len(calls))), 1))
    output_tokens = sum(call.size for call in calls) // 4 + 20 * len(calls)
    message_delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None, "stop_details": None},
        "usage": {
            "input_tokens": 1_846,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output_tokens,
        },
    }
    last = {"type": "message_stop"}
    pieces.append((_sse("message_delta", _dumps(message_delta)) + _sse("message_stop", _dumps(last)), 1))
    return pieces, last


# OpenAI Responses --------------------------------------------------------------------------------------------------

_RESPONSES_MODEL = "gpt-5.4-2026-03-05"
_TOOL_PARAMETERS = {
    "type": "object",
    "properties": {
        "request_id": {"type": "string"},
        "limit": {"type": "integer"},
        "filters": {"type": "object"},
        "query": {"type": "string"},
        "records": {"type": "array", "items": {"type": "object"}},
        "total": {"type": "integer"},
        "cursor": {"type": ["string", "null"]},
        "more": {"type": "boolean"},
        "comment": {"type": "string"},
    },
    "required": ["request_id", "limit", "query", "records"],
}


def _response(response_id: str, status: str, output: list[Any], usage: Any) -> dict[str, Any]:
    """The response object of the lifecycle events, with the capture's fields and the grid's tools."""
    tools = [
        {
            "type": "function",
            "description": f"Grid tool {name}: look records up and report them.",
            "name": name,
            "parameters": _TOOL_PARAMETERS,
            "strict": False,
        }
        for name in grid.TOOLS
    ]
    return {
        "id": response_id,
        "object": "response",
        "created_at": 1_777_591_025,
        "status": status,
        "background": False,
        "completed_at": 1_777_591_031 if status == "completed" else None,
        "error": None,
        "frequency_penalty": 0.0,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": _RESPONSES_MODEL,
        "moderation": None,
        "output": output,
        "parallel_tool_calls": True,
        "presence_penalty": 0.0,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "prompt_cache_retention": "in_memory",
        "reasoning": {"effort": "none", "summary": None},
        "safety_identifier": None,
        "service_tier": "default" if status == "completed" else "auto",
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": tools,
        "top_logprobs": 0,
        "top_p": 0.98,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
    }


def _responses(cell: Cell, calls: tuple[Call, ...], rng: random.Random) -> tuple[list[Piece], dict[str, Any]]:
    """The pieces of an OpenAI Responses stream (and its last event)."""
    stem = _hex(rng, 22)
    response_id = "resp_" + stem + _hex(rng, 28)
    item_ids = ["fc_" + stem + _hex(rng, 28) for _ in calls]
    paddings = [_alnum(rng, _OBFUSCATED) for _ in range(251)]  # cycled: each event's padding looks random
    sequence = 0
    pieces: list[Piece] = []

    def event(name: str, body: dict[str, Any]) -> bytes:
        nonlocal sequence
        data = _sse(name, _dumps({"type": name, **body, "sequence_number": sequence}))
        sequence += 1
        return data

    def item(index: int, status: str) -> dict[str, Any]:
        call = calls[index]
        return {
            "id": item_ids[index],
            "type": "function_call",
            "status": status,
            "arguments": call.text if status == "completed" else "",
            "call_id": call.id,
            "name": call.name,
        }

    def added(index: int) -> bytes:
        return event("response.output_item.added", {"item": item(index, "in_progress"), "output_index": index})

    def done(index: int) -> bytes:
        text = calls[index].text
        arguments = {"arguments": text, "item_id": item_ids[index], "output_index": index}
        return event("response.function_call_arguments.done", arguments) + event(
            "response.output_item.done", {"item": item(index, "completed"), "output_index": index}
        )

    # Deltas from a template: (index, fragment) -> bytes, with the running sequence number and a padding.
    head = b'event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta"'
    item_bytes = [iid.encode() for iid in item_ids]

    def deltas(pool: list[tuple[int, str]]) -> bytes:
        nonlocal sequence
        out = []
        for index, fragment in pool:
            pad = paddings[sequence % len(paddings)][: max(0, _OBFUSCATED - len(fragment))]
            out.append(
                b'%s,"delta":%s,"item_id":"%s","obfuscation":"%s","output_index":%d,"sequence_number":%d}\n\n'
                % (head, _string(fragment), item_bytes[index], pad.encode(), index, sequence)
            )
            sequence += 1
        return b"".join(out)

    pieces.append((event("response.created", {"response": _response(response_id, "in_progress", [], None)}), 1))
    pieces.append((event("response.in_progress", {"response": _response(response_id, "in_progress", [], None)}), 1))
    runs = _runs(calls, cell.mode)
    if cell.mode == "sequential":
        position = 0
        for index in range(len(calls)):
            pieces.append((added(index), 1))
            while position < len(runs) and runs[position][0][0][0] == index:
                pool, times = runs[position]
                pieces += [(deltas(pool), 1) for _ in range(times)]
                position += 1
            pieces.append((done(index), 1))
    else:
        pieces.append((b"".join(added(index) for index in range(len(calls))), 1))
        for pool, times in runs:
            pieces += [(deltas(pool), 1) for _ in range(times)]
        pieces.append((b"".join(done(index) for index in range(len(calls))), 1))
    output_tokens = sum(call.size for call in calls) // 4 + 20 * len(calls)
    usage = {
        "input_tokens": 1_846,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 1_846 + output_tokens,
    }
    output = [item(index, "completed") for index in range(len(calls))]
    last = {"type": "response.completed", "response": _response(response_id, "completed", output, usage)}
    last["sequence_number"] = sequence
    pieces.append((_sse("response.completed", _dumps(last)), 1))
    return pieces, last


# --- the streams -----------------------------------------------------------------------------------------------------


def _ids(format: str, calls: tuple[Call, ...], rng: random.Random) -> tuple[Call, ...]:
    """The grid's calls with the format's call ids (Responses call ids look like Chat Completions' ones)."""
    if format == "anthropic-messages":
        return tuple(replace(call, id="toolu_01" + _alnum(rng, 22)) for call in calls)
    return calls


def make(format: str, cell: Cell, calls: tuple[Call, ...] | None = None, read: int = sse.READ) -> FormatStream:
    """Render ``cell`` (its calls: the chat grid's unless given) as ``format``'s event stream, in reads of ``read``."""
    if calls is None:
        calls = grid.stream(cell).calls
    rng = random.Random(f"{grid.SEED}:{format}:{cell.calls}:{cell.size}:{cell.mode}")
    calls = _ids(format, calls, rng)
    render = _anthropic if format == "anthropic-messages" else _responses
    pieces, last = render(cell, calls, rng)
    events = sum(piece.count(b"\ndata: ") * times for piece, times in pieces)
    data = b"".join([piece for piece, times in pieces for _ in range(times)])
    del pieces
    reads = tuple(data[start : start + read] for start in range(0, len(data), read))
    return FormatStream(format, cell, calls, reads, len(data), events, last)


_held: dict[tuple[str, Cell], FormatStream] = {}


def stream(format: str, cell: Cell) -> FormatStream:
    """The rendered stream of ``cell`` in ``format``; the last ``HOLD`` asked for stay cached."""
    key = (format, cell)
    if key in _held:
        _held[key] = _held.pop(key)  # most recent last
        return _held[key]
    rendered = make(format, cell)
    _held[key] = rendered
    while len(_held) > HOLD:
        del _held[next(iter(_held))]
    return rendered
