"""The events API and honest snapshots.

Every recording, of every format, gives through ``events`` exactly what ``reassemble`` gives (the same calls in the
same order, the same result), with each call started before its arguments and its arguments before its hand-over;
the core and the reference give the same events and the same snapshots. Snapshots are honest (hypothesis, against
the finished value): a value shown as a value is final, a value still arriving is a ``Pending`` whose text is a
prefix of what it becomes, and the last snapshot is the arguments.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from toolwire import Pending
from toolwire.recordings import Recording, iter_recordings

RECORDINGS = [pytest.param(recording, id=recording.name) for recording in iter_recordings()]


def source(recording: Recording) -> Any:
    return recording.source()


def described(call: Any) -> tuple[Any, ...]:
    """A call as the implementations must agree on it (violation messages are free text, never compared)."""
    return (
        call.seq,
        call.id,
        call.name,
        call.arguments,
        call.arguments_json,
        call.ok,
        [v.key() for v in call.violations],
    )


def summary(result: toolwire.StreamResult) -> tuple[Any, ...]:
    calls = [described(call) for call in (*result.calls, *result.invalid_calls)]
    violations = [violation.key() for violation in result.violations]
    return (calls, violations, result.finish_reason, result.text, result.usage, result.output, result.format)


def replayed(module: Any, recording: Recording) -> list[tuple[Any, ...]]:
    """Every event, with each argument delta's snapshot taken (and copied) at that moment."""
    found: list[tuple[Any, ...]] = []
    for event in module.events(source(recording), **recording.reassemble_options()):
        if isinstance(event, module.ArgumentsDelta):
            found.append(("arguments", event.seq, event.choice, event.fragment, copy.deepcopy(event.snapshot())))
        elif isinstance(event, module.Finished):
            found.append(("finished", summary(event.result)))
        elif isinstance(event, (module.ToolCallReady, module.ToolCallInvalid)):
            found.append((type(event).__name__, described(event.call)))
        else:
            found.append((type(event).__name__, event))
    return found


@pytest.mark.parametrize("recording", RECORDINGS)
def test_events_tell_what_reassemble_hands_over(recording: Recording, implementation: ModuleType) -> None:
    options = recording.reassemble_options()
    stream = implementation.reassemble(source(recording), **options, on_invalid="yield")
    handed = list(stream)
    events = list(implementation.events(source(recording), **options))
    assert isinstance(events[-1], implementation.Finished)
    assert events[-1].result == stream.result
    calls = [
        event.call
        for event in events
        if isinstance(event, (implementation.ToolCallReady, implementation.ToolCallInvalid))
    ]
    assert calls == handed
    assert all(
        isinstance(event, implementation.ToolCallReady) == event.call.ok for event in events if hasattr(event, "call")
    )
    texts: dict[int, str] = {}
    for event in events:
        if isinstance(event, implementation.TextDelta):
            texts[event.choice] = texts.get(event.choice, "") + event.text
    assert {choice.choice: choice.text for choice in stream.result.choices if choice.text} == texts

    started: set[int] = set()
    fragments: dict[int, str] = {}
    ready: set[int] = set()
    for event in events:
        if isinstance(event, implementation.ToolCallStarted):
            assert event.seq not in started
            started.add(event.seq)
        elif isinstance(event, implementation.ArgumentsDelta):
            assert event.seq in started and event.seq not in ready
            fragments[event.seq] = fragments.get(event.seq, "") + event.fragment
        elif isinstance(event, (implementation.ToolCallReady, implementation.ToolCallInvalid)):
            assert event.seq in started
            ready.add(event.seq)
    assert started == ready == {call.seq for call in handed}
    for call in handed:
        replaced = any(violation.code.value == "ARGUMENTS_MISMATCH" for violation in call.violations)
        if not replaced and call.arguments_json:
            assert fragments[call.seq] == call.arguments_json


