"""``glm45``'s rules the corpus does not pin, and the GLM grammar's, which ``glm47`` shares (``docs/dialects.md``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.glm45 import Glm45Parser

TOOLS: dict[str, dict[str, Any]] = {
    "f": {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}},
    "get": {"type": "object", "properties": {}},
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CALL = (
    "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>1</arg_value>\n"
    "<arg_key>s</arg_key>\n<arg_value>x</arg_value>\n</tool_call>"
)
CALLED = Call(0, "f", '{"n":1,"s":"x"}', None, whole=True, valid=True)
IN_TEXT = Finding("MARKER_IN_TEXT", "<tool_call> was not followed by a name and <arg_key> or </tool_call>", None)


def events(text: str, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("glm45", text, TOOLS, limits=limits)


def calls(found: list[Event]) -> list[Call]:
    return [event for event in found if isinstance(event, Call)]


@pytest.mark.parametrize("cut", range(1, len(CALL) + 6))
def test_a_call_split_anywhere_gives_the_same_call(cut: int) -> None:
    text = f"Hi {CALL} bye"
    assert merged(parse("glm45", [text[:cut], text[cut:]], TOOLS)) == [Text("Hi "), CALLED, Text(" bye")]


def test_a_name_is_known_only_at_its_end_so_a_prefix_is_never_taken_for_it() -> None:
    parser = Glm45Parser(TOOLS)
    assert parser.feed("<tool_call>get") == []
    assert parser.feed("_weather") == []
    assert parser.feed("<arg_key>city</arg_key><arg_value>Paris</arg_value>") == []
    assert parser.feed("</tool_call>") == [Call(0, "get_weather", '{"city":"Paris"}', None, whole=True, valid=True)]
    cut = "<tool_call>get"
    assert events(cut) == [
        Finding("CUT", "the stream ended before </tool_call>", 0),
        Call(0, None, cut, None, False, False),
    ]
    assert calls(events(cut + "\n"))[0].name == "get"


def test_prose_that_starts_like_a_call_is_released_the_moment_it_cannot_be_one() -> None:
    parser = Glm45Parser(TOOLS)
    assert parser.feed("Use <tool_") == [Text("Use ")]
    assert parser.feed("call> like") == []
    assert parser.feed(" this.") == [Text("<tool_call>"), IN_TEXT, Text(" like this.")]
    assert parser.finish() == []
    assert events('<tool_call>{"name": "f"}</tool_call>') == [
        Text("<tool_call>"),
        IN_TEXT,
        Text('{"name": "f"}</tool_call>'),
    ]


def test_a_duplicated_marker_is_text_and_the_call_after_it_stands() -> None:
    found = events("<tool_call>" + CALL)
    assert found == [Text("<tool_call>"), IN_TEXT, CALLED]


def test_two_calls_in_one_delta_are_both_handed_over_and_text_around_them_is_kept() -> None:
    parser = Glm45Parser(TOOLS)
    second = Call(1, "f", '{"n":1,"s":"x"}', None, whole=True, valid=True)
    assert parser.feed(CALL + CALL) == [CALLED, second]
    assert parser.finish() == []
    found = events(f"A {CALL} B {CALL} C")
    assert [event for event in found if isinstance(event, Text)] == [Text("A "), Text(" B "), Text(" C")]


def test_values_are_kept_exactly_and_typed_by_the_schema() -> None:
    text = (
        "<tool_call>f<arg_key>s</arg_key><arg_value>\n a \n</arg_value><arg_key>n</arg_key><arg_value> 7 </arg_value>"
    )
    assert events(text + "</tool_call>") == [Call(0, "f", '{"s":"\\n a \\n","n":7}', None, whole=True, valid=True)]
    untyped = events("<tool_call>f<arg_key>n</arg_key><arg_value>seven</arg_value></tool_call>")
    assert codes(untyped) == ["UNTYPED_VALUE"]
    assert calls(untyped) == [Call(0, "f", '{"n":"seven"}', None, whole=True, valid=False)]


def test_a_value_may_hold_its_end_tag_and_the_markers() -> None:
    value = "a</arg_value> b <tool_call> </think> c"
    text = f"<tool_call>f<arg_key>s</arg_key><arg_value>{value}</arg_value></tool_call>"
    assert events(text) == [Call(0, "f", '{"s":"a</arg_value> b <tool_call> </think> c"}', None, True, True)]


def test_a_damaged_call_is_malformed_with_its_text_and_the_rest_stands() -> None:
    missing_key = "<tool_call>fn</arg_key><arg_value>1</arg_value></tool_call>"
    found = events(missing_key + " ok")
    assert found == [
        Finding("MALFORMED_CALL", '</arg_key> after "fn", where a name and <arg_key> or </tool_call> belong', 0),
        Call(0, None, missing_key, None, whole=True, valid=False),
        Text(" ok"),
    ]
    assert codes(events("<tool_call></tool_call>")) == ["MALFORMED_CALL"]
    no_value = events("<tool_call>f<arg_key>n</arg_key>1</tool_call>")
    assert [(call.name, call.valid) for call in calls(no_value)] == [("f", False)]
    assert no_value[0] == Finding("MALFORMED_CALL", 'the key "n" has no <arg_value>', 0)


def test_a_key_given_twice_keeps_the_first_and_makes_the_call_invalid() -> None:
    pair = "<arg_key>n</arg_key><arg_value>{}</arg_value>"
    found = events(f"<tool_call>f{pair.format(1)}{pair.format(2)}</tool_call>")
    assert codes(found) == ["MALFORMED_CALL"]
    assert calls(found) == [Call(0, "f", '{"n":1}', None, whole=True, valid=False)]


def test_a_cut_call_is_unfinished() -> None:
    cut = "<tool_call>f\n<arg_key>s</arg_key>\n<arg_value>par"
    assert events("Before " + cut) == [
        Text("Before "),
        Finding("CUT", "the stream ended before </tool_call>", 0),
        Call(0, "f", cut, None, whole=False, valid=False),
    ]
    assert calls(events("<tool_call>"))[0] == Call(0, None, "<tool_call>", None, whole=False, valid=False)


def test_a_call_past_the_limit_is_too_large_and_a_name_past_it_is_prose() -> None:
    limits = Limits(max_argument_bytes=64)
    text = "<tool_call>f<arg_key>s</arg_key><arg_value>" + "x" * 100 + "</arg_value></tool_call> after"
    found = events(text, limits)
    assert codes(found) == ["TOO_LARGE"]
    assert calls(found) == [Call(0, "f", "", None, whole=True, valid=False)]
    assert found[-1] == Text(" after")
    spaces = "<tool_call>f<arg_key>s</arg_key><arg_value>a</arg_value>" + " " * 100 + "</tool_call> after"
    assert codes(events(spaces, limits)) == ["TOO_LARGE"]
    parser = Glm45Parser(TOOLS, limits=limits)
    parser.feed(spaces[: spaces.index(" ")] + " " * 1000)
    assert parser.feed("</tool_call>") == [
        Finding("TOO_LARGE", "the call's text passed the limit on a call's bytes", 0),
        Call(0, "f", "", None, whole=True, valid=False),
    ]
    name = "<tool_call>" + "x" * 100 + "<arg_key>"
    assert events(name, limits) == [Text("<tool_call>"), IN_TEXT, Text(name.removeprefix("<tool_call>"))]


def test_a_call_ends_reasoning() -> None:
    found = merged(parse("glm45", ["Plan.\n" + CALL + " done"], TOOLS, reasoning=True))
    assert found == [Reasoning("Plan.\n"), CALLED, Text(" done")]


def test_the_limit_passed_before_a_malformed_call_s_end_tag_leaks_none_of_its_text() -> None:
    # The limit is placed on the character that passes it and the call skipped from there to its end tag, fed whole
    # too: the text after that character was once handed over as text when the end tag came in the same delta.
    text = "<tool_call>f<arg_value>" + "x" * 100 + "</tool_call> after"
    assert events(text, Limits(max_argument_bytes=64)) == [
        Finding("MALFORMED_CALL", '<arg_value> after "f", where a name and <arg_key> or </tool_call> belong', 0),
        Finding("TOO_LARGE", "the call's text passed the limit on a call's bytes", 0),
        Call(0, None, "", None, whole=True, valid=False),
        Text(" after"),
    ]


def test_the_limit_passed_in_the_whitespace_after_a_value_says_the_same_however_the_text_was_split() -> None:
    # A value's pair is made once what follows its end tag is known; the limit passed in the whitespace before that
    # skips the call then, so a key given twice was once said only when the key after it came in the same delta.
    pair = "<arg_key>n</arg_key><arg_value>{}</arg_value>"
    text = f"<tool_call>f{pair.format(1)}{pair.format(2)}" + " " * 100 + "<arg_key>s</arg_key></tool_call>"
    assert codes(events(text, Limits(max_argument_bytes=128))) == ["TOO_LARGE"]
