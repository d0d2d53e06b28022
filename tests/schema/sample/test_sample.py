"""toolwire sample: covering, deterministic, scrubbed fixtures of observed calls, read back by replay."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from tests.support.paths import CORPORA, RECORDINGS, corpus
from toolwire.cli import main
from toolwire.recordings import iter_recordings
from toolwire.recordings._calllog import CallLog
from toolwire.schema.calls import ObservedCall, UnreadableRecord, read_calls
from toolwire.schema.sample._sample import SampleResult, sample_calls
from toolwire.schema.sample._scrub import Scrub
from toolwire.strategies import arguments

# ----------------------------------------------------------------------------------------------------------------
# Helpers


def observed(calls: list[tuple[str, Any]]) -> list[ObservedCall]:
    """Calls as read_calls would give them, each with a distinct origin to trace the sample back."""
    return [
        ObservedCall(
            name, arguments if isinstance(arguments, str) else json.dumps(arguments), f"id-{n}", origin=f"gen:{n}"
        )
        for n, (name, arguments) in enumerate(calls)
    ]


def originals(result: SampleResult, calls: list[ObservedCall]) -> list[ObservedCall]:
    by_origin = {call.origin: call for call in calls}
    return [by_origin[call.origin] for call in result.calls]


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def schema_features(tool: str, schema: dict[str, Any], value: Any, pointer: str = "") -> set[tuple[Any, ...]]:
    """The test's own reading of "every enum value and optional field": declared enums and declared members."""
    found: set[tuple[Any, ...]] = set()
    if "enum" in schema and not isinstance(value, (dict, list)):
        found.add((tool, pointer, "value", json.dumps(value)))
    if isinstance(value, dict):
        for name, child in (schema.get("properties") or {}).items():
            present = name in value
            found.add((tool, f"{pointer}/{escape(name)}", "present" if present else "absent"))
            if present:
                found |= schema_features(tool, child, value[name], f"{pointer}/{escape(name)}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            found |= schema_features(tool, schema["items"], item, f"{pointer}/*")
    return found


def json_object(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return None


def recorded_calls() -> list[toolwire.ToolCall | toolwire.InvalidToolCall]:
    calls: list[toolwire.ToolCall | toolwire.InvalidToolCall] = []
    for recording in iter_recordings(RECORDINGS):
        stream = toolwire.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield")
        calls.extend(stream)
    return calls


def bfcl_tools(keep: Callable[[dict[str, Any]], bool], count: int) -> list[toolwire.Tool]:
    """The first ``count`` BFCL tools whose parameters ``keep`` accepts, one per name.

    Without combinators, ``$ref`` or patterns, which the test's reading of a schema skips.
    """
    path = corpus("tool-schemas") / "bfcl_v4_jsonschema.jsonl"
    tools: dict[str, toolwire.Tool] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        definition = json.loads(line)
        parameters = definition["parameters"]
        if any(word in json.dumps(parameters) for word in ("anyOf", "oneOf", "allOf", "$ref", "pattern")):
            continue
        if keep(parameters) and definition["name"] not in tools:
            tools[definition["name"]] = toolwire.ToolRegistry([definition]).get(definition["name"])  # type: ignore[assignment]
        if len(tools) == count:
            break
    return list(tools.values())


def enums_optionals_and_nesting(parameters: dict[str, Any]) -> bool:
    """Enums, two optional members or more, and a nested object or array: what the coverage test needs to see."""
    properties = parameters.get("properties", {})
    enums = [k for k, v in properties.items() if isinstance(v, dict) and "enum" in v]
    optional = [k for k in properties if k not in parameters.get("required", [])]
    nested = any(isinstance(v, dict) and v.get("type") in ("object", "array") for v in properties.values())
    return bool(enums) and len(optional) >= 2 and nested


def identifiers(parameters: dict[str, Any]) -> bool:
    """Id-like members (user_id, email, phone...), which the default rules scrub."""
    properties = parameters.get("properties", {})
    return any(re.fullmatch(r"(.*_)?(id|email|phone)", k) and "enum" not in v for k, v in properties.items())


HAS_BFCL = (CORPORA / "tool-schemas").exists()
BFCL_IDS = bfcl_tools(identifiers, 5) if HAS_BFCL else []
BFCL = bfcl_tools(enums_optionals_and_nesting, 4) if HAS_BFCL else []


# ----------------------------------------------------------------------------------------------------------------
# Coverage


@pytest.mark.skipif(not BFCL, reason="../shared/corpora/tool-schemas is absent")
@settings(max_examples=40)
@given(data=st.data(), per_tool=st.integers(0, 3), seed=st.integers(0, 2**32))
def test_every_declared_enum_value_and_optional_member_seen_is_in_the_sample(
    data: st.DataObject, per_tool: int, seed: int
) -> None:
    registry = toolwire.ToolRegistry(BFCL)
    drawn = data.draw(
        st.lists(
            st.one_of(*(arguments(tool).map(lambda a, t=tool: (t.name, a)) for tool in BFCL)), min_size=1, max_size=30
        )
    )
    calls = observed(drawn)
    result = sample_calls(calls, per_tool=per_tool, seed=seed, scrub=False, tools=registry)
    schemas = {tool.name: tool.parameters for tool in BFCL}
    seen = set().union(*(schema_features(c.name, schemas[c.name], json.loads(c.arguments)) for c in calls))
    kept = originals(result, calls)
    covered = set().union(*(schema_features(c.name, schemas[c.name], json.loads(c.arguments)) for c in kept))
    assert seen <= covered, sorted(seen - covered)
    assert not result.features_missed
    counts = defaultdict(int)
    for call in calls:
        counts[call.name] += 1
    for tool in result.tools:
        assert tool.sampled >= min(per_tool, counts[tool.tool])
        assert tool.features_covered == tool.features_seen


@pytest.mark.skipif(not BFCL_IDS, reason="../shared/corpora/tool-schemas is absent")
@settings(max_examples=30)
@given(data=st.data(), seed=st.integers(0, 1000))
def test_scrubbed_samples_of_valid_calls_stay_valid_and_hide_the_identifiers(data: st.DataObject, seed: int) -> None:
    registry = toolwire.ToolRegistry(BFCL_IDS)
    drawn = data.draw(
        st.lists(
            st.one_of(*(arguments(tool, extra_keys=False).map(lambda a, t=tool: (t.name, a)) for tool in BFCL_IDS)),
            min_size=1,
            max_size=25,
        )
    )
    calls = observed(drawn)
    result = sample_calls(calls, per_tool=2, seed=seed, tools=registry)
    assert result.dropped == () and result.features_missed == ()
    verdicts = toolwire.validate_many([(c.name, c.arguments) for c in result.calls], registry)
    assert all(not [v for v in found if v.severity is toolwire.Severity.ERROR] for found in verdicts)
    for call, original in zip(result.calls, originals(result, calls), strict=True):
        before, after = json.loads(original.arguments), json.loads(call.arguments)
        assert after.keys() == before.keys()
        for key, value in before.items():
            if (
                re.fullmatch(r"(.*_)?(id|email|phone)", key)
                and isinstance(value, (str, int))
                and value not in ("", True, False)
            ):
                assert type(after[key]) is type(value) and after[key] != value, (key, value, after[key])


@st.composite
def inferred_calls(draw: st.DrawFn) -> list[tuple[str, dict[str, Any]]]:
    """Calls of tools nobody declared: optional keys, booleans, and a mode from three values seen often."""
    calls = []
    for tool in draw(st.lists(st.sampled_from(["alpha", "beta", "gamma"]), min_size=1, max_size=3, unique=True)):
        for _ in range(draw(st.integers(6, 15))):
            call: dict[str, Any] = {"mode": draw(st.sampled_from(["fast", "slow", "auto"]))}
            for key in ("limit", "verbose", "query"):
                if draw(st.booleans()):
                    call[key] = {"limit": draw(st.integers(0, 99)), "verbose": draw(st.booleans())}.get(
                        key, draw(st.text(max_size=8))
                    )
            calls.append((tool, call))
    return draw(st.permutations(calls))


@given(calls=inferred_calls(), per_tool=st.integers(0, 4), seed=st.integers(0, 100))
def test_without_tools_every_key_given_and_left_out_and_every_mode_is_in_the_sample(
    calls: list[tuple[str, dict[str, Any]]], per_tool: int, seed: int
) -> None:
    def features(name: str, value: dict[str, Any]) -> set[tuple[Any, ...]]:
        found: set[tuple[Any, ...]] = {(name, "mode", value["mode"])}
        found |= {(name, key, key in value) for key in ("limit", "verbose", "query")}
        if "verbose" in value:
            found.add((name, "verbose", value["verbose"]))
        return found

    observed_calls = observed(calls)
    result = sample_calls(observed_calls, per_tool=per_tool, seed=seed)
    seen = set().union(*(features(name, value) for name, value in calls))
    kept = originals(result, observed_calls)
    covered = set().union(*(features(c.name, json.loads(c.arguments)) for c in kept))
    assert seen <= covered
    assert result.features_missed == ()


def test_free_text_is_not_an_enumeration_but_a_repeated_small_vocabulary_is() -> None:
    calls = [("search", {"query": f"free text number {n}", "lang": ["en", "fr"][n % 2]}) for n in range(40)]
    result = sample_calls(observed(calls), per_tool=0)
    assert 'search /lang="en"' in result.features_seen and 'search /lang="fr"' in result.features_seen
    assert not any("/query=" in label for label in result.features_seen)
    assert len(result.calls) == 2  # one per language covers everything


def test_the_recordings_sampled_cover_what_they_show(tmp_path: Path) -> None:
    # Real calls reassembled from every recording, logged by CallLog, sampled from the log and from the folder.
    calls = recorded_calls()
    log = tmp_path / "calls.jsonl"
    with CallLog(log) as writer:
        for call in calls:
            if call.name:
                writer.record(call)
    from_log = sample_calls(read_calls(log), per_tool=2, seed=7)
    from_folder = sample_calls(read_calls(RECORDINGS), per_tool=2, seed=7)
    for result in (from_log, from_folder):
        assert result.read == sum(1 for call in calls if call.name)
        assert result.features_missed == () and result.ok
        # Without tools a call is sampled from when its arguments are a JSON object (the stream's schema verdict is
        # not in a log).
        names = {
            call.name
            for call in calls
            if call.name and call.arguments_json is not None and isinstance(json_object(call.arguments_json), dict)
        }
        assert {call.name for call in result.calls} == names
        for tool in result.tools:
            assert tool.features_covered == tool.features_seen
            assert tool.sampled >= min(2, tool.seen - tool.invalid)
    # The two sources hold the same calls in the same order: the same seed picks the same ones.
    assert [c.arguments for c in from_log.calls] == [c.arguments for c in from_folder.calls]


# ----------------------------------------------------------------------------------------------------------------
# Determinism


def test_the_same_seed_gives_the_same_fixture_and_seeds_vary_the_fill() -> None:
    calls = list(read_calls(RECORDINGS))
    first = sample_calls(calls, per_tool=12, seed=3)
    again = sample_calls(list(read_calls(RECORDINGS)), per_tool=12, seed=3)
    assert first.to_jsonl() == again.to_jsonl()
    fills = {sample_calls(calls, per_tool=12, seed=seed).to_jsonl() for seed in range(8)}
    assert len(fills) > 1
    # Every seed covers the same features: the seed only chooses among equally good calls.
    assert {sample_calls(calls, per_tool=0, seed=seed).features_missed for seed in range(8)} == {()}


# ----------------------------------------------------------------------------------------------------------------
# Scrubbing

CUSTOMERS = [
    {
        "customer_id": "C-48213",
        "email": "jane.doe@corp.example",
        "phone": "+1 (415) 555-0132",
        "user_id": 734521,
        "session_uuid": "9f1c2d7e-5b3a-4c8e-9a1f-2b3c4d5e6f70",
        "account_number": "123456789012",
        "tier": "gold",
    },
    {
        "customer_id": "C-99120",
        "email": "max.mustermann@firma.example",
        "phone": "+49 30 901820",
        "user_id": 118830,
        "session_uuid": "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
        "account_number": "987654321098",
        "tier": "silver",
    },
]


def customer_calls() -> list[ObservedCall]:
    calls: list[tuple[str, Any]] = []
    for n in range(6):
        customer = CUSTOMERS[n % 2]
        calls.append(("lookup_customer", customer))
        calls.append(
            (
                "add_note",
                {
                    "customer_id": customer["customer_id"],
                    "text": f"Called {customer['email']} from 10.20.30.40 about {customer['customer_id']}, "
                    f"ref {customer['session_uuid']}, card 4111111111111111, mobile 415-555-0199 #{n}",
                    "visibility": ["internal", "public"][n % 2],
                },
            )
        )
    return observed(calls)


def test_identifiers_are_replaced_consistently_keeping_type_and_format() -> None:
    calls = customer_calls()
    result = sample_calls(calls, per_tool=6, seed=1)
    data = result.to_jsonl()
    for customer in CUSTOMERS:
        for key in ("customer_id", "email", "phone", "session_uuid", "account_number"):
            assert customer[key] not in data, key
        assert str(customer["user_id"]) not in data
    for secret in ("4111111111111111", "415-555-0199", "10.20.30.40", "id-0", "id-1"):
        assert secret not in data
    parsed = [(c.name, json.loads(c.arguments)) for c in result.calls]
    lookups = [value for name, value in parsed if name == "lookup_customer"]
    notes = [value for name, value in parsed if name == "add_note"]
    assert lookups and notes
    checker = jsonschema.FormatChecker()
    for value in lookups:
        assert re.fullmatch(r"customer-\d{4}", value["customer_id"])
        assert checker.conforms(value["email"], "email") and value["email"].endswith("@example.com")
        assert checker.conforms(value["session_uuid"], "uuid")
        assert isinstance(value["user_id"], int) and len(str(value["user_id"])) == 6
        assert re.fullmatch(r"\d{12}", value["account_number"])
        assert value["tier"] in ("gold", "silver")  # not an identifier: kept
    for value in lookups:
        original = next(c for c in CUSTOMERS if c["tier"] == value["tier"])["phone"]
        # Same punctuation, as many digits, other digits.
        assert re.sub(r"\d", "0", value["phone"]) == re.sub(r"\d", "0", original) and value["phone"] != original
    # The same original gets the same placeholder everywhere, inside free text too.
    for value in lookups:
        original = next(c for c in CUSTOMERS if c["tier"] == value["tier"])
        for note in notes:
            if note["customer_id"] == value["customer_id"]:
                assert value["email"] in note["text"] and value["session_uuid"] in note["text"]
                assert note["text"].count(value["customer_id"]) == 1
        # Every lookup of one customer is scrubbed to the very same arguments.
        assert len({json.dumps(v) for v in lookups if v["tier"] == original["tier"]}) == 1
    assert all(re.fullmatch(r"call-\d{4}", c.id or "") for c in result.calls)
    assert result.placeholders["email"] == 2 and result.placeholders["customer"] == 2


def test_scrub_rules_are_configurable() -> None:
    calls = observed([("greet", {"name": "Alice Smith", "greeting": "hello Alice Smith", "ticket": "T-12-AB"})] * 2)
    default = sample_calls(calls, per_tool=1)
    assert json.loads(default.calls[0].arguments)["name"] == "Alice Smith"  # a bare "name" is not in the defaults
    custom = sample_calls(calls, per_tool=1, scrub=Scrub(fields=("name",), patterns=(r"T-\d+-[A-Z]+",), keep_ids=True))
    value = json.loads(custom.calls[0].arguments)
    assert value == {"name": "name-0001", "greeting": "hello name-0001", "ticket": "scrubbed-0001"}
    assert custom.calls[0].id in ("id-0", "id-1")
    only = sample_calls(
        observed([("x", {"user_id": "u-1", "mail": "a.b@c.example"})]), scrub=Scrub(fields=("mail",), defaults=False)
    )
    assert json.loads(only.calls[0].arguments) == {"user_id": "u-1", "mail": "user-0001@example.com"}
    unscrubbed = sample_calls(observed([("x", {"user_id": "u-1"})]), scrub=False)
    assert json.loads(unscrubbed.calls[0].arguments) == {"user_id": "u-1"}
    with pytest.raises(ValueError, match=r"patterns\[0\]"):
        Scrub(patterns=("(",))


ORDERS = toolwire.ToolRegistry(
    [
        {
            "name": "refund_order",
            "parameters": {
                "type": "object",
                "properties": {
                    "order_id": {"type": "string", "pattern": "^[A-Z]{2}-\\d{6}$"},
                    "user_id": {"type": "string", "maxLength": 6},
                    "status_id": {"type": "string", "enum": ["open", "closed"]},
                    "reason": {"type": "string"},
                    "username": {"type": "string", "pattern": "^(alice|bob)$"},
                },
                "required": ["order_id", "status_id"],
                "additionalProperties": False,
            },
        }
    ]
)


def test_with_tools_scrubbed_calls_stay_valid_or_are_left_out_and_reported() -> None:
    calls = observed(
        [
            ("refund_order", {"order_id": "AB-123456", "user_id": "u-7781", "status_id": "open", "reason": "late"}),
            ("refund_order", {"order_id": "CD-654321", "status_id": "closed", "reason": "for AB-123456 too"}),
            ("refund_order", {"order_id": "EF-111111", "status_id": "open", "username": "alice"}),
            ("refund_order", {"order_id": "nope", "status_id": "open"}),  # invalid: left out, counted
        ]
    )
    result = sample_calls(calls, per_tool=5, tools=ORDERS)
    texts = [json.loads(c.arguments) for c in result.calls]
    # A readable placeholder would break the pattern and the length: same-shape ones are used, consistently.
    assert all(re.fullmatch(r"[A-F]{2}-\d{6}", t["order_id"]) for t in texts)
    first = next(t for t in texts if "user_id" in t)
    assert first["user_id"] != "u-7781" and len(first["user_id"]) == 6
    second = next(t for t in texts if t["reason"].startswith("for "))
    assert second["reason"] == f"for {first['order_id']} too"
    assert {t["status_id"] for t in texts} == {"open", "closed"}  # pinned by the schema's enum: never scrubbed
    verdicts = toolwire.validate_many([(c.name, c.arguments) for c in result.calls], ORDERS)
    assert verdicts == [[] for _ in result.calls]
    # The username call cannot be scrubbed into anything its pattern accepts: left out, reported, exit 1.
    assert not any("username" in t for t in texts)
    assert len(result.dropped) == 1 and "gen:2" in result.dropped[0] and "/username" in result.dropped[0]
    assert not result.ok
    assert "refund_order /username present" in result.features_missed
    assert result.tools[0].invalid == 1 and result.invalid[0][0] == "gen:3"


def test_invalid_calls_can_be_sampled_for_their_violations() -> None:
    calls = observed(
        [
            ("refund_order", {"order_id": "AB-123456", "status_id": "open"}),
            ("refund_order", {"order_id": "AB-123456", "status_id": "maybe"}),
            ("refund_order", '{"order_id": "AB-12'),
            ("refund_order", {"status_id": "open", "mail": "x.y@z.example"}),
        ]
    )
    result = sample_calls(calls, per_tool=0, tools=ORDERS, include_invalid=True)
    labels = set(result.features_seen)
    assert {"refund_order ENUM_OUT_OF_RANGE", "refund_order INVALID_JSON", "refund_order UNEXPECTED_ARGUMENT"} <= labels
    assert result.features_missed == ()
    # Each invalid call is the only one showing its violation; the valid one shows nothing the others do not.
    assert {"gen:1", "gen:2", "gen:3"} <= {call.origin for call in result.calls}
    assert all("x.y@z.example" not in c.arguments for c in result.calls)


# ----------------------------------------------------------------------------------------------------------------
# Round trip and command line


def test_the_fixture_is_read_back_by_read_calls(tmp_path: Path) -> None:
    calls = customer_calls()
    result = sample_calls(calls, per_tool=3, seed=2)
    path = tmp_path / "fixtures.jsonl"
    result.write(path)
    back = list(read_calls(path))
    assert all(isinstance(call, ObservedCall) for call in back)
    assert [(c.id, c.name, c.arguments) for c in back if isinstance(c, ObservedCall)] == [
        (c.id, c.name, c.arguments) for c in result.calls
    ]
    again = sample_calls(back, per_tool=100, scrub=False)
    assert len(again.calls) == len(result.calls)


def write_tools(tmp_path: Path) -> Path:
    """The tools of the recordings whose requests declared them (the first definition of each name)."""
    tools: dict[str, Any] = {}
    for recording in iter_recordings(RECORDINGS):
        for definition in recording.reassemble_options()["tools"] or []:
            registry = toolwire.ToolRegistry([definition])
            for name in registry.names:
                tool = registry.get(name)
                if tool is not None and name not in tools:
                    tools[name] = {"name": name, "parameters": tool.parameters}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(list(tools.values())))
    return path


def test_cli_end_to_end_sample_then_replay_the_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = write_tools(tmp_path)
    log = tmp_path / "calls.jsonl"
    with CallLog(log) as writer:
        for call in recorded_calls():
            if call.name:
                writer.record(call)
    fixture = tmp_path / "fixtures.jsonl"
    argv = ["sample", str(log), "--output", str(fixture), "--per-tool", "2", "--seed", "5", "--tools", str(tools)]
    assert main([*argv, "--output-format", "json"]) == 0
    summary = json.loads(capsys.readouterr().err)
    assert summary["sampled"] == len(fixture.read_text().splitlines()) > 0
    assert summary["features"]["seen"] == summary["features"]["covered"] > 0
    assert summary["read"] == sum(tool["seen"] for tool in summary["tools"])
    # The seed-style contract test: the fixture replays clean against the same tools.
    assert main(["replay", str(fixture), "--tools", str(tools)]) == 0
    capsys.readouterr()
    # Same command, same fixture.
    first = fixture.read_bytes()
    assert main(argv) == 0
    assert fixture.read_bytes() == first
    text = capsys.readouterr().err
    assert "features covered" in text and "calls read" in text


def test_cli_reports_unreadable_records_and_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "calls.jsonl"
    source.write_text(
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"arguments": {"city": "Rome"}}\n'
        '{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\", \\"email\\": \\"a@b.example\\"}"}\n'
    )
    assert main(["sample", str(source)]) == 1  # fixture on stdout, a record that is not a call reported
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["name"] for line in lines] == ["get_weather", "get_weather"]
    assert "a@b.example" not in captured.out and "user-0001@example.com" in captured.out
    assert "unreadable" in captured.err and "calls.jsonl:2" in captured.err
    assert main(["sample", str(source), "--scrub-pattern", "("]) == 2
    assert "not a regular expression" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["sample", str(empty), "--output", str(tmp_path / "out.jsonl")]) == 2
    assert "no tool calls" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()
    assert main(["sample", str(tmp_path / "missing.jsonl")]) == 2


def test_sample_rejects_what_read_calls_does_not_yield() -> None:
    with pytest.raises(TypeError, match=r"calls\[0\]"):
        sample_calls([{"name": "x"}])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="per_tool"):
        sample_calls([], per_tool=-1)
    assert sample_calls([UnreadableRecord("x:1", "no name")]).ok is False


def test_cli_samples_a_sqlite_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    database = tmp_path / "calls.db"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE tool_calls (call_id TEXT, tool TEXT, args TEXT, created TEXT)")
        connection.executemany(
            "INSERT INTO tool_calls VALUES (?, ?, ?, ?)",
            [
                (f"c{n}", "get_weather", json.dumps({"city": "Paris", "unit": ["celsius", "kelvin"][n % 2]}), None)
                for n in range(20)
            ],
        )
    connection.close()
    fixture = tmp_path / "fixtures.jsonl"
    query = "SELECT call_id AS id, tool AS name, args AS arguments FROM tool_calls ORDER BY call_id"
    assert main(["sample", f"sqlite:///{database}", "--query", query, "--output", str(fixture), "--per-tool", "0"]) == 0
    capsys.readouterr()
    units = sorted(json.loads(json.loads(line)["arguments"])["unit"] for line in fixture.read_text().splitlines())
    assert units == ["celsius", "kelvin"]


def test_a_fixture_line_is_keyed_as_a_call_log_line(tmp_path: Path) -> None:
    from toolwire.recordings._calllog import RECORD_KEYS

    calls = [ObservedCall("lookup", '{"q": "x"}', "c1", schema_fingerprint="sha256:abc", origin="gen:0")]
    result = sample_calls(calls, per_tool=1, seed=0)
    (line,) = [json.loads(text) for text in result.to_jsonl().splitlines()]
    assert tuple(line) == tuple(key for key in RECORD_KEYS if key != "outcome")
    fixture = tmp_path / "fixture.jsonl"
    fixture.write_text(result.to_jsonl(), encoding="utf-8")
    (again,) = [call for call in read_calls([fixture]) if isinstance(call, ObservedCall)]
    # Read back as replay reads it (the id is scrubbed, as every identifier is).
    assert (again.name, again.arguments, again.schema_fingerprint) == ("lookup", '{"q": "x"}', "sha256:abc")
