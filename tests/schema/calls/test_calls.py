"""Reading observed calls (``toolwire.schema.calls._calls``): JSONL records, conversations, recordings, stdin, files."""

from __future__ import annotations

import gzip
import io
import json
import math
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
from tests.support.paths import RECORDINGS
from toolwire.recordings import iter_recordings
from toolwire.schema.calls import ObservedCall, UnreadableRecord, iter_raw, read_calls
from toolwire.schema.calls._model import CALL_KEYS, call_from_record


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def calls_of(found: list[ObservedCall | UnreadableRecord]) -> list[ObservedCall]:
    return [item for item in found if isinstance(item, ObservedCall)]


def unreadable_of(found: list[ObservedCall | UnreadableRecord]) -> list[UnreadableRecord]:
    return [item for item in found if isinstance(item, UnreadableRecord)]


# --- JSONL call records ---------------------------------------------------------------------------------------------


def test_call_records_keep_text_dump_objects_and_read_every_key(tmp_path: Path) -> None:
    text = '{"city": "Paris",  "days": 3}'  # spacing kept: the text as observed
    obj = {"city": "Zürich", "nested": {"a": [1, 2.5, None, True]}}
    records = [
        {"id": "c1", "name": "get_weather", "arguments": text, "ts": "2025-05-01T12:00:00Z", "outcome": "ok"},
        {"id": 7, "name": "get_weather", "arguments": obj, "ts": 1_714_564_800, "tool_fingerprint": "sha256:ab"},
        {"name": "get_weather", "input": obj, "time": "2025-05-01T14:00:00+02:00", "schema_fingerprint": "sha256:c"},
        {"name": "ping", "ts": "2025-05-01 12:00:00"},
        {"name": "ping", "arguments": None, "conversation": {"id": "conv-9"}},
    ]
    found = list(read_calls(write_jsonl(tmp_path / "calls.jsonl", records)))
    assert not unreadable_of(found)
    first, second, third, fourth, fifth = calls_of(found)
    assert first.arguments == text
    assert (first.id, first.name, first.fields) == ("c1", "get_weather", {"outcome": "ok"})
    assert first.ts == datetime(2025, 5, 1, 12, tzinfo=timezone.utc)
    assert first.origin == f"{tmp_path / 'calls.jsonl'}:1"
    # An object value is dumped compactly, as the standard library would with the same separators.
    assert second.arguments == json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    assert second.id == "7"
    assert second.ts == datetime.fromtimestamp(1_714_564_800, tz=timezone.utc)
    assert second.schema_fingerprint == "sha256:ab"
    assert third.arguments == second.arguments  # "input" is the alias of "arguments"
    assert third.ts == datetime(2025, 5, 1, 12, tzinfo=timezone.utc)  # the same instant, its offset kept
    assert third.ts.utcoffset() == timedelta(hours=2)
    assert third.schema_fingerprint == "sha256:c"
    assert fourth.arguments == ""  # no arguments: validation checks it as {}
    assert fourth.ts is not None and fourth.ts.tzinfo is timezone.utc  # naive: taken as UTC
    assert fifth.arguments == "" and fifth.fields == {"conversation": {"id": "conv-9"}}
    assert all(set(call.fields).isdisjoint(CALL_KEYS) for call in calls_of(found))


def test_unreadable_records_are_reported_with_line_and_reason(tmp_path: Path) -> None:
    lines = [
        '{"name": "ok", "arguments": "{}"}',
        "",  # blank: skipped, but the numbering goes on
        '{"name": "cut", "arguments": "{}"',  # truncated JSON
        '{"arguments": {"a": 1}}',  # no name
        '{"name": "nan", "arguments": {"x": NaN}}',  # standard-library JSON, but NaN cannot be arguments
        '{"name": 3, "arguments": "{}"}',
        '{"name": "t", "arguments": "{}", "ts": "yesterday"}',
        '{"name": "i", "arguments": "{}", "id": ["x"]}',
        '{"name": "f", "arguments": "{}", "schema_fingerprint": 12}',
        '"just a string"',
        '{"id": "x", "kind": "heartbeat"}',
        '{"name": "ok2", "arguments": {"big": 123456789012345678901234567890}}',
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode() + b'{"name": "bytes", "arguments": "\xff"}\n')
    found = list(read_calls(path))
    unreadable = {int(u.origin.rsplit(":", 1)[1]): u.reason for u in unreadable_of(found)}
    assert [c.name for c in calls_of(found)] == ["ok", "ok2"]
    assert sorted(unreadable) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 13]
    assert "not JSON" in unreadable[3]
    assert "no 'name'" in unreadable[4]
    assert "not JSON-able" in unreadable[5] and "'nan'" in unreadable[5]
    assert "not a tool name" in unreadable[6]
    assert unreadable[7].startswith("ts: 'yesterday' is not a time")
    assert unreadable[8].startswith("id:")
    assert unreadable[9].startswith("schema_fingerprint:")
    assert "neither a call record" in unreadable[10] and "neither a call record" in unreadable[11]
    assert "not UTF-8" in unreadable[13]
    # A count of every line: nothing dropped (the blank line is no record).
    assert len(found) == len(lines) + 1 - 1


