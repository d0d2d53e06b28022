"""A request to an endpoint as each format's API takes it: the headers, the answer's length cap, the tool choice.

The formats a request is sent in are those an OpenAI- or Anthropic-compatible endpoint speaks. The live probe
(``toolwire.contract``) and the matrix runner (``toolwire.cases``) ask the same endpoints; what their requests share
is written here once, with the path and the tools, which the registry and each format's module hold, and each caller
adds its own messages and sampling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, get_args

__all__ = [
    "ANTHROPIC_VERSION",
    "MAX_TOKENS_FIELD",
    "REQUEST_FORMATS",
    "RequestFormat",
    "request_headers",
    "spell_tool_choice",
]

#: A format a request is sent in: one whose requests declare tools in a shape of their own (the registry renders
#: each), which the endpoint serves, the probe and the matrix send, and a server tool is declared for.
RequestFormat = Literal["openai-chat", "openai-responses", "anthropic-messages"]

#: The request formats, in the order of the registry.
REQUEST_FORMATS: Final[tuple[RequestFormat, ...]] = get_args(RequestFormat)

#: The body field of each request format that caps the answer's length.
MAX_TOKENS_FIELD: Final[Mapping[str, str]] = {
    "openai-chat": "max_tokens",
    "openai-responses": "max_output_tokens",
    "anthropic-messages": "max_tokens",
}

#: The ``anthropic-version`` header the Messages API requires.
ANTHROPIC_VERSION: Final = "2023-06-01"


def request_headers(format: str, api_key: str | None, stream: bool) -> dict[str, str]:
    """The headers of a request: the accepted type, and the credential as the format sends it."""
    headers = {"accept": "text/event-stream" if stream else "application/json"}
    if format == "anthropic-messages":
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if api_key:
            headers["x-api-key"] = api_key
    elif api_key:
        headers["authorization"] = f"Bearer {api_key}"
    return headers


def spell_tool_choice(choice: Any, format: str) -> Any:
    """A tool choice in one of the ``REQUEST_FORMATS``' own spelling.

    Args:
        choice: ``"auto"``, ``"none"``, ``"required"``, ``{"name": tool}``, None, or a ``tool_choice`` already in a
            provider's shape (any mapping with a ``type``, returned as it is).
        format: ``"openai-chat"``, ``"openai-responses"`` or ``"anthropic-messages"``.

    Returns:
        What the request sends (None: send no ``tool_choice``).

    Raises:
        ValueError: An unknown choice.
    """
    if choice is None or (isinstance(choice, Mapping) and "type" in choice):
        return choice
    anthropic = format == "anthropic-messages"
    if choice in ("auto", "none"):
        return {"type": choice} if anthropic else choice
    if choice == "required":
        return {"type": "any"} if anthropic else "required"
    if isinstance(choice, Mapping) and isinstance(choice.get("name"), str):
        name = choice["name"]
        if anthropic:
            return {"type": "tool", "name": name}
        if format == "openai-responses":
            return {"type": "function", "name": name}
        return {"type": "function", "function": {"name": name}}
    raise ValueError(f"tool_choice must be 'auto', 'none', 'required' or {{'name': tool}}; got {choice!r}")
