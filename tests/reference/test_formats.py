"""The reference engine on every wire format but Chat Completions (docs/semantics.md, "Every wire format").

Real recorded Anthropic Messages and OpenAI Responses streams (../shared/corpora/provider-streams) must give their
manifests' calls, finish, server calls and output items; small hand-written event lists pin each decoder's rules,
format detection and the SSE/NDJSON framing of raw bytes. Only ``toolwire.reference`` runs here: the differential
tests hold the Rust core to the same results.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from anthropic._models import construct_type
from anthropic.types import RawMessageStreamEvent

from tests.support.paths import CORPORA
from toolwire._model import InvalidToolCall, Limits, Severity, StreamResult, ToolCall, Violation, ViolationCode
from toolwire._pipeline._choice import ToolChoice, parse_tool_choice
from toolwire.errors import MalformedChunkError
from toolwire.reference._engine import Engine
from toolwire.reference._sse import SseFramer
from toolwire.reference.decode import detect
from toolwire.reference.decode.openai_completions import undecided

STREAMS = CORPORA / "provider-streams" / "streams"
CORPUS_FORMATS = ("anthropic-messages", "openai-responses")

V = ViolationCode


# ------------------------------------------------------------------------------------------------------ running


@dataclass
class Run:
    """What the reference made of one stream: each call with the number of the event that handed it over."""

    handed: list[tuple[int | None, ToolCall | InvalidToolCall]] = field(default_factory=list)
    seen: list[Violation] = field(default_factory=list)
    result: StreamResult = field(default_factory=StreamResult)

    @property
    def calls(self) -> list[ToolCall | InvalidToolCall]:
        """Every call, valid or not, by seq."""
        return sorted([*self.result.calls, *self.result.invalid_calls], key=lambda call: (call.choice, call.seq))

    def at(self, seq: int) -> int | None:
        """The event after which the call ``seq`` came out (None: at the end)."""
        return next(position for position, call in self.handed if call.seq == seq)


def engine(
    format: str | None = None,
    *,
    emit: str = "call_end",
    tool_choice: ToolChoice | None = None,
    limits: Limits | None = None,
    seen: list[Violation] | None = None,
) -> Engine:
    return Engine(
        tool_choice=tool_choice or parse_tool_choice(None),
        emit=emit,
        limits=limits or Limits(),
        on_violation=None if seen is None else seen.append,
        format=format,
    )


def run(events: Iterable[Any], format: str | None = None, **options: Any) -> Run:
    """Feed decoded events one at a time."""
    out = Run()
    machine = engine(format, seen=out.seen, **options)
    for number, event in enumerate(events):
        out.handed += [(number, call) for call in machine.feed(event)]
    out.handed += [(None, call) for call in machine.end()]
    out.result = machine.result()
    return out


def run_bytes(pieces: Iterable[bytes], format: str | None = None, **options: Any) -> Run:
    """Feed raw stream bytes, split as given."""
    out = Run()
    machine = engine(format, seen=out.seen, **options)
    for piece in pieces:
        out.handed += [(None, call) for call in machine.feed_bytes(piece)]
    out.handed += [(None, call) for call in machine.end()]
    out.result = machine.result()
    return out


def codes(violations: Iterable[Violation]) -> list[str]:
    return sorted(violation.code.value for violation in violations)


def call_codes(call: ToolCall | InvalidToolCall) -> list[str]:
    return codes([*getattr(call, "errors", ()), *call.violations])


def split_anywhere(data: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, 12))) if len(data) > 1 else []
    return [data[start:end] for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def sse(events: Iterable[dict[str, Any]], *, named: bool = True) -> bytes:
    """Events as a server-sent event stream, each named after its type (as Anthropic and OpenAI send them)."""
    lines = []
    for event in events:
        if named and "type" in event:
            lines.append(f"event: {event['type']}")
        lines.append(f"data: {json.dumps(event)}")
        lines.append("")
    return ("\n".join(lines) + "\n").encode()


# ----------------------------------------------------------------------------------------------- the corpus


def corpus_entries() -> list[dict[str, Any]]:
    manifest = STREAMS / "MANIFEST.jsonl"
    if not manifest.exists():
        return []
    entries = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [entry for entry in entries if entry["wire_format"] in CORPUS_FORMATS]


CORPUS = corpus_entries()


def corpus_events(path: Path) -> list[dict[str, Any]]:
    """The JSON events of a corpus file (``.jsonl``: one a line; ``.sse``: the data of each event)."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    events: list[dict[str, Any]] = []
    framer = SseFramer(Limits().max_event_bytes)

    def keep(event: Any) -> None:
        data = event.data.strip()
        if data and data != b"[DONE]":
            events.append(json.loads(data))

    framer.feed(path.read_bytes(), keep)
    framer.finish(keep)
    return events


def check_corpus(entry: dict[str, Any], out: Run) -> None:
    result = out.result
    assert sorted((call for _, call in out.handed), key=lambda call: call.seq) == out.calls
    assert len(out.calls) == len(entry["expected_calls"])
    for call, wanted in zip(out.calls, entry["expected_calls"], strict=True):
        assert (call.id, call.name, call.index) == (wanted["id"], wanted["name"], wanted["index"])
        if wanted.get("complete", True):
            assert isinstance(call, ToolCall), call_codes(call)
            assert call.arguments == wanted["arguments"]
            assert not {V.MISSING_ID, V.MISSING_INDEX, V.TYPE_MISSING, V.ARGUMENTS_NOT_STRING} & {
                violation.code for violation in call.violations
            }
        else:
            assert isinstance(call, InvalidToolCall)
            assert {V.TRUNCATED, V.INVALID_JSON} & {error.code for error in call.errors}
            assert call.arguments_json == wanted["arguments_raw"]
        if "item_id" in wanted:
            assert call.extra == {"item_id": wanted["item_id"]}
    assert result.finish_reason == entry["expected_finish"]
    if entry["wire_format"] == "anthropic-messages":
        servers = entry.get("expected_server_tool_calls", [])
        assert [(block["type"], block["id"], block["name"], block["input"]) for block in result.server_calls] == [
            (server["type"], server["id"], server["name"], server["arguments"]) for server in servers
        ]
    else:  # Responses: built-in tool calls and their outputs, beside the reasoning and message items
        others = [
            (item.value["type"], item.value["id"])
            for item in result.output
            if item.value["type"] not in {"reasoning", "message"}
        ]
        assert others == [(item["type"], item["id"]) for item in entry.get("expected_other_output_items", [])]
        assert [call["type"] for call in result.server_calls] == [kind for kind, _ in others if kind.endswith("_call")]
    stream_codes = {violation.code for violation in result.violations}
    if "expected_error" in entry:
        assert V.PROVIDER_ERROR in stream_codes
    elif all(call.get("complete", True) for call in entry["expected_calls"]):
        assert result.ok, codes(result.violations)


