"""Installed as users install it: the built wheel in a clean virtualenv with no extras.

The base install has no dependencies. ``toolwire --help``, every ``toolwire CMD --help``, ``--version`` and ``demo``
work there, and a command whose extra is missing says in one line what to install, never with a traceback. The
wheel is built with the dev profile into the warm ``target/`` (stripped: the debug symbols make it ten times larger).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import REPO
from toolwire.cli._commands import COMMANDS

pytestmark = pytest.mark.wheel


class Installed:
    """The ``toolwire`` script of a clean virtualenv, run from an empty folder with a clean environment."""

    def __init__(self, script: Path, folder: Path) -> None:
        self.script = script
        self.folder = folder
        self.env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.script), *args], cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=120
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    maturin = shutil.which("maturin", path=str(Path(sys.executable).parent)) or shutil.which("maturin")
    assert maturin is not None, "maturin builds the wheel: pip install -r requirements-dev.txt"
    dist = root / "dist"
    subprocess.run(
        [maturin, "build", "--locked", "--profile", "dev", "--strip", "--quiet", "--out", str(dist)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=900,
    )
    (wheel,) = dist.glob("toolwire-*.whl")
    environment = root / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True)
    assert {package["name"] for package in json.loads(listed.stdout)} <= {"pip", "setuptools", "toolwire"}
    work = root / "work"
    work.mkdir()
    yield Installed(environment / "bin" / "toolwire", work)


def test_help_version_and_every_command_help(installed: Installed) -> None:
    import toolwire

    done = installed("--help")
    assert done.returncode == 0 and done.stderr == ""
    for command in COMMANDS:
        assert command.name in done.stdout
    done = installed("--version")
    assert (done.returncode, done.stdout) == (0, f"toolwire {toolwire.__version__}\n")
    for command in COMMANDS:
        done = installed(command.name, "--help")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"usage: toolwire {command.name}") and done.stderr == ""


def test_demo_reads_the_recordings_shipped_in_the_wheel(
    installed: Installed, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolwire.cli import main

    done = installed("demo")
    assert done.returncode == 0, done.stderr
    assert main(["demo"]) == 0
    assert done.stdout == capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["lint", "tools.json", "--target", "openai"], "toolwire lint: needs yaml: pip install 'toolwire[schema]'"),
        (["serve"], "toolwire serve: needs yaml: pip install 'toolwire[server]'"),  # the bundled script first
        (["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"], "toolwire probe: needs httpx: "),
        (["replay", "calls.jsonl", "--tools", "tools.json"], "toolwire replay: needs orjson: "),
        (["matrix", "cases.yaml", "--model", "openai-chat:m@http://127.0.0.1:9/v1"], "toolwire matrix: needs yaml: "),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else None,
)
def test_a_missing_extra_is_one_line_saying_what_to_install(installed: Installed, argv: list[str], line: str) -> None:
    (installed.folder / "tools.json").write_text('[{"name": "t", "parameters": {"type": "object"}}]', encoding="utf-8")
    (installed.folder / "calls.jsonl").write_text('{"id": "c", "name": "t", "arguments": {}}\n', encoding="utf-8")
    (installed.folder / "cases.yaml").write_text("cases: []\n", encoding="utf-8")
    done = installed(*argv)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(line) and done.stderr.count("\n") == 1, done.stderr
    extra = next(command.extra for command in COMMANDS if command.name == argv[0])
    assert done.stderr.endswith(f": pip install 'toolwire[{extra}]'\n")


def test_what_needs_no_extra_runs_on_the_base_install(installed: Installed) -> None:
    (installed.folder / "tools.json").write_text(
        '[{"name": "get_weather", "description": "Current weather for a city, in the unit asked for.", '
        '"parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, '
        '"required": ["city"], "additionalProperties": false}}]',
        encoding="utf-8",
    )
    done = installed("check", "tools.json", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
