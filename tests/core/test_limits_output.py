"""``Limits.max_output_bytes``: what ``StreamResult.output`` keeps, in every format (docs/semantics.md, "What a stream
keeps besides its calls").

Each item, and each value a delta adds whole to one, counts 256 bytes and its JSON text written compactly; each piece of
text a delta adds, its UTF-8 bytes. The sizes below are worked out from that rule (``whole`` writes the text the rule
names); each stream is set a limit that keeps its first pieces and leaves the next one out, after which nothing more is
kept and everything is counted. Raw bytes count as their decoded events do, whatever their spacing and escapes.

Then hostile streams, each run in a child process capped in memory (``tests/support/bounded.py``) through the core and the
reference, with what the run cost asserted: 100 MB of output in every format keep 1 MiB; calls opened at new indexes
past ``Limits.max_calls`` keep nothing per index; the raw path's templates keep no argument text.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

import toolwire
from tests.support.bounded import run_bounded
from toolwire import Limits, ViolationCode


def whole(value: Any) -> int:
    """What a value kept whole counts (the rule, written out)."""
    return 256 + len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def left_out(result: toolwire.StreamResult) -> Any:
    return [(v.code, v.data) for v in result.violations if v.code is ViolationCode.OUTPUT_TOO_LARGE]


def sse(events: list[dict[str, Any]]) -> bytes:
    # Spaced and ASCII-escaped, unlike the compact text the rule counts.
    return b"".join(b"data: " + json.dumps(e, indent=1).replace("\n", "").encode() + b"\n\n" for e in events)


def run(module: Any, source: Any, limit: int) -> toolwire.StreamResult:
    stream = module.reassemble(source, on_invalid="yield", limits=Limits(max_output_bytes=limit))
    list(stream)
    return stream.result


THINKING = {"type": "thinking", "thinking": "", "signature": ""}
TEXT = {"type": "text", "text": ""}
SERVER = {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
ANTHROPIC = [
    {"type": "message_start", "message": {"id": "m"}},
    {"type": "content_block_start", "index": 0, "content_block": THINKING},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "été"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": TEXT},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "hi"}},
    {"type": "content_block_stop", "index": 1},
    {"type": "content_block_start", "index": 2, "content_block": SERVER},
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"q": "x"}'}},
    {"type": "content_block_stop", "index": 2},
    {"type": "content_block_start", "index": 3, "content_block": TEXT},
    {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "there"}},
    {"type": "content_block_start", "index": 4, "content_block": {"type": "tool_use", "id": "t", "name": "f"}},
    {"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
    {"type": "content_block_stop", "index": 4},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
]


@pytest.mark.parametrize("raw", [False, True], ids=["events", "bytes"])
def test_anthropic_blocks_past_the_limit_are_left_out_with_their_deltas(implementation: ModuleType, raw: bool) -> None:
    # The thinking block: its start, 5 bytes of "été", 3 of signature. The text block: its start and 2.
    kept = whole(THINKING) + 5 + 3 + whole(TEXT) + 2
    source = [sse(ANTHROPIC)] if raw else ANTHROPIC
    result = run(implementation, source, kept)
    assert [item.value for item in result.output] == [
        {"type": "thinking", "thinking": "été", "signature": "sig"},
        {"type": "text", "text": "hi"},
    ]
    # The server call's start does not fit: it is left out, and so is its input (10 bytes), which is counted with it,
    # never taken for a call. Then the second text block's start, though it would fit alone: nothing is kept past the
    # first piece left out. Its delta only adds to the choice's text: its index holds nothing, as if it never started.
    assert left_out(result) == [
        (ViolationCode.OUTPUT_TOO_LARGE, {"limit": kept, "bytes": whole(SERVER) + 10 + whole(TEXT)})
    ]
    assert result.text == "hithere", "content text is the choice's, kept within Limits.max_text_bytes"
    assert [(c.id, c.arguments) for c in result.calls] == [("t", {})]
    assert result.invalid_calls == ()
    assert not result.ok


def test_anthropic_citations_count_each_as_a_value(implementation: ModuleType) -> None:
    citation = {"type": "web_search_result_location", "url": "u", "cited_text": "c"}
    events = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "", "citations": []}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": citation}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": citation}},
    ]
    start = whole({"type": "text", "text": "", "citations": []})
    result = run(implementation, events, start + whole(citation))
    assert [item.value for item in result.output] == [{"type": "text", "text": "", "citations": [citation]}]
    assert left_out(result) == [
        (ViolationCode.OUTPUT_TOO_LARGE, {"limit": start + whole(citation), "bytes": whole(citation)})
    ]


REASONING = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hm"}]}
SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
X_SEARCH = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c1", "name": "x_search", "input": ""}
RESPONSES = [
    # The echoed tools list no custom tool: a custom tool call is the provider's own.
    {"type": "response.created", "response": {"status": "in_progress", "tools": [{"type": "function", "name": "f"}]}},
    {"type": "response.output_item.done", "output_index": 0, "item": REASONING},
    {"type": "response.output_item.done", "output_index": 1, "item": SEARCH},
    {"type": "response.output_item.added", "output_index": 2, "item": X_SEARCH},
    {"type": "response.custom_tool_call_input.delta", "output_index": 2, "delta": '{"q": "x"}'},
    {"type": "response.custom_tool_call_input.done", "output_index": 2, "input": '{"q": "x"}'},
    {"type": "response.output_item.done", "output_index": 2, "item": {**X_SEARCH, "input": '{"q": "x"}'}},
    {
        "type": "response.output_item.added",
        "output_index": 3,
        "item": {"type": "function_call", "id": "fc", "call_id": "c2", "name": "f", "arguments": ""},
    },
    {"type": "response.function_call_arguments.done", "output_index": 3, "arguments": "{}"},
    {"type": "response.completed", "response": {"status": "completed"}},
]


@pytest.mark.parametrize("raw", [False, True], ids=["events", "bytes"])
def test_responses_items_past_the_limit_are_left_out(implementation: ModuleType, raw: bool) -> None:
    kept = whole(REASONING) + whole(SEARCH)
    source = [sse(RESPONSES)] if raw else RESPONSES
    result = run(implementation, source, kept)
    assert [item.value for item in result.output] == [REASONING, SEARCH]
    # The provider's custom tool call: remembering its index would count 256 bytes (left out), its input's two events
    # 10 bytes each (at an index where nothing is kept, once the output is over: not taken for a client call), its item
    # at its end 256 for the index again and the item itself.
    done = {**X_SEARCH, "input": '{"q": "x"}'}
    assert left_out(result) == [
        (ViolationCode.OUTPUT_TOO_LARGE, {"limit": kept, "bytes": 256 + 10 + 10 + 256 + whole(done)})
    ]
    assert [(c.id, c.arguments) for c in result.calls] == [("c2", {})]
    assert result.invalid_calls == ()


CODE = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
GEMINI = [
    {"candidates": [{"index": 0, "content": {"parts": [{"text": "été"}]}}]},
    {"candidates": [{"index": 0, "content": {"parts": [{"text": " ok"}]}}]},
    {"candidates": [{"index": 0, "content": {"parts": [CODE, {"functionCall": {"name": "f", "args": {}}}]}}]},
    {"candidates": [{"index": 0, "content": {"parts": [{"text": "more"}]}, "finishReason": "STOP"}]},
]


@pytest.mark.parametrize("raw", [False, True], ids=["events", "bytes"])
def test_gemini_parts_past_the_limit_are_left_out(implementation: ModuleType, raw: bool) -> None:
    # A text part starts an item (256 and its 5 bytes); the next one joins it (3 bytes).
    kept = 256 + 5 + 3
    source = [sse(GEMINI)] if raw else GEMINI
    result = run(implementation, source, kept)
    assert [item.value for item in result.output] == [{"text": "été ok"}]
    assert left_out(result) == [(ViolationCode.OUTPUT_TOO_LARGE, {"limit": kept, "bytes": whole(CODE) + 256 + 4})]
    assert result.text == "été okmore"
    assert [c.name for c in result.calls] == ["f"]


SERVER_USE = {"toolUseId": "s", "name": "nova_code_interpreter", "type": "server_tool_use"}
RESULT = {"toolUseId": "s", "status": "success"}
ITEM = {"json": {"stdOut": "2"}}
BEDROCK = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "hm", "signature": "s"}}}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": SERVER_USE}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"snippet": "1 + 1"}'}}}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    {"contentBlockStart": {"contentBlockIndex": 2, "start": {"toolResult": RESULT}}},
    {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"toolResult": [ITEM, ITEM]}}},
    {"contentBlockStop": {"contentBlockIndex": 2}},
    {"contentBlockDelta": {"contentBlockIndex": 3, "delta": {"text": "done"}}},
    {"contentBlockStop": {"contentBlockIndex": 3}},
    {"messageStop": {"stopReason": "end_turn"}},
]


def test_bedrock_blocks_past_the_limit_are_left_out(implementation: ModuleType) -> None:
    # The reasoning block (256, "hm" and "s"), the server call's start and its input (20 bytes), the result's start and
    # its first content item: the second does not fit.
    kept = 256 + 3 + whole(SERVER_USE) + 20 + whole(RESULT) + whole(ITEM)
    result = run(implementation, BEDROCK, kept)
    assert [item.value for item in result.output] == [
        {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "s"}}},
        {"toolUse": {**SERVER_USE, "input": {"snippet": "1 + 1"}}},
        {"toolResult": {**RESULT, "content": [ITEM]}},
    ]
    # The second item, then the last text block (256 and its 4 bytes).
    assert left_out(result) == [(ViolationCode.OUTPUT_TOO_LARGE, {"limit": kept, "bytes": whole(ITEM) + 256 + 4})]
    assert result.text == "done"


def test_bedrock_server_input_at_an_index_left_out_is_no_call(implementation: ModuleType) -> None:
    result = run(implementation, BEDROCK[:5], 256 + 3)
    assert [item.value for item in result.output] == [
        {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "s"}}}
    ]
    assert left_out(result) == [(ViolationCode.OUTPUT_TOO_LARGE, {"limit": 256 + 3, "bytes": whole(SERVER_USE) + 20})]
    assert (result.calls, result.invalid_calls) == ((), ())


# -------------------------------------------------------------------------------------------- hostile, measured

SETUP = """
import json
import {module} as module
from toolwire import Limits
RAW = {raw}
def encoded(event):
    return (b"data: " + json.dumps(event).encode() + b"\\n\\n") if SSE else json.dumps(event).encode() + b"\\n"
