"""``granite``: ``<|tool_call|>`` (Granite 3.0) or ``<tool_call>`` (3.1+, never closed), then a JSON array of calls.

Each call is ``{"name": ..., "arguments": {...}}``, ``arguments`` often first (vLLM's granite tests). Granite 4
writes Hermes blocks and is read by ``hermes``. The machinery is ``_json_array.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from toolwire.reference.dialects._json_array import JsonArrayParser

__all__ = ["GraniteParser"]


class GraniteParser(JsonArrayParser):
    """The ``granite`` dialect."""

    arrays: ClassVar[Mapping[str, str | None]] = {"<|tool_call|>": None, "<tool_call>": None}
