"""Whether an endpoint was reached at all: the line between "the endpoint is down or wrong" and "the provider broke".

A probe or a matrix run that cannot reach the model must not read as a model that failed: CI has to tell a typo in
the base URL from a provider that breaks the contract. An endpoint is *unreachable* when no HTTP answer came (the
connection was refused, the host does not resolve, TLS failed, nothing arrived within the timeout, the connection
closed before a status line), or when the answer says the request never got to a model:

- 404: no such path (the base URL lacks ``/v1``, say) or no such model (OpenAI's ``model_not_found``);
- 405: the path is not an API route;
- 401, 403: the credential was refused;
- 429: the account is rate-limited or out of quota;
- 502, 503, 504: the gateway could not reach the service behind it.

Any other answer (200, 400, 422, 500, ...) came from the API and is judged: a provider that refuses a forced tool
choice with a 400 breaks the contract. An answer cut after its status line is judged too (a stream that stalls is
the provider's). ``toolwire probe`` exits 2 on an unreachable endpoint, ``toolwire matrix`` marks the cell
``unreachable`` and exits 3.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from toolwire.errors import ToolwireError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "UNREACHABLE_STATUSES",
    "EndpointUnreachableError",
    "check_base_url",
    "provider_message",
    "refusal",
    "transport_failure",
]

#: The HTTP statuses that say a request never got to a model (see the module docstring).
UNREACHABLE_STATUSES: Final = frozenset({401, 403, 404, 405, 429, 502, 503, 504})

_WHAT: Final = {
    401: "the credential was refused",
    403: "the credential may not use this endpoint",
    404: "no such path or model",
    405: "not an API route",
    429: "rate-limited or out of quota",
    502: "the gateway could not reach the service",
    503: "the service is unavailable",
    504: "the gateway timed out",
}
_VERSION_SEGMENT: Final = re.compile(r"/v\d+[a-z0-9]*$")
# A provider's refusal can be long (a whole schema echoed back); the report keeps enough to act on.
_MESSAGE_CHARS: Final = 600


class EndpointUnreachableError(ToolwireError, ConnectionError):
    """The endpoint could not be asked: no answer came, or the answer says the request never got to a model.

    Attributes:
        url: The URL that was asked.
        cause: Why, in one line (the connection error, or the status and the provider's message).
    """

    def __init__(self, url: str, cause: str) -> None:
        """Keep the URL and the cause; ``str()`` is one line naming both."""
        self.url = url
        self.cause = cause
        super().__init__(f"{url}: unreachable: {cause}")


def check_base_url(base_url: str) -> str:
    """The base URL without a trailing slash, when it can be asked at all.

    Raises:
        ValueError: It has no ``http://`` or ``https://`` scheme, or no host (naming the URL and the fix).
    """
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - reading it is what checks it
    except ValueError as error:
        raise ValueError(f"{base_url}: not a URL ({error}); write e.g. http://localhost:8000/v1") from None
    if parts.scheme not in ("http", "https"):
        guess = base_url.split("://", 1)[-1]
        raise ValueError(f"{base_url}: the base URL needs an http:// or https:// scheme, e.g. http://{guess}")
    if not parts.hostname:
        raise ValueError(f"{base_url}: the base URL names no host, e.g. http://localhost:8000/v1")
    return base_url.rstrip("/")


def provider_message(text: str) -> str:
    """The message of an error body in OpenAI's or Anthropic's shape, else the body itself, clipped."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error if isinstance(error, str) else None
    found = message if isinstance(message, str) and message else text.strip() or "(empty body)"
    return found if len(found) <= _MESSAGE_CHARS else found[: _MESSAGE_CHARS - 1] + "…"


def refusal(status: int, message: str, base_url: str) -> str | None:
    """Why an answer with ``status`` says the endpoint was not reached, or None when the answer is the API's own."""
    if status not in UNREACHABLE_STATUSES:
        return None
    cause = f"HTTP {status} ({_WHAT[status]}): {message}"
    if status in (404, 405) and not _VERSION_SEGMENT.search(urlsplit(base_url).path.rstrip("/")):
        cause += f"; the base URL {base_url} has no version segment: is /v1 missing?"
    return cause


def transport_failure(error: httpx.HTTPError, timeout: float) -> str:
    """Why no answer came, in one line."""
    import httpx

    detail = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, httpx.ConnectTimeout):
        return f"no connection within {timeout:g} s"
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect ({detail})"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"the connection closed before an answer ({detail})"
    return f"{type(error).__name__}: {detail}"
