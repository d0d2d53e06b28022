"""``pythonic``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import json

import pytest

from tests.dialects.helpers import fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Text, merged, parse
from toolwire.reference.dialects.pythonic import PythonicParser

CALL = "[f(a=1), g(b='x')]"


def valid(index: int, name: str, arguments: str) -> Call:
    return Call(index, name, arguments, None, whole=True, valid=True)


def events(text: str, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("pythonic", text, limits=limits)


def arguments(text: str) -> object:
    """The arguments of the one call of ``[f(<text>)]``, which must be valid."""
    (call,) = [event for event in events(f"[f({text})]") if isinstance(event, Call)]
    assert call.valid, events(f"[f({text})]")
    return json.loads(call.arguments)


def refused(text: str) -> list[str]:
    """The findings of the one call of ``[f(<text>)]``, which must be invalid."""
    found = events(f"[f({text})]")
    assert [event.valid for event in found if isinstance(event, Call)] == [False]
    return [event.code for event in found if isinstance(event, Finding)]


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("'it\\'s'", "it's"),
        ('"say \\"hi\\""', 'say "hi"'),
        ("'''a ' '' b'''", "a ' '' b"),
        ('""', ""),
        ("'a' \"b\"", "ab"),
        ("r'\\d\\''", "\\d\\'"),
        ("u'x'", "x"),
        ("'\\x41\\u00e9\\U0001F600\\101\\q'", "A\u00e9\U0001f600A\\q"),
        ("'line\\\nnext'", "linenext"),
        ("1_000", 1000),
        ("0x1F", 31),
        ("-0o17", -15),
        ("0b101", 5),
        ("2.5e-3", 0.0025),
        ("-.5", -0.5),
        ("True", True),
        ("False", False),
        ("None", None),
        ("(1, 'a')", [1, "a"]),
        ("(1,)", [1]),
        ("()", []),
        ("(7)", 7),
        ("[1, [2, [3]],]", [1, [2, [3]]]),
        ("{'k': {'n': [None]}, 'e': {}}", {"k": {"n": [None]}, "e": {}}),
        ("'])}'", "])}"),
    ],
)
def test_python_literals_are_converted_exactly(literal: str, value: object) -> None:
    assert arguments(f"a={literal}") == {"a": value}


@pytest.mark.parametrize(
    ("literal", "text"),
    [
        ("1.50", "1.50"),
        ("1E5", "1E5"),
        (".5", "0.5"),
        ("5.", "5.0"),
        ("-0", "0"),
        ("-0.0", "-0.0"),
        ("0x10", "16"),
        ("('é', True, None)", '["é",true,null]'),
    ],
)
def test_python_literals_are_written_as_the_json_text_of_the_same_value(literal: str, text: str) -> None:
    (call,) = [event for event in events(f"[f(a={literal})]") if isinstance(event, Call)]
    assert call.arguments == f'{{"a":{text}}}'


@pytest.mark.parametrize(
    ("literal", "code"),
    [
        ("b'x'", "INVALID_ARGUMENTS"),
        ("f'{x}'", "INVALID_ARGUMENTS"),
        ("{1, 2}", "INVALID_ARGUMENTS"),
        ("1e999", "INVALID_ARGUMENTS"),
        ("-1e999", "INVALID_ARGUMENTS"),
        ("float('nan')", "INVALID_ARGUMENTS"),
        ("2j", "INVALID_ARGUMENTS"),
        ("x", "INVALID_ARGUMENTS"),
        ("1 + 2", "INVALID_ARGUMENTS"),
        ("{1: 'a'}", "INVALID_ARGUMENTS"),
        ("{'k': 1, 'k': 2}", "INVALID_ARGUMENTS"),
        ("'\\ud800'", "INVALID_ARGUMENTS"),
        ("'\\x4'", "INVALID_ARGUMENTS"),
        ("...", "INVALID_ARGUMENTS"),
        ("-True", "INVALID_ARGUMENTS"),
        ("007", "INVALID_ARGUMENTS"),
        ("'\\N{BULLET}'", "INVALID_ARGUMENTS"),
        ("0x" + "f" * 3600, "INVALID_ARGUMENTS"),
    ],
)
def test_values_with_no_json_form_make_the_call_invalid(literal: str, code: str) -> None:
    assert refused(f"a={literal}") == [code]


@pytest.mark.parametrize("text", ["1", "a=1, a=2", "a==1", "*args", "**kw"])
def test_arguments_that_are_not_keywords_make_the_call_malformed(text: str) -> None:
    found = events(f"<|python_start|>[f({text})]<|python_end|>")
    assert [event.code for event in found if isinstance(event, Finding)] == ["MALFORMED_CALL"]


def test_an_invalid_call_keeps_its_text_and_its_siblings_stand() -> None:
    assert events("[f(a=b'x'), g()]") == [
        Finding("INVALID_ARGUMENTS", "a bytes literal has no JSON form", 0),
        Call(0, "f", "f(a=b'x')", None, whole=True, valid=False),
        valid(1, "g", "{}"),
    ]


@pytest.mark.parametrize("cut", range(1, len("<|python_start|>" + CALL + "<|python_end|>")))
def test_a_wrapped_list_split_anywhere_gives_the_same_calls(cut: int) -> None:
    text = "Hi <|python_start|>" + CALL + "<|python_end|> bye"
    found = merged(parse("pythonic", [text[: cut + 3], text[cut + 3 :]]))
    assert found == [Text("Hi "), valid(0, "f", '{"a":1}'), valid(1, "g", '{"b":"x"}'), Text(" bye")]


def test_prose_that_starts_like_a_list_is_released_the_moment_it_cannot_be_one() -> None:
    parser = PythonicParser()
    assert parser.feed("See [") == [Text("See ")]
    assert parser.feed("note") == []
    assert parser.feed("] and [1] and [x") == [Text("[note"), Text("] and "), Text("["), Text("1] and ")]
    assert parser.feed(" y") == [Text("[x"), Text(" y")]
    assert parser.finish() == []


def test_a_bare_list_whose_first_call_is_not_one_is_text() -> None:
    for prose in ("[f(x)]", "[see(the note)]", "[Note(it is 'here')]"):
        found = events(f"Read {prose} now")
        assert "".join(event.text for event in found if isinstance(event, Text)) == f"Read {prose} now"
        assert [event.code for event in found if isinstance(event, Finding)] == ["MARKER_IN_TEXT"]
    assert events("[f (a=1)] [link](url)") == [Text("[f (a=1)] [link](url)")]


def test_two_calls_in_one_delta_are_both_handed_over_at_their_close() -> None:
    parser = PythonicParser()
    assert parser.feed("[f(a=1), g(b='x'), h(") == [valid(0, "f", '{"a":1}'), valid(1, "g", '{"b":"x"}')]
    assert parser.feed(")]") == [valid(2, "h", "{}")]
    assert parser.finish() == []


def test_text_around_and_between_lists_is_kept() -> None:
    assert events("Before [f()] between [g()] after") == [
        Text("Before "),
        valid(0, "f", "{}"),
        Text(" between "),
        valid(1, "g", "{}"),
        Text(" after"),
    ]


def test_a_trailing_comma_closes_the_list_and_an_element_that_is_no_call_ends_it() -> None:
    assert events("[f(), ] x") == [valid(0, "f", "{}"), Text(" x")]
    assert events("[f(), 3] x") == [
        valid(0, "f", "{}"),
        Finding("MALFORMED_CALL", "\"3\" where a call's name or its '(' belongs", 1),
        Call(1, None, "", None, whole=True, valid=False),
        Text("3] x"),
    ]


def test_a_list_not_closed_and_a_wrapper_not_ended_keep_their_calls_with_a_warning() -> None:
    assert events("[f() and so on") == [
        valid(0, "f", "{}"),
        Finding("MISSING_END_MARKER", "the call list was not closed by ']' before \"a\"", 0),
        Text(" and so on"),
    ]
    assert events("<|tool_call_start|>[f()] done") == [
        valid(0, "f", "{}"),
        Finding("MISSING_END_MARKER", "no <|tool_call_end|> after the call list", 0),
        Text(" done"),
    ]


def test_a_wrapper_not_followed_by_a_list_or_around_an_empty_one_is_text() -> None:
    assert events("<|python_start|>print(1)") == [
        Text("<|python_start|>"),
        Finding("MARKER_IN_TEXT", "<|python_start|> was not followed by a list; kept as text", None),
        Text("print(1)"),
    ]
    assert [type(event) for event in events("<|python_start|>[]<|python_end|>")] == [Text, Finding, Text]


def test_a_cut_call_is_unfinished_and_a_cut_head_is_text() -> None:
    assert events("[f(a='x") == [
        Finding("CUT", "the stream ended inside the call", 0),
        Call(0, "f", "f(a='x", None, whole=False, valid=False),
    ]
    assert events("Use [get_wea") == [Text("Use [get_wea")]
    assert events("[f(), g(a=1)") == [
        valid(0, "f", "{}"),
        valid(1, "g", '{"a":1}'),
        Finding("CUT", "the stream ended inside the call list", None),
    ]
    assert events("<|python_start|>[f(), ge") == [
        valid(0, "f", "{}"),
        Finding("CUT", "the stream ended before the call's name", 1),
        Call(1, None, "ge", None, whole=False, valid=False),
    ]


def test_a_newline_in_a_one_line_string_breaks_the_call() -> None:
    assert events("<|python_start|>[f(a='x\ny')]") == [
        Finding("MALFORMED_CALL", "the call's brackets or quotes break here", 0),
        Call(0, "f", "f(a='x", None, whole=True, valid=False),
        Text("\ny')]"),
    ]
    assert arguments("a='''x\ny'''") == {"a": "x\ny"}


def test_a_call_inside_reasoning_is_reasoning_text() -> None:
    found = events("<think>maybe [f(a=1)]</think>[g()]")
    assert [event for event in found if isinstance(event, Call)] == [valid(0, "g", "{}")]


def test_hostile_nesting_and_size_are_bounded() -> None:
    deep = "[f(a=" + "[" * 300 + "]" * 300 + ")]"
    found = events(deep, Limits(max_depth=64))
    assert not any(isinstance(event, Call) for event in found)
    assert "".join(event.text for event in found if isinstance(event, Text)) == deep
    wrapped = events("<|python_start|>" + deep, Limits(max_depth=64))
    assert [event.code for event in wrapped if isinstance(event, Finding)] == ["MALFORMED_CALL"]
    big = events("[f(a='" + "x" * 100 + "')] after", Limits(max_argument_bytes=64))
    assert big == [
        Finding("TOO_LARGE", "the call's text passed the limit on a call's bytes", 0),
        Call(0, "f", "", None, whole=True, valid=False),
        Text(" after"),
    ]


def test_a_name_is_ascii_letters_digits_and_underscores_only() -> None:
    # The Kelvin sign and the dotted capital I lower to ASCII letters; they are no ASCII letters themselves.
    for name in ("\u212a", "f\u0130"):
        assert events(f"[{name}(a=1)]") == [Text(f"[{name}(a=1)]")]


def test_a_bare_list_past_the_byte_limit_is_held_as_calls_however_it_was_fed() -> None:
    # Fed whole, the extent passes the limit and breaks in one reading: the list is calls all the same.
    assert events("[f(a='" + "x" * 40 + "']] tail", Limits(max_argument_bytes=16)) == [
        Finding("MALFORMED_CALL", "the call's brackets or quotes break here", 0),
        Call(0, "f", "f(", None, whole=True, valid=False),
        Text("]] tail"),
    ]
