"""No exception loses a call (docs/semantics.md, "When a call is handed over" and "Results").

A call handed over is in the stream's result at once, before any code of the user's runs; one that a step could not
return (``on_violation`` raised, a signal landed, an invalid call came before it under ``on_invalid="raise"``, the
repair hook raised) is returned by the next step, or carried by the exception. Both implementations, identically:
the differential tests raise from ``on_violation`` at random points and check that every call comes out exactly once
and that the result is the one of the same stream read without a single exception.
"""

from __future__ import annotations

import gc
import json
import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from tests.core.test_differential import nc, nr, nv
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.strategies_chat import HostileCase, chat_streams, hostile_streams
from toolwire import (
    InvalidToolCall,
    InvalidToolCallError,
    Limits,
    MalformedChunkError,
    ToolCall,
    Violation,
    ViolationCode,
)

POLICIES = ("complete", "call_end", "stream_end")
BIG = "1" * 4301  # an integer Python will not convert (sys.get_int_max_str_digits): INVALID_JSON at hand-over
WITH_BIG = '{"n": ' + BIG + "}"


class Boom(Exception):
    """What the tests' callbacks raise."""


def chunk(tool_calls: list[dict[str, Any]] | None = None, finish: str | None = None, **choice: Any) -> dict[str, Any]:
    delta = {"tool_calls": tool_calls} if tool_calls is not None else {}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}]}


def call(index: int, call_id: str | None, arguments: Any, name: str | None = "f") -> dict[str, Any]:
    fragment: dict[str, Any] = {"index": index, "type": "function", "function": {"arguments": arguments}}
    if call_id is not None:
        fragment["id"] = call_id
    if name is not None:
        fragment["function"]["name"] = name
    return fragment


