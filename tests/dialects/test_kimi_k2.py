"""``kimi_k2``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.kimi_k2 import (
    ARGUMENT_BEGIN,
    CALL_BEGIN,
    CALL_END,
    SECTION_BEGIN,
    SECTION_BEGIN_SINGULAR,
    SECTION_END,
    KimiK2Parser,
    call_id,
)


def call(call_id: str, arguments: str) -> str:
    return f"{CALL_BEGIN}{call_id}{ARGUMENT_BEGIN}{arguments}{CALL_END}"


def section(*calls: str) -> str:
    return f"{SECTION_BEGIN}{''.join(calls)}{SECTION_END}"


TWO = section(call("functions.f:0", '{"a": "x}<|tool_call_end|>y"}'), call("functions.g:1", "{}"))


def events(text: str, *, limits: Limits | None = None, reasoning: bool = False) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("kimi_k2", text, limits=limits, reasoning=reasoning)


@pytest.mark.parametrize("cut", range(1, len(TWO)))
def test_markers_split_anywhere_give_the_same_calls(cut: int) -> None:
    assert merged(parse("kimi_k2", ["Hi ", TWO[:cut], TWO[cut:], " bye"])) == events(f"Hi {TWO} bye")


def test_two_calls_and_the_text_around_them_in_one_delta_keep_their_ids() -> None:
    parser = KimiK2Parser()
    assert merged(parser.feed(f"Before {TWO} after") + parser.finish()) == [
        Text("Before "),
        Call(0, "f", '{"a":"x}<|tool_call_end|>y"}', "functions.f:0", whole=True, valid=True),
        Call(1, "g", "{}", "functions.g:1", whole=True, valid=True),
        Text(" after"),
    ]


def test_the_id_names_the_call_or_the_call_is_malformed() -> None:
    assert call_id(" functions.mcp.search:12 ") == ("functions.mcp.search:12", "mcp.search", None)
    assert call_id("search:0") == ("search:0", "search", None)
    for header in ("functions.f.0", "0", "call_abc", "functions.:0", "functions.f:x", "functions.a b:0"):
        assert call_id(header)[:2] == (None, None), header
    found = events(section(call("0", '{"q": 1}')))
    assert found == [
        Finding("MALFORMED_CALL", 'the call id "0" is not functions.NAME:IDX', 0),
        Call(0, None, '{"q":1}', None, whole=True, valid=False),
    ]


def test_prose_that_starts_like_a_call_is_text() -> None:
    assert events(f"the {SECTION_BEGIN[:9]} token") == [Text(f"the {SECTION_BEGIN[:9]} token")]
    assert events(f"ends {CALL_END}{SECTION_END}") == [Text(f"ends {CALL_END}{SECTION_END}")]


def test_an_empty_section_is_text_said_and_the_singular_marker_opens_a_section() -> None:
    assert events(f"a{SECTION_BEGIN} {SECTION_END}b") == [
        Text(f"a{SECTION_BEGIN} {SECTION_END}"),
        Finding("MARKER_IN_TEXT", "a section of calls held no call", None),
        Text("b"),
    ]
    assert events(f"{SECTION_BEGIN_SINGULAR}{call('functions.f:0', '{}')}{SECTION_END}") == [
        Call(0, "f", "{}", "functions.f:0", whole=True, valid=True)
    ]


def test_text_before_the_first_call_is_a_malformed_call_named_when_it_writes_an_id() -> None:
    block = f'f:0{ARGUMENT_BEGIN}{{"x": 1}}'
    assert events(f"{SECTION_BEGIN}{block}{SECTION_END}ok") == [
        Finding("MALFORMED_CALL", f"no {CALL_BEGIN} opens the call", 0),
        Call(0, "f", block, None, whole=True, valid=False),
        Text("ok"),
    ]


def test_a_call_outside_a_section_stands_and_a_missing_call_end_is_said() -> None:
    found = events(f'{CALL_BEGIN}functions.f:0{ARGUMENT_BEGIN}{{"a": 1}}{CALL_BEGIN}g:1{ARGUMENT_BEGIN}{{}} done')
    assert found == [
        Finding("MISSING_START_MARKER", f"a call outside a {SECTION_BEGIN} section", 0),
        Call(0, "f", '{"a":1}', "functions.f:0", whole=True, valid=True),
        Finding("MISSING_END_MARKER", f"no {CALL_END} after the call", 0),
        Finding("MISSING_START_MARKER", f"a call outside a {SECTION_BEGIN} section", 1),
        Call(1, "g", "{}", "g:1", whole=True, valid=True),
        Finding("MISSING_END_MARKER", f"no {CALL_END} after the call", 1),
        Text(" done"),
    ]


def test_a_missing_section_end_is_said_and_the_calls_stand() -> None:
    found = events(f"{SECTION_BEGIN}{call('functions.f:0', '{}')} Done.")
    assert codes(found) == ["MISSING_END_MARKER"] and found[-1] == Text("Done.")
    assert events(f"{SECTION_BEGIN}{call('functions.f:0', '{}')}") == [
        Call(0, "f", "{}", "functions.f:0", whole=True, valid=True),
        Finding("MISSING_END_MARKER", f"the stream ended before {SECTION_END}", 0),
    ]


def test_a_cut_call_is_unfinished_with_its_name_once_the_id_was_read() -> None:
    head = f"{SECTION_BEGIN}{CALL_BEGIN}functions.get_weather:0{ARGUMENT_BEGIN}"
    assert events(f'{head}{{"city": "Par') == [
        Finding("CUT", f"the stream ended before {CALL_END}", 0),
        Call(
            0,
            "get_weather",
            f'{CALL_BEGIN}functions.get_weather:0{ARGUMENT_BEGIN}{{"city": "Par',
            "functions.get_weather:0",
            whole=False,
            valid=False,
        ),
    ]
    assert events(f"{SECTION_BEGIN}{CALL_BEGIN}functions.get_wea")[-1] == Call(
        0, None, f"{CALL_BEGIN}functions.get_wea", None, whole=False, valid=False
    )


def test_broken_arguments_are_the_calls_text_up_to_its_end_and_the_next_call_stands() -> None:
    found = events(section(call("functions.f:0", '{"a": 1]'), call("functions.g:1", "{}")))
    assert found == [
        Finding("INVALID_ARGUMENTS", "the arguments are not JSON", 0),
        Call(0, "f", f'{CALL_BEGIN}functions.f:0{ARGUMENT_BEGIN}{{"a": 1]{CALL_END}', "functions.f:0", True, False),
        Call(1, "g", "{}", "functions.g:1", whole=True, valid=True),
    ]


def test_hostile_arguments_are_invalid_calls() -> None:
    assert codes(events(section(call("f:0", '{"a": 1, "a": 2}')))) == ["INVALID_ARGUMENTS"]
    assert codes(events(section(call("f:0", "[1]")))) == ["INVALID_ARGUMENTS"]
    assert codes(events(section(call("f:0", "{" * 5 + "}" * 5)), limits=Limits(max_depth=3))) == ["INVALID_ARGUMENTS"]
    limits = Limits(max_argument_bytes=64)
    large = events(section(call("f:0", '{"a": "' + "x" * 100 + '"}'), call("g:1", "{}")), limits=limits)
    assert codes(large) == ["TOO_LARGE"]
    assert [(event.name, event.valid) for event in large if isinstance(event, Call)] == [("f", False), ("g", True)]
    long_id = events(section(call("f" * 100 + ":0", "{}"), call("g:1", "{}")), limits=limits)
    assert codes(long_id) == ["TOO_LARGE"]
    assert [(event.name, event.valid) for event in long_id if isinstance(event, Call)] == [(None, False), ("g", True)]


def test_a_call_ends_reasoning_without_think_close_and_reasoning_is_never_a_call_otherwise() -> None:
    found = events(f"plan {TWO}", reasoning=True)
    assert found[0] == Reasoning("plan ") and [event.name for event in found if isinstance(event, Call)] == ["f", "g"]
    assert events("plan</think>answer", reasoning=True) == [Reasoning("plan"), Text("answer")]
    assert codes(events("still thinking", reasoning=True)) == ["REASONING_CUT"]
