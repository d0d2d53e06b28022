"""Integrity of recordings/ and of toolwire.recordings (no reassembly here: these files are the oracle)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import CORPORA, RECORDINGS, REPO

PACKAGE = REPO / "python" / "toolwire"


def _load_by_path(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# The package imports its compiled core; these two modules are pure Python and must work without it.
try:
    from toolwire.recordings import _read as rec_mod  # the reading side, where DEFAULT_ROOT is read
except ImportError:
    rec_mod = _load_by_path("_toolwire_recordings_standalone", PACKAGE / "recordings" / "_read.py")
try:
    from toolwire import _model as model_mod
except ImportError:
    model_mod = _load_by_path("_toolwire_model_standalone", PACKAGE / "_model.py")

ViolationCode = model_mod.ViolationCode
VIOLATION_TABLE = model_mod.VIOLATION_TABLE
Severity = model_mod.Severity
CODES = {code.value for code in ViolationCode}
ERROR_CODES = {code.value for code, (_, severity, _) in VIOLATION_TABLE.items() if severity is Severity.ERROR}
STREAM_LEVEL = {code.value for code, (level, _, _) in VIOLATION_TABLE.items() if level in ("stream", "call/stream")}
# semantics.md: a cut stream hands calls not yet handed over as invalid with a *call-level* STREAM_CUT.
CALL_LEVEL = {code.value for code, (level, _, _) in VIOLATION_TABLE.items() if level in ("call", "call/stream")} | {
    "STREAM_CUT"
}

DATA_SUFFIXES = (".sse", ".jsonl", ".json-array", ".eventstream")
QUIRK = re.compile(r"^(Q\d+b?|[a-z0-9]+(-[a-z0-9]+)*)$")
EXPECTED_QUIRKS = {f"Q{n}" for n in range(1, 22)} | {"Q7b"}

#: The format of a model's own text deltas (each ``.jsonl`` line a JSON string), read with the manifest's ``dialect``.
TEXT = "text"
#: The dialects docs/dialects.md has a table for: a manifest's ``dialect`` must be one of them.
DOCUMENTED_DIALECTS = frozenset(
    re.findall(r"^## ([a-z0-9_]+)$", (REPO / "docs" / "dialects.md").read_text("utf-8"), re.M)
)

#: Formats whose calls arrive whole, with no index to miss.
WHOLE_CALL_FORMATS = frozenset({"gemini", "ollama"})
#: Every format's finish reasons that cut a stream (docs/semantics.md), and no finish at all.
CUTTING_FINISHES = frozenset(
    {None, "length", "content_filter", "max_tokens", "refusal", "model_context_window_exceeded", "incomplete"}
    | {"failed", "cancelled", "guardrail_intervened", "content_filtered", "MAX_TOKENS", "SAFETY", "RECITATION"}
    | {"BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "LANGUAGE"}
    | {"IMAGE_SAFETY"}
)

ALL = list(rec_mod.iter_recordings(RECORDINGS))
IDS = [recording.name for recording in ALL]


# ---------------------------------------------------------------------------------------------------------------
# the recordings folder


def test_there_are_recordings() -> None:
    assert len(ALL) >= 20
    assert IDS == sorted(IDS)


def test_every_data_file_has_a_manifest_and_vice_versa() -> None:
    for folder in sorted(p for p in RECORDINGS.iterdir() if p.is_dir()):
        files = sorted(p for p in folder.iterdir() if p.is_file())
        manifests = {p.stem for p in files if p.suffix == ".json"}
        data = [p for p in files if p.suffix in DATA_SUFFIXES]
        data_stems = [p.stem for p in data]
        assert len(data_stems) == len(set(data_stems)), f"{folder}: a stem has two data files"
        assert set(data_stems) == manifests, f"{folder}: unpaired {sorted(set(data_stems) ^ manifests)}"
        others = [p.name for p in files if p.suffix not in (*DATA_SUFFIXES, ".json")]
        assert not others, f"{folder}: unexpected files {others}"


def test_quirk_coverage() -> None:
    quirks = {recording.manifest["quirk"] for recording in ALL}
    assert quirks >= EXPECTED_QUIRKS, sorted(EXPECTED_QUIRKS - quirks)


# ---------------------------------------------------------------------------------------------------------------
# each manifest


def _check_codes(codes: Any, allowed: set[str], where: str) -> None:
    assert isinstance(codes, list), where
    assert codes == sorted(codes), f"{where}: codes must be sorted"
    # An error may name its JSON pointer: "TYPE_MISMATCH /celsius".
    unknown = [code for code in codes if code.split(" ", 1)[0] not in CODES]
    assert not unknown, f"{where}: unknown codes {unknown}"
    misplaced = [code for code in codes if code.split(" ", 1)[0] not in allowed]
    assert not misplaced, f"{where}: codes not allowed here {misplaced}"


def _check_arguments(call: dict[str, Any], where: str) -> None:
    if "input" in call:
        # A custom tool call: free-text input, no arguments text, arguments {} when valid.
        assert isinstance(call["input"], str) and call["arguments_json"] is None, where
        assert call["arguments"] == ({} if call["ok"] else None), where
        return
    text = call["arguments_json"]
    assert isinstance(text, str), where
    if call["ok"]:
        assert isinstance(call["arguments"], dict), where
        if "EMPTY_ARGUMENTS" in call["violations"]:
            assert call["arguments"] == {} and not text.strip(" \t\r\n"), where
        else:
            assert json.loads(text) == call["arguments"], f"{where}: arguments_json does not parse to arguments"
    elif call["arguments"] is not None:
        assert json.loads(text) == call["arguments"], f"{where}: arguments are set only for a complete JSON value"


def _check_call(call: Any, where: str, wire_format: str) -> None:
    assert isinstance(call, dict), where
    keys = {"seq", "choice", "index", "id", "name", "arguments", "arguments_json", "ok", "violations"}
    assert keys <= set(call), f"{where}: missing {sorted(keys - set(call))}"
    assert set(call) <= keys | {"errors", "extra", "input"}, f"{where}: unknown keys {sorted(set(call) - keys)}"
    assert isinstance(call.get("extra", {}), dict) and call.get("extra") != {}, f"{where}: extra only when non-empty"
    assert isinstance(call["seq"], int) and call["seq"] >= 0, where
    assert isinstance(call["choice"], int) and call["choice"] >= 0, where
    assert call["index"] is None or isinstance(call["index"], int), where
    assert isinstance(call["id"], str) and call["id"] not in ("", "null"), where
    assert isinstance(call["ok"], bool), where
    _check_codes(call["violations"], CALL_LEVEL - ERROR_CODES, f"{where} violations")
    if call["ok"]:
        assert isinstance(call["name"], str) and call["name"], where
        assert "errors" not in call, where
    else:
        assert call["errors"], f"{where}: an invalid call has at least one error"
        _check_codes(call["errors"], CALL_LEVEL & ERROR_CODES, f"{where} errors")
        assert call["name"] is None or isinstance(call["name"], str), where
    if "MISSING_ID" in call["violations"]:
        assert call["id"] == f"ts_{call['choice']}_{call['seq']}", f"{where}: generated id"
    if call["index"] is None and wire_format not in WHOLE_CALL_FORMATS:
        assert "MISSING_INDEX" in call["violations"], f"{where}: index None only when the provider sent none"
    _check_arguments(call, where)


@pytest.mark.parametrize("recording", ALL, ids=IDS)
def test_manifest_shape(recording: Any) -> None:
    manifest = recording.manifest
    for key in ("format", "quirk", "source", "expected", "notes"):
        assert key in manifest, f"{recording.name}: missing {key!r}"
    assert set(manifest) <= {"format", "quirk", "source", "expected", "notes", "request", "dialect"} | {
        "model",
        "tools_fingerprint",
        "recorded_at",
        "complete",
        "transport",
    }, sorted(manifest)
    if "dialect" in manifest:
        assert manifest["dialect"] in DOCUMENTED_DIALECTS, f"{manifest['dialect']!r} has no table in docs/dialects.md"
    if recording.format == TEXT:
        # A model's text is read in its dialect, and holds deltas, not a raw body.
        assert "dialect" in manifest and recording.path.suffix == ".jsonl", recording.name
    assert manifest["format"] == recording.path.parent.name == recording.format
    # A numbered quirk of streaming-anchors.md, a slug, or None for a recording that shows the format's normal case.
    quirk = manifest["quirk"]
    assert quirk is None or (isinstance(quirk, str) and QUIRK.match(quirk)), quirk
    # real: a byte-identical copy of a corpus file; public: a public project's recorded fixture (public-reconstructed:
    # with its framing restored, as the notes say); synthetic: written by hand from the rules.
    assert re.match(r"^(real|public|public-reconstructed|synthetic): \S", manifest["source"]), manifest["source"]
    assert isinstance(manifest["notes"], str) and len(manifest["notes"]) > 40
    if manifest["source"].startswith("synthetic:") and recording.format == "openai-chat":
        assert recording.path.suffix == ".jsonl", "synthetic chat recordings are parsed chunks"
    if "request" in manifest:
        request = recording.request
        assert request is not None and isinstance(request["tools"], list)
        assert set(manifest["request"]) <= {"tool_choice", "tools", "structured_output"}
        for tool in request["tools"]:
            # Built-in tools (Responses `tool_search`) are declared by type; only functions must be named.
            assert isinstance(tool.get("name"), str) or tool.get("type") not in (None, "function"), tool
    else:
        assert recording.request is None


@pytest.mark.parametrize("recording", ALL, ids=IDS)
def test_expected_shape(recording: Any) -> None:
    expected = recording.expected
    assert {"calls", "finish_reason", "text", "violations", "usage"} <= set(expected)
    allowed = {"calls", "finish_reason", "text", "violations", "usage", "output", "choices", "object", "refusal"}
    assert set(expected) <= allowed
    assert ("object" in expected) == ("structured_output" in (recording.manifest.get("request") or {}))
    for item in expected.get("output", []):
        assert set(item) == {"after_calls", "value"}, item
        assert isinstance(item["after_calls"], int) and isinstance(item["value"], dict), item
    for choice in expected.get("choices", []):
        assert {"choice", "text", "finish_reason"} <= set(choice) <= {"choice", "text", "finish_reason", "refusal"}, (
            choice
        )
        assert isinstance(choice["choice"], int) and isinstance(choice["text"], str), choice
        assert isinstance(choice.get("refusal", ""), str), choice
        assert choice["finish_reason"] is None or isinstance(choice["finish_reason"], str), choice
    assert expected["finish_reason"] is None or isinstance(expected["finish_reason"], str)
    assert isinstance(expected["text"], str)
    assert isinstance(expected.get("refusal", ""), str)  # absent when the first choice did not refuse
    assert expected["usage"] is None or isinstance(expected["usage"], dict)
    _check_codes(expected["violations"], STREAM_LEVEL, f"{recording.name} stream violations")
    calls = expected["calls"]
    assert isinstance(calls, list)
    for number, call in enumerate(calls):
        _check_call(call, f"{recording.name} calls[{number}]", recording.format)
    if recording.format == TEXT:
        # One choice, no finish, no usage; every call is the parser's, indexed by its place among the text's calls,
        # and a dialect that writes no ids misses none.
        assert expected["finish_reason"] is None and expected["usage"] is None and "choices" not in expected
        assert [call["index"] for call in calls] == list(range(len(calls))), "a text call's index is its place"
        assert all(call["choice"] == 0 and "MISSING_ID" not in call["violations"] for call in calls)
    if "dialect" in recording.manifest:
        for item in expected.get("output", []):
            if item["value"].get("type") == "reasoning":
                assert set(item["value"]) == {"type", "text"} and item["value"]["text"], item
                assert item["after_calls"] <= len(calls), item
    order = [(call["choice"], call["seq"]) for call in calls]
    assert order == sorted(order), "calls are ordered by (choice, seq)"
    seqs = [call["seq"] for call in calls]
    assert len(seqs) == len(set(seqs)), "seq is unique within a stream"
    if seqs:
        assert sorted(seqs) == list(range(len(seqs))), "seq numbers every opened call, from 0"
    if any(code in expected["violations"] for code in ("STREAM_CUT", "PROVIDER_ERROR")) or any(
        "STREAM_CUT" in call.get("errors", ()) for call in calls
    ):
        # The cut may be any choice's (``n`` completions): the first's finish is the result's.
        finishes = {expected["finish_reason"]} | {choice["finish_reason"] for choice in expected.get("choices", [])}
        assert finishes & CUTTING_FINISHES or "PROVIDER_ERROR" in expected["violations"]


@pytest.mark.parametrize("recording", ALL, ids=IDS)
def test_every_recording_decodes(recording: Any) -> None:
    chunks = recording.chunks()
    assert chunks, recording.name
    if recording.format == TEXT:
        # Text deltas: what reassemble reads is the strings themselves, never a raw body.
        assert all(isinstance(chunk, str) and chunk for chunk in chunks)
        assert recording.source() == chunks and list(recording) == chunks
        return
    assert all(isinstance(chunk, dict) for chunk in chunks)
    if recording.format == "openai-chat":
        for chunk in chunks:
            assert "choices" in chunk or "error" in chunk, chunk


# ---------------------------------------------------------------------------------------------------------------
# real recordings are byte-identical copies of the corpus

REAL = [recording for recording in ALL if recording.manifest["source"].startswith("real:")]


def _corpus_manifest() -> dict[str, dict[str, Any]]:
    path = CORPORA / "provider-streams" / "streams" / "MANIFEST.jsonl"
    if not path.is_file():
        return {}
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {entry["file"]: entry for entry in entries}


@pytest.mark.skipif(not CORPORA.is_dir(), reason="the shared corpora are not next to the repository")
@pytest.mark.parametrize("recording", REAL, ids=[recording.name for recording in REAL])
def test_real_recording_is_a_byte_identical_copy(recording: Any) -> None:
    source_name = recording.manifest["source"].split()[1]
    candidates = [CORPORA / "provider-streams" / "streams" / source_name, *CORPORA.rglob(source_name)]
    source = next((path for path in candidates if path.is_file()), None)
    assert source is not None, f"{source_name} not found under {CORPORA}"
    assert source.suffix == recording.path.suffix
    assert recording.read_bytes() == source.read_bytes()
    entry = _corpus_manifest().get(source_name)
    if entry is not None:
        assert entry["wire_format"] == recording.format
        assert f"@{entry['source_commit']} {entry['source_path']}" in recording.manifest["source"]
        if entry.get("request_tools") or entry.get("request_tool_choice") is not None:
            assert recording.request == {
                "tool_choice": entry.get("request_tool_choice"),
                "tools": entry.get("request_tools") or [],
            }


# ---------------------------------------------------------------------------------------------------------------
# the loader


def _write(folder: Path, name: str, data: bytes, suffix: str = ".sse", **manifest: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    body = {"format": "openai-chat", "quirk": "test", "source": "synthetic: test", "expected": {}, "notes": ""}
    body.update(manifest)
    (folder / f"{name}.json").write_text(json.dumps(body), encoding="utf-8")
    path = folder / f"{name}{suffix}"
    path.write_bytes(data)
    return path


def _sse(tmp_path: Path, data: bytes) -> list[Any]:
    return rec_mod.load_recording(_write(tmp_path / "openai-chat", "s", data)).chunks()


@pytest.mark.parametrize(
    ("data", "chunks"),
    [
        pytest.param(b'data: {"a":1}\n\ndata: {"a":2}\n\n', [{"a": 1}, {"a": 2}], id="lf"),
        pytest.param(b'data: {"a":1}\r\n\r\ndata: {"a":2}\r\n\r\n', [{"a": 1}, {"a": 2}], id="crlf"),
        pytest.param(b'data: {"a":1}\r\rdata: {"a":2}\r\r', [{"a": 1}, {"a": 2}], id="cr"),
        pytest.param(b'data: {"a":1}\n\ndata: {"a":2}', [{"a": 1}, {"a": 2}], id="no-final-blank-line"),
        pytest.param(b'data: {"a":1}\n\ndata: {"a":2}\n', [{"a": 1}, {"a": 2}], id="one-final-newline"),
        pytest.param(b' data: {"a":1}\n\n\tdata: {"a":2}\n\n', [{"a": 1}, {"a": 2}], id="leading-whitespace"),
        pytest.param(b'data:{"a":1}\n\n', [{"a": 1}], id="no-space-after-colon"),
        pytest.param(b'data:  {"a":1}\n\n', [{"a": 1}], id="two-spaces-after-colon"),
        pytest.param(
            b': OPENROUTER PROCESSING\n\ndata: {"a":1}\n: mid-event comment\n\n :indented comment\n\n',
            [{"a": 1}],
            id="comments",
        ),
        pytest.param(b'data: {"a":1}\n\ndata: [DONE]\n\n', [{"a": 1}], id="done"),
        pytest.param(b'data: {"a":\ndata: 1}\n\n', [{"a": 1}], id="multi-line-data"),
        pytest.param(b'event: error\ndata: {"error":{"code":"x"}}\n\n', [{"error": {"code": "x"}}], id="event-field"),
        pytest.param(b'id: 7\nretry: 100\ndata: {"a":1}\n\n', [{"a": 1}], id="other-fields"),
        pytest.param(b'data: {"a":1}\n\n\n\n\ndata: {"a":2}\n\n', [{"a": 1}, {"a": 2}], id="extra-blank-lines"),
        pytest.param(b"data:\n\ndata: \n\n", [], id="empty-data-keepalive"),
        pytest.param(b"", [], id="empty"),
        pytest.param('data: {"s":"São"}\n\n'.encode(), [{"s": "São"}], id="utf8"),
        pytest.param('data: {"s":"a\u2028b\x85c"}\n\n'.encode(), [{"s": "a\u2028b\x85c"}], id="unicode-line-seps"),
        pytest.param(b'\xef\xbb\xbfdata: {"a":1}\n\n', [{"a": 1}], id="bom"),
    ],
)
def test_sse_reader(tmp_path: Path, data: bytes, chunks: list[Any]) -> None:
    assert _sse(tmp_path, data) == chunks
    assert rec_mod.decode_sse(data) == chunks


def test_sse_reader_rejects_invalid_json(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="event 1"):
        _sse(tmp_path, b'data: {"a":1}\n\ndata: {"a":\n\n')


def test_sse_reader_rejects_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="UTF-8"):
        _sse(tmp_path, b'data: {"a":"\xff"}\n\n')


def test_jsonl_reader(tmp_path: Path) -> None:
    data = b'{"a":1}\r\n\r\n  \n{"a":"S\xc3\xa3o"}\n{"a":3}'
    path = _write(tmp_path / "openai-chat", "j", data, ".jsonl")
    assert rec_mod.load_recording(path).chunks() == [{"a": 1}, {"a": "São"}, {"a": 3}]
    bad = _write(tmp_path / "openai-chat", "bad", b'{"a":1}\n{"a":\n', ".jsonl")
    with pytest.raises(ValueError, match="line 2"):
        rec_mod.load_recording(bad).chunks()


def test_load_recording_from_data_file_or_manifest(tmp_path: Path) -> None:
    request = {"tool_choice": "required", "tools": [{"name": "f", "parameters": {"type": "object"}}]}
    expected = {"calls": [], "finish_reason": None, "text": "", "violations": [], "usage": None}
    data = _write(tmp_path / "openai-chat", "x", b'data: {"choices":[]}\n\n', request=request, expected=expected)
    from_data = rec_mod.load_recording(data)
    from_manifest = rec_mod.load_recording(str(data.with_suffix(".json")))
    assert from_data == from_manifest
    assert from_data.name == "openai-chat/x"
    assert from_data.path == data
    assert from_data.format == "openai-chat"
    assert from_data.manifest_path == data.with_suffix(".json")
    assert from_data.request == request
    assert from_data.expected == expected
    assert from_data.chunks() == [{"choices": []}]
    assert from_data.read_bytes() == b'data: {"choices":[]}\n\n'
    assert "manifest" not in repr(from_data)
    assert hash(from_data) == hash(from_manifest)


def test_a_text_recording_gives_its_deltas(tmp_path: Path) -> None:
    data = b'"<tool_call>"\n"{\\"name\\": \\"f\\"}"\n"\\u00e9"\n'
    path = _write(tmp_path / "text", "t", data, ".jsonl", format="text", dialect="hermes")
    recording = rec_mod.load_recording(path)
    assert recording.chunks() == recording.source() == list(recording) == ["<tool_call>", '{"name": "f"}', "é"]
    assert recording.reassemble_options() == {"tools": None, "tool_choice": None, "dialect": "hermes"}
    bad = _write(tmp_path / "text", "bad", b'"a"\n{"choices": []}\n', ".jsonl", format="text")
    with pytest.raises(ValueError, match="delta 2 is not a JSON string"):
        rec_mod.load_recording(bad).chunks()
    raw = _write(tmp_path / "text", "raw", b'data: "a"\n\n', ".sse", format="text")
    with pytest.raises(ValueError, match=r"a text recording is a \.jsonl file"):
        rec_mod.load_recording(raw).source()


def test_load_recording_errors(tmp_path: Path) -> None:
    folder = tmp_path / "openai-chat"
    with pytest.raises(ValueError, match=r"a data file \(\.sse, \.jsonl, \.json-array, \.eventstream\)"):
        rec_mod.load_recording(folder / "x.txt")
    with pytest.raises(FileNotFoundError):
        rec_mod.load_recording(folder / "missing.sse")
    with pytest.raises(FileNotFoundError):
        rec_mod.load_recording(folder / "missing.json")
    folder.mkdir(parents=True)
    (folder / "orphan.sse").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="no manifest"):
        rec_mod.load_recording(folder / "orphan.sse")
    (folder / "lonely.json").write_text('{"format": "openai-chat"}', encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="no data file"):
        rec_mod.load_recording(folder / "lonely.json")
    both = _write(folder, "both", b"")
    (folder / "both.jsonl").write_bytes(b"")
    with pytest.raises(ValueError, match="several data files"):
        rec_mod.load_recording(both.with_suffix(".json"))
    no_format = _write(folder, "noformat", b"", format=None)
    with pytest.raises(ValueError, match="format"):
        rec_mod.load_recording(no_format)
    no_expected = _write(folder, "noexpected", b"", expected=None)
    with pytest.raises(ValueError, match="expected"):
        _ = rec_mod.load_recording(no_expected).expected


def test_iter_recordings_sorted_and_filtered(tmp_path: Path) -> None:
    _write(tmp_path / "openai-chat", "b", b"")
    _write(tmp_path / "openai-chat", "a", b"", ".jsonl")
    _write(tmp_path / "anthropic-messages", "z", b"", format="anthropic-messages")
    names = [recording.name for recording in rec_mod.iter_recordings(tmp_path)]
    assert names == ["anthropic-messages/z", "openai-chat/a", "openai-chat/b"]
    chat = [recording.name for recording in rec_mod.iter_recordings(str(tmp_path), format="openai-chat")]
    assert chat == ["openai-chat/a", "openai-chat/b"]
    assert list(rec_mod.iter_recordings(tmp_path, format="gemini")) == []


def test_iter_recordings_default_root() -> None:
    default = list(rec_mod.iter_recordings())
    assert [recording.name for recording in default] == IDS
    assert {recording.format for recording in rec_mod.iter_recordings(format="openai-chat")} == {"openai-chat"}


def test_iter_recordings_missing_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError):
        rec_mod.iter_recordings(tmp_path / "nowhere")
    monkeypatch.setattr(rec_mod, "DEFAULT_ROOT", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="root="):
        rec_mod.iter_recordings()
