"""docs/cases.md says what the code does: its tables are the code's, its example is the bundled file and loads, its
samples of output are what the judge and the loader print, and every key of the schema is documented."""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from typing import Any

import pytest

import toolwire.cases
from tests.cases.helpers import turn
from tests.support.paths import REPO
from toolwire.cases import (
    EXAMPLES,
    FAILURE_CODES,
    MATCHER_TYPES,
    MODES,
    CaseFileError,
    case_file_schema,
    judge,
    load_cases,
)
from toolwire.registry import ToolRegistry

DOC = (REPO / "docs" / "cases.md").read_text(encoding="utf-8")


def table_after(heading: str) -> dict[str, str]:
    """The ``| `key` | text |`` rows of the first table after ``heading``."""
    lines = DOC[DOC.index(heading) :].splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("| ---"))
    rows = {}
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            break
        found = re.match(r"\| `([^`]+)` \| (.*) \|$", line)
        if found:
            rows[found.group(1)] = found.group(2)
    return rows


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC, re.S)


def test_the_failure_code_table_is_failure_codes() -> None:
    assert table_after("## Failure codes") == dict(FAILURE_CODES)


def test_the_mode_table_is_modes() -> None:
    assert table_after("| mode | passes when |") == dict(MODES)


def test_the_type_matcher_table_is_matcher_types() -> None:
    assert table_after("| `is:` | matches |") == dict(MATCHER_TYPES)


def schema_keys(node: Any) -> set[str]:
    keys: set[str] = set()
    if isinstance(node, dict):
        keys |= set(node.get("properties", {}))
        for value in node.values():
            keys |= schema_keys(value)
    elif isinstance(node, list):
        for value in node:
            keys |= schema_keys(value)
    return keys


def test_every_key_of_the_schema_is_documented() -> None:
    keys = schema_keys(case_file_schema())
    assert {"cases", "expect", "one_of", "strict_args", "regex", "optional", "tool_results"} <= keys
    undocumented = {key for key in keys if f"`{key}`" not in DOC and f"{{{key}:" not in DOC}
    assert not undocumented


def test_the_example_in_the_docs_is_the_bundled_file() -> None:
    yaml_blocks = blocks("yaml")
    assert (EXAMPLES / "support.yaml").read_text(encoding="utf-8") in yaml_blocks
    assert (EXAMPLES / "support_tools.yaml").read_text(encoding="utf-8") in yaml_blocks


def test_the_example_has_the_four_cases_the_docs_describe() -> None:
    cases = load_cases(EXAMPLES / "support.yaml")
    hours, cancel, weather, ticket = cases.cases
    assert hours.expect.no_tool_call
    steps = cancel.expect.alternatives[0].steps
    assert cancel.expect.alternatives[0].mode == "in_order" and cancel.max_turns >= len(steps) == 2
    assert [step[0].name for step in steps] == ["lookup_subscription", "cancel_subscription"]
    assert weather.expect.alternatives[0].mode == "unordered"
    assert [call.arguments["city"].value for call in weather.expect.alternatives[0].calls] == ["Paris", "Tokyo"]
    (create,) = ticket.expect.alternatives[0].calls
    schema = ticket.tools["create_ticket"].parameters["properties"]["priority"]
    assert create.arguments["priority"].value in schema["enum"]
    assert isinstance(cases.tools, ToolRegistry)


def text_block(first_line: str) -> list[str]:
    (block,) = [block for block in blocks("text") if block.startswith(first_line)]
    return block.splitlines()


def test_the_failure_samples_are_what_the_judge_prints() -> None:
    cases = load_cases(EXAMPLES / "support.yaml")
    hasty = [turn([("cancel_subscription", {"subscription_id": "sub_1", "reason": "other"})]), turn(text="Done.")]
    printed = []
    for failure in judge(cases["cancel subscription"], hasty).failures:
        printed += [f"{failure.code}  {failure.message}", *failure.diff.splitlines()]
    assert text_block("value_mismatch") == printed
    enum = judge(cases["urgent ticket"], [turn([("create_ticket", {"subject": "Locked out", "priority": "critical"})])])
    (failure,) = enum.failures
    assert text_block("schema_violation") == [f"{failure.code}  {failure.message}", *failure.diff.splitlines()]


def test_the_loader_sample_is_what_the_loader_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (EXAMPLES / "support.yaml").read_text(encoding="utf-8")
    text = text.replace("mode: unordered", "mode: unorderd").replace("tool_choice: required", "tool_choice: requried")
    (tmp_path / "cases.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CaseFileError) as caught:
        load_cases("cases.yaml")
    assert text_block("cases.yaml: 2 problems") == str(caught.value).splitlines()


def test_the_package_doctest_passes() -> None:
    assert doctest.testmod(toolwire.cases).failed == 0


def test_the_refused_import_shown_is_the_problem_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = DOC.split("names the file, the line, the case, the pointer and these fixes:\n\n```text\n", 1)[1]
    shown = shown.split("```", 1)[0].strip()
    spec = re.search(r"'([\w.]+:\w+)' is a Python import path", shown)
    assert spec is not None
    (tmp_path / "cases.yaml").write_text(
        f"version: 1\ntools: {spec.group(1)}\ncases: [{{name: c, prompt: p, expect: {{no_tool_call: true}}}}]\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CaseFileError) as raised:
        load_cases("cases.yaml")
    assert [str(problem) for problem in raised.value.problems] == [shown]
