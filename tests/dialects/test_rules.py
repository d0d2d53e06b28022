"""The dialect machinery's rules the corpus does not pin, each from ``docs/semantics.md`` ("Text dialects")."""

from __future__ import annotations

import json

import pytest

from tests.dialects.helpers import codes
from toolwire._model import Limits
from toolwire.reference.dialects import DIALECTS, Call, Event, Finding, Reasoning, Text, merged, parse
from toolwire.reference.dialects.hermes import HermesParser
from toolwire.reference.dialects.qwen3_coder import Qwen3CoderParser

WEATHER = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}


def q3c(name: str, **values: str) -> str:
    parameters = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in values.items())
    return f"<tool_call>\n<function={name}>\n{parameters}</function>\n</tool_call>"


def hermes(name: str, arguments: object) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def findings(events: list[Event]) -> list[str]:
    return codes(events)


def test_only_what_could_start_a_marker_is_held_back() -> None:
    parser = HermesParser()
    assert parser.feed("Hello <tool") == [Text("Hello ")]
    assert parser.feed("s are fun <") == [Text("<tools are fun ")]
    assert parser.finish() == [Text("<")]


def test_a_call_is_handed_over_when_whole_not_at_the_end_of_the_stream() -> None:
    parser = Qwen3CoderParser(WEATHER)
    events = parser.feed(q3c("get_weather", city="Paris", days="3")[: -len("</tool_call>")])
    assert events == [Call(0, "get_weather", '{"city":"Paris","days":3}', None, whole=True, valid=True)]
    hermes = HermesParser()
    assert [type(event) for event in hermes.feed('<tool_call>{"name": "f", "arguments": {}}')] == [Call]


@pytest.mark.parametrize("cut", range(1, len("<tool_call>")))
def test_a_marker_split_anywhere_is_one_marker(cut: int) -> None:
    text = hermes("f", {"a": 1})
    events = merged(parse("hermes", ["Hi ", text[:cut], text[cut:]]))
    assert events == [Text("Hi "), Call(0, "f", '{"a":1}', None, whole=True, valid=True)]


def test_a_marker_in_prose_is_text_and_said() -> None:
    text = "Write <tool_call> then a JSON object."
    events = merged(parse("hermes", list(text)))
    assert events[0] == Text("Write <tool_call> ")
    assert findings(events) == ["MARKER_IN_TEXT"]
    assert "".join(e.text for e in events if isinstance(e, Text)) == text
    events = merged(parse("qwen3_coder", [text.replace("JSON object", "function tag")]))
    assert findings(events) == ["MARKER_IN_TEXT"] and not any(isinstance(e, Call) for e in events)


def test_parameter_close_inside_a_value_is_the_value() -> None:
    value = "<a><parameter>x</parameter> </parameter>y</a>"
    events = parse("qwen3_coder", list(q3c("write", content=value)), {"write": {"properties": {}}})
    (call,) = [event for event in events if isinstance(event, Call)]
    assert json.loads(call.arguments) == {"content": value}
    assert findings(events) == ["NO_SCHEMA"]


def test_two_calls_and_the_text_around_and_between_them_in_one_delta() -> None:
    text = f"Before.{hermes('f', {'a': 1})} between {hermes('g', {})}\nAfter."
    events = merged(parse("hermes", [text]))
    assert events == [
        Text("Before."),
        Call(0, "f", '{"a":1}', None, whole=True, valid=True),
        Text(" between "),
        Call(1, "g", "{}", None, whole=True, valid=True),
        Text("\nAfter."),
    ]


@pytest.mark.parametrize("dialect", ["hermes", "qwen3_coder"])
def test_a_cut_call_is_handed_over_unfinished_never_valid(dialect: str) -> None:
    text = hermes("get_weather", {"city": "Paris"}) if dialect == "hermes" else q3c("get_weather", city="Paris")
    for end in range(len("<tool_call>"), len(text) - len("</tool_call>") - 2):
        events = parse(dialect, [text[:end]], WEATHER)
        calls = [event for event in events if isinstance(event, Call)]
        assert len(calls) == 1 and not calls[0].valid and not calls[0].whole, text[:end]
        assert "CUT" in findings(events)


def test_a_value_no_type_reads_stays_a_string_and_is_said() -> None:
    events = parse("qwen3_coder", [q3c("get_weather", city="Paris", days="three")], WEATHER)
    (call,) = [event for event in events if isinstance(event, Call)]
    assert (call.valid, json.loads(call.arguments)) == (False, {"city": "Paris", "days": "three"})
    assert findings(events) == ["UNTYPED_VALUE"]


def test_a_schema_type_json_schema_has_not_types_nothing() -> None:
    tools = {"f": {"properties": {"x": {"type": "float"}}}}
    events = parse("qwen3_coder", [q3c("f", x="3.5")], tools)
    assert findings(events) == ["UNTYPED_VALUE"]


def test_union_branches_are_tried_in_order_with_string_last() -> None:
    tools = {"f": {"properties": {"x": {"type": ["string", "integer"]}, "y": {"anyOf": [{"type": "string"}]}}}}
    (call,) = [e for e in parse("qwen3_coder", [q3c("f", x="42", y="42")], tools) if isinstance(e, Call)]
    assert json.loads(call.arguments) == {"x": 42, "y": "42"}


def test_without_a_schema_values_stay_strings_and_are_said() -> None:
    events = parse("qwen3_coder", [q3c("get_weather", days="3")])
    (call,) = [event for event in events if isinstance(event, Call)]
    assert (call.valid, json.loads(call.arguments)) == (True, {"days": "3"})
    assert findings(events) == ["NO_SCHEMA"]


