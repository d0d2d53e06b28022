"""``llama3_json``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Text, merged, parse
from toolwire.reference.dialects.llama3_json import Llama3JsonParser

CALL = '{"name": "f", "parameters": {"a": 1}}'


def valid(index: int, name: str, arguments: str) -> Call:
    return Call(index, name, arguments, None, whole=True, valid=True)


def events(text: str, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("llama3_json", text, limits=limits)


def test_prose_that_starts_like_a_call_is_released_the_moment_it_cannot_be_one() -> None:
    parser = Llama3JsonParser()
    assert parser.feed('{"na') == []
    assert parser.feed("sty") == [Text('{"na'), Text("sty")]
    assert parser.feed(" {x} and {") == [Text(" "), Text("{"), Text("x} and ")]
    assert parser.feed(' "query": 1}') == [Text('{ "'), Text('query": 1}')]
    assert parser.finish() == []


def test_a_bare_object_with_a_call_head_is_held_to_its_close_and_is_text_without_arguments() -> None:
    text = 'Say {"name": "f", "other": 1} now'
    assert events(text) == [
        Text('Say {"name": "f", "other": 1}'),
        Finding("MARKER_IN_TEXT", "a JSON object that began as a call is not one; kept as text", None),
        Text(" now"),
    ]


@pytest.mark.parametrize("cut", range(1, len(CALL)))
def test_a_call_split_anywhere_is_one_call(cut: int) -> None:
    found = merged(parse("llama3_json", ["Hi ", "<|python_tag|>" + CALL[:cut], CALL[cut:]]))
    assert found == [Text("Hi "), valid(0, "f", '{"a":1}')]


@pytest.mark.parametrize("cut", range(1, len("<|python_tag|>")))
def test_the_tag_split_anywhere_is_one_tag(cut: int) -> None:
    text = "<|python_tag|>" + CALL
    assert merged(parse("llama3_json", [text[:cut], text[cut:]])) == [valid(0, "f", '{"a":1}')]


def test_two_calls_in_one_delta_are_both_handed_over() -> None:
    parser = Llama3JsonParser()
    assert parser.feed(f"{CALL};{CALL.replace('f', 'g')}") == [valid(0, "f", '{"a":1}'), valid(1, "g", '{"a":1}')]


def test_a_separator_no_call_follows_is_text() -> None:
    assert events(f"{CALL} ; then prose") == [valid(0, "f", '{"a":1}'), Text(" ; then prose")]
    assert events(f"{CALL};") == [valid(0, "f", '{"a":1}'), Text(";")]


def test_after_a_separator_the_next_object_is_read_as_the_one_before() -> None:
    tagged = events(f'<|python_tag|>{CALL}; {{"query": 1}}')
    assert [type(event) for event in tagged][-1] is Call and codes(tagged).count("MALFORMED_CALL") == 3
    bare = events(f'{CALL}; {{"query": 1}}')
    assert bare == [valid(0, "f", '{"a":1}'), Text('; {"query": 1}')]


def test_a_cut_call_is_unfinished_and_a_cut_head_is_text() -> None:
    cut = '{"name": "f", "parameters": {"a"'
    assert events(cut) == [
        Finding("CUT", "the stream ended inside the call", 0),
        Call(0, "f", cut, None, whole=False, valid=False),
    ]
    assert events('Use {"nam') == [Text('Use {"nam')]
    assert events("<|python_tag|>") == [
        Finding("CUT", "the stream ended inside the call", 0),
        Call(0, None, "", None, whole=False, valid=False),
    ]


def test_a_broken_object_after_the_tag_is_an_invalid_call_and_the_rest_is_text() -> None:
    found = events('<|python_tag|>{"name": "f", "parameters": {]} ok')
    assert found == [
        Finding("MALFORMED_CALL", "the call is not JSON", 0),
        Call(0, "f", '{"name": "f", "parameters": {', None, whole=True, valid=False),
        Text("]} ok"),
    ]


def test_a_call_past_the_limit_is_too_large_not_text() -> None:
    text = '{"name": "f", "parameters": {"text": "' + "x" * 100 + '"}} after'
    found = events(text, Limits(max_argument_bytes=64))
    assert codes(found) == ["TOO_LARGE"]
    assert [event for event in found if isinstance(event, Call)] == [Call(0, None, "", None, whole=True, valid=False)]
    assert found[-1] == Text(" after")


def test_text_around_and_between_calls_is_kept() -> None:
    assert events(f"Before {CALL}\nbetween <|python_tag|>{CALL} after") == [
        Text("Before "),
        valid(0, "f", '{"a":1}'),
        Text("\nbetween "),
        valid(1, "f", '{"a":1}'),
        Text(" after"),
    ]
