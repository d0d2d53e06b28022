"""The HTML report of ``toolwire matrix``: read back with ``html.parser`` (the grid, a failure's details), and opened
in headless Chromium, whose DOM after the script ran must show the grid and the failure the address points to."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.cases.matrix_helpers import MODELS_SCRIPT, SUPPORT, VERDICTS
from toolwire.cases import load_cases
from toolwire.cases._spec import parse_spec
from toolwire.cases.report import MatrixResult
from toolwire.cases.report._html import cell_id, render_html
from toolwire.cases.run._run import run_matrix
from toolwire.server import LocalEndpoint

_VOID = {"meta", "link", "br", "hr", "img", "input", "wbr", "col", "source"}


@dataclass
class Node:
    tag: str
    attributes: dict[str, str | None]
    children: list[Any] = field(default_factory=list)  # Node or text

    def text(self) -> str:
        return "".join(child.text() if isinstance(child, Node) else child for child in self.children)

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str, **attributes: str) -> list[Node]:
        return [
            node
            for node in self.iter()
            if node.tag == tag and all(node.attributes.get(k.rstrip("_")) == v for k, v in attributes.items())
        ]

    def classes(self) -> set[str]:
        return set((self.attributes.get("class") or "").split())


class TreeBuilder(HTMLParser):
    """The document as a tree of ``Node``s (enough of HTML for a report we write ourselves)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(text: str) -> Node:
    builder = TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


@pytest.fixture(scope="module")
def result() -> Iterator[MatrixResult]:
    cases = load_cases(SUPPORT).cases
    with LocalEndpoint(MODELS_SCRIPT) as endpoint:
        models = [
            parse_spec(f"openai-chat:steady@{endpoint.url},label=steady"),
            parse_spec(f"anthropic-messages:eager@{endpoint.url},label=eager"),
        ]
        yield run_matrix(cases, models, source=str(SUPPORT))


def _label(th: Node) -> str:
    """A column's name: its header's text without the line saying where the model is (``.where``)."""
    where = "".join(span.text() for span in th.find_all("span") if "where" in span.classes())
    return th.text().removesuffix(where).strip()


def grid_of(document: Node) -> tuple[list[str], dict[str, list[Node]]]:
    (table,) = document.find_all("table", id="grid")
    header = [_label(th) for th in table.find_all("thead")[0].find_all("th")]
    rows = {}
    for row in table.find_all("tbody")[0].find_all("tr"):
        rows[row.attributes["data-case"] or ""] = row.find_all("td")
    return header, rows


def test_the_grid_has_a_row_per_case_and_a_cell_per_model(result: MatrixResult) -> None:
    header, rows = grid_of(parse(render_html(result)))
    assert header == ["case", *result.labels]
    assert list(rows) == [info.name for info in result.cases]
    for case, cells in rows.items():
        assert [cell.attributes["data-model"] for cell in cells] == list(result.labels)
        for node, label in zip(cells, result.labels, strict=True):
            cell = result.cell(case, label)
            assert node.text().startswith(f"{cell.passed}/{cell.total}")
            assert node.attributes["data-status"] == cell.status and cell.status in node.classes()
            links = node.find_all("a")
            assert bool(links) is (cell.status != "pass")


def test_each_model_column_names_its_format_and_url(result: MatrixResult) -> None:
    (table,) = parse(render_html(result)).find_all("table", id="grid")
    columns = table.find_all("thead")[0].find_all("th")[1:]
    shown = [[span.text() for span in th.find_all("span") if "where" in span.classes()] for th in columns]
    assert shown == [[f"{spec.format} · {spec.base_url}"] for spec in result.models]
    assert {spec.format for spec in result.models} == {"openai-chat", "anthropic-messages"}


def test_a_failing_cell_opens_to_expected_versus_received_and_the_contract_findings(result: MatrixResult) -> None:
    document = parse(render_html(result))
    _, rows = grid_of(document)
    row = [info.name for info in result.cases].index("urgent ticket")
    column = result.labels.index("steady")
    link = rows["urgent ticket"][column].find_all("a")[0]
    assert link.attributes["href"] == f"#{cell_id(row, column)}"
    (details,) = document.find_all("details", id=cell_id(row, column))
    assert details.attributes["data-case"] == "urgent ticket" and details.attributes["data-model"] == "steady"
    assert "0/1 passed" in details.find_all("summary")[0].text()
    codes = [node.attributes["data-code"] for node in details.find_all("div") if "failure" in node.classes()]
    assert set(codes) == VERDICTS[("urgent ticket", "steady")]
    (diff,) = [pre for pre in details.find_all("pre") if "diff" in pre.classes()]
    expected = [span.text() for span in diff.find_all("span") if "exp" in span.classes()]
    received = [span.text() for span in diff.find_all("span") if "got" in span.classes()]
    assert expected == ['- /priority: one of "low", "normal", "high", "urgent"']
    assert received == ['+ /priority: "critical"']
    versus = next(div for div in details.find_all("div") if "versus" in div.classes())
    sides = versus.text()
    assert "step 0: create_ticket" in sides and '"priority": "urgent"' in sides  # what the case expects
    assert '"priority":"critical"}  (invalid)' in sides and "ENUM_OUT_OF_RANGE /priority" in sides  # received
    findings = details.find_all("ul")[0].text()
    assert "arguments_valid" in findings and "turn 0" in findings


def test_every_cell_that_failed_a_repeat_has_a_section_and_nothing_else_does(result: MatrixResult) -> None:
    document = parse(render_html(result))
    sections = document.find_all("details")
    shown = {(node.attributes["data-case"], node.attributes["data-model"]) for node in sections}
    assert shown == {(cell.case, cell.model) for cell in result.cells if cell.status != "pass"}
    assert shown == {key for key, codes in VERDICTS.items() if codes}


def test_the_file_is_self_contained(result: MatrixResult) -> None:
    document = parse(render_html(result))
    elements = list(document.iter())
    assert not [node.tag for node in elements if "src" in node.attributes or node.tag in ("link", "iframe", "object")]
    assert {node.attributes["href"][:1] for node in elements if "href" in node.attributes} == {"#"}
    assert document.find_all("style") and document.find_all("script")
    assert "@import" not in document.find_all("style")[0].text() and "url(" not in document.find_all("style")[0].text()


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def test_headless_chromium_shows_the_grid_and_the_failure_the_address_opens(
    result: MatrixResult, tmp_path: Path
) -> None:
    binary = _chromium()
    if binary is None:
        pytest.skip("no chromium, chromium-browser or google-chrome on PATH (Debian: apt-get install chromium)")
    page = tmp_path / "matrix.html"
    page.write_text(render_html(result), encoding="utf-8")
    row = [info.name for info in result.cases].index("opening hours")
    column = result.labels.index("eager")
    target = cell_id(row, column)
    command = [binary, "--headless", "--disable-gpu", "--no-first-run", "--virtual-time-budget=5000"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    command += [f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{page.as_uri()}#{target}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = parse(done.stdout)
    (html,) = dom.find_all("html")
    assert html.attributes.get("data-ready") == "true", "the report's script did not run"
    header, rows = grid_of(dom)
    assert header == ["case", *result.labels] and list(rows) == [info.name for info in result.cases]
    (opened,) = [node for node in dom.find_all("details") if "open" in node.attributes]
    assert opened.attributes["id"] == target
    assert "unexpected_call" in opened.text() and "create_ticket" in opened.text()
    assert "selected" in rows["opening hours"][column].classes()
    others = [node for node in dom.find_all("details") if node.attributes["id"] != target]
    assert others and not any("open" in node.attributes for node in others)
