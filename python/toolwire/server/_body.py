r"""A request body read within the endpoint's limits, and its JSON value read by the project's one parsing rule.

The body is read piece by piece as it arrives: a ``Content-Length`` over ``max_body_bytes`` is refused before any
of the body is read, and a body without one is refused as soon as what arrived passes the limit, so no more than the
limit is ever held. A pause longer than ``body_timeout`` between two pieces ends the read. Both answers close the
connection (``Connection: close``): the rest of the body is never read.

The JSON is checked by the Rust core's scanner first (strict RFC 8259: lone surrogates in ``\u`` escapes and invalid
UTF-8 refused, nesting bounded by ``max_json_depth``), then decoded; what the scanner accepts but Python cannot hold
(an integer of more than ``sys.get_int_max_str_digits()`` digits) is refused too. Each refusal is a ``RequestError``
the app answers with HTTP 400 in the route's error shape.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from starlette.requests import Request

from toolwire._core import scan
from toolwire.server._limits import EndpointLimits
from toolwire.server._request import RequestError

__all__ = ["CLOSE", "decode_body", "read_body"]

#: The header that makes uvicorn close the connection after the answer (the unread rest of a body is dropped).
CLOSE: Final = {"connection": "close"}

_WHY: Final = {
    "unexpected_byte": "an unexpected byte",
    "invalid_number": "an invalid number",
    "invalid_literal": "an invalid literal (expected true, false or null)",
    "invalid_escape": "an invalid escape in a string",
    "lone_surrogate": "a lone UTF-16 surrogate in a \\u escape (it cannot be carried as UTF-8)",
    "control_character": "an unescaped control character in a string",
    "invalid_utf8": "invalid UTF-8 in a string",
    "trailing_data": "data after the end of the JSON value",
}


def _too_large(limits: EndpointLimits, what: str) -> RequestError:
    return RequestError(
        413,
        f"the request body is {what}; this endpoint accepts at most {limits.max_body_bytes} bytes "
        "(EndpointLimits.max_body_bytes, toolwire serve --max-body-bytes)",
        code="request_too_large",
    )


def _declared_length(http: Request) -> int | None:
    declared = http.headers.get("content-length")
    if declared is None:
        return None
    try:
        return int(declared)
    except ValueError:
        return None  # h11 refuses a malformed Content-Length before the app sees the request


async def read_body(http: Request, limits: EndpointLimits) -> bytes:
    """The whole body, read within ``max_body_bytes`` and ``body_timeout``.

    Raises:
        RequestError: 413 (too large) or 408 (a piece took too long), to be answered with ``CLOSE``.
        ClientDisconnect: The client went away before the body ended.
    """
    declared = _declared_length(http)
    if declared is not None and declared > limits.max_body_bytes:
        raise _too_large(limits, f"{declared} bytes (Content-Length)")
    received = bytearray()
    pieces = http.stream().__aiter__()
    while True:
        try:
            piece = await asyncio.wait_for(pieces.__anext__(), limits.body_timeout)
        except StopAsyncIteration:
            return bytes(received)
        except asyncio.TimeoutError:
            raise RequestError(
                408,
                f"the request body stopped arriving: nothing for {limits.body_timeout:g} s after {len(received)} "
                "bytes (EndpointLimits.body_timeout, toolwire serve --body-timeout)",
                code="request_timeout",
            ) from None
        if len(received) + len(piece) > limits.max_body_bytes:
            raise _too_large(limits, f"more than {limits.max_body_bytes} bytes")
        received += piece


def decode_body(raw: bytes, limits: EndpointLimits) -> Any:
    """The JSON value of a body.

    Raises:
        RequestError: 400 saying what is wrong and where (the byte offset).
    """
    if not raw.strip():
        raise RequestError(400, "the request body is empty; send a JSON object")
    state, offset, kind, _, _ = scan([raw], max_depth=limits.max_json_depth)
    if state == "incomplete":
        raise RequestError(400, "the request body is not valid JSON: it ends before its value does")
    if state == "invalid":
        if kind == "too_deep":
            raise RequestError(
                400,
                f"the request body nests arrays and objects deeper than {limits.max_json_depth} levels (at byte "
                f"{offset}; EndpointLimits.max_json_depth, toolwire serve --max-json-depth)",
            )
        why = _WHY.get(kind or "", kind or "an error")
        raise RequestError(400, f"the request body is not valid JSON: {why} at byte {offset}")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as error:
        # Valid JSON Python will not hold: an integer past sys.get_int_max_str_digits() digits.
        raise RequestError(400, f"the request body holds a value this endpoint cannot read: {error}") from None
