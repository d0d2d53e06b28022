"""What the assistant turn's other pieces (``StreamResult.output``) count towards ``Limits.max_output_bytes``.

Each item, and each value a delta adds whole to one (a citation, a result's content item), counts ``BOOKKEEPING``
bytes and its JSON text written compactly; each piece of text a delta adds, its UTF-8 bytes. The counts depend on
the decoded values only, never on the spacing or escapes they came with, so raw bytes and decoded events count alike.
"""

from __future__ import annotations

import json
from typing import Any

from toolwire.reference._accumulator import BOOKKEEPING
from toolwire.reference._fields import Fields

__all__ = ["BOOKKEEPING", "text_size", "whole_size"]


def text_size(text: str) -> int:
    """The UTF-8 bytes of ``text`` (a lone surrogate, kept as sent, as three)."""
    return len(text.encode("utf-8", "surrogatepass"))


def whole_size(value: Any, fields: Fields, path: str) -> int:
    """What a value kept whole counts: its compact JSON text and ``BOOKKEEPING``.

    Raises:
        MalformedChunkError: The value has no JSON text (a float out of range, nested past the recursion limit).
    """
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise fields.fail(path, f"the value is not JSON: {exc}") from exc
    return BOOKKEEPING + text_size(text)