@pytest.mark.skipif(not CORPUS, reason=f"{STREAMS} is absent (the corpora live in ../shared)")
@pytest.mark.parametrize("entry", CORPUS, ids=[entry["file"] for entry in CORPUS])
def test_corpus_stream(entry: dict[str, Any]) -> None:
    path = STREAMS / entry["file"]
    tool_choice = parse_tool_choice(entry.get("request_tool_choice"))
    if path.suffix == ".sse":
        out = run_bytes([path.read_bytes()], tool_choice=tool_choice)
    else:
        out = run(corpus_events(path), tool_choice=tool_choice)
    check_corpus(entry, out)


@pytest.mark.skipif(not CORPUS, reason=f"{STREAMS} is absent (the corpora live in ../shared)")
@pytest.mark.parametrize("entry", CORPUS, ids=[entry["file"] for entry in CORPUS])
def test_corpus_stream_every_way(entry: dict[str, Any]) -> None:
    """Bytes split anywhere, NDJSON lines, decoded events and the format named: one result."""
    path = STREAMS / entry["file"]
    events = corpus_events(path)
    raw = path.read_bytes() if path.suffix == ".sse" else sse(events)
    lines = b"".join(json.dumps(event).encode() + b"\r\n" for event in events)
    results = [
        run(events).result,
        run(events, format=entry["wire_format"]).result,
        run_bytes(split_anywhere(raw, 1)).result,
        run_bytes(split_anywhere(lines, 2)).result,
    ]
    assert all(result == results[0] for result in results[1:])
    check_corpus(entry, run(events))


# ------------------------------------------------------------------------------------------ anthropic-messages


def message_start(message_id: str = "msg_1", **usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {"id": message_id, "type": "message", "role": "assistant", "content": [], "usage": usage or None},
    }


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def tool_use(index: int, call_id: str = "toolu_1", name: str = "get_weather", **block: Any) -> dict[str, Any]:
    return block_start(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}, **block})


def json_delta(index: int, partial: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": partial},
    }


def delta(index: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **fields}}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(stop_reason: str | None, **usage: int) -> dict[str, Any]:
    return {"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": usage or None}


STOP = {"type": "message_stop"}


def test_anthropic_q25_empty_first_partial_json() -> None:
    out = run(
        [
            message_start(),
            tool_use(0),
            json_delta(0, ""),
            json_delta(0, '{"city": '),
            json_delta(0, '"Paris"}'),
            block_stop(0),
            message_delta("tool_use"),
            STOP,
        ]
    )
    (call,) = out.calls
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments, call.index) == ("toolu_1", "get_weather", {"city": "Paris"}, 0)
    assert call.violations == () and out.result.violations == ()


def test_anthropic_q25_invalid_partial_json() -> None:
    out = run(
        [message_start(), tool_use(0), json_delta(0, '{"city": Paris}'), block_stop(0), message_delta("tool_use")]
    )
    (call,) = out.calls
    assert isinstance(call, InvalidToolCall)
    assert codes(call.errors) == ["INVALID_JSON"]
    assert call.arguments_json == '{"city": Paris}'


def test_anthropic_q26_a_second_message_start_with_another_id_is_spliced() -> None:
    out = run(
        [
            message_start("msg_A"),
            tool_use(0, "toolu_A"),
            json_delta(0, '{"city": "Par'),
            message_start("msg_A"),  # the same id again: ignored
            message_start("msg_B"),
            tool_use(0, "toolu_B"),
            json_delta(0, '{"city": "Paris"}'),
            block_stop(0),
            message_delta("tool_use"),
        ]
    )
    assert codes(out.result.violations) == ["STREAM_SPLICED"]
    assert [v.code for v in out.seen].count(V.STREAM_SPLICED) == 1
    spliced = out.result.violations[0]
    assert (spliced.severity, spliced.choice, spliced.seq) == (Severity.ERROR, None, None)
    first, second = out.calls
    assert (first.id, call_codes(first)) == ("toolu_A", ["TRUNCATED"])
    assert (second.id, second.arguments, call_codes(second)) == ("toolu_B", {"city": "Paris"}, ["INDEX_REUSED"])


@pytest.mark.parametrize(
    ("start_input", "deltas", "arguments", "found"),
    [
        ({}, [], {}, []),  # a held {} is fed at the stop: no EMPTY_ARGUMENTS
        ({}, [""], {}, []),
        (None, [], {}, ["EMPTY_ARGUMENTS"]),
        ({"player": "player1"}, [], {"player": "player1"}, []),  # programmatic callers send the input whole
        ({"x": 1}, ['{"y": 2}'], {"y": 2}, []),  # deltas replace the start input (the SDK's rule)
        ("text", [], "text", ["ARGUMENTS_NOT_OBJECT"]),
    ],
)
def test_anthropic_start_input(start_input: Any, deltas: list[str], arguments: Any, found: list[str]) -> None:
    events = [message_start(), tool_use(0, input=start_input), *(json_delta(0, text) for text in deltas), block_stop(0)]
    out = run([*events, message_delta("tool_use")])
    (call,) = out.calls
    assert (call.arguments, call_codes(call)) == (arguments, found)
    assert call.arguments_json == ("" if start_input is None else call.arguments_json)
    assert out.at(call.seq) == len(events) - 1  # handed over by the content_block_stop


def test_anthropic_held_input_counts_when_the_stream_is_cut_before_the_stop() -> None:
    out = run([message_start(), tool_use(0, input={"a": 1}), message_delta("max_tokens")])
    (call,) = out.calls
    assert (call.arguments, call_codes(call)) == ({"a": 1}, ["STREAM_CUT"])
    out = run([message_start(), tool_use(0, input={"a": 1})])  # and when it just ends
    assert (out.calls[0].arguments, call_codes(out.calls[0])) == ({"a": 1}, [])