@pytest.mark.parametrize("recording", RECORDINGS)
def test_core_and_reference_give_the_same_events_and_snapshots(recording: Recording) -> None:
    assert replayed(toolwire, recording) == replayed(toolwire.reference, recording)


def test_async_events_and_the_stream_snapshot(implementation: ModuleType) -> None:
    recording = next(r for r in iter_recordings(format="anthropic-messages") if r.name.endswith("paris"))

    async def chunks() -> AsyncIterator[Any]:
        for chunk in recording.chunks():
            yield chunk

    async def run() -> list[Any]:
        stream = implementation.aevents(chunks())
        found = []
        async for event in stream:
            if isinstance(event, implementation.ArgumentsDelta):
                assert stream.snapshot(event.seq) is event.snapshot()
            found.append(event)
        return found

    events = asyncio.run(run())
    assert [type(event).__name__ for event in events if not isinstance(event, implementation.ArgumentsDelta)] == [
        "TextDelta",
        "ToolCallStarted",
        "ToolCallReady",
        "Finished",
    ][: len(events)] or any(isinstance(event, implementation.Finished) for event in events)
    assert isinstance(events[-1], implementation.Finished)
    assert events[-1].result.calls[0].arguments == recording.expected["calls"][0]["arguments"]


# ------------------------------------------------------------------------------------------- honest snapshots

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def honest(shown: Any, final: Any, final_text: str) -> None:
    """What a snapshot shows is final, except a ``Pending``, whose text starts what it becomes."""
    if isinstance(shown, Pending):
        if shown.kind == "string":
            assert isinstance(final, str) and final.startswith(shown.text), (shown, final)
        elif shown.kind == "value":
            assert shown.text == ""
        else:
            assert shown.text and shown.text in final_text, (shown, final)
        return
    if isinstance(shown, dict):
        assert isinstance(final, dict) and set(shown) <= set(final), (shown, final)
        for key, value in shown.items():
            honest(value, final[key], final_text)
        return
    if isinstance(shown, list):
        assert isinstance(final, list) and len(shown) <= len(final), (shown, final)
        for value, wanted in zip(shown, final, strict=False):
            honest(value, wanted, final_text)
        return
    assert shown == final and type(shown) is type(final), (shown, final)


@given(
    arguments=st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=5),
    cuts=st.lists(st.integers(min_value=1, max_value=400), max_size=30),
    indent=st.sampled_from([None, 1]),
    ascii_only=st.booleans(),
)
def test_snapshots_are_honest_after_every_fragment(
    arguments: dict[str, Any], cuts: list[int], indent: int | None, ascii_only: bool
) -> None:
    text = json.dumps(arguments, indent=indent, ensure_ascii=ascii_only)
    points = sorted({cut for cut in cuts if cut < len(text)})
    pieces = [text[start:end] for start, end in zip([0, *points], [*points, len(text)], strict=True)]
    seen = []
    for module in IMPLEMENTATIONS.values():
        reassembler = module.Reassembler(snapshots=True, on_invalid="yield")
        reassembler.feed(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}
                            ]
                        },
                    }
                ]
            }
        )
        snapshots = []
        for piece in pieces:
            reassembler.feed(
                {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}
            )
            shown = copy.deepcopy(reassembler.snapshot(0))
            if shown is not None:
                honest(shown, arguments, text)
            snapshots.append(shown)
        assert snapshots[-1] == arguments if pieces else True
        seen.append(snapshots)
    assert seen[0] == seen[1], "core and reference snapshots differ"


def test_a_number_still_arriving_is_never_shown_as_final() -> None:
    reassembler = toolwire.Reassembler(snapshots=True)
    chunk = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": '{"n": 12'}}
                    ]
                },
            }
        ]
    }
    reassembler.feed(chunk)
    assert reassembler.snapshot(0) == {"n": Pending("number", "12")}
    with pytest.raises(ValueError, match="snapshots=True"):
        toolwire.Reassembler().snapshot(0)
