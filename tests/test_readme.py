"""The README's ```python blocks run as written (```py blocks are illustrations that need a live endpoint)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import REPO

BLOCKS = re.findall(r"^```python\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_has_runnable_examples() -> None:
    assert BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{number}" for number in range(len(BLOCKS))])
def test_readme_block_runs(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    exec(compile(block, "README.md", "exec"), {"__name__": "readme"})


COMMANDS = re.findall(r"^\$ toolstream (.+?)(?: &)?$", (REPO / "README.md").read_text(encoding="utf-8"), re.M)


def test_the_readme_documents_commands() -> None:
    assert {line.split()[0] for line in COMMANDS} >= {"probe", "serve"}


@pytest.mark.parametrize("line", COMMANDS)
def test_every_documented_command_line_parses(line: str) -> None:
    from toolstream.cli import build_parser

    build_parser().parse_args(shlex.split(line.split("  #")[0]))


SCRIPTS = re.findall(r"^```yaml\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.parametrize("text", SCRIPTS)
def test_every_documented_script_loads(text: str, tmp_path: Path) -> None:
    from toolstream.server import load_script

    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    assert load_script(path).models


CONFIGS = re.findall(r"^```toml\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.parametrize("text", CONFIGS)
def test_every_documented_configuration_loads(text: str, tmp_path: Path) -> None:
    from toolstream.schema import load_config

    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    assert config.tools and config.targets and config.rules
