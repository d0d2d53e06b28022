"""``toolwire probe`` against the local endpoint: the clean model keeps the contract, each quirk breaks its check.

The quirk table is the contract between the endpoint (which renders each quirk) and the checks (which must catch
it): every quirk must fail exactly the checks listed here, in every probe of the suite, and nothing else.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.support.loopback import loopback
from toolwire.cli import main
from toolwire.contract import UNREACHABLE_STATUSES, EndpointUnreachableError, ProbeResult, probe
from toolwire.recordings import load
from toolwire.server import QUIRKS, LocalEndpoint

# The team's own tools for `tools_accepted`: one uses anyOf, which `quirk/reject_keywords` refuses.
OWN_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "refund",
            "description": "Refund an order.",
            "parameters": {
                "type": "object",
                "properties": {"amount": {"anyOf": [{"type": "number"}, {"type": "string"}]}},
                "required": ["amount"],
            },
        },
    }
]

# quirk -> (error checks it fails, warning checks it fails), across the whole suite.
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "arguments_object": ({"arguments_string"}, set()),
    "finish_stop": ({"finish_reason"}, set()),
    "no_finish": ({"finish_reason"}, set()),
    "missing_index": ({"index_present"}, set()),
    "index_reused": ({"one_call_per_index"}, set()),
    "repeat_id": ({"id_once"}, set()),
    "repeat_name": ({"name_once"}, set()),
    "interleave": (set(), {"calls_contiguous"}),
    # No call at all, so the two cities asked for are not called either.
    "prose_when_forced": ({"forced_tool"}, {"parallel_calls"}),
    "hallucinated_name": ({"tool_names", "forced_tool"}, set()),
    "trailing_data": ({"arguments_json"}, set()),
    "truncate": ({"arguments_json", "finish_reason"}, set()),
    "empty_choices": (set(), set()),
    "delay": (set(), set()),
    "reject_keywords": ({"tools_accepted"}, set()),
    # The calls are text in content: no call, as prose_when_forced, and the text holds them (named by their dialect).
    "calls_in_content": ({"forced_tool", "calls_in_text"}, {"parallel_calls"}),
}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint() as running:
        yield running


def failed(result: ProbeResult) -> tuple[set[str], set[str]]:
    errors = {c.id for o in result.outcomes for c in o.report.failed if c.severity == "error"}
    warnings = {c.id for o in result.outcomes for c in o.report.failed if c.severity == "warning"}
    return errors, warnings


def test_the_table_covers_every_quirk_the_endpoint_knows() -> None:
    assert set(EXPECTED) == set(QUIRKS)


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_the_clean_model_passes_every_probe(endpoint: LocalEndpoint, fmt: str) -> None:
    result = probe(endpoint.url, "clean", format=fmt, tools=OWN_TOOLS)
    assert result.ok, result.render()
    assert failed(result) == (set(), set()), result.render()
    assert [o.probe for o in result.outcomes] == [
        "forced_buffered",
        "forced_streamed",
        "parallel_required",
        "choice_none",
        "strict_schema",
        "no_parameters",
        "tools_accepted",
    ]
    # The forced probes did force: every check that can apply did.
    forced = result.outcomes[1].report
    assert forced["forced_tool"].status.value == "passed"
    assert forced["arguments_valid"].status.value == "passed"


@pytest.mark.parametrize("quirk", sorted(EXPECTED))
def test_each_quirk_fails_exactly_its_checks(endpoint: LocalEndpoint, quirk: str) -> None:
    result = probe(endpoint.url, f"quirk/{quirk}", tools=OWN_TOOLS)
    assert failed(result) == EXPECTED[quirk], result.render(verbose=True)
    assert result.ok is not bool(EXPECTED[quirk][0])


def test_a_refusal_shows_the_providers_own_message(endpoint: LocalEndpoint) -> None:
    result = probe(endpoint.url, "quirk/reject_keywords", tools=OWN_TOOLS, only=["tools_accepted"])
    check = result.outcomes[0].report["tools_accepted"]
    assert "HTTP 400" in check.evidence
    assert (
        "Invalid schema for function 'refund': 'anyOf' is not supported (at /properties/amount/anyOf)" in check.evidence
    )


def closed_port() -> int:
    """A port nothing listens on (bound, then closed: the kernel refuses connections to it)."""
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return int(probe_socket.getsockname()[1])


def answering(status: int, body: bytes = b"", length: int | None = None) -> type[BaseHTTPRequestHandler]:
    """A handler answering every POST with ``status`` and ``body`` (a ``Content-Length`` of ``length`` if given)."""

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream" if status == 200 else "application/json")
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return Answer


@contextmanager
def silent_listener() -> Iterator[str]:
    """A port that takes connections (the kernel completes them) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


