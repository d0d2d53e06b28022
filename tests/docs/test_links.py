"""Every relative link of the README and docs/ leads to a file of the repository and, with an anchor, a heading of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"[`*_]", lambda match: "_" if match.group(0) == "_" else "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(heading) for heading in re.findall(r"^#+ (.+)$", text, re.M)}


def links(page: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(REPO)) for page in PAGES])
def test_every_link_resolves(page: Path) -> None:
    for link in links(page):
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{link}: no {path.relative_to(REPO)}"
        if anchor and path.suffix == ".md":
            assert anchor in anchors(path), f"{link}: no heading of {path.relative_to(REPO)} has the anchor {anchor}"
