"""What every decoder shares: the interface a format's decoder implements, and what an error event is in any format.

The core's twin is ``rust/core/src/decode/shared.rs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolwire._model import OutputItem
    from toolwire.reference._accumulator import Accumulator

__all__ = ["Decoder", "error_object", "is_error", "reported_error"]


class Decoder(Protocol):
    """What each format's decoder provides to the engine; one instance per stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        ...

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """Whether ``event`` identifies this format (its detection hint; ``kind`` is its ``type`` or its name).

        The table asks each format in its order; the first that answers yes is the stream's. A field counts when it is
        present and not null; a field of an unexpected type identifies nothing (detection never raises).
        """
        ...

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one decoded event; ``name`` is the server-sent event's name, if it came in one."""
        ...

    def end(self) -> None:
        """The stream ended: apply what was held back (before the accumulator ends)."""
        ...

    def output(self) -> tuple[OutputItem, ...]:
        """The turn's pieces other than client calls, in order."""
        ...

    def usage(self) -> Any:
        """The usage the format assembles from several events (Anthropic), or None: the last one sent is the usage."""
        ...


def is_error(event: Mapping[str, Any]) -> bool:
    """Whether an event is an error, in any format.

    ``error`` non-null, ``type`` ``"error"``, ``object`` ``"error"`` (``error_object``) or a Bedrock exception (a
    member named ``...Exception``, non-null).
    """
    return (
        event.get("error") is not None
        or event.get("type") == "error"
        or error_object(event)
        or any(key.endswith("Exception") and value is not None for key, value in event.items())
    )


def error_object(event: Mapping[str, Any]) -> bool:
    """Whether an event is vLLM's error object, ``{"object": "error", "message", "type", "param", "code"}``.

    vLLM's ``ErrorResponse``, sent whole as a chunk by servers built on vLLM's protocol where vLLM itself wraps it in
    ``error``: the whole event is the error's payload.
    """
    return event.get("object") == "error"


def reported_error(accumulator: Accumulator, event: Mapping[str, Any]) -> bool:
    """Whether ``event`` carries an ``error`` member, reported as the provider's error when it does.

    For the formats whose error comes as a member of an ordinary event (Gemini, Ollama, the completions stream): such
    an event carries nothing else to read.
    """
    error = event.get("error")
    if error is None:
        return False
    accumulator.provider_error(error)
    return True
