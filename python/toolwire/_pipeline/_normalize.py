"""Buffered (non-streamed) responses read into the same ``StreamResult`` a stream gives (``normalize``).

A buffered response is the stream it stands for (``toolwire.formats``): the engine then applies every rule of a
stream, so a call comes out the same way whichever way it was received.
"""

from __future__ import annotations

from typing import Any

from toolwire._model import StreamResult
from toolwire._pipeline._streams import ToolCallStream
from toolwire.errors import MalformedChunkError
from toolwire.formats import WIRE_FORMATS, ShapeError, WireFormat, buffered_events, check_format, detect_buffered

__all__ = ["buffered_stream", "drained"]


def buffered_stream(response: object, format: WireFormat | None) -> tuple[list[Any], WireFormat]:
    """The stream events a buffered response stands for, and its wire format (``format``, or told from its shape).

    Raises:
        TypeError: ``response`` is not a response object, or its format cannot be told.
        ValueError: ``format`` names no wire format.
        MalformedChunkError: A field of the response that must be a list is not (its path named).
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
    try:
        return buffered_events(response, wire_format), wire_format
    except ShapeError as error:
        raise MalformedChunkError(0, error.where, error.problem) from None


def drained(stream: ToolCallStream, wire_format: WireFormat) -> StreamResult:
    """The result of the stream a buffered response stands for, read to its end.

    Raises:
        MalformedChunkError: The response does not have the shape of its format; the path names the response's
            own field.
    """
    try:
        for _ in stream:
            pass
    except MalformedChunkError as error:
        if wire_format != "openai-chat":
            raise
        # The chunk stands for the response: its paths name the response's own fields.
        path = error.path.replace(".delta", ".message")
        raise MalformedChunkError(error.chunk_number, path, error.problem) from None
    return stream.result
