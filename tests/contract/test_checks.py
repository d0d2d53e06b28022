"""toolwire.contract: the checks of each format, buffered and streamed, on quirks, recordings and hostile input."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from toolwire.contract import (
    CheckStatus,
    ContractReport,
    assert_completion,
    assert_stream,
    check_completion,
    check_stream,
)
from toolwire.recordings import Recording, iter_recordings

GET_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
TOOLS = [GET_WEATHER]
PARIS = {"city": "Paris", "unit": "celsius"}
TOKYO = {"city": "Tokyo", "unit": "celsius"}
CHAT_STREAM_ONLY = {"index_present", "id_once", "name_once", "one_call_per_index", "calls_contiguous"}


def failed(report: ContractReport) -> set[str]:
    return {check.id for check in report.failed}


# --- OpenAI Chat streams, built as the local endpoint renders each quirk ------------------------------------------


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1767225600,
        "model": "clean",
        "choices": [{"index": 0, "delta": delta if delta is not None else {}, "finish_reason": finish}],
    }


def pieces(text: str, size: int = 7) -> list[str]:
    return [text[at : at + size] for at in range(0, len(text), size)]


def chat_stream(quirk: str | None = None, calls: tuple[dict[str, Any], ...] = (PARIS, TOKYO)) -> list[dict[str, Any]]:
    """A stream of get_weather calls (or prose, for prose_when_forced) with one quirk applied."""
    name = "get_weather_v2" if quirk == "hallucinated_name" else "get_weather"
    if quirk == "prose_when_forced":
        text = ["It is", " sunny in", " Paris."]
        return [chunk({"role": "assistant", "content": ""}), *(chunk({"content": t}) for t in text), chunk({}, "stop")]
    per_call: list[list[dict[str, Any]]] = []
    for number, arguments in enumerate(calls):
        index = 0 if quirk == "index_reused" else number
        text = json.dumps(arguments)
        header: dict[str, Any] = {
            "index": index,
            "id": f"call_{number}",
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        if quirk == "arguments_object":
            header["function"]["arguments"] = arguments
            per_call.append([header])
            continue
        fragments = [header]
        for piece in [*pieces(text), *(["}"] if quirk == "trailing_data" else [])]:
            fragment: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if quirk == "repeat_id":
                fragment["id"] = f"call_{number}"
            if quirk == "repeat_name":
                fragment["function"]["name"] = name
            fragments.append(fragment)
        per_call.append(fragments)
    if quirk == "missing_index":
        for fragments in per_call:
            for fragment in fragments:
                del fragment["index"]
    if quirk == "interleave":
        ordered = [call[0] for call in per_call]
        rests = [call[1:] for call in per_call]
        for position in range(max(map(len, rests))):
            ordered.extend(rest[position] for rest in rests if position < len(rest))
    else:
        ordered = [fragment for fragments in per_call for fragment in fragments]
    chunks = [chunk({"role": "assistant", "content": None})]
    chunks.extend(chunk({"tool_calls": [fragment]}) for fragment in ordered)
    if quirk == "truncate":
        return chunks[: 2 + len(per_call[0]) // 2]  # cut in the middle of the first call's arguments, no finish
    finish = {"finish_stop": "stop", "no_finish": None}.get(quirk or "", "tool_calls")
    chunks.append(chunk({}, finish))
    if quirk == "empty_choices":
        noise = {"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": []}
        chunks = [dict(noise), *(item for pair in ((c, dict(noise)) for c in chunks) for item in pair)]
    return chunks


# quirk -> (forced, calls, failed check ids)
CHAT_STREAM_QUIRKS: dict[str, list[tuple[Any, tuple[dict[str, Any], ...], set[str]]]] = {
    "clean": [(None, (PARIS, TOKYO), set()), ("required", (PARIS, TOKYO), set()), ("get_weather", (PARIS,), set())],
    "arguments_object": [(None, (PARIS, TOKYO), {"arguments_string"})],
    "finish_stop": [
        ("get_weather", (PARIS,), set()),
        ("required", (PARIS, TOKYO), {"finish_reason"}),
        (None, (PARIS,), {"finish_reason"}),
    ],
    "no_finish": [(None, (PARIS, TOKYO), {"finish_reason"})],
    "missing_index": [(None, (PARIS, TOKYO), {"index_present"})],
    "index_reused": [(None, (PARIS, TOKYO), {"one_call_per_index"})],
    "repeat_id": [(None, (PARIS, TOKYO), {"id_once"})],
    "repeat_name": [(None, (PARIS, TOKYO), {"name_once"})],
    "interleave": [(None, (PARIS, TOKYO), {"calls_contiguous"})],
    "prose_when_forced": [("get_weather", (), {"forced_tool"}), ("required", (), {"forced_tool"})],
    "hallucinated_name": [("get_weather", (PARIS,), {"tool_names", "forced_tool"}), (None, (PARIS,), {"tool_names"})],
    "trailing_data": [(None, (PARIS, TOKYO), {"arguments_json"})],
    "truncate": [(None, (PARIS, TOKYO), {"arguments_json", "finish_reason"})],
    "empty_choices": [(None, (PARIS, TOKYO), set())],
}
STREAM_CASES = [
    pytest.param(quirk, forced, calls, expected, id=f"{quirk}-{forced}")
    for quirk, cases in CHAT_STREAM_QUIRKS.items()
    for forced, calls, expected in cases
]


@pytest.mark.parametrize(("quirk", "forced", "calls", "expected"), STREAM_CASES)
def test_each_chat_stream_quirk_fails_exactly_its_checks(
    quirk: str, forced: Any, calls: tuple[dict[str, Any], ...], expected: set[str]
) -> None:
    report = check_stream(chat_stream(None if quirk == "clean" else quirk, calls), TOOLS, forced=forced)
    assert (report.format, report.mode) == ("openai-chat", "streamed")
    assert failed(report) == expected, report.to_text()
    assert report.ok == (expected <= {"calls_contiguous"})
    for check_id in expected:
        evidence = report[check_id].evidence
        assert "chunk" in evidence or "choice 0" in evidence, evidence
        assert "fix:" in evidence, evidence


def test_the_clean_stream_passes_every_check_that_applies() -> None:
    report = check_stream(chat_stream(), TOOLS, forced="required")
    assert [check.id for check in report.checks] == [
        "finish_reason",
        "content_type",
        "tool_calls_nonempty",
        "call_ids",
        "call_type",
        "tool_names",
        "arguments_string",
        "arguments_json",
        "arguments_valid",
        "forced_tool",
        "index_present",
        "id_once",
        "name_once",
        "one_call_per_index",
        "calls_contiguous",
        "well_formed",
    ]
    assert all(check.status is CheckStatus.PASSED for check in report.checks), report.to_text()
    assert report["calls_contiguous"].severity == "warning"
    assert all(check.severity == "error" for check in report.checks if check.id != "calls_contiguous")


def test_a_named_forced_stop_passes_with_the_documented_deviation() -> None:
    report = check_stream(
        chat_stream("finish_stop", (PARIS,)), TOOLS, forced={"type": "function", "function": {"name": "get_weather"}}
    )
    assert report["finish_reason"].status is CheckStatus.PASSED
    assert report["finish_reason"].note == (
        "documented deviation: OpenAI ends a named forced tool call with finish_reason 'stop'"
    )
    unforced = check_stream(chat_stream("finish_stop", (PARIS,)), TOOLS)
    assert "finish_reason 'stop' although 1 call(s) were made" in unforced["finish_reason"].evidence


def test_without_tools_the_name_and_schema_checks_do_not_apply() -> None:
    report = check_stream(chat_stream())
    for check_id in ("tool_names", "arguments_valid", "forced_tool"):
        assert report[check_id].status is CheckStatus.NOT_APPLICABLE
    assert report["tool_names"].evidence == "no tools declared"
    assert report.ok


def test_schema_violations_fail_arguments_valid_with_the_pointer() -> None:
    report = check_stream(chat_stream(calls=({"city": "Paris", "unit": "kelvin"}, {"town": "Tokyo"})), TOOLS)
    assert failed(report) == {"arguments_valid"}
    evidence = report["arguments_valid"].evidence
    assert "ENUM_OUT_OF_RANGE at /unit" in evidence
    assert "MISSING_REQUIRED_ARGUMENT at /city" in evidence
    assert "UNEXPECTED_ARGUMENT at /town" in evidence
    assert "call 'call_1'" in evidence and "toolwire.validate" in evidence


def test_evidence_names_the_choice_index_call_and_chunk() -> None:
    report = check_stream(chat_stream("trailing_data"), TOOLS)
    first = report["arguments_json"].evidence.splitlines()[0]
    assert first.startswith("choice 0, call 'call_0' (index 0, 'get_weather') (chunks 1-")
    assert "TRAILING_DATA" in first and "fix: send exactly one JSON object per call" in first
    truncated = check_stream(chat_stream("truncate"), TOOLS)
    assert "TRUNCATED" in truncated["arguments_json"].evidence
    assert "NO_FINISH_REASON" in truncated["finish_reason"].evidence


# --- OpenAI Chat buffered -----------------------------------------------------------------------------------------


def completion(quirk: str | None = None, calls: tuple[dict[str, Any], ...] = (PARIS, TOKYO)) -> dict[str, Any]:
    name = "get_weather_v2" if quirk == "hallucinated_name" else "get_weather"
    tool_calls = []
    for number, arguments in enumerate(calls):
        text: Any = json.dumps(arguments)
        if quirk == "arguments_object":
            text = arguments
        elif quirk == "trailing_data":
            text += "}"
        elif quirk == "truncate":
            text = text[: len(text) // 2]
        tool_calls.append({"id": f"call_{number}", "type": "function", "function": {"name": name, "arguments": text}})
    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    finish: str | None = {"finish_stop": "stop", "no_finish": None, "truncate": "length"}.get(quirk or "", "tool_calls")
    if quirk == "prose_when_forced":
        message = {"role": "assistant", "content": "It is sunny in Paris."}
        finish = "stop"
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "clean",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


BUFFERED_CASES = [
    pytest.param(quirk, forced, calls, expected, id=f"{quirk}-{forced}")
    for quirk, cases in CHAT_STREAM_QUIRKS.items()
    if quirk not in {"missing_index", "index_reused", "repeat_id", "repeat_name", "interleave", "empty_choices"}
    for forced, calls, expected in cases
]


@pytest.mark.parametrize(("quirk", "forced", "calls", "expected"), BUFFERED_CASES)
def test_each_buffered_chat_quirk_fails_exactly_its_checks(
    quirk: str, forced: Any, calls: tuple[dict[str, Any], ...], expected: set[str]
) -> None:
    report = check_completion(completion(None if quirk == "clean" else quirk, calls), TOOLS, forced=forced)
    assert (report.format, report.mode) == ("openai-chat", "buffered")
    assert failed(report) == expected, report.to_text()
    assert not CHAT_STREAM_ONLY & {check.id for check in report.checks}


def test_buffered_chat_shape_checks() -> None:
    response = completion()
    response["choices"][0]["message"]["content"] = ["not", "a", "string"]
    response["choices"][0]["message"]["tool_calls"][0]["type"] = "tool"
    response["choices"][0]["message"]["tool_calls"][1]["id"] = ""
    report = check_completion(response, TOOLS)
    assert failed(report) == {"content_type", "call_type", "call_ids"}
    empty = completion()
    empty["choices"][0]["message"]["tool_calls"] = []
    empty["choices"][0]["finish_reason"] = "stop"
    assert failed(check_completion(empty, TOOLS)) == {"tool_calls_nonempty"}
    assert check_completion(completion(calls=()) | {"choices": []}, TOOLS)["finish_reason"].status is CheckStatus.FAILED


def test_openai_sdk_objects_read_as_their_json() -> None:
    openai = pytest.importorskip("openai")
    chunks = [openai.types.chat.ChatCompletionChunk.model_validate(item) for item in chat_stream("repeat_id")]
    assert check_stream(chunks, TOOLS).as_dict() == check_stream(chat_stream("repeat_id"), TOOLS).as_dict()
    response = openai.types.chat.ChatCompletion.model_validate(completion("trailing_data"))
    report = check_completion(response, TOOLS)
    assert report.as_dict() == check_completion(completion("trailing_data"), TOOLS).as_dict()
    assert failed(report) == {"arguments_json"}


def sse(events: list[Any], done: bool = True) -> bytes:
    body = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    return body + (b"data: [DONE]\n\n" if done else b"")


def test_raw_bytes_ndjson_and_files_give_the_same_report() -> None:
    expected = check_stream(chat_stream("interleave"), TOOLS).as_dict()
    assert check_stream(sse(chat_stream("interleave")), TOOLS).as_dict() == expected
    ndjson = b"".join(json.dumps(item).encode() + b"\n" for item in chat_stream("interleave"))
    assert check_stream(ndjson, TOOLS).as_dict() == expected
    assert check_stream([sse(chat_stream("interleave"))], TOOLS).as_dict() == expected


@given(st.data())
def test_any_split_of_the_bytes_gives_the_same_report(data: st.DataObject) -> None:
    quirk = data.draw(st.sampled_from([None, "missing_index", "trailing_data", "interleave", "repeat_name"]))
    body = sse(chat_stream(quirk))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=12)))
    reads = [body[start:end] for start, end in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert check_stream(reads, TOOLS).as_dict() == check_stream(body, TOOLS).as_dict()


# --- Anthropic ------------------------------------------------------------------------------------------------------


def anthropic_stream(
    *, name: str = "get_weather", partial: tuple[str, ...] = ('{"city": ', '"Paris"}'), text: str | None = None
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "stop_reason": None},
        },
    ]
    if text is not None:
        events += [
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            {"type": "content_block_stop", "index": 0},
        ]
    else:
        block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}
        events.append({"type": "content_block_start", "index": 0, "content_block": block})
        events.append({"type": "ping"})
        events += [
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}
            for piece in ("", *partial)
        ]
        events.append({"type": "content_block_stop", "index": 0})
    stop = "end_turn" if text is not None else "tool_use"
    events.append({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}})
    events.append({"type": "message_stop"})
    return events


def test_a_clean_anthropic_stream_passes() -> None:
    report = check_stream(anthropic_stream(), TOOLS, forced={"type": "tool", "name": "get_weather"})
    assert report.format == "anthropic-messages"
    assert [check.id for check in report.checks] == [
        "finish_reason",
        "call_ids",
        "tool_names",
        "arguments_json",
        "arguments_valid",
        "forced_tool",
        "index_present",
        "block_lifecycle",
        "well_formed",
    ]
    assert all(check.status is CheckStatus.PASSED for check in report.checks), report.to_text()
    assert (
        check_stream(sse(anthropic_stream(), done=False), TOOLS).as_dict()
        == check_stream(anthropic_stream(), TOOLS).as_dict()
    )


def _without_index(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    del events[4]["index"]
    return events


def _started_twice(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    again = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    events[-2:-2] = [again, {"type": "content_block_stop", "index": 0}]
    return events


def _no_stop_reason(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events[-2]["delta"] = {"stop_reason": None}
    return events


def _delta_after_stop(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events.insert(-2, dict(events[4]))
    return events


ANTHROPIC_BROKEN: dict[str, tuple[Callable[[], list[dict[str, Any]]], Any, set[str], str]] = {
    "unknown tool": (lambda: anthropic_stream(name="get_wether"), None, {"tool_names"}, "closest: 'get_weather'"),
    "bad JSON": (lambda: anthropic_stream(partial=('city": ', '"Paris"}')), None, {"arguments_json"}, "INVALID_JSON"),
    "missing index": (lambda: _without_index(anthropic_stream()), None, {"index_present"}, "event 4"),
    "block started twice": (
        lambda: _started_twice(anthropic_stream()),
        None,
        {"block_lifecycle"},
        "block 0 is started again",
    ),
    "delta after stop": (
        lambda: _delta_after_stop(anthropic_stream()),
        None,
        {"block_lifecycle", "arguments_json"},
        "after its stop",
    ),
    "prose under forced tool": (
        lambda: anthropic_stream(text="I would rather chat."),
        "get_weather",
        {"forced_tool"},
        "answered with text 'I would rather chat.'",
    ),
    "missing stop_reason": (lambda: _no_stop_reason(anthropic_stream()), None, {"finish_reason"}, "no stop_reason"),
    "schema violation": (
        lambda: anthropic_stream(partial=('{"city": 5}',)),
        None,
        {"arguments_valid"},
        "TYPE_MISMATCH at /city",
    ),
}


@pytest.mark.parametrize("case", ANTHROPIC_BROKEN)
def test_broken_anthropic_streams_fail_the_right_check(case: str) -> None:
    build, forced, expected, evidence = ANTHROPIC_BROKEN[case]
    report = check_stream(build(), TOOLS, forced=forced)
    if case == "delta after stop":
        # The delta after the stop is not read, so the input stays whole: only the lifecycle fails.
        expected = {"block_lifecycle"}
    assert failed(report) == expected, report.to_text()
    assert evidence in "\n".join(check.evidence for check in report.failed)


def anthropic_message(blocks: list[dict[str, Any]], stop: str | None = "tool_use") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": PARIS}


def test_anthropic_messages_buffered() -> None:
    anthropic = pytest.importorskip("anthropic")
    clean = anthropic_message([{"type": "text", "text": "Checking."}, TOOL_USE])
    report = check_completion(anthropic.types.Message.model_validate(clean), TOOLS, forced="any")
    assert (report.format, report.mode) == ("anthropic-messages", "buffered")
    assert report.ok and not report.failed, report.to_text()
    assert "index_present" not in {check.id for check in report.checks}
    prose = check_completion(anthropic_message([{"type": "text", "text": "No."}], "end_turn"), TOOLS, forced="any")
    assert failed(prose) == {"forced_tool"}
    bad_input = check_completion(anthropic_message([TOOL_USE | {"input": '{"city": "Paris"}'}]), TOOLS)
    assert failed(bad_input) == {"arguments_json"}
    cut = check_completion(anthropic_message([TOOL_USE], "max_tokens"), TOOLS)
    assert failed(cut) == {"finish_reason"} and "'max_tokens'" in cut["finish_reason"].evidence
    no_id = check_completion(anthropic_message([TOOL_USE | {"id": None}]), TOOLS)
    assert failed(no_id) == {"call_ids"}


# --- OpenAI Responses -----------------------------------------------------------------------------------------------


def responses_stream(
    *, name: str = "get_weather", deltas: tuple[str, ...] = ('{"city":', '"Paris"}'), done: str | None = None
) -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": ""}
    text = "".join(deltas) if done is None else done
    return [
        {"type": "response.created", "response": {"id": "resp_1", "object": "response", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        *(
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": d}
            for d in deltas
        ),
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": text},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": item | {"arguments": text, "status": "completed"},
        },
        {"type": "response.completed", "response": {"id": "resp_1", "object": "response", "status": "completed"}},
    ]


def test_a_clean_responses_stream_passes() -> None:
    report = check_stream(responses_stream(), TOOLS, forced={"type": "function", "name": "get_weather"})
    assert report.format == "openai-responses"
    assert [check.id for check in report.checks] == [
        "finish_reason",
        "call_ids",
        "tool_names",
        "arguments_string",
        "arguments_json",
        "arguments_valid",
        "forced_tool",
        "item_lifecycle",
        "well_formed",
    ]
    assert all(check.status is CheckStatus.PASSED for check in report.checks), report.to_text()


def _unknown_item(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events.insert(3, {"type": "response.function_call_arguments.delta", "output_index": 7, "delta": ""})
    return events


def _prose(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    message = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    return [
        events[0],
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "delta": "Sunny."},
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        events[-1],
    ]


RESPONSES_BROKEN: dict[str, tuple[Callable[[], list[dict[str, Any]]], Any, set[str], str]] = {
    "unknown tool": (lambda: responses_stream(name="weather"), None, {"tool_names"}, "'weather' is not a declared"),
    "bad JSON": (lambda: responses_stream(deltas=('{"city":', "Paris}")), None, {"arguments_json"}, "INVALID_JSON"),
    "delta for unknown item": (
        lambda: _unknown_item(responses_stream()),
        None,
        {"item_lifecycle"},
        "names no added item (output_index 7",
    ),
    ".done differs from the deltas": (
        lambda: responses_stream(done='{"city":"Lyon"}'),
        None,
        {"item_lifecycle"},
        "ARGUMENTS_MISMATCH",
    ),
    "prose under forced tool": (lambda: _prose(responses_stream()), "get_weather", {"forced_tool"}, "'Sunny.'"),
    "no terminal event": (lambda: responses_stream()[:-1], None, {"finish_reason"}, "no terminal event"),
    "trailing data in the deltas": (
        lambda: responses_stream(deltas=('{"city":', '"Paris"}', "}")),
        None,
        {"arguments_json"},
        "TRAILING_DATA",
    ),
}


@pytest.mark.parametrize("case", RESPONSES_BROKEN)
def test_broken_responses_streams_fail_the_right_check(case: str) -> None:
    build, forced, expected, evidence = RESPONSES_BROKEN[case]
    report = check_stream(build(), TOOLS, forced=forced)
    assert failed(report) == expected, report.to_text()
    assert evidence in "\n".join(check.evidence for check in report.failed)


def test_responses_buffered() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}
    response = {"id": "resp_1", "object": "response", "status": "completed", "output": [item]}
    report = check_completion(response, TOOLS)
    assert (report.format, report.mode) == ("openai-responses", "buffered")
    assert failed(report) == {"arguments_valid"}  # {} misses the required city
    fine = response | {"output": [item | {"arguments": '{"city": "Paris"}'}]}
    assert check_completion(fine, TOOLS).ok
    assert failed(check_completion(fine | {"status": "incomplete"}, TOOLS)) == {"finish_reason"}
    as_object = fine | {"output": [item | {"arguments": PARIS}]}
    assert failed(check_completion(as_object, TOOLS)) == {"arguments_string"}


# --- recordings -------------------------------------------------------------------------------------------------------

RECORDINGS = [
    recording
    for format in ("openai-chat", "anthropic-messages", "openai-responses")
    for recording in iter_recordings(format=format)
]

# A manifest's violation code (what reassemble reports for the recording) -> the check that must fail for it.
CODE_TO_CHECK = {
    "MISSING_INDEX": "index_present",
    "ID_CHANGED": "one_call_per_index",
    "NAME_CHANGED": "one_call_per_index",
    "INVALID_JSON": "arguments_json",
    "TRAILING_DATA": "arguments_json",
    "TRUNCATED": "arguments_json",
    "ARGUMENTS_NOT_OBJECT": "arguments_json",
    "EMPTY_ARGUMENTS": "arguments_json",
    "ARGUMENTS_NOT_STRING": "arguments_string",
    "MISSING_ID": "call_ids",
    "UNKNOWN_TOOL": "tool_names",
    "MISSING_REQUIRED_ARGUMENT": "arguments_valid",
    "UNEXPECTED_ARGUMENT": "arguments_valid",
    "TYPE_MISMATCH": "arguments_valid",
    "ENUM_OUT_OF_RANGE": "arguments_valid",
    "CONSTRAINT_VIOLATION": "arguments_valid",
    "TOOL_CHOICE_IGNORED": "forced_tool",
    "NO_FINISH_REASON": "finish_reason",
    "MULTIPLE_FINISH_REASONS": "finish_reason",
    "FINISH_WITHOUT_CALLS": "finish_reason",
    "PROVIDER_ERROR": "finish_reason",  # an error event ends the stream instead of a finish
    "STREAM_SPLICED": "block_lifecycle",
    "ARGUMENTS_MISMATCH": "item_lifecycle",
}
INDEX_REUSED = {"openai-chat": "one_call_per_index", "anthropic-messages": "block_lifecycle"}

# Deviations the core reads silently (its manifests list no violation for them) but the contract names, by the
# manifest's quirk id. Each is exactly what the check exists to catch.
CONTRACT_ONLY = {
    "Q1": {"id_once", "name_once"},  # the id and name repeated on the continuation fragment
    "Q2": {"id_once"},  # the id repeated on every fragment
    "Q21": {"name_once"},  # the name arrives on a later fragment, not the first
    "Q9": {"calls_contiguous"},  # parallel calls interleaved (a warning: the report stays ok)
    "Q27": {"item_lifecycle"},  # arguments only in .done, or an item id that changes on every event
}


def manifest_codes(recording: Recording) -> list[str]:
    expected = recording.expected
    codes = list(expected.get("violations", []))
    for call in expected.get("calls", []):
        codes += call.get("violations", [])
        codes += [error.split(" ")[0] for error in call.get("errors", [])]
    return codes


def checks_for(recording: Recording) -> set[str]:
    """The checks the manifest's codes (and quirk) say must fail."""
    expected = recording.expected
    named_forced = isinstance(recording.request, dict) and isinstance(recording.request.get("tool_choice"), dict)
    calls = expected.get("calls", [])
    checks = set(CONTRACT_ONLY.get(recording.manifest.get("quirk") or "", set()))
    for code in manifest_codes(recording):
        if code in CODE_TO_CHECK:
            checks.add(CODE_TO_CHECK[code])
        elif code == "INDEX_REUSED":
            checks.add(INDEX_REUSED[recording.format])
        elif code == "FINISH_REASON_MISMATCH" and not named_forced:
            checks.add("finish_reason")  # under a named forced tool 'stop' is the documented deviation
        elif code == "STREAM_CUT" and calls:
            checks.add("finish_reason")  # a cutting finish (length, max_tokens, incomplete) with calls
        if code == "TRUNCATED" and recording.format == "anthropic-messages":
            checks.add("block_lifecycle")  # here a truncated input is a tool_use block cut before its stop
    return checks