def test_a_bom_on_the_first_line_is_not_a_broken_record(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"name": "a", "arguments": "{}"}\n{"name": "b", "arguments": "{}"}\n')
    assert [c.name for c in calls_of(list(read_calls(path)))] == ["a", "b"]


_records = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=8)},
    optional={
        "id": st.one_of(st.none(), st.text(max_size=6), st.integers(-(2**40), 2**40)),
        "arguments": st.one_of(
            st.none(),
            st.text(max_size=20),
            st.dictionaries(
                st.text(max_size=5),
                st.recursive(
                    st.none()
                    | st.booleans()
                    | st.integers(-(2**53), 2**53)
                    | st.text(max_size=5)
                    | st.floats(allow_nan=False, allow_infinity=False),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=6,
                ),
                max_size=4,
            ),
        ),
        "ts": st.one_of(
            st.none(),
            st.datetimes(min_value=datetime(1980, 1, 1), max_value=datetime(2100, 1, 1)).map(datetime.isoformat),
            st.integers(0, 4_000_000_000),
        ),
        "tool_fingerprint": st.one_of(st.none(), st.text(max_size=10)),
        "outcome": st.text(max_size=5),
    },
)


@given(st.lists(_records, min_size=1, max_size=8))
def test_the_fast_path_reads_what_the_general_reader_reads(records: list[dict[str, Any]]) -> None:
    """JSONL lines (read on the inlined fast path) give what ``call_from_record`` gives for each parsed record."""
    data = "".join(json.dumps(record) + "\n" for record in records).encode()
    fast = list(read_calls_from_bytes(data))
    slow = [call_from_record(json.loads(json.dumps(record)), f"<mem>:{n}") for n, record in enumerate(records, 1)]
    assert len(fast) == len(slow)
    for got, want, record in zip(fast, slow, records, strict=True):
        assert type(got) is type(want)
        if isinstance(got, ObservedCall) and isinstance(want, ObservedCall):
            if isinstance(record.get("arguments"), dict):
                # orjson and the standard library may spell a float differently (1e+20, 1e20): compare the values.
                assert json.loads(got.arguments) == json.loads(want.arguments)
            else:
                assert got.arguments == want.arguments
            assert (got.name, got.id, got.ts, got.schema_fingerprint, got.origin, dict(got.fields)) == (
                want.name,
                want.id,
                want.ts,
                want.schema_fingerprint,
                want.origin,
                dict(want.fields),
            )
        else:
            assert got == want


def read_calls_from_bytes(data: bytes) -> list[ObservedCall | UnreadableRecord]:
    from toolwire.schema.calls import observed
    from toolwire.schema.calls._files import read_lines

    return [observed(item) if isinstance(item, tuple) else item for item in read_lines(io.BytesIO(data), "<mem>")]


def test_stdin_is_jsonl(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b'{"id": "s1", "name": "a", "arguments": {"x": 1}}\nnope\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    found = list(read_calls("-"))
    assert [(c.origin, c.id, c.arguments) for c in calls_of(found)] == [("<stdin>:1", "s1", '{"x":1}')]
    assert [u.origin for u in unreadable_of(found)] == ["<stdin>:2"]


def test_json_files_gzip_and_several_sources_in_order(tmp_path: Path) -> None:
    listing = tmp_path / "calls.json"
    listing.write_text(json.dumps([{"name": "a", "arguments": "{}"}, {"nope": 1}, {"name": "b", "input": {}}]))
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"id": "x", "name": "c", "arguments": {"k": "v"}}))
    conversation = tmp_path / "conversation.json"
    conversation.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "tool_calls": [{"id": "t1", "function": {"name": "d", "arguments": "{}"}}]},
            ]
        )
    )
    zipped = tmp_path / "more.jsonl.gz"
    with gzip.open(zipped, "wt") as handle:
        handle.write('{"name": "e", "arguments": "{}"}\n')
    found = list(read_calls([listing, str(one), conversation, zipped]))
    assert [c.name for c in calls_of(found)] == ["a", "b", "c", "d", "e"]
    assert [c.origin for c in calls_of(found)][:3] == [f"{listing}[0]", f"{listing}[2]", str(one)]
    assert [u.origin for u in unreadable_of(found)] == [f"{listing}[1]"]
    assert calls_of(found)[3].id == "t1" and calls_of(found)[3].origin == f"{conversation} messages[1].tool_calls[0]"


