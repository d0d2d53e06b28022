"""docs/research/ holds what the project cites from its research notes, so that a clone has no dangling reference.

Every citation of a note in the repository (docs, README, code, rule files, recordings, tests) names a section,
table or quirk the summary of that note in docs/research/ has; the docs and the README point there, never outside
the repository; and where the notes themselves sit beside the repository (../shared/research), the tables the
summaries keep are still the notes' own, cell for cell.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.schema.lint.test_rules_research import parse_matrix
from tests.support.paths import REPO

RESEARCH = REPO / "docs" / "research"
NOTES = REPO.parent / "shared" / "research"
RULES = RESEARCH / "provider-schema-rules.md"
QUIRKS = RESEARCH / "streaming-anchors.md"

# Every file a user's clone holds text in, where a note may be cited.
CITING = [
    path
    for pattern in ("README.md", "docs/**/*.md", "python/**/*.py", "python/**/*.yaml", "recordings/**/*.json")
    for path in REPO.glob(pattern)
    if RESEARCH not in path.parents
] + list((REPO / "tests").rglob("*.py"))


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def headings(page: Path) -> str:
    return "\n".join(line for line in text(page).splitlines() if line.startswith("#"))


def test_the_citing_files_are_found() -> None:
    assert len(CITING) > 100 and REPO / "README.md" in CITING


def test_docs_and_readme_cite_no_note_outside_the_repository() -> None:
    for path in CITING:
        if path.suffix == ".md":
            assert "shared/research" not in text(path), f"{path.relative_to(REPO)} cites ../shared/research"


def test_every_cited_part_of_the_schema_rules_note_is_summarised() -> None:
    parts = headings(RULES)
    cited = set()
    for path in CITING:
        for citation in re.findall(r"provider-schema-rules\.md[^\n]{0,120}", text(path)):
            cited |= set(re.findall(r"\b([AB]\.[1-6])\b", citation))
            cited |= {f"Part {part}" for part in re.findall(r"Part ([AB])\b", citation)}
            if "section 5" in citation or "§5" in citation:
                cited.add("5. Sources")
    assert {"A.1", "A.2", "A.3", "A.4", "B.3", "Part A", "Part B"} <= cited
    for part in cited:
        assert re.search(rf"^#+ (?:{re.escape(part)}|.*\b{re.escape(part)}\b)", parts, re.M), part


def test_the_rule_files_section_five_and_open_questions_are_there() -> None:
    # The rule files cite "the research read (its section 5)" for dates and "open questions" for unknown cells.
    assert re.search(r"^## 5\. Sources$", headings(RULES), re.M)
    assert "### Open questions worth a live probe" in headings(RULES)


def test_every_quirk_cited_is_in_the_catalogue() -> None:
    catalogue = set(re.findall(r"^\| (Q\d+b?) \|", text(QUIRKS), re.M))
    cited = set()
    for path in CITING:
        cited |= set(re.findall(r"\b(Q(?:[1-9]|[12]\d|30)b?)\b", text(path)))
    cited |= {f"Q{number}" for number in range(1, 22)} | {"Q7b"}  # the recordings' own list (test_recordings)
    assert cited - catalogue == set()
    for section in re.findall(r"streaming-anchors\.md §(\d)\.\d", "\n".join(text(path) for path in CITING)):
        assert re.search(rf"^## {section}\. ", headings(QUIRKS), re.M), section


NOTE_TABLES = [
    ("provider-schema-rules.md", "### A.2 Matrix"),
    ("provider-schema-rules.md", "### A.3 Matrix"),
    ("provider-schema-rules.md", "### A.4 Tool-level rules"),
    ("provider-schema-rules.md", "### B.3"),
]


@pytest.mark.parametrize(("note", "heading"), NOTE_TABLES)
def test_a_table_kept_is_the_notes_own(note: str, heading: str) -> None:
    if not (NOTES / note).is_file():
        pytest.skip(f"{NOTES / note} is absent (the notes live beside the repository in ../shared)")
    assert parse_matrix(text(RESEARCH / note), heading) == parse_matrix(text(NOTES / note), heading)


def test_the_quirks_kept_are_the_notes_own() -> None:
    if not (NOTES / "streaming-anchors.md").is_file():
        pytest.skip(f"{NOTES} is absent (the notes live beside the repository in ../shared)")

    def rows(page: str) -> dict[str, tuple[str, ...]]:
        # Number, quirk, providers and sources: the summary leaves out the note's shapes (the recordings hold them).
        found = {}
        for line in page.splitlines():
            if re.match(r"^\| Q\d+b? \|", line):
                cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
                found[cells[0]] = (cells[1], cells[2], cells[-2], cells[-1])
        return found

    assert rows(text(QUIRKS)) == rows(text(NOTES / "streaming-anchors.md"))
