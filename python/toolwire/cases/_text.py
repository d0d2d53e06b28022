"""Text that looks like a tool call: a model that wrote its call into the answer instead of making it.

Such an answer is neither a call nor an abstention. Benchmarks that count it as "no call" credit broken models for
restraint (BFCL #1362: 228 of 229 "correct" abstentions held ``<tool_call>``), so the judge reports it as
``malformed_call``, apart from ``no_call``. What is recognised: the call markers of the common chat templates
(Hermes/Qwen ``<tool_call>``, Llama ``<|python_tag|>`` and ``<function=``, Mistral ``[TOOL_CALLS]``, Anthropic-style
``<invoke``/``<function_calls>``, DeepSeek's fullwidth ``tool▁call`` marker), a JSON object with a tool name and its arguments, and a
declared tool's name written as a function call (``get_weather(city="Paris")``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["call_like_text"]

_MARKERS: Final = re.compile(
    r"<tool_call>|<\|tool_call\|>|<function_calls?>|<function=|<invoke\b|<tool_use>|<\|python_tag\|>"
    "|\\[TOOL_CALLS\\]|<\uff5ctool\u2581call|<start_function_call>",
    re.IGNORECASE,
)
_JSON_NAME: Final = re.compile(r'"(?:name|tool|tool_name|function)"\s*:\s*"[A-Za-z0-9_.:-]+"')
_JSON_ARGUMENTS: Final = re.compile(r'"(?:arguments|parameters|args|input)"\s*:\s*[{"]')
_EXCERPT: Final = 80


def _excerpt(text: str, start: int) -> str:
    begin = max(0, start - 10)
    piece = text[begin : begin + _EXCERPT].replace("\n", " ")
    return ("…" if begin else "") + piece + ("…" if begin + _EXCERPT < len(text) else "")


def call_like_text(text: str, tool_names: Iterable[str] = ()) -> str | None:
    """An excerpt of the part of ``text`` that looks like a tool call, or None when nothing does.

    Args:
        text: The assistant's answer.
        tool_names: The declared tools, whose names written as calls (``name(``) count.
    """
    if not text:
        return None
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