def sse(chunks: list[Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def ids(calls: Any) -> list[str]:
    return [c.id for c in calls]


# ------------------------------------------------------------------------------------------ driving through errors


@dataclass
class Driven:
    """What a Reassembler gave for a stream whose on_violation raised at some violations."""

    returned: list[Any] = field(default_factory=list)  # every call, as a step returned it or an error carried it
    seen: list[Violation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    result: Any = None

    def normalized(self) -> dict[str, Any]:
        return {
            "returned": [nc(c) for c in self.returned],
            "seen": [nv(v) for v in self.seen],
            "errors": self.errors,
            "result": nr(self.result),
        }


def drive(
    module: Any,
    steps: list[Callable[[Any], list[Any]]],
    raise_at: set[int],
    **options: Any,
) -> Driven:
    """Run each step (``feed`` of a chunk, ``feed_bytes`` of a read), then ``finish`` until it returns, carrying on
    after every exception as a caller that catches them would."""
    out = Driven()

    def on_violation(violation: Violation) -> None:
        out.seen.append(violation)
        if len(out.seen) - 1 in raise_at:
            raise Boom

    machine = module.Reassembler(on_violation=on_violation, **options)

    def attempt(step: Callable[[], list[Any]]) -> bool:
        try:
            out.returned.extend(step())
        except InvalidToolCallError as error:
            out.returned.extend(error.ready)
            out.returned.append(error.call)
            out.errors.append("InvalidToolCallError")
            return False
        except (Boom, MalformedChunkError) as error:
            out.errors.append(type(error).__name__)
            return False
        return True

    for step in steps:
        attempt(lambda step=step: step(machine))
    for _ in range(len(raise_at) + 64):
        if attempt(machine.finish):
            break
    else:
        raise AssertionError("finish() kept raising")
    out.result = machine.result
    return out


def check_nothing_lost(driven: Driven, clean: Driven) -> None:
    """Every call handed over came out once, and the exceptions changed nothing the stream itself brought."""
    order = [(c.choice, c.seq) for c in driven.returned]
    assert all(n == 1 for n in Counter(order).values()), f"a call came out twice: {order}"
    in_result = sorted((c.choice, c.seq) for c in (*driven.result.calls, *driven.result.invalid_calls))
    assert sorted(order) == in_result, "a call in the result was never returned, or one returned is not in it"
    assert nr(driven.result) == nr(clean.result)
    assert sorted(map(nc, driven.returned), key=str) == sorted(map(nc, clean.returned), key=str)


def feeds(chunks: list[Any]) -> list[Callable[[Any], list[Any]]]:
    return [lambda machine, c=c: machine.feed(c) for c in chunks]


def event_reads(chunks: list[Any]) -> list[Callable[[Any], list[Any]]]:
    """One read per event: an exception stops a read at its event, so nothing of the stream is skipped."""
    return [lambda machine, c=c: machine.feed_bytes(b"data: " + json.dumps(c).encode() + b"\n\n") for c in chunks]


raise_points = st.sets(st.integers(0, 24), max_size=5)


@st.composite
def big_number_streams(draw: Any) -> list[Any]:
    """Calls whose arguments hold an integer Python cannot hold, among others, split anywhere; any finish."""
    chunks: list[Any] = []
    for index in range(draw(st.integers(1, 4))):
        text = draw(st.sampled_from([WITH_BIG, '{"a": 1}', '{"a": 1, "a": 2}', '{"a": [1', "[1]"]))
        cut = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["function", None]))
        opening = call(index, draw(st.sampled_from([f"id{index}", None])), text[:cut])
        opening["type"] = kind
        chunks.append(chunk([opening]))
        if cut < len(text):
            chunks.append(chunk([{"index": index, "function": {"arguments": text[cut:]}}]))
        if draw(st.booleans()):  # arguments as a value: ARGUMENTS_NOT_STRING, found after the call before is over
            chunks.append(chunk([call(index + 10, f"v{index}", {"x": 1})]))
    chunks.append(chunk(finish=draw(st.sampled_from(["tool_calls", "stop", "length", None]))))
    return chunks


def differential_drive(chunks: list[Any], raise_at: set[int], *, as_bytes: bool = False, **options: Any) -> None:
    steps = event_reads(chunks) if as_bytes else feeds(chunks)
    outcomes = {}
    for name, module in IMPLEMENTATIONS.items():
        driven = drive(module, steps, raise_at, **options)
        check_nothing_lost(driven, drive(module, steps, set(), **options))
        outcomes[name] = driven.normalized()
    assert outcomes["core"] == outcomes["reference"]


@settings(max_examples=max(1, settings().max_examples // 2))
@given(case=hostile_streams(), raise_at=raise_points, on_invalid=st.sampled_from(["yield", "raise"]))
def test_hostile_streams_lose_no_call_whatever_on_violation_raises(
    case: HostileCase, raise_at: set[int], on_invalid: str
) -> None:
    for emit in POLICIES:
        options = {"emit": emit, "on_invalid": on_invalid, "tool_choice": case.tool_choice, "limits": case.limits}
        differential_drive(case.chunks, raise_at, **options)


@settings(max_examples=max(1, settings().max_examples // 2))
@given(chunks=big_number_streams(), raise_at=raise_points, on_invalid=st.sampled_from(["yield", "raise"]))
def test_numbers_python_cannot_hold_lose_no_call_whatever_on_violation_raises(
    chunks: list[Any], raise_at: set[int], on_invalid: str
) -> None:
    for emit in POLICIES:
        for as_bytes in (False, True):
            differential_drive(chunks, raise_at, as_bytes=as_bytes, emit=emit, on_invalid=on_invalid)


@settings(max_examples=max(1, settings().max_examples // 2))
@given(case=chat_streams(allow_sdk_objects=False), raise_at=raise_points)
def test_iteration_stopped_by_on_violation_keeps_every_call_in_its_result(case: Any, raise_at: set[int]) -> None:
    outcomes = {}
    for name, module in IMPLEMENTATIONS.items():
        seen: list[Violation] = []

        def on_violation(violation: Violation, seen: list[Violation] = seen) -> None:
            seen.append(violation)
            if len(seen) - 1 in raise_at:
                raise Boom

        stream = module.reassemble(case.chunks, on_invalid="yield", on_violation=on_violation)
        yielded = []
        try:
            yielded.extend(stream)
        except Boom:
            pass
        result = stream.result
        in_result = {(c.choice, c.seq) for c in (*result.calls, *result.invalid_calls)}
        assert {(c.choice, c.seq) for c in yielded} <= in_result
        outcomes[name] = ([nc(c) for c in yielded], nr(result), [nv(v) for v in seen])
    assert outcomes["core"] == outcomes["reference"]


# ----------------------------------------------------------------------------------------------- regressions


def test_on_violation_raising_in_finish_loses_no_call(implementation: ModuleType) -> None:
    def on_violation(violation: Violation) -> None:
        if violation.code is ViolationCode.NO_FINISH_REASON:
            raise Boom

    machine = implementation.Reassembler(on_violation=on_violation)
    assert machine.feed(chunk([call(0, "a", '{"x": 1}')])) == []
    with pytest.raises(Boom):
        machine.finish()
    assert ids(machine.result.calls) == ["a"]
    # The end is not over for its caller until its calls were returned: a second finish returns them, then nothing.
    assert ids(machine.finish()) == ["a"]
    assert machine.finish() == []
    assert ids(machine.close().calls) == ["a"]


def test_a_finish_resumed_after_on_violation_raised_tells_what_the_rest_of_the_end_found(
    implementation: ModuleType,
) -> None:
    # An empty stream ends in two steps: the decoder's end finds UNRECOGNIZED_STREAM, the accumulator's NO_FINISH_REASON;
    # the core once told both in one batch and skipped the second when the callback raised on the first.
    seen: list[ViolationCode] = []

    def on_violation(violation: Violation) -> None:
        seen.append(violation.code)
        if len(seen) == 1:
            raise Boom

    machine = implementation.Reassembler(on_invalid="yield", on_violation=on_violation)
    with pytest.raises(Boom):
        machine.finish()
    assert machine.finish() == []
    assert seen == [ViolationCode.UNRECOGNIZED_STREAM, ViolationCode.NO_FINISH_REASON]
    assert [v.code for v in machine.result.violations] == seen


def test_on_violation_raising_on_a_number_python_cannot_hold_loses_no_call(implementation: ModuleType) -> None:
    seen: list[ViolationCode] = []

    def on_violation(violation: Violation) -> None:
        seen.append(violation.code)
        if violation.code is ViolationCode.INVALID_JSON:
            raise Boom

    machine = implementation.Reassembler(on_invalid="yield", on_violation=on_violation)
    big = chunk([call(0, "a", WITH_BIG), call(1, "b", "{}")], finish="tool_calls")
    with pytest.raises(Boom):
        machine.feed(big)
    assert (ids(machine.result.invalid_calls), ids(machine.result.calls)) == (["a"], ["b"])
    assert ids(machine.finish()) == ["a", "b"]
    assert seen == [ViolationCode.INVALID_JSON]


def test_a_number_python_cannot_hold_is_reported_in_the_order_found() -> None:
    # Call a is handed over (its INVALID_JSON found as it is built) before b's arguments arrive as a value.
    chunks = [
        chunk([call(0, "a", WITH_BIG)]),
        chunk([call(1, "b", {"x": 1})]),
        chunk(finish="tool_calls"),
    ]
    orders = []
    for module in IMPLEMENTATIONS.values():
        seen: list[str] = []
        list(module.reassemble(chunks, on_invalid="yield", on_violation=lambda v, seen=seen: seen.append(v.code.value)))
        orders.append(seen)
    assert orders[0] == orders[1] == ["INVALID_JSON", "ARGUMENTS_NOT_STRING"]


def test_a_malformed_chunk_carries_the_calls_handed_over_before_it(implementation: ModuleType) -> None:
    # Under emit="complete", call a is handed over by the chunk's first field; the chunk is malformed further on.
    chunks = [chunk([call(0, "a", "{}")], finish=7)]
    with pytest.raises(MalformedChunkError) as raised:
        list(implementation.reassemble(chunks, emit="complete"))
    assert raised.value.result is not None
    assert ids(raised.value.result.calls) == ["a"]
    stream = implementation.reassemble(chunks, emit="complete")
    with pytest.raises(MalformedChunkError):
        next(stream)
    assert ids(stream.result.calls) == ["a"]

    machine = implementation.Reassembler(emit="complete")
    with pytest.raises(MalformedChunkError) as raised:
        machine.feed(chunks[0])
    assert raised.value.result is not None
    assert ids(raised.value.result.calls) == ["a"]
    assert ids(machine.finish()) == ["a"]


def test_calls_after_an_invalid_one_come_out_of_the_next_step(implementation: ModuleType) -> None:
    machine = implementation.Reassembler()
    both = chunk([call(0, "a", "{}"), call(1, "b", "[1]"), call(2, "c", "{}")], finish="tool_calls")
    with pytest.raises(InvalidToolCallError) as raised:
        machine.feed(both)
    assert (ids(raised.value.ready), raised.value.call.id) == (["a"], "b")
    assert ids(machine.finish()) == ["c"]
    assert ids(machine.result.calls) == ["a", "c"]


def test_a_repair_hook_that_raises_loses_no_call(implementation: ModuleType) -> None:
    tools = {"f": {"type": "object", "properties": {"x": {"type": "integer"}}}}
    attempts = []

    def repair(invalid: Any) -> dict[str, Any]:
        attempts.append(invalid.id)
        if len(attempts) == 1:
            raise Boom
        return {"x": 1}

    machine = implementation.Reassembler(tools=tools, on_invalid="yield", repair=repair)
    broken = chunk([call(0, "a", '{"x": "1"}'), call(1, "b", '{"x": "2"}'), call(2, "c", "{}")], finish="tool_calls")
    with pytest.raises(Boom):
        machine.feed(broken)
    later = machine.finish()
    # a stays as the model sent it; b is offered to the hook and repaired; c was valid.
    assert [(c.id, c.ok) for c in later] == [("a", False), ("b", True), ("c", True)]
    assert attempts == ["a", "b"]
    assert (ids(machine.result.invalid_calls), ids(machine.result.calls)) == (["a"], ["b", "c"])


@pytest.mark.parametrize("method", ["feed", "feed_bytes", "finish", "result", "snapshot"])
def test_using_a_reassembler_from_its_own_callback_says_so(implementation: ModuleType, method: str) -> None:
    uses: dict[str, Callable[[Any], Any]] = {
        "feed": lambda machine: machine.feed(chunk()),
        "feed_bytes": lambda machine: machine.feed_bytes(b"\n"),
        "finish": lambda machine: machine.finish(),
        "result": lambda machine: machine.result,
        "snapshot": lambda machine: machine.snapshot(0),
    }

    misused: list[bool] = []

    def on_violation(violation: Violation) -> None:
        if not misused:
            misused.append(True)
            uses[method](machine)

    machine = implementation.Reassembler(on_violation=on_violation, snapshots=True)
    with pytest.raises(RuntimeError, match=rf"Reassembler\.{method} was used while its feed was running"):
        machine.feed(chunk([{"function": {"name": "f", "arguments": "{}"}}]))
    # The misuse changed nothing: the stream goes on.
    assert ids(machine.finish()) == ["ts_0_0"]


# ---------------------------------------------------------------------------------------------------- signals


class Interrupted(Exception):
    """What the test's SIGALRM handler raises, as Python's own SIGINT handler raises KeyboardInterrupt."""


def _interrupt(signum: int, frame: Any) -> None:
    raise Interrupted


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs setitimer")
def test_a_signal_landing_anywhere_in_a_large_read_loses_no_call() -> None:
    """A signal's handler runs in the first Python code after it arrives. The core reads raw bytes in Rust, so during
    a read without callbacks that is where a call object is built: wherever the signal lands, the read is whole,
    every call is in the result, and the next step returns what the interrupted one could not.

    (The reference is plain Python: a handler may run anywhere in it, even halfway through applying an event, so it
    makes no such promise.)
    """
    module = toolwire
    calls = 400
    chunks = [chunk([call(k, f"c{k}", f'{{"k": {k}}}')]) for k in range(calls)]
    data = sse([*chunks, chunk(finish="tool_calls")])
    limits = Limits(max_calls=calls)
    started = time.perf_counter()
    module.Reassembler(limits=limits).feed_bytes(data)
    duration = time.perf_counter() - started
    rng = random.Random(15)
    previous = signal.signal(signal.SIGALRM, _interrupt)
    interrupted = 0
    gc.disable()  # the handler must not run in a collector's callback (pytest keeps one), where it would be lost
    try:
        for _ in range(40):
            machine = module.Reassembler(limits=limits)
            returned: list[Any] = []
            try:
                signal.setitimer(signal.ITIMER_REAL, rng.uniform(0, duration))
                returned.extend(machine.feed_bytes(data))
                signal.setitimer(signal.ITIMER_REAL, 0)
            except Interrupted:
                interrupted += machine.result.format is not None
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if machine.result.format is None:
                continue  # the signal landed before the read began: nothing of it was read
            assert len(machine.result.calls) == calls
            later = machine.finish()
            # A call the step returned and the test's own code dropped (the signal landed there) is only in the result.
            assert len(returned) + len(later) <= calls
            assert set(ids(later)).isdisjoint(ids(returned))
            assert ids(machine.close().calls) == [f"c{k}" for k in range(calls)]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        gc.enable()
    assert interrupted > 0, "no signal landed once the read had begun"


def test_a_keyboard_interrupt_from_on_violation_in_feed_bytes_loses_no_call(implementation: ModuleType) -> None:
    def on_violation(violation: Violation) -> None:
        if violation.code is ViolationCode.MISSING_INDEX:
            raise KeyboardInterrupt

    machine = implementation.Reassembler(on_violation=on_violation)
    no_index = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    data = sse([chunk([call(0, "a", "{}"), call(1, "b", "{}")]), chunk([no_index])])
    with pytest.raises(KeyboardInterrupt):
        machine.feed_bytes(data)
    assert ids(machine.result.calls) == ["a", "b"]
    assert ids(machine.finish()) == ["a", "b", "c"]
    assert isinstance(machine.result.calls[2], ToolCall)


def test_a_result_holds_the_calls_handed_over_and_the_same_objects_every_time(implementation: ModuleType) -> None:
    """The calls the consumer holds are the result's; a number Python cannot hold is found once; the result's calls
    are built once, however often the result is asked for."""
    machine = implementation.Reassembler(on_invalid="yield")
    handed = machine.feed(chunk([call(0, "a", '{"x": [1, {"y": "z"}]}'), call(1, "b", WITH_BIG)]))
    handed += machine.feed(chunk([call(2, "c", '{"x": 2}')], finish="tool_calls"))
    handed += machine.finish()
    first, again = machine.result, machine.result
    built, built_again = first.calls + first.invalid_calls, again.calls + again.invalid_calls
    assert all(mine is theirs for mine, theirs in zip(built, (*handed[0::2], handed[1]), strict=True))
    assert all(mine is theirs for mine, theirs in zip(built, built_again, strict=True))
    assert [v.code for v in first.invalid_calls[0].errors] == [ViolationCode.INVALID_JSON]


def test_a_stream_keeps_no_call_object_the_consumer_dropped_and_builds_it_again_for_its_result() -> None:
    """Issue 17: a result keeping every call's object made each garbage collection walk all the calls of a long
    stream, so a text of thousands of calls cost up to 18% more per byte than a short one. The core keeps its record
    of each call and builds the dropped ones again, equal to those handed over (a number Python cannot hold found
    once); the ones the consumer holds are the result's."""
    arguments = [json.dumps({"n": at, "tags": ["x", "y"]}) if at % 8 else WITH_BIG for at in range(64)]
    chunks = [chunk([call(at, f"dropped-{at}", text)]) for at, text in enumerate(arguments)]
    stream = toolwire.reassemble([*chunks, chunk(finish="tool_calls")], on_invalid="yield")
    held: list[Any] = []
    read = []

    def findings(each: Any) -> list[ViolationCode]:
        return [v.code for v in (each.violations if each.ok else each.errors)]

    for each in stream:
        read.append((each.id, each.arguments, findings(each), each.ok))
        if each.seq % 3 == 0:
            held.append(each)

    def alive() -> int:
        gc.collect()
        return sum(isinstance(o, (ToolCall, InvalidToolCall)) and o.id.startswith("dropped-") for o in gc.get_objects())

    assert (len(read), alive()) == (64, len(held))
    result = stream.result
    calls = sorted(result.calls + result.invalid_calls, key=lambda each: each.seq)
    assert [(each.id, each.arguments, findings(each), each.ok) for each in calls] == read
    assert all(each is calls[each.seq] for each in held)
    assert alive() == 64
