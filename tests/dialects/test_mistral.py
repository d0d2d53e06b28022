"""``mistral``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.mistral import MistralParser

V11 = '[TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{"a": 1}'
PRE_V11 = '[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}, {"arguments": {}, "name": "g", "id": "x"}]'


def events(text: str) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("mistral", text)


@pytest.mark.parametrize("text", [V11, PRE_V11])
@pytest.mark.parametrize("cut", range(1, 30))
def test_markers_split_anywhere_give_the_same_calls(text: str, cut: int) -> None:
    assert merged(parse("mistral", ["Hi ", text[:cut], text[cut:]])) == events("Hi " + text)


def test_each_element_of_the_array_is_handed_over_the_moment_it_closes() -> None:
    parser = MistralParser()
    first = PRE_V11.index("}}") + 2
    assert parser.feed(PRE_V11[:first]) == [Call(0, "f", '{"a":1}', None, whole=True, valid=True)]
    assert parser.feed(PRE_V11[first:]) == [Call(1, "g", "{}", "x", whole=True, valid=True)]
    assert parser.finish() == []


def test_two_v11_calls_and_the_text_around_them_in_one_delta() -> None:
    parser = MistralParser()
    found = parser.feed(f"Before {V11} between [TOOL_CALLS]g{{}} after") + parser.finish()
    assert merged(found) == [
        Text("Before "),
        Call(0, "f", '{"a":1}', "a1b2c3d4e", whole=True, valid=True),
        Text(" between "),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text(" after"),
    ]


def test_prose_that_starts_like_a_call_is_text_and_said() -> None:
    found = events("Use [TOOL_CALLS] then a name.")
    assert "".join(event.text for event in found if isinstance(event, Text)) == "Use [TOOL_CALLS] then a name."
    assert codes(found) == ["MARKER_IN_TEXT"]
    assert codes(events("[TOOL_CALLS] []")) == ["MARKER_IN_TEXT"]
    assert events("a [TOOL or [ARGS] b") == [Text("a [TOOL or [ARGS] b")]


def test_a_cut_call_is_unfinished() -> None:
    assert events('[TOOL_CALLS]f[ARGS]{"a": ') == [
        Finding("CUT", "the stream ended inside the call after [TOOL_CALLS]", 0),
        Call(0, "f", '{"a": ', None, whole=False, valid=False),
    ]
    assert events("[TOOL_CALLS]get_wea") == [
        Finding("CUT", "the stream ended inside the call after [TOOL_CALLS]", 0),
        Call(0, None, "", None, whole=False, valid=False),
    ]
    cut = events('[TOOL_CALLS][{"name": "f", "arguments": {}}, {"name": "g"')
    assert [(event.name, event.valid, event.whole) for event in cut if isinstance(event, Call)] == [
        ("f", True, True),
        ("g", False, False),
    ]
    assert codes(events('[TOOL_CALLS][{"name": "f", "arguments": {}},')) == ["CUT"]


def test_an_array_not_closed_is_said_and_what_follows_is_text() -> None:
    found = events('[TOOL_CALLS][{"name": "f", "arguments": {}} Done.')
    assert codes(found) == ["MISSING_END_MARKER"] and found[-1] == Text("Done.")


def test_broken_arguments_are_an_invalid_call_and_the_rest_is_text() -> None:
    found = events('[TOOL_CALLS]f[ARGS]{"a": ]} ok')
    assert found[:2] == [
        Finding("INVALID_ARGUMENTS", "the arguments are not JSON", 0),
        Call(0, "f", '{"a": ', None, whole=True, valid=False),
    ]
    assert found[2:] == [Text("]} ok")]
    assert codes(events("[TOOL_CALLS]f[ARGS][1]")) == ["INVALID_ARGUMENTS"]


def test_a_call_inside_reasoning_is_reasoning_and_the_prompt_may_open_it() -> None:
    found = merged(parse("mistral", [f"plan {V11}[/THINK]{V11}"], reasoning=True))
    assert found[0] == Reasoning(f"plan {V11}")
    assert [event.id for event in found if isinstance(event, Call)] == ["a1b2c3d4e"]