UNREACHABLE = [
    pytest.param(lambda ep: f"http://127.0.0.1:{closed_port()}/v1", "clean", "cannot connect (", id="refused"),
    pytest.param(lambda ep: "http://toolwire-probe.invalid/v1", "clean", "cannot connect (", id="dns"),
    pytest.param(
        lambda ep: ep.url.removesuffix("/v1"),
        "clean",
        "HTTP 404 (no such path or model): no such endpoint: POST /chat/completions",
        id="no-v1",
    ),
    pytest.param(
        lambda ep: ep.url,
        "no-such-model",
        "HTTP 404 (no such path or model): model: the model 'no-such-model' does not exist on this endpoint",
        id="unknown-model",
    ),
]


@pytest.mark.parametrize(("where", "model", "cause"), UNREACHABLE)
def test_an_endpoint_that_cannot_be_reached_is_one_line_and_exit_2(
    endpoint: LocalEndpoint, capsys: pytest.CaptureFixture[str], where: Any, model: str, cause: str
) -> None:
    base = where(endpoint)
    with pytest.raises(EndpointUnreachableError) as raised:
        probe(base, model, timeout=5)
    assert raised.value.url == base.rstrip("/") + "/chat/completions"
    assert raised.value.cause.startswith(cause), raised.value.cause
    missing = f"; the base URL {base} has no version segment: is /v1 missing?"
    assert raised.value.cause.endswith(missing) is (base == endpoint.url.removesuffix("/v1"))
    assert main(["probe", "--base-url", base, "--model", model, "--timeout", "5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"toolwire probe: {raised.value}; no probe was judged\n"
    assert captured.err.startswith(f"toolwire probe: {base.rstrip('/')}/chat/completions: unreachable: {cause}")


def test_no_scheme_is_a_usage_error_naming_the_url(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match=r"^127\.0\.0\.1:8000/v1: the base URL needs an http:// or https:// scheme"):
        probe("127.0.0.1:8000/v1", "clean")
    assert main(["probe", "--base-url", "localhost:8000/v1", "--model", "m"]) == 2
    assert capsys.readouterr().err == (
        "toolwire probe: localhost:8000/v1: the base URL needs an http:// or https:// scheme, "
        "e.g. http://localhost:8000/v1\n"
    )


def test_an_endpoint_that_never_answers_is_unreachable_after_the_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    with silent_listener() as base:
        started = time.monotonic()
        assert main(["probe", "--base-url", base, "--model", "m", "--timeout", "0.5"]) == 2
        assert time.monotonic() - started < 10
    assert capsys.readouterr().err.startswith(
        f"toolwire probe: {base}/chat/completions: unreachable: no answer within 0.5 s"
    )


@pytest.mark.parametrize(
    ("status", "meaning"),
    [
        (401, "the credential was refused"),
        (403, "the credential may not use this endpoint"),
        (405, "not an API route"),
        (429, "rate-limited or out of quota"),
        (502, "the gateway could not reach the service"),
        (503, "the service is unavailable"),
        (504, "the gateway timed out"),
    ],
)
def test_statuses_that_never_reach_a_model_are_unreachable(status: int, meaning: str) -> None:
    body = json.dumps({"error": {"message": "nope, says the gateway"}}).encode()
    with loopback(answering(status, body)) as base, pytest.raises(EndpointUnreachableError) as raised:
        probe(base + "/v1", "m")
    assert raised.value.cause == f"HTTP {status} ({meaning}): nope, says the gateway"
    assert status in UNREACHABLE_STATUSES


@pytest.mark.parametrize("status", [400, 422, 500])
def test_an_answer_of_the_api_is_judged_not_unreachable(status: int) -> None:
    body = json.dumps({"error": {"message": "tool_choice required is not supported"}}).encode()
    with loopback(answering(status, body)) as base:
        result = probe(base + "/v1", "m", only=["parallel_required"])
    check = result.outcomes[0].report["http_status"]
    assert not result.ok and check.evidence == f"HTTP {status}: tool_choice required is not supported"


def test_an_answer_cut_after_its_status_is_the_providers_and_judged() -> None:
    with loopback(answering(200, b'data: {"object": "chat.completion.chunk"', length=10_000)) as base:
        result = probe(base + "/v1", "m", only=["forced_streamed"], timeout=5)
    evidence = result.outcomes[0].report["http_status"].evidence
    assert not result.ok and evidence.startswith("no answer: the answer was cut after HTTP 200: ")


def test_probe_records_every_stream(endpoint: LocalEndpoint, tmp_path: Path) -> None:
    result = probe(endpoint.url, "clean", record=tmp_path)
    streamed = [o for o in result.outcomes if o.report.mode == "streamed"]
    assert streamed and all(o.recording is not None for o in streamed)
    for outcome in streamed:
        assert outcome.recording is not None
        recording = load(outcome.recording)
        assert recording.format == "openai-chat"
        assert recording.manifest["model"] == "clean"
    # What was recorded replays to the same verdict.
    parallel = load(tmp_path / "openai-chat" / "parallel_required.sse")
    from toolwire.contract import check_stream

    assert check_stream(parallel).ok


def test_the_command_prints_the_table_and_exits_by_the_contract(
    endpoint: LocalEndpoint, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(OWN_TOOLS), encoding="utf-8")
    assert main(["probe", "--base-url", endpoint.url, "--model", "clean", "--tools", str(tools)]) == 0
    out = capsys.readouterr().out
    assert "7 probes: contract holds" in out
    assert main(["probe", "--base-url", endpoint.url, "--model", "quirk/repeat_id"]) == 1
    out = capsys.readouterr().out
    assert "✗ id_once" in out
    assert main(["probe", "--base-url", endpoint.url, "--model", "quirk/repeat_id", "--output-format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is False
    failing = {c["id"] for p in document["probes"] for c in p["report"]["checks"] if c["status"] == "failed"}
    assert failing == {"id_once"}
    assert main(["probe", "--base-url", endpoint.url, "--model", "clean", "--output-format", "junit"]) == 0
    assert capsys.readouterr().out.lstrip().startswith("<")


def test_fail_on_warning_fails_on_a_warning_and_verbose_lists_every_check(
    endpoint: LocalEndpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["probe", "--base-url", endpoint.url, "--model", "quirk/interleave"]
    assert main(argv) == 0  # calls_contiguous is a warning
    assert "✓ finish_reason" not in capsys.readouterr().out
    assert main([*argv, "--fail-on", "warning"]) == 1
    assert main([*argv, "--fail-on", "never", "-v"]) == 0
    assert "✓ finish_reason" in capsys.readouterr().out
    assert main(["probe", "--base-url", endpoint.url, "--model", "quirk/repeat_id", "--fail-on", "never"]) == 0


def test_an_unknown_probe_is_a_usage_error(endpoint: LocalEndpoint, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "--base-url", endpoint.url, "--model", "clean", "--only", "nope"]) == 2
    assert "unknown probe(s) nope" in capsys.readouterr().err
