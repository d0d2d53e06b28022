"""Prompt examples: `check_examples`, the shapes it finds, and `toolwire examples`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

from toolwire import ToolRegistry
from toolwire.cli import build_parser
from toolwire.cli._examples import run
from toolwire.schema import OUTPUT_FORMATS, FindingReport, load_tools, render
from toolwire.schema.examples._examples import EXAMPLE_RULES, check_examples
from toolwire.schema.examples._find import find_examples

REFUND = {
    "name": "refund",
    "description": "Refund an order.",
    "parameters": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "amount": {"type": "number"},
            "reason": {"type": "string", "enum": ["damaged", "late"]},
        },
        "required": ["order_id", "amount"],
        "additionalProperties": False,
    },
}
WEATHER = {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
TOOLS = ToolRegistry([REFUND, WEATHER, {"type": "web_search_20250305", "name": "web_search"}])
GOOD = {"order_id": "A-1", "amount": 12.5}


def rules(report: FindingReport) -> set[str]:
    return {finding.rule for finding in report.findings}


def chat(name: str, arguments: Any) -> list[dict[str, Any]]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
    return [
        {"role": "user", "content": "refund A-1"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "done"},
    ]


# -- every rule: one failing and one passing case -----------------------------------------------------------------

FAILING: dict[str, Any] = {
    "example-unknown-tool": chat("refund_order", GOOD),
    "example-invalid-arguments": chat("refund", {"order_id": 1, "amount": 2}),
    "example-arguments-not-json": chat("refund", '{"order_id": "A-1", "amount": 1'),
    "example-malformed": 'Call it as {"name": "refund", "arguments": {"order_id": "A-1",}}',
    "example-none-found": "You are a helpful assistant.",
}
PASSING: dict[str, Any] = {
    "example-unknown-tool": chat("refund", GOOD),
    "example-invalid-arguments": chat("refund", GOOD),
    "example-arguments-not-json": chat("refund", json.dumps(GOOD)),
    "example-malformed": 'Call it as {"name": "refund", "arguments": {"order_id": "A-1", "amount": 3}}',
    "example-none-found": 'Call it as {"name": "refund", "arguments": {"order_id": "A-1", "amount": 3}}',
}


def test_every_rule_has_a_failing_and_a_passing_case():
    ids = [rule.id for rule in EXAMPLE_RULES]
    assert len(ids) == len(set(ids))
    assert set(FAILING) == set(PASSING) == set(ids)


@pytest.mark.parametrize("rule", [rule.id for rule in EXAMPLE_RULES])
def test_rule_fails_and_passes(rule):
    failing = check_examples(FAILING[rule], TOOLS)
    assert rule in rules(failing)
    level = next(r.level for r in EXAMPLE_RULES if r.id == rule)
    assert all(f.level == level for f in failing.findings if f.rule == rule)
    assert check_examples(PASSING[rule], TOOLS).findings == ()


def test_one_finding_per_violation_with_code_and_pointer():
    report = check_examples(chat("refund", {"order_id": 1, "reason": "lost", "extra": True}), TOOLS)
    found = {(f.data["code"], f.pointer) for f in report.findings}
    assert found == {
        ("TYPE_MISMATCH", "/order_id"),
        ("MISSING_REQUIRED_ARGUMENT", "/amount"),
        ("ENUM_OUT_OF_RANGE", "/reason"),
        ("UNEXPECTED_ARGUMENT", "/extra"),
    }
    for finding in report.findings:
        assert finding.rule == "example-invalid-arguments" and finding.tool == "refund"
        assert finding.message.startswith("messages[1].tool_calls[0] (assistant): ")
        assert finding.data["at"] == "messages[1].tool_calls[0]"
        assert finding.data["message"] == 1 and finding.data["role"] == "assistant"
        assert finding.data["shape"] == "openai-chat"
    unknown = check_examples(chat("refnud", GOOD), TOOLS).findings[0]
    assert "closest" in unknown.message and "refund" in unknown.message


# -- the three message shapes -------------------------------------------------------------------------------------


def test_openai_chat_messages_and_the_legacy_function_call():
    messages = [
        *chat("refund", {"order_id": "A", "amount": "12"}),
        {"role": "assistant", "function_call": {"name": "get_weather", "arguments": '{"city": 3}'}},
    ]
    report = check_examples(messages, TOOLS)
    assert {(f.data["at"], f.pointer) for f in report.findings} == {
        ("messages[1].tool_calls[0]", "/amount"),
        ("messages[3].function_call", "/city"),
    }


def test_responses_input_items():
    body = {
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "refund A"}]},
            {"type": "function_call", "call_id": "c1", "name": "refund", "arguments": '{"order_id": "A"}'},
            {"type": "function_call_output", "call_id": "c1", "output": '{"name": "x", "arguments": {}}'},
            {"type": "function_call", "call_id": "c2", "name": "get_weather", "arguments": '{"city": "Oslo"}'},
        ],
    }
    report = check_examples(body, TOOLS)
    (finding,) = report.findings
    assert finding.data["at"] == "input[1]" and finding.data["shape"] == "openai-responses"
    assert finding.data["code"] == "MISSING_REQUIRED_ARGUMENT" and finding.pointer == "/amount"
    assert [record["valid"] for record in report.extra["examples"]] == [False, True]


def test_anthropic_messages_with_a_system_prompt():
    body = {
        "system": [
            {"type": "text", "text": 'Example: {"type": "tool_use", "name": "refund", "input": {"order_id": "A"}}'}
        ],
        "messages": [
            {"role": "user", "content": "refund A"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Refunding."},
                    {"type": "tool_use", "id": "toolu_1", "name": "refund", "input": {"order_id": "A", "amount": True}},
                    {"type": "tool_use", "id": "toolu_2", "name": "web_search", "input": {"query": "x"}},
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
        ],
    }
    report = check_examples(body, TOOLS)
    assert {(f.data["at"], f.data["code"], f.pointer) for f in report.findings} == {
        ("system[0].text", "MISSING_REQUIRED_ARGUMENT", "/amount"),
        ("messages[1].content[1]", "TYPE_MISMATCH", "/amount"),
    }
    # A declared server tool (web_search) is no unknown tool.
    assert {record["tool"] for record in report.extra["examples"]} == {"refund", "web_search"}


# -- JSON tool calls inside text ----------------------------------------------------------------------------------

TEXT_SHAPES = [
    '{"name": "refund", "arguments": {"order_id": "A", "amount": 1}}',
    '{"name": "refund", "arguments": "{\\"order_id\\": \\"A\\", \\"amount\\": 1}"}',
    '{"name": "refund", "parameters": {"order_id": "A", "amount": 1}}',
    '{"tool": "refund", "args": {"order_id": "A", "amount": 1}}',
    '{"tool": "refund", "input": {"order_id": "A", "amount": 1}}',
    '{"tool_name": "refund", "tool_input": {"order_id": "A", "amount": 1}}',
    '{"function": "refund", "arguments": {"order_id": "A", "amount": 1}}',
    '{"id": "c", "type": "function", "function": {"name": "refund", "arguments": "{\\"order_id\\": \\"A\\", \\"amount\\": 1}"}}',
    '{"functionCall": {"name": "refund", "args": {"order_id": "A", "amount": 1}}}',
    '{"type": "tool_use", "id": "t", "name": "refund", "input": {"order_id": "A", "amount": 1}}',
    '{"tool_calls": [{"name": "refund", "arguments": {"order_id": "A", "amount": 1}}]}',
]


@pytest.mark.parametrize("shape", TEXT_SHAPES)
def test_json_shapes_in_text(shape):
    text = f"When asked, answer with <tool_call>{shape}</tool_call> and nothing else."
    (example,) = find_examples(text).examples
    assert example.name == "refund" and example.shape == "text"
    assert check_examples(text, TOOLS).findings == ()
    broken = shape.replace('"amount": 1', '"amount": "1"').replace('\\"amount\\": 1', '\\"amount\\": \\"1\\"')
    (finding,) = check_examples(f"Answer with {broken}", TOOLS).findings
    assert finding.rule == "example-invalid-arguments" and finding.pointer == "/amount"


def test_definitions_in_text_are_not_calls():
    text = "\n".join(
        [
            "You have these tools:",
            json.dumps([{"type": "function", "function": REFUND}]),
            json.dumps({"name": "refund", "input_schema": REFUND["parameters"]}),
            json.dumps({"name": "refund", "parameters": REFUND["parameters"]}),
            json.dumps({"name": "Ada", "role": "admin"}),
        ]
    )
    found = find_examples(text)
    assert found.examples == [] and found.malformed == []
    assert [f.rule for f in check_examples(text, TOOLS).findings] == ["example-none-found"]


def test_several_examples_in_text_carry_their_lines():
    text = (
        "Examples:\n"
        '1. {"name": "refund", "arguments": {"order_id": "A", "amount": 1}}\n'
        '2. some prose with {braces} and {"a": 1}\n'
        '3. {"name": "get_weather", "arguments": {"city": 12}} then '
        '{"name": "refund", "arguments": {"order_id": "B"}}\n'
    )
    found = find_examples(text)
    assert [(e.name, e.line) for e in found.examples] == [("refund", 2), ("get_weather", 4), ("refund", 4)]
    report = check_examples(text, TOOLS)
    assert sorted((f.data["line"], f.pointer) for f in report.findings) == [(4, "/amount"), (4, "/city")]
    assert all("line 4" in f.message for f in report.findings)


def test_malformed_calls_are_reported_with_their_start():
    found = find_examples('Use {"name": "refund", "arguments": {order_id: "A"}} please')
    (bad,) = found.malformed
    assert bad.snippet.startswith('{"name": "refund"') and bad.line == 1
    (finding,) = check_examples('Use {"name": "refund", "arguments": {order_id: "A"}} please', TOOLS).findings
    assert finding.rule == "example-malformed" and finding.level == "warning"


def test_arguments_that_are_no_json_value():
    messages = [{"role": "assistant", "content": [{"type": "tool_use", "name": "refund", "input": {"when": object()}}]}]
    (finding,) = check_examples(messages, TOOLS).findings
    assert finding.rule == "example-arguments-not-json"
    nameless = [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]
    (finding,) = check_examples(nameless, TOOLS).findings
    assert finding.rule == "example-unknown-tool" and "no tool name" in finding.message


# -- files and tools ----------------------------------------------------------------------------------------------


def test_prompt_files_of_every_kind(tmp_path):
    messages = chat("refund", {"order_id": 1, "amount": 1})
    (tmp_path / "prompt.json").write_text(json.dumps({"messages": messages}))
    (tmp_path / "prompt.jsonl").write_text("\n".join(json.dumps(m) for m in messages))
    (tmp_path / "prompt.yaml").write_text(yaml.safe_dump(messages))
    (tmp_path / "prompt.txt").write_text(
        'line one\n\nCall {"name": "refund", "arguments": {"order_id": 1, "amount": 1}}\n'
    )
    for name in ("prompt.json", "prompt.jsonl", "prompt.yaml"):
        path = tmp_path / name
        (finding,) = check_examples(path, TOOLS).findings
        assert finding.origin == str(path) and finding.pointer == "/order_id"
        assert check_examples(str(path), TOOLS).findings == (finding,)
    (finding,) = check_examples(tmp_path / "prompt.txt", TOOLS).findings
    assert finding.origin == f"{tmp_path / 'prompt.txt'}:3"
    assert render(check_examples(tmp_path / "prompt.txt", TOOLS), "github").startswith(
        f"::error file={tmp_path / 'prompt.txt'},line=3,title=example-invalid-arguments::"
    )
    with pytest.raises(FileNotFoundError):
        check_examples(tmp_path / "absent.json", TOOLS)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match="invalid JSON"):
        check_examples(tmp_path / "bad.json", TOOLS)
    # A string that names no file is the prompt's text.
    assert [f.rule for f in check_examples("absent.json", TOOLS).findings] == ["example-none-found"]


def test_tools_from_load_tools_name_the_ones_that_do_not_load(tmp_path):
    path = tmp_path / "tools.yaml"
    path.write_text(yaml.safe_dump([REFUND, {"name": "broken", "parameters": {"type": "string"}}]))
    sources = load_tools([path])
    prompt = chat("broken", {}) + chat("refund", GOOD)
    (finding,) = check_examples(prompt, sources).findings
    assert finding.rule == "example-unknown-tool" and "does not load" in finding.message


def test_a_single_message_and_a_bare_call():
    message = {"role": "assistant", "tool_calls": [{"function": {"name": "refund", "arguments": json.dumps(GOOD)}}]}
    assert check_examples(message, TOOLS).extra["examples"][0]["at"] == "message.tool_calls[0]"
    (finding,) = check_examples({"name": "refund", "arguments": {"order_id": "A"}}, TOOLS).findings
    assert finding.pointer == "/amount"


# -- output -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_every_output_format(fmt):
    report = check_examples(FAILING["example-invalid-arguments"], TOOLS)
    text = render(report, fmt)
    if fmt == "json":
        document = json.loads(text)
        assert document["command"] == "examples" and document["examples"][0]["valid"] is False
        assert document["findings"][0]["pointer"] == "/order_id"
    elif fmt == "junit":
        root = ElementTree.fromstring(text.split("\n", 1)[1])
        assert root.find("testsuite").get("failures") == "1"
    elif fmt == "github":
        assert text.startswith("::error title=example-invalid-arguments::refund /order_id: messages[1]")
    elif fmt == "markdown":
        assert "| error | `example-invalid-arguments` | `refund /order_id` |" in text
    else:
        assert "example-invalid-arguments" in text and "TYPE_MISMATCH" in text


# -- the command line ---------------------------------------------------------------------------------------------


def examples(argv: list[str]) -> int:
    return run(build_parser(["examples"]).parse_args(["examples", *argv]))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tools.json").write_text(json.dumps([REFUND, WEATHER]))
    (tmp_path / "good.json").write_text(json.dumps(chat("refund", GOOD)))
    (tmp_path / "bad.txt").write_text('Call {"name": "get_weather", "arguments": {"city": 1}}')
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli(project, capsys):
    assert examples(["good.json", "--tools", "tools.json"]) == 0
    assert "examples: 1 checked" in capsys.readouterr().out
    assert examples(["good.json", "bad.txt", "--tools", "tools.json", "--output-format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["subjects"] == ["good.json", "bad.txt"]
    assert [(f["rule"], f["origin"]) for f in document["findings"]] == [("example-invalid-arguments", "bad.txt:1")]
    assert [(r["file"], r["valid"]) for r in document["examples"]] == [("good.json", True), ("bad.txt", False)]
    (project / "pyproject.toml").write_text('[tool.toolwire]\ntools = ["tools.json"]\nfail-on = "never"\n')
    assert examples(["bad.txt"]) == 0


def test_cli_usage_errors(project):
    with pytest.raises(ValueError, match="no tools given"):
        examples(["good.json"])
    with pytest.raises(FileNotFoundError, match=r"absent\.json"):
        examples(["absent.json", "--tools", "tools.json"])


def test_duplicate_tools_and_bad_jsonl_lines(tmp_path):
    path = tmp_path / "tools.yaml"
    second = dict(REFUND, parameters={"type": "object", "properties": {}})
    path.write_text(yaml.safe_dump([REFUND, second]))
    # The first declaration is used (the duplicate is `toolwire check`'s finding, not a reason to stop).
    (finding,) = check_examples(chat("refund", {"order_id": "A"}), load_tools([path])).findings
    assert finding.pointer == "/amount"
    prompt = tmp_path / "prompt.jsonl"
    prompt.write_text('{"role": "user", "content": "hi"}\n\n{"role": \n')
    with pytest.raises(ValueError, match=r"prompt\.jsonl:3: invalid JSON"):
        check_examples(prompt, TOOLS)
