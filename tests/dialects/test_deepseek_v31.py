"""``deepseek_v31``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects._deepseek import CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, SEP
from toolwire.reference.dialects.deepseek_v31 import DeepSeekV31Parser


def call(name: str, arguments: str) -> str:
    return f"{CALL_BEGIN}{name}{SEP}{arguments}{CALL_END}"


def section(*calls: str) -> str:
    return f"{CALLS_BEGIN}{''.join(calls)}{CALLS_END}"


TWO = section(call("f", '{"a": "x}y"}'), call("g", "{}"))


def events(text: str, *, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("deepseek_v31", text, limits=limits)


@pytest.mark.parametrize("cut", range(1, len(TWO)))
def test_markers_split_anywhere_give_the_same_calls(cut: int) -> None:
    assert merged(parse("deepseek_v31", ["Hi ", TWO[:cut], TWO[cut:], " bye"])) == events(f"Hi {TWO} bye")


def test_two_calls_and_the_text_around_them_in_one_delta() -> None:
    parser = DeepSeekV31Parser()
    assert merged(parser.feed(f"Before {TWO} after") + parser.finish()) == [
        Text("Before "),
        Call(0, "f", '{"a":"x}y"}', None, whole=True, valid=True),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text(" after"),
    ]


def test_prose_that_starts_like_a_call_is_text() -> None:
    assert events(f"the {CALL_BEGIN[:6]} token") == [Text(f"the {CALL_BEGIN[:6]} token")]
    # A call marker outside a section is not a call (no DeepSeek template writes one there).
    assert events(call("f", "{}")) == [Text(call("f", "{}"))]


def test_a_block_without_call_markers_is_a_malformed_call_named_when_it_writes_a_name() -> None:
    found = events(f'{CALLS_BEGIN}f{SEP}{{"x": 1}}{CALLS_END}ok')
    assert found == [
        Finding("MALFORMED_CALL", f"no {CALL_BEGIN} opens the call", 0),
        Call(0, "f", f'f{SEP}{{"x": 1}}', None, whole=True, valid=False),
        Text("ok"),
    ]


def test_a_missing_call_end_is_said_and_the_next_call_stands() -> None:
    found = events(f'{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{"a": 1}}{call("g", "{}")}{CALLS_END}')
    assert found == [
        Call(0, "f", '{"a":1}', None, whole=True, valid=True),
        Finding("MISSING_END_MARKER", f"no {CALL_END} after the call", 0),
        Call(1, "g", "{}", None, whole=True, valid=True),
    ]


def test_text_after_a_call_ends_the_section_and_is_text() -> None:
    found = events(f"{CALLS_BEGIN}{call('f', '{}')} Done.")
    assert codes(found) == ["MISSING_END_MARKER"] and found[-1] == Text("Done.")


def test_a_cut_call_is_unfinished_with_its_name_once_the_separator_was_read() -> None:
    assert events(f'{CALLS_BEGIN}{CALL_BEGIN}get_weather{SEP}{{"city": "Par') == [
        Finding("CUT", f"the stream ended before {CALL_END}", 0),
        Call(0, "get_weather", f'{CALL_BEGIN}get_weather{SEP}{{"city": "Par', None, whole=False, valid=False),
    ]
    assert events(f"{CALLS_BEGIN}{CALL_BEGIN}get_wea")[-1] == Call(
        0, None, f"{CALL_BEGIN}get_wea", None, whole=False, valid=False
    )


def test_hostile_arguments_are_invalid_calls() -> None:
    assert codes(events(section(call("f", '{"a": 1, "a": 2}')))) == ["INVALID_ARGUMENTS"]
    assert codes(events(section(call("f", '"{}"')))) == ["INVALID_ARGUMENTS"]
    assert codes(events(section(call("f", "{" * 5 + "}" * 5)), limits=Limits(max_depth=3))) == ["INVALID_ARGUMENTS"]
    large = events(
        section(call("f", '{"a": "' + "x" * 100 + '"}'), call("g", "{}")), limits=Limits(max_argument_bytes=64)
    )
    assert codes(large) == ["TOO_LARGE"]
    assert [(event.name, event.valid) for event in large if isinstance(event, Call)] == [("f", False), ("g", True)]


def test_reasoning_is_closed_by_think_and_a_call_inside_it_is_reasoning() -> None:
    found = merged(parse("deepseek_v31", [f"plan {TWO}</think>CONTENT{TWO}"], reasoning=True))
    assert found[:2] == [Reasoning(f"plan {TWO}"), Text("CONTENT")]
    assert codes(merged(parse("deepseek_v31", ["still thinking"], reasoning=True))) == ["REASONING_CUT"]
