"""Real recorded calls (../shared/corpora/provider-streams) checked against the tools their requests declared.

Every manifest entry with ``expected_validation`` says, per call, whether its arguments validate against the
matching ``request_tools`` schema and with which errors (Python ``jsonschema`` messages, Draft 2020-12). Each
call must give exactly those errors, as (code, JSON pointer), through ``validate`` in the core and the reference;
the OpenAI Chat streams must give them when reassembled with ``tools=request_tools`` too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import CORPORA
from toolwire import Severity, ToolRegistry
from toolwire.recordings import decode_jsonl, decode_sse

PROVIDER_STREAMS = CORPORA / "provider-streams"

# The manifests' error texts: "<where>: <value> is not of type '<type>'" and "<where>: '<member>' is a required
# property", where <where> is "<root>" or a dotted path.
_TYPE = re.compile(r"^(?P<where>[^:]+): .* is not of type '[a-z]+'$")
_REQUIRED = re.compile(r"^(?P<where>[^:]+): '(?P<member>[^']+)' is a required property$")


def _pointer(where: str) -> str:
    return "" if where == "<root>" else "".join(f"/{part}" for part in where.split("."))


def expected_errors(messages: list[str]) -> list[tuple[str, str]]:
    """The manifest's error messages as (code, pointer), sorted as toolwire sorts them."""
    errors = []
    for message in messages:
        if required := _REQUIRED.match(message):
            errors.append(("MISSING_REQUIRED_ARGUMENT", f"{_pointer(required['where'])}/{required['member']}"))
        elif mismatch := _TYPE.match(message):
            errors.append(("TYPE_MISMATCH", _pointer(mismatch["where"])))
        else:  # pragma: no cover - a new kind of message in the corpus: teach this test to read it
            raise AssertionError(f"unknown expected_validation message {message!r}")
    return sorted(errors, key=lambda error: (error[1], error[0]))


def entries() -> list[Any]:
    found = []
    for folder in ("streams", "buffered"):
        manifest = PROVIDER_STREAMS / folder / "MANIFEST.jsonl"
        if not manifest.exists():
            continue
        for line in manifest.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if "expected_validation" in entry and "request_tools" in entry:
                found.append(pytest.param(folder, entry, id=f"{folder}/{entry['file']}"))
    return found


ENTRIES = entries()
pytestmark = pytest.mark.skipif(not ENTRIES, reason=f"{PROVIDER_STREAMS} is absent (the corpora live in ../shared)")


def pairs(entry: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each expected_validation verdict with the expected call it is about (matched by index and id, in order)."""
    unused = list(entry["expected_calls"])
    matched = []
    for verdict in entry["expected_validation"]:
        call = next(c for c in unused if (c.get("index"), c["id"]) == (verdict["index"], verdict["id"]))
        unused.remove(call)
        matched.append((call, verdict))
    return matched


def errors_of(violations: Any) -> list[tuple[str, str]]:
    return [(v.code.value, v.path) for v in violations if v.severity is Severity.ERROR]


@pytest.mark.parametrize(("folder", "entry"), ENTRIES)
def test_validate_reports_exactly_the_expected_errors(
    implementation: ModuleType, folder: str, entry: dict[str, Any]
) -> None:
    registry = ToolRegistry(entry["request_tools"])
    for call, verdict in pairs(entry):
        found = errors_of(implementation.validate(call["name"], call["arguments"], registry))
        assert found == expected_errors(verdict["errors"]), call["name"]
        assert (not found) == verdict["valid"]


def chat_streams() -> list[Any]:
    return [
        param
        for param in ENTRIES
        if param.values[0] == "streams" and param.values[1]["wire_format"] == "openai-chat"  # type: ignore[index]
    ]


@pytest.mark.parametrize(("folder", "entry"), chat_streams())
def test_reassembled_streams_report_exactly_the_expected_errors(
    implementation: ModuleType, folder: str, entry: dict[str, Any]
) -> None:
    path = Path(PROVIDER_STREAMS / folder / entry["file"])
    chunks = (decode_jsonl if path.suffix == ".jsonl" else decode_sse)(path.read_bytes(), str(path))
    stream = implementation.reassemble(chunks, tools=entry["request_tools"], on_invalid="yield")
    calls = sorted(stream, key=lambda call: (call.choice, call.seq))
    verdicts = [verdict for call, verdict in pairs(entry) if call.get("complete", True)]
    assert len(calls) == len(verdicts)
    for call, verdict in zip(calls, verdicts, strict=True):
        errors = [] if call.ok else errors_of(call.errors)
        assert errors == expected_errors(verdict["errors"]), call.name
        if call.ok:
            assert call.tool_fingerprint == ToolRegistry(entry["request_tools"])[call.name].fingerprint
