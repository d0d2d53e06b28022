"""Real responses of every provider (../shared/corpora/provider-streams-ext) reassemble to their manifests.

Each streamed response goes through the Rust core and the reference from its raw body — whole, re-split at seeded
random points, a byte at a time, and as a line iterator's lines — whatever its framing (server-sent events, JSON
lines, Gemini's JSON array, Bedrock's binary AWS event-stream messages, kept next to their decoded events as
``raw_file``), and from its events as dicts (the JSON lines, or each server-sent event's data decoded); each buffered
response through ``normalize``. The manifest's calls (name, arguments, id when the provider sent one, index,
``item_id``, a thought signature), finish reason and server tool calls must come out, with no error finding the
manifest does not imply, and a raw body must give exactly what its decoded events give.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import CORPORA
from toolwire.recordings import decode_jsonl, decode_sse

EXT = CORPORA / "provider-streams-ext"
# Finish reasons that cut a stream (docs/semantics.md): the only error finding a real response may bring.
CUTTING = {"incomplete", "failed", "cancelled", "max_tokens", "length", "MAX_TOKENS", "SAFETY"}


def manifest() -> list[dict[str, Any]]:
    path = EXT / "MANIFEST.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


ENTRIES = manifest()
STREAMS = [entry for entry in ENTRIES if entry["kind"] == "stream"]
BUFFERED = [entry for entry in ENTRIES if entry["kind"] == "buffered"]
RAW_FILES = [entry for entry in STREAMS if entry.get("raw_file")]
pytestmark = pytest.mark.skipif(not ENTRIES, reason=f"{EXT} is absent (the corpora live in ../shared)")


def body(entry: dict[str, Any]) -> bytes:
    return Path(EXT / entry["file"]).read_bytes()


def events(entry: dict[str, Any]) -> list[Any]:
    """The response's events as dicts: the JSON lines, the array's elements, or each server-sent event's data."""
    data, origin = body(entry), entry["file"]
    if entry["format"] == "jsonl-chunks":
        return decode_jsonl(data, origin)
    if entry["format"] == "json-array":
        elements: list[Any] = json.loads(data)
        return elements
    return decode_sse(data, origin)


