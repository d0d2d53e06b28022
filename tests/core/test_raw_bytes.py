"""Raw event-stream bytes, the fast path: framed and parsed in Rust, in the reference by its twin.

Whatever the split of the bytes, the line ends, comments and `event:` lines around the data, reassembling the bytes
must give exactly what reassembling the decoded chunks gives (calls, results, violations, errors with their chunk
number and field path), in the core and the reference alike.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler
from types import ModuleType
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
from tests.core.test_differential import nc, nr, nv
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.loopback import loopback
from tests.support.paths import CORPORA
from tests.support.strategies_chat import chat_streams, junk_streams
from toolwire import MalformedChunkError
from toolwire._core import frame
from toolwire._pipeline._options import Options
from toolwire.recordings import TEXT_FORMAT, decode_jsonl, decode_sse, describe_call, iter_recordings
from toolwire.reference._framing import Framer, FramingError


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def sse(chunks: list[Any], rng: random.Random | None = None) -> bytes:
    """Chunks as an event stream; with ``rng``, in every style the framing rules allow."""
    if rng is None:
        return b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"
    out = ["\ufeff"] if rng.random() < 0.2 else []
    for chunk in chunks:
        end = rng.choice(["\n", "\r\n", "\r"])
        if rng.random() < 0.2:
            out.append(": keep-alive" + end)
        if rng.random() < 0.2:
            out.append("event: message" + end)
        text = json.dumps(chunk, ensure_ascii=rng.random() < 0.5)
        if not _utf8(text):
            # A lone surrogate has no UTF-8 form: written raw it would make the event not UTF-8 (a malformed chunk),
            # while the chunk itself is fine; escaped, it is the same chunk.
            text = json.dumps(chunk)
        cut = _between_tokens(text, rng) if rng.random() < 0.2 else None
        if cut is not None:
            out.append(f"data: {text[:cut]}{end}data:{text[cut:]}{end}")  # data lines join with LF
        else:
            out.append(f"data:{rng.choice(['', ' '])}{text}{end}")
        out.append(end)
    if rng.random() < 0.5:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode("utf-8", "surrogatepass")


def _between_tokens(text: str, rng: random.Random) -> int | None:
    """A cut of ``text`` where a line feed is JSON whitespace (not inside a string), if one is found quickly."""
    for _ in range(8):
        cut = rng.randrange(1, len(text)) if len(text) > 1 else 0
        try:
            if cut and json.loads(text[:cut] + "\n" + text[cut:]) == json.loads(text):
                return cut
        except ValueError:
            continue
    return None


def split(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(len(data) + 1), min(len(data) + 1, rng.randrange(0, 12))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def outcome(module: ModuleType, source: Any) -> dict[str, Any]:
    """Everything one reassembly made of a source: the calls in order, the result, violations seen, the error."""
    seen: list[Any] = []
    handed: list[Any] = []
    stream = module.reassemble(source, on_invalid="yield", on_violation=seen.append)
    try:
        handed.extend(nc(call) for call in stream)
        result, error = nr(stream.result), None
    except MalformedChunkError as exc:
        result, error = None, (exc.chunk_number, exc.path)
    return {"handed": handed, "result": result, "seen": [nv(v) for v in seen], "error": error}


def jsonable(chunks: list[Any]) -> bool:
    """Whether the chunks can travel as JSON text (NaN and infinities cannot: they are not JSON)."""
    try:
        json.dumps(chunks, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


# ------------------------------------------------------------------------------------------- differential


@given(chat_streams(), st.randoms(use_true_random=False))
def test_bytes_reassemble_as_their_chunks(case: Any, rng: random.Random) -> None:
    if not jsonable(case.chunks):
        return
    chunks = json.loads(json.dumps(case.chunks))
    expected = outcome(toolwire, chunks)
    data = sse(chunks, rng)
    for module in IMPLEMENTATIONS.values():
        assert outcome(module, iter(split(data, rng))) == expected, module.__name__


@given(junk_streams(), st.randoms(use_true_random=False))
def test_malformed_chunks_fail_alike_as_bytes(chunks: list[Any], rng: random.Random) -> None:
    if not jsonable(chunks) or (chunks and isinstance(chunks[0], str)):
        return  # a string first is read as raw event-stream text when it looks like one: not a chunk source
    chunks = json.loads(json.dumps(chunks))
    expected = outcome(toolwire, chunks)
    for module in IMPLEMENTATIONS.values():
        assert outcome(module, iter(split(sse(chunks, rng), rng))) == expected, module.__name__


# ------------------------------------------------------------------------------------------------ recordings


# A model's text deltas have no bytes of a body.
RECORDINGS = [recording for recording in iter_recordings() if recording.format != TEXT_FORMAT]


@pytest.mark.parametrize("recording", RECORDINGS, ids=[recording.name for recording in RECORDINGS])
def test_every_recording_from_its_bytes(recording: Any, implementation: ModuleType) -> None:
    data = recording.path.read_bytes() if recording.path.suffix != ".jsonl" else sse(recording.chunks())
    rng = random.Random(recording.name)
    sources = [data, io.BytesIO(data), iter(split(data, rng)), iter([data[i : i + 1] for i in range(len(data))])]
    for source in sources:
        stream = implementation.reassemble(source, **recording.reassemble_options(), on_invalid="yield")
        list(stream)
        every = sorted([*stream.result.calls, *stream.result.invalid_calls], key=lambda call: (call.choice, call.seq))
        assert [describe_call(call) for call in every] == recording.expected["calls"]
        assert stream.result.finish_reason == recording.expected["finish_reason"]
        assert sorted(v.code.value for v in stream.result.violations) == recording.expected["violations"]


def corpus_streams() -> list[Any]:
    manifest = CORPORA / "provider-streams" / "streams" / "MANIFEST.jsonl"
    if not manifest.exists():
        return []
    entries = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [pytest.param(e, id=e["file"]) for e in entries if e["wire_format"] == "openai-chat"]


@pytest.mark.parametrize("entry", corpus_streams())
def test_corpus_streams_from_their_bytes(entry: dict[str, Any]) -> None:
    path = CORPORA / "provider-streams" / "streams" / entry["file"]
    raw = path.read_bytes()
    chunks = decode_jsonl(raw) if path.suffix == ".jsonl" else decode_sse(raw, str(path))
    data = sse(chunks) if path.suffix == ".jsonl" else raw
    expected = outcome(toolwire, chunks)
    rng = random.Random(entry["file"])
    for module in IMPLEMENTATIONS.values():
        assert outcome(module, data) == expected
        assert outcome(module, iter(split(data, rng))) == expected


# --------------------------------------------------------------------------------------------------- sources


def test_bad_bytes_are_malformed_chunks_with_their_number(implementation: ModuleType) -> None:
    good = b'data: {"choices": []}\n\n'
    with pytest.raises(MalformedChunkError) as raised:
        list(implementation.reassemble(good + b"data: {not json\n\n"))
    assert (raised.value.chunk_number, raised.value.path) == (1, "")
    for constant in (b"NaN", b"Infinity", b"-Infinity"):  # json.loads takes them; they are not JSON
        with pytest.raises(MalformedChunkError, match="not JSON") as raised:
            list(implementation.reassemble(b'data: {"choices": ' + constant + b"}\n\n"))
        assert (raised.value.chunk_number, raised.value.path) == (0, "")
    with pytest.raises(MalformedChunkError, match="not UTF-8"):
        list(implementation.reassemble(good + b'data: {"choices": [], "x": "\xff"}\n\n'))
    with pytest.raises(MalformedChunkError, match="max_event_bytes"):
        list(implementation.reassemble(b"data: " + b"x" * 100, limits=toolwire.Limits(max_event_bytes=64)))
    with pytest.raises(TypeError, match="encode it"):
        implementation.reassemble('data: {"choices": []}\n\n')
    with pytest.raises(TypeError, match="must be bytes"):
        list(implementation.reassemble(iter([good, {"choices": []}])))


@pytest.mark.parametrize("progress", [False, True], ids=["calls", "progress"])
def test_a_read_that_makes_no_call_ready_gives_none_unless_the_engine_keeps_progress(
    implementation: ModuleType, progress: bool
) -> None:
    engine = Options(None, None, "call_end", "yield", None, None, None, None).engine(
        implementation.Reassembler._implementation, progress=progress
    )
    opening = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}}]}
    read = engine.feed_item(f"data: {json.dumps(opening)}\n\n".encode())
    assert read == ([] if progress else None), "no call is ready: a list only for an engine that keeps progress"
    closing = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    ready = engine.feed_item(f"data: {json.dumps(closing)}\n\n".encode())
    assert [call.id for call in ready or ()] == ["c"], "the finish makes the call ready, with or without progress"


@pytest.mark.parametrize("as_text", [False, True])
@pytest.mark.parametrize("ends", ["\n", "\r\n"])
def test_lines_without_their_ends_are_framed_too(implementation: ModuleType, as_text: bool, ends: str) -> None:
    """httpx ``iter_lines()`` (str) and requests ``iter_lines()`` (bytes) drop the line ends; reads keep them."""
    recording = next(r for r in RECORDINGS if r.name == "openai-chat/q9-interleaved-parallel-calls")
    text = sse(recording.chunks()).decode().replace("\n", ends)
    lines = text.splitlines()
    items: list[Any] = lines if as_text else [line.encode() for line in lines]
    for source in (iter(items), iter([b"", *items])):
        calls = list(implementation.reassemble(source, on_invalid="yield"))
        expected = sorted(recording.expected["calls"], key=lambda call: (call["choice"], call["seq"]))
        assert sorted(map(describe_call, calls), key=lambda call: (call["choice"], call["seq"])) == expected
    one_line = implementation.reassemble(iter(['data: {"choices": []}']), on_invalid="yield")
    assert list(one_line) == [] and one_line.result.choices == ()
    text_reads = [text[i : i + 9] for i in range(0, len(text), 9)]
    assert len(list(implementation.reassemble(iter(text_reads), on_invalid="yield"))) == len(
        recording.expected["calls"]
    )


def test_calls_ready_before_a_malformed_event_of_the_same_read_come_out_first(implementation: ModuleType) -> None:
    """As a chunk source yields the calls before the chunk that raises, whatever events share a read."""
    call = {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": "tool_calls"}]}, None]
    data = sse(chunks)
    for source in (data, iter([data]), io.BytesIO(data)):
        stream = implementation.reassemble(source, on_invalid="yield")
        assert next(stream).id == "a"
        with pytest.raises(MalformedChunkError) as raised:
            next(stream)
        assert raised.value.chunk_number == 1
    machine = implementation.Reassembler(on_invalid="yield")
    assert [c.id for c in machine.feed_bytes(data)] == ["a"]
    with pytest.raises(MalformedChunkError):
        machine.finish()


def test_the_reassembler_and_async_sources_take_bytes(implementation: ModuleType) -> None:
    recording = next(r for r in RECORDINGS if r.name == "openai-chat/parallel-calls")
    data = recording.path.read_bytes()
    machine = implementation.Reassembler(on_invalid="yield")
    calls = [call for i in range(0, len(data), 7) for call in machine.feed_bytes(data[i : i + 7])]
    calls += machine.finish()
    assert [describe_call(call) for call in calls] == recording.expected["calls"]

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(data), 5):
            yield data[i : i + 5]

    async def collect() -> list[Any]:
        return [describe_call(call) async for call in implementation.areassemble(chunks(), on_invalid="yield")]

    assert asyncio.run(collect()) == recording.expected["calls"]


class _Streamer(BaseHTTPRequestHandler):
    body = b""

    def do_POST(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        rng = random.Random(0)
        for piece in split(self.body, rng):
            if piece:
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def server() -> Iterator[str]:
    recording = next(r for r in RECORDINGS if r.name == "openai-chat/q9-interleaved-parallel-calls")
    _Streamer.body = sse(recording.chunks())
    with loopback(_Streamer) as url:
        yield f"{url}/v1/chat/completions"


def test_httpx_bytes_straight_into_the_core(server: str) -> None:
    recording = next(r for r in RECORDINGS if r.name == "openai-chat/q9-interleaved-parallel-calls")
    with httpx.stream("POST", server, json={}) as response:
        calls = [describe_call(call) for call in toolwire.reassemble(response.iter_bytes(), on_invalid="yield")]
    expected = sorted(recording.expected["calls"], key=lambda call: (call["choice"], call["seq"]))
    assert sorted(calls, key=lambda call: (call["choice"], call["seq"])) == expected

    async def collect() -> list[Any]:
        async with httpx.AsyncClient() as client, client.stream("POST", server, json={}) as response:
            return [describe_call(c) async for c in toolwire.areassemble(response.aiter_bytes(), on_invalid="yield")]

    assert sorted(asyncio.run(collect()), key=lambda call: (call["choice"], call["seq"])) == expected


# ------------------------------------------------------------------------------------------------- framing

_PIECES = [
    b"data",
    b"event",
    b"id",
    b"retry",
    b":",
    b": ",
    b" ",
    b"x",
    b"\xc3\xa9",
    b"\r",
    b"\n",
    b"\r\n",
    b"\xef\xbb\xbf",
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b"\\",
    b",",
    b"1",
]


def core_frame(pieces: list[bytes], *, items: bool, limit: int = 1 << 20) -> Any:
    """The core framer's events of ``pieces`` (reads, or a raw source's items), or its error message."""
    try:
        return frame(pieces, items=items, limit=limit)
    except ValueError as error:
        return ("error", str(error))


def reference_frame(pieces: list[bytes], *, items: bool, limit: int = 1 << 20) -> Any:
    framer, found = Framer(limit), []
    try:
        for piece in pieces:
            (framer.feed_item if items else framer.feed)(piece, lambda event: found.append((event.kind, event.data)))
        framer.finish(lambda event: found.append((event.kind, event.data)))
    except FramingError as error:
        return ("error", str(error))
    return found


@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.randoms(use_true_random=False), st.booleans())
def test_the_framers_agree_on_any_bytes_split_anywhere(pieces: list[bytes], rng: random.Random, items: bool) -> None:
    data = b"".join(pieces)
    reads = split(data, rng)
    expected = core_frame([data], items=False)
    assert core_frame(reads, items=False) == expected, "reads: split anywhere, the same events or the same error"
    assert reference_frame(reads, items=False) == expected
    assert core_frame(reads, items=True) == reference_frame(reads, items=True)
    limit = rng.randrange(1, 64)
    assert core_frame(reads, items=items, limit=limit) == reference_frame(reads, items=items, limit=limit)
