"""The schema toolkit over the real tool corpus (issue 6, item 7): ``check`` and ``lint --target all``.

Inputs are the 7,270 definitions of ``../shared/corpora/tool-schemas`` (read once, untimed); the smallest cell is the
first 100 of the recorded sets, which ``bench-smoke`` runs. ``jsonschema-check-schema`` is what a team would write by
hand for the one check everyone starts with (``Draft202012Validator.check_schema`` on each schema); ``check`` does that
in the core and eighteen other rules besides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolwire.schema import check_tools, lint_tools, load_tools

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "tool-schemas"


def _sources(size: str) -> list[Any]:
    if not CORPUS.is_dir():
        pytest.skip(f"the tool-schema corpus is not at {CORPUS}")
    files = sorted(CORPUS.glob("*.jsonl"))
    if size == "small":
        return load_tools([CORPUS / "pydantic-ai_cassettes.jsonl"])[:100]
    return load_tools(files)


SIZES = [pytest.param("small", id="100-defs"), pytest.param("corpus", id="7270-defs", marks=pytest.mark.slow)]


@pytest.mark.parametrize("size", SIZES)
def test_check(benchmark: Any, size: str) -> None:
    sources = _sources(size)
    report = benchmark(check_tools, sources)
    assert set(report.subjects) == {s.name for s in sources if s.name}


@pytest.mark.parametrize("size", SIZES)
def test_lint_all_targets(benchmark: Any, size: str) -> None:
    sources = _sources(size)
    report = benchmark(lint_tools, sources, "all")
    assert report.extra["targets"] and report.findings


@pytest.mark.parametrize("size", SIZES)
def test_jsonschema_check_schema(benchmark: Any, size: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schemas = [s.parameters for s in _sources(size)]

    def check_all() -> int:
        failures = 0
        for schema in schemas:
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError:
                failures += 1
        return failures

    assert benchmark(check_all) >= 0
