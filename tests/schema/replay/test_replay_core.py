"""JSONL logs read in the core (``_core.CallLogReader``) give the report the Python reader gives, line for line.

The Python reader is the reference (``READ_IN_CORE = False``): every log here is replayed both ways and the reports
must be equal in everything but time: counts, counts by tool and code (in order), failures with their origins and
violations, unreadable records with their origins and reasons.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
from tests.schema.replay.test_replay import TOOLS, workload, write
from toolwire._core import CallLogReader
from toolwire.registry import core_validators
from toolwire.schema.replay import _replay
from toolwire.schema.replay._replay import ReplayReport, replay_calls

REGISTRY = toolwire.ToolRegistry(TOOLS)
FINGERPRINT = REGISTRY.get("create_ticket").fingerprint  # type: ignore[union-attr]


def _key(report: ReplayReport) -> dict[str, Any]:
    found = report.as_dict()
    del found["seconds"], found["calls_per_second"]
    found["by_code"] = list(report.by_code.items())  # in order
    found["notes_by_code"] = list(report.notes_by_code.items())
    found["by_tool"] = list(found["by_tool"].items())
    found["failure_objects"] = report.failures
    found["unreadable_objects"] = report.unreadable_records
    return found


def both(monkeypatch: pytest.MonkeyPatch, source: Any, chunk: int = 1 << 20, **options: Any) -> dict[str, Any]:
    """The report of ``source`` read in the core and by Python, asserted equal."""
    with monkeypatch.context() as patch:
        patch.setattr(_replay, "READ_IN_CORE", False)
        reference = replay_calls(source, REGISTRY, **options)
    with monkeypatch.context() as patch:
        patch.setattr(_replay, "LOG_CHUNK", chunk)
        core = replay_calls(source, REGISTRY, **options)
    assert _key(core) == _key(reference)
    return _key(core)


TEXT = json.dumps({"title": "ticket", "priority": "low"})
LINES: list[bytes] = [
    # the usual shape, valid and not
    json.dumps({"id": "a", "name": "create_ticket", "arguments": TEXT, "tool_fingerprint": FINGERPRINT}).encode(),
    json.dumps(
        {"id": "b", "name": "create_ticket", "arguments": '{"title": "x"}', "ts": "2025-05-01T00:00:00Z"}
    ).encode(),
    json.dumps({"name": "now", "arguments": "", "schema_fingerprint": "sha256:old", "time": "2025-05-01"}).encode(),
    json.dumps({"id": "c", "name": "gone", "arguments": "{}", "ts": "2025-05-01T12:00:00.123456+02:00"}).encode(),
    json.dumps({"id": "d", "name": "create_ticket", "arguments": '{"title": "cut'}).encode(),
    json.dumps({"id": "é\u2028", "name": "create_ticket", "arguments": "[1]"}, ensure_ascii=False).encode(),
    json.dumps({"name": "now", "arguments": '{"x": "\\ud83d\\ude00"}', "id": None, "ts": None}).encode(),
    b'{"na\\u006de": "now", "arguments": "{}", "outcome": {"deep": [1, 2.5, true, null]}}',
    # arguments as an object, dumped as orjson dumps them
    json.dumps({"id": "o1", "name": "create_ticket", "arguments": {"title": "obj", "priority": "high"}}).encode(),
    json.dumps({"id": "o2", "name": "create_ticket", "arguments": {"title": 'é\n\x01"\\', "tags": [1, None]}}).encode(),
    json.dumps(
        {"id": "o3", "name": "now", "arguments": {"n": [18446744073709551615, -9223372036854775808, {}]}}
    ).encode(),
    b'{"id": "o4", "name": "now", "arguments": {"x": 1.5}}',
    b'{"id": "o5", "name": "now", "arguments": {"x": 1e2, "y": -0}}',
    b'{"id": "o6", "name": "now", "arguments": {"x": 18446744073709551616}}',
    b'{"id": "o7", "name": "now", "arguments": {"x": 1, "x": 2}}',
    b'{"id": "o8", "name": "now", "arguments": {"x": "\\ud800"}}',
    b'{"id": "o9", "name": "create_ticket", "arguments": {"title": "abc"}, "other": 1e400}',
    b'{"id": "o10", "name": "create_ticket", "arguments": {"title": "\\u00e9\\u2028"}, "other": "\\udc00"}',
    # shapes the Python reader reads
    json.dumps({"id": 7, "name": "create_ticket", "arguments": TEXT}).encode(),
    json.dumps({"id": "e", "name": "create_ticket", "arguments": {"title": "obj", "priority": "high"}}).encode(),
    json.dumps({"id": "f", "name": "create_ticket", "arguments": TEXT, "ts": 1714521600}).encode(),
    json.dumps({"id": "g", "name": "now", "arguments": "{}", "ts": "yesterday"}).encode(),
    json.dumps({"id": "h", "name": "now", "arguments": "{}", "ts": "2025-05-01T00:00:00.1"}).encode(),
    json.dumps({"id": "i", "name": "now"}).encode(),
    json.dumps({"id": "j", "name": "now", "input": {}}).encode(),
    json.dumps({"name": "", "arguments": "{}"}).encode(),
    json.dumps({"arguments": "{}"}).encode(),
    json.dumps(
        {
            "messages": [
                {"role": "assistant", "tool_calls": [{"id": "k", "function": {"name": "now", "arguments": "{}"}}]}
            ]
        }
    ).encode(),
    b'{"name": "now", "arguments": "{}", "name": "create_ticket"}',
    b'{"name": "now", "arguments": "\\ud800"}',
    b'{"name": "now", "arguments": "{}", "x": NaN}',
    b'{"name": "now", "arguments": "{}", "x": 1e400}',
    b'{"name": "now",\t"arguments": "{}"}',
    b'{"name": "now", "arguments": "{}"',
    b'{"name": "now", "arguments": "\xff"}',
    b'{"name": "now", "arguments": "\x01"}',
    b"[1, 2]",
    b"not json at all",
    b"   ",
    b"\x0c",
    b"",
]


def _log(lines: list[bytes], ends: list[bytes], bom: bool, last_end: bool) -> bytes:
    data = b"".join(line + end for line, end in zip(lines, ends, strict=True))
    if not last_end and data.endswith(b"\n"):
        data = data.rstrip(b"\r\n")
    return (b"\xef\xbb\xbf" if bom else b"") + data


@given(
    picks=st.lists(st.sampled_from(LINES), max_size=40),
    crlf=st.lists(st.booleans(), min_size=40, max_size=40),
    bom=st.booleans(),
    last_end=st.booleans(),
    chunk=st.sampled_from([1, 7, 64, 1 << 20]),
    batch=st.sampled_from([1, 3, 2048]),
    limit=st.sampled_from([0, 2, 20]),
)
def test_generated_logs(
    tmp_path_factory: pytest.TempPathFactory,
    picks: list[bytes],
    crlf: list[bool],
    bom: bool,
    last_end: bool,
    chunk: int,
    batch: int,
    limit: int,
) -> None:
    ends = [b"\r\n" if wide else b"\n" for wide in crlf[: len(picks)]]
    path = tmp_path_factory.mktemp("logs") / "calls.jsonl"
    path.write_bytes(_log(picks, ends, bom, last_end))
    with pytest.MonkeyPatch.context() as monkeypatch:
        both(monkeypatch, path, chunk, batch_size=batch, limit_failures=limit)
        both(monkeypatch, [path, toolwire.schema.calls.ObservedCall("now", "{}", "z"), str(path)], chunk)


def test_workload_of_the_replay_tests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = workload(500)
    for record in records[::3]:  # as CallLog writes them: arguments as text
        if isinstance(record.get("arguments"), dict):
            record["arguments"] = json.dumps(record["arguments"])
    path = write(tmp_path / "calls.jsonl", records)
    found = both(monkeypatch, path, 256)
    assert found["calls"] > 0 and found["invalid"] > 0 and found["unreadable"] > 0
    ndjson = path.with_suffix(".ndjson")
    ndjson.write_bytes(path.read_bytes())
    both(monkeypatch, [ndjson, path], 100)


def test_progress_per_batch(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_bytes(b"".join(LINES[0] + b"\n" for _ in range(100)))
    seen: list[int] = []
    report = replay_calls(path, REGISTRY, batch_size=16, progress=seen.append)
    assert seen == [*range(16, 100, 16), 100] and report.calls == 100


def test_gzip_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"".join(line + b"\n" for line in LINES * 3)
    gz = tmp_path / "calls.jsonl.gz"
    gz.write_bytes(gzip.compress(data))
    found = both(monkeypatch, gz, 50)
    assert found["unreadable_objects"][0].origin.startswith(str(gz))

    class Stdin:
        def __init__(self) -> None:
            self.buffer = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]

    def replayed(core: bool) -> ReplayReport:
        with monkeypatch.context() as patch:
            patch.setattr(sys, "stdin", Stdin())
            patch.setattr(_replay, "READ_IN_CORE", core)
            patch.setattr(_replay, "LOG_CHUNK", 33)
            return replay_calls("-", REGISTRY)

    assert _key(replayed(True)) == _key(replayed(False))
    assert replayed(True).unreadable_records[0].origin.startswith("<stdin>:")


def test_a_line_longer_than_the_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    title = "t" * 300_000
    long = json.dumps({"id": "long", "name": "create_ticket", "arguments": json.dumps({"title": title})}).encode()
    path = tmp_path / "calls.jsonl"
    path.write_bytes(LINES[0] + b"\n" + long + b"\n" + LINES[1])
    found = both(monkeypatch, path, 4096)
    assert found["calls"] == 3 and [f.id for f in found["failure_objects"]] == ["long", "b"]


def test_memory_bounded_on_a_large_log(tmp_path: Path) -> None:
    """A 40 MB log replays with the process grown by less than 16 MiB at its peak: read in chunks, not whole."""
    path = tmp_path / "big.jsonl"
    line = LINES[0] + b"\n"
    with path.open("wb") as out:
        block = line * 10_000
        for _ in range(40_000_000 // len(block)):
            out.write(block)
    script = (
        "import resource, sys, toolwire\n"
        "from toolwire.schema.replay import replay_calls\n"
        f"tools = toolwire.ToolRegistry({TOOLS!r})\n"
        "start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "report = replay_calls(sys.argv[1], tools)\n"
        "grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start\n"
        "print(report.calls, grown)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    calls, grown_kib = map(int, done.stdout.split())
    assert calls == path.stat().st_size // len(line)
    assert grown_kib < 16 * 1024, grown_kib


def test_recorded_results_are_checked_against_output_schemas_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log line with a result goes to the Python reader only when a tool declares an output schema to check it by."""
    lookup = {
        "name": "lookup",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}},
        "outputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    }
    mcp = toolwire.ToolRegistry([*TOOLS, lookup])
    ok = {"content": [], "structuredContent": {"title": "x"}}
    records = [
        {"id": "r1", "name": "lookup", "arguments": '{"id": 1}', "result": ok},
        {"id": "r2", "name": "lookup", "arguments": '{"id": 2}', "result": {"content": [], "structuredContent": {}}},
        {"id": "r3", "name": "lookup", "arguments": '{"id": "3"}', "result": {"content": [{"type": "text"}]}},
        {"id": "r4", "name": "lookup", "arguments": '{"id": 4}', "result": {"content": [], "isError": True}},
        {"id": "r5", "name": "lookup", "arguments": '{"id": 5}'},
        {"id": "r6", "name": "now", "arguments": "{}", "result": "not checked: now declares no output schema"},
    ]
    path = write(tmp_path / "calls.jsonl", records)

    def replayed(core: bool, registry: toolwire.ToolRegistry) -> ReplayReport:
        with monkeypatch.context() as patch:
            patch.setattr(_replay, "READ_IN_CORE", core)
            return replay_calls(path, registry)

    report = replayed(True, mcp)
    assert _key(report) == _key(replayed(False, mcp))
    assert (report.calls, report.valid, report.invalid) == (6, 4, 2)
    assert [(f.id, [(v.code.value, v.path) for v in f.violations]) for f in report.failures] == [
        ("r2", [("MISSING_REQUIRED_ARGUMENT", "/structuredContent/title")]),
        (
            "r3",
            [
                ("TYPE_MISMATCH", "/id"),
                ("MALFORMED_RESULT", "/content/0/text"),
                ("MISSING_STRUCTURED_CONTENT", "/structuredContent"),
            ],
        ),
    ]
    # Without an output schema the results are not checked, and the core reads every line itself.
    plain = toolwire.ToolRegistry([*TOOLS, {"name": "lookup", "inputSchema": lookup["inputSchema"]}])
    report = replayed(True, plain)
    assert _key(report) == _key(replayed(False, plain))
    assert (report.calls, report.invalid, [f.id for f in report.failures]) == (6, 1, ["r3"])
    for hand_back, handed in ((False, []), (True, [1, 2, 3, 4, 6])):
        reader = CallLogReader(core_validators(plain), path, hand_back_results=hand_back)
        segments = reader.read(100)
        assert segments is not None
        assert [segment[0] for segment in segments if len(segment) == 2] == handed
