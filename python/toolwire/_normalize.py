"""Buffered (non-streamed) responses read into the same ``StreamResult`` a stream gives (``normalize``).

A buffered response is the stream it stands for (``toolwire.formats``): the engine then applies every rule of a
stream, so a call comes out the same way whichever way it was received.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire._model import Limits, StreamResult
from toolwire.errors import MalformedChunkError
from toolwire.formats import WIRE_FORMATS, buffered_events, check_format, detect_buffered

__all__ = ["make_normalize"]


def make_normalize(reassemble: Callable[..., Any]) -> Callable[..., StreamResult]:
    """Build ``normalize`` over one implementation's ``reassemble``."""

    def normalize(
        response: Any,
        *,
        tools: Any = None,
        tool_choice: Any = None,
        format: str | None = None,
        limits: Limits | None = None,
    ) -> StreamResult:
        """The calls of a buffered response, checked as a stream's are, in the ``StreamResult`` a stream gives.

        Args:
            response: A buffered response, as a dict or its SDK's object: an OpenAI chat completion
                (``ChatCompletion``), a Responses ``Response``, an Anthropic ``Message``, a Gemini ``generateContent``
                response, an Ollama ``/api/chat`` response or a Bedrock ``Converse`` response.
            tools: As for ``reassemble``: every call is checked against them.
            tool_choice: As for ``reassemble``.
            format: The response's wire format; by default told from its shape.
            limits: As for ``reassemble``.

        Returns:
            The result: ``calls`` and ``invalid_calls`` (nothing is raised for them), ``finish_reason``, ``text``,
            ``usage`` and the findings. ``arguments`` is always a dict and ``arguments_json`` a string, whatever the
            provider sent (an object where a string is promised is ``ARGUMENTS_NOT_STRING``; where the format promises
            an object, as Anthropic, Gemini, Ollama and Bedrock do, it is simply correct).

        Raises:
            MalformedChunkError: The response does not have the shape of its format (the path names the field).
            TypeError: ``response`` is not a response object, or its format cannot be told.
        """
        if isinstance(response, (str, bytes, bytearray, list, tuple)) or response is None:
            raise TypeError(
                f"response must be a buffered response (a dict or an SDK object); got {type(response).__name__}"
            )
        wire_format = check_format(format) or detect_buffered(response)
        if wire_format is None:
            raise TypeError(
                "cannot tell the wire format of this response from its shape; pass format= (one of "
                f"{', '.join(map(repr, WIRE_FORMATS))})"
            )
        events = buffered_events(response, wire_format)
        stream = reassemble(
            events, tools=tools, tool_choice=tool_choice, on_invalid="yield", limits=limits, format=wire_format
        )
        try:
            for _ in stream:
                pass
        except MalformedChunkError as error:
            if wire_format != "openai-chat":
                raise
            # The chunk stands for the response: its paths name the response's own fields.
            path = error.path.replace(".delta", ".message")
            raise MalformedChunkError(error.chunk_number, path, error.problem) from None
        return stream.result  # type: ignore[no-any-return]

    return normalize
