"""Real recorded Anthropic Messages and OpenAI Responses streams (../shared/corpora/provider-streams) reassemble to
their manifests, through the Rust core and the reference, whatever way they arrive.

Each stream is fed as its file's raw bytes (the fast path; `.jsonl` files as JSON lines), as its bytes re-split at
random points, as decoded event dicts, and as the official SDKs' own event objects, with the format detected. The
manifest's calls (id, name, arguments, index, `item_id` and `caller` kept in `extra`), finish, server tool calls and
other output items must come out, and the core and the reference must agree violation for violation.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import anthropic._models
import anthropic.types
import openai._models
import openai.types.responses
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import CORPORA
from toolwire.recordings import decode_jsonl, decode_sse

STREAMS = CORPORA / "provider-streams" / "streams"
FORMATS = ("anthropic-messages", "openai-responses")


def sdk_event(wire_format: str, event: dict[str, Any]) -> Any:
    """The event as the SDK's own stream builds it from the wire (``construct_type``, as its ``Stream`` does)."""
    if wire_format == "anthropic-messages":
        return anthropic._models.construct_type(type_=anthropic.types.RawMessageStreamEvent, value=event)
    return openai._models.construct_type(type_=openai.types.responses.ResponseStreamEvent, value=event)


def manifests() -> list[dict[str, Any]]:
    manifest = STREAMS / "MANIFEST.jsonl"
    if not manifest.exists():
        return []
    entries = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [entry for entry in entries if entry["wire_format"] in FORMATS]


MANIFESTS = manifests()
IDS = [entry["file"] for entry in MANIFESTS]
pytestmark = pytest.mark.skipif(not MANIFESTS, reason=f"{STREAMS} is absent (the corpora live in ../shared)")


def data_of(entry: dict[str, Any]) -> bytes:
    return Path(STREAMS / entry["file"]).read_bytes()


def events_of(entry: dict[str, Any]) -> list[Any]:
    path = Path(STREAMS / entry["file"])
    decode = decode_jsonl if path.suffix == ".jsonl" else decode_sse
    return decode(path.read_bytes(), str(path))


def check(entry: dict[str, Any], source: Any, implementation: Any) -> toolwire.StreamResult:
    stream = implementation.reassemble(source, on_invalid="yield")
    handed_over = list(stream)
    result: toolwire.StreamResult = stream.result
    every = sorted([*result.calls, *result.invalid_calls], key=lambda call: (call.choice, call.seq))
    assert sorted(handed_over, key=lambda call: (call.choice, call.seq)) == every
    assert len(every) == len(entry["expected_calls"])
    for call, wanted in zip(every, entry["expected_calls"], strict=True):
        assert (call.id, call.name, call.index) == (wanted["id"], wanted["name"], wanted["index"])
        if wanted.get("complete", True):
            assert call.ok, call
            assert call.arguments == wanted["arguments"]
        else:
            assert not call.ok
            assert {error.code.value for error in call.errors} & {"TRUNCATED", "INVALID_JSON"}
            assert call.arguments_json.replace(" ", "") == wanted["arguments_raw"].replace(" ", "")
        if "item_id" in wanted:
            assert call.extra["item_id"] == wanted["item_id"]
        if "caller" in wanted:
            assert call.extra["caller"] == wanted["caller"]
    assert result.finish_reason == entry["expected_finish"]
    servers = [
        {"id": block["id"], "name": block["name"], "arguments": block["input"], "type": block["type"]}
        for block in result.server_calls
        if entry["wire_format"] == "anthropic-messages"
    ]
    assert servers == [
        {key: call[key] for key in ("id", "name", "arguments", "type")}
        for call in entry.get("expected_server_tool_calls", [])
    ]
    if entry["wire_format"] == "openai-responses":
        others = [
            {"type": item.value["type"], "id": item.value["id"]}
            for item in result.output
            if item.value["type"] not in ("message", "reasoning")
        ]
        assert others == [
            {"type": item["type"], "id": item["id"]} for item in entry.get("expected_other_output_items", [])
        ]
    codes = {violation.code.value for violation in result.violations}
    assert ("PROVIDER_ERROR" in codes) == ("expected_error" in entry)
    return result


@pytest.mark.parametrize("entry", MANIFESTS, ids=IDS)
def test_raw_bytes(entry: dict[str, Any], implementation: ModuleType) -> None:
    check(entry, data_of(entry), implementation)


@pytest.mark.parametrize("entry", MANIFESTS, ids=IDS)
def test_event_dicts(entry: dict[str, Any], implementation: ModuleType) -> None:
    check(entry, events_of(entry), implementation)


@pytest.mark.parametrize("entry", MANIFESTS, ids=IDS)
def test_sdk_event_objects(entry: dict[str, Any], implementation: ModuleType) -> None:
    events = [sdk_event(entry["wire_format"], event) for event in events_of(entry)]
    check(entry, events, implementation)


@settings(max_examples=40, deadline=None)
@given(entry=st.sampled_from(MANIFESTS or [{}]), rng=st.randoms(use_true_random=False))
def test_bytes_split_anywhere(entry: dict[str, Any], rng: random.Random) -> None:
    if not entry:
        return
    data = data_of(entry)
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 30))))
    pieces = [data[start:end] for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    for implementation in IMPLEMENTATIONS.values():
        check(entry, iter(pieces), implementation)


@pytest.mark.parametrize("entry", MANIFESTS, ids=IDS)
def test_core_and_reference_agree_violation_for_violation(entry: dict[str, Any]) -> None:
    outcomes = []
    for implementation in IMPLEMENTATIONS.values():
        for emit in ("complete", "call_end", "stream_end"):
            stream = implementation.reassemble(data_of(entry), emit=emit, on_invalid="yield")
            order = [(call.choice, call.seq) for call in stream]
            result = stream.result
            calls = [
                (
                    call.id,
                    call.name,
                    call.arguments,
                    call.arguments_json,
                    dict(call.extra),
                    sorted(v.key() for v in call.violations),
                )
                for call in (*result.calls, *result.invalid_calls)
            ]
            outcomes.append((emit, order, calls, [v.key() for v in result.violations], result.output, result.usage))
    assert outcomes[:3] == outcomes[3:]
