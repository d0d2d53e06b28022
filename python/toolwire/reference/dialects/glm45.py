r"""``glm45``: GLM-4.5, 4.5-Air, 4.6 and Ling 3.0, ``<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…``.

The GLM grammar (``_glm``), its parts on their own lines. Reasoning is ``<think>…</think>``; Ling 3.0's prompt opens
it, and a call ends it without ``</think>`` (llama.cpp's Ling tests), so a call written inside reasoning is a call.
"""

from __future__ import annotations

from toolwire.reference.dialects._glm import GlmParser

__all__ = ["Glm45Parser"]


class Glm45Parser(GlmParser):
    """The ``glm45`` dialect."""

    call_ends_reasoning = True
