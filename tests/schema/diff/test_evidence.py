"""``--evidence``: recorded calls validated against OLD and NEW, pinned to the changes that break them.

The calls are real files read by ``read_calls`` (JSONL call records, an OpenAI chat log, a SQLite table), and the
expected failures are computed here by ``jsonschema`` on the raw schemas, not written down.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from toolwire.cli import main
from toolwire.schema.calls import ObservedCall, read_calls
from toolwire.schema.diff._diff import diff_tools
from toolwire.schema.diff._evidence import Evidence, apply_evidence
from toolwire.schema.diff._sources import read_side
from toolwire.schema.diff._tools import side_of


def tool(name: str, properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The {name} tool.",
        "parameters": {"type": "object", "properties": properties, "required": required, **extra},
    }


OLD = [
    tool("refund", {"order": {"type": "string"}, "amount": {"type": "number"}, "note": {"type": "string"}}, ["order"],
         additionalProperties=False),
    tool("lookup", {"sku": {"type": "string"}}, ["sku"]),
    tool("search_docs", {"q": {"type": "string"}}, ["q"]),
]  # fmt: skip

CALLS = [
    {"id": "r1", "name": "refund", "arguments": {"order": "A-1", "amount": 20}},
    {"id": "r2", "name": "refund", "arguments": {"order": "A-2", "amount": 950}},
    {"id": "r3", "name": "refund", "arguments": {"order": "a-3", "amount": 5, "note": "late"}},
    {"id": "r4", "name": "refund", "arguments": {"amount": 5}},  # invalid under OLD already: not evidence
    {"id": "l1", "name": "lookup", "arguments": {"sku": "X1"}},
    {"id": "l2", "name": "lookup", "arguments": {"sku": "X2", "warehouse": 7}},
    {"id": "z1", "name": "unknown_tool", "arguments": {}},
]


def new_version() -> list[dict[str, Any]]:
    new = json.loads(json.dumps(OLD))
    refund = new[0]["parameters"]["properties"]
    refund["amount"]["maximum"] = 500  # bound-added: r2 fails
    refund["order"]["pattern"] = "^[A-Z]-[0-9]+$"  # pattern-added: r3 fails
    new[1]["parameters"]["properties"]["warehouse"] = {"type": "string"}  # optional added, open: l2 fails
    new[2]["parameters"]["properties"]["q"]["maxLength"] = 50  # bound-added, no calls
    return new


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(call) + "\n" for call in CALLS) + "{not json\n", encoding="utf-8")
    return path


def expected_failures(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> set[str]:
    """The ids of the calls OLD accepts and NEW refuses, by jsonschema on the schemas as written."""
    schemas = [{t["name"]: t["parameters"] for t in side} for side in (old, new)]
    failing = set()
    for call in CALLS:
        before, after = (s.get(call["name"]) for s in schemas)
        if before is None or not jsonschema.Draft202012Validator(before).is_valid(call["arguments"]):
            continue
        if after is None or not jsonschema.Draft202012Validator(after).is_valid(call["arguments"]):
            failing.add(call["id"])
    return failing


def test_the_calls_decide_and_are_shown(calls: Path) -> None:
    report = diff_tools(OLD, new_version(), evidence=calls)
    changes = {(c.tool, c.kind): c for c in report.changes}
    shown = {call["id"] for c in report.changes for call in (c.evidence or {}).get("calls", [])}
    assert shown == expected_failures(OLD, new_version()) == {"r2", "r3", "l2"}
    amount = changes["refund", "bound-added"]
    assert amount.verdict == "BREAKING" and amount.checks.replay == "corpus-fails"
    assert amount.evidence == {
        "tool_calls": 4,
        "valid_under_old": 3,
        "failing": 1,
        "calls": [{"id": "r2", "origin": f"{calls}:2", "reasons": ["/amount: maximum: must be at most 500"]}],
    }
    assert changes["refund", "pattern-added"].evidence["calls"][0]["id"] == "r3"
    # An optional key added to an open object: RISKY by the rubric, BREAKING once a call sent it with another type.
    warehouse = changes["lookup", "param-optional-added-open"]
    assert warehouse.verdict == "BREAKING" and warehouse.checks.replay == "corpus-fails"
    # No call of search_docs: the bound stays BREAKING, undecided, and says so.
    docs = changes["search_docs", "bound-added"]
    assert docs.verdict == "BREAKING" and docs.checks.replay == "unknown"
    assert docs.reasons == ("evidence: no recorded call of the tool that OLD accepts, so undecided",)
    assert report.evidence is not None
    assert report.evidence["per_tool"] == {
        "lookup": {"calls": 2, "valid_under_old": 2, "fail_under_new": 1},
        "refund": {"calls": 4, "valid_under_old": 3, "fail_under_new": 2},
    }
    assert report.evidence["unknown_to_old"] == {"unknown_tool": 1}
    unreadable = [p for p in report.problems if p.rule == "diff/evidence-unreadable"]
    assert len(unreadable) == 1 and f"{calls}:8" in unreadable[0].message


def test_a_corpus_that_passes_makes_an_added_bound_risky(calls: Path) -> None:
    new = json.loads(json.dumps(OLD))
    new[0]["parameters"]["properties"]["amount"]["maximum"] = 1000  # every recorded amount is below
    new[0]["parameters"]["properties"]["order"]["pattern"] = "^[A-Za-z]-"
    report = diff_tools(OLD, new, evidence=calls)
    assert expected_failures(OLD, new) == set()
    for change in report.changes:
        assert change.kind in ("bound-added", "pattern-added")
        assert change.verdict == "RISKY" and change.checks.replay == "corpus-passes"
        assert change.reasons == ("evidence: all 3 call(s) OLD accepts pass NEW",)
    assert report.verdict == "RISKY"


def test_breaking_changes_list_the_calls_they_break(calls: Path) -> None:
    new = json.loads(json.dumps(OLD))
    new[0]["parameters"]["required"] = ["order", "amount", "reason"]
    new[0]["parameters"]["properties"]["reason"] = {"type": "string"}
    del new[0]["parameters"]["properties"]["note"]
    new[1]["name"] = "find_sku"
    new[1]["description"] = "The lookup tool."
    report = diff_tools(OLD, new, evidence=calls, evidence_limit=1)
    by_kind = {c.kind: c for c in report.changes}
    assert by_kind["param-required-added"].evidence["failing"] == 3
    assert len(by_kind["param-required-added"].evidence["calls"]) == 1  # the limit
    assert [c["id"] for c in by_kind["param-removed-closed"].evidence["calls"]] == ["r3"]
    renamed = by_kind["tool-renamed"]
    assert renamed.evidence["failing"] == 2 and "unknown tool" in renamed.evidence["calls"][0]["reasons"][0]
    shown = {c["id"] for change in report.changes for c in (change.evidence or {}).get("calls", [])}
    assert shown <= expected_failures(OLD, new)
    text = report.render("text")
    assert "Evidence: 3 of 3 recorded call(s) OLD accepts fail NEW: r1" in text
    assert "by tool: lookup 2 (2 valid under OLD, 2 fail NEW), refund 4 (3 valid under OLD, 3 fail NEW)" in text


def test_a_regression_no_change_explains_is_an_error(calls: Path) -> None:
    old = side_of("old", read_side(OLD))
    new = side_of("new", read_side(new_version()))
    evidence = Evidence(tuple(c for c in read_calls(calls) if isinstance(c, ObservedCall)), (), (str(calls),))
    changes, summary, findings = apply_evidence([], evidence, old, new)
    assert changes == [] and summary["per_tool"]["refund"]["fail_under_new"] == 2
    unexplained = {f.tool: f for f in findings if f.rule == "diff/unexplained-failure"}
    assert set(unexplained) == {"refund", "lookup"} and unexplained["refund"].level == "error"
    assert "r2" in unexplained["refund"].message and "r3" in unexplained["refund"].message


@pytest.mark.parametrize("union", ["anyOf", "oneOf"])
def test_a_union_failure_is_pinned_to_the_change_beneath_it(union: str) -> None:
    # The validator reports a union that no branch matches at the union's place, not where a branch changed.
    def tool(foo: dict[str, Any]) -> list[dict[str, Any]]:
        branch = {"type": "object", "properties": {"foo": foo, "bar": {"type": "integer"}}}
        value = {union: [branch, {"type": "boolean"}]}
        parameters = {"type": "object", "properties": {"value": value}, "required": ["value"]}
        return [{"name": "t", "description": "Do the thing.", "parameters": parameters}]

    call = ObservedCall("t", json.dumps({"value": {"foo": "x"}}), id="c1")
    report = diff_tools(tool({"type": "string"}), tool({"type": "number"}), evidence=[call])
    assert not report.problems, [problem.message for problem in report.problems]
    (changed,) = [change for change in report.changes if change.kind == "type-changed"]
    assert changed.evidence is not None and [shown["id"] for shown in changed.evidence["calls"]] == ["c1"]


def test_evidence_from_a_chat_log_and_a_database(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "refund", "arguments": json.dumps({"order": "A-9", "amount": 700})}},
        ],
    }  # fmt: skip
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "refund"}, message]}) + "\n", encoding="utf-8")
    database = tmp_path / "calls.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("create table calls (id text, name text, arguments text)")
        connection.execute(
            "insert into calls values ('db1', 'refund', ?)", (json.dumps({"order": "B-1", "amount": 9}),)
        )
    report = diff_tools(
        OLD,
        new_version(),
        evidence=[chat, f"sqlite:///{database}"],
        evidence_query="select id, name, arguments from calls",
    )
    bound = next(c for c in report.changes if c.tool == "refund" and c.kind == "bound-added")
    assert bound.evidence["valid_under_old"] == 2
    assert [(c["id"], c["origin"].startswith(str(chat))) for c in bound.evidence["calls"]] == [("call_1", True)]


def test_the_command_with_evidence(
    calls: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    old.write_text(json.dumps(OLD), encoding="utf-8")
    new.write_text(json.dumps(new_version()), encoding="utf-8")
    status = main(["diff", str(old), str(new), "--evidence", str(calls), "--evidence-limit", "1"])
    out = capsys.readouterr().out
    assert status == 1
    assert "evidence: 7 call(s) from " in out and "refund 4 (3 valid under OLD, 2 fail NEW)" in out
    assert "1 call(s) of tools OLD does not declare (unknown_tool)" in out and "1 unreadable record(s)" in out
    assert "r2 (" in out and "maximum: must be at most 500" in out
    status = main(["diff", str(old), str(new), "--evidence", str(tmp_path / "none.jsonl")])
    assert status == 2
