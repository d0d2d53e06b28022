"""``toolstream probe`` against the local endpoint: the clean model keeps the contract, each quirk breaks its check.

The quirk table is the contract between the endpoint (which renders each quirk) and the checks (which must catch
it): every quirk must fail exactly the checks listed here, in every probe of the suite, and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolstream.cli import main
from toolstream.contract import ProbeResult, probe
from toolstream.recordings import load
from toolstream.server import QUIRKS, LocalEndpoint

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


def test_an_endpoint_that_is_not_there_fails_every_probe_without_raising(tmp_path: Path) -> None:
    result = probe("http://127.0.0.1:9/v1", "clean", timeout=2, only=["forced_buffered", "choice_none"])
    assert not result.ok
    assert {check.id for o in result.outcomes for check in o.report.failed} == {"http_status"}
    assert "no answer" in result.outcomes[0].report["http_status"].evidence


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
    from toolstream.contract import check_stream

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
    assert main(["probe", "--base-url", endpoint.url, "--model", "quirk/repeat_id", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is False
    failing = {c["id"] for p in document["probes"] for c in p["report"]["checks"] if c["status"] == "failed"}
    assert failing == {"id_once"}
    assert main(["probe", "--base-url", endpoint.url, "--model", "clean", "--output", "junit"]) == 0
    assert capsys.readouterr().out.lstrip().startswith("<")


def test_an_unknown_probe_is_a_usage_error(endpoint: LocalEndpoint, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "--base-url", endpoint.url, "--model", "clean", "--only", "nope"]) == 2
    assert "unknown probe(s) nope" in capsys.readouterr().err
