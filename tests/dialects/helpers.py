"""What the dialects' rule tests share: a text's events, held to be the same however the text was fed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._model import Limits
from toolwire.reference.dialects import Event, Finding, merged, parse


def fed_both_ways(
    dialect: str,
    text: str,
    tools: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    limits: Limits | None = None,
    reasoning: bool = False,
) -> list[Event]:
    """The merged events of ``text`` fed whole, asserted to be the same as fed one character at a time."""
    whole = merged(parse(dialect, [text], tools, limits=limits, reasoning=reasoning))
    assert merged(parse(dialect, list(text), tools, limits=limits, reasoning=reasoning)) == whole
    return whole


def codes(found: list[Event]) -> list[str]:
    """The codes of the findings among ``found``, in order."""
    return [event.code for event in found if isinstance(event, Finding)]
