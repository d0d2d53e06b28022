"""The matrix's HTTP layer: request bodies the local endpoint accepts in every format, and retries against real
loopback servers that answer 429, 5xx, 4xx or too slowly before they answer 200."""

from __future__ import annotations

import asyncio
import email.utils
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from tests.support.loopback import loopback
from tests.support.server import TOOLS
from toolwire.cases._spec import parse_spec
from toolwire.cases.run._http import RetryPolicy, fetch, render_request, retry_after
from toolwire.formats import request_headers
from toolwire.registry import ToolRegistry
from toolwire.server import LocalEndpoint

FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")
SYSTEM = {"role": "system", "content": "You are the weather desk."}
USER = {"role": "user", "content": "What is the weather in Paris?"}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint() as running:
        yield running


def send(url: str, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    return httpx.post(url, json=body, headers=headers, timeout=10)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("choice", [None, "auto", "required", {"name": "get_weather"}])
def test_every_body_is_accepted_by_the_endpoint_of_its_format(endpoint: LocalEndpoint, fmt: str, choice: Any) -> None:
    spec = parse_spec(f"{fmt}:clean@{endpoint.url},temperature=0,max_tokens=300")
    url, body = render_request(spec, [SYSTEM, USER], TOOLS, choice, stream=False)
    answer = send(url, body, request_headers(spec.format, "sk-test", stream=False))
    assert answer.status_code == 200, answer.text
    received = endpoint.requests[-1]
    assert received.body == body
    assert received.headers.get("authorization" if fmt != "anthropic-messages" else "x-api-key") == "[REDACTED]"
    if fmt == "anthropic-messages":
        # The system message moves to the top-level field the Messages API has for it.
        assert body["system"] == SYSTEM["content"]
        assert body["messages"] == [USER]
        assert body["max_tokens"] == 300
    else:
        assert (body.get("messages") or body.get("input")) == [SYSTEM, USER]
        assert body["max_tokens" if fmt == "openai-chat" else "max_output_tokens"] == 300
    assert body["temperature"] == 0.0
    assert ("tool_choice" in body) is (choice is not None)


def test_the_anthropic_body_has_max_tokens_even_when_the_spec_sets_none(endpoint: LocalEndpoint) -> None:
    spec = parse_spec(f"anthropic-messages:clean@{endpoint.url}")
    url, body = render_request(spec, [USER], TOOLS, None, stream=True)
    assert body["max_tokens"] > 0 and body["stream"] is True
    assert send(url, body, request_headers(spec.format, None, stream=True)).status_code == 200


def test_params_reach_the_body_and_no_tools_means_no_tools_field() -> None:
    spec = parse_spec('openai-chat:m@http://h/v1,params.user=ci,params.metadata={"run":"1"},seed=7')
    _, body = render_request(spec, [USER], ToolRegistry(), "auto", stream=False)
    assert body["user"] == "ci" and body["metadata"] == {"run": "1"} and body["seed"] == 7
    assert "tools" not in body and "tool_choice" not in body


class Recorder:
    """An async sleep that only writes the waits down."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def scripted(answers: list[tuple[int, dict[str, str], bytes, float]]) -> tuple[type[BaseHTTPRequestHandler], list[int]]:
    """A handler that gives ``answers`` in order (status, headers, body, seconds to wait first), the last forever."""
    seen: list[int] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                status, headers, body, pause = answers[min(len(seen), len(answers) - 1)]
                seen.append(status)
            time.sleep(pause)
            try:
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler, seen


OK = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]})
LIMITED = json.dumps({"error": {"message": "Rate limit reached for requests", "type": "rate_limit"}}).encode()


def run_fetch(url: str, policy: RetryPolicy, timeout: float = 5.0) -> Any:
    async def go() -> Any:
        async with httpx.AsyncClient() as client:
            return await fetch(
                client, url, {"model": "m"}, {}, policy=policy, limit=asyncio.Semaphore(1), timeout=timeout
            )

    return asyncio.run(go())


def test_a_429_is_retried_after_the_wait_retry_after_asks_for() -> None:
    handler, seen = scripted([(429, {"Retry-After": "7"}, LIMITED, 0), (200, {}, OK.encode(), 0)])
    sleep = Recorder()
    with loopback(handler) as url:
        exchange = run_fetch(url, RetryPolicy(sleep=sleep))
    assert seen == [429, 200]
    assert exchange.body == OK.encode() and exchange.error is None
    assert sleep.waits == [7.0]
    assert len(exchange.retries) == 1
    assert "HTTP 429: Rate limit reached for requests" in exchange.retries[0]
    assert "as Retry-After asks" in exchange.retries[0]


def test_retry_after_ms_wins_and_an_http_date_is_read() -> None:
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after({"retry-after": date}, now=now) == pytest.approx(30, abs=1)
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


def test_5xx_backs_off_exponentially_with_jitter_then_gives_up_after_the_attempts() -> None:
    handler, seen = scripted([(500, {}, b'{"error": {"message": "overloaded"}}', 0)])
    sleep = Recorder()
    policy = RetryPolicy(attempts=4, base_delay=1.0, max_delay=3.0, sleep=sleep, random=lambda: 0.5)
    with loopback(handler) as url:
        exchange = run_fetch(url, policy)
    assert seen == [500] * 4
    assert exchange.body is None and not exchange.unreachable
    assert exchange.error == "gave up after 4 attempts; the last: HTTP 500: overloaded"
    # 1, 2, then 4 capped at 3; each three quarters of its ceiling with random() = 0.5 ("equal jitter").
    assert sleep.waits == [0.75, 1.5, 2.25]
    assert len(exchange.retries) == 3


@pytest.mark.parametrize("status", [502, 503, 504])
def test_a_gateway_that_stays_down_is_unreachable_after_its_retries(status: int) -> None:
    handler, seen = scripted([(status, {}, b'{"error": {"message": "upstream down"}}', 0)])
    policy = RetryPolicy(attempts=3, sleep=Recorder(), random=lambda: 0.5)
    with loopback(handler) as url:
        exchange = run_fetch(url, policy)
    assert seen == [status] * 3 and len(exchange.retries) == 2
    assert exchange.unreachable
    assert exchange.error.startswith(f"{url}: unreachable: HTTP {status} (")
    assert exchange.error.endswith("): upstream down (after 3 attempts)")


def test_an_answer_cut_after_its_status_is_retried_and_never_unreachable() -> None:
    seen: list[int] = []

    class Cut(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            seen.append(200)
            self.send_response(200)
            self.send_header("Content-Length", "100000")  # and far less comes: the connection closes mid-body
            self.end_headers()
            self.wfile.write(b"data: {")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with loopback(Cut) as url:
        exchange = run_fetch(url, RetryPolicy(attempts=2, sleep=Recorder()))
    assert seen == [200, 200] and not exchange.unreachable
    assert exchange.error.startswith("gave up after 2 attempts; the last: the answer broke off: HTTP 200, then ")


def test_jitter_stays_between_half_and_all_of_the_ceiling() -> None:
    low = RetryPolicy(base_delay=2, max_delay=100, random=lambda: 0.0)
    high = RetryPolicy(base_delay=2, max_delay=100, random=lambda: 0.999999)
    for retry in range(1, 8):
        ceiling = min(100, 2 * 2 ** (retry - 1))
        assert low.backoff(retry) == ceiling / 2
        assert ceiling / 2 < high.backoff(retry) <= ceiling


def test_a_4xx_other_than_408_and_429_is_not_retried() -> None:
    handler, seen = scripted([(401, {}, b'{"error": {"message": "Incorrect API key provided"}}', 0)])
    sleep = Recorder()
    with loopback(handler) as url:
        exchange = run_fetch(url, RetryPolicy(sleep=sleep))
    assert seen == [401]
    assert exchange.unreachable  # a refused key: the request never got to a model
    assert exchange.error.endswith(": unreachable: HTTP 401 (the credential was refused): Incorrect API key provided")
    assert sleep.waits == [] and exchange.retries == ()


def test_a_retry_after_longer_than_allowed_ends_the_attempts() -> None:
    handler, seen = scripted([(429, {"Retry-After": "3600"}, LIMITED, 0), (200, {}, OK.encode(), 0)])
    with loopback(handler) as url:
        exchange = run_fetch(url, RetryPolicy(max_retry_after=60, sleep=Recorder()))
    assert seen == [429]
    assert "retry after 3600 s, more than the 60 s allowed" in exchange.error


def test_a_timeout_is_retried() -> None:
    handler, seen = scripted([(200, {}, OK.encode(), 1.0), (200, {}, OK.encode(), 0)])
    sleep = Recorder()
    with loopback(handler) as url:
        exchange = run_fetch(url, RetryPolicy(sleep=sleep, random=lambda: 0.0), timeout=0.2)
    assert exchange.body == OK.encode()
    assert len(seen) == 2
    assert "ReadTimeout" in exchange.retries[0]


def test_a_refused_connection_is_not_retried() -> None:
    with loopback(scripted([(200, {}, b"", 0)])[0]) as url:
        pass  # the server is stopped: its port now refuses connections
    sleep = Recorder()
    exchange = run_fetch(url, RetryPolicy(sleep=sleep))
    assert exchange.body is None and exchange.unreachable
    assert exchange.error.startswith(f"{url}: unreachable: cannot connect (")
    assert sleep.waits == []


def test_a_policy_with_no_attempts_is_refused() -> None:
    with pytest.raises(ValueError, match="attempts must be an integer of at least 1"):
        RetryPolicy(attempts=0)