def test_anthropic_stop_with_the_value_open_truncates_and_later_bytes_trail() -> None:
    out = run([message_start(), tool_use(0), json_delta(0, '{"a": [1'), block_stop(0), json_delta(0, ", 2]}")])
    (call,) = out.calls
    assert out.at(0) == 3
    assert codes(call.errors) == ["TRUNCATED"]
    trailing = [v for v in out.result.violations if v.code is V.TRAILING_DATA]
    assert [(v.seq, v.data) for v in trailing] == [(0, {"text": ", 2]}", "bytes": 5, "fragments": 1})]


def test_anthropic_call_end_hands_over_at_the_stop_and_stream_end_waits() -> None:
    events = [message_start(), tool_use(0, "a"), json_delta(0, '{"x":'), json_delta(0, "1}"), block_stop(0)]
    events += [tool_use(1, "b"), json_delta(1, "{}"), block_stop(1), message_delta("tool_use")]

    def handed(**options: Any) -> list[tuple[int | None, str]]:
        return [(number, call.id) for number, call in run(events, **options).handed]

    assert handed() == [(4, "a"), (7, "b")]
    assert handed(emit="complete") == [(3, "a"), (6, "b")]
    assert handed(emit="stream_end") == [(None, "a"), (None, "b")]


def test_anthropic_interleaved_blocks_follow_the_accumulator_rule() -> None:
    # A settled call is handed over when a fragment of another call arrives, before its own stop (as in chat).
    events = [message_start(), tool_use(0, "a"), json_delta(0, "{}"), tool_use(1, "b"), json_delta(1, "{}")]
    events += [block_stop(1), block_stop(0), message_delta("tool_use")]
    assert [(number, call.id) for number, call in run(events).handed] == [(3, "a"), (5, "b")]


@pytest.mark.parametrize(
    ("reason", "with_call", "found"),
    [
        ("tool_use", True, []),
        ("tool_use", False, ["FINISH_WITHOUT_CALLS"]),
        ("end_turn", True, ["FINISH_REASON_MISMATCH"]),
        ("end_turn", False, []),
        ("max_tokens", False, ["STREAM_CUT"]),
        ("refusal", False, ["STREAM_CUT"]),
        ("model_context_window_exceeded", True, ["STREAM_CUT"]),
        ("stop_sequence", True, []),
        ("pause_turn", False, []),
    ],
)
def test_anthropic_stop_reasons(reason: str, with_call: bool, found: list[str]) -> None:
    call = [tool_use(0), json_delta(0, "{}"), block_stop(0)] if with_call else []
    out = run([message_start(), *call, message_delta(reason), STOP])
    assert out.result.finish_reason == reason
    assert codes(out.result.violations) == found


def test_anthropic_output_blocks_are_completed_from_their_deltas() -> None:
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    events = [
        message_start(input_tokens=10, output_tokens=1),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, "thinking_delta", thinking="Let me "),
        delta(0, "thinking_delta", thinking="think."),
        delta(0, "signature_delta", signature="c2ln"),
        block_stop(0),
        block_start(1, {"type": "text", "text": "", "citations": None}),
        delta(1, "text_delta", text="Paris "),
        delta(1, "citations_delta", citation={"type": "char_location", "cited_text": "x"}),
        delta(1, "text_delta", text="it is."),
        block_stop(1),
        block_start(2, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
        json_delta(2, '{"query": '),
        json_delta(2, '"weather"}'),
        block_stop(2),
        block_start(3, {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {}}),
        json_delta(3, '{"query": "unfinished'),
        block_start(4, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "m", "input": {"k": 1}}),
        json_delta(4, "  "),
        tool_use(5, "toolu_1", caller=caller),
        block_stop(5),
        block_start(6, {"type": "redacted_thinking", "data": "abc"}),
        message_delta("tool_use", output_tokens=50),
    ]
    out = run(events)
    assert [(item.after_calls, item.value) for item in out.result.output] == [
        (0, {"type": "thinking", "thinking": "Let me think.", "signature": "c2ln"}),
        (0, {"type": "text", "text": "Paris it is.", "citations": [{"type": "char_location", "cited_text": "x"}]}),
        (0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "weather"}}),
        (0, {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": '{"query": "unfinished'}),
        (0, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "m", "input": {"k": 1}}),
        (1, {"type": "redacted_thinking", "data": "abc"}),
    ]
    assert [block["id"] for block in out.result.server_calls] == ["srvtoolu_1", "srvtoolu_2", "mcptoolu_1"]
    assert out.result.text == "Paris it is."
    assert out.result.usage == {"input_tokens": 10, "output_tokens": 50}
    (call,) = out.calls
    assert (call.extra, call.arguments, call_codes(call)) == ({"caller": caller}, {}, [])


def test_a_call_whose_start_never_came_lacks_id_and_name_but_not_its_type() -> None:
    out = run([message_start(), json_delta(3, '{"a": 1}'), block_stop(3), message_delta("tool_use")])
    (call,) = out.calls
    assert (call.index, call.arguments, call_codes(call)) == (3, {"a": 1}, ["MISSING_ID", "MISSING_NAME"])
    out = run([{"type": "response.created"}, args_delta(0, "{}"), args_done(0, "{}"), terminal()])
    assert call_codes(out.calls[0]) == ["MISSING_ID", "MISSING_NAME"]
    out = run([bedrock_delta(1, toolUse={"input": "{}"}), bedrock_stop(1), message_stop("tool_use")])
    assert call_codes(out.calls[0]) == ["MISSING_ID", "MISSING_NAME"]


def test_anthropic_error_event() -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    out = run([message_start(), tool_use(0), json_delta(0, '{"a"'), {"type": "error", "error": error}])
    assert codes(out.result.violations) == ["NO_FINISH_REASON", "PROVIDER_ERROR"]
    assert next(v.data for v in out.result.violations if v.code is V.PROVIDER_ERROR) == error
    assert call_codes(out.calls[0]) == ["STREAM_CUT", "TRUNCATED"]
    bare = {"type": "error"}  # no error member: the event itself is the payload, as before the format is known
    assert [v.data for v in run([message_start(), bare]).result.violations if v.code is V.PROVIDER_ERROR] == [bare]