@pytest.mark.parametrize("recording", RECORDINGS, ids=[recording.name for recording in RECORDINGS])
def test_every_recording_fails_exactly_the_checks_its_manifest_implies(recording: Recording) -> None:
    report = check_stream(recording)
    assert report.subject == recording.name and report.format == recording.format
    expected = checks_for(recording)
    assert failed(report) == expected, report.to_text()
    clean = not manifest_codes(recording) or set(manifest_codes(recording)) <= {"FINISH_REASON_MISMATCH"}
    if clean:
        assert report.ok == (expected <= {"calls_contiguous"}), report.to_text()
    if "FINISH_REASON_MISMATCH" in manifest_codes(recording) and "finish_reason" not in expected:
        assert report["finish_reason"].note is not None and "documented deviation" in report["finish_reason"].note


def test_recordings_read_the_same_from_their_chunks_with_the_recorded_request() -> None:
    for recording in RECORDINGS:
        options = recording.reassemble_options()
        from_chunks = check_stream(
            recording.chunks(), options["tools"], forced=options["tool_choice"], subject=recording.name
        )
        assert from_chunks.as_dict() == check_stream(recording).as_dict(), recording.name


def test_a_recording_s_request_can_be_overridden() -> None:
    recording = next(r for r in RECORDINGS if r.name == "openai-chat/q12-forced-tool-finish-stop")
    assert check_stream(recording).ok
    assert failed(check_stream(recording, forced="none")) == {"finish_reason"}


