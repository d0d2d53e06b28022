"""``apriel``: ``<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>`` (ServiceNow Apriel 1.5).

The machinery is ``_json_array.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from toolwire.reference.dialects._json_array import JsonArrayParser

__all__ = ["AprielParser"]


class AprielParser(JsonArrayParser):
    """The ``apriel`` dialect."""

    arrays: ClassVar[Mapping[str, str | None]] = {"<tool_calls>": "</tool_calls>"}
