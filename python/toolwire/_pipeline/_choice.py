"""What a ``tool_choice`` (as sent in the request) asks of the stream; shared by both implementations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = ["ToolChoice", "ToolChoiceLike", "parse_tool_choice"]

ToolChoiceLike: TypeAlias = Literal["auto", "none", "required", "any"] | Mapping[str, Any] | None
"""A ``tool_choice`` as sent in the request, in any provider's shape (see ``parse_tool_choice``).

A mapping is ``{"type": "auto" | "none" | "any" | "required"}`` or a named tool: ``{"type": "function", "function":
{"name": ...}}`` (OpenAI Chat), ``{"type": "function", "name": ...}`` (Responses), ``{"type": "tool", "name": ...}``
(Anthropic); the SDKs' ``TypedDict`` params are such mappings.
"""


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """The part of a ``tool_choice`` that the stream can be checked against.

    Attributes:
        required: The model had to call some tool.
        name: The one tool it had to call, when the request named it.
    """

    required: bool = False
    name: str | None = None


_NOTHING_DEMANDED = ToolChoice()


def parse_tool_choice(tool_choice: object) -> ToolChoice:
    """Read a ``tool_choice`` in any provider's shape: a ``ToolChoiceLike``, checked here for callers no type checker saw.

    Accepted: None, ``"auto"``, ``"none"``, ``"required"``, ``"any"``; ``{"type": "auto" | "none" | "any" |
    "required"}``; a named function in the OpenAI Chat shape ``{"type": "function", "function": {"name": ...}}``,
    the Responses shape ``{"type": "function", "name": ...}`` or Anthropic's ``{"type": "tool", "name": ...}``.

    Raises:
        TypeError: for anything else, naming what was received.
    """
    if tool_choice is None:
        return _NOTHING_DEMANDED
    if isinstance(tool_choice, str):
        if tool_choice in ("auto", "none"):
            return _NOTHING_DEMANDED
        if tool_choice in ("required", "any"):
            return ToolChoice(required=True)
        raise TypeError(f"tool_choice string must be 'auto', 'none', 'required' or 'any', got {tool_choice!r}")
    if isinstance(tool_choice, Mapping):
        kind = tool_choice.get("type")
        if kind in ("auto", "none"):
            return _NOTHING_DEMANDED
        if kind in ("any", "required"):
            return ToolChoice(required=True)
        if kind in ("function", "tool"):
            function = tool_choice.get("function")
            name = function.get("name") if isinstance(function, Mapping) else tool_choice.get("name")
            if isinstance(name, str) and name:
                return ToolChoice(required=True, name=name)
    raise TypeError(
        "tool_choice must be 'auto', 'none', 'required', {'type': 'function', 'function': {'name': ...}}, "
        f"{{'type': 'function', 'name': ...}} or {{'type': 'tool', 'name': ...}}; got {tool_choice!r}"
    )
