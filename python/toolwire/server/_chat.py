"""OpenAI Chat Completions answers: a ``chat.completion`` object, or ``chat.completion.chunk`` SSE events.

Rendered as OpenAI sends them: a first chunk with the role, the text in ``content`` fragments, each call opened by a
header fragment (``index``, ``id``, ``type``, ``function.name`` and empty ``arguments``) followed by argument
fragments carrying only ``index`` and ``function.arguments``, a chunk with an empty delta and the finish reason,
the usage chunk (``choices: []``) when ``stream_options.include_usage`` asks for it, then ``data: [DONE]``. Every chat
quirk of ``QUIRKS`` is rendered here.
"""

from __future__ import annotations

from typing import Any, Final

from toolwire.formats import sse_event
from toolwire.formats.openai_chat import DONE
from toolwire.server._match import PlannedCall, Turn
from toolwire.server._wire import CREATED, FINISH, TEXT, Context, Fragment, cut, halve, payloads, round_robin

__all__ = ["buffered", "streamed"]

_FINGERPRINT: Final = "fp_toolwire"


def _finish(turn: Turn, ctx: Context) -> str | None:
    quirks = ctx.quirks
    if quirks.no_finish:
        return None
    if quirks.truncate:
        return "length"
    return "tool_calls" if turn.calls and not quirks.finish_stop else "stop"


def _usage(turn: Turn, ctx: Context) -> dict[str, Any]:
    completion = ctx.completion_tokens(turn)
    return {
        "prompt_tokens": ctx.request.prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": ctx.request.prompt_tokens + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def buffered(turn: Turn, ctx: Context) -> dict[str, Any]:
    """The ``chat.completion`` object of a turn, with the model's quirks."""
    quirks = ctx.quirks
    text = turn.text
    arguments: list[Any] = [call.arguments_json for call in turn.calls]
    if quirks.trailing_data:
        arguments = [json_text + "}" for json_text in arguments]
    if quirks.truncate:
        if arguments:
            arguments[-1] = halve(arguments[-1])
        else:
            text = halve(text)
    if quirks.arguments_object:
        arguments = [call.arguments for call in turn.calls]
    message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None, "annotations": []}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": _call_id(ctx, position),
                "type": "function",
                "function": {"name": call.name, "arguments": arguments[position]},
            }
            for position, call in enumerate(turn.calls)
        ]
    return {
        "id": _completion_id(ctx),
        "object": "chat.completion",
        "created": CREATED,
        "model": ctx.model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(turn, ctx)}],
        "usage": _usage(turn, ctx),
        "system_fingerprint": _FINGERPRINT,
    }


def _completion_id(ctx: Context) -> str:
    return "chatcmpl-" + ctx.id("completion", 29)


def _call_id(ctx: Context, position: int) -> str:
    return "call_" + ctx.id(f"call{position}", 24)


class _Chunks:
    """Builds the chunks of one streamed answer."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.id = _completion_id(ctx)

    def chunk(self, choices: list[Any]) -> dict[str, Any]:
        chunk: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": self.ctx.model,
            "system_fingerprint": _FINGERPRINT,
            "choices": choices,
        }
        if self.ctx.request.include_usage:
            chunk["usage"] = None
        return chunk

    def delta(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return self.chunk([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])

    def call(self, position: int, call: PlannedCall, split: Any) -> list[Any]:
        """The header and argument fragments of one call, with the per-fragment quirks."""
        quirks = self.ctx.quirks
        index = 0 if quirks.index_reused else position
        call_id = _call_id(self.ctx, position)

        def fragment(arguments: Any, first: bool) -> dict[str, Any]:
            entry: dict[str, Any] = {} if quirks.missing_index else {"index": index}
            if first or quirks.repeat_id:
                entry["id"] = call_id
            if first:
                entry["type"] = "function"
            function: dict[str, Any] = {"name": call.name} if first or quirks.repeat_name else {}
            function["arguments"] = arguments
            entry["function"] = function
            return self.delta({"tool_calls": [entry]})

        if quirks.arguments_object:
            return [fragment(call.arguments, True)]
        texts = split(call.arguments_json) + (["}"] if quirks.trailing_data else [])
        return [fragment("", True), *(Fragment(position, text, lambda t: fragment(t, False)) for text in texts)]


def streamed(turn: Turn, ctx: Context) -> list[bytes]:
    """The SSE events of a turn, one ``bytes`` per event (the ``[DONE]`` line included), with the model's quirks."""
    quirks = ctx.quirks
    split = ctx.splitter()
    chunks = _Chunks(ctx)
    pieces: list[Any] = [chunks.delta({"role": "assistant", "content": "" if turn.text else None, "refusal": None})]
    pieces += [Fragment(TEXT, text, lambda t: chunks.delta({"content": t})) for text in split(turn.text)]
    calls = [chunks.call(position, call, split) for position, call in enumerate(turn.calls)]
    pieces += round_robin(calls) if quirks.interleave else [piece for group in calls for piece in group]
    pieces.append(FINISH)
    if not quirks.no_finish:
        pieces.append(chunks.delta({}, "tool_calls" if turn.calls and not quirks.finish_stop else "stop"))
    if ctx.request.include_usage:
        pieces.append(dict(chunks.chunk([]), usage=_usage(turn, ctx)))
    if quirks.truncate:
        pieces = cut(pieces, len(turn.calls) - 1 if turn.calls else TEXT)
    events = payloads(pieces)
    if quirks.empty_choices:
        events = [event for chunk in events for event in (chunks.chunk([]), chunk)]
    body = [sse_event(event) for event in events]
    return body if quirks.truncate else [*body, DONE]