def split(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 40))))
    return [data[start:end] for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def sources(data: bytes, name: str) -> dict[str, Any]:
    """A raw body the ways a client hands it over: whole, reads split anywhere, a byte at a time."""
    return {
        "whole": data,
        "re-split": iter(split(data, random.Random(name))),
        "byte by byte": iter([data[at : at + 1] for at in range(len(data))]),
    }


def server_label(wire_format: str, item: dict[str, Any]) -> str:
    """A server call as the manifest names it: the tool's name, Gemini's tool type, a Responses item's type(:name)."""
    if wire_format == "bedrock-converse":
        return str(item["toolUse"]["name"])
    if wire_format == "gemini":
        return "executableCode" if "executableCode" in item else str(item["toolCall"]["toolType"])
    if wire_format == "openai-responses":
        return f"{item['type']}:{item['name']}" if item.get("name") else str(item["type"])
    return str(item["name"])


def check(entry: dict[str, Any], result: toolwire.StreamResult) -> None:
    every = sorted([*result.calls, *result.invalid_calls], key=lambda call: (call.choice, call.seq))
    expected = entry["expected_calls"]
    assert [(call.name, call.arguments) for call in every] == [(call["name"], call["arguments"]) for call in expected]
    for call, wanted in zip(every, expected, strict=True):
        assert call.ok, call
        if wanted["id"] is not None:
            assert call.id == wanted["id"]
        if entry["wire_format"] != "gemini":
            assert call.index == wanted["index"]
        if "item_id" in wanted:
            assert call.extra["item_id"] == wanted["item_id"]
        if wanted.get("thought_signature"):
            assert call.extra["thought_signature"]
    assert result.finish_reason == entry["expected_finish"]
    labels = [server_label(entry["wire_format"], item) for item in result.server_calls]
    wanted_labels = entry["expected_server_tool_calls"]
    if entry["wire_format"] == "openai-responses":
        # The manifest lists every item the server ran; only those of a `*_call` type are calls (semantics.md), the
        # others (`mcp_list_tools`, a `program`) are kept in `output`.
        kept = [server_label("openai-responses", item.value) for item in result.output]
        assert all(label in kept for label in wanted_labels)
        wanted_labels = [label for label in wanted_labels if label.split(":")[0].endswith("_call")]
    assert labels == wanted_labels
    errors = {violation.code.value for violation in result.violations if violation.severity.value == "error"}
    assert errors == ({"STREAM_CUT"} if entry["expected_finish"] in CUTTING else set())


def run(implementation: Any, source: Any, **options: Any) -> toolwire.StreamResult:
    stream = implementation.reassemble(source, on_invalid="yield", **options)
    handed_over = list(stream)
    result: toolwire.StreamResult = stream.result
    assert sorted(handed_over, key=lambda call: (call.choice, call.seq)) == sorted(
        [*result.calls, *result.invalid_calls], key=lambda call: (call.choice, call.seq)
    )
    return result


def essence(result: toolwire.StreamResult) -> tuple[Any, ...]:
    """What two readings of one response must share: calls, finish, text, usage, output and findings."""
    return (
        [(call.id, call.name, call.arguments, call.index, dict(call.extra)) for call in result.calls],
        [(call.id, call.name) for call in result.invalid_calls],
        result.finish_reason,
        result.text,
        result.usage,
        [(item.after_calls, item.value) for item in result.output],
        [(violation.code, violation.severity, violation.seq) for violation in result.violations],
        result.format,
    )


@pytest.mark.parametrize("entry", STREAMS, ids=[entry["file"] for entry in STREAMS])
def test_every_response_from_its_raw_body(entry: dict[str, Any], implementation: ModuleType) -> None:
    data = body(entry)
    outcomes = {way: run(implementation, source) for way, source in sources(data, entry["file"]).items()}
    outcomes["lines"] = run(implementation, iter(data.splitlines()))  # a line iterator: line ends dropped
    for way, result in outcomes.items():
        check(entry, result)
        assert essence(result) == essence(outcomes["whole"]), way


@pytest.mark.parametrize("entry", STREAMS, ids=[entry["file"] for entry in STREAMS])
def test_every_response_from_its_events(entry: dict[str, Any], implementation: ModuleType) -> None:
    result = run(implementation, events(entry))
    check(entry, result)
    assert essence(result) == essence(run(implementation, body(entry)))


@pytest.mark.parametrize("entry", RAW_FILES, ids=[entry["raw_file"] for entry in RAW_FILES])
def test_bedrock_aws_event_stream_frames(entry: dict[str, Any], implementation: ModuleType) -> None:
    """The binary body a Bedrock ``ConverseStream`` sends over HTTP reads as the events boto3 yields for it."""
    frames = (EXT / "streams" / entry["raw_file"]).read_bytes()
    decoded = run(implementation, events(entry))
    for way, source in sources(frames, entry["raw_file"]).items():
        result = run(implementation, source)
        check(entry, result)
        assert essence(result) == essence(decoded), way
        assert result.format == "bedrock-converse"


@pytest.mark.parametrize("entry", BUFFERED, ids=[entry["file"] for entry in BUFFERED])
def test_every_buffered_response_through_normalize(entry: dict[str, Any], implementation: ModuleType) -> None:
    check(entry, implementation.normalize(json.loads(body(entry))))


@pytest.mark.parametrize("entry", STREAMS, ids=[entry["file"] for entry in STREAMS])
def test_core_and_reference_agree_finding_for_finding(entry: dict[str, Any]) -> None:
    core, reference = (run(impl, body(entry)) for impl in IMPLEMENTATIONS.values())
    assert essence(core) == essence(reference)


def test_the_corpus_holds_every_framing() -> None:
    """The Done-when of issue 15: the 79 responses, the 3 Gemini JSON arrays and the 4 AWS bodies among them."""
    assert len(ENTRIES) == 79
    assert len([entry for entry in STREAMS if entry["format"] == "json-array"]) == 3
    assert len(RAW_FILES) == 4
