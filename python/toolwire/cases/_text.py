"""Text that looks like a tool call: a model that wrote its call into the answer instead of making it.

Such an answer is neither a call nor an abstention. Benchmarks that count it as "no call" credit broken models for
restraint (BFCL #1362: 228 of 229 "correct" abstentions held ``<tool_call>``), so the judge reports it as
``malformed_call``, apart from ``no_call``.

The text is first read with every dialect's parser (``toolwire.DIALECTS``, the parsers ``dialect=`` runs): a call one
reads is named exactly, with the dialect it is written in, its name and arguments. What no parser reads is then
looked for by its look: the call markers of the common chat templates (Hermes/Qwen ``<tool_call>``, Llama
``<|python_tag|>`` and ``<function=``, Mistral ``[TOOL_CALLS]``, Anthropic-style ``<invoke``/``<function_calls>``,
DeepSeek's fullwidth ``tool▁call`` marker), a JSON object with a tool name and its arguments, and a declared tool's
name written as a function call (``get_weather(city="Paris")``): a call too broken for its dialect, or in a dialect
toolwire does not read, is still no abstention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from toolwire._model import InvalidToolCall, ToolCall
from toolwire._pipeline._written import written_calls
from toolwire.cases._diff import compact
from toolwire.registry import ToolRegistry

__all__ = ["CallLikeText", "call_like_text"]

_MARKERS: Final = re.compile(
    r"<tool_call>|<\|tool_call\|>|<function_calls?>|<function=|<invoke\b|<tool_use>|<\|python_tag\|>"
    "|\\[TOOL_CALLS\\]|<\uff5ctool\u2581call|<start_function_call>",
    re.IGNORECASE,
)
_JSON_NAME: Final = re.compile(r'"(?:name|tool|tool_name|function)"\s*:\s*"[A-Za-z0-9_.:-]+"')
_JSON_ARGUMENTS: Final = re.compile(r'"(?:arguments|parameters|args|input)"\s*:\s*[{"]')
_EXCERPT: Final = 80
_SHOWN: Final = 200


@dataclass(frozen=True)
class CallLikeText:
    """What in an answer's text looks like a tool call, as a failure reports it.

    Attributes:
        said: What the text holds, to follow "the answer's text": ``holds 1 call(s) written in the hermes dialect
            (get_weather)``, or ``looks like one: <excerpt>`` when no dialect's parser reads a call.
        shown: The received side of the failure's diff, one line per call read (``(text, hermes) get_weather
            {"city": "Paris"}``), or the excerpt.
        dialect: The dialect the calls are written in, or None when only their look gave them away.
    """

    said: str
    shown: tuple[str, ...]
    dialect: str | None = None


def _excerpt(text: str, start: int) -> str:
    begin = max(0, start - 10)
    piece = text[begin : begin + _EXCERPT].replace("\n", " ")
    return ("…" if begin else "") + piece + ("…" if begin + _EXCERPT < len(text) else "")


def _looks(text: str, tool_names: list[str]) -> str | None:
    marker = _MARKERS.search(text)
    if marker is not None:
        return _excerpt(text, marker.start())
    name = _JSON_NAME.search(text)
    if name is not None and _JSON_ARGUMENTS.search(text) is not None:
        return _excerpt(text, name.start())
    names = sorted((re.escape(name) for name in tool_names if name), key=len, reverse=True)
    if names:
        written = re.search(rf"(?<![\w.])(?:{'|'.join(names)})\s*\(", text)
        if written is not None:
            return _excerpt(text, written.start())
    return None


def _call_line(call: ToolCall | InvalidToolCall) -> str:
    # An invalid call's arguments are its text as written when they are no object (cut, not JSON).
    arguments = compact(call.arguments) if call.arguments is not None else (call.arguments_json or "")[:_SHOWN]
    return f"{call.name or '(no name)'} {arguments}"


def call_like_text(text: str, tools: ToolRegistry | None = None) -> CallLikeText | None:
    """What in ``text`` looks like a tool call, or None when nothing does.

    Args:
        text: The assistant's answer.
        tools: The declared tools: they type the raw values a dialect writes and say which calls are valid, and their
            names written as calls (``name(``) count.
    """
    if not text:
        return None
    written = written_calls(text, tools)
    if written is not None:
        shown = tuple(f"(text, {written.dialect}) {_call_line(call)}" for call in written.calls)
        return CallLikeText(f"holds {written.summary}", shown, written.dialect)
    excerpt = _looks(text, list(tools.names) if tools is not None else [])
    return None if excerpt is None else CallLikeText(f"looks like one: {excerpt}", (f"(text) {excerpt}",))
