"""``lint --target all`` over the 7,270 real tool definitions of ../shared/corpora/tool-schemas.

The run must not raise; BFCL as published does not load (its top-level ``"type": "dict"``), the converted BFCL set
and the cassette sets load and produce findings whose pointers resolve inside the tool's parameters. The run time
is printed, not asserted.
"""

from __future__ import annotations

import collections
import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import corpus
from toolwire.schema import FindingReport, ToolSource, load_tools
from toolwire.schema.lint._lint import LINT_TARGETS, lint_tools

CASSETTES = (
    "pydantic-ai_cassettes.jsonl",
    "magentic_cassettes.jsonl",
    "simonw-llm_cassettes.jsonl",
    "llama-stack_recordings.jsonl",
    "req_llm_fixtures.jsonl",
    "anthropic-sdk_snapshots.jsonl",
)


def resolve(schema: Any, pointer: str) -> Any:
    node = schema
    for token in pointer.split("/")[1:] if pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node[token]
        else:
            node = node[int(token)]
    return node


@pytest.fixture(scope="module")
def run(request: pytest.FixtureRequest) -> tuple[list[ToolSource], FindingReport]:
    folder: Path = corpus("tool-schemas")
    started = time.perf_counter()
    sources = load_tools([folder])
    loaded = time.perf_counter()
    report = lint_tools(sources, "all")
    done = time.perf_counter()
    timing = (
        f"lint --target all over {len(sources)} definitions: read {loaded - started:.2f} s, "
        f"lint {done - loaded:.2f} s, {len(report.findings)} findings"
    )
    # Shown even under output capture, so every run reports the time (it is not asserted).
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print(f"\n[toolwire] {timing}")
    return sources, report


def test_the_whole_corpus_lints(run: tuple[list[ToolSource], FindingReport]) -> None:
    sources, report = run
    assert len(sources) == 7270
    assert report.extra["targets"] == list(LINT_TARGETS)
    rows = report.extra["matrix"]["rows"]
    assert len([row for row in rows if row["origin"]]) == len(sources)
    counts = collections.Counter(f.rule for f in report.findings)
    assert counts["lint/not-loadable"] == sum(1 for source in sources if source.tool is None) == 3526


def test_published_bfcl_does_not_load(run: tuple[list[ToolSource], FindingReport]) -> None:
    sources, report = run
    raw = {source.origin for source in sources if Path(source.origin.split(":")[0]).name == "bfcl_v4.jsonl"}
    not_loadable = {f.origin for f in report.findings if f.rule == "lint/not-loadable"}
    assert raw == not_loadable and len(raw) == 3526
    rows = {row["origin"]: row["cells"] for row in report.extra["matrix"]["rows"]}
    assert all(set(rows[origin].values()) == {"not-loadable"} for origin in raw)


@pytest.mark.parametrize("name", ["bfcl_v4_jsonschema.jsonl", *CASSETTES])
def test_loaded_sets_give_findings_at_pointers_that_exist(
    run: tuple[list[ToolSource], FindingReport], name: str
) -> None:
    sources, report = run
    mine = {source.origin: source for source in sources if Path(source.origin.split(":")[0]).name == name}
    assert mine and all(source.tool is not None for source in mine.values())
    findings = [f for f in report.findings if f.origin in mine]
    assert findings
    for finding in findings:
        parameters = mine[finding.origin].parameters
        try:
            resolve(parameters, finding.pointer)
        except (KeyError, IndexError, ValueError) as error:
            pytest.fail(f"{finding.rule} at {finding.pointer!r} does not exist in {finding.origin}: {error}")
        assert finding.target in LINT_TARGETS and finding.source and finding.effect


def test_request_wide_limits_cover_the_whole_corpus(run: tuple[list[ToolSource], FindingReport]) -> None:
    _, report = run
    request = {f.rule: f.data["count"] for f in report.findings if f.tool is None and f.origin is None}
    assert request["openai/tool-count"] == request["vertex/tool-count"] == 3744
    assert request["anthropic-strict/tool-count"] == 3744
    assert request["cohere/field-budget"] > 200
