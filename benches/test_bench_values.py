"""What a value costs to hand over (issue 18, item 3): violations built in Rust, and the fixed cost of a stream.

``test_violation_values``: 100 violations of ten fields made from Python, by the class ``toolwire.Violation`` is
(built in Rust, ``rust/py/values.rs``) and by its pure-Python fallback (the frozen dataclass ``_model._Violation``
the reference uses without the extension). The core makes its violations without Python's call protocol at all, so
the figure from Python is an upper bound of what the class costs it.

``test_violations_handed_over``: ``toolwire.validate`` of a call with 100 unexpected arguments against a schema that
forbids them (100 ``UNEXPECTED_ARGUMENT`` errors, each with its message and pointer), against the same call with one:
the difference over 99 is the cost per violation found and handed over, search included.

``test_stream_fixed_cost``: one small stream (a text delta, one call, a finish reason) through ``reassemble`` to its
result, with a compiled ``ToolRegistry``: what a stream costs whatever its size.

``test_events_per_fragment``: ``toolwire.events`` over one call of 1,000 fragments (one ``ArgumentsDelta`` each),
with the events built in Rust (``rust/py/events.rs``) and, the same pipeline, as their fallback dataclasses.
"""

from __future__ import annotations

import json

import pytest

import toolwire
from toolwire._model import Severity, ViolationCode, _Violation
from toolwire._pipeline import _progress

FIELDS = (ViolationCode.TYPE_MISMATCH, "expected integer", Severity.ERROR, 0, 3, 7, "/items/0", 12, True, None)
CLASSES = {"rust": toolwire.Violation, "dataclass": _Violation}

FORBIDDING = {"f": {"type": "object", "properties": {}, "additionalProperties": False}}
MEMBERS = (1, 100)


@pytest.mark.parametrize("made_by", list(CLASSES))
def test_violation_values(benchmark, made_by: str) -> None:
    cls = CLASSES[made_by]
    benchmark.group = "values-100-violations"
    made = benchmark(lambda: [cls(*FIELDS) for _ in range(100)])
    assert len(made) == 100 and all(type(value) is cls and value.key() == made[0].key() for value in made)


@pytest.mark.parametrize("members", MEMBERS)
def test_violations_handed_over(benchmark, members: int) -> None:
    arguments = json.dumps({f"k{at}": at for at in range(members)})
    benchmark.group = "values-violations-handed-over"
    benchmark.extra_info.update(violations=members)
    found = benchmark(toolwire.validate, "f", arguments, FORBIDDING)
    assert [violation.path for violation in found] == sorted(f"/k{at}" for at in range(members))
    assert {violation.code for violation in found} == {ViolationCode.UNEXPECTED_ARGUMENT}


def _sse(*chunks: object) -> bytes:
    return b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"


SMALL_STREAM = _sse(
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "On it."}}]},
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
                    ]
                },
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
)


def test_stream_fixed_cost(benchmark) -> None:
    registry = toolwire.ToolRegistry({"f": {"type": "object", "properties": {"a": {"type": "integer"}}}})
    benchmark.group = "values-stream-fixed-cost"

    def one_stream() -> toolwire.StreamResult:
        stream = toolwire.reassemble([SMALL_STREAM], tools=registry)
        for _ in stream:
            pass
        return stream.result

    result = benchmark(one_stream)
    assert [(call.id, call.name, call.arguments) for call in result.calls] == [("c1", "f", {"a": 1})]
    assert result.text == "On it." and result.finish_reason == "tool_calls" and result.ok


EVENT_CLASSES = ("TextDelta", "ToolCallStarted", "ArgumentsDelta", "ToolCallReady", "ToolCallInvalid", "Finished")
FRAGMENTS = 1000


def _fragmented_stream() -> bytes:
    """One call whose arguments come in ``FRAGMENTS`` pieces of 8 characters, as a model streams them."""
    text = json.dumps({"notes": "x" * (8 * FRAGMENTS - 13)})
    head = {"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
    pieces = [text[at : at + 8] for at in range(0, len(text), 8)]
    return _sse(
        {"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]},
        *(
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}
            for piece in pieces
        ),
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    )


@pytest.mark.parametrize("made_by", ["rust", "dataclass"])
def test_events_per_fragment(benchmark, monkeypatch: pytest.MonkeyPatch, made_by: str) -> None:
    """``toolwire.events`` over a call of ``FRAGMENTS`` fragments, its events built in Rust or as the fallback's
    dataclasses (the same pipeline, the classes swapped where ``_progress`` makes its events)."""
    if made_by == "dataclass":
        for name in EVENT_CLASSES:
            monkeypatch.setattr(_progress, name, getattr(_progress, f"_{name}"))
    body = _fragmented_stream()
    benchmark.group = "values-events-per-fragment"
    benchmark.extra_info.update(fragments=FRAGMENTS)
    events = benchmark(lambda: list(toolwire.events([body])))
    deltas = [event for event in events if type(event).__name__ == "ArgumentsDelta"]
    assert len(deltas) == FRAGMENTS
    assert type(events[-1]).__name__ == "Finished" and events[-1].result.calls[0].arguments["notes"].startswith("xx")
    assert made_by == "dataclass" or type(deltas[0]) is toolwire.ArgumentsDelta
