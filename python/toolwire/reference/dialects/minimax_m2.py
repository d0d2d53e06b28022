"""``minimax_m2``: ``<minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter>…</invoke>…</minimax:tool_call>``.

MiniMax-M2, M2.1 and M2.5 write ``qwen3_coder``'s body in other tags, and so are read by its rules: values are raw
text typed by the tool's schema (``_raw_values``); ``</parameter>`` ends a value only when ``<parameter name=`` or
``</invoke>`` follows it (after whitespace); a call is whole at ``</invoke>``; ``<invoke name=`` without the start
marker opens a call (``MISSING_START_MARKER``). Three things differ. A name is written in double quotes, and a tag
whose name is not is malformed. Values stand inline in the template, so they are kept exactly, no newline being a
delimiter. One block holds several calls, each ``<invoke>`` after the last's ``</invoke>``. Reasoning is
``<think>…</think>``, which the template opens in the prompt; a call written inside it is reasoning text.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference.dialects.qwen3_coder import Qwen3CoderParser

__all__ = ["MiniMaxM2Parser"]

_INVOKE: Final = "<invoke name="


class MiniMaxM2Parser(Qwen3CoderParser):
    """The ``minimax_m2`` dialect."""

    start = "<minimax:tool_call>"
    end = "</minimax:tool_call>"
    function = _INVOKE
    parameter = "<parameter name="
    value_end = "</parameter>"
    function_end = "</invoke>"
    newline_delimited = False
    several_per_block = True
    starts = ("<minimax:tool_call>", _INVOKE)
    think = ("<think>", "</think>")
    call_ends_reasoning = False

    def _tag_value(self, text: str) -> str | None:
        quoted = len(text) > 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]
        return text[1:-1] if quoted else None
