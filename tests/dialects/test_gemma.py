"""``gemma4`` and ``functiongemma``: the Gemma grammar's rules the corpus does not pin (``docs/dialects.md``).

Expectations are derived by hand from the rules; every text is fed whole and one character at a time.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text, merged, parse

Q = '<|"|>'
G4 = ("<|tool_call>", "<tool_call|>")
FG = ("<start_function_call>", "<end_function_call>")
WEATHER = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    }
}


def gemma4(text: str, limits: Limits | None = None, *, reasoning: bool = False) -> list[Event]:
    return fed_both_ways("gemma4", text, limits=limits, reasoning=reasoning)


def call(body: str, start_end: tuple[str, str] = G4) -> str:
    return f"{start_end[0]}call:{body}{start_end[1]}"


def valid(arguments: str, name: str = "f", index: int = 0) -> Call:
    return Call(index, name, arguments, None, whole=True, valid=True)


def test_values_are_typed_by_how_they_are_written_never_by_the_schema() -> None:
    text = call(f'f{{s:{Q}a, "b"{Q},n:-1.50e3,i:42,t:true,u:false,z:null,o:{{k:[1,{Q}{Q}]}},e:[],m:{{}}}}')
    arguments = '{"s":"a, \\"b\\"","n":-1.50e3,"i":42,"t":true,"u":false,"z":null,"o":{"k":[1,""]},"e":[],"m":{}}'
    assert gemma4(text) == [valid(arguments)]
    # A quoted number is a string, with a schema that wants an integer or without one.
    tools = {"f": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    quoted_ten = call("f{n:<escape>10<escape>}", FG)
    assert fed_both_ways("functiongemma", quoted_ten, tools) == [valid('{"n":"10"}')]
    assert fed_both_ways("functiongemma", quoted_ten) == [valid('{"n":"10"}')]


def test_a_string_holds_anything_but_its_quote_token() -> None:
    text = call(f"f{{s:{Q}line\n}}]<tool_call|> <|tool_call>\\u00e9{Q}}}")
    assert gemma4(text) == [valid('{"s":"line\\n}]<tool_call|> <|tool_call>\\\\u00e9"}')]


@pytest.mark.parametrize("cut", range(1, len(Q)))
def test_a_quote_token_split_across_deltas_is_one_token(cut: int) -> None:
    text = call(f"f{{a:{Q}x{Q}}}")
    at = text.index(Q) + cut
    second = text.index(Q, at) + cut
    deltas = [text[:at], text[at:second], text[second:]]
    assert merged(parse("gemma4", deltas)) == [valid('{"a":"x"}')]


def test_functiongemma_s_missing_commas_are_read_after_a_value_that_ends_itself() -> None:
    body = "f{city:<escape>NYC<escape>unit:<escape>C<escape>o:{a:1}l:[2]n:3}"
    found = fed_both_ways("functiongemma", call(body, FG))
    assert found == [valid('{"city":"NYC","unit":"C","o":{"a":1},"l":[2],"n":3}')]
    # After a bare value nothing says where the next key starts: the call is malformed.
    found = fed_both_ways("functiongemma", call("f{n:3 unit:<escape>C<escape>}", FG) + "!")
    why = "\"u\" where ',' or '}' belongs"
    assert found == [
        Finding("MALFORMED_CALL", why, 0),
        Call(0, "f", "call:f{n:3 unit:<escape>C<escape>}", None, whole=True, valid=False),
        Text("!"),
    ]


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("hello", 'the value "hello" is not a string, a number, true, false or null'),
        ("True", 'the value "True" is not a string, a number, true, false or null'),
        ("+1", 'the value "+1" is not a string, a number, true, false or null'),
        (".5", 'the value ".5" is not a string, a number, true, false or null'),
        ("NaN", 'the value "NaN" is not a string, a number, true, false or null'),
        ("1e999", "1e999 has no finite JSON value"),
    ],
)
def test_a_bare_value_with_no_json_form_makes_the_call_invalid_and_keeps_its_text(value: str, why: str) -> None:
    text = call(f"f{{a:{value},b:{Q}x{Q}}}") + " ok"
    assert gemma4(text) == [
        Finding("INVALID_ARGUMENTS", why, 0),
        Call(0, "f", f"call:f{{a:{value},b:{Q}x{Q}}}", None, whole=True, valid=False),
        Text(" ok"),
    ]


def test_a_key_repeated_in_one_object_is_no_json_form_but_siblings_keys_are_their_own() -> None:
    found = gemma4(call("f{a:{k:1},b:{k:2},a:3}"))
    assert codes(found) == ["INVALID_ARGUMENTS"]
    assert found[0] == Finding("INVALID_ARGUMENTS", 'the key "a" is repeated in one object', 0)
    assert gemma4(call("f{a:{k:1},b:{k:2}}")) == [valid('{"a":{"k":1},"b":{"k":2}}')]


@pytest.mark.parametrize(
    ("body", "name", "why"),
    [
        ("get weather{}", None, "\" \" where the call's name or its '{' belongs"),
        ("{}", None, "the call has no name before its '{'"),
        ("f{:1}", "f", "\":\" where a key or '}' belongs"),
        ("f{a 1}", "f", "\"1\" where ':' belongs"),
        ("f{a:1,}", "f", '"}" where a key belongs'),
        ("f{a:[1,]}", "f", '"]" where a value belongs'),
        ("f{a:[1}", "f", "\"}\" where ',' or ']' belongs"),
        (f"f{{{Q}a{Q}:1}}", "f", "\"<\" where a key or '}' belongs"),
        ("f{a:x y}", "f", "\"y\" where ',' or '}' belongs"),
    ],
)
def test_text_that_breaks_the_grammar_is_a_malformed_call_up_to_the_end_marker(
    body: str, name: str | None, why: str
) -> None:
    assert gemma4(f"{call(body)}after") == [
        Finding("MALFORMED_CALL", why, 0),
        Call(0, name, f"call:{body}", None, whole=True, valid=False),
        Text("after"),
    ]


def test_a_broken_call_ends_at_the_next_call_s_start() -> None:
    text = "<|tool_call>call:f{a:<b>} then <|tool_call>call:g{}<tool_call|>"
    assert gemma4(text) == [
        Finding("MALFORMED_CALL", '"<" where a value belongs', 0),
        Call(0, "f", "call:f{a:<b>} then ", None, whole=True, valid=False),
        valid("{}", "g", 1),
    ]


def test_markers_in_prose_are_text() -> None:
    assert gemma4("Write <|tool_call> then call:f{}.") == [
        Text("Write <|tool_call>"),
        Finding("MARKER_IN_TEXT", "<|tool_call> was not followed by call:", None),
        Text(" then call:f{}."),
    ]
    # An end marker or a quote token alone in prose is prose.
    assert gemma4(f"a <tool_call|> b {Q}") == [Text(f"a <tool_call|> b {Q}")]
    assert fed_both_ways("functiongemma", "Use <escape> or <start_function_") == [
        Text("Use <escape> or <start_function_")
    ]


def test_calls_follow_each_other_with_text_around_and_between() -> None:
    text = f"Sure.{call('f{}')}\nand {call('g{a:1}')} done"
    assert gemma4(text) == [Text("Sure."), valid("{}"), Text("\nand "), valid('{"a":1}', "g", 1), Text(" done")]


def test_a_missing_end_marker_is_said_and_what_follows_is_text() -> None:
    text = "<|tool_call>call:f{}  <|tool_call>call:g{}"
    missing = "no <tool_call|> after the call"
    assert gemma4(text) == [
        valid("{}"),
        Finding("MISSING_END_MARKER", missing, 0),
        Text("  "),
        valid("{}", "g", 1),
        Finding("MISSING_END_MARKER", missing, 1),
    ]
    assert gemma4("<|tool_call>call:f{} \n<tool_call|>x") == [valid("{}"), Text("x")]


@pytest.mark.parametrize(
    ("text", "name", "kept"),
    [
        ("<|tool_call>call:get_wea", None, "call:get_wea"),
        (f"<|tool_call>call:f{{a:{Q}Par", "f", f"call:f{{a:{Q}Par"),
        ("<|tool_call>call:f{a:[1,{b:", "f", "call:f{a:[1,{b:"),
    ],
)
def test_a_call_the_stream_cuts_is_handed_over_unfinished(text: str, name: str | None, kept: str) -> None:
    assert gemma4(text) == [
        Finding("CUT", "the stream ended inside the call", 0),
        Call(0, name, kept, None, whole=False, valid=False),
    ]


def test_a_cut_start_marker_or_head_is_text() -> None:
    assert gemma4("Hi <|tool_") == [Text("Hi <|tool_")]
    assert gemma4("<|tool_call>cal") == [
        Text("<|tool_call>"),
        Finding("MARKER_IN_TEXT", "<|tool_call> was not followed by call:", None),
        Text("cal"),
    ]


def test_limits_bound_a_call_s_bytes_and_nesting() -> None:
    small = Limits(max_argument_bytes=24)
    text = call(f"f{{a:{Q}{'x' * 40}{Q}}}") + "t"
    too_large = Finding("TOO_LARGE", "the call's text passed the limit on a call's bytes", 0)
    assert gemma4(text, small) == [too_large, Call(0, "f", "", None, whole=True, valid=False), Text("t")]
    assert gemma4(f"<|tool_call>call:f{{a:{Q}{'x' * 40}", small) == [
        too_large,
        Finding("CUT", "the stream ended inside the call", 0),
        Call(0, "f", "", None, whole=False, valid=False),
    ]
    shallow = Limits(max_depth=2)
    assert gemma4(call("f{a:[1]}"), shallow) == [valid('{"a":[1]}')]
    assert gemma4(call("f{a:[[1]]}"), shallow) == [
        Finding("MALFORMED_CALL", "the arguments nest deeper than Limits.max_depth", 0),
        Call(0, "f", "call:f{a:[[1]]}", None, whole=True, valid=False),
    ]


def test_gemma4_s_thought_channel_is_reasoning_and_a_call_inside_it_is_reasoning_text() -> None:
    inside = call("f{}")
    text = f"<|channel>thought\nplan {inside}<channel|>ok{call('g{}')}"
    assert gemma4(text) == [Reasoning(f"plan {inside}"), Text("ok"), valid("{}", "g", 0)]
    # The prompt may open the channel; left open, it is said.
    assert gemma4("still thinking", reasoning=True) == [
        Reasoning("still thinking"),
        Finding("REASONING_CUT", "the stream ended inside reasoning", None),
    ]
    # FunctionGemma has no reasoning: the flag changes nothing and the channel's tokens are text.
    text = "<|channel>thought\nx<channel|>"
    assert fed_both_ways("functiongemma", text, reasoning=True) == [Text(text)]


def test_a_call_to_a_tool_the_request_lacks_or_a_string_the_schema_refuses_is_judged(
    implementation: ModuleType,
) -> None:
    text = call(f"get_forecast{{city:{Q}Paris{Q}}}")
    (unknown,) = list(implementation.reassemble([text], dialect="gemma4", tools=WEATHER, on_invalid="yield"))
    assert [violation.code.value for violation in unknown.errors] == ["UNKNOWN_TOOL"]
    text = call("get_weather{city:<escape>Paris<escape>,days:<escape>3<escape>}", FG)
    (typed,) = list(implementation.reassemble([text], dialect="functiongemma", tools=WEATHER, on_invalid="yield"))
    assert [violation.code.value for violation in typed.errors] == ["TYPE_MISMATCH"]
    assert typed.arguments == {"city": "Paris", "days": "3"}
    good = call("get_weather{city:<escape>Paris<escape>,days:3}", FG)
    (call_read,) = list(implementation.reassemble(["Sure. ", good], dialect="functiongemma", tools=WEATHER))
    assert (call_read.name, call_read.arguments, call_read.id.startswith("ts_")) == (
        "get_weather",
        {"city": "Paris", "days": 3},
        True,
    )


def test_nested_values_keep_their_order_and_types() -> None:
    value: dict[str, Any] = {"z": [{"b": [1, 2.0, "3"]}, None], "a": {}}
    text = call(f"f{{z:[{{b:[1,2.0,{Q}3{Q}]}},null],a:{{}}}}")
    (found,) = gemma4(text)
    assert isinstance(found, Call)
    assert found.arguments == '{"z":[{"b":[1,2.0,"3"]},null],"a":{}}'
    assert json.loads(found.arguments) == value
    assert list(json.loads(found.arguments)) == ["z", "a"]
