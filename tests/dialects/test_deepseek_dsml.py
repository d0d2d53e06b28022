"""``deepseek_dsml``'s rules the corpus does not pin (``docs/dialects.md``)."""

from __future__ import annotations

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.deepseek_dsml import DsmlParser

OPEN = "<\uff5cDSML\uff5cfunction_calls>"
CLOSE = "</\uff5cDSML\uff5cfunction_calls>"
PARAMETER_END = "</\uff5cDSML\uff5cparameter>"
INVOKE_END = "</\uff5cDSML\uff5cinvoke>"


def invoke(name: str, body: str) -> str:
    return f'<\uff5cDSML\uff5cinvoke name="{name}">{body}{INVOKE_END}'


def parameter(key: str, value: str, string: str = "true") -> str:
    return f'<\uff5cDSML\uff5cparameter name="{key}" string="{string}">{value}{PARAMETER_END}'


def block(*invokes: str) -> str:
    return f"{OPEN}\n{''.join(invokes)}\n{CLOSE}"


TWO = block(invoke("f", parameter("a", " two  spaces ") + parameter("n", "[1, 2]", "false")), invoke("g", "\n"))


def events(text: str, *, limits: Limits | None = None, reasoning: bool = False) -> list[Event]:
    """The merged events of ``text``, the same fed whole and one character at a time."""
    return fed_both_ways("deepseek_dsml", text, limits=limits, reasoning=reasoning)


@pytest.mark.parametrize("cut", range(1, len(TWO)))
def test_markers_split_anywhere_give_the_same_calls(cut: int) -> None:
    assert merged(parse("deepseek_dsml", ["Hi ", TWO[:cut], TWO[cut:], " bye"])) == events(f"Hi {TWO} bye")


def test_two_invokes_and_the_text_around_them_in_one_delta_with_values_typed_by_the_markup() -> None:
    parser = DsmlParser()
    assert merged(parser.feed(f"Before {TWO} after") + parser.finish()) == [
        Text("Before "),
        # string="true" keeps the text exactly, spaces and all; string="false" reads it as JSON.
        Call(0, "f", '{"a":" two  spaces ","n":[1,2]}', None, whole=True, valid=True),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text(" after"),
    ]


def test_v4_names_the_block_tool_calls() -> None:
    text = f"<\uff5cDSML\uff5ctool_calls>{invoke('f', '')}</\uff5cDSML\uff5ctool_calls>"
    assert events(text) == [Call(0, "f", "{}", None, whole=True, valid=True)]


def test_prose_that_starts_like_a_block_is_text() -> None:
    assert events("a <\uff5cDSML\uff5cfunction b") == [Text("a <\uff5cDSML\uff5cfunction b")]
    empty = events(f"{OPEN}\n{CLOSE}")
    assert codes(empty) == ["MARKER_IN_TEXT"]


def test_a_json_value_that_is_not_json_is_invalid_and_kept_as_text() -> None:
    assert events(block(invoke("f", parameter("a", "NaN", "false")))) == [
        Finding("INVALID_ARGUMENTS", 'the parameter "a" is not JSON (unexpected_byte at byte 0)', 0),
        Call(0, "f", '{"a":"NaN"}', None, whole=True, valid=False),
    ]


def test_malformed_tags_and_repeated_parameters_are_malformed_calls_up_to_the_invoke_s_end() -> None:
    bad = invoke("f", '<\uff5cDSML\uff5cparameter name="a" string="yes">v' + PARAMETER_END)
    found = events(block(bad, invoke("g", "")))
    assert found[0] == Finding(
        "MALFORMED_CALL",
        'the parameter tag\'s attributes " name=\\"a\\" string=\\"yes\\"" are not name="…" string="true|false"',
        0,
    )
    assert found[1] == Call(0, "f", bad, None, whole=True, valid=False)
    assert found[2] == Call(1, "g", "{}", None, whole=True, valid=True)
    twice = events(block(invoke("f", parameter("a", "1") + parameter("a", "2"))))
    assert codes(twice) == ["MALFORMED_CALL"]


def test_a_value_running_into_the_invoke_s_end_ends_there() -> None:
    found = events(
        block('<\uff5cDSML\uff5cinvoke name="f">' + '<\uff5cDSML\uff5cparameter name="a" string="true">v' + INVOKE_END)
    )
    assert found == [
        Finding("MISSING_END_MARKER", f'the parameter "a" had no {PARAMETER_END}', 0),
        Call(0, "f", '{"a":"v"}', None, whole=True, valid=True),
    ]


def test_a_json_body_is_read_and_a_broken_one_is_invalid() -> None:
    assert events(block(invoke("f", '\n{"a": [1, 2]}\n'))) == [
        Call(0, "f", '{"a":[1,2]}', None, whole=True, valid=True)
    ]
    broken = invoke("f", '{"a": ]')
    assert events(block(broken)) == [
        Finding("INVALID_ARGUMENTS", "the invoke's body is not JSON", 0),
        Call(0, "f", broken, None, whole=True, valid=False),
    ]


def test_a_cut_invoke_is_unfinished() -> None:
    head = '<\uff5cDSML\uff5cinvoke name="f"><\uff5cDSML\uff5cparameter name="a" string="true">cut he'
    assert events(OPEN + head) == [
        Finding("CUT", f"the stream ended before {INVOKE_END}", 0),
        Call(0, "f", head, None, whole=False, valid=False),
    ]
    assert codes(events(OPEN + invoke("f", ""))) == ["MISSING_END_MARKER"]


def test_a_block_ends_reasoning_without_think() -> None:
    found = events(f"plan {TWO}", reasoning=True)
    assert found[0] == Reasoning("plan ")
    assert [event.name for event in found if isinstance(event, Call)] == ["f", "g"]


def test_values_past_the_limit_are_too_large_and_read_on_to_the_invoke_s_end() -> None:
    found = events(block(invoke("f", parameter("a", "x" * 200)), invoke("g", "")), limits=Limits(max_argument_bytes=64))
    assert codes(found) == ["TOO_LARGE"]
    assert [(event.name, event.valid) for event in found if isinstance(event, Call)] == [("f", False), ("g", True)]
    tag = events(
        block('<\uff5cDSML\uff5cinvoke name="' + "f" * 200 + '">' + INVOKE_END), limits=Limits(max_argument_bytes=64)
    )
    assert codes(tag) == ["TOO_LARGE"]
