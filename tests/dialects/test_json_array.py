"""The "marker + JSON array" dialects' rules the corpus does not pin (``granite``, ``phi4_mini``, ``xlam``, ``apriel``,
``cohere_command``; ``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.granite import GraniteParser

GRANITE = '<|tool_call|>[{"arguments": {"a": 1}, "name": "f"}, {"name": "g", "arguments": {}}]'
COHERE = (
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}, '
    '{"tool_call_id": "1", "tool_name": "g", "parameters": {}}]<|END_ACTION|>'
)


def valid(index: int, name: str, arguments: str, call_id: str | None = None) -> Call:
    return Call(index, name, arguments, call_id, whole=True, valid=True)


@pytest.mark.parametrize(("dialect", "text"), [("granite", GRANITE), ("cohere_command", COHERE)])
@pytest.mark.parametrize("cut", range(1, 40))
def test_markers_split_anywhere_give_the_same_calls(dialect: str, text: str, cut: int) -> None:
    assert merged(parse(dialect, ["Hi ", text[:cut], text[cut:], " bye"])) == fed_both_ways(dialect, f"Hi {text} bye")


def test_each_element_is_handed_over_the_moment_it_closes_arguments_first_or_not() -> None:
    parser = GraniteParser()
    first = GRANITE.index("}, {") + 1
    assert parser.feed(GRANITE[:first]) == [valid(0, "f", '{"a":1}')]
    assert parser.feed(GRANITE[first:]) == [valid(1, "g", "{}")]
    assert parser.finish() == []


def test_text_around_an_unclosed_granite_array_is_text() -> None:
    found = fed_both_ways("granite", f"Let me check.\n<tool_call> {GRANITE[len('<|tool_call|>') :]}\nDone.")
    assert found == [Text("Let me check.\n"), valid(0, "f", '{"a":1}'), valid(1, "g", "{}"), Text("\nDone.")]


def test_cohere_keys_ids_reasoning_and_the_markers_that_frame_text() -> None:
    found = fed_both_ways(
        "cohere_command", f"<|START_THINKING|>plan<|END_THINKING|>{COHERE}<|START_RESPONSE|>ok<|END_RESPONSE|>"
    )
    assert found == [Reasoning("plan"), valid(0, "f", '{"a":1}', "0"), valid(1, "g", "{}", "1"), Text("ok")]
    # Its keys are Cohere's: a call written with "name" and "arguments" has no name, no arguments, and two strangers.
    found = fed_both_ways("cohere_command", '<|START_ACTION|>[{"name": "f", "arguments": {}}]<|END_ACTION|>')
    assert codes(found) == ["MALFORMED_CALL"] * 3
    assert [event.valid for event in found if isinstance(event, Call)] == [False]


def test_a_missing_end_marker_is_said_and_what_came_instead_is_text() -> None:
    found = fed_both_ways("apriel", '<tool_calls>[{"name": "f", "arguments": {}}] \nthen')
    assert found == [
        valid(0, "f", "{}"),
        Finding("MISSING_END_MARKER", "the array of calls was not followed by </tool_calls>", 0),
        Text(" \nthen"),
    ]
    # The stream ending between the array and its end marker is the same finding.
    found = fed_both_ways("apriel", '<tool_calls>[{"name": "f", "arguments": {}}]  </tool_')
    assert codes(found) == ["MISSING_END_MARKER"]
    assert found[-1] == Text("  </tool_")


def test_xlam_reads_a_bare_array_only_when_a_call_starts_it() -> None:
    bare = '[{"arguments": {"a": 1}, "name": "f"}]'
    assert fed_both_ways("xlam", f"x {bare} y") == [Text("x "), valid(0, "f", '{"a":1}'), Text(" y")]
    assert fed_both_ways("xlam", '[{ "name" :"f","arguments":{}}]') == [valid(0, "f", "{}")]
    # Prose with brackets and braces is released as text the moment it cannot be a call, and says nothing.
    for prose in ("[{1, 2}] and [{}]", '[{"x": 1}]', '[{"nam', '[{"name" x'):
        assert fed_both_ways("xlam", prose) == [Text(prose)]
    fenced = '```json\n[{"name": "f", "arguments": {}}]\n```'
    assert fed_both_ways("xlam", f"Sure.\n{fenced}") == [Text("Sure.\n"), valid(0, "f", "{}")]
    tagged = '<tool_call>[{"name": "f", "arguments": {}}]</tool_call>'
    assert fed_both_ways("xlam", f"<think>hm</think>{tagged}") == [Reasoning("hm"), valid(0, "f", "{}")]


def test_a_marker_no_array_follows_is_text_and_said() -> None:
    found = fed_both_ways("phi4_mini", "Python's functools module is useful.")
    assert found == [
        Text("Python's functools "),
        Finding("MARKER_IN_TEXT", "functools was not followed by a JSON array", None),
        Text("module is useful."),
    ]
    found = fed_both_ways("granite", "<|tool_call|> [ ] ok")
    assert found == [
        Text("<|tool_call|> [ ]"),
        Finding("MARKER_IN_TEXT", "<|tool_call|> was followed by an empty array", None),
        Text(" ok"),
    ]


def test_what_the_stream_cuts_is_cut() -> None:
    found = fed_both_ways("phi4_mini", 'functools[{"name": "f", "argu')
    assert found == [
        Finding("CUT", "the stream ended inside the call", 0),
        Call(0, "f", '{"name": "f", "argu', None, whole=False, valid=False),
    ]
    found = fed_both_ways("granite", "<tool_call> ")
    assert found == [
        Finding("CUT", "the stream ended inside the call after <tool_call>", 0),
        Call(0, None, "", None, whole=False, valid=False),
    ]
    found = fed_both_ways("granite", '<tool_call>[{"name": "f", "arguments": {}},')
    assert codes(found) == ["CUT"]
    found = fed_both_ways("granite", '<tool_call>[{"name": "f", "arguments": {}}')
    assert found[-1] == Finding("MISSING_END_MARKER", "the array of calls was not closed by ']'", 0)


def test_a_broken_element_ends_the_array_and_what_follows_is_text() -> None:
    found = fed_both_ways("granite", '<tool_call>[{"name": "f", x}]')
    assert found == [
        Finding("MALFORMED_CALL", "the call is not JSON", 0),
        Call(0, "f", '{"name": "f", ', None, whole=True, valid=False),
        Text("x}]"),
    ]


def test_a_bare_head_past_the_byte_limit_is_text() -> None:
    text = "[{" + " " * 20 + '"name": "f", "arguments": {}}]'
    assert fed_both_ways("xlam", text, limits=Limits(max_argument_bytes=16)) == [Text(text)]


def test_whitespace_held_after_a_marker_or_an_array_is_bounded_by_the_byte_limit() -> None:
    limits = Limits(max_argument_bytes=32)
    spaces = " " * 40
    assert merged(parse("apriel", ["<tool_calls>", spaces, "[]"], limits=limits)) == [
        Text("<tool_calls>" + spaces),
        Finding("MARKER_IN_TEXT", "<tool_calls> was not followed by a JSON array", None),
        Text("[]"),
    ]
    array = '<tool_calls>[{"name": "f", "arguments": {}}]'
    assert merged(parse("apriel", [array, spaces, "</tool_calls>"], limits=limits)) == [
        Call(0, "f", "{}", None, whole=True, valid=True),
        Finding("MISSING_END_MARKER", "the array of calls was not followed by </tool_calls>", 0),
        Text(spaces + "</tool_calls>"),
    ]
