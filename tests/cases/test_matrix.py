"""``toolwire matrix`` end to end: the four cases of ``examples/support.yaml`` against two scripted models of the
local endpoint, in every wire format, streamed and buffered; repeats and thresholds, retries, the cache and
``--offline``, ``--compare`` on two real runs, the reports and the exit status."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cases.matrix_helpers import (
    CASE_NAMES,
    MODELS_SCRIPT,
    SUPPORT,
    VERDICTS,
    alternating,
    rate_limited_once,
    sequenced,
    write_flaky_cases,
)
from tests.support.loopback import loopback
from toolwire.cases import load_cases
from toolwire.cases._spec import parse_spec
from toolwire.cases.report import MatrixResult
from toolwire.cases.report._compare import compare_reports, load_report
from toolwire.cases.report._junit import render_junit
from toolwire.cases.report._markdown import render_markdown
from toolwire.cases.report._text import MARKS, print_rich, render_text
from toolwire.cases.run._progress import ProgressBar
from toolwire.cases.run._run import RunProgress, run_matrix
from toolwire.cli import main
from toolwire.server import LocalEndpoint

FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(MODELS_SCRIPT) as running:
        yield running


@pytest.fixture(scope="module")
def cases() -> Any:
    return load_cases(SUPPORT).cases


def verdicts(result: MatrixResult) -> dict[tuple[str, str], set[str]]:
    """Each cell's failure codes by (case, scripted model), the label being the scripted model's name."""
    return {(cell.case, cell.model): set(cell.codes) for cell in result.cells}


def specs(url: str, fmt: str, *extra: str) -> list[Any]:
    options = "".join(f",{option}" for option in extra)
    return [parse_spec(f"{fmt}:{model}@{url}{options},label={model}") for model in ("steady", "eager")]


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "buffered"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_each_model_passes_what_it_does_right_in_every_format(
    endpoint: LocalEndpoint, cases: Any, fmt: str, stream: bool
) -> None:
    result = run_matrix(cases, specs(endpoint.url, fmt), source=str(SUPPORT), stream=stream, concurrency=3)
    assert result.labels == ("steady", "eager")
    assert [info.name for info in result.cases] == list(CASE_NAMES)
    assert verdicts(result) == VERDICTS
    for cell in result.cells:
        assert cell.total == 1
        assert cell.ok is (not VERDICTS[(cell.case, cell.model)])
        run = cell.runs[0]
        assert run.error is None and run.result is not None and run.retries == ()
        assert all(turn.format == fmt for turn in run.result.turns)
    # The agent loop: lookup, cancel, then the final answer; the eager model stops after its one call.
    assert len(result.cell("cancel subscription", "steady").runs[0].result.turns) == 3  # type: ignore[union-attr]
    assert len(result.cell("cancel subscription", "eager").runs[0].result.turns) == 2  # type: ignore[union-attr]
    assert result.exit_status("threshold") == 1 and result.exit_status("never") == 0
    # The wire format's own request went out: one per turn, in the format's path, streamed as asked.
    paths = {
        "openai-chat": "/v1/chat/completions",
        "openai-responses": "/v1/responses",
        "anthropic-messages": "/v1/messages",
    }
    sent = endpoint.requests[-result.summary()["sent_turns"] :]
    assert {request.path for request in sent} == {paths[fmt]}
    assert {request.body["stream"] for request in sent} == {stream}


def test_a_spec_streams_or_not_whatever_the_default(endpoint: LocalEndpoint, cases: Any) -> None:
    models = [parse_spec(f"openai-chat:steady@{endpoint.url},stream=false")]
    before = len(endpoint.requests)
    run_matrix(cases[:1], models, stream=True)
    assert [request.body["stream"] for request in endpoint.requests[before:]] == [False]


def test_the_command_prints_the_grid_writes_every_report_and_exits_1(
    endpoint: LocalEndpoint, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = {
        kind: tmp_path / f"matrix.{suffix}"
        for kind, suffix in (("json", "json"), ("junit", "xml"), ("html", "html"), ("markdown", "md"))
    }
    argv = [
        "matrix",
        str(SUPPORT),
        "--model",
        f"openai-chat:steady@{endpoint.url}",
        "--model",
        f"anthropic-messages:eager@{endpoint.url}",
    ]
    for path in reports.values():
        argv += ["--output", str(path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    document = load_report(reports["json"])
    # The grid: one line per case, its cells in column order, each k/n with its mark.
    for name in CASE_NAMES:
        line = next(line for line in out.splitlines() if line.startswith(name))
        cells = [c for c in document["cells"] if c["case"] == name]
        expected = [f"{c['passed']}/{c['total']} {MARKS[c['status']]}" for c in cells]
        assert line.split()[-4:] == " ".join(expected).split()
    assert "What failed" in out and "schema_violation" in out and "- /priority:" in out
    assert f"{document['summary']['cells_below_threshold']} of 8 cells below threshold" in out
    # Every failure with its diff is in the JSON.
    ticket = next(c for c in document["cells"] if c["case"] == "urgent ticket" and c["model"] == "steady")
    failure = ticket["repeats"][0]["result"]["failures"][0]
    assert failure["code"] == "schema_violation" and failure["diff"].startswith("- /priority")
    assert '+ /priority: "critical"' in failure["diff"]
    contract = ticket["repeats"][0]["result"]["turns"][0]["contract"]
    assert any(check["id"] == "arguments_valid" and check["status"] == "failed" for check in contract["checks"])
    assert reports["html"].read_text(encoding="utf-8").startswith("<!doctype html>")
    assert "| `urgent ticket` |" in reports["markdown"].read_text(encoding="utf-8")
    ET.fromstring(reports["junit"].read_text(encoding="utf-8").split("\n", 1)[1])


def test_junit_has_one_testcase_per_case_and_model(endpoint: LocalEndpoint, cases: Any) -> None:
    result = run_matrix(cases, specs(endpoint.url, "openai-chat"))
    root = ET.fromstring(render_junit(result).split("\n", 1)[1])
    assert root.tag == "testsuites"
    assert [suite.get("name") for suite in root] == ["steady", "eager"]
    for suite in root:
        testcases = suite.findall("testcase")
        assert [case.get("name") for case in testcases] == list(CASE_NAMES)
        failing = {name for (name, model), codes in VERDICTS.items() if model == suite.get("name") and codes}
        assert {case.get("name") for case in testcases if case.find("failure") is not None} == failing
        assert suite.get("failures") == str(len(failing)) and suite.get("tests") == "4"
        for case in testcases:
            failure = case.find("failure")
            if failure is not None:
                codes = VERDICTS[(case.get("name"), suite.get("name"))]  # type: ignore[index]
                assert set(failure.get("type", "").split()) == codes
                assert "0/1 passed" in failure.get("message", "")
    assert root.get("tests") == "8" and root.get("failures") == str(sum(bool(c) for c in VERDICTS.values()))


def test_markdown_folds_each_failing_cell_with_its_diff(endpoint: LocalEndpoint, cases: Any) -> None:
    result = run_matrix(cases, specs(endpoint.url, "openai-chat"))
    text = render_markdown(result)
    assert "| case | steady | eager |" in text
    assert text.count("<details>") == sum(bool(codes) for codes in VERDICTS.values())
    assert "```diff\n  - (no tool call)\n  + create_ticket" in text


def test_rich_draws_the_same_grid(endpoint: LocalEndpoint, cases: Any) -> None:
    result = run_matrix(cases, specs(endpoint.url, "openai-chat"))
    out = io.StringIO()
    print_rich(result, out)
    drawn = out.getvalue()
    for info in result.cases:
        row = next(line for line in drawn.splitlines() if info.name in line)
        for label in result.labels:
            assert f"{result.cell(info.name, label).fraction} {MARKS[result.cell(info.name, label).status]}" in row
    assert "What failed" in drawn


def test_the_text_grid_is_coloured_by_status_on_request(endpoint: LocalEndpoint, cases: Any) -> None:
    result = run_matrix(cases, specs(endpoint.url, "openai-chat"))
    plain, coloured = render_text(result), render_text(result, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[32m1/1 ✓" in coloured and "\x1b[31m0/1 ✗" in coloured


def test_repeats_give_k_of_n_and_thresholds_decide_the_exit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    handler, _ = sequenced(alternating)
    cases_file = write_flaky_cases(tmp_path)
    with loopback(handler) as base:
        argv = [
            "matrix",
            str(cases_file),
            "--model",
            f"openai-chat:flaky@{base}/v1",
            "--repeat",
            "4",
            "--no-stream",
            "--output",
            str(tmp_path / "r.json"),
        ]
        assert main(argv) == 1
        document = load_report(tmp_path / "r.json")
        cells = {cell["case"]: cell for cell in document["cells"]}
        # Two of four repeats of each case got the right city: enough for 0.5, not for 1.0.
        assert (cells["lenient"]["passed"], cells["lenient"]["total"], cells["lenient"]["ok"]) == (2, 4, True)
        assert cells["lenient"]["status"] == "flaky"
        assert (cells["strict"]["passed"], cells["strict"]["total"], cells["strict"]["ok"]) == (2, 4, False)
        assert cells["strict"]["codes"] == ["value_mismatch"]
        out = capsys.readouterr().out
        assert "2/4 ~" in out and "2/4 ✗" in out
        assert main([*argv, "--case", "lenient"]) == 0
        assert main([*argv, "--case", "lenient", "--fail-on", "warning"]) == 1
        assert main([*argv, "--fail-on", "never"]) == 0


def test_a_rate_limited_request_is_retried_and_counted(tmp_path: Path) -> None:
    handler, asked = sequenced(rate_limited_once)
    cases = load_cases(write_flaky_cases(tmp_path)).cases
    with loopback(handler) as base:
        result = run_matrix(cases, [parse_spec(f"openai-chat:m@{base}/v1")], stream=False)
    assert dict(asked) == {"Weather in Paris?": 2, "Weather in Oslo?": 2}
    assert all(cell.ok and cell.status == "pass" and cell.retries == 1 for cell in result.cells)
    retry = result.cells[0].runs[0].retries[0]
    assert retry.startswith("turn 0, attempt 1: HTTP 429: Rate limit reached") and "Retry-After" in retry
    assert result.summary()["retries"] == 2
    assert "retried (repeat 1): turn 0, attempt 1: HTTP 429" not in render_text(result)  # passing cells stay quiet
    assert result.as_dict()["cells"][0]["retries"] == 1


def test_without_retries_a_rate_limit_is_an_unreachable_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 429 on the last attempt: the request never got to the model, so its cells are unreachable, not failed."""
    handler, _ = sequenced(rate_limited_once)
    cases_file = write_flaky_cases(tmp_path)
    with loopback(handler) as base:
        junit = tmp_path / "junit.xml"
        argv = ["matrix", str(cases_file), "--model", f"openai-chat:m@{base}/v1", "--no-stream", "--attempts", "1"]
        code = main([*argv, "--output", str(junit)])
    captured = capsys.readouterr()
    assert code == 3
    assert "unreachable" in captured.out and "0/1 !" not in captured.out
    cause = "unreachable: HTTP 429 (rate-limited or out of quota): Rate limit reached (after 1 attempt)"
    assert cause in captured.out and cause in captured.err
    root = ET.fromstring(junit.read_text(encoding="utf-8").split("\n", 1)[1])
    errors = root.findall("./testsuite/testcase/error")
    assert len(errors) == 2 and root.get("errors") == "2" and root.get("failures") == "0"
    assert {error.get("type") for error in errors} == {"unreachable"}
    assert "HTTP 429" in (errors[0].get("message") or "")


