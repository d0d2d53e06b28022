"""``functiongemma``: FunctionGemma, ``<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>``.

The Gemma grammar (``_gemma``) with strings quoted by the token ``<escape>``; a ``,`` left out between two members
(FunctionGemma's streamed calls, vLLM's tests) is read as if written. No reasoning markers.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference.dialects._gemma import GemmaParser

__all__ = ["FunctionGemmaParser"]

START: Final = "<start_function_call>"
END: Final = "<end_function_call>"
QUOTE: Final = "<escape>"


class FunctionGemmaParser(GemmaParser):
    """The ``functiongemma`` dialect."""

    starts = (START,)
    end = END
    quote = QUOTE
