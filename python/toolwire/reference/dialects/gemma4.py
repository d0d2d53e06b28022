"""``gemma4``: Gemma 4, ``<|tool_call>call:NAME{key:<|"|>text<|"|>,n:42}<tool_call|>``.

The Gemma grammar (``_gemma``) with strings quoted by the token ``<|"|>``. Reasoning is the thought channel,
``<|channel>thought`` and a newline (the channel's header, not reasoning) up to ``<channel|>``; the template closes it
before a call, so a call written inside it is reasoning text.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference.dialects._gemma import GemmaParser

__all__ = ["Gemma4Parser"]

START: Final = "<|tool_call>"
END: Final = "<tool_call|>"
QUOTE: Final = '<|"|>'
THOUGHT: Final = ("<|channel>thought\n", "<channel|>")


class Gemma4Parser(GemmaParser):
    """The ``gemma4`` dialect."""

    starts = (START,)
    think = THOUGHT
    end = END
    quote = QUOTE
