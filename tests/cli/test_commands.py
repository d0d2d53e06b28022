"""The command table and the one vocabulary of flags every command follows, walked from the table."""

from __future__ import annotations

import argparse
import json
import select
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from tests.support.paths import RECORDINGS, REPO
from toolwire.cli import build_parser, main
from toolwire.cli._commands import COMMANDS, command_named
from toolwire.cli._common import COLORS, FAIL_ON, OUTPUT_FORMATS
from toolwire.cli._demo import DEMO_RECORDINGS
from toolwire.formats import WIRE_FORMATS
from toolwire.schema._findings import LEVELS

NAMES = [command.name for command in COMMANDS]
# Flags the vocabulary replaced; none may come back under any command.
RETIRED = {
    "--format",
    "--json",
    "--html",
    "--junit",
    "--markdown",
    "-o",
    "--no-progress",
    "--no-color",
    "--api-key-env",
}


def parser_of(name: str) -> argparse.ArgumentParser:
    parser = build_parser([name])
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return commands.choices[name]


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: action for action in parser._actions for flag in action.option_strings}


def test_every_command_is_registered_once_with_a_module_that_builds_and_runs_it() -> None:
    assert len(set(NAMES)) == len(NAMES)
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for command in COMMANDS:
        module = command.load()
        assert callable(module.add_arguments) and callable(module.run), command.name
        assert command.module == f"toolwire.cli._{command.name}"
        assert command.extra is None or command.extra in extras, command.name
        assert command.help and "\n" not in command.help
        assert command_named(command.name) is command
    with pytest.raises(KeyError):
        command_named("nope")


def test_the_config_keys_of_the_commands_are_the_keys_the_configuration_knows() -> None:
    from toolwire.schema._config import _KNOWN_KEYS

    assert {key for command in COMMANDS for key in command.config_keys} == _KNOWN_KEYS


def test_the_vocabulary_is_the_schema_toolkits() -> None:
    assert set(FAIL_ON) == {*LEVELS, "never"} and FAIL_ON[-1] == "never"


@pytest.mark.parametrize("name", NAMES)
def test_every_parser_speaks_the_one_vocabulary(name: str) -> None:
    command = command_named(name)
    parser = parser_of(name)
    options = options_of(parser)
    assert parser.description, f"{name}: no description"
    for action in parser._actions:
        if action.option_strings != ["-h", "--help"]:
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
    assert RETIRED.isdisjoint(options), f"{name}: {sorted(RETIRED & set(options))}"
    # Shared by every command.
    assert options["--color"].choices == COLORS and options["--color"].default == "auto"
    assert options["-q"] is options["--quiet"] and isinstance(options["-q"], argparse._CountAction)
    assert options["-v"] is options["--verbose"] and isinstance(options["-v"], argparse._CountAction)
    assert ("--config" in options) == bool(command.config_keys)
    if "--config" in options:
        assert options["--config"].metavar == "FILE"
    # A format is the output's or the wire's, by name.
    for flag in options:
        assert not flag.endswith("format") or flag in ("--output-format", "--wire-format"), f"{name} {flag}"
    if "--output-format" in options:
        choices = list(options["--output-format"].choices or ())
        assert set(choices) <= set(OUTPUT_FORMATS) and choices[0] == "text" == options["--output-format"].default
    if "--wire-format" in options:
        assert set(options["--wire-format"].choices or ()) <= set(WIRE_FORMATS)
    if "--fail-on" in options:
        choices = list(options["--fail-on"].choices or ())
        assert choices == [value for value in FAIL_ON if value in choices] and choices[-1] == "never", name
        assert options["--fail-on"].default in (None, *choices)
    if "--output" in options:
        assert options["--output"].metavar == "FILE"
    if "--key-env" in options:
        assert options["--key-env"].metavar == "VAR"


def test_the_help_lists_every_command_and_each_command_has_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    listed = capsys.readouterr().out
    for command in COMMANDS:
        assert command.name in listed and command.help in " ".join(listed.split())
        with pytest.raises(SystemExit) as exited:
            main([command.name, "--help"])
        assert exited.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: toolwire {command.name}")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import toolwire

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"toolwire {toolwire.__version__}\n"


