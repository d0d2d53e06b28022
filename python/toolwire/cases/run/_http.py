"""One request of the matrix: its body in the spec's wire format, and sending it with retries.

The body is the case's messages, tools and tool choice rendered as the format's API takes them (``toolwire.formats``,
which the live probe shares), plus the spec's sampling parameters under the format's own names and its extra
``params``. Sending retries on HTTP 429, 408 and 5xx and on timeouts and dropped connections, with exponential backoff
and jitter, honouring ``Retry-After`` (and OpenAI's ``retry-after-ms``), for a bounded number of attempts; every retry
is written down for the report. A refused connection is not retried: it says the base URL is wrong, not that the
endpoint is busy.

An exchange is *unreachable* (``toolwire._common._reach``) when the request never got to a model: no connection,
no answer before the last attempt gave up, or a 401, 403, 404, 405, 429, 502, 503 or 504 (the last three and 429
after their retries). The runner then marks the model unreachable instead of judging an answer that never came.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from toolwire._common._reach import provider_message, refusal, transport_failure
from toolwire.cases._spec import ModelSpec
from toolwire.cases._turn import tool_choice_for
from toolwire.formats import MAX_TOKENS_FIELD, REQUEST_PATHS, request_tools
from toolwire.registry import ToolRegistry

if TYPE_CHECKING:
    import httpx

__all__ = ["Exchange", "RetryPolicy", "fetch", "render_request"]

# The Messages API requires max_tokens; this leaves room for calls and a short answer.
_ANTHROPIC_MAX_TOKENS: Final = 1024


def _anthropic_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """Messages API: system messages go to the top-level ``system``; the others stay in order."""
    system, rest = [], []
    for message in messages:
        if message.get("role") in ("system", "developer"):
            content = message.get("content")
            if isinstance(content, str):
                system.append(content)
            elif isinstance(content, list):
                system.extend(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
        else:
            rest.append(dict(message))
    return ("\n\n".join(system) if system else None), rest


def render_request(
    spec: ModelSpec,
    messages: Sequence[Mapping[str, Any]],
    tools: ToolRegistry,
    tool_choice: Any,
    stream: bool,
) -> tuple[str, dict[str, Any]]:
    """The URL and JSON body of one request.

    Args:
        spec: The model spec (format, model, base URL, sampling, params).
        messages: The conversation so far, in the format's own message shape (Responses: input items).
        tools: The tools offered.
        tool_choice: The case's tool choice (None: not sent).
        stream: Ask for a streamed answer.

    Returns:
        ``(url, body)``.
    """
    fmt = spec.format
    body: dict[str, Any] = {"model": spec.model}
    if fmt == "anthropic-messages":
        system, rest = _anthropic_messages(messages)
        if system is not None:
            body["system"] = system
        body["messages"] = rest
    elif fmt == "openai-responses":
        body["input"] = [dict(message) for message in messages]
    else:
        body["messages"] = [dict(message) for message in messages]
    if len(tools):
        body["tools"] = request_tools(tools, fmt)
        if tool_choice is not None:
            body["tool_choice"] = tool_choice_for(tool_choice, fmt)
    for key, value in spec.sampling.items():
        body[MAX_TOKENS_FIELD[fmt] if key == "max_tokens" else key] = value
    if fmt == "anthropic-messages":
        body.setdefault("max_tokens", _ANTHROPIC_MAX_TOKENS)
    body.update(spec.params)
    body["stream"] = stream
    return spec.base_url + REQUEST_PATHS[fmt], body


def _random() -> float:
    return random.random()  # jitter, not cryptography


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before sending a request again.

    Attributes:
        attempts: Requests sent at most, the first included (1: never retry).
        base_delay: Seconds before the first retry; doubled for each later one.
        max_delay: The backoff never exceeds this many seconds.
        max_retry_after: A ``Retry-After`` longer than this many seconds ends the attempts instead of waiting.
        sleep: How to wait (``asyncio.sleep``; tests pass a recorder).
        random: A number in ``[0, 1)`` for the jitter.
    """

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False, repr=False)
    random: Callable[[], float] = field(default=_random, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Check the bounds."""
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) or self.attempts < 1:
            raise ValueError(f"attempts must be an integer of at least 1, got {self.attempts!r}")
        for name in ("base_delay", "max_delay", "max_retry_after"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)!r}")

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (from 1): exponential, capped, with "equal jitter".

        Half the delay is fixed and half random, so that clients that failed together do not retry together.
        """
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        return ceiling * (0.5 + 0.5 * self.random())


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a response asks for: ``retry-after-ms``, else ``Retry-After`` in seconds or as an HTTP date."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class Exchange:
    """The outcome of sending one request, retries included.

    Attributes:
        body: The body of the HTTP 200 answer; None when none came.
        error: Why there is no answer (the last status and the provider's message, or the transport error).
        retries: One line per retry: what failed and how long was waited.
        unreachable: The request never got to a model (see the module docstring); ``error`` names the URL and why.
    """

    body: bytes | None
    error: str | None = None
    retries: tuple[str, ...] = ()
    unreachable: bool = False


def _retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


class _CutAnswer(Exception):
    """An answer that began (its status line came) and broke off: the provider's, retried but never unreachable."""

    def __init__(self, status: int, error: Exception) -> None:
        super().__init__(f"HTTP {status}, then {type(error).__name__}: {error}" if str(error) else type(error).__name__)


async def _attempt(
    client: httpx.AsyncClient, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
) -> tuple[int, Mapping[str, str], bytes]:
    import httpx

    async with client.stream("POST", url, json=body, headers=dict(headers), timeout=timeout) as response:
        try:
            reads = [chunk async for chunk in response.aiter_bytes()]
        except httpx.HTTPError as error:
            raise _CutAnswer(response.status_code, error) from error
        return response.status_code, response.headers, b"".join(reads)


@dataclass(frozen=True)
class _Tried:
    """One attempt: an outcome to return as it is (``final``), or why it failed and whether to wait before the next.

    ``unreachable`` says why the request never got to a model, when that is why it failed.
    """

    final: Exchange | None = None
    reason: str = ""
    unreachable: str | None = None
    asked: float | None = None


def _unreachable(url: str, cause: str, retries: Sequence[str]) -> Exchange:
    return Exchange(None, f"{url}: unreachable: {cause}", tuple(retries), unreachable=True)


async def _try(
    client: httpx.AsyncClient,
    url: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    limit: asyncio.Semaphore,
    timeout: float,
    base_url: str,
    known_down: Callable[[], str | None] | None,
) -> _Tried:
    import httpx

    try:
        async with limit:
            # Checked once a slot is free: runs queued behind the one that found the model down are not sent.
            cause = known_down() if known_down is not None else None
            if cause is not None:
                return _Tried(final=Exchange(None, f"not sent: {cause}", unreachable=True))
            status, answer_headers, data = await _attempt(client, url, body, headers, timeout)
    except httpx.ConnectError as error:
        return _Tried(final=_unreachable(url, transport_failure(error, timeout), ()))
    except _CutAnswer as error:
        return _Tried(reason=f"the answer broke off: {error}")
    except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as error:
        reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return _Tried(reason=reason, unreachable=transport_failure(error, timeout))
    if status == 200:
        return _Tried(final=Exchange(data))
    message = provider_message(data.decode("utf-8", "replace"))
    reason = f"HTTP {status}: {message}"
    cause = refusal(status, message, base_url)
    if not _retryable(status):
        return _Tried(final=_unreachable(url, cause, ()) if cause is not None else Exchange(None, reason))
    return _Tried(reason=reason, unreachable=cause, asked=retry_after(answer_headers))


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    *,
    policy: RetryPolicy,
    limit: asyncio.Semaphore,
    timeout: float,
    base_url: str = "",
    known_down: Callable[[], str | None] | None = None,
) -> Exchange:
    """Send a request, retrying what is worth retrying.

    Args:
        client: The HTTP client.
        url: Where to POST.
        body: The JSON body.
        headers: The headers (the credential among them).
        policy: Attempts and waits.
        limit: Held while a request is in flight (not while waiting to retry), bounding concurrency.
        timeout: Seconds to wait to connect and for each read of the answer.
        base_url: The spec's base URL (a 404 or 405 below one without ``/v1`` says so); default: ``url``.
        known_down: Why the model is already known to be unreachable, or None; asked before each request is sent,
            and a cause ends the attempts with an unreachable exchange that was not sent.

    Returns:
        The answer's body, or why there is none, with the retries made.
    """
    retries: list[str] = []
    for attempt in range(1, policy.attempts + 1):
        tried = await _try(client, url, body, headers, limit, timeout, base_url or url, known_down)
        if tried.final is not None:
            return replace(tried.final, retries=tuple(retries))
        if attempt == policy.attempts:
            count = f"{attempt} attempt{'s' if attempt != 1 else ''}"
            if tried.unreachable is not None:
                return _unreachable(url, f"{tried.unreachable} (after {count})", retries)
            return Exchange(None, f"gave up after {count}; the last: {tried.reason}", tuple(retries))
        asked = tried.asked
        if asked is not None and asked > policy.max_retry_after:
            waited = (
                f"{tried.reason}; the endpoint asks to retry after {asked:.0f} s, "
                f"more than the {policy.max_retry_after:.0f} s allowed (--max-retry-after)"
            )
            if tried.unreachable is not None:
                return _unreachable(url, waited, retries)
            return Exchange(None, waited, tuple(retries))
        delay = asked if asked is not None else policy.backoff(attempt)
        why = "as Retry-After asks" if asked is not None else "backoff"
        retries.append(f"attempt {attempt}: {tried.reason}; waited {delay:.2f} s ({why})")
        await policy.sleep(delay)
    raise AssertionError("unreachable: the last attempt returns")  # pragma: no cover