def test_the_cache_answers_a_rerun_offline_and_never_holds_the_key(
    endpoint: LocalEndpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    models = [
        "--model",
        f"openai-chat:steady@{endpoint.url},key_env=MATRIX_KEY",
        "--model",
        f"anthropic-messages:eager@{endpoint.url},key_env=MATRIX_KEY",
    ]
    monkeypatch.setenv("MATRIX_KEY", "sk-first-secret")
    first = ["matrix", str(SUPPORT), *models, "--cache", str(cache), "--output", str(tmp_path / "first.json")]
    assert main(first) == 1
    sent = load_report(tmp_path / "first.json")["summary"]
    assert sent["sent_turns"] == len(list(cache.glob("??/*.json"))) > 0 and sent["cached_turns"] == 0
    assert all("sk-first-secret" not in path.read_text(encoding="utf-8") for path in cache.glob("??/*.json"))

    # Another key, offline: every answer from the cache, not one request sent, the same verdicts.
    monkeypatch.setenv("MATRIX_KEY", "sk-second-secret")
    requests = len(endpoint.requests)
    second = ["matrix", str(SUPPORT), *models, "--cache", str(cache), "--offline", "--output", str(tmp_path / "2.json")]
    assert main(second) == 1
    assert len(endpoint.requests) == requests
    again = load_report(tmp_path / "2.json")
    assert again["summary"]["cached_turns"] == sent["sent_turns"] and again["summary"]["sent_turns"] == 0
    assert [(c["case"], c["model"], c["codes"]) for c in again["cells"]] == [
        (c["case"], c["model"], c["codes"]) for c in load_report(tmp_path / "first.json")["cells"]
    ]
    capsys.readouterr()

    # A model the cache has never seen: a clear error naming the case and the model, exit 2.
    third = [
        "matrix",
        str(SUPPORT),
        "--model",
        f"openai-chat:steady@{endpoint.url},temperature=0",
        "--cache",
        str(cache),
        "--offline",
    ]
    assert main(third) == 2
    error = capsys.readouterr().err
    assert "no cached answer for case 'opening hours'" in error and "model 'steady'" in error
    assert "run once without --offline" in error
    assert main(["matrix", str(SUPPORT), *models, "--offline"]) == 2
    assert "--offline reads answers from the cache only: give --cache DIR" in capsys.readouterr().err


def test_repeats_are_cached_apart(tmp_path: Path) -> None:
    handler, asked = sequenced(alternating)
    cases = load_cases(write_flaky_cases(tmp_path)).cases[:1]
    with loopback(handler) as base:
        model = [parse_spec(f"openai-chat:flaky@{base}/v1")]
        first = run_matrix(cases, model, repeat=4, stream=False, cache=tmp_path / "cache")
        offline = run_matrix(cases, model, repeat=4, stream=False, cache=tmp_path / "cache", offline=True)
    assert asked["Weather in Paris?"] == 4 and len(list((tmp_path / "cache").glob("??/*.json"))) == 4
    # Each repeat reads back its own answer, so the same repeats pass.
    assert [run.passed for run in offline.cells[0].runs] == [run.passed for run in first.cells[0].runs]
    assert sorted(run.passed for run in first.cells[0].runs) == [False, False, True, True]
    assert offline.summary()["cached_turns"] == 4


def test_an_unset_key_env_is_an_error_naming_the_variable(
    endpoint: LocalEndpoint, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MATRIX_UNSET_KEY", raising=False)
    code = main(["matrix", str(SUPPORT), "--model", f"openai-chat:steady@{endpoint.url},key_env=MATRIX_UNSET_KEY"])
    assert code == 2
    assert "$MATRIX_UNSET_KEY is not set" in capsys.readouterr().err


def test_compare_reports_what_changed_between_two_real_runs(
    endpoint: LocalEndpoint, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    # The old run: "bot" is the steady model. The new run: "bot" silently became the eager one, a model was
    # swapped for another, and one case was left out.
    assert (
        main(
            [
                "matrix",
                str(SUPPORT),
                "--output",
                str(old),
                "--model",
                f"openai-chat:steady@{endpoint.url},label=bot",
                "--model",
                f"openai-chat:eager@{endpoint.url},label=other",
            ]
        )
        == 1
    )
    assert (
        main(
            [
                "matrix",
                str(SUPPORT),
                "--output",
                str(new),
                *[part for name in CASE_NAMES[:3] for part in ("--case", name)],
                "--model",
                f"openai-chat:eager@{endpoint.url},label=bot",
                "--model",
                f"anthropic-messages:steady@{endpoint.url},label=fresh",
            ]
        )
        == 1
    )
    capsys.readouterr()

    before, after = load_report(old), load_report(new)
    comparison = compare_reports(before, after, old_name="old.json", new_name="new.json")
    was = {(c["case"], c["model"]): c["ok"] for c in before["cells"]}
    now = {(c["case"], c["model"]): c["ok"] for c in after["cells"]}
    both = was.keys() & now.keys()
    assert {(c.case, c.model) for c in comparison.of("regressed")} == {k for k in both if was[k] and not now[k]}
    assert {(c.case, c.model) for c in comparison.of("fixed")} == {k for k in both if now[k] and not was[k]}
    assert {(c.case, c.model) for c in comparison.of("regressed")} == {
        ("opening hours", "bot"),
        ("cancel subscription", "bot"),
        ("weather in two cities", "bot"),
    }
    assert comparison.models_added == ("fresh",) and comparison.models_removed == ("other",)
    assert comparison.cases_removed == ("urgent ticket",) and comparison.cases_added == ()
    regression = next(c for c in comparison.of("regressed") if c.case == "opening hours")
    assert (regression.old, regression.new, regression.delta) == ((1, 1, True), (0, 1, False), -1.0)
    assert regression.new_codes == ("unexpected_call",)

    assert main(["matrix", "--compare", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "Newly below threshold (3):" in out
    assert f"opening hours {chr(215)} bot: 1/1 → 0/1 (-100%)  codes: — → unexpected_call" in out
    assert "Models added: fresh" in out and "Models removed: other" in out and "Cases removed: urgent ticket" in out
    assert main(["matrix", "--compare", str(old), str(new), "--fail-on", "never"]) == 0
    assert main(["matrix", "--compare", str(old), str(old)]) == 0
    assert "No change" in capsys.readouterr().out
    assert main(["matrix", "--compare", str(old), str(new), "--output-format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["regressed"] == 3 and data["models_added"] == ["fresh"]


def test_compare_refuses_a_file_that_is_not_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something/else"}', encoding="utf-8")
    assert main(["matrix", "--compare", str(other), str(other)]) == 2
    assert "not a matrix report" in capsys.readouterr().err


def test_the_progress_bar_counts_every_run_on_a_terminal(endpoint: LocalEndpoint, cases: Any) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    drawn, quiet = Terminal(), io.StringIO()
    seen: list[RunProgress] = []
    bar, silent = ProgressBar(drawn), ProgressBar(quiet)

    def both(progress: RunProgress) -> None:
        seen.append(progress)
        bar(progress)
        silent(progress)

    with bar:
        run_matrix(cases, specs(endpoint.url, "openai-chat"), on_progress=both)
    assert [progress.done for progress in seen] == list(range(1, 9)) and {p.total for p in seen} == {8}
    frames = drawn.getvalue().split("\r\x1b[2K")
    assert frames[-1] == ""  # cleared at the end
    assert "matrix [" in frames[-2] and " 8/8 " in frames[-2]
    assert f"{sum(bool(c) for c in VERDICTS.values())} failed" in frames[-2]
    assert quiet.getvalue() == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["matrix", str(SUPPORT)], "give at least one --model SPEC or a --models FILE"),
        (["matrix", "--model", "openai-chat:m"], "give a case file"),
        (["matrix", str(SUPPORT), "--model", "openai:m"], "unknown format 'openai'"),
        (["matrix", str(SUPPORT), "--model", "openai-chat:m", "--case", "nope"], "--case nope: not in"),
        (["matrix", str(SUPPORT), "--model", "openai-chat:m", "--repeat", "0"], "repeat must be an integer"),
        (["matrix", "--compare", "a.json", "b.json", "--model", "openai-chat:m"], "takes no case file and no models"),
    ],
)
def test_usage_errors_exit_2_with_a_message(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
