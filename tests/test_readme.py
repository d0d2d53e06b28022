"""The README's ```python blocks run as written (```py blocks are illustrations that need a live endpoint)."""

from __future__ import annotations

import linecache
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
    # The block's own text in linecache: inspect (hypothesis reads a test's source) must not read README.md's lines
    # at the block's line numbers. Regression: adding lines above a block broke the block's hypothesis test.
    filename = f"<README.md block {BLOCKS.index(block)}>"
    linecache.cache[filename] = (len(block), None, block.splitlines(keepends=True), filename)
    try:
        exec(compile(block, filename, "exec"), {"__name__": "readme"})
    finally:
        linecache.cache.pop(filename, None)


COMMANDS = re.findall(r"^\$ toolwire (.+?)(?: &)?$", (REPO / "README.md").read_text(encoding="utf-8"), re.M)


def test_the_readme_documents_commands() -> None:
    assert {line.split()[0] for line in COMMANDS} >= {"probe", "serve"}


@pytest.mark.parametrize("line", COMMANDS)
def test_every_documented_command_line_parses(line: str) -> None:
    from toolwire.cli import build_parser

    build_parser().parse_args(shlex.split(line.split("  #")[0]))


SCRIPTS = re.findall(r"^```yaml\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.parametrize("text", SCRIPTS)
def test_every_documented_script_loads(text: str, tmp_path: Path) -> None:
    import yaml

    if "cases" in yaml.safe_load(text):  # a case file, beside the example's tools it names
        from toolwire.cases import EXAMPLES, load_cases

        (tmp_path / "support_tools.yaml").write_bytes((EXAMPLES / "support_tools.yaml").read_bytes())
        path = tmp_path / "cases.yaml"
        path.write_text(text, encoding="utf-8")
        shown = load_cases(path)
        bundled = load_cases(EXAMPLES / "support.yaml")
        # The README shows the bundled example, trimmed of comments and a system sentence: the same cases.
        assert [case.name for case in shown.cases] == [case.name for case in bundled.cases]
        assert [case.expect for case in shown.cases] == [case.expect for case in bundled.cases]
        return
    from toolwire.server import load_script

    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    assert load_script(path).models


TABLES = re.findall(
    r"^```text\n(toolwire matrix .*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S
)


def test_the_matrix_shown_is_the_one_the_docs_test_holds_to_a_real_run() -> None:
    assert TABLES
    for table in TABLES:
        assert table in (REPO / "docs" / "matrix.md").read_text(encoding="utf-8")


CONFIGS = re.findall(r"^```toml\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.parametrize("text", CONFIGS)
def test_every_documented_configuration_loads(text: str, tmp_path: Path) -> None:
    from toolwire.schema import load_config

    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    assert config.tools and config.targets and config.rules
