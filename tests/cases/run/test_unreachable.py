"""``toolwire matrix`` with models that cannot be reached: a closed port, an unknown model, a base URL without
``/v1``. Their cells are ``unreachable`` (not ``fail``: the model was never asked) in every report, each such model
is named once with its URL and why, and the run exits 3 whatever ``--fail-on`` says."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cases.matrix_helpers import CASE_NAMES, MODELS_SCRIPT, SUPPORT
from toolwire.cases.report import TIMES
from toolwire.cases.report._compare import compare_reports, load_report
from toolwire.cli import main
from toolwire.server import LocalEndpoint

DOWN = ("closed", "unknown", "nov1")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(MODELS_SCRIPT) as running:
        yield running


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def models(url: str) -> list[str]:
    port = closed_port()
    return [
        "--model",
        f"openai-chat:steady@{url},label=steady",
        "--model",
        f"openai-chat:steady@http://127.0.0.1:{port}/v1,label=closed",
        "--model",
        f"openai-chat:no-such-model@{url},label=unknown",
        "--model",
        f"openai-chat:steady@{url.removesuffix('/v1')},label=nov1",
    ]


def test_unreachable_models_are_a_cell_state_of_their_own_in_every_report(
    endpoint: LocalEndpoint, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = {
        kind: tmp_path / f"run.{suffix}"
        for kind, suffix in (("json", "json"), ("junit", "xml"), ("markdown", "md"), ("html", "html"))
    }
    before = len(endpoint.requests)
    argv = ["matrix", str(SUPPORT), *models(endpoint.url), "-q", "--repeat", "2"]
    written = [item for path in reports.values() for item in ("--output", str(path))]
    assert main([*argv, *written]) == 3
    captured = capsys.readouterr()
    # Once the endpoint said the model is not there, the other runs of that model are not sent.
    unknown_sent = [r for r in endpoint.requests[before:] if r.body and r.body.get("model") == "no-such-model"]
    assert 1 <= len(unknown_sent) <= 4  # the runs in flight at once (--concurrency 4)

    # stderr: one line per unreachable model, its URL and why.
    lines = captured.err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("toolwire matrix: model 'closed' is unreachable: http://127.0.0.1:")
    assert "/v1/chat/completions: unreachable: cannot connect (" in lines[0]
    assert lines[1].startswith(f"toolwire matrix: model 'unknown' is unreachable: {endpoint.url}/chat/completions")
    assert "HTTP 404 (no such path or model): model: the model 'no-such-model' does not exist" in lines[1]
    assert lines[2].endswith("is /v1 missing?") and "HTTP 404 (no such path or model): no such endpoint" in lines[2]

    # The terminal grid: the reachable column is judged, the others say unreachable.
    out = captured.out
    for name in CASE_NAMES:
        row = next(line for line in out.splitlines() if line.startswith(name))
        assert row.split()[-3:] == ["unreachable"] * 3, row
    assert "Unreachable (not judged)" in out
    assert "3 models unreachable (12 cells not judged)" in out

    # JSON: the status, the runs, the summary.
    document = json.loads(reports["json"].read_text(encoding="utf-8"))
    cells = {(cell["case"], cell["model"]): cell for cell in document["cells"]}
    assert document["ok"] is False
    assert document["summary"]["cells_unreachable"] == 12 and document["summary"]["runs_unreachable"] == 24
    for (_case, model), cell in cells.items():
        if model in DOWN:
            assert cell["status"] == "unreachable" and cell["ok"] is False and cell["codes"] == ["unreachable"]
            assert all(run["unreachable"] and not run["passed"] for run in cell["repeats"])
        else:
            assert cell["status"] != "unreachable" and not any(run["unreachable"] for run in cell["repeats"])

    # JUnit: an error of type unreachable, never a failure.
    suites = {suite.get("name"): suite for suite in ET.fromstring(reports["junit"].read_text(encoding="utf-8"))}
    for label in DOWN:
        suite = suites[label]
        assert suite.get("errors") == "4" and suite.get("failures") == "0"
        for case in suite.iter("testcase"):
            (error,) = case.findall("error")
            assert error.get("type") == "unreachable" and error.get("message", "").startswith("unreachable: ")
            assert not case.findall("failure")

    # Markdown and HTML say it too.
    markdown = reports["markdown"].read_text(encoding="utf-8")
    assert "**Unreachable (not judged)**" in markdown
    assert all(line.count("| unreachable ") == 3 for line in markdown.splitlines() if line.startswith("| `"))
    html = reports["html"].read_text(encoding="utf-8")
    assert html.count('<td class="cell unreachable"') == 12 and '<section id="unreachable">' in html
    assert "not judged: the model could not be reached" in html


def test_unreachable_is_exit_3_under_every_policy_and_a_reachable_run_is_not(
    endpoint: LocalEndpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    down = models(endpoint.url)[2:4]
    for policy in ("error", "warning", "never"):
        assert main(["matrix", str(SUPPORT), *down, "-q", "--fail-on", policy]) == 3
    steady = models(endpoint.url)[:2]
    assert main(["matrix", str(SUPPORT), *steady, "-q", "--case", "opening hours"]) == 0
    capsys.readouterr()


def test_compare_does_not_read_an_unreachable_model_as_a_regression(
    endpoint: LocalEndpoint, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monday, tuesday = tmp_path / "monday.json", tmp_path / "tuesday.json"
    reachable = f"openai-chat:steady@{endpoint.url},label=support-bot"
    down = f"openai-chat:steady@http://127.0.0.1:{closed_port()}/v1,label=support-bot"
    assert main(["matrix", str(SUPPORT), "--model", reachable, "-q", "--output", str(monday)]) == 1
    assert main(["matrix", str(SUPPORT), "--model", down, "-q", "--output", str(tuesday)]) == 3
    capsys.readouterr()
    comparison = compare_reports(load_report(monday), load_report(tuesday))
    assert comparison.of("regressed") == () and comparison.of("fixed") == ()
    assert len(comparison.of("unreachable")) == 4
    assert main(["matrix", "--compare", str(monday), str(tuesday)]) == 0
    out = capsys.readouterr().out
    assert "Not compared: the model could not be reached (4):" in out
    assert f"opening hours {TIMES} support-bot: unreachable in the new run" in out
    assert out.rstrip().endswith(
        "0 regressed, 0 fixed, 0 dropped, 0 improved, 0 with other failures, 0 unchanged, 4 not compared (unreachable)"
    )


def test_a_model_that_never_answers_is_unreachable_after_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as listener:  # takes connections (the kernel completes them) and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        argv = ["matrix", str(SUPPORT), "--model", f"openai-chat:m@{url},label=silent", "-q"]
        assert main([*argv, "--timeout", "0.5", "--attempts", "1", "--case", "opening hours"]) == 3
    err = capsys.readouterr().err
    assert err == (
        f"toolwire matrix: model 'silent' is unreachable: {url}/chat/completions: unreachable: "
        "no answer within 0.5 s (after 1 attempt)\n"
    )
