"""Real recorded OpenAI Chat Completions streams (../shared/corpora/provider-streams) reassemble to their manifests.

Each stream goes through the Rust core and the reference, as chunk dicts and as the openai SDK's own
``ChatCompletionChunk`` objects (built the way the SDK's ``Stream`` builds them), and must give the manifest's
calls. Where the manifest and design.md deliberately differ, the test states the design's rule:
- a call whose id never arrived (Gemini's ``""``) gets a generated ``ts_<choice>_<seq>`` id and ``MISSING_ID``;
- the result's finish reason is the *first* non-null one (the manifest records the last), with
  ``MULTIPLE_FINISH_REASONS`` reported for the others.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import CORPORA
from toolwire.recordings import decode_jsonl, decode_sse

STREAMS = CORPORA / "provider-streams" / "streams"


def chat_manifests() -> list[dict[str, Any]]:
    manifest = STREAMS / "MANIFEST.jsonl"
    if not manifest.exists():
        return []
    entries = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [entry for entry in entries if entry["wire_format"] == "openai-chat"]


MANIFESTS = chat_manifests()
pytestmark = pytest.mark.skipif(not MANIFESTS, reason=f"{STREAMS} is absent (the corpora live in ../shared)")


def chunks_of(entry: dict[str, Any]) -> list[Any]:
    path = Path(STREAMS / entry["file"])
    decode = decode_jsonl if path.suffix == ".jsonl" else decode_sse
    return decode(path.read_bytes(), str(path))


def as_sdk_objects(chunks: list[Any]) -> list[Any]:
    return [construct_type(type_=ChatCompletionChunk, value=chunk) for chunk in chunks]


def first_finish(chunks: list[Any]) -> str | None:
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            if choice.get("finish_reason"):
                return str(choice["finish_reason"])
    return None


def check(entry: dict[str, Any], chunks: list[Any], raw: list[Any], implementation: Any) -> None:
    stream = implementation.reassemble(chunks, tool_choice=entry.get("request_tool_choice"), on_invalid="yield")
    handed_over = list(stream)
    result = stream.result
    assert sorted(handed_over, key=lambda call: (call.choice, call.seq)) == [*result.calls, *result.invalid_calls]

    expected = [call for call in entry["expected_calls"] if call.get("complete", True)]
    assert not result.invalid_calls
    assert [(call.name, call.arguments) for call in result.calls] == [
        (call["name"], call["arguments"]) for call in expected
    ]
    for call, wanted in zip(result.calls, expected, strict=True):
        codes = {violation.code for violation in call.violations}
        if wanted["id"]:
            assert call.id == wanted["id"]
        else:
            assert call.id == f"ts_{call.choice}_{call.seq}"
            assert toolwire.ViolationCode.MISSING_ID in codes
        assert json.loads(call.arguments_json or "{}") == call.arguments

    stream_codes = [violation.code for violation in result.violations]
    assert result.finish_reason == first_finish(raw)
    if entry["expected_finish"] != result.finish_reason:
        assert toolwire.ViolationCode.MULTIPLE_FINISH_REASONS in stream_codes
    if "expected_error" in entry:
        assert toolwire.ViolationCode.PROVIDER_ERROR in stream_codes
        error = next(v for v in result.violations if v.code is toolwire.ViolationCode.PROVIDER_ERROR)
        assert error.data == next(chunk["error"] for chunk in raw if "error" in chunk)
    if result.finish_reason == "stop" and result.calls:
        mismatch = next(v for v in result.violations if v.code is toolwire.ViolationCode.FINISH_REASON_MISMATCH)
        forced = isinstance(entry.get("request_tool_choice"), dict)
        assert mismatch.severity is (toolwire.Severity.INFO if forced else toolwire.Severity.WARNING)


@pytest.mark.parametrize("entry", MANIFESTS, ids=[entry["file"] for entry in MANIFESTS])
def test_dict_chunks(entry: dict[str, Any], implementation: ModuleType) -> None:
    chunks = chunks_of(entry)
    check(entry, chunks, chunks, implementation)


@pytest.mark.parametrize("entry", MANIFESTS, ids=[entry["file"] for entry in MANIFESTS])
def test_sdk_chunk_objects(entry: dict[str, Any], implementation: ModuleType) -> None:
    raw = chunks_of(entry)
    if any("error" in chunk for chunk in raw):
        pytest.skip("the openai SDK raises APIError on an error event instead of yielding a chunk")
    check(entry, as_sdk_objects(raw), raw, implementation)


@pytest.mark.parametrize("entry", MANIFESTS, ids=[entry["file"] for entry in MANIFESTS])
def test_core_and_reference_agree_violation_for_violation(entry: dict[str, Any]) -> None:
    chunks = chunks_of(entry)
    outcomes = []
    for implementation in IMPLEMENTATIONS.values():
        for emit in ("complete", "call_end", "stream_end"):
            stream = implementation.reassemble(chunks, emit=emit, on_invalid="yield")
            order = [(call.choice, call.seq) for call in stream]
            result = stream.result
            calls = [
                (call.id, call.name, call.arguments, call.arguments_json, sorted(v.key() for v in call.violations))
                for call in result.calls
            ]
            outcomes.append((emit, order, calls, [v.key() for v in result.violations]))
    assert outcomes[:3] == outcomes[3:]
