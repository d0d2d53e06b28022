"""docs/benchmarks.md holds what benches/report.py wrote, between its marks, and the README quotes only its figures."""

from __future__ import annotations

import re

import pytest
from benches import report

from tests.support.paths import REPO

PAGE = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def test_the_page_is_where_the_report_writes() -> None:
    assert report.PAGE == REPO / "docs" / "benchmarks.md"


def test_writing_the_written_report_again_changes_nothing() -> None:
    assert report.splice(PAGE, report.written(PAGE)) == PAGE


def test_the_written_block_is_a_whole_report() -> None:
    block = report.written(PAGE)
    # Its first table is the chat grid's, and its last lines say how it was measured and what it missed.
    assert block.startswith("| cell | chunks | floor ns/chunk | core/floor |")
    assert re.search(r"^Measured in one run of `.*benches/report\.py` \(\d+ s\) on a release build", block, re.M)
    assert re.search(r"^Targets missed: \d+\.$", block, re.M) or "✗" not in block
    for heading in ("Raw event-stream bytes", "### Anthropic Messages and OpenAI Responses (raw bytes)"):
        assert heading in block


def test_a_new_report_replaces_only_what_lies_between_the_marks() -> None:
    before, after = PAGE.split(report.BEGIN)[0], PAGE.split(report.END)[1]
    spliced = report.splice(PAGE, "| cell |\n\nTargets missed: 0.")
    assert report.written(spliced) == "| cell |\n\nTargets missed: 0."
    assert spliced.startswith(before + report.BEGIN) and spliced.endswith(report.END + after)


@pytest.mark.parametrize(
    "page",
    [
        "no marks at all",
        f"{report.END}\n{report.BEGIN}",
        f"{report.BEGIN}\n{report.BEGIN}\n{report.END}",
        f"{report.BEGIN}\n{report.END}\n{report.END}",
    ],
    ids=["none", "reversed", "two-begins", "two-ends"],
)
def test_a_page_without_one_pair_of_marks_is_refused(page: str) -> None:
    with pytest.raises(ValueError, match="needs one"):
        report.splice(page, "x")


def test_write_and_only_do_not_mix() -> None:
    with pytest.raises(SystemExit):
        report.main(["--only", "formats", "--write"])


def test_every_figure_the_readme_quotes_is_on_the_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    summary = readme[readme.index("## Performance") :].split("\n## ", 1)[0]
    # A figure or a range of them (an en dash between), with its unit: a ratio, a share, a time or a rate.
    figures = re.findall(r"\d[\d.,]*(?:\u2013\d[\d.,]*)?(?: ?(?:\u00d7|%|µs|GB/s))", summary)
    assert len(figures) >= 10
    for figure in figures:
        assert figure in PAGE, f"the README quotes {figure!r}, which docs/benchmarks.md does not hold"
