"""Resources: nothing leaks, memory stays bounded on giant arguments, misuse is an exception."""

from __future__ import annotations

import gc
import resource
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

import toolwire
from toolwire import Limits, ViolationCode


def chunk(tool_calls: list[dict[str, Any]] | None = None, finish: str | None = None) -> dict[str, Any]:
    delta = {"tool_calls": tool_calls} if tool_calls is not None else {}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def giant_call(fragments: int, fragment: str) -> Iterator[dict[str, Any]]:
    yield chunk([{"index": 0, "id": "big", "type": "function", "function": {"name": "f", "arguments": '{"t": "'}}])
    piece = chunk([{"index": 0, "function": {"arguments": fragment}}])
    for _ in range(fragments):
        yield piece
    yield chunk([{"index": 0, "function": {"arguments": '"}'}}], finish="tool_calls")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_arguments_past_the_limit_are_scanned_not_kept() -> None:
    # 256 MiB of arguments against a 1 MiB limit: the call is invalid, and the process does not grow by the
    # amount streamed (peak RSS is monotonic, so the bound is on growth during this stream).
    before = peak_rss_mib()
    stream = toolwire.reassemble(
        giant_call(4096, "x" * 65536), on_invalid="yield", limits=Limits(max_argument_bytes=1 << 20)
    )
    (call,) = list(stream)
    assert [v.code for v in call.errors] == [ViolationCode.ARGUMENTS_TOO_LARGE]
    assert len(call.arguments_json) <= 1 << 20
    assert peak_rss_mib() - before < 64


def test_streams_leave_nothing_behind() -> None:
    class Chunk(dict[str, Any]):
        pass

    probe = Chunk(chunk([{"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]))
    alive = weakref.ref(probe)
    for _ in range(3):
        list(toolwire.reassemble([probe, chunk(finish="tool_calls")]))
    del probe
    gc.collect()
    assert alive() is None

    gc.collect()
    before = len(gc.get_objects())
    for _ in range(200):
        stream = toolwire.reassemble(giant_call(3, "abc"), on_invalid="yield")
        list(stream)
        del stream
    gc.collect()
    assert len(gc.get_objects()) - before < 50


def test_a_stream_dropped_early_releases_its_source() -> None:
    class Source:
        def __iter__(self) -> Iterator[dict[str, Any]]:
            return giant_call(100, "abc")

    source = Source()
    alive = weakref.ref(source)
    for _call in toolwire.reassemble(source, emit="complete"):
        break
    del source
    assert alive() is None


def test_reentrant_use_of_an_engine_is_an_exception() -> None:
    def feed_again(violation: toolwire.Violation) -> None:
        reassembler.feed(chunk())

    reassembler = toolwire.Reassembler(on_violation=feed_again)
    with pytest.raises(RuntimeError):
        reassembler.feed(chunk([{"function": {"name": "f", "arguments": "{}"}}]))


def test_the_bounded_harness_measures_growth_and_enforces_its_cap() -> None:
    from tests.support.bounded import run_bounded

    grown = run_bounded("block = bytearray(64 << 20); block[::4096] = b'x' * len(block[::4096]); outcome = 1")
    assert grown.outcome == 1
    assert 60 < grown.peak_growth_mib < 200
    with pytest.raises(AssertionError, match="MemoryError"):
        run_bounded("block = bytearray(2 << 30)", memory_mib=1024)