def source(events):
    # Made as they are read, never held: what the run holds is what the stream keeps.
    for event in events:
        yield encoded(event) if RAW else event
"""
PIECE = '"x" * 1000'
# Each stream brings some 100 MB of output: pieces of 1000 bytes in new items, or in one item that grows.
OUTPUT = {
    "anthropic blocks": (
        True,
        "{'type': 'content_block_start', 'index': k, 'content_block': {'type': 'thinking', 'thinking': PIECE}}",
    ),
    "anthropic thinking": (
        True,
        "{'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'thinking_delta', 'thinking': PIECE}}",
    ),
    "responses items": (
        True,
        "{'type': 'response.output_item.done', 'output_index': k, 'item': {'type': 'reasoning', 'summary': PIECE}}",
    ),
    "gemini parts": (True, "{'candidates': [{'content': {'parts': [{'executableCode': {'code': PIECE}}]}}]}"),
    "gemini text": (True, "{'candidates': [{'content': {'parts': [{'text': PIECE, 'thought': True}]}}]}"),
    "bedrock blocks": (
        False,
        "{'contentBlockDelta': {'contentBlockIndex': k, 'delta': {'reasoningContent': {'text': PIECE}}}}",
    ),
    "bedrock results": (
        False,
        "{'contentBlockDelta': {'contentBlockIndex': 0, 'delta': {'toolResult': [{'text': PIECE}]}}}",
    ),
}
FIRST = {
    "anthropic thinking": "{'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'thinking'}}",
    "bedrock results": "{'contentBlockStart': {'contentBlockIndex': 0, 'start': {'toolResult': {'toolUseId': 's'}}}}",
}
HOSTILE_OUTPUT = """
PIECE = "x" * 1000
def events():
    {first}
    for k in range(100_000):
        yield {event}