# --- misuse and hostile input -----------------------------------------------------------------------------------------


def test_misuse_raises() -> None:
    with pytest.raises(ValueError, match="'openai-chat', 'anthropic-messages', 'openai-responses'"):
        check_stream(chat_stream(), format="gemini")
    with pytest.raises(ValueError, match="format must be one of"):
        check_completion(completion(), format="chat")
    with pytest.raises(ValueError, match="gemini"):
        check_completion({"candidates": []})
    with pytest.raises(TypeError, match="got a dict \\(a single chunk"):
        check_stream(chat_stream()[0])
    with pytest.raises(TypeError, match="encode it"):
        check_stream("data: {}\n\n")
    with pytest.raises(TypeError, match="got int"):
        check_stream(5)
    with pytest.raises(TypeError, match="buffered response"):
        check_completion([completion()])
    with pytest.raises(TypeError, match="tool_choice"):
        check_stream(chat_stream(), forced=3)


def test_assert_helpers() -> None:
    assert assert_stream(chat_stream("interleave"), TOOLS).ok  # a failed warning does not raise
    with pytest.raises(AssertionError) as raised:
        assert_stream(chat_stream("missing_index"), TOOLS)
    message = str(raised.value)
    assert "index_present" in message and "index is absent (MISSING_INDEX)" in message and "chunk 1" in message
    assert assert_completion(completion(), TOOLS).ok
    with pytest.raises(AssertionError, match="arguments_json"):
        assert_completion(completion("truncate"), TOOLS)


