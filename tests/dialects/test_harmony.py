"""``harmony``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.harmony import CALL, CHANNEL, CONSTRAIN, END, MESSAGE, START, Header, header_of


def call(name: str, arguments: str, *, end: str = CALL) -> str:
    return f"{START}assistant{CHANNEL}commentary to=functions.{name} {CONSTRAIN}json{MESSAGE}{arguments}{end}"


TURN = (
    f"{CHANNEL}analysis{MESSAGE}Need both.{END}"
    + call("f", '{"a": "x}<|call|>y"}', end=END)
    + call("g", "{}")
    + f"{START}assistant{CHANNEL}final{MESSAGE}Done."
)


def events(text: str, *, limits: Limits | None = None) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("harmony", text, limits=limits)


@pytest.mark.parametrize("cut", range(1, len(TURN)))
def test_markers_split_anywhere_give_the_same_events(cut: int) -> None:
    assert merged(parse("harmony", [TURN[:cut], TURN[cut:]])) == events(TURN)


def test_a_turn_in_one_delta_is_reasoning_calls_and_the_final_answer() -> None:
    assert events(TURN) == [
        Reasoning("Need both."),
        Call(0, "f", '{"a":"x}<|call|>y"}', None, whole=True, valid=True),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text("Done."),
    ]


def test_the_header_gives_channel_recipient_and_content_type_wherever_they_are_written() -> None:
    assert header_of(" assistant to=functions.f", " commentary  json") == Header(
        "commentary", "functions.f", "json", None
    )
    assert header_of("", "commentary to=python  code") == Header("commentary", "python", "code", None)
    assert header_of("user", "final").problem == 'the role is "user", not "assistant"'
    assert header_of("to=a", "analysis to=b").recipient is None
    assert header_of("", "").problem == "the header has no channel"


def test_prose_is_text_even_when_it_starts_like_the_prompts_header() -> None:
    assert events("to=be or not") == [Text("to=be or not")]
    assert events("Hello, to=x <|chan") == [Text("Hello, to=x <|chan")]
    assert events(f"plain{END} and {MESSAGE}") == [Text(f"plain and {MESSAGE}")]


def test_a_recipient_before_a_spaced_channel_marker_is_read_however_the_marker_is_split() -> None:
    # Regression: the prompt's header was judged with the start of `<|channel|>` in it, so that, split inside the
    # marker, `to=functions.f <|chan` could not be a header and the call was read as text.
    assert events(f"to=functions.f {CHANNEL}commentary json{MESSAGE}{{}}{CALL}") == [
        Call(0, "f", "{}", None, whole=True, valid=True)
    ]
    assert events(" to=functions.f <|chan then") == [Text(" to=functions.f <|chan then")]


def test_a_missing_call_marker_is_said_and_what_follows_is_text() -> None:
    assert events(f'{CHANNEL}commentary to=functions.f{MESSAGE}{{"a": 1}} then') == [
        Call(0, "f", '{"a":1}', None, whole=True, valid=True),
        Finding("MISSING_END_MARKER", f"no {CALL} after the call", 0),
        Text(" then"),
    ]


def test_a_cut_call_is_unfinished_and_a_cut_header_is_said() -> None:
    assert events(f'{CHANNEL}commentary to=functions.f{MESSAGE}{{"a": "b') == [
        Finding("CUT", f"the stream ended before {CALL}", 0),
        Call(0, "f", '{"a": "b', None, whole=False, valid=False),
    ]
    assert codes(events(f"{CHANNEL}commentary to=functions.f")) == ["MALFORMED_HEADER"]


def test_builtin_tools_are_findings_with_their_message_never_text_or_calls() -> None:
    found = events(f'{CHANNEL}analysis to=browser.search{MESSAGE}{{"query": "x"}}{CALL}Next')
    assert found == [
        Finding(
            "BUILTIN_TOOL",
            'a message to "browser.search", a tool of the model\'s runtime, not a function: "{\\"query\\": \\"x\\"}"',
            None,
        ),
        Text("Next"),
    ]
    large = events(f"{CHANNEL}commentary to=python{MESSAGE}{'x' * 100}", limits=Limits(max_argument_bytes=24))
    assert large == [
        Finding(
            "BUILTIN_TOOL",
            'a message to "python", a tool of the model\'s runtime, not a function '
            "(cut at the limit on a call's bytes): \"" + "x" * 24 + '"',
            None,
        )
    ]


def test_unsound_headers_are_said_and_calls_they_address_are_invalid() -> None:
    assert codes(events(f"{START}user{CHANNEL}final{MESSAGE}hi")) == ["MALFORMED_HEADER"]
    found = events(f"{CHANNEL}commentary to=functions.f code{MESSAGE}{{}}{CALL}")
    assert found == [
        Finding("MALFORMED_CALL", 'the content type is "code", not "json"', 0),
        Call(0, "f", "{}", None, whole=True, valid=False),
    ]
    assert events(f"{CHANNEL}commentary to=functions.{MESSAGE}{{}}{CALL}")[-1] == Call(0, None, "{}", None, True, False)


def test_hostile_arguments_are_invalid_calls_and_the_next_call_stands() -> None:
    found = events(call("f", '{"a": 1]') + call("g", "{}"))
    assert found == [
        Finding("INVALID_ARGUMENTS", "the arguments are not JSON", 0),
        Call(0, "f", '{"a": 1]', None, whole=True, valid=False),
        Call(1, "g", "{}", None, whole=True, valid=True),
    ]
    assert codes(events(call("f", '{"a": 1, "a": 2}'))) == ["INVALID_ARGUMENTS"]
    assert codes(events(call("f", "{" * 5 + "}" * 5), limits=Limits(max_depth=3))) == ["INVALID_ARGUMENTS"]
    limits = Limits(max_argument_bytes=64)
    large = events(call("f", '{"a": "' + "x" * 100 + '"}') + call("g", "{}"), limits=limits)
    assert codes(large) == ["TOO_LARGE"]
    assert [(event.name, event.valid) for event in large if isinstance(event, Call)] == [("f", False), ("g", True)]
    long_header = events(f"{CHANNEL}commentary {'x' * 100} to=functions.f{MESSAGE}{{}}", limits=limits)
    assert long_header == [
        Finding("TOO_LARGE", "the message's header passed the limit on a call's bytes", None),
        Text("{}"),
    ]


def test_reasoning_cut_by_the_end_of_the_stream_is_said() -> None:
    assert events(f"{CHANNEL}analysis{MESSAGE}still thinking") == [
        Reasoning("still thinking"),
        Finding("REASONING_CUT", "the stream ended inside reasoning", None),
    ]