def test_anthropic_sse_event_names_stand_in_for_a_missing_type() -> None:
    events = [message_start(), tool_use(0), json_delta(0, "{}"), block_stop(0), message_delta("tool_use")]
    raw = b"".join(
        f"event: {event['type']}\ndata: {json.dumps({k: v for k, v in event.items() if k != 'type'})}\n\n".encode()
        for event in events
    )
    out = run_bytes([raw], format="anthropic-messages")
    assert (out.calls[0].id, out.result.finish_reason) == ("toolu_1", "tool_use")


def test_anthropic_sdk_event_objects_are_read_as_their_json() -> None:
    events = [message_start(input_tokens=3), tool_use(0), json_delta(0, '{"a": 1}'), block_stop(0)]
    events += [message_delta("tool_use", output_tokens=9), STOP]
    objects = [construct_type(type_=RawMessageStreamEvent, value=event) for event in events]
    assert not isinstance(objects[0], dict)
    assert run(objects).result == run(events).result
    assert run(objects).calls[0].arguments == {"a": 1}


@pytest.mark.parametrize(
    ("event", "path", "problem"),
    [
        (tool_use(0, call_id=5), "content_block.id", "expected a string or null, got int"),
        (json_delta(0, ["x"]), "delta.partial_json", "expected a string or null, got list"),
        ({"type": "content_block_stop", "index": "0"}, "index", "expected an integer or null, got str"),
        (
            {"type": "content_block_start", "index": 0, "content_block": []},
            "content_block",
            "expected a mapping or an object with attributes, got list",
        ),
        (block_start(0, {"type": "text", "text": 1}), "content_block.text", "expected a string or null, got int"),
        ({"type": "content_block_delta", "delta": {}}, "index", "expected an integer, got nothing"),
        (
            {"type": "message_start", "message": {"id": "m", "usage": 5}},
            "message.usage",
            "expected a mapping or an object with attributes, got int",
        ),
    ],
)
def test_anthropic_malformed_events(event: dict[str, Any], path: str, problem: str) -> None:
    machine = engine("anthropic-messages")
    machine.feed(message_start())
    with pytest.raises(MalformedChunkError) as raised:
        machine.feed(event)
    assert (raised.value.chunk_number, raised.value.path, raised.value.problem) == (1, path, problem)


def test_anthropic_only_server_calls_take_an_input() -> None:
    events = [message_start(), block_start(0, {"type": "text", "text": ""}), json_delta(0, '{"a": 1}')]
    (item,) = run([*events, block_stop(0)]).result.output
    assert item.value == {"type": "text", "text": ""}


def test_anthropic_start_members_of_another_type_are_extended_as_if_absent() -> None:
    # Only what a decoder needs is type-checked: a thinking block's start members are kept as sent, and a delta
    # extends a member that was not a string (or a citations list) as if it had been absent.
    events = [message_start(), block_start(0, {"type": "thinking", "thinking": 5, "signature": None})]
    events += [delta(0, "thinking_delta", thinking="Hm."), block_stop(0), message_delta("end_turn")]
    (item,) = run(events).result.output
    assert item.value == {"type": "thinking", "thinking": "Hm.", "signature": None}
    (item,) = run(events[:2]).result.output
    assert item.value == {"type": "thinking", "thinking": 5, "signature": None}


# -------------------------------------------------------------------------------------------- openai-responses


def item_added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def function_call(item_id: str = "fc_1", arguments: str = "", **item: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": "call_1",
        "name": "multiply",
        "arguments": arguments,
        **item,
    }


def args_delta(index: int, text: str, item_id: str = "fc_1") -> dict[str, Any]:
    return {"type": "response.function_call_arguments.delta", "output_index": index, "item_id": item_id, "delta": text}


def args_done(index: int, text: str, item_id: str = "fc_1") -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "output_index": index,
        "item_id": item_id,
        "arguments": text,
    }


def terminal(kind: str = "completed", **response: Any) -> dict[str, Any]:
    return {"type": f"response.{kind}", "response": {"status": kind, **response}}


def test_responses_q27_arguments_only_in_done_are_taken() -> None:
    out = run(
        [
            item_added(0, function_call()),
            args_done(0, '{"a": 2}'),
            item_done(0, function_call(arguments='{"a": 2}')),
            terminal(),
        ]
    )
    (call,) = out.calls
    assert (call.id, call.arguments, call_codes(call), call.extra) == ("call_1", {"a": 2}, [], {"item_id": "fc_1"})
    assert out.at(0) == 1  # call_end: handed over at the .done
    assert out.result.violations == ()


def test_responses_q27_a_done_that_disagrees_wins() -> None:
    out = run([item_added(0, function_call()), args_delta(0, '{"a": 1}}'), args_done(0, '{"a": 2}'), terminal()])
    (call,) = out.calls
    assert isinstance(call, ToolCall)  # the deltas' TRAILING_DATA went with their text
    assert (call.arguments, call.arguments_json, call_codes(call)) == ({"a": 2}, '{"a": 2}', ["ARGUMENTS_MISMATCH"])


def test_responses_a_later_disagreeing_item_done_is_reported_on_the_stream() -> None:
    out = run(
        [item_added(0, function_call()), args_done(0, '{"a": 1}'), item_done(0, function_call(arguments='{"a": 9}'))]
    )
    (call,) = out.calls
    assert call.arguments == {"a": 1}
    assert [(v.code, v.seq) for v in out.result.violations if v.code is V.ARGUMENTS_MISMATCH] == [
        (V.ARGUMENTS_MISMATCH, 0)
    ]


def test_responses_q27_rotating_item_ids_do_not_split_the_call() -> None:
    events = [item_added(0, function_call("fc_a")), args_delta(0, '{"a"', "fc_b"), args_delta(0, ": 1}", "fc_c")]
    events += [args_done(0, '{"a": 1}', "fc_d"), item_done(0, function_call("fc_e", '{"a": 1}')), terminal()]
    out = run(events)
    (call,) = out.calls
    assert (call.arguments, call.extra, call_codes(call)) == ({"a": 1}, {"item_id": "fc_a"}, [])


