"""``replay_calls``: calls already made validated in batches, summed up in a ``ReplayReport``."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import toolwire
from tests.support.paths import RECORDINGS, corpus
from toolwire.schema.calls import ObservedCall, UnreadableRecord, read_calls
from toolwire.schema.replay._output import REPLAY_FORMATS, render_replay
from toolwire.schema.replay._replay import ReplayReport, registry_of, replay_calls

TOOLS = [
    {
        "name": "create_ticket",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 3},
                "priority": {"type": "string", "enum": ["low", "high"]},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["title", "priority"],
            "additionalProperties": False,
        },
    },
    {"name": "now", "parameters": {"type": "object", "properties": {}}},
]


def workload(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` call records of every kind replay meets: valid, wrong type, missing, out of enum, unknown tool, empty
    arguments (an info), bad JSON text, and records that are no calls."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for number in range(n):
        kind = rng.choice(["valid"] * 6 + ["type", "missing", "enum", "unknown", "empty", "text", "noname"])
        arguments: Any = {"title": f"ticket {number}", "priority": rng.choice(["low", "high"])}
        name = "create_ticket"
        if kind == "type":
            arguments["tags"] = "urgent"
        elif kind == "missing":
            del arguments["priority"]
        elif kind == "enum":
            arguments["priority"] = "HIGH"
        elif kind == "unknown":
            name = "delete_everything"
        elif kind == "empty":
            name, arguments = "now", ""
        elif kind == "text":
            arguments = '{"title": "cut'
        record: dict[str, Any] = {"id": f"call_{number}", "name": name, "arguments": arguments}
        if kind == "noname":
            del record["name"]
        records.append(record)
    return records


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def oracle(records: list[dict[str, Any]]) -> dict[str, Any]:
    """What replay must report, worked out call by call with ``toolwire.validate``."""
    registry = toolwire.ToolRegistry(TOOLS)
    calls = Counter[str]()
    failed = Counter[str]()
    codes = Counter[str]()
    notes = Counter[str]()
    failures = []
    unreadable = 0
    for record in records:
        if "name" not in record:
            unreadable += 1
            continue
        name = record["name"]
        arguments = record["arguments"]
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
        violations = toolwire.validate(name, text, registry)
        calls[name] += 1
        errors = {v.code.value for v in violations if v.severity.value == "error"}
        notes.update({v.code.value for v in violations if v.severity.value != "error"})
        if errors:
            failed[name] += 1
            codes.update(errors)
            failures.append(record["id"])
    return {
        "calls": sum(calls.values()),
        "invalid": len(failures),
        "unreadable": unreadable,
        "by_tool": {name: (count, failed[name]) for name, count in calls.items()},
        "by_code": dict(codes),
        "notes": dict(notes),
        "failures": failures,
    }


def test_the_report_is_what_validating_each_call_gives(tmp_path: Path) -> None:
    records = workload(600)
    expected = oracle(records)
    report = replay_calls(write(tmp_path / "calls.jsonl", records), TOOLS, batch_size=37, limit_failures=15)
    assert (report.calls, report.invalid, report.unreadable) == (
        expected["calls"],
        expected["invalid"],
        expected["unreadable"],
    )
    assert report.valid == report.calls - report.invalid
    assert {name: (c.calls, c.failed) for name, c in report.by_tool.items()} == expected["by_tool"]
    assert report.by_code == expected["by_code"]
    assert report.notes_by_code == expected["notes"] == {"EMPTY_ARGUMENTS": expected["by_tool"]["now"][0]}
    assert [f.id for f in report.failures] == expected["failures"][:15]
    assert len(report.unreadable_records) == min(15, expected["unreadable"])
    assert not report.ok
    for failure in report.failures:
        assert failure.errors and failure.origin.startswith(str(tmp_path / "calls.jsonl") + ":")
        line = int(failure.origin.rsplit(":", 1)[1])
        assert records[line - 1]["id"] == failure.id
    # Counts, failures and order do not depend on the batch size.
    for batch_size in (1, 1000):
        other = replay_calls(tmp_path / "calls.jsonl", TOOLS, batch_size=batch_size, limit_failures=15)
        assert other.as_dict() | {"seconds": 0, "calls_per_second": 0} == report.as_dict() | {
            "seconds": 0,
            "calls_per_second": 0,
        }


def test_observed_calls_and_sources_mix(tmp_path: Path) -> None:
    records = workload(50, seed=3)
    path = write(tmp_path / "calls.jsonl", records)
    already = list(read_calls(path))
    both = replay_calls([*already, path], TOOLS)
    alone = replay_calls(path, TOOLS)
    assert both.calls == 2 * alone.calls and both.invalid == 2 * alone.invalid
    assert both.unreadable == 2 * alone.unreadable
    assert both.sources == [str(path)]
    extra = UnreadableRecord("elsewhere:1", "not a call")
    assert replay_calls([extra], TOOLS).unreadable_records == [extra]
    with pytest.raises(TypeError, match="neither a source"):
        replay_calls([3], TOOLS)  # type: ignore[list-item]


def test_fingerprints_of_other_schema_versions_are_counted() -> None:
    registry = toolwire.ToolRegistry(TOOLS)
    current = registry.get("create_ticket")
    assert current is not None
    old = {**TOOLS[0], "parameters": {**TOOLS[0]["parameters"], "required": ["title"]}}
    old_print = toolwire.ToolRegistry([old]).get("create_ticket")
    assert old_print is not None and old_print.fingerprint != current.fingerprint
    text = '{"title": "abc", "priority": "low"}'
    calls = [
        ObservedCall("create_ticket", text, "a", schema_fingerprint=current.fingerprint),
        ObservedCall("create_ticket", text, "b", schema_fingerprint=old_print.fingerprint),
        ObservedCall("create_ticket", text, "c"),
        ObservedCall("now", "{}", "d", schema_fingerprint="sha256:other"),
        ObservedCall("gone", "{}", "e", schema_fingerprint="sha256:other"),  # unknown tool: a failure, no mismatch
    ]
    report = replay_calls(calls, registry)
    assert report.fingerprint_mismatches == 2
    assert report.by_tool["create_ticket"].fingerprint_mismatch == 1
    assert report.by_tool["now"].fingerprint_mismatch == 1
    assert report.by_tool["gone"].failed == 1 and report.by_code == {"UNKNOWN_TOOL": 1}


def test_progress_limits_and_arguments(tmp_path: Path) -> None:
    path = write(tmp_path / "calls.jsonl", workload(100))
    seen: list[int] = []
    report = replay_calls(path, TOOLS, batch_size=16, progress=seen.append, limit_failures=0)
    assert seen == sorted(seen) and seen[-1] == report.calls and len(seen) == -(-report.calls // 16)
    assert report.failures == [] and report.unreadable_records == [] and report.invalid > 0
    with pytest.raises(ValueError, match="batch_size"):
        replay_calls(path, TOOLS, batch_size=0)
    with pytest.raises(ValueError, match="limit_failures"):
        replay_calls(path, TOOLS, limit_failures=-1)


def test_tools_from_files_and_broken_definitions(tmp_path: Path) -> None:
    good = tmp_path / "tools.json"
    good.write_text(json.dumps(TOOLS))
    assert registry_of(good).names == ("create_ticket", "now")
    assert registry_of([str(good)]).names == ("create_ticket", "now")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([TOOLS[0], {"name": "bad", "parameters": {"type": "objekt"}}]))
    with pytest.raises(ValueError, match=r"1 tool definition\(s\) do not load: .*broken.json:\d+#1"):
        registry_of(broken)


def test_replaying_the_bundled_recordings_against_their_own_tools() -> None:
    """A recording's calls replayed against the tools its request declared fail exactly where reassembly said."""
    path = RECORDINGS / "anthropic-messages" / "schema-bool-as-string.sse"
    manifest = json.loads(path.with_suffix(".json").read_text())
    report = replay_calls(path, manifest["request"]["tools"])
    reassembled = list(toolwire.reassemble(path.read_bytes(), tools=manifest["request"]["tools"], on_invalid="yield"))
    assert report.calls == len(reassembled) > 0
    assert report.invalid == sum(1 for call in reassembled if not call.ok)
    assert report.fingerprint_mismatches == 0  # recorded under the very same tools


