"""Anthropic Messages answers: a ``message`` object, or the SSE events of a streamed message.

Rendered as Anthropic sends them: ``message_start``; the text as a ``text`` block (``content_block_start``, a
``ping`` after the first block start, ``text_delta`` fragments, ``content_block_stop``); each call as a ``tool_use``
block (``content_block_start`` with ``input: {}``, an empty ``input_json_delta`` and then the ``partial_json``
fragments, ``content_block_stop``); ``message_delta`` with the stop reason and usage; ``message_stop``. Quirks
honoured: ``no_finish`` (``stop_reason: null``), ``truncate`` (the events end in the middle of the last call's
``partial_json``; buffered: ``stop_reason: "max_tokens"`` with that call's ``input`` left ``{}`` — a buffered input is
an object and cannot be cut), ``trailing_data`` (a last ``}`` fragment; buffered: not representable, so ignored) and
the content quirks applied to every format.
"""

from __future__ import annotations

import functools
from typing import Any

from toolwire.formats import sse_event
from toolwire.server._match import Turn
from toolwire.server._wire import FINISH, TEXT, Context, Fragment, cut, halve, payloads

__all__ = ["buffered", "streamed"]


def _stop_reason(turn: Turn, ctx: Context) -> str | None:
    if ctx.quirks.no_finish:
        return None
    if ctx.quirks.truncate:
        return "max_tokens"
    return "tool_use" if turn.calls else "end_turn"


def _message_id(ctx: Context) -> str:
    return "msg_01" + ctx.id("message", 22)


def _tool_use_id(ctx: Context, position: int) -> str:
    return "toolu_01" + ctx.id(f"call{position}", 22)


def _usage(ctx: Context, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": ctx.request.prompt_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def _message(ctx: Context, content: list[Any], stop_reason: str | None, output_tokens: int) -> dict[str, Any]:
    return {
        "id": _message_id(ctx),
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(ctx, output_tokens),
    }


def buffered(turn: Turn, ctx: Context) -> dict[str, Any]:
    """The ``message`` object of a turn, with the model's quirks."""
    text = halve(turn.text) if ctx.quirks.truncate and not turn.calls else turn.text
    content: list[Any] = [{"type": "text", "text": text}] if text else []
    for position, call in enumerate(turn.calls):
        cut_here = ctx.quirks.truncate and position == len(turn.calls) - 1
        content.append(
            {
                "type": "tool_use",
                "id": _tool_use_id(ctx, position),
                "name": call.name,
                "input": {} if cut_here else call.arguments,
            }
        )
    return _message(ctx, content, _stop_reason(turn, ctx), ctx.completion_tokens(turn))


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _text_delta(text: str) -> dict[str, Any]:
    return _delta(0, {"type": "text_delta", "text": text})


def _json_delta(index: int, partial_json: str) -> dict[str, Any]:
    return _delta(index, {"type": "input_json_delta", "partial_json": partial_json})


def streamed(turn: Turn, ctx: Context) -> list[bytes]:
    """The SSE events of a turn, one ``bytes`` per event, with the model's quirks."""
    split = ctx.splitter()
    pieces: list[Any] = [{"type": "message_start", "message": _message(ctx, [], None, 1)}]
    blocks: list[list[Any]] = []
    if turn.text:
        blocks.append(
            [
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                *(Fragment(TEXT, text, _text_delta) for text in split(turn.text)),
                {"type": "content_block_stop", "index": 0},
            ]
        )
    for position, call in enumerate(turn.calls):
        index = len(blocks)
        start = {"type": "tool_use", "id": _tool_use_id(ctx, position), "name": call.name, "input": {}}
        fragments = split(call.arguments_json) + (["}"] if ctx.quirks.trailing_data else [])
        blocks.append(
            [
                {"type": "content_block_start", "index": index, "content_block": start},
                _delta(index, {"type": "input_json_delta", "partial_json": ""}),
                *(Fragment(position, t, functools.partial(_json_delta, index)) for t in fragments),
                {"type": "content_block_stop", "index": index},
            ]
        )
    for number, block in enumerate(blocks):
        pieces += block[:1] + ([{"type": "ping"}] if number == 0 else []) + block[1:]
    pieces += [
        FINISH,
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(turn, ctx), "stop_sequence": None},
            "usage": {"output_tokens": ctx.completion_tokens(turn)},
        },
        {"type": "message_stop"},
    ]
    if ctx.quirks.truncate:
        pieces = cut(pieces, len(turn.calls) - 1 if turn.calls else TEXT)
    return [sse_event(event, event["type"]) for event in payloads(pieces)]