def test_responses_an_item_done_without_added_opens_the_call() -> None:
    out = run([item_done(1, function_call(arguments='{"x": true}')), terminal()])
    (call,) = out.calls
    assert (call.id, call.name, call.index, call.arguments, call_codes(call)) == (
        "call_1",
        "multiply",
        1,
        {"x": True},
        [],
    )


def test_responses_other_items_are_output_in_order() -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi"}],
    }
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    events = [item_added(0, reasoning), item_done(0, reasoning), item_done(1, search)]
    events += [item_added(2, function_call()), args_done(2, "{}"), item_done(2, function_call(arguments="{}"))]
    events += [{"type": "response.output_text.delta", "output_index": 3, "delta": "Hi"}, item_done(3, message)]
    events += [terminal(usage={"total_tokens": 7})]
    out = run(events)
    assert [(item.after_calls, item.value) for item in out.result.output] == [(0, reasoning), (0, search), (1, message)]
    assert out.result.server_calls == (search,)
    assert (out.result.text, out.result.usage, out.result.finish_reason) == ("Hi", {"total_tokens": 7}, "completed")


def test_responses_incomplete_cuts_and_failed_is_a_provider_error() -> None:
    events = [item_added(0, function_call()), args_delta(0, '{"a": ')]
    out = run([*events, terminal("incomplete", incomplete_details={"reason": "max_output_tokens"})])
    assert (out.result.finish_reason, codes(out.result.violations)) == ("incomplete", ["STREAM_CUT"])
    assert call_codes(out.calls[0]) == ["STREAM_CUT", "TRUNCATED"]
    error = {"code": "server_error", "message": "boom"}
    out = run([*events, terminal("failed", error=error)])
    assert (out.result.finish_reason, codes(out.result.violations)) == ("failed", ["PROVIDER_ERROR"])
    assert out.result.violations[0].data == error
    assert call_codes(out.calls[0]) == ["STREAM_CUT", "TRUNCATED"]


def test_responses_final_arguments_sent_as_a_value() -> None:
    # The format promises a string: a value in its place is appended as its canonical text (as in Chat Completions).
    out = run([item_done(0, function_call(arguments={"a": 1})), terminal()])
    (call,) = out.calls
    assert (call.arguments, call_codes(call)) == ({"a": 1}, ["ARGUMENTS_NOT_STRING"])
    out = run([item_added(0, function_call(arguments={"a": 1})), args_done(0, "{}")])
    assert (out.calls[0].arguments, call_codes(out.calls[0])) == ({}, [])  # dropped at ``added``


def test_responses_a_rotating_call_id_does_not_split_the_call_either() -> None:
    events = [item_added(0, function_call()), args_delta(0, "{}")]
    events += [item_done(0, function_call(arguments="{}", call_id="call_2")), terminal()]
    (call,) = run(events).calls
    assert (call.id, call_codes(call)) == ("call_1", [])


def test_responses_terminal_statuses() -> None:
    out = run([terminal("cancelled")])
    assert (out.result.finish_reason, codes(out.result.violations)) == ("cancelled", ["STREAM_CUT"])
    error = {"code": "server_error"}
    out = run([{"type": "response.completed", "response": {"error": error}}])  # no status: the event's name
    assert (out.result.finish_reason, [(v.code, v.data) for v in out.result.violations]) == (
        "completed",
        [(V.PROVIDER_ERROR, error)],
    )


def test_responses_error_event_payload_is_the_whole_event() -> None:
    event = {"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": None}
    out = run([{"type": "response.created", "response": {"status": "in_progress"}}, event])
    assert [(v.code, v.data) for v in out.result.violations] == [(V.PROVIDER_ERROR, event), (V.NO_FINISH_REASON, None)]


@pytest.mark.parametrize(
    ("event", "path", "problem"),
    [
        (item_added(0, function_call(call_id=1)), "item.call_id", "expected a string or null, got int"),
        (args_delta(0, 5), "delta", "expected a string or null, got int"),
        (
            {"type": "response.function_call_arguments.delta", "output_index": True},
            "output_index",
            "expected an integer or null, got bool",
        ),
        (
            {"type": "response.completed", "response": {"status": 1}},
            "response.status",
            "expected a string or null, got int",
        ),
        ({"type": "response.output_item.added", "item": {}}, "output_index", "expected an integer, got nothing"),
    ],
)
def test_responses_malformed_events(event: dict[str, Any], path: str, problem: str) -> None:
    with pytest.raises(MalformedChunkError) as raised:
        run([{"type": "response.created", "response": {}}, event])
    assert (raised.value.chunk_number, raised.value.path, raised.value.problem) == (1, path, problem)


# ---------------------------------------------------------------------------------------------------- gemini