def test_sources_that_cannot_be_read_raise(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        list(read_calls(tmp_path / "absent.jsonl"))
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match="unknown source type"):
        list(read_calls(tmp_path / "notes.txt"))
    with pytest.raises(TypeError):
        list(read_calls([3]))  # type: ignore[list-item]
    with pytest.raises(ValueError, match="needs a query"):
        list(read_calls("sqlite:///x.db"))


# --- conversation logs ----------------------------------------------------------------------------------------------

FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")


def _conversation(result: Any, fmt: str, number: int) -> dict[str, Any]:
    """A logged conversation: a user turn, the recorded assistant turn in ``fmt``, and (Chat) tool results."""
    turn = result.to_history(fmt)
    user = {"role": "user", "content": 'Example: {"name": "not_a_call", "arguments": {}} (text, not a call)'}
    if fmt == "openai-responses":
        return {"conversation": f"c{number}", "input": [user, *turn], "ts": "2025-05-01T00:00:00Z"}
    messages = [{"role": "system", "content": '{"name": "system_example", "arguments": {}}'}, user, turn]
    if fmt == "openai-chat":
        messages += [
            {"role": "tool", "tool_call_id": call["id"], "content": "{}"} for call in turn.get("tool_calls", [])
        ]
    return {"conversation": f"c{number}", "messages": messages, "ts": "2025-05-01T00:00:00Z"}


def _arguments(call: Any, fmt: str) -> Any:
    """The arguments the recorded call carries into a conversation of ``fmt`` (see ``ToolCall.to_history``)."""
    if fmt == "anthropic-messages":
        return call.arguments if isinstance(call.arguments, dict) else {}
    return call.arguments_json or "{}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_conversation_logs_give_every_assistant_call(tmp_path: Path, fmt: str) -> None:
    """Every bundled recording's assistant turn, written as a conversation log of ``fmt``, gives back its calls."""
    expected: list[tuple[str, str, Any]] = []
    unnamed = 0
    lines = []
    for number, recording in enumerate(iter_recordings(RECORDINGS), start=1):
        stream = toolwire.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield")
        calls = list(stream)
        if not calls:
            continue
        result = stream.result
        lines.append(_conversation(result, fmt, number))
        first = result.choices[0].choice if result.choices else 0
        for call in sorted((c for c in calls if c.choice == first), key=lambda c: c.seq):
            if call.input is not None and fmt in ("openai-chat", "openai-responses"):
                continue  # the OpenAI conversation readers take function calls; a custom tool call has no arguments
            if call.name:
                expected.append((call.name, call.id, _arguments(call, fmt)))
            else:
                unnamed += 1
    found = list(read_calls(write_jsonl(tmp_path / f"{fmt}.jsonl", lines)))
    calls = calls_of(found)
    assert len(expected) > 40
    got = [(c.name, c.id, json.loads(c.arguments) if fmt == "anthropic-messages" else c.arguments) for c in calls]
    assert got == expected
    assert len(unreadable_of(found)) == unnamed
    assert all(c.fields["format"] == fmt and c.fields["conversation"].startswith("c") for c in calls)
    assert all(c.ts == datetime(2025, 5, 1, tzinfo=timezone.utc) for c in calls)
    assert all(" messages[" in c.origin or " input[" in c.origin for c in calls)
    assert "not_a_call" not in {c.name for c in calls} and "system_example" not in {c.name for c in calls}


def test_conversation_shapes_one_message_output_items_and_user_calls(tmp_path: Path) -> None:
    records = [
        # An Anthropic response object (one assistant message).
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "a"}},
            ],
        },
        # A Responses response: function calls in "output"; the id read is call_id, not the item id.
        {
            "id": "resp_1",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "function_call", "id": "fc_item", "call_id": "call_9", "name": "lookup", "arguments": "{}"},
            ],
        },
        # Calls a user message carries are not the assistant's; the legacy function_call has no id.
        {
            "messages": [
                {"role": "user", "tool_calls": [{"id": "u1", "function": {"name": "user_side", "arguments": "{}"}}]},
                {"role": "assistant", "function_call": {"name": "legacy", "arguments": '{"a": 1}'}},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]},
            ]
        },
    ]
    found = list(read_calls(write_jsonl(tmp_path / "shapes.jsonl", records)))
    assert not unreadable_of(found)
    assert [(c.name, c.id, c.fields.get("at")) for c in calls_of(found)] == [
        ("search", "toolu_1", "message.content[0]"),
        ("lookup", "call_9", "output[1]"),
        ("legacy", None, "messages[1].function_call"),
    ]
    assert calls_of(found)[1].fields["id"] == "resp_1"


# --- recordings -----------------------------------------------------------------------------------------------------


