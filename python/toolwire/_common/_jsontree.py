"""JSON text as a tree that dumps back as it was spelled: members in order with duplicates, numbers as written.

Redaction (``CallLog``) and scrubbing (``toolwire sample``) replace strings inside tool-call arguments; the rest of
the text must stay what the model sent, so that a replay judges the same call: ``1.50`` stays ``1.50`` (``json``
would write ``1.5``), a duplicate key stays (``json`` keeps the last one only), a big integer keeps its digits.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Number", "Pairs", "dump_tree", "parse_tree"]


class Number:
    """A number (or ``NaN``/``Infinity``, which Python's ``json`` reads) as spelled in the text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        """Keep the spelling."""
        self.text = text

    def __repr__(self) -> str:
        """``Number('1.50')``."""
        return f"Number({self.text!r})"


class Pairs(list[tuple[str, Any]]):
    """A JSON object as its members in order, duplicates kept."""

    __slots__ = ()


def parse_tree(text: str) -> Any:
    """The JSON text as nested ``Pairs``, lists, strings, booleans, None and ``Number`` leaves.

    Raises:
        ValueError: The text is not JSON.
    """
    return json.loads(text, object_pairs_hook=Pairs, parse_float=Number, parse_int=Number, parse_constant=Number)


def dump_tree(value: Any) -> str:
    """JSON text of a ``parse_tree`` tree: compact, non-ASCII kept, numbers as they were spelled."""
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{dump_tree(key)}:{dump_tree(item)}" for key, item in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump_tree(item) for item in value) + "]"
    if isinstance(value, Number):
        return value.text
    return json.dumps(value, ensure_ascii=False)