def chunk(*parts: dict[str, Any], finish: str | None = None, index: int | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish is not None:
        candidate["finishReason"] = finish
    if index is not None:
        candidate["index"] = index
    return {"candidates": [candidate], **extra}


def gemini_call(name: str, args: Any = None, **part: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name}
    if args is not None:
        call["args"] = args
    return {"functionCall": call, **part}


def test_gemini_q28_stop_in_a_later_chunk_than_the_call() -> None:
    out = run([chunk(gemini_call("get_weather", {"city": "Paris"})), chunk({"text": ""}, finish="STOP")])
    (call,) = out.calls
    assert out.at(0) == 0  # a whole call is over at once
    assert (call.arguments, call.arguments_json, call_codes(call)) == (
        {"city": "Paris"},
        '{"city":"Paris"}',
        ["MISSING_ID"],
    )
    assert (out.result.finish_reason, codes(out.result.violations)) == ("STOP", [])


def test_gemini_q28_parallel_calls_in_separate_chunks_stay_two_calls() -> None:
    out = run([chunk(gemini_call("a", {"x": 1})), chunk(gemini_call("a", {"x": 2}), finish="STOP")])
    assert [(call.id, call.arguments, call_codes(call)) for call in out.calls] == [
        ("ts_0_0", {"x": 1}, ["MISSING_ID"]),
        ("ts_0_1", {"x": 2}, ["MISSING_ID"]),
    ]


def test_gemini_q28_a_call_without_args_is_empty() -> None:
    out = run([chunk(gemini_call("now", id="call_9"), finish="STOP")])
    (call,) = out.calls
    assert (call.id, call.arguments, call_codes(call)) == ("ts_0_0", {}, ["EMPTY_ARGUMENTS", "MISSING_ID"])
    out = run([chunk({"functionCall": {"name": "now", "id": "call_9"}}, finish="STOP")])
    assert (out.calls[0].id, call_codes(out.calls[0])) == ("call_9", ["EMPTY_ARGUMENTS"])


def test_gemini_thought_signature_rides_in_extra_and_thoughts_stay_out_of_the_text() -> None:
    events = [
        chunk({"text": "Thinking ", "thought": True}),
        chunk({"text": "hard.", "thought": True}),
        chunk({"text": "Here "}),
        chunk({"text": "it is."}),
        chunk(gemini_call("f", {"a": 1}, thoughtSignature="sig=="), {"text": "after"}, finish="STOP"),
    ]
    out = run(events, tool_choice=parse_tool_choice("required"))
    assert out.calls[0].extra == {"thought_signature": "sig=="}
    assert out.result.text == "Here it is.after"
    assert [(item.after_calls, item.value) for item in out.result.output] == [
        (0, {"text": "Thinking hard.", "thought": True}),
        (0, {"text": "Here it is."}),
        (1, {"text": "after"}),
    ]


def test_gemini_only_plain_text_of_one_candidate_is_joined() -> None:
    not_thought = [chunk({"text": "a", "thought": False}), chunk({"text": "b", "thought": False})]
    assert [item.value for item in run(not_thought).result.output] == [
        {"text": "a", "thought": False},
        {"text": "b", "thought": False},
    ]
    two = {"candidates": [{"content": {"parts": [{"text": "a"}]}}, {"content": {"parts": [{"text": "b"}]}}]}
    assert [item.value for item in run([two]).result.output] == [{"text": "a"}, {"text": "b"}]


@pytest.mark.parametrize("reason", ["MAX_TOKENS", "SAFETY", "MALFORMED_FUNCTION_CALL"])
def test_gemini_cutting_finishes(reason: str) -> None:
    out = run([chunk(gemini_call("f", {"a": 1}), finish=reason)])
    assert [(v.code, v.seq) for v in out.result.violations] == [(V.STREAM_CUT, 0)]
    out = run([chunk({"text": "partial"}, finish=reason)])
    assert [(v.code, v.seq) for v in out.result.violations] == [(V.STREAM_CUT, None)]


def test_gemini_candidates_are_choices_and_usage_is_the_last() -> None:
    event = {
        "candidates": [
            {"content": {"parts": [{"text": "zero"}]}, "finishReason": "STOP"},  # no index: its position
            {"index": 1, "content": {"parts": [{"text": "one"}]}, "finishReason": "STOP"},
        ],
        "usageMetadata": {"totalTokenCount": 3},
    }
    out = run([event, {"usageMetadata": {"totalTokenCount": 5}}])
    assert [(c.choice, c.text, c.finish_reason) for c in out.result.choices] == [
        (0, "zero", "STOP"),
        (1, "one", "STOP"),
    ]
    assert out.result.usage == {"totalTokenCount": 5}


def test_gemini_error_payload() -> None:
    error = {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}
    out = run([chunk({"text": "a"}), {"error": error}])
    assert [(v.code, v.data) for v in out.result.violations if v.code is V.PROVIDER_ERROR] == [
        (V.PROVIDER_ERROR, error)
    ]


@pytest.mark.parametrize(
    ("event", "path", "problem"),
    [
        (
            chunk({"text": "a"}, {"functionCall": {"name": 3}}),
            "candidates[0].content.parts[1].functionCall.name",
            "expected a string or null, got int",
        ),
        (
            chunk({"text": "a", "thought": "yes"}),
            "candidates[0].content.parts[0].thought",
            "expected a boolean or null, got str",
        ),
        ({"candidates": {"index": 0}}, "candidates", "expected a list, got dict"),
        ({"candidates": [{"index": "0"}]}, "candidates[0].index", "expected an integer or null, got str"),
        (chunk("text"), "candidates[0].content.parts[0]", "expected a mapping or an object with attributes, got str"),
    ],
)
def test_gemini_malformed_events(event: dict[str, Any], path: str, problem: str) -> None:
    with pytest.raises(MalformedChunkError) as raised:
        run([event], format="gemini")
    assert (raised.value.chunk_number, raised.value.path, raised.value.problem) == (0, path, problem)


# ---------------------------------------------------------------------------------------------------- ollama


def ollama(content: str = "", *calls: dict[str, Any], done: bool = False, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "message": message, "done": done, **extra}


def ollama_call(name: str, arguments: Any, **entry: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}, **entry}


OLLAMA_DONE = ollama(done=True, done_reason="stop", eval_count=12)


def test_ollama_whole_calls_and_stop_with_calls() -> None:
    events = [
        ollama("Let me check. "),
        ollama("", ollama_call("get_weather", {"city": "Paris"}, id="call_1"), ollama_call("get_time", {"tz": "CET"})),
        OLLAMA_DONE,
    ]
    out = run(events)
    assert [(call.id, call.name, call.arguments, call.seq, call.index, call_codes(call)) for call in out.calls] == [
        ("call_1", "get_weather", {"city": "Paris"}, 0, None, []),
        ("ts_0_1", "get_time", {"tz": "CET"}, 1, None, ["MISSING_ID"]),
    ]
    assert [number for number, _ in out.handed] == [1, 1]
    assert (out.result.text, out.result.finish_reason, out.result.violations) == ("Let me check. ", "stop", ())
    assert out.result.usage == OLLAMA_DONE


def test_ollama_ndjson_bytes_split_anywhere() -> None:
    events = [ollama("Hi"), ollama("", ollama_call("f", {"a": [1, 2]})), OLLAMA_DONE]
    raw = b"\xef\xbb\xbf\r\n" + b"\r\n".join(json.dumps(event).encode() for event in events) + b"\r\n\r\n"
    expected = run(events).result
    for seed in range(5):
        assert run_bytes(split_anywhere(raw, seed)).result == expected
    assert run_bytes([raw[i : i + 1] for i in range(len(raw))]).result == expected


