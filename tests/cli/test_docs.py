"""docs/cli.md lists every command of the command table, in its order, with the extra each needs."""

from __future__ import annotations

import re

from tests.support.paths import REPO
from toolwire.cli._commands import COMMANDS

DOC = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")


def test_the_command_table_is_the_clis() -> None:
    rows = re.findall(r"^\| `([a-z]+)` \| .*? \| (`[a-z]+`|—) \| .* \|$", DOC, re.M)
    assert rows == [(command.name, f"`{command.extra}`" if command.extra else "—") for command in COMMANDS]


def test_every_page_it_links_to_is_there() -> None:
    for page in re.findall(r"\]\(([a-z-]+\.md)(?:#[a-z0-9-]+)?\)", DOC):
        assert (REPO / "docs" / page).is_file(), page