def test_bfcl_schemas(tmp_path: Path) -> None:
    """Real schemas: BFCL tools, calls built from their own ``required`` lists (valid) and with one left out."""
    schemas = corpus("tool-schemas") / "bfcl_v4_jsonschema.jsonl"
    tools: dict[str, Any] = {}
    for line in schemas.read_text(encoding="utf-8").splitlines():
        definition = json.loads(line)
        tools.setdefault(definition["name"], definition)
    simple = [
        d
        for d in tools.values()
        if d["parameters"].get("required")
        and all(
            set(d["parameters"]["properties"].get(k, {"enum": []})) <= {"type", "description"}
            and d["parameters"]["properties"][k].get("type") == "string"
            for k in d["parameters"]["required"]
        )
    ][:200]
    records = []
    for number, definition in enumerate(simple):
        required = definition["parameters"]["required"]
        arguments = {key: "x" for key in required}
        if number % 4 == 0:
            del arguments[required[0]]
        records.append({"id": str(number), "name": definition["name"], "arguments": arguments})
    report = replay_calls(write(tmp_path / "bfcl.jsonl", records), list(tools.values()))
    assert report.calls == len(simple) > 100
    assert report.invalid == len(range(0, len(simple), 4))
    assert report.by_code == {"MISSING_REQUIRED_ARGUMENT": report.invalid}


def test_every_format_renders_the_same_report(tmp_path: Path) -> None:
    records = workload(80, seed=11)
    report = replay_calls(write(tmp_path / "calls.jsonl", records), TOOLS, limit_failures=5)
    data = json.loads(render_replay(report, "json"))
    assert data == json.loads(json.dumps(report.as_dict()))
    assert data["ok"] is False and data["calls"] == report.calls and len(data["failures"]) == 5
    assert all(v["code"] for f in data["failures"] for v in f["violations"])
    text = render_replay(report, "text")
    markdown = render_replay(report, "markdown")
    colour = render_replay(report, "text", color=True, width=160)
    for failure in report.failures:
        assert failure.origin in text and failure.id is not None and failure.id in markdown
        assert failure.id in colour
    for code, count in report.by_code.items():
        assert f"| {code} | {count:,} |" in markdown
    assert f"{report.invalid:,} invalid" in text and text.rstrip().endswith(
        "calls already made do not validate against the current tools"
    )
    assert "first 5 of" in text and "\x1b[" in colour
    with pytest.raises(ValueError, match="unknown replay format"):
        render_replay(report, "xml")
    assert REPLAY_FORMATS == ("text", "json", "markdown")
    clean = ReplayReport(calls=1, valid=1)
    assert clean.ok and render_replay(clean, "text").endswith("ok")
