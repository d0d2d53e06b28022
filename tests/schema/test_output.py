"""The schema commands' shared layer: findings, levels, project configuration, and every output format."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.support.paths import REPO
from toolwire.schema import Finding, FindingReport, load_config, render
from toolwire.schema._findings import level_reaches, sorted_findings

FINDINGS = (
    Finding("duplicate-name", "error", "declared twice", tool="get_weather", origin="tools.yaml#1"),
    Finding(
        "openai-strict/open-object",
        "warning",
        "object without additionalProperties: false",
        tool="refund",
        pointer="/properties/meta",
        origin="tools.jsonl:7",
        target="openai-strict",
        effect="reject",
        source="https://platform.openai.com/docs (2026-10-01)",
    ),
    Finding("property-description-missing", "info", "no description, so the model guesses", tool="refund"),
)
REPORT = FindingReport("check", FINDINGS, subjects=("get_weather", "refund", "clean_tool"))


def test_levels_order_and_never() -> None:
    assert level_reaches("error", "warning") and not level_reaches("info", "warning")
    assert not level_reaches("error", "never")
    with pytest.raises(ValueError, match="a level is one of"):
        level_reaches("fatal", "error")


def test_exit_code_follows_fail_on() -> None:
    assert REPORT.counts() == {"info": 1, "warning": 1, "error": 1}
    assert REPORT.exit_code("error") == 1
    info_only = FindingReport("check", FINDINGS[2:])
    assert info_only.exit_code("error") == 0 and info_only.exit_code("info") == 1
    assert REPORT.exit_code("never") == 0


def test_configured_levels_rewrite_or_remove_findings() -> None:
    adjusted = REPORT.with_levels({"duplicate-name": "warning", "openai-strict/*": "off"})
    assert [(f.rule, f.level) for f in adjusted.findings] == [
        ("duplicate-name", "warning"),
        ("property-description-missing", "info"),
    ]
    # The most specific entry wins over a wildcard.
    kept = REPORT.with_levels({"openai-strict/*": "off", "openai-strict/open-object": "error"})
    assert [f.level for f in kept.findings if f.target] == ["error"]
    with pytest.raises(ValueError, match="rule 'x': a level is one of"):
        REPORT.with_levels({"x": "loud"})


def test_sorted_by_origin_tool_pointer() -> None:
    assert [f.origin for f in sorted_findings(reversed(FINDINGS))] == [None, "tools.jsonl:7", "tools.yaml#1"]


def test_text_is_a_table_with_a_summary() -> None:
    text = render(REPORT, "text")
    lines = text.splitlines()
    assert lines[0].split() == ["level", "rule", "where", "finding"]
    assert "refund /properties/meta [openai-strict]" in text
    assert lines[-1] == "toolwire check: 3 checked; 1 error, 1 warning, 1 info"
    assert (
        render(FindingReport("check", (), ("a",)), "text") == "toolwire check: 1 checked; 0 errors, 0 warnings, 0 infos"
    )


def test_text_on_a_terminal_is_drawn_by_rich() -> None:
    drawn = render(REPORT, "text", color=True, width=160)
    assert "\x1b[" in drawn and "duplicate-name" in drawn and "┃" in drawn


def test_json_holds_everything() -> None:
    document = json.loads(
        render(FindingReport("lint", FINDINGS, extra={"matrix": {"refund": {"gemini": "ok"}}}), "json")
    )
    assert document["counts"] == {"info": 1, "warning": 1, "error": 1}
    assert document["ok"] is False
    assert document["matrix"] == {"refund": {"gemini": "ok"}}
    assert document["findings"][1] == {
        "rule": "openai-strict/open-object",
        "level": "warning",
        "message": "object without additionalProperties: false",
        "tool": "refund",
        "pointer": "/properties/meta",
        "origin": "tools.jsonl:7",
        "target": "openai-strict",
        "effect": "reject",
        "source": "https://platform.openai.com/docs (2026-10-01)",
    }


def test_markdown_escapes_pipes() -> None:
    report = FindingReport("check", (Finding("r", "error", "a | b", tool="t"),))
    markdown = render(report, "markdown", extra_sections=["matrix here"])
    assert markdown.startswith("matrix here\n\n### toolwire check")
    assert "| error | `r` | `t` | a \\| b |" in markdown


def test_github_annotations_escape_and_place() -> None:
    report = FindingReport(
        "check", (Finding("a:b", "warning", "50% off\nnext", tool="t", origin="dir/tools.jsonl:12"),)
    )
    first = render(report, "github").splitlines()[0]
    assert first == "::warning file=dir/tools.jsonl,line=12,title=a%3Ab::t: 50%25 off%0Anext"
    assert render(FindingReport("check", (FINDINGS[2],)), "github").startswith("::notice title=")


def test_junit_has_a_case_per_subject_and_failures_by_fail_on() -> None:
    root = ElementTree.fromstring(render(REPORT, "junit", fail_on="warning").split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("3", "2")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {"get_weather", "refund", "clean_tool"}
    assert cases["clean_tool"].find("failure") is None
    refund = cases["refund"]
    failure, out = refund.find("failure"), refund.find("system-out")
    assert failure is not None and out is not None
    assert "openai-strict/open-object" in (failure.text or "")
    assert "property-description-missing" in (out.text or "")


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="output format must be one of"):
        render(REPORT, "html")


def test_project_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        """
[tool.toolwire]
tools = ["tools.yaml", "app.tools:TOOLS"]
targets = ["openai-strict", "gemini"]
fail-on = "warning"
similarity-threshold = 0.7
[tool.toolwire.rules]
"gemini/*" = "off"
[tool.toolwire.handlers]
refund = "app.handlers:refund"
""",
        encoding="utf-8",
    )
    (tmp_path / "sub").mkdir()
    config = load_config(start=tmp_path / "sub")
    assert config.path == tmp_path / "pyproject.toml"
    assert config.tools == (str(tmp_path / "tools.yaml"), "app.tools:TOOLS")
    assert (config.targets, config.fail_on, config.similarity_threshold) == (
        ("openai-strict", "gemini"),
        "warning",
        0.7,
    )
    assert config.rules == {"gemini/*": "off"} and config.handlers == {"refund": "app.handlers:refund"}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('fail-on = "loud"', "fail-on: one of info, warning, error or never"),
        ('colour = "red"', "unknown key(s) colour"),
        ('rule = "x"', "unknown key(s) rule (did you mean 'rules'?)"),
        (
            '[tool.toolwire.rules]\n"description-mising" = "off"',
            "rules.\"description-mising\": no rule has this id (did you mean 'description-missing'?)",
        ),
        (
            '[tool.toolwire.rules]\n"gemnii/*" = "off"',
            "rules.\"gemnii/*\": no rule has this id (did you mean 'gemini/*'?)",
        ),
        (
            '[tool.toolwire.rules]\n"no-such-rule" = "off"',
            'rules."no-such-rule": no rule has this id; the ids are listed',
        ),
        ("similarity-threshold = 2", "similarity-threshold: a number in"),
        ('[tool.toolwire.rules]\nx = "fatal"', "rules.x: one of"),
        ("tools = 3", "tools: expected a string or a list of strings"),
    ],
)
def test_configuration_errors_name_the_key(tmp_path: Path, table: str, message: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.toolwire]\n{table}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(path)


def test_no_configuration_means_defaults(tmp_path: Path) -> None:
    from toolwire.schema._config import find_pyproject

    if find_pyproject(tmp_path) is not None:
        pytest.skip("a pyproject.toml above the temporary folder")
    config = load_config(start=tmp_path)
    assert (config.path, config.tools, config.fail_on, dict(config.rules)) == (None, (), "error", {})


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ("tools.yaml#2", "file=tools.yaml,title="),
        ("logs/tools.jsonl:12", "file=logs/tools.jsonl,line=12,title="),
        ("git:main:api/tools.yaml#0", "file=api/tools.yaml,title="),
        ("myapp.tools:TOOLS", "title="),
    ],
)
def test_github_annotations_point_at_the_file_not_the_origin_suffix(origin: str, expected: str) -> None:
    # Regression: "tools.yaml#0" was written as the file name, so GitHub could not place the annotation.
    finding = Finding("check/x", "error", "m", tool="t", origin=origin)
    line = render(FindingReport("check", (finding,)), "github").splitlines()[0]
    assert line.startswith(f"::error {expected}")


def test_every_rule_a_command_reports_is_one_the_configuration_may_name() -> None:
    from toolwire.schema._rule_ids import DIFF_OUTCOME_RULES, rule_ids

    sources = (REPO / "python" / "toolwire" / "schema" / "diff").glob("*.py")
    written = {found for path in sources for found in re.findall(r'"(diff/[a-z-]+)"', path.read_text("utf-8"))}
    assert written == set(DIFF_OUTCOME_RULES), "a diff finding of its own is listed in DIFF_OUTCOME_RULES"
    known = rule_ids()
    assert {"description-missing", "gemini/format", "diff/type-changed", "lint/not-loadable"} <= known


def test_findings_are_ordered_by_the_numbers_in_their_origins() -> None:
    origins = ["tools.yaml:10#2", "tools.yaml:9#1", "tools.jsonl:12", "tools.jsonl:3"]
    found = [Finding("duplicate-name", "error", "twice", origin=origin) for origin in origins]
    assert [f.origin for f in sorted_findings(found)] == [
        "tools.jsonl:3",
        "tools.jsonl:12",
        "tools.yaml:9#1",
        "tools.yaml:10#2",
    ]
    annotation = render(FindingReport("check", sorted_findings(found)), "github").splitlines()[-2]
    assert annotation.startswith("::error file=tools.yaml,line=10,title=duplicate-name::")
