"""The decoders of the formats read as JSON events (every format but Chat Completions, which has its own reader)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from toolwire._model import OutputItem
from toolwire.formats import WireFormat
from toolwire.reference._accumulator import Accumulator
from toolwire.reference._anthropic import AnthropicDecoder
from toolwire.reference._bedrock import BedrockDecoder
from toolwire.reference._gemini import GeminiDecoder
from toolwire.reference._ollama import OllamaDecoder
from toolwire.reference._responses import ResponsesDecoder

__all__ = ["Decoder", "decoder_for"]


class Decoder(Protocol):
    """What each format's decoder provides to the engine; one instance per stream."""

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


_DECODERS: dict[str, Callable[[Accumulator], Decoder]] = {
    "openai-responses": ResponsesDecoder,
    "anthropic-messages": AnthropicDecoder,
    "gemini": GeminiDecoder,
    "ollama": OllamaDecoder,
    "bedrock-converse": BedrockDecoder,
}


def decoder_for(format: WireFormat, accumulator: Accumulator) -> Decoder:
    """A new decoder of ``format`` (not ``openai-chat``) feeding ``accumulator``."""
    return _DECODERS[format](accumulator)
