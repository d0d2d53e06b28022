"""Raw bodies: every framing a provider sends, and never an ok result for a body that was not understood.

A body is told by its first bytes (server-sent events, JSON lines, a JSON array, AWS event-stream messages); a body
of none of these is a ``MalformedChunkError`` naming its first bytes, a body that breaks its framing too, and a stream
in which no event is of its format (empty, or another format's under ``format=``) is ``UNRECOGNIZED_STREAM``. The core
and the reference agree on each, down to the message. Memory stays within ``Limits.max_event_bytes`` in every
framing, measured in a capped child process.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
import toolwire.reference
from tests.core.test_raw_bytes import core_frame, reference_frame
from tests.support.bounded import run_bounded
from tests.support.eventstream import aws_message
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import RECORDINGS
from toolwire import Limits, MalformedChunkError, StreamContractError
from toolwire._pipeline._choice import parse_tool_choice
from toolwire.reference._framed import shown


def outcome(implementation: ModuleType, source: Any, **options: Any) -> Any:
    """The result of a reassembly (calls handed over, codes), or the error it raised (chunk, path, problem)."""
    stream = implementation.reassemble(source, on_invalid="yield", **options)
    try:
        handed = [(call.name, call.arguments) for call in stream]
    except MalformedChunkError as error:
        return ("raised", error.chunk_number, error.path, error.problem)
    result = stream.result
    return (handed, [(v.code.value, v.severity.value) for v in result.violations], result.finish_reason)


def both(source: bytes | list[Any], **options: Any) -> Any:
    """The outcome of the core and of the reference (a list is fed as a source's items), which must be the same.

    Framing errors read word for word alike; a JSON parser's own words (``not JSON: ...``) differ between the two.
    """
    core, reference = (
        outcome(implementation, iter(source) if isinstance(source, list) else source, **options)
        for implementation in IMPLEMENTATIONS.values()
    )
    if core[0] == "raised" and core[3].startswith("not JSON"):
        assert core[:3] == reference[:3] and reference[3].startswith("not JSON")
    else:
        assert core == reference
    return core


# ------------------------------------------------------------------------------------------- AWS event-stream


def aws_event(kind: str, payload: dict[str, Any]) -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return aws_message(headers, json.dumps({**payload, "p": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}).encode())


CONVERSE = [
    ("messageStart", {"role": "assistant"}),
    ("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "get_weather"}}}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"city": "Pa'}}}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": 'ris"}'}}}),
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("messageStop", {"stopReason": "tool_use"}),
]


def converse_body() -> bytes:
    return b"".join(aws_event(kind, payload) for kind, payload in CONVERSE)


def test_a_bedrock_body_reads_as_the_events_boto3_yields(implementation: ModuleType) -> None:
    body = converse_body()
    events = [{kind: payload} for kind, payload in CONVERSE]
    expected = ([("get_weather", {"city": "Paris"})], [], "tool_use")
    assert outcome(implementation, events) == expected
    for source in (body, io.BytesIO(body), iter([body[at : at + 1] for at in range(len(body))])):
        assert outcome(implementation, source) == expected


def test_aws_exceptions_and_errors_are_provider_errors() -> None:
    throttled = aws_message(
        {":exception-type": "throttlingException", ":content-type": "application/json", ":message-type": "exception"},
        b'{"message": "Too many tokens, please wait before trying again."}',
    )
    failed = aws_message({":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom"}, b"")
    # An exception type AWS adds later is an error as much as the five known today.
    unknown = aws_message({":exception-type": "newlyAddedException", ":message-type": "exception"}, b"{}")
    for message in (throttled, failed, unknown):
        handed, codes, finish = both(converse_body()[: len(aws_event(*CONVERSE[0]))] + message)
        assert (handed, finish) == ([], None)
        assert ("PROVIDER_ERROR", "error") in codes
    start = aws_event(*CONVERSE[0])
    stream = toolwire.reassemble(start + failed, on_invalid="yield")
    list(stream)
    (error,) = [v for v in stream.result.violations if v.code.value == "PROVIDER_ERROR"]
    assert error.data == {"error": {"code": "InternalFailure", "message": "boom"}}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(CONVERSE), min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 7)), max_size=2),
    st.randoms(use_true_random=False),
    st.booleans(),
)
def test_the_framers_agree_on_aws_bodies_broken_anywhere(
    events: list[tuple[str, dict[str, Any]]], flips: list[tuple[int, int]], rng: Any, items: bool
) -> None:
    original = b"".join(aws_event(kind, payload) for kind, payload in events)
    body = bytearray(original)
    for at, bit in flips:
        body[at % len(body)] ^= 1 << bit
    cuts = sorted(rng.sample(range(len(body) + 1), min(len(body) + 1, rng.randrange(0, 10))))
    reads = [bytes(body[a:b]) for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    core, reference = core_frame(reads, items=items), reference_frame(reads, items=items)
    if isinstance(core, list) and isinstance(reference, list):
        # The core keeps a payload's members as written, the reference writes them anew: the same JSON.
        core, reference = ([(kind, json.loads(data)) for kind, data in events] for events in (core, reference))
    assert core == reference
    if body != original:
        assert core_frame(reads, items=items)[0] == "error", "a CRC32 catches one or two flipped bits"


def test_a_broken_aws_body_is_a_malformed_chunk() -> None:
    body = converse_body()
    first = len(aws_event(*CONVERSE[0]))
    corrupt = bytearray(body)
    corrupt[first + 20] ^= 0x01  # inside the second message's headers: its message CRC no longer holds
    raised = both(bytes(corrupt))
    assert raised[:3] == ("raised", 1, "") and raised[3].startswith("AWS event-stream message 1: the message's CRC32")
    prelude = bytearray(body)
    prelude[first + 8] ^= 0x01
    assert both(bytes(prelude))[3].startswith("AWS event-stream message 1: the prelude's CRC32")
    cut = both(body[:-5])
    assert cut[:2] == ("raised", 5) and cut[3].endswith("it was cut")
    not_object = aws_message({":event-type": "messageStart", ":message-type": "event"}, b'"text"')
    assert both(not_object)[3] == "AWS event-stream message 0: its payload is not a JSON object"


# ----------------------------------------------------------------------------------------------- JSON arrays


def gemini(part: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


GEMINI = [
    gemini({"text": "Checking."}),
    gemini({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}),
    gemini({"text": ""}, finish="STOP"),
]


def json_array(elements: list[Any]) -> bytes:
    """A JSON array as Gemini streams it without ``alt=sse``: pretty-printed, elements joined by ``\\n,\\r\\n``."""
    return ("[" + "\n,\r\n".join(json.dumps(element, indent=2) for element in elements) + "\n]").encode()


def test_a_gemini_array_is_read_element_by_element(implementation: ModuleType) -> None:
    body = json_array(GEMINI)
    handed, codes, finish = outcome(implementation, body)
    assert (handed, finish) == ([("get_weather", {"city": "Paris"})], "STOP")
    assert not [code for code, severity in codes if severity == "error"]
    lines = body.decode().splitlines()  # httpx iter_lines(): line ends dropped
    assert outcome(implementation, iter(lines)) == outcome(implementation, body)
    # The call is handed over the moment its element closes, long before the array does.
    machine = implementation.Reassembler(on_invalid="yield")
    second = body.index(b'"functionCall"')
    assert machine.feed_bytes(body[:second]) == []
    closes = body.index(b"\n,", second)
    (call,) = machine.feed_bytes(body[second : closes + 1])
    assert call.name == "get_weather"
    assert machine.feed_bytes(body[closes + 1 :]) == []
    assert machine.close().finish_reason == "STOP"


@pytest.mark.parametrize(
    ("body", "chunk", "problem"),
    [
        (b"[{}\n{}]", 1, 'expected `,` or `]` after element 0 of the JSON array, got b"{"'),
        (b'[{"candidates": []},]', 1, 'expected an element after `,` in the JSON array, got b"]"'),
        (b'[{"candidates": []}]\n\n{}', 1, 'data after the end of the JSON array: b"{"'),
        (
            b'[{"candidates": []},\n{"candidates"',
            1,
            "the body ended inside its JSON array, after 1 element(s) and before the closing `]`: it was cut",
        ),
        (b'[{"candidates": []}, 7]', 1, None),  # an element that is no object fails as an event's data would
        (b'[{"candidates": []}, {"candidates": [}]', 1, None),
    ],
)
def test_a_broken_json_array_is_a_malformed_chunk(body: bytes, chunk: int, problem: str | None) -> None:
    raised = both(body)
    assert raised[:3] == ("raised", chunk, "")
    if problem is not None:
        assert raised[3] == problem


def test_async_sources_and_events_read_every_framing(implementation: ModuleType) -> None:
    """``areassemble`` (httpx ``aiter_bytes()``/``aiter_text()``) and ``events`` frame as ``reassemble`` does."""
    array = json_array(GEMINI)
    bodies: list[list[Any]] = [
        [converse_body()[at : at + 7] for at in range(0, len(converse_body()), 7)],
        [array[at : at + 5] for at in range(0, len(array), 5)],
        [array.decode()[at : at + 5] for at in range(0, len(array), 5)],  # text reads
    ]

    async def reads(items: list[Any]) -> AsyncIterator[Any]:
        for item in items:
            yield item

    async def collect(items: list[Any]) -> list[Any]:
        return [
            (call.name, call.arguments) async for call in implementation.areassemble(reads(items), on_invalid="yield")
        ]

    for items in bodies:
        expected = outcome(implementation, iter(items))[0]
        assert expected and asyncio.run(collect(items)) == expected
        ready = [e.call.name for e in implementation.events(iter(items)) if isinstance(e, implementation.ToolCallReady)]
        assert ready == [name for name, _ in expected]


# ----------------------------------------------------------------------------------------------- JSON lines


def ollama(content: str, **fields: Any) -> dict[str, Any]:
    return {"model": "m", "message": {"role": "assistant", "content": content}, "done": False, **fields}


def test_json_lines_split_at_a_brace_pair_inside_a_string_are_one_value(implementation: ModuleType) -> None:
    """Issue 15 (from 2.9): reads split at ``}{`` inside a string were taken for lines and misread."""
    line = json.dumps(ollama("a}{b", done=True, done_reason="stop")).encode()
    cut = line.index(b"}{") + 1
    for pieces in ([line[:cut], line[cut:]], [line[: cut - 1], line[cut - 1 : cut + 1], line[cut + 1 :]]):
        stream = implementation.reassemble(iter(pieces), on_invalid="yield")
        assert list(stream) == []
        assert (stream.result.text, stream.result.finish_reason) == ("a}{b", "stop")


def test_json_lines_fail_line_by_line(implementation: ModuleType) -> None:
    good = json.dumps(ollama("a")).encode()
    assert outcome(implementation, good + b"\n{oops\n" + good + b"\n")[:3] == ("raised", 1, "")
    # A line iterator's lines have no ends: each value ends where its JSON closes.
    lines = [good, good, json.dumps(ollama("", done=True, done_reason="stop")).encode()]
    assert outcome(implementation, iter(lines))[2] == "stop"


# ------------------------------------------------------------------------------------ bodies of no framing


@pytest.mark.parametrize(
    "body",
    [
        b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
        b"Internal Server Error",
        b"date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\ndata: {}\n\n",
        b"Data: {}\n\n",
        b"\x00\x00\x00\x10garbage that is no prelude",
    ],
)
def test_a_body_of_no_framing_names_its_first_bytes(body: bytes) -> None:
    raised = both(body)
    assert raised[:3] == ("raised", 0, "")
    assert raised[3].startswith("the body is none of the framings toolwire reads")
    assert raised[3].endswith(shown(body[:32]))


def test_a_failed_body_never_ends_clean(implementation: ModuleType) -> None:
    """The engine raises at every later read and at every end: a body not understood has no clean end.

    Once the end has begun no more input is taken (a usage error), and every later end raises the framing error again.
    """
    engine_class = toolwire.reference.Engine if implementation is toolwire.reference else toolwire._core.Engine
    engine = engine_class(tool_choice=parse_tool_choice(None), emit="call_end", limits=Limits(), on_violation=None)
    with pytest.raises(MalformedChunkError):
        engine.feed_bytes(b"<html>" + b" " * 40)
    for _ in range(2):
        with pytest.raises(MalformedChunkError, match="none of the framings"):
            engine.feed_bytes(b"data: {}\n\n")
    for _ in range(2):
        with pytest.raises(MalformedChunkError, match="none of the framings"):
            engine.end()
        with pytest.raises(ValueError, match="the stream has ended"):
            engine.feed_bytes(b"data: {}\n\n")


# ------------------------------------------------------------------------------------------- not understood


SAMPLES = {
    "openai-chat": RECORDINGS / "openai-chat" / "parallel-calls.sse",
    "openai-responses": RECORDINGS / "openai-responses" / "parallel-function-calls.sse",
    "anthropic-messages": RECORDINGS / "anthropic-messages" / "text-then-tool-use-paris.sse",
    "gemini": RECORDINGS / "gemini" / "q28-call-then-stop-in-later-chunk.sse",
    "ollama": RECORDINGS / "ollama" / "text-then-call.jsonl",
}


def samples() -> dict[str, bytes]:
    bodies = {name: path.read_bytes() for name, path in SAMPLES.items()}
    bodies["bedrock-converse"] = converse_body()
    bodies["gemini (JSON array)"] = json_array(GEMINI)
    return bodies


def test_each_format_read_as_another_is_never_ok(implementation: ModuleType) -> None:
    """Every sample under its own format is understood; under any other named format, it is not."""
    formats = list(toolwire.WIRE_FORMATS)
    for name, body in samples().items():
        own = name.split(" ")[0]
        _, codes, _ = outcome(implementation, body, format=own)
        assert "UNRECOGNIZED_STREAM" not in {code for code, _ in codes}, name
        for other in formats:
            if other == own:
                continue
            got = outcome(implementation, body, format=other)
            if got[0] == "raised":
                continue  # a field of the wrong type for that format's decoder: a MalformedChunkError
            assert ("UNRECOGNIZED_STREAM", "error") in got[1], (name, other, got)
            assert not got[0], (name, other, "no call may come out of a stream that was not understood")


@pytest.mark.parametrize(
    "source",
    [[], b"", [b""], [b"", b""], b"\xef\xbb\xbf \r\n", b": keep-alive\n\ndata: [DONE]\n\n", b"[]", b"[\n]\n"],
    ids=[
        "no chunk",
        "empty bytes",
        "an empty read",
        "empty reads",
        "BOM and whitespace",
        "comments and DONE",
        "empty array",
        "empty array, whitespace",
    ],
)
def test_an_empty_stream_is_not_understood(implementation: ModuleType, source: Any) -> None:
    stream = implementation.reassemble(iter(source) if isinstance(source, list) else source, on_invalid="yield")
    assert list(stream) == []
    (unrecognized,) = [v for v in stream.result.violations if v.code.value == "UNRECOGNIZED_STREAM"]
    assert unrecognized.data == {"events": 0, "format": None}
    assert not stream.result.ok
    with pytest.raises(StreamContractError):
        list(implementation.reassemble(iter(source) if isinstance(source, list) else source))
    with pytest.raises(StreamContractError):
        implementation.Reassembler().close()


def test_events_no_format_claims_are_not_understood(implementation: ModuleType) -> None:
    for source in ([{"usage": {"total_tokens": 3}}], b'data: {"hello": "world"}\n\n', b'{"a": 1}\n{"b": 2}\n'):
        stream = implementation.reassemble(source, on_invalid="yield")
        list(stream)
        (unrecognized,) = [v for v in stream.result.violations if v.code.value == "UNRECOGNIZED_STREAM"]
        assert unrecognized.data["format"] is None and unrecognized.data["events"] >= 1
    # An error event is understood: the provider said what went wrong.
    stream = implementation.reassemble([{"error": {"message": "overloaded"}}], on_invalid="yield")
    list(stream)
    assert [v.code.value for v in stream.result.violations if v.severity.value == "error"] == ["PROVIDER_ERROR"]


def test_a_chunk_source_of_another_format_is_not_understood(implementation: ModuleType) -> None:
    anthropic = [{"type": "message_start", "message": {"id": "m"}}, {"type": "message_stop"}]
    stream = implementation.reassemble(anthropic, format="openai-chat", on_invalid="yield")
    list(stream)
    (unrecognized,) = [v for v in stream.result.violations if v.code.value == "UNRECOGNIZED_STREAM"]
    assert unrecognized.data == {"events": 2, "format": "openai-chat"}
    chat = [{"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}]
    stream = implementation.reassemble(chat, format="openai-chat", on_invalid="yield")
    list(stream)
    assert stream.result.ok


# ------------------------------------------------------------------------------------------------ memory

# Each hostile body is 1 GiB, produced lazily in 1 MiB pieces and never closed: refused after max_event_bytes (8 MiB
# here), never held. `reads` goes through `Reassembler.feed_bytes`, `items` through `reassemble` (a source's items,
# which the engine holds until they tell reads from lines: the 954 MiB that `RawReads` held in Python on main).
HOSTILE = {
    "server-sent events, no line end": ("reads", "b'data: ' + b'x' * (MIB - 6)"),
    "items, no line end (reads or lines?)": ("items", "b'data: ' + b'x' * (MIB - 6)"),
    "a JSON line never closed": ("items", "b'{\"a\": \"' + b'x' * (MIB - 7)"),
    "a JSON array element never closed": ("items", "b'[{\"a\": \"' + b'x' * (MIB - 8)"),
    "an AWS message larger than the limit": ("items", "prelude(1 << 30) + b'x' * (MIB - 12)"),
    "an AWS message cut short": ("reads", "prelude(MIB * 6) + b'x' * (MIB - 12)"),
}
# How many MiB each body brings: 1 GiB, or (a message of 6 MiB cut short) 5 MiB.
SIZES = {"an AWS message cut short": 5}


@pytest.mark.parametrize("body", HOSTILE)
def test_memory_stays_bounded_in_every_framing(body: str, implementation: ModuleType) -> None:
    via, first = HOSTILE[body]
    bounded = run_bounded(
        f"""
        MIB = 1 << 20
        def prelude(total):
            head = total.to_bytes(4, "big") + (0).to_bytes(4, "big")
            return head + zlib.crc32(head).to_bytes(4, "big")
        def pieces():
            yield {first}
            rest = b"x" * MIB
            for _ in range({SIZES.get(body, 1024) - 1}):
                yield rest
        limits = toolwire.Limits(max_event_bytes=8 * MIB)
        try:
            if {via!r} == "reads":
                machine = module.Reassembler(on_invalid="yield", limits=limits)
                for piece in pieces():
                    machine.feed_bytes(piece)
                machine.finish()
            else:
                list(module.reassemble(pieces(), on_invalid="yield", limits=limits))
            outcome = "read"
        except toolwire.MalformedChunkError as error:
            outcome = error.problem
        """,
        setup="import zlib, toolwire, toolwire.reference\n" + f"module = {implementation.__name__}",
        memory_mib=1024,
        timeout_s=120,
    )
    if body == "an AWS message cut short":
        # 6 MiB fit the limit: held until the body ends inside the message.
        assert bounded.outcome.endswith("it was cut"), bounded.outcome
    else:
        assert "larger than 8388608 bytes (Limits.max_event_bytes)" in bounded.outcome, bounded.outcome
    assert bounded.peak_growth_mib < 48
    assert bounded.seconds < 10


def test_limits_bound_what_is_held_towards_one_event() -> None:
    """Each framing refuses the same way at its limit, in the core and the reference alike."""
    limits = Limits(max_event_bytes=64)
    big = "x" * 100
    cases = [
        b"data: " + big.encode() + b"\n\n",
        json.dumps({"a": big}).encode() + b"\n",
        b"[" + json.dumps({"a": big}).encode() + b"]",
        aws_event("messageStart", {"role": big}),
    ]
    for body in cases:
        raised = both(body, limits=limits)
        assert raised[0] == "raised" and "larger than 64 bytes (Limits.max_event_bytes)" in raised[3], body[:20]
