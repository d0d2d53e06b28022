"""The four schema commands through ``toolwire.cli.main``: exit 0 clean, 1 at --fail-on, 2 on usage errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolwire.cli import main

TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city, in the unit asked for.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([TOOL]), encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_check(tools: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", str(tools)], capsys)[0] == 0
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps([TOOL, TOOL]), encoding="utf-8")
    status, out = run(["check", str(twice), "--output-format", "github"], capsys)
    assert status == 1 and "::error" in out and "title=duplicate-name" in out
    assert run(["check", str(tmp_path / "nope.yaml")], capsys)[0] == 2


def test_lint(tools: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint", str(tools), "--target", "openai-strict,anthropic-strict"], capsys)[0] == 0
    enum = json.loads(json.dumps(TOOL))
    enum["parameters"]["properties"]["city"]["enum"] = ["Paris", "Oslo"]
    (tmp_path / "enum.json").write_text(json.dumps([enum]), encoding="utf-8")
    # Gemini in AUTO mode does not enforce enum: a warning, which fails only at --fail-on warning.
    assert run(["lint", str(tmp_path / "enum.json"), "--target", "gemini"], capsys)[0] == 0
    status, out = run(["lint", str(tmp_path / "enum.json"), "--target", "gemini", "--fail-on", "warning"], capsys)
    assert status == 1 and "gemini/constraint-not-enforced" in out
    status, out = run(["lint", str(tools), "--target", "nope"], capsys)
    assert status == 2 and "unknown lint target 'nope'" in out


def test_drift(
    tools: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "weather_handlers.py").write_text(
        "def get_weather(city: str) -> str:\n    return city\n\ndef strict(city: str, unit: str) -> str:\n    return city\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert run(["drift", str(tools), "--handler", "get_weather=weather_handlers:get_weather"], capsys)[0] == 0
    status, out = run(["drift", str(tools), "--handler", "get_weather=weather_handlers:strict"], capsys)
    assert status == 1 and "handler-requires-unknown" in out
    status, out = run(["drift", str(tools), "--handler", "nope=weather_handlers:get_weather"], capsys)
    assert status == 2 and "nope" in out


def test_examples(tools: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    call: dict[str, Any] = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    prompt = tmp_path / "prompt.json"
    prompt.write_text(json.dumps([{"role": "assistant", "content": None, "tool_calls": [call]}]), encoding="utf-8")
    status, out = run(["examples", str(prompt), "--tools", str(tools), "--output-format", "json"], capsys)
    assert status == 1
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["example-invalid-arguments"]
    call["function"]["arguments"] = '{"city": "Paris"}'
    prompt.write_text(json.dumps([{"role": "assistant", "content": None, "tool_calls": [call]}]), encoding="utf-8")
    assert run(["examples", str(prompt), "--tools", str(tools)], capsys)[0] == 0


def test_a_command_whose_extra_is_missing_says_what_to_install(
    tools: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolwire.schema.lint import _lint

    # PyYAML as absent as on the base install: the lint reads its rule files with it when it runs. Both caches of
    # what was read are emptied, or a lint run earlier in the session (tests/schema/lint/) would be answered from them.
    monkeypatch.setitem(sys.modules, "yaml", None)
    caches = (_lint.target_rules, _lint._compiled)
    for cache in caches:
        cache.cache_clear()
    status, out = run(["lint", str(tools), "--target", "all"], capsys)
    for cache in caches:
        cache.cache_clear()
    assert status == 2
    assert out == "toolwire lint: needs yaml: pip install 'toolwire[schema]'\n"


def test_a_rule_message_reads_as_text_not_as_a_format_template() -> None:
    from toolwire.schema._rule_docs import rule_reference
    from toolwire.schema.lint import message_template

    template = 'names must match ^[a-z]{{1,64}} (this one, "{name}", has {length} characters)'
    assert message_template(template) == 'names must match ^[a-z]{1,64} (this one, "<name>", has <length> characters)'
    assert message_template(template, "&lt;{}&gt;").endswith("has &lt;length&gt; characters)")
    generated = rule_reference()
    assert "{{" not in generated and "{value}" not in generated, "docs/schema-rules.md shows no format syntax"
    assert "^[a-zA-Z0-9_-]{1,64}" in generated and "(here: &lt;value&gt;)" in generated


def test_the_rule_reference_is_current() -> None:
    from tests.support.paths import REPO
    from toolwire.schema import CHECK_RULES, DRIFT_RULES, EXAMPLE_RULES, LINT_RULES
    from toolwire.schema._rule_docs import rule_reference

    generated = rule_reference()
    committed = (REPO / "docs" / "schema-rules.md").read_text(encoding="utf-8")
    assert committed == generated, "docs/schema-rules.md is stale: python -m toolwire.schema._rule_docs > it"
    for rule in (*CHECK_RULES, *DRIFT_RULES, *EXAMPLE_RULES, *LINT_RULES):
        assert f"`{rule.id}`" in generated, rule.id
