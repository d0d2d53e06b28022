"""Writing recordings: write(), Recorder (sync and async), iteration as network reads, redaction, names, atomicity."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk

import toolwire
from tests.support.paths import RECORDINGS
from toolwire._common._secrets import find
from toolwire.recordings import (
    RAW_SUFFIXES,
    TEXT_FORMAT,
    Recorder,
    Recording,
    describe_call,
    iter_recordings,
    load,
    load_recording,
    write,
)

# A text recording is written by hand (deltas and their dialect), not by write(), which records wire formats.
BUNDLED = [recording for recording in iter_recordings() if recording.format != TEXT_FORMAT]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
SSE = [
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",',
    b'"function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}\n\n',
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\": ',
    b'\\"Paris\\"}"}}]},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{},',
    b'"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
]


def manifest_text(recording: Recording) -> str:
    return recording.manifest_path.read_text(encoding="utf-8")


def every_file(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def sizes(recording: Recording) -> list[int]:
    return [size for _, size in recording.manifest["transport"]["chunks"]]


# ---------------------------------------------------------------------------------------------------------------
# round trips


def test_write_load_round_trip_keeps_bytes_and_reads(tmp_path: Path) -> None:
    written = write(tmp_path, "openai-chat/weather", iter(SSE), format="openai-chat", request={"tools": [WEATHER]})
    loaded = load(tmp_path / "openai-chat" / "weather.sse")
    assert loaded == written == load_recording(loaded.manifest_path)
    assert loaded.name == "openai-chat/weather"
    assert loaded.read_bytes() == b"".join(SSE)
    assert list(loaded) == SSE
    assert sizes(loaded) == [len(chunk) for chunk in SSE]
    manifest = loaded.manifest
    assert manifest["format"] == "openai-chat"
    assert manifest["complete"] is True
    assert manifest["transport"]["status"] is None
    assert manifest["transport"]["content_type"] == "text/event-stream"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", manifest["recorded_at"])
    assert [call.name for call in toolwire.reassemble(loaded)] == ["get_weather"]


def test_manifest_is_sorted_indented_utf8_with_trailing_newline(tmp_path: Path) -> None:
    recording = write(tmp_path, "r", SSE, format="openai-chat", notes="São Paulo — ünïcode")
    text = manifest_text(recording)
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert "São Paulo — ünïcode" in text
    assert not [path for path in tmp_path.iterdir() if path.suffix not in (".json", ".sse")], "no temp files left"


@pytest.mark.parametrize("recording", BUNDLED, ids=[recording.name for recording in BUNDLED])
def test_bundled_recording_copied_with_write_reassembles_to_its_expected_calls(
    tmp_path: Path, recording: Recording
) -> None:
    copy = write(
        tmp_path,
        recording.name,
        recording,
        format=recording.format,
        request=recording.manifest.get("request"),
        expected=recording.expected,
        notes=recording.manifest["notes"],
    )
    assert copy.path.suffix == recording.path.suffix
    assert copy.chunks() == recording.chunks()
    if recording.path.suffix in RAW_SUFFIXES:
        assert copy.read_bytes() == recording.read_bytes()
        assert list(copy) == [recording.read_bytes()]
    else:
        assert list(copy) == recording.chunks()
    # write() takes no dialect (yet): the copy is read in the original's.
    options = {**copy.reassemble_options(), **({"dialect": recording.dialect} if recording.dialect else {})}
    stream = toolwire.reassemble(load(copy.path), **options, on_invalid="yield")
    calls = sorted(stream, key=lambda call: (call.choice, call.seq))
    assert [describe_call(call) for call in calls] == recording.expected["calls"]
    assert stream.result.finish_reason == recording.expected["finish_reason"]


def test_jsonl_of_chunks_and_sdk_objects(tmp_path: Path) -> None:
    chunks = [
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []},
        {"id": "c", "choices": [{"index": 0, "delta": {"content": "hé\u2028"}, "finish_reason": "stop"}]},
    ]
    recording = write(tmp_path, "chunks", chunks, format="openai-chat")
    assert recording.path.suffix == ".jsonl"
    assert list(recording) == recording.chunks() == chunks
    assert "chunks" not in recording.manifest["transport"]
    assert recording.manifest["transport"]["content_type"] is None
    sdk = [ChatCompletionChunk.model_validate(chunks[0])]
    assert list(write(tmp_path, "sdk", sdk, format="openai-chat")) == [chunks[0]]


def test_ollama_bytes_are_json_lines_and_iterate_as_reads(tmp_path: Path) -> None:
    reads = [b'{"message":{"content":"a"},"done":false}\n{"mess', b'age":{"content":"b"},"done":true}\n']
    recording = write(tmp_path, "ollama/raw", reads, format="ollama")
    assert recording.path.suffix == ".jsonl"
    assert recording.manifest["transport"]["content_type"] == "application/x-ndjson"
    assert list(recording) == reads
    assert [chunk["message"]["content"] for chunk in recording.chunks()] == ["a", "b"]


AWS_BODY = (RECORDINGS / "bedrock-converse" / "aws-event-stream-text-then-tool-use.eventstream").read_bytes()
ARRAY_BODY = (RECORDINGS / "gemini" / "json-array-thought-then-call.json-array").read_bytes()


@pytest.mark.parametrize(
    ("format", "body", "suffix", "content_type"),
    [
        ("openai-chat", b"".join(SSE), ".sse", "text/event-stream"),
        ("gemini", ARRAY_BODY, ".json-array", "application/json"),
        ("gemini", b"\xef\xbb\xbf\r\n " + ARRAY_BODY, ".json-array", "application/json"),  # a BOM and whitespace first
        ("bedrock-converse", AWS_BODY, ".eventstream", "application/vnd.amazon.eventstream"),
        ("ollama", b'{"message":{"content":"a"},"done":true}\n', ".jsonl", "application/x-ndjson"),
        # Told from the body, not the format: an error body in JSON is JSON lines, an array under any name an array.
        ("openai-chat", b'{"error":{"message":"overloaded"}}\n', ".jsonl", "application/x-ndjson"),
        ("ollama", b"[{}]", ".json-array", "application/json"),
        # No framing: the bytes as they came, under the suffix of the format's usual body.
        ("openai-chat", b"<html>502 Bad Gateway</html>", ".sse", "text/event-stream"),
        ("bedrock-converse", b"<html>502 Bad Gateway</html>", ".sse", "text/event-stream"),
        ("ollama", b"<html>502 Bad Gateway</html>", ".jsonl", "application/x-ndjson"),
        ("gemini", b"", ".sse", "text/event-stream"),
    ],
)
def test_a_body_is_kept_in_the_suffix_of_its_framing(
    tmp_path: Path, format: str, body: bytes, suffix: str, content_type: str
) -> None:
    reads = [body[start : start + 100] for start in range(0, len(body), 100)]
    recording = write(tmp_path, f"{format}/body", reads, format=format)
    assert recording.path.suffix == suffix
    assert recording.manifest["transport"]["content_type"] == content_type
    assert recording.read_bytes() == body and list(recording) == reads


def test_a_recorder_keeps_an_aws_body_and_its_reads(tmp_path: Path) -> None:
    reads = [AWS_BODY[start : start + 37] for start in range(0, len(AWS_BODY), 37)]

    async def main() -> list[Any]:
        closed: list[bool] = []
        async with Recorder(tmp_path, "bedrock-converse/live", format="bedrock-converse") as recorder:
            return [call.arguments async for call in toolwire.areassemble(recorder.atee(arrive(reads, closed)))]

    assert asyncio.run(main()) == [{"city": "Lyon", "days": 1}]
    recording = load(tmp_path / "bedrock-converse" / "live.eventstream")
    assert list(recording) == reads and recording.manifest["complete"] is True
    assert [call.arguments for call in toolwire.reassemble(recording)] == [{"city": "Lyon", "days": 1}]


def test_single_bytes_object_and_empty_reads(tmp_path: Path) -> None:
    one = write(tmp_path, "one", b"".join(SSE), format="openai-chat")
    assert list(one) == [b"".join(SSE)]
    gaps = write(tmp_path, "gaps", [b"", SSE[0], b"", "données".encode(), "text read"], format="openai-chat")
    assert list(gaps) == [SSE[0], "données".encode(), b"text read"]


def test_nested_names_and_overwrite(tmp_path: Path) -> None:
    write(tmp_path, "a/b/c", [{"choices": []}], format="openai-chat")
    assert [recording.name for recording in iter_recordings(tmp_path)] == ["a/b/c"]
    again = write(tmp_path, "a/b/c", SSE, format="openai-chat")
    assert again.path.suffix == ".sse"
    assert sorted(every_file(tmp_path)) == ["a/b/c.json", "a/b/c.sse"], "the stale .jsonl is gone"
    assert list(load(again.manifest_path)) == SSE


def test_tools_fingerprint_model_and_tools_in_request(tmp_path: Path) -> None:
    registry = toolwire.ToolRegistry([WEATHER])
    from_request = write(
        tmp_path, "req", SSE, format="openai-chat", request={"model": "gpt-x", "tools": [WEATHER], "stream": True}
    )
    assert from_request.manifest["tools_fingerprint"] == registry.fingerprint
    assert from_request.manifest["model"] == "gpt-x"
    assert from_request.manifest["request"]["stream"] is True
    anthropic = [{"name": "get_weather", "input_schema": WEATHER["function"]["parameters"]}]  # type: ignore[index]
    given_tools = write(tmp_path, "tools", SSE, format="anthropic-messages", tools=anthropic, model="claude")
    assert given_tools.manifest["tools_fingerprint"] == registry.fingerprint
    assert given_tools.manifest["model"] == "claude"
    assert given_tools.request == {"tool_choice": None, "tools": registry.to_anthropic()}
    bare = write(tmp_path, "bare", SSE, format="openai-chat", status=200)
    assert bare.manifest["tools_fingerprint"] is None and bare.manifest["model"] is None
    assert bare.manifest["transport"]["status"] == 200
    assert "request" not in bare.manifest and "expected" not in bare.manifest


# ---------------------------------------------------------------------------------------------------------------
# Recorder


def slow(reads: list[bytes], pause: float, closed: list[bool]) -> Iterator[bytes]:
    try:
        for read in reads:
            time.sleep(pause)
            yield read
    finally:
        closed.append(True)


def test_recorder_tee_keeps_reads_and_their_times(tmp_path: Path) -> None:
    closed: list[bool] = []
    recorder = Recorder(tmp_path, "live", format="openai-chat", request={"tools": [WEATHER]})
    calls = list(toolwire.reassemble(recorder.tee(slow(SSE, 0.01, closed)), tools=[WEATHER]))
    assert [call.arguments for call in calls] == [{"city": "Paris"}]
    assert recorder.recording is not None, "written when the tee ran out"
    recording = load(tmp_path / "live.sse")
    assert list(recording) == SSE and recording.manifest["complete"] is True
    offsets = [offset for offset, _ in recording.manifest["transport"]["chunks"]]
    assert offsets == sorted(offsets) and all(isinstance(offset, int) for offset in offsets)
    assert offsets[-1] >= 40, offsets
    assert recorder.close() is recorder.recording


def test_recorder_early_stop_writes_an_incomplete_recording(tmp_path: Path) -> None:
    closed: list[bool] = []
    with Recorder(tmp_path, "stopped", format="openai-chat") as recorder:
        recorder.status = 200
        recorder.headers = {"content-type": "text/event-stream; charset=utf-8"}
        for _ in recorder.tee(slow(SSE, 0, closed)):
            break
    recording = load(tmp_path / "stopped.sse")
    assert recording.manifest["complete"] is False
    assert recording.manifest["transport"]["status"] == 200
    assert recording.manifest["transport"]["content_type"] == "text/event-stream; charset=utf-8"
    assert list(recording) == SSE[:1]
    assert closed == [True], "the abandoned source was closed"


def test_recorder_writes_when_the_generator_is_closed_without_with(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path, "closed", format="openai-chat")
    reads = recorder.tee(iter(SSE))
    assert next(reads) == SSE[0]
    assert recorder.recording is None
    reads.close()  # type: ignore[attr-defined]
    assert recorder.recording is not None and recorder.recording.manifest["complete"] is False


def test_recorder_writes_when_the_source_raises(tmp_path: Path) -> None:
    def broken() -> Iterator[bytes]:
        yield SSE[0]
        raise ConnectionError("reset by peer")

    recorder = Recorder(tmp_path, "broken", format="openai-chat")
    with pytest.raises(ConnectionError):
        list(recorder.tee(broken()))
    assert list(load(tmp_path / "broken.sse")) == SSE[:1]
    assert load(tmp_path / "broken.sse").manifest["complete"] is False


def test_recorder_without_a_stream_and_misuse(tmp_path: Path) -> None:
    with Recorder(tmp_path, "nothing", format="openai-chat") as recorder:
        pass
    assert recorder.recording is not None and recorder.recording.read_bytes() == b""
    assert recorder.recording.manifest["complete"] is False
    twice = Recorder(tmp_path, "twice", format="openai-chat")
    twice.tee(SSE)
    with pytest.raises(ValueError, match="one stream"):
        twice.tee(SSE)
    with pytest.raises(TypeError, match="async iterable"):
        Recorder(tmp_path, "sync", format="openai-chat").atee(SSE)  # type: ignore[arg-type]


async def arrive(reads: list[bytes], closed: list[bool]) -> AsyncIterator[bytes]:
    try:
        for read in reads:
            await asyncio.sleep(0.005)
            yield read
    finally:
        closed.append(True)


def test_recorder_atee_whole_stream(tmp_path: Path) -> None:
    async def main() -> list[Any]:
        closed: list[bool] = []
        recorder = Recorder(tmp_path, "async", format="openai-chat")
        return [call.name async for call in toolwire.areassemble(recorder.atee(arrive(SSE, closed)))]

    assert asyncio.run(main()) == ["get_weather"]
    recording = load(tmp_path / "async.sse")
    assert list(recording) == SSE and recording.manifest["complete"] is True
    assert recording.manifest["transport"]["chunks"][-1][0] >= 20


def test_recorder_atee_early_stop(tmp_path: Path) -> None:
    closed: list[bool] = []

    async def main() -> None:
        async with Recorder(tmp_path, "astop", format="openai-chat") as recorder:
            reads = recorder.atee(arrive(SSE, closed))
            async for _ in reads:
                break
            await reads.aclose()  # type: ignore[attr-defined]

    asyncio.run(main())
    recording = load(tmp_path / "astop.sse")
    assert list(recording) == SSE[:1] and recording.manifest["complete"] is False
    assert closed == [True]


# ---------------------------------------------------------------------------------------------------------------
# redaction

OPENAI_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789"
PLAIN_KEY = "hunter2-not-a-known-pattern"
AWS_KEY = "AKIAABCDEFGHIJKLMNOP"


def test_secrets_in_request_headers_and_stream_are_written_nowhere(tmp_path: Path) -> None:
    request = {
        "model": "gpt-x",
        "api_key": PLAIN_KEY,
        "messages": [{"role": "user", "content": f"my key is {OPENAI_KEY}, aws {AWS_KEY}, order ORD-991"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "auth", "parameters": {"type": "object", "properties": {"api_key": {}}}},
            }
        ],
    }
    headers = {
        "Authorization": f"Bearer {OPENAI_KEY}",
        "X-Api-Key": PLAIN_KEY,
        "COOKIE": "session=cookie-value-0123456789",
        "content-type": "text/event-stream",
        "x-request-id": "req_1",
    }
    stream = [
        b'data: {"choices":[{"index":0,"delta":{"content":"you said sk-proj-AbCdEfGhIjKl',
        b"MnOpQrStUvWx0123456789 and hunter2-not-a-kn",
        b'own-pattern and ORD-991 and Bearer abcdefgh12345678"}}]}\n\n',
    ]
    recording = write(
        tmp_path,
        "secret",
        stream,
        format="openai-chat",
        request=request,
        headers=headers,
        redact=[r"ORD-\d+"],
        expected={"note": f"{PLAIN_KEY} {OPENAI_KEY}"},
        notes=f"recorded with {OPENAI_KEY}",
    )
    files = every_file(tmp_path)
    assert sorted(files) == ["secret.json", "secret.sse"]
    for secret in (OPENAI_KEY, PLAIN_KEY, AWS_KEY, "cookie-value-0123456789", "ORD-991", "abcdefgh12345678"):
        for name, data in files.items():
            assert secret.encode() not in data, f"{secret} in {name}"
    for name in ("authorization", "x-api-key", "cookie"):
        assert name not in manifest_text(recording).lower(), name
    manifest = recording.manifest
    assert manifest["transport"]["headers"] == {"content-type": "text/event-stream", "x-request-id": "req_1"}
    # Every character of a secret becomes "*": the stream keeps its framing, a secret member its type.
    assert manifest["request"]["api_key"] == "*" * len(PLAIN_KEY)
    assert manifest["request"]["messages"][0]["content"] == "my key is {}, aws {}, order {}".format(
        *("*" * len(secret) for secret in (OPENAI_KEY, AWS_KEY, "ORD-991"))
    )
    assert manifest["request"]["tools"][0]["function"]["parameters"]["properties"] == {"api_key": {}}
    data = recording.read_bytes()
    assert sizes(recording) == [len(piece) for piece in recording] == [len(piece) for piece in stream]
    assert recording.chunks()[0]["choices"][0]["delta"]["content"] == "you said {} and {} and {} and Bearer {}".format(
        *("*" * len(secret) for secret in (OPENAI_KEY, PLAIN_KEY, "ORD-991", "abcdefgh12345678"))
    )


def test_redaction_of_chunks_and_literal_patterns(tmp_path: Path) -> None:
    chunks = [{"choices": [{"delta": {"content": f"{OPENAI_KEY} sk-ant-api03-ZZZZZZZZZZZZZZZZZZZZ"}}]}]
    recording = write(tmp_path, "c", chunks, format="openai-chat", redact=[re.compile("zzz", re.IGNORECASE)])
    assert recording.chunks() == [{"choices": [{"delta": {"content": "*" * len(OPENAI_KEY) + " " + "*" * 33}}]}]
    # Ordinary words and short values survive: only credentials go.
    plain = write(tmp_path, "p", [b"data: ask-me about sk-learn, a bearer of news\n\n"], format="openai-chat")
    assert plain.read_bytes() == b"data: ask-me about sk-learn, a bearer of news\n\n"


def test_recorder_redacts_but_hands_the_consumer_the_real_bytes(tmp_path: Path) -> None:
    reads = [b"data: {}\n\n", f"data: {OPENAI_KEY}\n\n".encode()]
    with Recorder(tmp_path, "tee", format="openai-chat") as recorder:
        assert list(recorder.tee(reads)) == reads
    assert OPENAI_KEY.encode() not in (tmp_path / "tee.sse").read_bytes()


# ---------------------------------------------------------------------------------------------------------------
# names and misuse


@pytest.mark.parametrize(
    "name", ["", "/abs", "../x", "a/../b", "a//b", "./a", "a/", "a\\b", "C:/x", "a\nb", "x.json", "x.sse", "x.jsonl"]
)
def test_bad_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="bad recording name"):
        write(tmp_path / "out", name, SSE, format="openai-chat")
    with pytest.raises(ValueError, match="bad recording name"):
        Recorder(tmp_path / "out", name, format="openai-chat")
    assert not (tmp_path / "out").exists()


def test_misuse(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="name"):
        write(tmp_path, 3, SSE, format="openai-chat")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="format must be one of"):
        write(tmp_path, "x", SSE, format="openai")
    with pytest.raises(TypeError, match="encode it"):
        write(tmp_path, "x", "data: {}\n\n", format="openai-chat")
    with pytest.raises(TypeError, match="item 1"):
        write(tmp_path, "x", [b"data: {}\n\n", {"choices": []}], format="openai-chat")
    with pytest.raises(ValueError, match=r"redact\[0\]"):
        write(tmp_path, "x", SSE, format="openai-chat", redact=["("])
    with pytest.raises(TypeError, match="request"):
        write(tmp_path, "x", SSE, format="openai-chat", request=[1])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="status"):
        write(tmp_path, "x", SSE, format="openai-chat", status="200")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_transport_chunks_that_do_not_add_up(tmp_path: Path) -> None:
    recording = write(tmp_path, "x", SSE, format="openai-chat")
    recording.path.write_bytes(recording.read_bytes() + b"\n")
    with pytest.raises(ValueError, match="add up to"):
        list(load(recording.path))
    manifest = json.loads(manifest_text(recording))
    manifest["transport"]["chunks"] = [[0, -1]]
    recording.manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ValueError, match=r"transport.chunks\[0\]"):
        list(load(recording.path))


def test_a_failed_write_leaves_the_old_recording_and_no_temp_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = write(tmp_path, "x", SSE, format="openai-chat", notes="old")
    before = every_file(tmp_path)
    calls: list[Any] = []

    def failing_replace(source: Any, target: Any) -> None:
        calls.append(target)
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)  # the writer renames with os.replace
    with pytest.raises(OSError, match="disk full"):
        write(tmp_path, "x", [b"data: {}\n\n"], format="openai-chat", notes="new")
    assert calls and every_file(tmp_path) == before
    assert load(old.path).manifest["notes"] == "old"


# ---------------------------------------------------------------------------------------------------------------
# properties


@given(chunks=st.lists(st.binary(max_size=64), max_size=12))
def test_random_reads_round_trip_exactly(tmp_path_factory: pytest.TempPathFactory, chunks: list[bytes]) -> None:
    assume(not any(find(b"".join(chunks).decode("latin-1"))))
    folder = tmp_path_factory.mktemp("prop")
    recording = write(folder, "openai-chat/random", chunks, format="openai-chat")
    assert list(load(recording.path)) == [chunk for chunk in chunks if chunk]
    assert recording.read_bytes() == b"".join(chunks)


@given(
    chunks=st.lists(st.text(alphabet="ab\n:é", min_size=1, max_size=16).map(str.encode), min_size=1, max_size=8),
    at=st.data(),
)
def test_a_secret_anywhere_is_redacted_and_reads_stay_consistent(
    tmp_path_factory: pytest.TempPathFactory, chunks: list[bytes], at: st.DataObject
) -> None:
    joined = b"".join(chunks)
    position = at.draw(st.integers(0, len(joined)))
    data = joined[:position] + b" " + OPENAI_KEY.encode() + b" " + joined[position:]
    cut_points = sorted(set(at.draw(st.lists(st.integers(1, len(data) - 1), max_size=6))))
    reads = [data[start:end] for start, end in zip([0, *cut_points], [*cut_points, len(data)], strict=True)]
    recording = write(tmp_path_factory.mktemp("secret"), "s", reads, format="openai-chat")
    # Not an event stream: the text is searched as it stands, each character of the key masked in place.
    expected = joined[:position] + b" " + b"*" * len(OPENAI_KEY) + b" " + joined[position:]
    assert recording.read_bytes() == expected
    assert list(recording) == [
        expected[start:end] for start, end in zip([0, *cut_points], [*cut_points, len(data)], strict=False)
    ]


def test_recorder_tee_of_sdk_chunks(tmp_path: Path) -> None:
    raw = load(RECORDINGS / "openai-chat" / "parallel-calls.sse").chunks()
    chunks = [ChatCompletionChunk.model_validate(chunk) for chunk in raw]
    with Recorder(tmp_path, "sdk", format="openai-chat") as recorder:
        assert [call.name for call in toolwire.reassemble(recorder.tee(chunks))] == ["plus", "minus"]
    recording = load(tmp_path / "sdk.jsonl")
    assert recording.manifest["complete"] is True
    assert [call.name for call in toolwire.reassemble(recording)] == ["plus", "minus"]
    assert len(list(recording)) == len(raw)


def test_star_import_serves_the_writing_names() -> None:
    namespace: dict[str, Any] = {}
    exec("from toolwire.recordings import *", namespace)
    assert namespace["write"] is write and namespace["Recorder"] is Recorder and namespace["load"] is load
