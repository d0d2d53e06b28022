"""Wire format names, and Python objects read as the JSON they serialize to.

The names are the same everywhere (decoders, ``format=``, ``to_tool_result``, ``to_history``); an event of a format
other than Chat Completions given as a Python object reaches its decoder as its JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = ["WIRE_FORMATS", "WireFormat", "check_format", "event_json"]

WireFormat = Literal["openai-chat", "openai-responses", "anthropic-messages", "gemini", "ollama", "bedrock-converse"]

#: Every wire format toolwire reads, in the order of ``WireFormat``.
WIRE_FORMATS: Final[tuple[WireFormat, ...]] = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "gemini",
    "ollama",
    "bedrock-converse",
)


def check_format(format: str | None) -> WireFormat | None:
    """``format`` itself when it names a wire format (None: detect it from the stream).

    Raises:
        ValueError: Any other value, naming the accepted ones.
    """
    if format is None or format in WIRE_FORMATS:
        return format  # type: ignore[return-value]
    raise ValueError(f"format must be one of {', '.join(map(repr, WIRE_FORMATS))} or None; got {format!r}")


def event_json(event: Any) -> bytes:
    r"""The JSON text of one event given as a Python object.

    A mapping, or an SDK's pydantic model (its fields as set from the wire, by alias). Strings holding lone
    surrogates come out as ``\u`` escapes, which the decoders keep as they keep them in raw bytes.

    Raises:
        TypeError: An object that is neither (its type named), or a value JSON cannot hold.
    """
    dump = getattr(event, "model_dump", None)
    if callable(dump) and not isinstance(event, Mapping):
        event = dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    try:
        return json.dumps(event, separators=(",", ":"), allow_nan=False, default=_pydantic_value).encode()
    except (TypeError, ValueError, RecursionError) as error:
        raise TypeError(f"the event is not JSON: {error}") from error


def _pydantic_value(value: Any) -> Any:
    """A nested SDK object inside a mapping, as its JSON-ready dict."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    raise TypeError(f"{type(value).__name__} is not JSON")
