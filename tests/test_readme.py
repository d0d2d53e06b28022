"""The README's ```python blocks run as written (```py blocks are illustrations that need a live endpoint)."""

from __future__ import annotations

import re

import pytest

from conftest import REPO

BLOCKS = re.findall(r"^```python\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_has_runnable_examples() -> None:
    assert BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{number}" for number in range(len(BLOCKS))])
def test_readme_block_runs(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
