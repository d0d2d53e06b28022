"""``phi4_mini``: ``functools`` then a JSON array of ``{"name": ..., "arguments": {...}}`` (Phi-4-mini, FireFunction v2).

``functools`` is a word, not a token: followed by anything but ``[`` it is text (``MARKER_IN_TEXT``). The machinery
is ``_json_array.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from toolwire.reference.dialects._json_array import JsonArrayParser

__all__ = ["Phi4MiniParser"]


class Phi4MiniParser(JsonArrayParser):
    """The ``phi4_mini`` dialect."""

    arrays: ClassVar[Mapping[str, str | None]] = {"functools": None}
