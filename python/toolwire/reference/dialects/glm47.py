"""``glm47``: GLM-4.7, 4.7-Flash, GLM-5.1 and Spark 2.5, ``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…``.

The GLM grammar (``_glm``), written with no whitespace between its parts (GLM-4.5's layout parses too). Reasoning
is ``<think>…</think>``, which GLM-4.7-Flash's prompt opens; its template closes it before any call, so a call
written inside it is reasoning text.
"""

from __future__ import annotations

from toolwire.reference.dialects._glm import GlmParser

__all__ = ["Glm47Parser"]


class Glm47Parser(GlmParser):
    """The ``glm47`` dialect."""

    call_ends_reasoning = False