def test_arguments_that_are_not_json_make_the_call_invalid() -> None:
    events = parse("hermes", ['<tool_call>{"name": "f", "arguments": {"x": NaN}}</tool_call>'])
    (call,) = [event for event in events if isinstance(event, Call)]
    assert not call.valid and call.name == "f"
    assert findings(events) == ["MALFORMED_CALL"]
    events = parse("hermes", ['<tool_call>{"name": "f", "arguments": {"x": 1, "x": 2}}</tool_call>'])
    assert findings(events) == ["INVALID_ARGUMENTS"]


def test_arguments_are_the_json_as_written_less_the_whitespace_outside_strings() -> None:
    written = '{"price": 1.50, "big": 1e16, "exp": -0E+2, "s": "a \\u00e9 \\" b",\n "list": [ 1 , {} ]}'
    events = parse("hermes", [f'<tool_call> {{"name": "f", "arguments": {written}}} </tool_call>'])
    assert events == [
        Call(0, "f", '{"price":1.50,"big":1e16,"exp":-0E+2,"s":"a \\u00e9 \\" b","list":[1,{}]}', None, True, True)
    ]
    as_string = json.dumps({"name": "f", "arguments": '{ "n" : 2.50 }'})
    (finding, call) = parse("hermes", [f"<tool_call>{as_string}</tool_call>"])
    assert (finding, call) == (
        Finding("ARGUMENTS_AS_STRING", "the arguments were a JSON string holding the object", 0),
        Call(0, "f", '{"n":2.50}', None, whole=True, valid=True),
    )


def test_why_json_has_no_json_form_is_said_the_same_way_by_core_and_reference() -> None:
    events = parse("hermes", ['<tool_call>{"name": "f", "arguments": {"x": {"y": 1e999}, "x": 2}}</tool_call>'])
    assert events[0] == Finding("INVALID_ARGUMENTS", "1e999 has no finite JSON value", 0)
    events = parse("hermes", ['<tool_call>{"name": "f", "arguments": {"k\\u00e9": 1, "k\u00e9": 2}}</tool_call>'])
    assert events[0] == Finding("INVALID_ARGUMENTS", 'the key "k\u00e9" is repeated in one object', 0)
    events = parse("hermes", [f'<tool_call>{{"name": "f", "arguments": {{"n": {"9" * 5000}}}}}</tool_call>'])
    assert events == [Call(0, "f", f'{{"n":{"9" * 5000}}}', None, whole=True, valid=True)]
    for string, why in (('{"x": tru}', "invalid_literal at byte 9"), ("{", "the JSON text ends early")):
        events = parse("hermes", [f"<tool_call>{json.dumps({'name': 'f', 'arguments': string})}</tool_call>"])
        assert events[0] == Finding("INVALID_ARGUMENTS", f"the arguments are a string that is not JSON ({why})", 0)
    events = parse("hermes", ['<tool_call>{"name": "f", "arguments": {}, "extra": 1, "id\'": 2}</tool_call>'])
    assert events[0] == Finding("MALFORMED_CALL", 'the call has members no call has: "extra", "id\'"', 0)


def test_a_cut_call_s_name_is_one_json_reads_whole_or_none() -> None:
    for written, name in (('"f\\u00e9"', "f\u00e9"), ('"f\\q"', None), ('"f\tg"', None), ('"\\ud800"', None)):
        events = parse("hermes", [f'<tool_call>{{ "name" : {written}, "arguments": {{'])
        assert events[-1] == Call(0, name, f'{{ "name" : {written}, "arguments": {{', None, whole=False, valid=False)


def test_a_missing_end_marker_is_said_after_the_call_and_what_follows_is_text() -> None:
    events = merged(parse("hermes", ['<tool_call>{"name": "f", "arguments": {}} and more']))
    assert events == [
        Call(0, "f", "{}", None, whole=True, valid=True),
        Finding("MISSING_END_MARKER", "no </tool_call> after the call", 0),
        Text(" and more"),
    ]


def test_a_call_past_the_byte_limit_is_not_kept() -> None:
    limits = Limits(max_argument_bytes=64)
    text = hermes("f", {"text": "x" * 200})
    events = parse("hermes", list(text), limits=limits)
    (call,) = [event for event in events if isinstance(event, Call)]
    assert (call.valid, call.arguments) == (False, "")
    assert findings(events) == ["TOO_LARGE"]
    events = parse("qwen3_coder", [q3c("f", text="y" * 200)], limits=limits)
    assert findings(events)[0] == "TOO_LARGE"


def test_reasoning_left_open_is_said_and_a_qwen3_call_ends_it() -> None:
    events = merged(parse("hermes", ["<think>still thinking"]))
    assert events == [Reasoning("still thinking"), Finding("REASONING_CUT", "the stream ended inside reasoning", None)]
    events = merged(parse("qwen3_coder", ["Plan.\n" + q3c("f", a="1")], reasoning=True))
    assert [type(event) for event in events] == [Reasoning, Finding, Call]


def test_the_parser_refuses_text_after_finish_and_unknown_dialects() -> None:
    parser = HermesParser()
    parser.finish()
    with pytest.raises(ValueError, match="finished"):
        parser.feed("x")
    with pytest.raises(ValueError, match="unknown dialect"):
        parse("nope", [])
    assert set(DIALECTS) == {
        "apriel",
        "cohere_command",
        "deepseek_dsml",
        "deepseek_v3",
        "deepseek_v31",
        "functiongemma",
        "gemma4",
        "glm45",
        "glm47",
        "granite",
        "harmony",
        "hermes",
        "kimi_k2",
        "llama3_json",
        "minimax_m2",
        "mistral",
        "phi4_mini",
        "pythonic",
        "qwen3_coder",
        "seed_oss",
        "xlam",
    }
