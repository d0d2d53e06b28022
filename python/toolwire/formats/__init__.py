"""The wire formats toolwire reads: the one list of them, and what Python knows of each.

``FORMATS`` is the registry: one ``Format`` entry per wire format, naming its decoder in the core and in the
reference, the framing its streamed bodies come in, and its module here. A format's module
(``toolwire.formats.gemini``...) holds everything Python knows of that format beyond decoding: a buffered response
as the events its stream would have sent, a call and a whole assistant turn written back for the next request
(``to_history``), an invalid call answered (``to_tool_result``), and the tools as its requests offer them. The
functions here dispatch to it by name. A request sent to an endpoint (the probe's, the matrix's) takes its path,
headers, length cap and tool choice from here too. Every other list of format names in the package is derived from ``FORMATS``.

Adding a wire format means its core decoder, its reference twin, its module here with one line in ``FORMATS`` (and
its name in ``WireFormat``), and its recordings in ``recordings/<name>/`` (``tests/formats/test_registry.py``
checks all four).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

from toolwire.formats import (
    anthropic_messages,
    bedrock_converse,
    gemini,
    ollama,
    openai_chat,
    openai_completions,
    openai_responses,
)
from toolwire.formats._body import sse_event
from toolwire.formats._buffered import ShapeError, field
from toolwire.formats._event_json import event_json
from toolwire.formats._history import turn_calls
from toolwire.formats._module import FormatModule
from toolwire.formats._request import (
    MAX_TOKENS_FIELD,
    REQUEST_FORMATS,
    RequestFormat,
    request_headers,
    spell_tool_choice,
)
from toolwire.formats._tool_result import problems

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "FRAMING_SUFFIXES",
    "MAX_TOKENS_FIELD",
    "REQUEST_FORMATS",
    "REQUEST_PATHS",
    "WIRE_FORMATS",
    "Format",
    "FormatModule",
    "Framing",
    "RequestFormat",
    "ShapeError",
    "WireFormat",
    "buffered_events",
    "call_entry",
    "check_format",
    "detect_buffered",
    "event_json",
    "format_of",
    "problems",
    "request_headers",
    "request_tools",
    "spell_tool_choice",
    "sse_event",
    "tool_result",
    "turn",
]

WireFormat = Literal[
    "openai-completions",
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "gemini",
    "ollama",
    "bedrock-converse",
]

#: How a streamed body is cut into events, named as the core's framing detection names it.
Framing = Literal["sse", "json-lines", "json-array", "aws-event-stream"]

#: The data file suffix of a recording whose raw body has each framing (keys: every ``Framing``, as the core names it).
FRAMING_SUFFIXES: Final[Mapping[str, str]] = MappingProxyType(
    {"sse": ".sse", "json-lines": ".jsonl", "json-array": ".json-array", "aws-event-stream": ".eventstream"}
)


@dataclass(frozen=True)
class Format:
    """One wire format: where its decoders live, how its streams are framed, and its module.

    Attributes:
        name: The name ``format=`` takes everywhere.
        title: The API it is, as its provider names it.
        framing: The framing of its streamed bodies as the provider sends them.
        core_decoder: The core's decoder, a file under ``rust/core/src``.
        reference_decoder: The reference's decoder, a module of ``toolwire.reference``.
        module: Everything else Python knows of the format (see ``FormatModule``).
        choices: Whether one stream may carry several choices (``n`` completions, Gemini candidates).
        named_events: Whether its server-sent events are named after their ``type`` (``event: message_start``).
        endpoint: The path its provider serves it on (a path parameter named as the provider's reference names it).
        calls: Whether its events carry tool calls (the completions endpoint's carry text only, in which a model
            writes its calls in its own dialect).
    """

    name: WireFormat
    title: str
    framing: Framing
    core_decoder: str
    reference_decoder: str
    module: FormatModule
    choices: bool
    named_events: bool
    endpoint: str
    calls: bool = True

    @property
    def suffix(self) -> str:
        """The data file suffix of a recording of its raw streamed body."""
        return FRAMING_SUFFIXES[self.framing]


#: Every wire format, by name, in the order of ``WireFormat`` (which is also the order buffered shapes are told in:
#: an earlier format's shape wins, so completions, whose chunks have ``choices`` too, come before chat).
FORMATS: Final[Mapping[WireFormat, Format]] = MappingProxyType(
    {
        entry.name: entry
        for entry in (
            Format(
                "openai-completions",
                "OpenAI-compatible completions",
                "sse",
                "decode/openai_completions.rs",
                "toolwire.reference.decode.openai_completions",
                openai_completions,
                choices=True,
                named_events=False,
                endpoint="/v1/completions",
                calls=False,
            ),
            Format(
                "openai-chat",
                "OpenAI Chat Completions",
                "sse",
                "decode/openai_chat.rs",
                "toolwire.reference.decode.openai_chat",
                openai_chat,
                choices=True,
                named_events=False,
                endpoint="/v1/chat/completions",
            ),
            Format(
                "openai-responses",
                "OpenAI Responses",
                "sse",
                "decode/openai_responses.rs",
                "toolwire.reference.decode.openai_responses",
                openai_responses,
                choices=False,
                named_events=True,
                endpoint="/v1/responses",
            ),
            Format(
                "anthropic-messages",
                "Anthropic Messages",
                "sse",
                "decode/anthropic_messages.rs",
                "toolwire.reference.decode.anthropic_messages",
                anthropic_messages,
                choices=False,
                named_events=True,
                endpoint="/v1/messages",
            ),
            Format(
                "gemini",
                "Gemini streamGenerateContent",
                "sse",
                "decode/gemini.rs",
                "toolwire.reference.decode.gemini",
                gemini,
                choices=True,
                named_events=False,
                endpoint="/v1beta/models/{model}:streamGenerateContent",
            ),
            Format(
                "ollama",
                "Ollama /api/chat",
                "json-lines",
                "decode/ollama.rs",
                "toolwire.reference.decode.ollama",
                ollama,
                choices=False,
                named_events=False,
                endpoint="/api/chat",
            ),
            Format(
                "bedrock-converse",
                "Amazon Bedrock ConverseStream",
                "aws-event-stream",
                "decode/bedrock_converse.rs",
                "toolwire.reference.decode.bedrock_converse",
                bedrock_converse,
                choices=False,
                named_events=False,
                endpoint="/model/{modelId}/converse-stream",
            ),
        )
    }
)

#: Every wire format toolwire reads, in the order of ``WireFormat``.
WIRE_FORMATS: Final[tuple[WireFormat, ...]] = tuple(FORMATS)

#: The format of a stream nothing identifies, and the one most servers speak.
DEFAULT_FORMAT: Final[WireFormat] = "openai-chat"


def check_format(format: str | None) -> WireFormat | None:
    """``format`` itself when it names a wire format (None: detect it from the stream).

    Raises:
        ValueError: Any other value, naming the accepted ones.
    """
    if format is None or format in FORMATS:
        return format  # type: ignore[return-value]
    raise ValueError(f"format must be one of {', '.join(map(repr, WIRE_FORMATS))} or None; got {format!r}")


def format_of(format: str) -> Format:
    """The registry entry of ``format``.

    Raises:
        ValueError: ``format`` names no wire format (the accepted ones named).
    """
    for entry in FORMATS.values():
        if entry.name == format:
            return entry
    raise ValueError(f"format must be one of {', '.join(map(repr, WIRE_FORMATS))}; got {format!r}")


def detect_buffered(response: Any) -> WireFormat | None:
    """The format of a buffered response, from its shape (None when no format's shape fits)."""
    for entry in FORMATS.values():
        if entry.module.looks_buffered(response):
            return entry.name
    if field(response, "error") is not None:
        # An error body (every provider's has an `error`) reads as a chunk of the default format that carries one.
        return DEFAULT_FORMAT
    return None


def buffered_events(response: Any, format: WireFormat) -> list[Any]:
    """The stream events a buffered response of ``format`` stands for.

    Raises:
        ShapeError: A field that must be a list is not (its path named).
    """
    return FORMATS[format].module.buffered_events(response)


def call_entry(call: CallView, format: str) -> dict[str, Any]:
    """The assistant-side entry of one call (see ``ToolCall.to_history``), with the provider fields it needs back.

    Raises:
        ValueError: ``format`` names no wire format.
    """
    return format_of(format).module.call_entry(call, call.name if call.name is not None else "")


def turn(result: ResultView, format: str) -> Any:
    """The whole assistant turn of the result's first choice (see ``StreamResult.to_history``).

    Raises:
        ValueError: ``format`` names no wire format.
    """
    entry = format_of(format)
    own = result.format == entry.name and bool(result.output)
    return entry.module.turn(result, turn_calls(result), own)


def tool_result(call: InvalidCallView, format: str) -> dict[str, Any]:
    """``call``'s error message in ``format``'s tool-result shape (see ``InvalidToolCall.to_tool_result``).

    Raises:
        ValueError: ``format`` names no wire format.
    """
    return format_of(format).module.tool_result(call)


#: The formats a request is sent in (an OpenAI- or Anthropic-compatible endpoint's), and the path of each one's
#: endpoint below a base URL that ends in the API version (``http://localhost:8000/v1``), as the SDKs' base URLs do.
REQUEST_PATHS: Final[Mapping[str, str]] = MappingProxyType(
    {name: format_of(name).endpoint.removeprefix("/v1") for name in REQUEST_FORMATS}
)


def request_tools(tools: ToolsView, format: str) -> list[dict[str, Any]]:
    """The tools as a request of ``format`` offers them.

    Raises:
        ValueError: ``format`` names no wire format.
    """
    return format_of(format).module.request_tools(tools)
