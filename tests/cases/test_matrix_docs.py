"""docs/matrix.md held to the code: its specs parse, its errors are the ones raised, its models files load, its
options exist, and the terminal table, the offline error and the comparison it shows are what the command prints."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cases.matrix_helpers import MODELS_SCRIPT
from tests.support.paths import REPO
from toolwire.cases import load_models, parse_spec
from toolwire.cases._model import CaseResult
from toolwire.cases.report._model import Cell, RunRecord, meets, percent
from toolwire.cli import build_parser, main
from toolwire.server import LocalEndpoint

DOC = (REPO / "docs" / "matrix.md").read_text(encoding="utf-8")
SUPPORT = "python/toolwire/cases/examples/support.yaml"


def block_after(marker: str, fence: str = "text") -> str:
    """The first fenced block of kind ``fence`` after ``marker``."""
    rest = DOC.split(marker, 1)[1]
    return rest.split(f"```{fence}\n", 1)[1].split("```", 1)[0]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(MODELS_SCRIPT) as running:
        yield running


@pytest.fixture
def in_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder where the documented relative path of the case file resolves, as in the repository."""
    (tmp_path / "python").symlink_to(REPO / "python", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_spec_shown_parses() -> None:
    specs = DOC.split("FORMAT:MODEL[@BASE_URL][,KEY=VALUE]...\n```\n\n```text\n", 1)[1].split("```", 1)[0]
    lines = specs.strip().splitlines()
    assert len(lines) == 6
    for line in lines:
        spec = parse_spec(line)
        assert parse_spec(spec.compact()) == spec
        assert line.startswith(f"{spec.format}:{spec.model}")


def test_every_error_shown_is_the_one_raised() -> None:
    errors = DOC.split("Errors name the spec, the part at fault and the fix:\n\n```text\n", 1)[1].split("```", 1)[0]
    for line in errors.strip().splitlines():
        spec = re.match(r"model spec '([^']*)'", line)
        assert spec is not None, line
        with pytest.raises(ValueError) as raised:
            parse_spec(spec.group(1))
        assert str(raised.value) == line


def test_the_yaml_and_toml_models_files_shown_are_the_same_models(tmp_path: Path) -> None:
    yaml_text = block_after("### Models files", "yaml")
    toml_text = block_after("### Models files", "toml")
    (tmp_path / "models.yaml").write_text(yaml_text, encoding="utf-8")
    (tmp_path / "models.toml").write_text(toml_text, encoding="utf-8")
    from_yaml, from_toml = load_models(tmp_path / "models.yaml"), load_models(tmp_path / "models.toml")
    assert from_yaml == from_toml
    assert [spec.label for spec in from_yaml] == ["gpt", "local", "claude"]


def test_every_option_in_the_table_exists() -> None:
    table = DOC.split("Useful options:", 1)[1].split("### Retries", 1)[0]
    shown = set(re.findall(r"`(--?[a-z][a-z-]*)", table))
    parser = build_parser()
    matrix = parser._subparsers._group_actions[0].choices["matrix"]  # type: ignore[union-attr]
    known = {option for action in matrix._actions for option in action.option_strings}
    assert shown - known == set()
    assert known - shown - {"-h", "--help"} == set()  # and the table lists every option


def test_the_terminal_table_is_what_the_command_prints(
    endpoint: LocalEndpoint, in_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = block_after("the run above:")
    argv = [
        "matrix",
        SUPPORT,
        "--model",
        f"openai-chat:steady@{endpoint.url}",
        "--model",
        f"anthropic-messages:eager@{endpoint.url}",
    ]
    assert main(argv) == 1
    printed = capsys.readouterr().out
    timing = re.compile(r" · [0-9.]+ s$", re.MULTILINE)
    assert timing.sub("", printed) == timing.sub("", shown)


def test_the_offline_error_shown_is_the_one_printed(
    endpoint: LocalEndpoint, in_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = block_after("the case, the model, the turn and the repeat:", "console").strip().splitlines()
    command = example[0].removeprefix("$ ").split()
    assert command[:2] == ["toolwire", "matrix"]
    argv = [part.replace("http://127.0.0.1:8321/v1", endpoint.url) for part in command[1:]]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == example[1]


def test_the_comparison_shown_is_what_compare_prints(
    endpoint: LocalEndpoint, in_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = block_after("silently became `eager` on Tuesday:", "console").strip().splitlines()
    commands = [line.removeprefix("$ ").split() for line in session if line.startswith("$ ")]
    assert len(commands) == 3
    for command in commands[:2]:
        main([part.replace("http://127.0.0.1:8321/v1", endpoint.url) for part in command[1:]])
    capsys.readouterr()
    assert main(commands[2][1:]) == 1
    shown = "\n".join(line for line in session if not line.startswith("$ ")) + "\n"
    assert capsys.readouterr().out == shown


def test_the_json_fields_shown_are_the_ones_written(
    endpoint: LocalEndpoint, in_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["matrix", SUPPORT, "--model", f"openai-chat:steady@{endpoint.url}", "--output", "run.json"])
    capsys.readouterr()
    report = json.loads((in_folder / "run.json").read_text(encoding="utf-8"))
    fields = block_after("is the whole run, and what `--compare` reads:")
    top = {line.split()[0].removesuffix("[]") for line in fields.splitlines() if line and not line.startswith(" ")}
    assert top | {"seconds", "offline"} == set(report)
    lines = fields.splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("summary"))
    summary = lines[start].split(None, 1)[1]
    for line in lines[start + 1 :]:  # and its continuation lines
        if not line.startswith(" "):
            break
        summary += " " + line.strip()
    assert [key.strip() for key in summary.split(",")] == list(report["summary"])
    models = fields.split("models[]", 1)[1].split("cases[]", 1)[0]
    for key in report["models"][0]:
        assert key in models, key
    cell = report["cells"][0]
    cells_text = fields.split("cells[]", 1)[1]
    for key in cell:
        assert key in cells_text, key
    for key in cell["repeats"][0]:
        assert key in cells_text, key


def _cell(passed: int, total: int, rate: float) -> Cell:
    def run(number: int) -> RunRecord:
        ok = number <= passed
        return RunRecord(number, CaseResult("c", ok, (), ()) if ok else None, None if ok else "no answer")

    return Cell("c", "m", rate, tuple(run(number) for number in range(1, total + 1)))


def test_the_threshold_example_shown_is_what_a_cell_decides() -> None:
    """The page's own example: '`2/3` reaches `0.66` and `0.667` but not `0.67`', read from the text."""
    example = re.search(r"`(\d+)/(\d+)` reaches (.+?) but not `([\d.]+)`", DOC.replace("\n", " "))
    assert example is not None
    passed, total = int(example.group(1)), int(example.group(2))
    reached = [float(rate) for rate in re.findall(r"`([\d.]+)`", example.group(3))]
    assert reached == [0.66, 0.667]
    for rate in reached:
        assert meets(passed, total, rate), rate
        assert _cell(passed, total, rate).status == "flaky"
    missed = float(example.group(4))
    assert not meets(passed, total, missed)
    assert _cell(passed, total, missed).status == "fail"


@pytest.mark.parametrize(
    ("passed", "total", "rate", "expected"),
    [
        (2, 3, 0.6667, True),
        (1, 3, 0.333, True),
        (1, 3, 0.334, False),
        (1, 3, 0.34, False),
        (7, 10, 0.7, True),  # 0.7 * 10 is 7.000000000000001 in binary floating point
        (6, 10, 0.7, False),
        (3, 3, 1.0, True),
        (1999, 2000, 1.0, False),  # the allowance never reaches a whole repeat: 1.0 is every repeat
        (2000, 2001, 1.0, False),
        (0, 5, 0.0, True),
        (0, 0, 0.0, False),
    ],
)
def test_a_rate_is_read_to_three_decimals_and_never_a_whole_repeat(
    passed: int, total: int, rate: float, expected: bool
) -> None:
    assert meets(passed, total, rate) is expected


def test_reports_show_a_threshold_with_its_decimal() -> None:
    assert [percent(rate) for rate in (1.0, 0.5, 0.667, 0.6667, 0.0)] == ["100%", "50%", "66.7%", "66.7%", "0%"]


def test_the_unreachable_line_shown_is_the_one_printed(
    endpoint: LocalEndpoint, in_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = block_after("### A model that cannot be reached").strip()
    label = re.match(r"toolwire matrix: model '([^']+)' is unreachable: (http://[^/]+/v1)", shown)
    assert label is not None
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    argv = ["matrix", SUPPORT, "--model", f"openai-chat:m@{url},label={label.group(1)}", "-q"]
    assert main(argv) == 3
    printed = capsys.readouterr().err.strip()
    assert printed.replace(url, label.group(2)) == shown