def test_a_directory_of_recordings_gives_every_handed_over_call() -> None:
    """``recordings/``: each recording reassembled, every call (valid or invalid) kept with its text as received."""
    expected = []
    for recording in iter_recordings(RECORDINGS):
        for number, call in enumerate(
            toolwire.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield"), 1
        ):
            text = call.arguments_json if call.input is None else call.input  # a custom call's free-text input
            expected.append((f"{recording.path} call {number}", call.name, call.id, text, call.ok))
    found = list(read_calls(RECORDINGS))
    got = [
        (c.origin, c.name, c.id, c.arguments, c.fields["ok"]) if isinstance(c, ObservedCall) else (c.origin, None)
        for c in found
    ]
    named = [e for e in expected if e[1]]
    assert [g for g in got if len(g) == 5] == named
    assert len([g for g in got if len(g) == 2]) == len(expected) - len(named)
    assert any(not e[4] for e in named), "the bundled recordings include invalid calls, which replay must keep"


def test_a_recording_carries_the_fingerprint_its_request_declared() -> None:
    path = RECORDINGS / "openai-chat" / "parallel-calls.sse"
    calls = calls_of(list(read_calls(path)))
    registry = toolwire.ToolRegistry(json.loads(path.with_suffix(".json").read_text())["request"]["tools"])
    assert [c.name for c in calls] == ["plus", "minus"]
    for call in calls:
        tool = registry.get(call.name)
        assert tool is not None and call.schema_fingerprint == tool.fingerprint
    # The manifest and the data file name the same recording.
    assert calls_of(list(read_calls(path.with_suffix(".json")))) == calls


def test_a_directory_mixes_logs_and_recordings_and_reports_broken_ones(tmp_path: Path) -> None:
    source = RECORDINGS / "anthropic-messages" / "text-then-tool-use-paris"
    for suffix in (".json", ".sse"):
        (tmp_path / f"rec{suffix}").write_bytes(source.with_suffix(suffix).read_bytes())
    (tmp_path / "orphan.sse").write_bytes(source.with_suffix(".sse").read_bytes())  # no manifest
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.json").write_text('{"notes": "no format"}')
    (bad / "broken.jsonl").write_text('{"not": "a chunk"}\n')
    write_jsonl(tmp_path / "log.jsonl", [{"name": "z", "arguments": "{}"}])
    (tmp_path / "README.md").write_text("not a log")
    found = list(read_calls(tmp_path))
    names = [c.name for c in calls_of(found)]
    reasons = {Path(u.origin).name: u.reason for u in unreadable_of(found)}
    recorded = calls_of(list(read_calls(source.with_suffix(".sse"))))
    assert names == ["z", *[c.name for c in recorded]]  # log.jsonl sorts before rec.json
    assert "no manifest" in reasons["orphan.sse"]
    # The manifest without a format is no recording: both files are read as logs, and neither holds calls.
    assert "broken.json" in reasons and "broken.jsonl:1" in reasons


def test_iter_raw_and_read_calls_agree(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "calls.jsonl",
        [{"id": f"i{n}", "name": "t", "arguments": {"n": n}, "ts": "2025-01-01T00:00:00"} for n in range(5)] + ["{"],
    )
    from toolwire.schema.calls import observed

    raw = [observed(item) if isinstance(item, tuple) else item for item in iter_raw(path)]
    assert raw == list(read_calls(path))
    assert isinstance(raw[-1], UnreadableRecord)


def test_timestamps() -> None:
    from toolwire.schema.calls._model import timestamp

    assert timestamp("2025-05-01T12:00:00z") == datetime(2025, 5, 1, 12, tzinfo=timezone.utc)
    assert timestamp(0.5) == datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=0.5)
    assert timestamp(datetime(2025, 1, 1)) == datetime(2025, 1, 1, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match="out of range"):
        timestamp(math.inf)
    with pytest.raises(ValueError, match="expected ISO 8601"):
        timestamp(True)


def test_tool_definitions_given_as_calls_are_not_calls(tmp_path: Path) -> None:
    tools = tmp_path / "tools.jsonl"
    write_jsonl(
        tools,
        [
            {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}},
            {"name": "search", "input_schema": {"type": "object"}},
            {"name": "ping"},  # a call without arguments, not a definition
        ],
    )
    found = list(read_calls(tools))
    assert [u.reason.split(" (")[0] for u in unreadable_of(found)] == ["a tool definition", "a tool definition"]
    assert "--tools" in unreadable_of(found)[0].reason
    assert [c.name for c in calls_of(found)] == ["ping"]


def test_passwords_are_hidden_in_database_origins() -> None:
    from toolwire.schema.calls import shown_url

    assert shown_url("postgresql+psycopg://app:s3cr:et@db:5432/x") == "postgresql+psycopg://app:***@db:5432/x"
    assert shown_url("postgresql://db/x") == "postgresql://db/x"
