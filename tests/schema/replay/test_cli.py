"""``toolwire replay`` end to end through ``toolwire.cli.main`` (and once as a real process reading stdin)."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

import pytest

from tests.support.paths import RECORDINGS, REPO
from toolwire.cli import _replay_history, build_parser, main
from toolwire.cli._common import Progress
from toolwire.schema.replay._replay import replay_calls

TOOLS = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"],
        },
    }
]
GOOD = [{"id": f"g{n}", "name": "get_weather", "arguments": {"city": f"c{n}"}} for n in range(5)]
BAD = [
    {"id": "b1", "name": "get_weather", "arguments": {"city": 3}},
    {"id": "b2", "name": "get_weather", "arguments": {"city": "x", "unit": "kelvin"}},
]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in GOOD))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in [*GOOD, *BAD]) + "{oops\n")
    return {"tools": tools, "good": good, "bad": bad}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_exit_status_and_fail_on(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["replay", str(files["good"]), "--tools", str(files["tools"])], capsys)
    assert status == 0 and "5 calls from 1 source against 1 tool: 5 valid, 0 invalid" in out
    assert out.rstrip().endswith("ok")
    status, out, _ = run(["replay", str(files["bad"]), "--tools", str(files["tools"])], capsys)
    assert status == 1 and "2 invalid, 1 unreadable" in out
    status, _, _ = run(["replay", str(files["bad"]), "--tools", str(files["tools"]), "--fail-on", "never"], capsys)
    assert status == 0


def test_only_unreadable_records_fail_too(tmp_path: Path, files: dict[str, Path], capsys: Any) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "x", "arguments": "{}"}\n')
    status, out, _ = run(["replay", str(broken), "--tools", str(files["tools"])], capsys)
    assert status == 1 and "no 'name'" in out


def test_usage_and_io_errors_exit_2(tmp_path: Path, files: dict[str, Path], capsys: Any) -> None:
    empty = tmp_path / "pyproject.toml"
    empty.write_text("[project]\nname = 'x'\n")
    status, _, err = run(["replay", str(files["good"]), "--config", str(empty)], capsys)
    assert status == 2 and "no tools given" in err
    status, _, err = run(["replay", str(tmp_path / "absent.jsonl"), "--tools", str(files["tools"])], capsys)
    assert status == 2 and "no such file" in err
    status, _, err = run(["replay", f"sqlite:///{tmp_path / 'x.db'}", "--tools", str(files["tools"])], capsys)
    assert status == 2 and "needs a query" in err
    status, _, err = run(["replay", str(files["good"]), "--tools", str(tmp_path / "nope.json")], capsys)
    assert status == 2
    with pytest.raises(SystemExit):
        build_parser().parse_args(["replay", str(files["good"]), "--fail-on", "warning"])


def test_tools_default_from_the_project(tmp_path: Path, files: dict[str, Path], capsys: Any) -> None:
    project = tmp_path / "pyproject.toml"
    project.write_text(f'[tool.toolwire]\ntools = ["{files["tools"].name}"]\n')
    status, out, _ = run(["replay", str(files["bad"]), "--config", str(project), "--output-format", "json"], capsys)
    assert status == 1 and json.loads(out)["tools"] == ["get_weather"]


def test_formats_carry_the_same_report(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["replay", str(files["bad"]), str(files["good"]), "--tools", str(files["tools"]), "--limit", "1"]
    _, out, _ = run([*argv, "--output-format", "json"], capsys)
    data = json.loads(out)
    expected = replay_calls([files["bad"], files["good"]], TOOLS, limit_failures=1).as_dict()
    assert data | {"seconds": 0, "calls_per_second": 0} == expected | {"seconds": 0, "calls_per_second": 0}
    assert data["failures"][0]["id"] == "b1" and data["failures"][0]["violations"][0]["path"] == "/city"
    _, text, _ = run([*argv, "--output-format", "text", "--color", "never"], capsys)
    assert f"{files['bad']}:6" in text and "b1" in text and "first 1 of 2 failing calls" in text
    _, markdown, _ = run([*argv, "--output-format", "markdown"], capsys)
    assert markdown.startswith("### toolwire replay") and "| TYPE_MISMATCH | 1 |" in markdown
    assert "| ENUM_OUT_OF_RANGE | 1 |" in markdown
    _, colour, _ = run([*argv, "--color", "always"], capsys)
    assert "\x1b[" in colour


def test_recordings_and_conversations_from_the_command_line(tmp_path: Path, capsys: Any) -> None:
    tools = tmp_path / "tools.json"
    manifest = json.loads((RECORDINGS / "openai-chat" / "parallel-calls.json").read_text())
    tools.write_text(json.dumps(manifest["request"]["tools"]))
    chat = tmp_path / "chat.jsonl"
    turn = {"role": "assistant", "tool_calls": [{"id": "t1", "function": {"name": "plus", "arguments": '{"a": "1"}'}}]}
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "1 + 1?"}, turn]}) + "\n")
    status, out, _ = run(
        [
            "replay",
            str(RECORDINGS / "openai-chat" / "parallel-calls.sse"),
            str(chat),
            "--tools",
            str(tools),
            "--output-format",
            "json",
        ],
        capsys,
    )
    data = json.loads(out)
    assert status == 1 and data["calls"] == 3 and data["invalid"] == 1
    assert data["failures"][0]["origin"] == f"{chat}:1 messages[1].tool_calls[0]" and data["failures"][0]["id"] == "t1"


def test_stdin_in_a_real_process(files: dict[str, Path]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "replay", "-", "--tools", str(files["tools"]), "--output-format", "json"],
        input=files["bad"].read_bytes(),
        capture_output=True,
        cwd=REPO,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data["calls"] == 7 and data["invalid"] == 2 and data["unreadable_records"][0]["origin"] == "<stdin>:8"
    assert done.stderr == b""  # no progress bar when stderr is not a terminal


def test_progress_line() -> None:
    stream = io.StringIO()
    progress = Progress("replay", rate=True, stream=stream)
    progress.started -= 2.0  # two seconds ago
    progress(400_000)
    progress(500_000)  # within a tenth of a second: not redrawn
    progress.clear()
    written = stream.getvalue()
    assert written.count("calls read") == 1 and "400,000 calls read" in written
    rate = int(written.split("calls read, ")[1].split(" calls/s")[0].replace(",", ""))
    assert 150_000 <= rate <= 200_000


def test_history_is_handed_to_the_history_command(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(options: argparse.Namespace, calls: Any, out: TextIO) -> int:
        seen["history"] = options.history
        seen["calls"] = [getattr(c, "id", None) for c in calls]
        print("history report", file=out)
        return 0

    monkeypatch.setattr(_replay_history, "run", fake_run)
    status, out, _ = run(["replay", str(files["good"]), "--history", "versions/"], capsys)
    assert status == 0 and out.strip() == "history report"
    assert seen == {"history": "versions/", "calls": [r["id"] for r in GOOD]}


def test_the_documented_command_lines_parse() -> None:
    """Every ``$ toolwire replay ...`` of docs/replay.md is a command line the parser takes."""
    import shlex

    text = (REPO / "docs" / "replay.md").read_text(encoding="utf-8")
    commands = []
    lines = iter(text.splitlines())
    for line in lines:
        if line.startswith("$ toolwire replay"):
            while line.endswith("\\"):
                line = line[:-1] + next(lines)
            commands.append(shlex.split(line[2:])[1:])
    assert len(commands) >= 3
    for argv in commands:
        options = build_parser().parse_args(argv)
        assert options.command == "replay" and options.sources
