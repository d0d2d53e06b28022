"""Legacy completions answers (``POST /v1/completions``): a ``text_completion``, or its chunks as SSE events.

Rendered as vLLM, SGLang and llama.cpp send them: the generated text in ``choices[0].text`` fragments, a last chunk
with empty text and the finish reason, the usage chunk (``choices: []``) when ``stream_options.include_usage`` asks
for it, then ``data: [DONE]``. The answer is text only: a turn's calls are written into it in the model's dialect
(``Context.dialect``), as the model generated them, since no tool parser reads them out on this endpoint; the
finish is ``stop``. Of the quirks, ``no_finish``, ``truncate`` and ``delay`` apply (the others concern call fields
this format does not have).
"""

from __future__ import annotations

from typing import Any

from toolwire.formats import sse_event
from toolwire.formats.openai_chat import DONE
from toolwire.formats.openai_completions import OBJECT
from toolwire.server._match import Turn, written
from toolwire.server._request import RequestError
from toolwire.server._wire import CREATED, FINISH, TEXT, Context, Fragment, cut, halve, payloads

__all__ = ["buffered", "streamed"]


def _text(turn: Turn, ctx: Context) -> str:
    """The generated text: the turn's text, then its calls in the model's dialect."""
    if not turn.calls:
        return turn.text
    if ctx.dialect is None:
        raise RequestError(
            422,
            f"model {ctx.model!r} answers with {len(turn.calls)} call(s), which a completion writes into its text in "
            "the model's dialect: give the model a dialect in the script (dialect: hermes, qwen3_coder, ...)",
            param="model",
            code="no_dialect",
        )
    return written(turn, ctx.dialect)


def _finish(ctx: Context) -> str | None:
    if ctx.quirks.no_finish:
        return None
    return "length" if ctx.quirks.truncate else "stop"


def _usage(text: str, ctx: Context) -> dict[str, Any]:
    completion = max(1, len(text) // 4)
    prompt = ctx.request.prompt_tokens
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion_id(ctx: Context) -> str:
    return "cmpl-" + ctx.id("completion", 29)


def _head(ctx: Context) -> dict[str, Any]:
    return {"id": _completion_id(ctx), "object": OBJECT, "created": CREATED, "model": ctx.model}


def _choice(text: str, finish: str | None) -> dict[str, Any]:
    return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}


def buffered(turn: Turn, ctx: Context) -> dict[str, Any]:
    """The ``text_completion`` object of a turn, with the model's quirks."""
    text = _text(turn, ctx)
    if ctx.quirks.truncate:
        text = halve(text)
    return {**_head(ctx), "choices": [_choice(text, _finish(ctx))], "usage": _usage(text, ctx)}


def streamed(turn: Turn, ctx: Context) -> list[bytes]:
    """The SSE events of a turn, one ``bytes`` per event (the ``[DONE]`` line included), with the model's quirks."""
    text = _text(turn, ctx)
    head = _head(ctx)
    pieces: list[Any] = [
        Fragment(TEXT, piece, lambda t: {**head, "choices": [_choice(t, None)]}) for piece in ctx.splitter()(text)
    ]
    pieces.append(FINISH)
    if not ctx.quirks.no_finish:
        pieces.append({**head, "choices": [_choice("", "stop")]})
    if ctx.request.include_usage:
        pieces.append({**head, "choices": [], "usage": _usage(text, ctx)})
    if ctx.quirks.truncate:
        return [sse_event(event) for event in payloads(cut(pieces, TEXT))]
    return [*(sse_event(event) for event in payloads(pieces)), DONE]
