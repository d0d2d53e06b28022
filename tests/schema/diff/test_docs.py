"""docs/diff.md says what the code does: its change-kind table is ``CHANGE_KINDS``, and its examples are real runs.

The example files of the document (code blocks with a ``title``) are written into a fresh git repository (the file
titled "committed" is committed first), each ``$ toolwire diff ...`` command of a ``console`` block is run there
through ``toolwire.cli.main`` with the date the document states, and its output must be the block's text.
"""

from __future__ import annotations

import datetime
import functools
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import REPO
from toolwire.cli import main
from toolwire.schema import diff
from toolwire.schema.diff._diff import CHANGE_KINDS, diff_tools

DOC = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)(?: title=\"([^\"]+)\")?\n(.*?)^```$", re.M | re.S)


def table_after(heading: str) -> list[list[str]]:
    lines = DOC[DOC.index(heading) :].splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("| `"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def test_the_change_kind_table_is_change_kinds() -> None:
    rows = table_after("## Change kinds")
    documented = [(row[0].strip("`"), *row[1:]) for row in rows]
    expected = [
        (kind, spec.verdict, spec.checks.replay, spec.checks.handler, spec.checks.behaviour, spec.checks.provider,
         spec.summary, spec.row)
        for kind, spec in CHANGE_KINDS.items()
    ]  # fmt: skip
    assert documented == expected


def test_the_policy_keys_documented_are_the_policy_keys() -> None:
    from toolwire.schema.diff._policy import POLICY_KEYS

    section = DOC[DOC.index("## Policy") :]
    block = next(body for lang, title, body in BLOCK.findall(section) if lang == "toml")
    keys = re.findall(r"^([a-z-]+) = ", block, re.M)
    assert set(keys) >= set(POLICY_KEYS) - {"severity", "waivers"}
    assert "[tool.toolwire.diff.severity]" in block and "[[tool.toolwire.diff.waivers]]" in block


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    files = {title: body for _, title, body in BLOCK.findall(DOC) if title}
    assert files, "the document has titled example files"

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "docs@example.com")
    git("config", "user.name", "docs")
    for title, body in files.items():
        if title.endswith("(committed)"):
            (tmp_path / title.split()[0]).write_text(body, encoding="utf-8")
    git("add", ".")
    git("commit", "-qm", "the version callers know")
    for title, body in files.items():
        if not title.endswith("(committed)"):
            (tmp_path / title.split()[0]).write_text(body, encoding="utf-8")
    return tmp_path


def runs() -> list[tuple[str, str]]:
    found = []
    for lang, _, body in BLOCK.findall(DOC):
        if lang == "console" and body.startswith("$ toolwire diff "):
            command, _, output = body.partition("\n")
            found.append((command[2:], output))
    return found


def test_the_document_has_examples() -> None:
    assert len(runs()) >= 3


@pytest.mark.parametrize(("command", "output"), runs(), ids=[command for command, _ in runs()])
def test_the_examples_are_real_runs(
    project: Path, command: str, output: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stated = re.search(r"run on (\d{4}-\d{2}-\d{2})", DOC)
    assert stated is not None, "the document states the date its examples ran on"
    today = datetime.date.fromisoformat(stated.group(1))
    monkeypatch.setattr(diff, "diff_tools", functools.partial(diff_tools, today=today))
    monkeypatch.chdir(project)
    argv = shlex.split(command)[1:]
    status = main(argv)
    printed = capsys.readouterr().out
    assert printed == output, printed
    assert status in (0, 1)
