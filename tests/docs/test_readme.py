"""The README's ```python blocks run as written (```py blocks are illustrations that need a live endpoint).

The pages that took over what the README used to say (``PAGES``) are held to the same: their command lines parse,
their scripts and configurations load, their ```python blocks run.
"""

from __future__ import annotations

import linecache
import re
import shlex
from pathlib import Path

import pytest
import tomllib

from tests.support.paths import REPO

PAGES = ("README.md", "docs/guide.md", "docs/cli.md", "docs/contract.md", "docs/schema.md")
README = (REPO / "README.md").read_text(encoding="utf-8")


def found(pattern: str) -> list[str]:
    """Every match of ``pattern`` (one group) in the pages, the README's first."""
    return [
        match for page in PAGES for match in re.findall(pattern, (REPO / page).read_text(encoding="utf-8"), re.M | re.S)
    ]


BLOCKS = found(r"^```python\n(.*?)^```")


def test_the_readme_has_runnable_examples() -> None:
    assert re.findall(r"^```python\n(.*?)^```", README, re.M | re.S)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{number}" for number in range(len(BLOCKS))])
def test_readme_block_runs(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    # The block's own text in linecache: inspect (hypothesis reads a test's source) must not read README.md's lines
    # at the block's line numbers. Regression: adding lines above a block broke the block's hypothesis test.
    filename = f"<documented block {BLOCKS.index(block)}>"
    linecache.cache[filename] = (len(block), None, block.splitlines(keepends=True), filename)
    try:
        exec(compile(block, filename, "exec"), {"__name__": "readme"})
    finally:
        linecache.cache.pop(filename, None)


COMMANDS = found(r"^\$ toolwire (.+?)(?: &)?$")


def test_the_readme_documents_commands() -> None:
    assert {line.split()[0] for line in re.findall(r"^\$ toolwire (.+?)(?: &)?$", README, re.M)} >= {"probe", "serve"}


@pytest.mark.parametrize("line", COMMANDS)
def test_every_documented_command_line_parses(line: str) -> None:
    from toolwire.cli import build_parser

    build_parser().parse_args(shlex.split(line.split("  #")[0]))


SCRIPTS = found(r"^```yaml\n(.*?)^```")


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


TABLES = re.findall(r"^```text\n(toolwire matrix .*?)^```", README, re.M | re.S)


def test_the_matrix_shown_is_the_one_the_docs_test_holds_to_a_real_run() -> None:
    assert TABLES
    for table in TABLES:
        assert table in (REPO / "docs" / "matrix.md").read_text(encoding="utf-8")


CONFIGS = found(r"^```toml\n(.*?)^```")


@pytest.mark.parametrize("text", CONFIGS)
def test_every_documented_configuration_loads(text: str, tmp_path: Path) -> None:
    from toolwire.schema import load_config

    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    assert config.tools and config.targets and config.rules


def test_the_extras_shown_are_the_packages() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    rows = re.findall(r"^\| `([a-z]+)` \| ([^|]+) \| [^|]+ \|$", README, re.M)
    assert [name for name, _ in rows] == list(extras)
    for name, brings in rows:
        packages = {re.split(r"[<>=\[ ]", requirement)[0].lower() for requirement in extras[name]}
        assert {package.strip().lower() for package in brings.split(",")} == packages, name