stream = module.reassemble(source(events()), on_invalid="yield", limits=Limits(max_output_bytes=1 << 20))
list(stream)
result = stream.result
(over,) = [v for v in result.violations if v.code.value == "OUTPUT_TOO_LARGE"]
outcome = [over.data["limit"], over.data["bytes"] > 98_000_000, len(result.output)]
"""


@pytest.mark.parametrize("raw", [False, True], ids=["events", "bytes"])
@pytest.mark.parametrize("stream", OUTPUT)
def test_100_mb_of_output_keep_one_mib(stream: str, implementation: ModuleType, raw: bool) -> None:
    # Main kept it all: a peak of 287 to 483 MiB in the core, 145 to 201 MiB in the reference.
    sse, event = OUTPUT[stream]
    first = f"yield {FIRST[stream]}" if stream in FIRST else "pass"
    bounded = run_bounded(
        HOSTILE_OUTPUT.format(first=first, event=event),
        setup=f"SSE = {sse}\n" + SETUP.format(module=implementation.__name__, raw=raw),
        memory_mib=1024,
        timeout_s=180,
    )
    limit, counted, items = bounded.outcome
    assert (limit, counted) == (1 << 20, True)
    growing = stream in ("anthropic thinking", "gemini text", "bedrock results")
    # Items of some 1300 bytes each fill 1 MiB with a few hundred; a growing one stays one.
    assert items == 1 if growing else 700 < items < 900, items
    # Measured on a shared 2-core machine: at most 4.8 MiB (the core), and 8.4 s (the reference, from bytes).
    assert bounded.peak_growth_mib < 32
    assert bounded.seconds < 120


# What a decoder keeps per index: only for a call kept or an item kept. Each stream opens calls at new indexes past
# Limits.max_calls (the last with a start input of 1000 bytes held until its block ends, which never comes).
INDEXES = {
    "anthropic starts": (
        True,
        "{'type': 'content_block_start', 'index': k, 'content_block': "
        "{'type': 'tool_use', 'id': f't{k}', 'name': 'f', 'input': {'k': PIECE}}}",
    ),
    "anthropic deltas": (
        True,
        "{'type': 'content_block_delta', 'index': k, 'delta': {'type': 'input_json_delta', 'partial_json': '{'}}",
    ),
    "responses deltas": (True, "{'type': 'response.function_call_arguments.delta', 'output_index': k, 'delta': '{'}"),
    "bedrock starts": (
        False,
        "{'contentBlockStart': {'contentBlockIndex': k, 'start': {'toolUse': {'toolUseId': f't{k}', 'name': 'f'}}}}",
    ),
}
HOSTILE_INDEXES = """
PIECE = "x" * 1000
def events():
    for k in range(EVENTS):
        yield {event}
