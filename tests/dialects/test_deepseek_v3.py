"""``deepseek_v3``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects._deepseek import CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, SEP
from toolwire.reference.dialects.deepseek_v3 import DeepSeekV3Parser

FENCE = "```"


def call(name: str, arguments: str, kind: str = "function") -> str:
    return f"{CALL_BEGIN}{kind}{SEP}{name}\n{FENCE}json\n{arguments}\n{FENCE}{CALL_END}"


def section(*calls: str) -> str:
    return f"{CALLS_BEGIN}{''.join(calls)}{CALLS_END}"


TWO = section(call("f", '{"a": 1}'), call("g", "{}"))


def events(text: str, *, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("deepseek_v3", text, limits=limits)


def test_the_markers_are_spelled_with_full_width_bars_and_u2581() -> None:
    assert CALLS_BEGIN == "<\uff5ctool\u2581calls\u2581begin\uff5c>"
    assert SEP == "<\uff5ctool\u2581sep\uff5c>"
    # The ASCII spelling is prose, not a call.
    assert events("<|tool_calls_begin|>") == [Text("<|tool_calls_begin|>")]


@pytest.mark.parametrize("cut", range(1, len(TWO)))
def test_markers_split_anywhere_give_the_same_calls(cut: int) -> None:
    assert merged(parse("deepseek_v3", ["Hi ", TWO[:cut], TWO[cut:], " bye"])) == events(f"Hi {TWO} bye")


def test_two_calls_and_the_text_around_them_in_one_delta() -> None:
    parser = DeepSeekV3Parser()
    assert merged(parser.feed(f"Before {TWO} after") + parser.finish()) == [
        Text("Before "),
        Call(0, "f", '{"a":1}', None, whole=True, valid=True),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text(" after"),
    ]


def test_a_call_is_handed_over_the_moment_its_object_closes() -> None:
    parser = DeepSeekV3Parser()
    text = call("f", '{"a": 1}')
    closed = text.index("}") + 1
    assert parser.feed(CALLS_BEGIN + text[:closed]) == [Call(0, "f", '{"a":1}', None, whole=True, valid=True)]
    assert parser.feed(text[closed:] + CALLS_END) == []
    assert parser.finish() == []


def test_prose_that_starts_like_a_section_is_text() -> None:
    assert events("see <\uff5ctool\u2581calls later") == [Text("see <\uff5ctool\u2581calls later")]
    empty = events(f"a{CALLS_BEGIN} {CALLS_END}b")
    assert "".join(event.text for event in empty if isinstance(event, Text)) == f"a{CALLS_BEGIN} {CALLS_END}b"
    assert codes(empty) == ["MARKER_IN_TEXT"]


def test_the_closing_fence_may_follow_the_object_and_whitespace_may_sit_between_calls() -> None:
    text = (
        f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}f\n{FENCE}json\n{{}}{FENCE}{CALL_END}\n\n{call('g', '{}')}{CALLS_END}"
    )
    assert [event.name for event in events(text) if isinstance(event, Call) and event.valid] == ["f", "g"]


def test_a_cut_call_is_unfinished_with_its_name_once_the_fence_was_read() -> None:
    head = f"{CALL_BEGIN}function{SEP}f\n{FENCE}json\n"
    assert events(CALLS_BEGIN + head + '{"a": ') == [
        Finding("CUT", f"the stream ended before {CALL_END}", 0),
        Call(0, "f", head + '{"a": ', None, whole=False, valid=False),
    ]
    assert events(f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}f\n{FENCE}js")[-1] == Call(
        0, None, f"{CALL_BEGIN}function{SEP}f\n{FENCE}js", None, whole=False, valid=False
    )
    assert events(CALLS_BEGIN) == [
        Finding("CUT", "the stream ended inside a section of calls, before its first call", None)
    ]
    # Whole calls stand when the section is cut after them.
    assert codes(events(CALLS_BEGIN + call("f", "{}"))) == ["MISSING_END_MARKER"]


def test_a_type_other_than_function_and_a_name_with_spaces_are_malformed() -> None:
    found = events(section(call("f", "{}", kind="tool")))
    assert found == [
        Finding("MALFORMED_CALL", 'the call\'s type is "tool", not "function"', 0),
        Call(0, "f", "{}", None, whole=True, valid=False),
    ]
    assert codes(events(section(call("two words", "{}")))) == ["MALFORMED_CALL"]


def test_broken_arguments_are_an_invalid_call_up_to_its_end_marker_and_the_next_call_stands() -> None:
    broken = call("f", '{"a": }')
    found = events(section(broken, call("g", "{}")) + " after")
    assert found == [
        Finding("INVALID_ARGUMENTS", "the arguments are not JSON", 0),
        Call(0, "f", broken, None, whole=True, valid=False),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text(" after"),
    ]
    assert codes(events(section(call("f", "[1]")))) == ["INVALID_ARGUMENTS"]
    assert codes(events(section(call("f", '{"a": NaN}')))) == ["INVALID_ARGUMENTS"]


def test_a_call_in_reasoning_is_reasoning_and_the_prompt_may_open_it() -> None:
    found = merged(parse("deepseek_v3", [f"plan {TWO}</think>{TWO}"], reasoning=True))
    assert found[0] == Reasoning(f"plan {TWO}")
    assert [event.index for event in found if isinstance(event, Call)] == [0, 1]


def test_a_header_past_the_limit_is_too_large_and_read_on_to_the_call_s_end() -> None:
    # The second call's header (63 bytes in UTF-8) fits.
    limits = Limits(max_argument_bytes=80)
    found = events(section(call("f" * 100, "{}"), call("g", "{}")), limits=limits)
    assert codes(found) == ["TOO_LARGE"]
    assert [(event.name, event.valid) for event in found if isinstance(event, Call)] == [(None, False), ("g", True)]
