"""``toolwire diff`` against an outside oracle: the schema pairs of three JSON Schema compatibility suites.

``../shared/corpora/schema-diff/cases.jsonl`` holds 407 pairs from Confluent Schema Registry, Sentry's
json-schema-diff and Atlassian's json-schema-diff, each one tool in two versions with the oracle's verdict: breaking
(some call OLD accepts, NEW refuses; the case carries one, its witness) or not. Every pair goes through
``diff_tools``, as ``toolwire diff`` runs it:

- a breaking pair gets a BREAKING verdict, and its witness is valid under OLD and invalid under NEW by ``jsonschema``
  (an independent validator: this checks the corpus as much as the diff);
- a pair that is not breaking gets no BREAKING verdict.

The one exception is the rubric's choice for an optional parameter added to an open object (RISKY, not BREAKING):
its pairs are listed by case id, must still be RISKY for that reason, and docs/diff.md names every one.
"""

from __future__ import annotations

import json
from typing import Any, Final

import jsonschema
import pytest

from tests.support.paths import CORPORA, REPO
from toolwire.schema import ObservedCall, diff_tools

CASES_FILE = CORPORA / "schema-diff" / "cases.jsonl"
DOC = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")

#: The rubric's choice: an optional parameter added to an open object is RISKY (replay ``caution``), not BREAKING,
#: though an old call that sent that key with another value, valid while the object was open, now fails.
OPTIONAL_ADDED_TO_OPEN_OBJECT: Final = frozenset(
    {
        "confluent/diff-schema-examples/32",
        "confluent/diff-schema-examples/44",
        "confluent/diff-schema-examples-2020-12/30",
        "confluent/diff-schema-examples-2020-12/46",
        "sentry/properties/add",
        "sentry/properties/add_property_in_array",
        "sentry/properties/add_property_in_array_of_any_of",
        "atlassian/diff-schemas-type-object/28",
    }
)


def read_cases() -> list[dict[str, Any]]:
    if not CASES_FILE.exists():
        return []
    return [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


CASES = read_cases()
BY_ID = {case["id"]: case for case in CASES}
pytestmark = pytest.mark.skipif(not CASES, reason=f"{CASES_FILE} is absent (the corpora live in ../shared)")


def parameters(tools: list[dict[str, Any]]) -> dict[str, Any]:
    (tool,) = tools
    schema: dict[str, Any] = tool["function"]["parameters"]
    return schema


def valid(schema: dict[str, Any], instance: Any) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(instance)


def breaking_changes(report: Any) -> list[tuple[str, str, str]]:
    return [(change.kind, change.path, change.message) for change in report.changes if change.verdict == "BREAKING"]


@pytest.mark.parametrize("case", [c for c in CASES if c["expected"] == "breaking"], ids=lambda c: c["id"])
def test_a_breaking_case_has_a_witness_old_accepts_and_new_refuses(case: dict[str, Any]) -> None:
    witness = case["witness"]
    assert valid(parameters(case["old"]), witness)
    assert not valid(parameters(case["new"]), witness)


@pytest.mark.parametrize("case", [c for c in CASES if c["expected"] == "breaking"], ids=lambda c: c["id"])
def test_a_breaking_case_with_its_witness_recorded_is_breaking_and_the_witness_pinned(case: dict[str, Any]) -> None:
    # As recorded evidence, the witness must fail NEW and be named by a change that explains it (no unexplained
    # failure), which makes even the rubric's RISKY optional-property-added pairs BREAKING.
    witness = ObservedCall("probe_tool", json.dumps(case["witness"]), id="witness")
    report = diff_tools(case["old"], case["new"], evidence=[witness])
    assert not report.problems, [problem.message for problem in report.problems]
    assert report.verdict == "BREAKING"
    pinned = [c.kind for c in report.changes if c.evidence and any(x["id"] == "witness" for x in c.evidence["calls"])]
    assert pinned, [change.as_dict() for change in report.changes]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_the_diff_agrees_with_the_oracle(case: dict[str, Any]) -> None:
    report = diff_tools(case["old"], case["new"])
    assert not report.problems, [problem.message for problem in report.problems]
    if case["id"] in OPTIONAL_ADDED_TO_OPEN_OBJECT:
        cautions = [change.kind for change in report.changes if change.checks and change.checks.replay == "caution"]
        assert (report.verdict, cautions[:1]) == ("RISKY", ["param-optional-added-open"]), report.changes
    elif case["expected"] == "breaking":
        assert report.verdict == "BREAKING", [change.as_dict() for change in report.changes]
    else:
        assert report.verdict != "BREAKING", breaking_changes(report)


def test_the_exceptions_are_breaking_cases() -> None:
    for case_id in OPTIONAL_ADDED_TO_OPEN_OBJECT:
        assert BY_ID[case_id]["expected"] == "breaking", case_id


def test_docs_name_every_exception() -> None:
    section = DOC[DOC.index("## Agreement with an outside oracle") :]
    for case_id in OPTIONAL_ADDED_TO_OPEN_OBJECT:
        assert f"`{case_id}`" in section, case_id
