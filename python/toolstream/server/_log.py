"""The log of requests an endpoint received, with credentials removed before anything is kept."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["REDACTED", "RecordedRequest", "record"]

#: What a credential header's value is replaced with.
REDACTED: Final = "[REDACTED]"

# Headers that carry credentials in the formats (and proxies) a client may use against the endpoint.
_SECRET_HEADERS: Final = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie", "set-cookie"}
)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the endpoint received it.

    Attributes:
        method: The HTTP method.
        path: The URL path (``/v1/chat/completions``).
        body: The decoded JSON body; None when there was no body or it was not JSON.
        headers: The headers, names lower-cased, credential values replaced with ``"[REDACTED]"``.
    """

    method: str
    path: str
    body: Any
    headers: Mapping[str, str]


def decode_body(raw: bytes) -> tuple[Any, str | None]:
    """The JSON value of a request body, or None and why it is not one."""
    if not raw.strip():
        return None, "the request body is empty; send a JSON object"
    try:
        return json.loads(raw), None
    except UnicodeDecodeError:
        return None, "the request body is not UTF-8 text"
    except json.JSONDecodeError as error:
        return None, f"the request body is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"


def record(method: str, path: str, body: Any, headers: Iterable[tuple[str, str]]) -> RecordedRequest:
    """A log entry for a request, its credential headers redacted.

    Args:
        method: The HTTP method.
        path: The URL path.
        body: The decoded JSON body, or None.
        headers: The header (name, value) pairs as received.

    Returns:
        The entry.
    """
    kept = {name.lower(): REDACTED if name.lower() in _SECRET_HEADERS else value for name, value in headers}
    return RecordedRequest(method, path, body, kept)
