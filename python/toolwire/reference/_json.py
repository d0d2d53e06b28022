"""JSON text read as the core reads it: Python's ``json`` takes ``NaN`` and ``Infinity``, which are not JSON.

Every place the reference reads JSON text off the wire (an event's data, an AWS message's payload, a server call's
assembled input) reads it here, so that each refuses what the core's parser refuses.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads", "value_or_text"]


def loads(text: str) -> Any:
    """The value of JSON text.

    Raises:
        ValueError: The text is not JSON (``NaN`` and the infinities included).
    """
    return json.loads(text, parse_constant=_not_json)


def value_or_text(text: str) -> Any:
    """The value of JSON text, or the text itself when it is not JSON (a server call's input kept as sent)."""
    try:
        return loads(text)
    except ValueError:
        return text


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON value")
