"""``streams(calls, dialect=...)``: calls written into a model's text, read back through the reference's parsers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from tests.support.comparable import strict
from toolwire.dialects import STYLES
from toolwire.reference.dialects import Call, Finding, merged, parse
from toolwire.strategies import DIALECT_FORMATS, streams

CALLS = [("get_weather", {"city": "Paris", "days": 3}), ("search", {"q": "</parameter> a < b", "n": [1.5, None]})]
TOOLS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
    "search": {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "array"}}},
}


def _text(chunks: list[Any], format: str) -> list[str]:
    """The text deltas a source of ``format`` carries."""
    if format == "text":
        return chunks
    if format == "openai-completions":
        return [choice["text"] for chunk in chunks for choice in chunk["choices"]]
    if format == "ollama":
        return [line["response"] for line in chunks]
    return [choice["delta"].get("content") or "" for chunk in chunks for choice in chunk["choices"]]


@pytest.mark.parametrize("dialect", sorted(STYLES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_streamed_text_reads_back_as_the_calls(dialect: str, data: Any) -> None:
    format = data.draw(st.sampled_from(DIALECT_FORMATS))
    chunks = data.draw(streams(CALLS, dialect=dialect, format=format))
    events = merged(parse(dialect, _text(chunks, format), TOOLS))
    assert not [event for event in events if isinstance(event, Finding)]
    calls = [event for event in events if isinstance(event, Call)]
    assert [(c.name, strict(json.loads(c.arguments)), c.valid) for c in calls] == [
        (name, strict(arguments), True) for name, arguments in CALLS
    ]


@pytest.mark.parametrize("dialect", sorted(STYLES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_hostile_text_hands_over_no_call_it_was_not_given(dialect: str, data: Any) -> None:
    chunks = data.draw(streams(CALLS, dialect=dialect, hostile=True))
    events = parse(dialect, chunks, TOOLS)
    given_calls = [strict(call) for call in CALLS]
    for event in events:
        if isinstance(event, Call) and event.valid:
            assert strict((event.name, json.loads(event.arguments))) in given_calls
    assert merged(parse(dialect, ["".join(chunks)], TOOLS)) == merged(events)


def test_a_completions_stream_reassembles_as_text() -> None:
    @settings(max_examples=10, deadline=None)
    @given(streams(CALLS[:1], dialect="hermes", format="openai-completions", extras=False, finish=True))
    def check(chunks: list[Any]) -> None:
        stream = toolwire.reassemble(chunks, format="openai-completions")
        assert list(stream) == []  # without dialect=, the calls written into the text are text
        assert '"get_weather"' in stream.result.text

    check()


def test_misuse_is_refused() -> None:
    with pytest.raises(ValueError, match="dialect must be one of"):
        streams(CALLS, dialect="nope")
    with pytest.raises(ValueError, match="format must be one of text"):
        streams(CALLS, dialect="hermes", format="gemini")
    with pytest.raises(ValueError, match="pass dialect= too"):
        streams(CALLS, hostile=True)
    with pytest.raises(ValueError, match=r"pythonic \(bare\): calls\[0\] \('get-x'\)"):
        streams([("get-x", {})], dialect="pythonic")
    with pytest.raises(ValueError, match=r"a Kimi call id is functions\.f:IDX"):
        streams([("f", {}, "call_1")], dialect="kimi_k2")
