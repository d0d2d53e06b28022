"""toolwire.contract reports: text, Markdown, JSON and JUnit XML renderings, and report semantics."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from toolwire.contract import Check, CheckStatus, ContractReport, assert_stream, check_stream, render_reports

PASSED = Check("finish_reason", "calls end with 'tool_calls'", CheckStatus.PASSED, "choice 0: 'tool_calls'")
NOTED = Check(
    "content_type",
    "content is null or a string",
    CheckStatus.PASSED,
    "content is a string",
    note="documented deviation: something",
)
FAILED = Check(
    "arguments_json",
    "arguments are one JSON object",
    CheckStatus.FAILED,
    "choice 0, call 'call_1' (chunks 2-5): '{}}' is not one JSON object: TRAILING_DATA; fix: send one object\n"
    "choice 0, call 'call_2' (chunk 7): a | pipe and <xml> & \x00 control",
)
WARNING = Check(
    "calls_contiguous",
    "calls are not interleaved",
    CheckStatus.FAILED,
    "chunk 4: call 'call_0' gets a fragment again",
    severity="warning",
)
SKIPPED = Check("forced_tool", "a forced tool choice is honoured", CheckStatus.NOT_APPLICABLE, "no tool choice forced")

REPORT = ContractReport("openai-chat streamed", "openai-chat", "streamed", (PASSED, NOTED, FAILED, WARNING, SKIPPED))
GOOD = ContractReport("probe forced_buffered", "openai-chat", "buffered", (PASSED, WARNING, SKIPPED))


def test_ok_failed_and_lookup() -> None:
    assert not REPORT.ok
    assert REPORT.failed == (FAILED, WARNING)
    assert GOOD.ok and GOOD.failed == (WARNING,)
    assert REPORT["arguments_json"] is FAILED
    with pytest.raises(KeyError, match="finish_reason, content_type, arguments_json, calls_contiguous, forced_tool"):
        REPORT["index_present"]
    assert CheckStatus("not_applicable") is CheckStatus.NOT_APPLICABLE and CheckStatus.PASSED == "passed"


def test_text_is_an_aligned_table_with_the_evidence_under_failures() -> None:
    text = REPORT.to_text()
    lines = text.splitlines()
    assert lines[0] == (
        "openai-chat streamed (openai-chat, streamed): FAILED — 2 passed, 1 failed, 1 warning, 1 not applicable"
    )
    assert lines[1] == "  ✓ finish_reason     calls end with 'tool_calls'"
    assert lines[2] == "  ✓ content_type      content is null or a string"
    assert lines[3] == "                      note: documented deviation: something"
    assert lines[4] == "  ✗ arguments_json    arguments are one JSON object"
    assert lines[5].startswith("                      choice 0, call 'call_1' (chunks 2-5)")
    assert lines[6].startswith("                      choice 0, call 'call_2'")
    assert lines[7] == "  ✗ calls_contiguous  calls are not interleaved [warning]"
    assert lines[9] == "  \u2013 forced_tool       a forced tool choice is honoured"
    assert lines[10] == "                      not applicable: no tool choice forced"
    assert "choice 0: 'tool_calls'" not in text  # a pass shows its title only
    assert GOOD.to_text().splitlines()[0].endswith(": ok — 1 passed, 0 failed, 1 warning, 1 not applicable")


def test_markdown_has_a_table_per_report() -> None:
    markdown = render_reports([REPORT, GOOD], "markdown")
    assert markdown.count("| | check | severity | status | evidence |") == 2
    assert "### openai-chat streamed — openai-chat, streamed: ✗ FAILED" in markdown
    assert "### probe forced_buffered — openai-chat, buffered: ✓ ok" in markdown
    row = next(line for line in markdown.splitlines() if "`arguments_json`" in line)
    assert row.startswith("| ✗ | `arguments_json` | error | failed | choice 0, call 'call_1'")
    assert "a \\| pipe" in row and "<br>" in row
    assert "| \u2013 | `forced_tool` | error | not_applicable | no tool choice forced |" in markdown
    assert "note: documented deviation: something" in markdown


def test_json_is_the_list_of_as_dict() -> None:
    data = json.loads(render_reports([REPORT, GOOD], "json"))
    assert [report["subject"] for report in data] == ["openai-chat streamed", "probe forced_buffered"]
    assert data[0]["ok"] is False and data[1]["ok"] is True
    assert data[0]["checks"][2] == {
        "id": "arguments_json",
        "title": "arguments are one JSON object",
        "status": "failed",
        "severity": "error",
        "evidence": FAILED.evidence,
        "note": None,
    }
    assert json.loads(REPORT.to_json()) == REPORT.as_dict() == data[0]


def test_junit_parses_and_counts() -> None:
    root = ET.fromstring(render_reports([REPORT, GOOD], "junit"))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("errors")) == ("8", "1", "2", "0")
    first, second = root.findall("testsuite")
    assert first.get("name") == "openai-chat streamed"
    assert (first.get("tests"), first.get("failures"), first.get("skipped")) == ("5", "1", "1")
    assert (second.get("tests"), second.get("failures"), second.get("skipped")) == ("3", "0", "1")
    cases = {case.get("name"): case for case in first.findall("testcase")}
    assert list(cases) == ["finish_reason", "content_type", "arguments_json", "calls_contiguous", "forced_tool"]
    assert all(case.get("classname") == "toolwire.contract.openai-chat streamed" for case in cases.values())
    failure = cases["arguments_json"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("choice 0, call 'call_1' (chunks 2-5)")
    assert failure.text is not None and "<xml> & \\u0000 control" in failure.text
    skipped = cases["forced_tool"].find("skipped")
    assert skipped is not None and skipped.get("message") == "no tool choice forced"
    # A failed warning is a passing testcase that says what it found.
    warning = cases["calls_contiguous"]
    assert warning.find("failure") is None and warning.find("skipped") is None
    assert "warning (does not fail): chunk 4" in (warning.findtext("system-out") or "")
    assert "documented deviation" in (cases["content_type"].findtext("system-out") or "")
    assert cases["finish_reason"].find("*") is None
    properties = {prop.get("name"): prop.get("value") for prop in first.iter("property")}
    assert properties == {"format": "openai-chat", "mode": "streamed"}
    assert ET.fromstring(GOOD.to_junit()).get("failures") == "0"


def test_render_reports_rejects_misuse() -> None:
    with pytest.raises(ValueError, match="'text', 'markdown', 'json', 'junit'"):
        render_reports([REPORT], "html")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"reports\[0\] must be a ContractReport"):
        render_reports([REPORT.as_dict()], "text")  # type: ignore[list-item]
    assert render_reports([], "json") == "[]"
    assert ET.fromstring(render_reports([], "junit")).get("tests") == "0"


def test_text_of_several_reports_and_of_a_real_check() -> None:
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ]}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    report = check_stream(chunks)
    text = render_reports([report, GOOD], "text")
    assert text.count("(openai-chat, streamed)") == 1 and text.count("(openai-chat, buffered)") == 1
    with pytest.raises(AssertionError) as raised:
        assert_stream(chunks)
    assert str(raised.value) == report.to_text()
    assert "✗ index_present" in str(raised.value)
    assert "chunk 0, choice 0, tool_calls[0]: index is absent (MISSING_INDEX)" in str(raised.value)
