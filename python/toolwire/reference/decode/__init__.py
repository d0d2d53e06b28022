"""Decoders: one per wire format, each mapping its provider's events onto the accumulator.

The twin of ``rust/core/src/decode/``, file for file: a format's whole decoder and its detection hint are
``decode/<format>.py``, named as its ``toolwire.formats`` module and as the core's ``decode/<format>.rs``; what they
share is ``_shared.py``, ``_output.py`` and ``_partial_args.py`` (the core's ``shared.rs``, ``output.rs`` and
``partial_args.rs``). ``DECODERS`` is the one table of formats, one line each, in the order their hints are asked, as
the core's ``formats!`` table is.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from toolwire.reference.decode import (
    anthropic_messages,
    bedrock_converse,
    gemini,
    ollama,
    openai_chat,
    openai_completions,
    openai_responses,
)
from toolwire.reference.decode._shared import Decoder, error_object, is_error

if TYPE_CHECKING:
    from toolwire.formats import WireFormat
    from toolwire.reference._accumulator import Accumulator

__all__ = ["DECODERS", "Decoder", "decoder_for", "detect", "error_object", "is_error"]

#: Every format's decoder, in the order their detection hints are asked.
DECODERS: Final[Mapping[WireFormat, type[Decoder]]] = MappingProxyType(
    {
        "openai-completions": openai_completions.OpenAiCompletionsDecoder,
        "openai-chat": openai_chat.OpenAiChatDecoder,
        "openai-responses": openai_responses.OpenAiResponsesDecoder,
        "anthropic-messages": anthropic_messages.AnthropicMessagesDecoder,
        "gemini": gemini.GeminiDecoder,
        "ollama": ollama.OllamaDecoder,
        "bedrock-converse": bedrock_converse.BedrockConverseDecoder,
    }
)


def decoder_for(format: WireFormat, accumulator: Accumulator) -> Decoder:
    """A new decoder of ``format`` feeding ``accumulator``."""
    return DECODERS[format](accumulator)


def detect(event: Mapping[str, Any], name: str | None = None) -> WireFormat | None:
    """The format ``event`` identifies, or None when it identifies none (an error, a keep-alive...).

    ``name`` (the server-sent event's name) stands in for a ``type`` the data lacks, as it does for the decoders.
    Detection never raises: a field of an unexpected type simply identifies nothing.
    """
    kind = event.get("type")
    kind = kind if isinstance(kind, str) else name
    for format, decoder in DECODERS.items():
        if decoder.identifies(event, kind):
            return format
    return None
