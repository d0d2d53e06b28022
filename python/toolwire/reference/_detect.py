"""Which wire format an event belongs to, from the first event that identifies one (``docs/semantics.md``).

Detection never raises: a field of an unexpected type simply identifies nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.formats import WireFormat

__all__ = ["detect", "is_error"]

_ANTHROPIC_TYPES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)
# With any ``...Exception`` (the exception events ConverseStream sends in place of the rest: ``throttlingException``,
# ``modelStreamErrorException``...), these identify Bedrock.
_BEDROCK_KEYS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
)


def detect(event: Mapping[str, Any], name: str | None = None) -> WireFormat | None:
    """The format ``event`` identifies, or None when it identifies none (an error, a keep-alive...).

    A field counts when it is present and not null. ``name`` (the server-sent event's name) stands in for a ``type``
    the data lacks, as it does for the decoders.
    """
    kind = event.get("type")
    kind = kind if isinstance(kind, str) else name
    obj = event.get("object")
    if event.get("choices") is not None or (isinstance(obj, str) and obj.startswith("chat.completion")):
        return "openai-chat"
    if kind is not None and kind.startswith("response."):
        return "openai-responses"
    if kind in _ANTHROPIC_TYPES:
        return "anthropic-messages"
    if event.get("candidates") is not None or event.get("promptFeedback") is not None:
        return "gemini"
    if event.get("message") is not None and event.get("done") is not None:
        return "ollama"
    if len(event) == 1:
        (key,) = event
        if key in _BEDROCK_KEYS or key.endswith("Exception"):
            return "bedrock-converse"
    return None


def is_error(event: Mapping[str, Any]) -> bool:
    """Whether an event is an error, in any format.

    ``error`` non-null, ``type`` ``"error"``, or a Bedrock exception (a member named ``...Exception``, non-null).
    """
    return (
        event.get("error") is not None
        or event.get("type") == "error"
        or any(key.endswith("Exception") and value is not None for key, value in event.items())
    )
