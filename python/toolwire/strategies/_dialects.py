"""Calls written in a text dialect (``toolwire.dialects.render``) and streamed as a model's text, in any source.

The text is split as servers split it (whole, one character at a time, at random places, ``~4``-character tokens)
and carried by one of ``DIALECT_FORMATS``: plain text deltas, legacy completions chunks, Ollama ``/api/generate``
lines, or the ``content`` of Chat Completions chunks (a server that did not parse the calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from hypothesis import assume
from hypothesis import strategies as st

from toolwire.dialects import REASONING_DIALECTS, STYLES, render
from toolwire.strategies._calls import CallSpec
from toolwire.strategies._json import split_text

__all__ = ["DIALECT_FORMATS", "dialect_streams", "usable_styles"]

#: Where ``streams(..., dialect=...)`` puts the text: plain deltas or the text field of a wire format's chunks.
DIALECT_FORMATS: Final = ("text", "openai-completions", "ollama", "openai-chat")

# Prose with no character that opens a marker in some dialect (`<`, `[`, `{`, `|`, the full-width bar), no `;`
# (Llama 3's separator between calls) and no `=` (Harmony's recipient): the text a parser must keep as it is.
_PROSE: Final = st.text(st.sampled_from("abcdefXYZ0189 .,!?'\"-:()\n\té€😀"), max_size=16)
_HEAD: Final = {"id": "cmpl-5d1e", "created": 1767225600, "model": "Qwen/Qwen3-8B"}
_OLLAMA_HEAD: Final = {"model": "qwen3:8b", "created_at": "2026-01-01T00:00:00Z"}


def _pieces(draw: st.DrawFn, text: str) -> list[str]:
    if draw(st.booleans()):
        pieces: list[str] = draw(split_text(text))
        return pieces
    return [text[start : start + 4] for start in range(0, len(text), 4)] or [text]  # token-sized, as servers send


def usable_styles(specs: Sequence[CallSpec], dialect: str) -> list[str]:
    """The styles of ``dialect`` that can write ``specs``.

    Raises:
        ValueError: No style can (the default style's refusal, naming the call and key).
    """
    calls = [(spec.name, spec.arguments, spec.id) for spec in specs]
    usable = []
    refusal: ValueError | None = None
    for style in STYLES[dialect]:
        try:
            render(calls, dialect, style=style)
        except ValueError as error:
            refusal = refusal or error
        else:
            usable.append(style)
    if not usable and refusal is not None:
        raise refusal
    return usable


def _hostile(draw: st.DrawFn, text: str, markers: list[str], prose: dict[str, Any]) -> str:
    """``text`` with one hostile mutation: a marker in prose, a marker duplicated, or a cut anywhere."""
    how = draw(st.sampled_from(["marker_in_prose", "duplicated_marker", "cut"]))
    if how == "marker_in_prose":
        marker = draw(st.sampled_from(markers))
        before: str = prose["text_before"]
        at = draw(st.integers(0, len(before)))
        return before[:at] + marker + before[at:] + text[len(before) :]
    if how == "duplicated_marker":
        marker = markers[0]  # the head: a start marker written twice
        at = text.find(marker)
        return text if at < 0 else text[:at] + marker + text[at:]
    end: int = draw(st.integers(0, len(text)))
    cut: str = text[:end]
    return cut


@st.composite
def dialect_streams(
    draw: st.DrawFn,
    specs: Sequence[CallSpec],
    dialect: str,
    styles: Sequence[str],
    *,
    format: str,
    extras: bool,
    finish: bool | None,
    hostile: bool,
) -> list[Any]:
    """The text of ``specs`` in ``dialect``, split, in ``format``'s chunks (see ``toolwire.strategies.streams``)."""
    style = draw(st.sampled_from(list(styles)))
    calls = [(spec.name, spec.arguments, spec.id) for spec in specs]
    prose: dict[str, Any] = {"text_before": "", "text_between": (), "text_after": "", "reasoning": None}
    if extras:
        prose["text_before"], prose["text_after"] = draw(_PROSE), draw(_PROSE)
        if len(calls) > 1:
            prose["text_between"] = draw(st.lists(_PROSE, min_size=len(calls) - 1, max_size=len(calls) - 1))
        if dialect in REASONING_DIALECTS and draw(st.booleans()):
            prose["reasoning"] = draw(_PROSE)
    text = render(calls, dialect, style=style, **prose)
    if hostile:
        markers = [marker for marker in _markers(calls, dialect, style) if marker]
        text = _hostile(draw, text, markers or [text[:1]], prose)
    pieces = _pieces(draw, text) if text else []
    # A text source whose first delta opens as a server-sent event's comment reads as a body (docs/semantics.md,
    # "Calls in text": a comment is a body's line), and the prose's alphabet forms no other body's opening.
    assume(format != "text" or not pieces or not pieces[0].lstrip(" ").startswith(":"))
    reason = "stop" if finish or (finish is None and draw(st.booleans())) else None
    if format == "text":
        return pieces
    if format == "openai-completions":
        chunks: list[Any] = [
            {
                **_HEAD,
                "object": "text_completion",
                "choices": [{"index": 0, "text": p, "logprobs": None, "finish_reason": None}],
            }
            for p in pieces
        ]
        if reason is not None:
            end = {"index": 0, "text": "", "logprobs": None, "finish_reason": reason}
            chunks.append({**_HEAD, "object": "text_completion", "choices": [end]})
        return chunks
    if format == "ollama":
        lines: list[Any] = [{**_OLLAMA_HEAD, "response": p, "done": False} for p in pieces]
        if reason is not None:
            lines.append({**_OLLAMA_HEAD, "response": "", "done": True, "done_reason": reason})
        return lines
    head = {**_HEAD, "id": "chatcmpl-5d1e", "object": "chat.completion.chunk"}
    chat: list[Any] = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    chat += [{**head, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
    if reason is not None:
        chat.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    return chat


def _markers(calls: list[tuple[Any, ...]], dialect: str, style: str) -> list[str]:
    """Marker-like pieces of the dialect's own text: a rendered call's head (its start marker) and its tail."""
    if not calls:
        calls = [("f", {}, "a1B2c3D4e") if dialect == "mistral" else ("f", {})]
    text = render(calls[:1], dialect, style=style)
    head = text[:12]
    # Cut before a quote: a head ending inside a quoted value (pythonic's `[search(q='`), written before the call,
    # makes one whole call of its own whose value swallows the call's start, a call the text truly writes.
    quote = min((at for at in (head.find("'"), head.find('"')) if at > 0), default=len(head))
    return [head[:quote], text[-12:]]
