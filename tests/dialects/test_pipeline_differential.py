"""``dialect=`` through the whole pipeline: the core and the reference agree, and both give the calls that were written.

Calls are generated, written into a model's text by ``toolwire.dialects.render`` (the chat templates' rules, never a
parser's code) and streamed by ``toolwire.strategies.streams(dialect=...)`` as text deltas, completions chunks,
Ollama generate lines or leaked chat content, split anywhere. Both implementations read each stream; they must hand
over the same calls after the same chunk with the same violations, and the same result; and the calls must be the
ones written (ground truth), valid, with ``CALL_IN_TEXT`` exactly when they leaked into chat content. Hostile
streams (markers in prose, a start marker twice, a cut anywhere) must still agree, and hand over no valid call that
was not written.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
import toolwire.reference as reference
from tests.core.helpers import CountedSource, call_form, error_form, read_all
from tests.support.comparable import strict
from toolwire import Violation
from toolwire.strategies import DIALECT_FORMATS, streams

TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
        "required": ["city"],
    },
    "search": {
        "type": "object",
        "properties": {"q": {"type": "string"}, "filters": {"type": "object"}, "n": {"type": "array"}},
    },
}

_CITIES = st.text(st.characters(codec="utf-8", exclude_characters="<>[]{}|\\`\r"), min_size=1, max_size=12)
CALLS = st.lists(
    st.one_of(
        st.builds(
            lambda city, days, metric: ("get_weather", {"city": city, "days": days, "metric": metric}),
            _CITIES,
            st.integers(-5, 10_000),
            st.booleans(),
        ),
        st.builds(
            lambda q, n: ("search", {"q": q, "filters": {"lang": "en"}, "n": n}),
            _CITIES,
            st.lists(st.integers(0, 9), max_size=3),
        ),
    ),
    min_size=1,
    max_size=3,
)


def nv(violation: Violation) -> tuple[Any, ...]:
    """A violation as both implementations must agree on it (the accumulator's own messages may be worded apart)."""
    return (
        violation.code.value,
        violation.severity.value,
        violation.choice,
        violation.seq,
        violation.index,
        violation.path,
        violation.offset,
        strict(violation.data),
    )


def outcome(module: Any, chunks: list[Any], dialect: str) -> dict[str, Any]:
    """What ``module`` makes of ``chunks``: the calls, after which chunk each came, the result, or the error."""
    handed: list[Any] = []
    positions: list[int] = []
    source = CountedSource(chunks)
    stream = module.reassemble(iter(source), dialect=dialect, tools=TOOLS, on_invalid="yield")
    try:
        result = read_all(stream, source, handed, positions)
        error = None
    except Exception as exc:  # both must fail alike
        result, error = None, exc
    return {
        "handed": [call_form(call, nv) for call in handed],
        "positions": positions,
        "text": None if result is None else result.text,
        "violations": None if result is None else [nv(v) for v in result.violations],
        "output": None if result is None else [(item.after_calls, strict(item.value)) for item in result.output],
        "error": error_form(error),
        "calls": handed,
    }


def agreeing(chunks: list[Any], dialect: str) -> dict[str, Any]:
    core, ref = outcome(toolwire, chunks, dialect), outcome(reference, chunks, dialect)
    assert {k: v for k, v in core.items() if k != "calls"} == {k: v for k, v in ref.items() if k != "calls"}
    return core


@pytest.mark.parametrize("dialect", toolwire.DIALECTS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_streams_of_written_calls_give_those_calls_in_both(dialect: str, data: Any) -> None:
    calls = data.draw(CALLS)
    format = data.draw(st.sampled_from(DIALECT_FORMATS))
    chunks = data.draw(streams(calls, dialect=dialect, format=format))
    out = agreeing(chunks, dialect)
    assert out["error"] is None
    handed = out["calls"]
    assert [(call.name, strict(call.arguments), call.ok) for call in handed] == [
        (name, strict(arguments), True) for name, arguments in calls
    ]
    leaked = format == "openai-chat"
    for call in handed:
        assert [v.code.value for v in call.violations] == (["CALL_IN_TEXT"] if leaked else [])


@pytest.mark.parametrize("dialect", toolwire.DIALECTS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_hostile_streams_agree_and_invent_no_call(dialect: str, data: Any) -> None:
    calls = data.draw(CALLS)
    chunks = data.draw(streams(calls, dialect=dialect, hostile=True))
    out = agreeing(chunks, dialect)
    written = [strict(call) for call in calls]
    for call in out["calls"]:
        if call.ok:
            assert strict((call.name, call.arguments)) in written
