"""``minimax_m2``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.minimax_m2 import MiniMaxM2Parser

TOOLS: dict[str, dict[str, Any]] = {
    "f": {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}},
}
BLOCK = (
    '<minimax:tool_call>\n<invoke name="f">\n<parameter name="n">1</parameter>\n</invoke>\n'
    '<invoke name="f">\n<parameter name="s">x</parameter>\n</invoke>\n</minimax:tool_call>'
)


def valid(index: int, arguments: str) -> Call:
    return Call(index, "f", arguments, None, whole=True, valid=True)


def events(text: str, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("minimax_m2", text, TOOLS, limits=limits)


@pytest.mark.parametrize("cut", range(1, len(BLOCK)))
def test_a_block_split_anywhere_gives_the_same_calls(cut: int) -> None:
    text = f"Hi {BLOCK} bye"
    found = merged(parse("minimax_m2", [text[: cut + 3], text[cut + 3 :]], TOOLS))
    assert found == [Text("Hi "), valid(0, '{"n":1}'), valid(1, '{"s":"x"}'), Text(" bye")]


def test_two_calls_in_one_delta_are_both_handed_over_at_their_end_tags() -> None:
    parser = MiniMaxM2Parser(TOOLS)
    assert parser.feed(BLOCK[: BLOCK.index("</minimax")]) == [valid(0, '{"n":1}'), valid(1, '{"s":"x"}')]
    assert parser.feed("</minimax:tool_call>") == []
    assert parser.finish() == []


def test_prose_that_starts_like_a_block_is_released_the_moment_it_cannot_be_one() -> None:
    parser = MiniMaxM2Parser(TOOLS)
    assert parser.feed("See <minimax:tool") == [Text("See ")]
    assert parser.feed("s> and <inv") == [Text("<minimax:tools> and ")]
    assert parser.feed("oice>") == [Text("<invoice>")]
    assert parser.finish() == []


def test_values_are_kept_exactly_and_typed_by_the_schema() -> None:
    text = (
        '<minimax:tool_call><invoke name="f"><parameter name="s">\n a </parameter><parameter name="n"> 7 </parameter>'
    )
    assert events(text + "</invoke></minimax:tool_call>") == [valid(0, '{"s":"\\n a ","n":7}')]
    untyped = events('<minimax:tool_call><invoke name="f"><parameter name="n">seven</parameter></invoke>')
    assert codes(untyped) == ["UNTYPED_VALUE", "MISSING_END_MARKER"]


def test_a_value_may_hold_its_end_tag_and_a_run_on_value_ends_at_the_next_parameter() -> None:
    text = '<minimax:tool_call><invoke name="f"><parameter name="s">a</parameter> b</parameter></invoke></minimax:tool_call>'
    assert events(text) == [valid(0, '{"s":"a</parameter> b"}')]
    run_on = events('<invoke name="f"><parameter name="s">a\n<parameter name="n">1</parameter></invoke>')
    assert codes(run_on) == ["MISSING_START_MARKER", "MISSING_END_MARKER"]
    assert [event for event in run_on if isinstance(event, Call)] == [valid(0, '{"s":"a\\n","n":1}')]


def test_an_unquoted_name_is_malformed_and_the_rest_of_the_text_stands() -> None:
    text = '<minimax:tool_call><invoke name=f><parameter name="n">1</parameter></invoke></minimax:tool_call> ok'
    found = events(text)
    assert codes(found) == ["MALFORMED_CALL"]
    assert [call.valid for call in found if isinstance(call, Call)] == [False]
    assert found[-1] == Text(" ok")


def test_a_block_with_no_invoke_is_text() -> None:
    assert events("<minimax:tool_call>hello</minimax:tool_call>") == [
        Text("<minimax:tool_call>"),
        Finding("MARKER_IN_TEXT", "<minimax:tool_call> was not followed by <invoke name=", None),
        Text("hello</minimax:tool_call>"),
    ]


def test_a_cut_call_is_unfinished_and_text_around_calls_is_kept() -> None:
    cut = '<minimax:tool_call><invoke name="f"><parameter name="s">par'
    assert events("Before " + cut) == [
        Text("Before "),
        Finding("CUT", "the stream ended before </invoke>", 0),
        Call(0, "f", cut, None, whole=False, valid=False),
    ]
    found = events(f"A {BLOCK} B {BLOCK} C")
    assert [event for event in found if isinstance(event, Text)] == [Text("A "), Text(" B "), Text(" C")]


def test_a_call_inside_reasoning_is_reasoning_text() -> None:
    found = merged(parse("minimax_m2", ["Plan " + BLOCK + "</think>ok"], TOOLS, reasoning=True))
    assert found == [Reasoning("Plan " + BLOCK), Text("ok")]


def test_a_call_past_the_limit_is_too_large() -> None:
    text = '<minimax:tool_call><invoke name="f"><parameter name="s">' + "x" * 100 + "</parameter></invoke> after"
    found = events(text, Limits(max_argument_bytes=64))
    assert codes(found) == ["TOO_LARGE", "MISSING_END_MARKER"]
    assert [call.valid for call in found if isinstance(call, Call)] == [False]
    assert found[-1] == Text(" after")