def test_parsing_imports_no_extra_and_help_imports_no_command() -> None:
    """Every parser builds with none of the extras' modules imported, and ``--help`` imports no kit at all."""
    script = """
import sys
from toolwire.cli import build_parser, main
try:
    main(["--help"])
except SystemExit:
    pass
kits = sorted(m for m in sys.modules if m.startswith(("toolwire.schema", "toolwire.cases", "toolwire.server",
                                                    "toolwire.contract", "toolwire.cli._")))
build_parser()
extras = {"yaml", "rich", "pydantic", "httpx", "starlette", "uvicorn", "orjson", "sqlalchemy", "pyarrow", "hypothesis",
          "jsonschema", "re2"}
print(sorted(kits), sorted(extras & {m.partition(".")[0] for m in sys.modules}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    # Only the table and the shared module; no command's module, no kit.
    kits, extras = done.stdout.splitlines()[-1].split("] ")
    assert kits + "]" == "['toolwire.cli._commands', 'toolwire.cli._common', 'toolwire.cli._main']"
    assert extras == "[]"


def test_verbose_says_which_configuration_and_how_long(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "t", "description": "A tool that does one thing well.", "parameters": {}}]))
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.toolwire]\nfail-on = 'never'\n", encoding="utf-8")
    assert main(["check", str(tools), "--config", str(config), "-v"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"toolwire check: [tool.toolwire] of {config}"
    assert err[1].startswith("toolwire check: exit status 0 after ") and err[1].endswith(" s")
    assert main(["check", str(tools), "--config", str(config)]) == 0
    assert capsys.readouterr().err == ""


def test_quiet_leaves_the_results_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"id": "c1", "name": "t", "arguments": {"a": 1}}) + "\n", encoding="utf-8")
    assert main(["sample", str(log)]) == 0
    captured = capsys.readouterr()
    assert '"c' in captured.out and "toolwire sample: 1 calls read" in captured.err
    assert main(["sample", str(log), "-q"]) == 0
    captured = capsys.readouterr()
    assert '"c' in captured.out and captured.err == ""


def test_color_paints_the_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nope.json")
    assert main(["check", missing, "--color", "always"]) == 2
    assert capsys.readouterr().err.startswith("\x1b[1;31mtoolwire\x1b[0m: ")
    assert main(["check", missing, "--color", "never"]) == 2
    assert capsys.readouterr().err.startswith("toolwire: ")


def test_a_matrix_report_file_is_named_by_its_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = REPO / "python" / "toolwire" / "cases" / "examples" / "support.yaml"
    argv = ["matrix", str(cases), "--model", "openai-chat:m@http://127.0.0.1:9/v1", "--output", str(tmp_path / "r.txt")]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"toolwire matrix: --output {tmp_path / 'r.txt'}: name the format by the suffix: "
        ".html, .htm, .json, .xml, .md, .markdown\n"
    )


def test_the_demonstration_set_is_recordings_of_the_repository_one_per_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = sorted(path for path in DEMO_RECORDINGS.rglob("*") if not path.is_dir())
    assert {path.parent.name for path in files} == set(WIRE_FORMATS)
    for path in files:
        # One source of truth: each file of the set is a link to the recording in recordings/.
        assert path.is_symlink() and path.resolve() == (RECORDINGS / path.relative_to(DEMO_RECORDINGS)).resolve()
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(
        f"{len(files) // 2} recordings, 12 calls handed over (2 invalid), 3 findings on valid calls and streams"
    )
    assert "INVALID TRUNCATED" in out


def test_reassemble_prints_json_lines_that_say_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reassemble", str(RECORDINGS / "openai-chat" / "parallel-calls.sse")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["name"] for line in lines[:-1]] == ["plus", "minus"] and all(line["ok"] for line in lines[:-1])
    assert lines[-1] == {
        "result": {"format": "openai-chat", "finish_reason": "tool_calls", "violations": [], "ok": True}
    }


PARALLEL = RECORDINGS / "openai-chat" / "parallel-calls.sse"


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_reassemble_reads_a_raw_capture_without_a_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(PARALLEL.read_bytes())
    assert main(["reassemble", str(capture)]) == 0
    lines = json_lines(capsys.readouterr().out)
    assert [(line["name"], line["arguments"]) for line in lines[:-1]] == [
        ("plus", {"a": 2, "b": 3}),
        ("minus", {"a": 3, "b": 2}),
    ]
    assert lines[-1] == {
        "result": {"format": "openai-chat", "finish_reason": "tool_calls", "violations": [], "ok": True}
    }


def test_reassemble_checks_a_capture_against_the_tools_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "capture"  # no suffix: still a capture
    capture.write_bytes(PARALLEL.read_bytes())
    tools = tmp_path / "tools.json"
    strings = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    tools.write_text(json.dumps([{"name": "plus", "parameters": strings}]), encoding="utf-8")
    assert main(["reassemble", str(capture), "--tools", str(tools)]) == 1
    lines = json_lines(capsys.readouterr().out)
    assert [(line["name"], line["ok"], line["violations"]) for line in lines[:-1]] == [
        ("plus", False, ["TYPE_MISMATCH /a"]),
        ("minus", False, ["UNKNOWN_TOOL"]),
    ]


def test_reassemble_reads_a_capture_from_standard_input_as_it_arrives() -> None:
    body = PARALLEL.read_bytes()
    events = body.split(b"\n\n")
    # Up to the event after the first call's closing brace: the first call is whole, the second not begun.
    first_whole = next(at for at, event in enumerate(events) if b"minus" in event)
    command = [
        sys.executable,
        "-m",
        "toolwire",
        "reassemble",
        "-",
        "--emit",
        "complete",
        "--wire-format",
        "openai-chat",
    ]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"\n\n".join(events[:first_whole]) + b"\n\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready, "the first call is printed before standard input ends"
        assert json.loads(process.stdout.readline())["name"] == "plus"
        process.stdin.write(b"\n\n".join(events[first_whole:]))
        process.stdin.close()
        rest = json_lines(process.stdout.read().decode())
        assert process.wait(timeout=60) == 0
    assert [line.get("name") for line in rest] == ["minus", None] and rest[-1]["result"]["ok"] is True


def test_reassemble_says_in_one_line_what_it_cannot_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reassemble", str(tmp_path / "missing.sse")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"toolwire: {tmp_path / 'missing.sse'}: no such file"]
    garbage = tmp_path / "garbage.txt"
    garbage.write_bytes(b"\xff\xfe not a stream")
    assert main(["reassemble", str(garbage)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"toolwire: {garbage}: chunk 0: the body is none of the framings toolwire reads"), line