stream = module.reassemble(source(events()), on_invalid="yield")
calls = list(stream)
result = stream.result
outcome = [len(calls), [(v.code.value, v.data) for v in result.violations if v.code.value == "TOO_MANY_CALLS"]]
"""


@pytest.mark.parametrize("stream", INDEXES)
def test_calls_at_new_indexes_keep_what_the_calls_kept_do(stream: str, implementation: ModuleType) -> None:
    # Main kept every index, and every start input: a peak of 52 to 124 MiB in the core (10^6 events, 10^5 starts),
    # 9 to 124 MiB in the reference (10^5).
    sse, event = INDEXES[stream]
    events = 100_000 if stream == "anthropic starts" or implementation is toolwire.reference else 1_000_000
    bounded = run_bounded(
        f"EVENTS = {events}\n" + HOSTILE_INDEXES.format(event=event),
        setup=f"SSE = {sse}\n" + SETUP.format(module=implementation.__name__, raw=False),
        memory_mib=1024,
        timeout_s=180,
    )
    assert bounded.outcome == [256, [["TOO_MANY_CALLS", {"limit": 256, "fragments": events - 256}]]]
    # Measured on a shared 2-core machine: at most 1.8 MiB, and 11 s (the reference's Anthropic starts).
    assert bounded.peak_growth_mib < 6
    assert bounded.seconds < 120


TEMPLATES = """
def events():
    for k in range(64):
        item = {"type": "function_call", "id": f"fc_{k}", "call_id": f"c{k}", "name": "f", "arguments": ""}
        yield {"type": "response.output_item.added", "output_index": k, "item": item}
    for _ in range(4):
        for k in range(64):
            yield {"type": "response.function_call_arguments.delta", "output_index": k, "delta": PIECE}
stream = module.reassemble(source(events()), on_invalid="yield", limits=Limits(max_argument_bytes=4096))
calls = list(stream)
outcome = [len(calls), sorted({v.code.value for c in calls for v in c.errors})]
"""


def test_the_raw_path_keeps_no_argument_text_in_its_templates(implementation: ModuleType) -> None:
    # 64 calls streamed at once, each sent deltas of 1 MiB from raw bytes: main kept the last of each as the template
    # the next one is matched against (64 MiB), though the calls keep nothing past 4 KiB.
    bounded = run_bounded(
        "PIECE = 'x' * (1 << 20)\n" + TEMPLATES,
        setup="SSE = True\n" + SETUP.format(module=implementation.__name__, raw=True),
        memory_mib=1024,
        timeout_s=180,
    )
    assert bounded.outcome == [64, ["ARGUMENTS_TOO_LARGE", "INVALID_JSON"]]
    # Measured on a shared 2-core machine: core 7.5 MiB in 1.1 s (main: 70 MiB), reference 6.0 MiB in 2.4 s (it keeps
    # no template).
    assert bounded.peak_growth_mib < 32
    assert bounded.seconds < 60
