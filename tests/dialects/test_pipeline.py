"""``dialect=`` on every entry point: calls a model wrote into its text become the stream's calls.

The expectations follow the rules of ``docs/semantics.md`` ("Calls in text") and each dialect's table in
``docs/dialects.md``, derived by hand; each test runs on the core and on the reference.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest

from toolwire import InvalidToolCallError, Limits, MalformedChunkError, TextDialect, ViolationCode

WEATHER = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    }
}
HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'


def codes(violations: Any) -> list[str]:
    return [violation.code.value for violation in violations]


def chat_chunks(content: list[str], finish: str = "stop") -> list[dict[str, Any]]:
    """Chat Completions chunks whose content is ``content``, piece by piece, and a finish."""
    chunks: list[dict[str, Any]] = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": piece}}]} for piece in content
    ]
    chunks.append({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return chunks


def completion_chunks(text: list[str], finish: str = "stop") -> list[dict[str, Any]]:
    """Legacy completions chunks carrying ``text``, piece by piece, and a finish."""
    chunks: list[dict[str, Any]] = [
        {"object": "text_completion", "choices": [{"index": 0, "text": piece, "finish_reason": None}]} for piece in text
    ]
    chunks.append({"object": "text_completion", "choices": [{"index": 0, "text": "", "finish_reason": finish}]})
    return chunks


def test_text_deltas_split_inside_the_marker_give_the_call_and_the_text_around_it(implementation: ModuleType) -> None:
    deltas = [
        "Let me check. <tool",
        '_call>\n{"name": "get_weather", "argu',
        'ments": {"city": "Paris", "days": 3}}\n</tool_call>',
        " Done.",
    ]
    stream = implementation.reassemble(deltas, dialect="hermes", tools=WEATHER)
    calls = list(stream)
    assert [(c.name, c.arguments, c.id, c.index) for c in calls] == [
        ("get_weather", {"city": "Paris", "days": 3}, "ts_0_0", 0)
    ]
    assert calls[0].violations == ()
    assert stream.result.text == "Let me check.  Done."
    # Text deltas carry no finish reason, and none is expected: the stream is clean.
    assert stream.result.violations == ()
    assert stream.result.format is None


def test_one_str_is_the_whole_text(implementation: ModuleType) -> None:
    calls = list(implementation.reassemble(HERMES_CALL, dialect="hermes"))
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris", "days": 3})]


def test_calls_leaked_into_chat_content_are_recovered_with_call_in_text(implementation: ModuleType) -> None:
    chunks = chat_chunks(["Sure.", HERMES_CALL[:20], HERMES_CALL[20:]])
    stream = implementation.reassemble(chunks, dialect="hermes", tools=WEATHER)
    calls = list(stream)
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris", "days": 3})]
    assert codes(calls[0].violations) == ["CALL_IN_TEXT"]
    assert calls[0].violations[0].severity.value == "info"
    assert "hermes" in calls[0].violations[0].message
    assert stream.result.text == "Sure."
    # The server sent 'stop' not knowing of the call: no FINISH_REASON_MISMATCH for a call read out of the text.
    assert stream.result.violations == ()
    assert stream.result.finish_reason == "stop"


def test_calls_in_a_completions_stream_are_the_model_s_own(implementation: ModuleType) -> None:
    stream = implementation.reassemble(completion_chunks([HERMES_CALL[:7], HERMES_CALL[7:]]), dialect="hermes")
    calls = list(stream)
    assert [(c.name, c.arguments, c.violations) for c in calls] == [("get_weather", {"city": "Paris", "days": 3}, ())]
    assert stream.result.text == ""
    assert stream.result.violations == ()


def test_without_a_dialect_the_text_stays_text(implementation: ModuleType) -> None:
    stream = implementation.reassemble(chat_chunks([HERMES_CALL]))
    assert list(stream) == []
    assert stream.result.text == HERMES_CALL


def test_a_call_the_end_cuts_is_truncated_never_valid(implementation: ModuleType) -> None:
    deltas = ['<tool_call>{"name": "get_weather", "arguments": {"city": "Par']
    stream = implementation.reassemble(deltas, dialect="hermes", tools=WEATHER, on_invalid="yield")
    (call,) = list(stream)
    assert call.name == "get_weather"
    assert codes(call.errors) == ["TRUNCATED"]
    assert call.arguments is None
    assert call.arguments_json == '{"name": "get_weather", "arguments": {"city": "Par'
    with pytest.raises(InvalidToolCallError):
        list(implementation.reassemble(deltas, dialect="hermes"))


def test_reasoning_is_output_and_a_marker_without_a_call_is_text(implementation: ModuleType) -> None:
    text = "<think>weather?</think>It's <tool_call> time. " + HERMES_CALL
    stream = implementation.reassemble([text], dialect="hermes")
    calls = list(stream)
    assert [c.name for c in calls] == ["get_weather"]
    assert stream.result.text == "It's <tool_call> time. "
    assert [(item.after_calls, item.value) for item in stream.result.output] == [
        (0, {"type": "reasoning", "text": "weather?"})
    ]
    assert codes(stream.result.violations) == ["MARKER_IN_TEXT"]


def test_reasoning_opened_by_the_prompt(implementation: ModuleType) -> None:
    stream = implementation.reassemble(["thinking</think>", HERMES_CALL], dialect=TextDialect("hermes", reasoning=True))
    assert [c.name for c in stream] == ["get_weather"]
    assert stream.result.text == ""
    assert [item.value for item in stream.result.output] == [{"type": "reasoning", "text": "thinking"}]


def test_raw_values_are_typed_by_the_declared_tools(implementation: ModuleType) -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\nthree\n</parameter>\n</function>\n</tool_call>"
    stream = implementation.reassemble([text], dialect="qwen3_coder", tools=WEATHER, on_invalid="yield")
    (call,) = list(stream)
    # The parser's finding, and the schema's verdict on the string it kept (with the value's pointer).
    assert codes(call.errors) == ["UNTYPED_VALUE", "TYPE_MISMATCH"]
    assert call.errors[1].path == "/days"
    assert call.arguments == {"city": "Paris", "days": "three"}
    typed = text.replace("three", "3")
    (call,) = list(implementation.reassemble([typed], dialect="qwen3_coder", tools=WEATHER))
    assert call.arguments == {"city": "Paris", "days": 3}


def test_a_declared_tool_set_still_judges_the_call(implementation: ModuleType) -> None:
    text = HERMES_CALL.replace("get_weather", "get_forecast")
    (call,) = list(implementation.reassemble([text], dialect="hermes", tools=WEATHER, on_invalid="yield"))
    assert codes(call.errors) == ["UNKNOWN_TOOL"]


def test_calls_past_the_limit_are_refused(implementation: ModuleType) -> None:
    stream = implementation.reassemble(
        [HERMES_CALL * 3], dialect="hermes", limits=Limits(max_calls=2), on_invalid="yield"
    )
    assert [c.seq for c in stream] == [0, 1]
    assert codes(stream.result.violations) == ["TOO_MANY_CALLS"]


def test_events_never_show_a_call_s_text_as_text(implementation: ModuleType) -> None:
    deltas = ["Hi <", "tool_", "call>", HERMES_CALL[len("<tool_call>") :], " bye"]
    events = list(implementation.events(deltas, dialect="hermes"))
    shown = "".join(event.text for event in events if type(event).__name__ == "TextDelta")
    assert shown == "Hi  bye"
    assert [type(event).__name__ for event in events if type(event).__name__ != "TextDelta"][-2:] == [
        "ToolCallReady",
        "Finished",
    ]


def test_the_async_entry_points_read_text_deltas(implementation: ModuleType) -> None:
    async def deltas() -> AsyncIterator[str]:
        for piece in (HERMES_CALL[:5], HERMES_CALL[5:]):
            yield piece

    async def collect() -> list[Any]:
        return [call async for call in implementation.areassemble(deltas(), dialect="hermes")]

    assert [c.name for c in asyncio.run(collect())] == ["get_weather"]


def test_the_reassembler_reads_text_deltas(implementation: ModuleType) -> None:
    reassembler = implementation.Reassembler(dialect="hermes")
    assert reassembler.feed(HERMES_CALL[:30]) == []
    (call,) = reassembler.feed(HERMES_CALL[30:])
    assert call.arguments == {"city": "Paris", "days": 3}


def test_a_text_delta_among_chunks_is_malformed(implementation: ModuleType) -> None:
    chunks: list[Any] = [*chat_chunks(["hello"]), "stray"]
    with pytest.raises(MalformedChunkError, match="text delta"):
        list(implementation.reassemble(chunks, dialect="hermes"))


def test_a_wire_format_named_reads_strings_as_its_body(implementation: ModuleType) -> None:
    body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chat_chunks([HERMES_CALL])) + "data: [DONE]\n\n"
    stream = implementation.reassemble([body], dialect="hermes", format="openai-chat")
    assert [(c.name, codes(c.violations)) for c in stream] == [("get_weather", ["CALL_IN_TEXT"])]


def test_an_unknown_dialect_names_the_dialects(implementation: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"unknown dialect 'qwen4'.*hermes"):
        implementation.reassemble(["x"], dialect="qwen4")
    with pytest.raises(TypeError, match="dialect must be"):
        implementation.reassemble(["x"], dialect=3)


def test_violation_codes_of_every_finding_exist() -> None:
    from toolwire.reference._text_calls import VIOLATION_OF
    from toolwire.reference.dialects import FINDINGS

    assert set(VIOLATION_OF) == set(FINDINGS)
    assert ViolationCode.CALL_IN_TEXT.value == "CALL_IN_TEXT"


def test_strings_that_are_unmistakably_a_body_s_lines_are_read_as_the_body(implementation: ModuleType) -> None:
    # httpx's iter_lines() of an event stream: its lines open with a field, which no model's text does.
    events = [f"data: {json.dumps(chunk)}" for chunk in chat_chunks([HERMES_CALL])] + ["data: [DONE]"]
    lines = [line for event in events for line in (event, "")]
    stream = implementation.reassemble(lines, dialect="hermes")
    assert [(c.name, codes(c.violations)) for c in stream] == [("get_weather", ["CALL_IN_TEXT"])]
    # A model's own text may open with what a JSON body opens with: it stays text deltas.
    (call,) = implementation.reassemble(
        ['{"name": "get_weather", "parameters": {"city": "Oslo"}}'], dialect="llama3_json"
    )
    assert call.arguments == {"city": "Oslo"}


def test_text_opening_as_an_event_stream_s_comment_is_read_as_a_body_never_as_ok_text(
    implementation: ModuleType,
) -> None:
    # OpenRouter's stream opens with ': OPENROUTER PROCESSING', and iter_lines() strips its line end: a first string
    # opening with ':' is a body's comment. A model's text that opens so is then not understood, loudly.
    stream = implementation.reassemble([":ok ", HERMES_CALL], dialect="hermes", on_invalid="yield")
    assert list(stream) == []
    assert "UNRECOGNIZED_STREAM" in codes(stream.result.violations)
