"""``xlam``: a JSON array of ``{"name": ..., "arguments": {...}}``, bare, fenced, after ``[TOOL_CALLS]`` or in tags.

Salesforce xLAM-2 writes the array bare (``[{"name": ...``: held back only while it can still be a call), in a
````` ```json ````` fence, after Mistral's ``[TOOL_CALLS]``, or in ``<tool_call>…</tool_call>`` (vLLM's xlam tests);
``<think>…</think>`` before it is reasoning. The machinery is ``_json_array.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from toolwire.reference.dialects._json_array import JsonArrayParser

__all__ = ["XlamParser"]


class XlamParser(JsonArrayParser):
    """The ``xlam`` dialect."""

    arrays: ClassVar[Mapping[str, str | None]] = {"[TOOL_CALLS]": None, "<tool_call>": "</tool_call>", "```json": "```"}
    bare = True
    think = ("<think>", "</think>")