def test_malformed_chunks_are_failed_checks() -> None:
    chunks: list[Any] = [*chat_stream()[:3], 5, {"choices": "x"}, {"choices": [{"index": 0, "delta": "y"}]}]
    chunks += chat_stream()[3:]
    report = check_stream(chunks, TOOLS)
    assert failed(report) == {"well_formed"}
    evidence = report["well_formed"].evidence
    assert "chunk 3: 5 is not a JSON object" in evidence and "chunk 4: 'choices' is 'x'" in evidence
    assert "chunk 5: choice 0's delta is 'y'" in evidence
    raw = sse(chat_stream()[:2]) + b"data: {not json\n\n" + sse(chat_stream()[2:])
    report = check_stream(raw, TOOLS)
    assert failed(report) == {"well_formed"}
    assert "event 2's data is not JSON" in report["well_formed"].evidence
    assert failed(check_stream(b"\xff\xfe" + sse(chat_stream()), TOOLS)) == {"well_formed"}
    nothing = check_stream([], TOOLS)
    assert failed(nothing) == {"finish_reason", "well_formed"}
    assert "the stream holds no event" in nothing["well_formed"].evidence


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    [
        "choices", "index", "delta", "tool_calls", "id", "type", "function", "name", "arguments", "finish_reason",
        "content", "error", "object", "content_block", "partial_json", "stop_reason", "message", "output_index",
        "item", "item_id", "call_id", "response", "status", "input", "text", "output",
    ]
)  # fmt: skip
TYPES = st.sampled_from(
    [
        "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
        "message_stop", "error", "input_json_delta", "text_delta", "tool_use", "function", "function_call",
        "response.output_item.added", "response.function_call_arguments.delta", "response.completed",
        "response.function_call_arguments.done", "response.output_item.done", "chat.completion.chunk",
    ]
)  # fmt: skip
SHAPED = st.recursive(
    st.none() | st.integers(-2, 3) | TYPES | st.text(max_size=6) | st.booleans(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=25,
)
HOSTILE_STREAMS = st.lists(st.one_of(SHAPED, JSON, st.dictionaries(KEYS, SHAPED, max_size=6)), max_size=10)


def _renders(report: ContractReport) -> None:
    import xml.etree.ElementTree as ET

    assert isinstance(report, ContractReport)
    report.to_text()
    report.to_markdown()
    json.loads(report.to_json())
    ET.fromstring(report.to_junit())


@given(HOSTILE_STREAMS, st.sampled_from([None, "openai-chat", "anthropic-messages", "openai-responses"]))
@example([{"index": None, "type": []}], None)  # an unhashable type once reached a set lookup
def test_hostile_streams_give_a_report(chunks: list[Any], format: str | None) -> None:
    _renders(check_stream(chunks, TOOLS, format=format, forced="required"))


@given(
    st.dictionaries(KEYS, SHAPED, max_size=6),
    st.sampled_from(["openai-chat", "anthropic-messages", "openai-responses"]),
)
def test_hostile_responses_give_a_report(response: dict[str, Any], format: str) -> None:
    _renders(check_completion(response, TOOLS, format=format, forced="get_weather"))


@given(st.binary(max_size=300) | st.builds(lambda b: b"data: " + b, st.binary(max_size=100)))
def test_hostile_bytes_give_a_report(data: bytes) -> None:
    _renders(check_stream(data, TOOLS))


def _mutate(data: st.DataObject, value: Any) -> Any:
    """``value`` with one field somewhere inside replaced by arbitrary JSON-ish data, or deleted."""
    if isinstance(value, dict) and value:
        key = data.draw(st.sampled_from(sorted(value)))
        copy = dict(value)
        action = data.draw(st.sampled_from(["replace", "delete", "descend"]))
        if action == "delete":
            del copy[key]
        elif action == "replace":
            copy[key] = data.draw(SHAPED)
        else:
            copy[key] = _mutate(data, value[key])
        return copy
    if isinstance(value, list) and value:
        position = data.draw(st.integers(0, len(value) - 1))
        copy_list = list(value)
        copy_list[position] = _mutate(data, value[position]) if data.draw(st.booleans()) else data.draw(SHAPED)
        return copy_list
    return data.draw(SHAPED)


BASES: list[Callable[[], list[dict[str, Any]]]] = [
    lambda: chat_stream(),
    lambda: chat_stream("interleave"),
    lambda: anthropic_stream(),
    lambda: anthropic_stream(text="Hi."),
    lambda: responses_stream(),
]


@given(st.data())
def test_mutated_streams_give_a_report(data: st.DataObject) -> None:
    events: Any = data.draw(st.sampled_from(BASES))()
    for _ in range(data.draw(st.integers(1, 4))):
        events = _mutate(data, events)
    forced = data.draw(st.sampled_from([None, "required", "get_weather", {"type": "tool", "name": "get_weather"}]))
    _renders(check_stream(events if isinstance(events, list) else [events], TOOLS, forced=forced))


BUFFERED_BASES: list[tuple[str, Callable[[], dict[str, Any]]]] = [
    ("openai-chat", lambda: completion()),
    ("anthropic-messages", lambda: anthropic_message([TOOL_USE])),
    ("openai-responses", lambda: {"status": "completed", "output": [{"type": "function_call", "call_id": "c"}]}),
]


@given(st.data())
def test_mutated_responses_give_a_report(data: st.DataObject) -> None:
    format, build = data.draw(st.sampled_from(BUFFERED_BASES))
    response = build()
    for _ in range(data.draw(st.integers(1, 4))):
        response = _mutate(data, response)
    if isinstance(response, dict):
        _renders(check_completion(response, TOOLS, format=format, forced="required"))


def _fragments(*fragments: dict[str, Any]) -> list[dict[str, Any]]:
    return [*(chunk({"tool_calls": [fragment]}) for fragment in fragments), chunk({}, "tool_calls")]


def test_another_id_at_a_taken_index_is_read_as_reassemble_reads_it() -> None:
    header = {"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather"}}
    # Mid-value (a brace inside a string does not close it): the same call, its id changed.
    mid_value = _fragments(
        header | {"function": {"name": "get_weather", "arguments": '{"city": "Pa}r'}},
        {"index": 0, "id": "call_b", "function": {"arguments": 'is"}'}},
    )
    report = check_stream(mid_value, TOOLS)
    assert failed(report) == {"one_call_per_index"}
    assert "ID_CHANGED: read as the same call" in report["one_call_per_index"].evidence
    # After the value closed: a new call at the reused index.
    closed = _fragments(
        header | {"function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"index": 0, "id": "call_b", "function": {"arguments": '{"city": "Tokyo"}'}},
    )
    report = check_stream(closed, TOOLS)
    assert failed(report) == {"one_call_per_index", "tool_names"}  # the second call's name never came
    assert "INDEX_REUSED: read as a new call" in report["one_call_per_index"].evidence
    assert "choice 0, call 'call_b' (index 0, None) (chunk 1): tool name None" in report["tool_names"].evidence
    assert failed(check_stream(closed)) == {"one_call_per_index", "tool_names"}  # even with no tools declared


def test_the_module_docstring_runs() -> None:
    import doctest

    import toolwire.contract

    assert doctest.testmod(toolwire.contract).failed == 0
