"""``glm47``'s rules the corpus does not pin; the GLM grammar's are ``test_glm45.py``'s (``docs/dialects.md``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dialects.helpers import fed_both_ways
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.glm47 import Glm47Parser

TOOLS: dict[str, dict[str, Any]] = {
    "f": {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}},
}
CALL = (
    "<tool_call>f<arg_key>n</arg_key><arg_value>1</arg_value><arg_key>s</arg_key><arg_value>x</arg_value></tool_call>"
)


def valid(index: int, name: str, arguments: str) -> Call:
    return Call(index, name, arguments, None, whole=True, valid=True)


def events(text: str, reasoning: bool = False) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("glm47", text, TOOLS, reasoning=reasoning)


@pytest.mark.parametrize("cut", range(1, len(CALL) * 2))
def test_two_calls_with_no_whitespace_split_anywhere_give_the_same_calls(cut: int) -> None:
    text = CALL + CALL
    assert merged(parse("glm47", [text[:cut], text[cut:]], TOOLS)) == [
        valid(0, "f", '{"n":1,"s":"x"}'),
        valid(1, "f", '{"n":1,"s":"x"}'),
    ]


def test_a_call_with_no_arguments_is_handed_over_at_its_end_tag() -> None:
    parser = Glm47Parser(TOOLS)
    assert parser.feed("Now.<tool_call>f") == [Text("Now.")]
    assert parser.feed("</tool_call") == []
    assert parser.feed(">") == [valid(0, "f", "{}")]
    assert parser.finish() == []


def test_the_glm45_layout_parses_too() -> None:
    text = "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    assert events(text) == [valid(0, "f", '{"n":1}')]


def test_a_call_inside_reasoning_is_reasoning_text() -> None:
    assert events("Plan " + CALL + "</think>ok", reasoning=True) == [Reasoning("Plan " + CALL), Text("ok")]
    assert events("Plan " + CALL, reasoning=True) == [
        Reasoning("Plan " + CALL),
        Finding("REASONING_CUT", "the stream ended inside reasoning", None),
    ]
    assert events("<think>a</think>" + CALL) == [Reasoning("a"), valid(0, "f", '{"n":1,"s":"x"}')]
