"""OpenAI Responses answers: a ``response`` object, or the typed SSE events of a streamed response.

Rendered as OpenAI sends them, every event numbered by ``sequence_number``: ``response.created`` and
``response.in_progress``; the text as a ``message`` item (``output_item.added``, ``content_part.added``,
``output_text.delta`` fragments, ``output_text.done``, ``content_part.done``, ``output_item.done``); each call as a
``function_call`` item (``output_item.added`` with empty arguments, ``function_call_arguments.delta`` fragments,
``function_call_arguments.done`` with the whole text, ``output_item.done``); then ``response.completed`` with the
whole response. Quirks honoured: ``no_finish`` (no ``response.completed``; buffered status ``in_progress``),
``truncate`` (the events end in the middle of the last call's arguments; buffered: those arguments cut in half and
status ``incomplete``), ``trailing_data`` (a last ``}`` delta, which the ``.done`` text and the item include too),
and the content quirks applied to every format.
"""

from __future__ import annotations

from typing import Any

from toolwire.formats import sse_event
from toolwire.server._match import Turn
from toolwire.server._wire import CREATED, FINISH, TEXT, Context, Fragment, cut, halve, payloads

__all__ = ["buffered", "streamed"]


def _usage(turn: Turn, ctx: Context) -> dict[str, Any]:
    completion = ctx.completion_tokens(turn)
    return {
        "input_tokens": ctx.request.prompt_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": ctx.request.prompt_tokens + completion,
    }


class _Items:
    """The ids and output items of one answer."""

    def __init__(self, turn: Turn, ctx: Context) -> None:
        self.turn = turn
        self.ctx = ctx
        self.response_id = "resp_" + ctx.id("response", 48)
        self.message_id = "msg_" + ctx.id("message", 48)
        self.item_ids = ["fc_" + ctx.id(f"item{position}", 48) for position in range(len(turn.calls))]
        self.call_ids = ["call_" + ctx.id(f"call{position}", 24) for position in range(len(turn.calls))]
        # The message item, when there is text, comes first.
        self.first_call = 1 if turn.text else 0

    def message(self, text: str, status: str) -> dict[str, Any]:
        content = [] if status == "in_progress" else [_part(text)]
        return {"id": self.message_id, "type": "message", "status": status, "content": content, "role": "assistant"}

    def call(self, position: int, arguments: str, status: str) -> dict[str, Any]:
        return {
            "id": self.item_ids[position],
            "type": "function_call",
            "status": status,
            "arguments": arguments,
            "call_id": self.call_ids[position],
            "name": self.turn.calls[position].name,
        }

    def response(self, status: str, output: list[Any], usage: Any, incomplete: Any = None) -> dict[str, Any]:
        body = self.ctx.request.body
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": incomplete,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": self.ctx.model,
            "output": output,
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": body.get("previous_response_id"),
            "reasoning": {"effort": None, "summary": None},
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "text": {"format": {"type": "text"}},
            "tool_choice": self.ctx.request.tool_choice or "auto",
            "tools": self.ctx.request.tools.to_openai_responses(),
            "top_p": body.get("top_p", 1.0),
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": body.get("metadata") or {},
        }


def _part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def _arguments(turn: Turn, ctx: Context) -> list[str]:
    return [call.arguments_json + ("}" if ctx.quirks.trailing_data else "") for call in turn.calls]


def buffered(turn: Turn, ctx: Context) -> dict[str, Any]:
    """The ``response`` object of a turn, with the model's quirks."""
    items = _Items(turn, ctx)
    text, arguments = turn.text, _arguments(turn, ctx)
    statuses = ["completed"] * len(arguments)
    status, incomplete = "completed", None
    if ctx.quirks.truncate:
        status, incomplete = "incomplete", {"reason": "max_output_tokens"}
        if arguments:
            arguments[-1], statuses[-1] = halve(arguments[-1]), "incomplete"
        else:
            text = halve(text)
    if ctx.quirks.no_finish:
        status, incomplete = "in_progress", None
    output = [items.message(text, "completed")] if turn.text else []
    output += [items.call(position, arguments[position], statuses[position]) for position in range(len(arguments))]
    return items.response(status, output, _usage(turn, ctx), incomplete)


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    # sequence_number is filled in once the final order is known (after the quirks rearranged or cut the stream).
    return {"type": kind, "sequence_number": 0, **fields}


def _message_pieces(items: _Items, text: str, split: Any) -> list[Any]:
    ids = {"item_id": items.message_id, "output_index": 0}
    return [
        _event("response.output_item.added", output_index=0, item=items.message(text, "in_progress")),
        _event("response.content_part.added", **ids, content_index=0, part=_part("")),
        *(
            Fragment(
                TEXT,
                fragment,
                lambda t: _event("response.output_text.delta", **ids, content_index=0, delta=t, logprobs=[]),
            )
            for fragment in split(text)
        ),
        _event("response.output_text.done", **ids, content_index=0, text=text, logprobs=[]),
        _event("response.content_part.done", **ids, content_index=0, part=_part(text)),
        _event("response.output_item.done", output_index=0, item=items.message(text, "completed")),
    ]


def _call_pieces(items: _Items, position: int, arguments: str, split: Any) -> list[Any]:
    ids = {"item_id": items.item_ids[position], "output_index": items.first_call + position}
    fragments = split(items.turn.calls[position].arguments_json)
    if items.ctx.quirks.trailing_data:
        fragments.append("}")
    return [
        _event(
            "response.output_item.added", output_index=ids["output_index"], item=items.call(position, "", "in_progress")
        ),
        *(
            Fragment(position, fragment, lambda t: _event("response.function_call_arguments.delta", **ids, delta=t))
            for fragment in fragments
        ),
        _event("response.function_call_arguments.done", **ids, arguments=arguments),
        _event(
            "response.output_item.done",
            output_index=ids["output_index"],
            item=items.call(position, arguments, "completed"),
        ),
    ]


def streamed(turn: Turn, ctx: Context) -> list[bytes]:
    """The SSE events of a turn, one ``bytes`` per event, with the model's quirks."""
    items = _Items(turn, ctx)
    split = ctx.splitter()
    arguments = _arguments(turn, ctx)
    started = items.response("in_progress", [], None)
    pieces: list[Any] = [_event("response.created", response=started), _event("response.in_progress", response=started)]
    if turn.text:
        pieces += _message_pieces(items, turn.text, split)
    for position in range(len(turn.calls)):
        pieces += _call_pieces(items, position, arguments[position], split)
    pieces.append(FINISH)
    if not ctx.quirks.no_finish:
        output = [items.message(turn.text, "completed")] if turn.text else []
        output += [items.call(position, text, "completed") for position, text in enumerate(arguments)]
        pieces.append(_event("response.completed", response=items.response("completed", output, _usage(turn, ctx))))
    if ctx.quirks.truncate:
        pieces = cut(pieces, len(turn.calls) - 1 if turn.calls else TEXT)
    events = payloads(pieces)
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return [sse_event(event, event["type"]) for event in events]