def test_ollama_length_cuts_and_error_lines() -> None:
    out = run([ollama("", ollama_call("f", {})), ollama(done=True, done_reason="length")])
    assert [(v.code, v.seq) for v in out.result.violations] == [(V.STREAM_CUT, 0)]
    out = run([ollama("a"), {"error": "model crashed"}])
    assert [(v.code, v.data) for v in out.result.violations] == [
        (V.PROVIDER_ERROR, "model crashed"),
        (V.NO_FINISH_REASON, None),
    ]


def test_ollama_arguments_as_a_string_are_not_an_object() -> None:
    out = run([ollama("", ollama_call("f", '{"a": 1}')), OLLAMA_DONE])
    (call,) = out.calls
    assert (call.arguments_json, codes(call.errors)) == ('"{\\"a\\": 1}"', ["ARGUMENTS_NOT_OBJECT"])
    assert V.ARGUMENTS_NOT_STRING not in {v.code for v in call.violations}


# ------------------------------------------------------------------------------------------- bedrock-converse


def bedrock_start(index: int, tool_use_id: str = "tooluse_1", name: str = "get_weather") -> dict[str, Any]:
    return {
        "contentBlockStart": {
            "start": {"toolUse": {"toolUseId": tool_use_id, "name": name}},
            "contentBlockIndex": index,
        }
    }


def bedrock_delta(index: int, **delta: Any) -> dict[str, Any]:
    return {"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}}


def bedrock_stop(index: int) -> dict[str, Any]:
    return {"contentBlockStop": {"contentBlockIndex": index}}


def message_stop(reason: str) -> dict[str, Any]:
    return {"messageStop": {"stopReason": reason}}


def test_bedrock_tool_use() -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        bedrock_delta(0, reasoningContent={"text": "I should "}),
        bedrock_delta(0, reasoningContent={"text": "look.", "signature": "s1"}),
        bedrock_stop(0),
        bedrock_delta(1, text="Checking."),
        bedrock_stop(1),
        bedrock_start(2),
        bedrock_delta(2, toolUse={"input": '{"city":'}),
        bedrock_delta(2, toolUse={"input": ' "Paris"}'}),
        bedrock_stop(2),
        bedrock_delta(3, reasoningContent={"redactedContent": "b64"}),
        message_stop("tool_use"),
        {"metadata": {"usage": {"inputTokens": 5, "outputTokens": 9}, "metrics": {"latencyMs": 1}}},
    ]
    out = run(events)
    (call,) = out.calls
    assert (call.id, call.name, call.index, call.arguments, call_codes(call)) == (
        "tooluse_1",
        "get_weather",
        2,
        {"city": "Paris"},
        [],
    )
    assert out.at(0) == 9
    assert (out.result.text, out.result.finish_reason, out.result.violations) == ("Checking.", "tool_use", ())
    assert out.result.usage == {"inputTokens": 5, "outputTokens": 9}
    assert [(item.after_calls, item.value) for item in out.result.output] == [
        (0, {"reasoningContent": {"reasoningText": {"text": "I should look.", "signature": "s1"}}}),
        (0, {"text": "Checking."}),
        (1, {"reasoningContent": {"redactedContent": "b64"}}),
    ]


def test_bedrock_max_tokens_with_a_tool_use_open() -> None:
    out = run([bedrock_start(0), bedrock_delta(0, toolUse={"input": '{"a": '}), message_stop("max_tokens")])
    assert call_codes(out.calls[0]) == ["STREAM_CUT", "TRUNCATED"]
    assert out.result.finish_reason == "max_tokens"


def test_bedrock_exception_event() -> None:
    exception = {"modelStreamErrorException": {"message": "boom", "originalStatusCode": 500}}
    out = run([{"messageStart": {"role": "assistant"}}, bedrock_start(0), exception], format="bedrock-converse")
    assert [(v.code, v.data) for v in out.result.violations] == [
        (V.PROVIDER_ERROR, exception),
        (V.NO_FINISH_REASON, None),
    ]
    assert call_codes(out.calls[0]) == ["EMPTY_ARGUMENTS", "STREAM_CUT"]


def test_bedrock_end_turn_with_calls_and_tool_use_without() -> None:
    call = [bedrock_start(0), bedrock_delta(0, toolUse={"input": "{}"}), bedrock_stop(0)]
    assert codes(run([*call, message_stop("end_turn")]).result.violations) == ["FINISH_REASON_MISMATCH"]
    assert codes(run([bedrock_delta(0, text="x"), message_stop("tool_use")]).result.violations) == [
        "FINISH_WITHOUT_CALLS"
    ]
    assert codes(run([bedrock_delta(0, text="x"), message_stop("guardrail_intervened")]).result.violations) == [
        "STREAM_CUT"
    ]


def test_bedrock_text_at_a_tool_use_index_is_text_only() -> None:
    out = run([bedrock_start(0), bedrock_delta(0, text="odd"), bedrock_stop(0), message_stop("tool_use")])
    assert (out.result.text, out.result.output, call_codes(out.calls[0])) == ("odd", (), ["EMPTY_ARGUMENTS"])


def test_bedrock_malformed_events() -> None:
    with pytest.raises(MalformedChunkError) as raised:
        run([bedrock_start(0), bedrock_delta(0, toolUse={"input": {"a": 1}})])
    assert (raised.value.chunk_number, raised.value.path) == (1, "contentBlockDelta.delta.toolUse.input")
    with pytest.raises(MalformedChunkError) as raised:
        run([{"contentBlockStop": {}}])
    assert (raised.value.path, raised.value.problem) == (
        "contentBlockStop.contentBlockIndex",
        "expected an integer, got nothing",
    )


# ------------------------------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("event", "format"),
    [
        ({"id": "c", "object": "chat.completion.chunk", "choices": []}, "openai-chat"),
        ({"object": "chat.completion.chunk"}, "openai-chat"),
        ({"type": "response.created", "response": {}}, "openai-responses"),
        (message_start(), "anthropic-messages"),
        ({"type": "ping"}, "anthropic-messages"),
        (chunk({"text": "a"}), "gemini"),
        ({"promptFeedback": {"blockReason": "SAFETY"}}, "gemini"),
        (ollama("hi"), "ollama"),
        ({"messageStart": {"role": "assistant"}}, "bedrock-converse"),
        ({"metadata": {"usage": {}}}, "bedrock-converse"),
        ({"type": "error", "error": {"type": "overloaded_error"}}, None),
        ({"error": {"message": "x"}}, None),
        ({"type": 5, "choices": None}, None),
        ({"metadata": {}, "other": 1}, None),
        ({"metadata": None}, "bedrock-converse"),
        ({"message": {"content": "x"}}, None),
        ({}, None),
    ],
)
def test_detect(event: dict[str, Any], format: str | None) -> None:
    assert detect(event) == format


