"""The public API, for the Rust core and the reference alike: entry points, errors, closing, limits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from toolwire import Limits, ViolationCode
from toolwire._core import violation_table
from toolwire._model import VIOLATION_TABLE


def chunk(tool_calls: list[dict[str, Any]] | None = None, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def opening(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    return {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def more(index: int, arguments: str) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": arguments}}


def two_calls() -> list[dict[str, Any]]:
    return [
        chunk(role="assistant"),
        chunk([opening(0, "call_a", "get_weather")]),
        chunk([more(0, '{"city": ')]),
        chunk([more(0, '"Paris"}')]),
        chunk([opening(1, "call_b", "get_time", '{"tz": "UTC"}')]),
        chunk(finish="tool_calls"),
        {"choices": [], "usage": {"total_tokens": 42}},
    ]


class Source:
    """An iterable that records how far it was read and whether it was closed, like an SDK stream."""

    def __init__(self, chunks: list[Any]) -> None:
        self.chunks = chunks
        self.read = 0
        self.closed = False

    def __iter__(self) -> Iterator[Any]:
        for item in self.chunks:
            self.read += 1
            yield item

    def close(self) -> None:
        self.closed = True


class AsyncSource(Source):
    async def __aiter__(self) -> AsyncIterator[Any]:  # type: ignore[override]
        for item in self.chunks:
            self.read += 1
            await asyncio.sleep(0)
            yield item

    async def aclose(self) -> None:
        self.closed = True


def test_the_violation_tables_of_python_and_rust_are_equal() -> None:
    python = [
        (code.value, level, severity.value, recoverable)
        for code, (level, severity, recoverable) in VIOLATION_TABLE.items()
    ]
    assert violation_table() == python
    assert [code.value for code in ViolationCode] == [row[0] for row in python]


def test_version_comes_from_cargo() -> None:
    assert toolwire.__version__.count(".") == 2


def test_reassemble_hands_over_calls_and_settles_the_result(implementation: ModuleType) -> None:
    stream = implementation.reassemble(two_calls())
    calls = list(stream)
    assert [(c.id, c.name, c.arguments, c.seq, c.index) for c in calls] == [
        ("call_a", "get_weather", {"city": "Paris"}, 0, 0),
        ("call_b", "get_time", {"tz": "UTC"}, 1, 1),
    ]
    assert all(call.ok for call in calls)
    assert stream.result.calls == tuple(calls)
    assert stream.result.usage == {"total_tokens": 42}
    assert stream.result.finish_reason == "tool_calls"
    assert stream.result.ok


def test_the_result_is_available_only_once_exhausted(implementation: ModuleType) -> None:
    stream = implementation.reassemble(two_calls())
    with pytest.raises(ValueError, match="iterated to its end"):
        _ = stream.result
    list(stream)
    assert stream.result.ok


@pytest.mark.parametrize("emit", ["complete", "call_end", "stream_end"])
def test_emission_policies_hand_calls_over_at_their_moment(implementation: ModuleType, emit: str) -> None:
    source = Source(two_calls())
    moments = [(source.read, call.seq) for call in implementation.reassemble(source, emit=emit)]
    expected = {
        "complete": [(4, 0), (5, 1)],  # the chunk that closed each value
        "call_end": [(5, 0), (6, 1)],  # another call's fragment; the finish
        "stream_end": [(7, 0), (7, 1)],  # only once the source is exhausted
    }
    assert moments == expected[emit]


def test_breaking_out_closes_the_source(implementation: ModuleType) -> None:
    source = Source(two_calls())
    for call in implementation.reassemble(source, emit="complete"):
        assert call.seq == 0
        break
    assert source.closed
    assert source.read == 4


@pytest.mark.parametrize("opened", ["reassemble", "events"])
def test_a_with_block_closes_the_source(implementation: ModuleType, opened: str) -> None:
    source = Source(two_calls())
    with getattr(implementation, opened)(source) as stream:
        next(stream)
    assert source.closed
    assert source.read < len(two_calls())


@pytest.mark.parametrize("opened", ["areassemble", "aevents"])
def test_an_async_with_block_closes_the_source(implementation: ModuleType, opened: str) -> None:
    async def run() -> AsyncSource:
        source = AsyncSource(two_calls())
        async with getattr(implementation, opened)(source) as stream:
            await anext(stream)
        return source

    source = asyncio.run(run())
    assert source.closed
    assert source.read < len(two_calls())


def test_an_exhausted_stream_closes_its_source(implementation: ModuleType) -> None:
    source = Source(two_calls())
    list(implementation.reassemble(source))
    assert source.closed


def test_an_exception_from_the_source_propagates_and_closes_it(implementation: ModuleType) -> None:
    class Broken(Source):
        def __iter__(self) -> Iterator[Any]:
            yield two_calls()[1]
            raise ConnectionError("peer reset")

    source = Broken([])
    with pytest.raises(ConnectionError):
        list(implementation.reassemble(source))
    assert source.closed


def test_async_reassembly_and_closing_on_break(implementation: ModuleType) -> None:
    async def run() -> tuple[list[str], AsyncSource, AsyncSource]:
        whole = AsyncSource(two_calls())
        names = [call.name async for call in implementation.areassemble(whole)]
        early = AsyncSource(two_calls())
        async for _call in implementation.areassemble(early, emit="complete"):
            break
        return names, whole, early

    names, whole, early = asyncio.run(run())
    assert names == ["get_weather", "get_time"]
    assert whole.closed and early.closed
    assert early.read == 4


def test_async_cancellation_closes_the_source(implementation: ModuleType) -> None:
    async def run() -> AsyncSource:
        never_ending = AsyncSource([chunk(role="assistant")] * 10_000_000)

        async def consume() -> None:
            async for _call in implementation.areassemble(never_ending):
                pass

        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return never_ending

    source = asyncio.run(run())
    assert source.closed
    assert 0 < source.read < 10_000_000


def test_invalid_calls_raise_by_default_with_the_call_and_the_result_so_far(implementation: ModuleType) -> None:
    chunks = [chunk([opening(0, "call_a", "f", '{"a": 1}')]), chunk([opening(1, "call_b", "g", '{"b": ')])]
    chunks.append(chunk([more(1, "]")]))
    with pytest.raises(implementation.InvalidToolCallError) as caught:
        list(implementation.reassemble(chunks))
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.call.id == "call_b"
    assert [v.code for v in error.violations] == [ViolationCode.INVALID_JSON]
    assert error.violations[0].offset == 6
    assert [call.id for call in error.result.calls] == ["call_a"]


def test_on_invalid_yield_hands_over_invalid_calls(implementation: ModuleType) -> None:
    chunks = [chunk([opening(0, "call_a", "f", '{"a": 1}{"b": 2}')]), chunk(finish="tool_calls")]
    stream = implementation.reassemble(chunks, on_invalid="yield")
    (call,) = list(stream)
    assert not call.ok
    assert call.arguments_json == '{"a": 1}{"b": 2}'
    assert [(v.code, v.offset) for v in call.errors] == [(ViolationCode.TRAILING_DATA, 8)]
    assert stream.result.invalid_calls == (call,)
    assert not stream.result.ok


def test_stream_contract_errors_raise_at_the_end(implementation: ModuleType) -> None:
    chunks = [chunk([opening(0, "call_a", "f", '{"a": 1}')]), chunk(finish="length")]
    with pytest.raises(implementation.InvalidToolCallError):
        list(implementation.reassemble(chunks))
    chunks = [chunk(content="I cannot"), chunk(finish="tool_calls")]
    with pytest.raises(implementation.StreamContractError) as caught:
        list(implementation.reassemble(chunks))
    assert [v.code for v in caught.value.violations] == [ViolationCode.FINISH_WITHOUT_CALLS]
    assert caught.value.result.text == "I cannot"


def test_errors_read_as_one_line_naming_each_finding_s_pointer(implementation: ModuleType) -> None:
    tools = {"set_heating": {"type": "object", "properties": {"celsius": {"type": "number"}}}}
    chunks = [chunk([opening(0, "call_a", "set_heating", '{"celsius": "warm"}')]), chunk(finish="tool_calls")]
    with pytest.raises(implementation.InvalidToolCallError) as caught:
        list(implementation.reassemble(chunks, tools=tools))
    assert str(caught.value) == (
        "invalid tool call seq=0 id='call_a' name='set_heating': TYPE_MISMATCH at /celsius: expected number, got string"
    )
    with pytest.raises(implementation.StreamContractError) as ended:
        list(implementation.reassemble([chunk(content="I cannot"), chunk(finish="tool_calls")]))
    assert "\n" not in str(ended.value) and str(ended.value).endswith(str(ended.value.violations[0]))


def test_a_stream_s_repr_says_where_it_stands(implementation: ModuleType) -> None:
    stream = implementation.reassemble(two_calls(), on_invalid="yield")
    assert repr(stream) == "<ToolCallStream reading>"
    list(stream)
    assert repr(stream) == "<ToolCallStream ended: 2 calls, 0 invalid, ok=True>"
    broken = implementation.reassemble([chunk([opening(0, "call_a", "f", '{"a": ]')])])
    with pytest.raises(implementation.InvalidToolCallError):
        list(broken)
    assert repr(broken) == "<ToolCallStream stopped by InvalidToolCallError after 1 call, 1 invalid>"
    with implementation.reassemble(two_calls()) as closed:
        next(closed)
    assert repr(closed) == "<ToolCallStream closed before its end>"
    ended = implementation.reassemble(two_calls())
    list(ended)
    ended.close()
    assert repr(ended) == "<ToolCallStream ended: 2 calls, 0 invalid, ok=True>", "closing an ended stream ends nothing"

    async def drained() -> Any:
        async def source() -> AsyncIterator[dict[str, Any]]:
            for item in two_calls():
                yield item

        stream = implementation.areassemble(source())
        assert repr(stream) == "<AsyncToolCallStream reading>"
        async for _ in stream:
            pass
        return stream

    assert repr(asyncio.run(drained())) == "<AsyncToolCallStream ended: 2 calls, 0 invalid, ok=True>"


def test_data_after_a_call_was_handed_over_is_reported_never_merged(implementation: ModuleType) -> None:
    chunks = [chunk([opening(0, "call_a", "f", '{"a": 1}')]), chunk([more(0, ', "b": 2}')]), chunk(finish="stop")]
    stream = implementation.reassemble(chunks, emit="complete", on_invalid="yield")
    (call,) = list(stream)
    assert call.ok and call.arguments == {"a": 1}
    trailing = [v for v in stream.result.violations if v.code is ViolationCode.TRAILING_DATA]
    assert [(v.seq, v.data, v.offset) for v in trailing] == [(0, {"text": ', "b": 2}', "bytes": 9, "fragments": 1}, 8)]


def test_on_violation_sees_every_violation_once_as_found(implementation: ModuleType) -> None:
    seen: list[ViolationCode] = []
    chunks = [
        chunk([{"id": "call_a", "function": {"name": "f", "arguments": '{"a": 1, "a": 2}'}}]),
        chunk(finish="stop"),
    ]
    stream = implementation.reassemble(chunks, on_violation=lambda violation: seen.append(violation.code))
    (call,) = list(stream)
    assert call.arguments == {"a": 2}
    assert seen == [
        ViolationCode.TYPE_MISSING,
        ViolationCode.MISSING_INDEX,
        ViolationCode.DUPLICATE_KEY,
        ViolationCode.FINISH_REASON_MISMATCH,
    ]
    assert [v.path for v in call.violations if v.code is ViolationCode.DUPLICATE_KEY] == ["/a"]


def test_reassembler_feed_finish_close(implementation: ModuleType) -> None:
    reassembler = implementation.Reassembler(emit="call_end")
    handed = [call.id for item in two_calls()[:-2] for call in reassembler.feed(item)]
    assert handed == ["call_a"]
    assert [call.id for call in reassembler.feed(two_calls()[-2])] == ["call_b"]
    assert reassembler.finish() == []
    assert reassembler.finish() == []
    result = reassembler.close()
    assert [call.id for call in result.calls] == ["call_a", "call_b"]
    with pytest.raises(ValueError, match="finished"):
        reassembler.feed(two_calls()[0])


def test_reassembler_hands_over_at_finish_what_only_the_end_releases(implementation: ModuleType) -> None:
    reassembler = implementation.Reassembler()
    assert reassembler.feed(chunk([opening(0, "call_a", "f", '{"a": 1}')])) == []
    (call,) = reassembler.finish()
    assert call.id == "call_a"
    assert [v.code for v in reassembler.result.violations] == [ViolationCode.NO_FINISH_REASON]


@pytest.mark.parametrize(
    ("keywords", "error", "match"),
    [
        ({"emit": "eventually"}, ValueError, "emit must be one of"),
        ({"on_invalid": "ignore"}, ValueError, "on_invalid must be"),
        ({"on_violation": 3}, TypeError, "on_violation must be a callable"),
        ({"limits": {"max_depth": 3}}, TypeError, "limits must be a toolwire.Limits"),
        ({"tool_choice": "sometimes"}, TypeError, "tool_choice string must be"),
        ({"tool_choice": {"type": "function"}}, TypeError, "tool_choice must be"),
    ],
)
def test_misused_keywords_name_the_problem(
    implementation: ModuleType, keywords: dict[str, Any], error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        implementation.reassemble([], **keywords)


@pytest.mark.parametrize("source", ["data: {}", {"choices": []}, 42, None])  # bytes are raw streams: test_raw_bytes
def test_a_source_must_be_a_stream_of_chunks(implementation: ModuleType, source: Any) -> None:
    with pytest.raises(TypeError, match="source must be an iterable"):
        implementation.reassemble(source)


@pytest.mark.parametrize(
    ("bad", "path"),
    [
        ("not a chunk", ""),
        ({"choices": {"index": 0}}, "choices"),
        ({"choices": [None]}, "choices[0]"),
        ({"choices": [{"index": "0"}]}, "choices[0].index"),
        ({"choices": [{"delta": {"tool_calls": [{"index": True}]}}]}, "choices[0].delta.tool_calls[0].index"),
        ({"choices": [{"delta": {"tool_calls": [{"index": 2**70}]}}]}, "choices[0].delta.tool_calls[0].index"),
        ({"choices": [{"delta": {"tool_calls": [{"id": 7}]}}]}, "choices[0].delta.tool_calls[0].id"),
        ({"choices": [{"delta": {"tool_calls": [{"function": []}]}}]}, "choices[0].delta.tool_calls[0].function"),
        (
            {"choices": [{"delta": {"tool_calls": [{"function": {"arguments": {1j}}}]}}]},
            "choices[0].delta.tool_calls[0].function.arguments",
        ),
        ({"choices": [{"delta": {"content": b"hi"}}]}, "choices[0].delta.content"),
        ({"choices": [{"finish_reason": 1}]}, "choices[0].finish_reason"),
    ],
)
def test_malformed_chunks_raise_a_type_error_naming_chunk_and_field(
    implementation: ModuleType, bad: Any, path: str
) -> None:
    with pytest.raises(implementation.MalformedChunkError) as caught:
        list(implementation.reassemble([chunk(role="assistant"), bad], on_invalid="yield"))
    assert isinstance(caught.value, TypeError)
    assert (caught.value.chunk_number, caught.value.path) == (1, path)


def test_limits_are_checked() -> None:
    assert Limits() == Limits(max_argument_bytes=8 * 1024 * 1024, max_depth=128, max_calls=256)
    with pytest.raises(ValueError, match="at least 1"):
        Limits(max_calls=0)
    with pytest.raises(ValueError, match="at most 200"):
        Limits(max_depth=201)
    with pytest.raises(TypeError, match="must be an int"):
        Limits(max_depth=True)


def test_going_past_a_limit_is_a_violation_and_memory_stays_bounded(implementation: ModuleType) -> None:
    big = '{"text": "' + "x" * 5000 + '"}'
    deep = '{"a": ' * 6 + "1" + "}" * 6
    chunks = [
        chunk([opening(0, "big", "f", big[:2000])]),
        chunk([more(0, big[2000:])]),
        chunk([opening(1, "deep", "f", deep)]),
        chunk([opening(2, "third", "f", "{}")]),
        chunk([opening(3, "fourth", "f", "{}")]),
        chunk(finish="tool_calls"),
    ]
    stream = implementation.reassemble(
        chunks, on_invalid="yield", limits=Limits(max_argument_bytes=4096, max_depth=5, max_calls=3)
    )
    calls = {call.id: call for call in stream}
    assert [v.code for v in calls["big"].errors] == [ViolationCode.ARGUMENTS_TOO_LARGE]
    assert calls["big"].arguments_json == big[:2000]
    assert [v.code for v in calls["deep"].errors] == [ViolationCode.TOO_DEEP]
    assert calls["third"].ok
    assert "fourth" not in calls, "a call past max_calls is refused: nothing of it is handed over"
    (refused,) = [v for v in stream.result.violations if v.code is ViolationCode.TOO_MANY_CALLS]
    assert (refused.seq, refused.data) == (None, {"limit": 3, "fragments": 1})


def test_a_lone_surrogate_in_a_python_string_is_invalid_json(implementation: ModuleType) -> None:
    chunks = [chunk([opening(0, "call_a", "f", '{"a": "\ud800"}')]), chunk(finish="tool_calls")]
    (call,) = implementation.reassemble(chunks, on_invalid="yield")
    # Encoded as CPython's surrogatepass would (ED A0 80), it fails UTF-8 validation at its second byte.
    assert [(v.code, v.offset) for v in call.errors] == [(ViolationCode.INVALID_JSON, 8)]
    assert call.arguments_json == '{"a": "\ufffd\ufffd\ufffd"}'


def test_numbers_are_exact(implementation: ModuleType) -> None:
    text = '{"big": 123456789012345678901234567890, "neg": -17, "f": 0.1, "e": 1e-7, "zero": -0}'
    (call,) = implementation.reassemble([chunk([opening(0, "c", "f", text)]), chunk(finish="tool_calls")])
    assert call.arguments == json.loads(text)
    assert type(call.arguments["big"]) is int


def test_tool_choice_is_checked_against_the_stream(implementation: ModuleType) -> None:
    chunks = [chunk([opening(0, "c", "get_time", "{}")]), chunk(finish="stop")]
    stream = implementation.reassemble(
        chunks, tool_choice={"type": "function", "function": {"name": "get_weather"}}, on_invalid="yield"
    )
    list(stream)
    assert [(v.code, v.severity.value) for v in stream.result.violations] == [
        (ViolationCode.FINISH_REASON_MISMATCH, "info"),
        (ViolationCode.TOOL_CHOICE_IGNORED, "error"),
    ]


def test_an_integer_python_cannot_hold_is_invalid_json_not_an_exception(implementation: ModuleType) -> None:
    seen: list[ViolationCode] = []
    text = '{"n": ' + "7" * 5000 + "}"
    chunks = [chunk([opening(0, "c", "f", text)]), chunk(finish="tool_calls")]
    (call,) = implementation.reassemble(chunks, on_invalid="yield", on_violation=lambda v: seen.append(v.code))
    assert [(v.code, v.offset) for v in call.errors] == [(ViolationCode.INVALID_JSON, None)]
    assert call.arguments is None
    assert call.arguments_json == text
    assert seen == [ViolationCode.INVALID_JSON]