def test_events_before_detection() -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    out = run([{"keepalive": True}, {"type": "error", "error": error}, message_start(), tool_use(0), block_stop(0)])
    assert [(v.code, v.data) for v in out.result.violations] == [(V.PROVIDER_ERROR, error), (V.NO_FINISH_REASON, None)]
    assert out.calls[0].id == "toolu_1"
    whole = {"type": "error", "code": "server_error", "message": "x"}
    assert run([whole]).result.violations[0].data == whole
    vllm = {"object": "error", "message": "x", "type": "InternalServerError", "param": None, "code": 500}
    first = run([vllm]).result.violations[0]
    assert (first.code, first.data) == (V.PROVIDER_ERROR, vllm)


@pytest.mark.parametrize(
    ("event", "decides"),
    [
        ({"choices": []}, False),
        ({"choices": [], "object": "", "prompt_filter_results": []}, False),
        ({"choices": [], "usage": {"total_tokens": 1}}, False),
        ({"choices": [], "object": "chat.completion.chunk"}, True),
        ({"choices": [], "object": "text_completion"}, True),
        ({"choices": [{}]}, True),
        ({"choices": None}, True),
    ],
)
def test_only_a_chunk_of_empty_choices_and_no_naming_object_decides_nothing(
    event: dict[str, Any], decides: bool
) -> None:
    assert undecided(event) is not decides


def test_an_sse_event_name_identifies_the_format_of_data_without_type() -> None:
    events = [message_start(), tool_use(0), json_delta(0, "{}"), block_stop(0), message_delta("tool_use")]
    raw = b"".join(
        f"event: {event['type']}\ndata: {json.dumps({k: v for k, v in event.items() if k != 'type'})}\n\n".encode()
        for event in events
    )
    assert run_bytes([raw]).result == run(events).result


def test_a_null_choices_identifies_nothing_as_an_object_or_as_bytes() -> None:
    # Null is absent: a first chunk with ``choices: null`` is no chat chunk, whether it arrives decoded or raw.
    first = {"choices": None, "usage": {"total_tokens": 1}}
    assert run([first]).result.usage is None
    assert run_bytes([b"data: " + json.dumps(first).encode() + b"\n\n"]).result.usage is None


def test_a_named_format_reads_what_detection_would_skip() -> None:
    event = {"messageStop": {"stopReason": "end_turn"}, "extra": 1}  # two keys: identifies nothing
    assert run([event]).result.finish_reason is None
    assert run([event], format="bedrock-converse").result.finish_reason == "end_turn"


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ([1, 2], "expected a mapping or an object with attributes, got list"),
        (5, "expected a mapping or an object with attributes, got int"),
        ({1, 2}, "the event is not JSON: set is not JSON"),
    ],
)
def test_events_that_are_not_json_objects(event: Any, problem: str) -> None:
    for format in (None, "gemini"):
        with pytest.raises(MalformedChunkError) as raised:
            run([event], format=format)
        assert (raised.value.chunk_number, raised.value.path, raised.value.problem) == (0, "", problem)


def test_chat_chunks_still_go_to_the_chat_reader() -> None:
    chat = {
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": {"a": 1}}}]},
                "finish_reason": "tool_calls",
            }
        ]
    }
    out = run([{"usage": None}, chat])
    assert (out.calls[0].arguments, call_codes(out.calls[0])) == ({"a": 1}, ["ARGUMENTS_NOT_STRING", "TYPE_MISSING"])


# ---------------------------------------------------------------------------------------------------- framing


ANTHROPIC_EVENTS = [message_start(), tool_use(0), json_delta(0, '{"a": 1}'), block_stop(0), message_delta("tool_use")]


@pytest.mark.parametrize(
    "raw",
    [
        sse(ANTHROPIC_EVENTS),
        b"\xef\xbb\xbf" + sse(ANTHROPIC_EVENTS),
        b"\n\n: comment\n" + sse(ANTHROPIC_EVENTS, named=False),
        b"".join(json.dumps(event).encode() + b"\n" for event in ANTHROPIC_EVENTS),
        b"\xef\xbb\xbf \n\t" + b"\r".join(json.dumps(event).encode() for event in ANTHROPIC_EVENTS),
        b"\n".join(json.dumps(event).encode() for event in ANTHROPIC_EVENTS) + b"\n[DONE]\n",
    ],
    ids=["sse", "sse-bom", "sse-comment", "ndjson", "ndjson-bom-cr", "ndjson-done"],
)
def test_sse_or_ndjson_from_the_first_byte(raw: bytes) -> None:
    expected = run(ANTHROPIC_EVENTS).result
    assert expected.calls[0].arguments == {"a": 1}
    for pieces in ([raw], split_anywhere(raw, 7), [raw[i : i + 1] for i in range(len(raw))]):
        assert run_bytes(pieces).result == expected


def test_the_first_non_blank_line_decides() -> None:
    line = json.dumps(ollama("hi", done=True, done_reason="stop")).encode()
    assert run_bytes([b"\r\n \n\t" + line]).result.text == "hi"
    assert run_bytes([b": comment\n" + line + b"\n"]).result.text == ""  # an event stream: that line is no field


def test_an_ndjson_line_over_the_event_limit_is_malformed() -> None:
    line = json.dumps(ollama("x" * 200)).encode()
    machine = engine(limits=Limits(max_event_bytes=100))
    with pytest.raises(MalformedChunkError) as raised:
        machine.feed_bytes(b'{"model": "m", "message": {"content": ""}, "done": false}\n' + line)
    assert raised.value.chunk_number == 1


def test_ndjson_lines_that_are_not_json_are_malformed_with_their_number() -> None:
    machine = engine()
    with pytest.raises(MalformedChunkError) as raised:
        machine.feed_bytes(json.dumps(ollama("a")).encode() + b"\n\n{oops\n")
    assert (raised.value.chunk_number, raised.value.path) == (1, "")
