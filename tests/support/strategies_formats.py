"""Hypothesis strategies for the event formats besides Chat Completions, with the ground truth they must produce.

Used by ``tests/core/test_differential_formats.py``. Two families per format (``FORMATS``):

* ``format_streams(format)``: well-formed streams built from a ground truth — calls with ids, names and JSON-object
  arguments split into random fragments, text, thinking/reasoning blocks, Anthropic server tool blocks, Responses
  built-in tool items, a finish — laid out as the provider sends them (Anthropic and Bedrock blocks one after the
  other, Responses output items interleaved by ``output_index``, Gemini candidates interleaved), with noise events
  that must change nothing (pings, unknown event types, keep-alives, usage-only events). Each event records what it
  does to the calls (``Action``), so that ``FormatCase`` can say, per emission policy, after which event each call is
  handed over, and what the result must be. The streams are rendered by ``toolwire.strategies``
  (``_formats.FORMAT_CASES``, the generators behind the public ``toolwire.strategies.streams``); this module draws
  the calls.
* ``hostile_streams(format)``: a well-formed stream then damaged at random (events dropped, duplicated, swapped,
  cut off; fields deleted or given values of the wrong JSON type; strings cut or spliced with JSON punctuation; a
  second ``message_start``; ``.done`` texts that disagree; deltas for blocks that never started; cutting finishes;
  error events; junk). No ground truth: the core and the reference are compared only.

Both come with ``render_bytes``, the events as the bytes a provider sends (SSE with ``event:`` names for Anthropic
and Responses, SSE for completions and Gemini, JSON lines for Ollama and Bedrock), and ``split_bytes``, those bytes cut the ways
HTTP clients cut them.
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

from hypothesis import strategies as st

from tests.support.strategies_chat import NAMES, arguments_objects
from toolwire.strategies._calls import CallSpec
from toolwire.strategies._formats import FORMAT_CASES, Action, FormatCase, TruthCall

__all__ = [
    "FORMATS",
    "JUNK",
    "NAMED_EVENT_FORMATS",
    "SSE_FORMATS",
    "Action",
    "FormatCase",
    "TruthCall",
    "format_streams",
    "hostile_streams",
    "render_bytes",
    "split_bytes",
]

FORMATS = ("openai-completions", "anthropic-messages", "openai-responses", "gemini", "ollama", "bedrock-converse")
#: Formats whose raw bytes are server-sent events; the others stream JSON lines.
SSE_FORMATS = frozenset({"openai-completions", "anthropic-messages", "openai-responses", "gemini"})
#: Formats whose streams carry text only: their calls are written into it in a model's dialect.
_TEXT_ONLY = frozenset({"openai-completions"})
#: Formats whose SSE events are named after their ``type`` (``event: message_start``).
NAMED_EVENT_FORMATS = frozenset({"anthropic-messages", "openai-responses"})

# Formats whose calls may come without an id (the call then gets ``ts_<choice>_<seq>`` and MISSING_ID).
_OPTIONAL_IDS = {"gemini": "gc", "ollama": "call"}


@st.composite
def _calls(draw: Any, format: str) -> list[CallSpec]:
    """Up to four calls per choice (Gemini: one or two candidates) with arbitrary arguments and names."""
    n_choices = draw(st.sampled_from([1, 1, 1, 2])) if format == "gemini" else 1
    specs: list[CallSpec] = []
    if format in _TEXT_ONLY:
        return specs
    for choice in range(n_choices):
        for _ in range(draw(st.integers(0, 4))):
            call_id = None
            if format in _OPTIONAL_IDS and draw(st.booleans()):
                call_id = f"{_OPTIONAL_IDS[format]}_{len(specs)}"
            specs.append(CallSpec(draw(st.sampled_from(NAMES)), draw(arguments_objects()), None, call_id, choice))
    return specs


@st.composite
def format_streams(draw: Any, format: str) -> FormatCase:
    """Well-formed streams of ``format`` with their ground truth."""
    case: FormatCase = draw(FORMAT_CASES[format](draw(_calls(format))))
    return case


# ------------------------------------------------------------------------------------------------------ hostile

JUNK = [
    None,
    0,
    1,
    -1,
    2**63,
    -(2**64),
    1.0,
    0.5,
    True,
    False,
    "",
    "null",
    "x",
    "0",
    # No lone surrogate ("\ud800") until the core keeps them as the reference does: see the xfail regressions.
    [],
    [0],
    {},
    {"type": "text"},
    {"a": 1},
]
_TOKENS = ["{", "}", "[", "]", '"', ",", ":", "1", '"k"', "null", " ", "\n", '{"a":', "1}", "\\", "é"]


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path inside a JSON value (the root included)."""
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _nodes(child, (*path, key))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            out += _nodes(child, (*path, position))
    return out


def _at(event: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        event = event[step]
    return event


def _replace(event: Any, path: tuple[Any, ...], value: Any, *, delete: bool = False) -> Any:
    if not path:
        return value
    parent = event
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    elif delete:
        parent.pop(path[-1])
    else:
        parent[path[-1]] = value
    return event


def _error_event(format: str, rng: random.Random) -> Any:
    payload = {"type": "overloaded_error", "message": "Overloaded"}
    return {
        "openai-completions": {"error": {"message": "EngineCore failed", "type": "InternalServerError", "code": 500}},
        "anthropic-messages": {"type": "error", "error": payload},
        "openai-responses": rng.choice(
            [
                {"type": "error", "code": "server_error", "message": "x"},
                {"type": "response.failed", "response": {"status": "failed", "error": payload}},
            ]
        ),
        "gemini": {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}},
        "ollama": {"error": "model runner crashed"},
        "bedrock-converse": {rng.choice(["modelStreamErrorException", "throttlingException"]): {"message": "x"}},
    }[format]


def _cutting_finish(format: str, rng: random.Random) -> Any:
    return {
        "openai-completions": {
            "object": "text_completion",
            "choices": [
                {"index": rng.randrange(3), "text": "", "finish_reason": rng.choice(["length", "content_filter"])}
            ],
        },
        "anthropic-messages": {
            "type": "message_delta",
            "delta": {"stop_reason": rng.choice(["max_tokens", "refusal", "model_context_window_exceeded"])},
        },
        "openai-responses": {
            "type": rng.choice(["response.incomplete", "response.cancelled"]),
            "response": {"status": rng.choice(["incomplete", "cancelled", None]), "usage": {"total_tokens": 1}},
        },
        "gemini": {"candidates": [{"finishReason": rng.choice(["MAX_TOKENS", "SAFETY", "MALFORMED_FUNCTION_CALL"])}]},
        "ollama": {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "length"},
        "bedrock-converse": {"messageStop": {"stopReason": rng.choice(["max_tokens", "guardrail_intervened"])}},
    }[format]


def _specific(format: str, rng: random.Random, events: list[Any]) -> list[Any]:
    """A damage only this format can suffer."""
    dicts = [e for e in events if isinstance(e, dict)]
    if format == "openai-completions":  # a chat chunk, a choice past the others, a second finish, text of no type
        entry: dict[str, Any] = rng.choice(
            [
                {"index": 0, "delta": {"content": "x"}},
                {"index": rng.choice([7, -1, None]), "text": rng.choice(_TOKENS)},
                {"index": rng.randrange(3), "text": "", "finish_reason": rng.choice(["stop", "length", "tool_calls"])},
                {"index": 0, "text": rng.choice(JUNK)},
            ]
        )
        events.insert(rng.randint(0, len(events)), {"object": "text_completion", "choices": [entry]})
    elif format == "anthropic-messages":
        choice = rng.randrange(3)
        if choice == 0:  # Q26: a second generation spliced into the stream
            start = {"type": "message_start", "message": {"id": rng.choice(["msg_01", "msg_02"]), "usage": {"x": 1}}}
            events.insert(rng.randint(0, len(events)), start)
        elif choice == 1 and dicts:  # a block restarted at an index already used
            starts = [e for e in dicts if e.get("type") == "content_block_start"]
            if starts:
                events.insert(rng.randint(0, len(events)), copy.deepcopy(rng.choice(starts)))
        else:  # deltas for a block that never started, or after it stopped
            index = rng.randrange(4)
            for _ in range(rng.randint(1, 3)):
                body = {"type": "input_json_delta", "partial_json": rng.choice(_TOKENS)}
                events.insert(
                    rng.randint(0, len(events)), {"type": "content_block_delta", "index": index, "delta": body}
                )
    elif format == "openai-responses":
        done = [
            e for e in dicts if e.get("type") in ("response.function_call_arguments.done", "response.output_item.done")
        ]
        if done and rng.random() < 0.7:  # a final text that disagrees with the deltas
            event = rng.choice(done)
            target = event.get("item") if event["type"] == "response.output_item.done" else event
            if isinstance(target, dict):
                target["arguments"] = rng.choice(
                    ['{"other": 1}', "", "{", "[]", '{"a":1} x', {"a": 1}, "".join(rng.choices(_TOKENS, k=3))]
                )
        elif rng.random() < 0.5:  # deltas for an output index that has no call, or arguments in pieces out of order
            event = {
                "type": "response.function_call_arguments.delta",
                "output_index": rng.randrange(4),
                "delta": rng.choice(_TOKENS),
            }
            events.insert(rng.randint(0, len(events)), event)
        else:  # custom tool calls: an item, its free-text input, an echo that declares custom tools or not
            index = rng.randrange(4)
            custom = {
                "type": "custom_tool_call",
                "call_id": "ct",
                "name": rng.choice(["code", "x_search"]),
                "input": "",
            }
            kinds = [
                {"type": "response.output_item.added", "output_index": index, "item": custom},
                {"type": "response.custom_tool_call_input.delta", "output_index": index, "delta": rng.choice(_TOKENS)},
                {"type": "response.custom_tool_call_input.done", "output_index": index, "input": rng.choice(_TOKENS)},
                {"type": "response.output_item.done", "output_index": index, "item": {**custom, "input": "x"}},
                {
                    "type": "response.in_progress",
                    "response": {"tools": rng.choice([[], [{"type": "custom", "name": "code"}]])},
                },
            ]
            for event in rng.sample(kinds, rng.randint(1, len(kinds))):
                events.insert(rng.randint(0, len(events)), event)
    elif format == "gemini":
        part = rng.choice(
            [
                {"functionCall": {"name": rng.choice(["f", "", "null"]), "args": rng.choice([{}, [], "x", 1])}},
                {"functionCall": {"id": rng.choice(["a", "", "null"]), "name": "g"}},
                {"text": "t", "thought": rng.choice([True, False, None])},
                # Streamed arguments out of place: an opening, an end, entries at odd paths or of odd values.
                {"functionCall": {"name": "h", "willContinue": True}},
                {"functionCall": {}},
                {"functionCall": {"willContinue": True}},
                {
                    "functionCall": {
                        "partialArgs": [
                            {
                                "jsonPath": rng.choice(["$.a", "$.a[0]", "$.a[1]", "$..x", "$[0]", "$", "$.a.b", "x"]),
                                **rng.choice(
                                    [
                                        {"stringValue": "s", "willContinue": rng.choice([True, False])},
                                        {"numberValue": rng.choice([1, 2.5, -0.0])},
                                        {"boolValue": True},
                                        {"nullValue": None},
                                        {},
                                        {"stringValue": "s", "numberValue": 1},
                                    ]
                                ),
                            }
                            for _ in range(rng.randint(1, 3))
                        ],
                        **rng.choice([{"willContinue": True}, {}]),
                    }
                },
            ]
        )
        candidate = {"content": {"parts": [part]}, "index": rng.randrange(3)}
        events.insert(rng.randint(0, len(events)), {"candidates": [candidate]})
    elif format == "ollama":
        arguments: Any = rng.choice([{}, [], "x", "{}", None])
        function = {"name": rng.choice(["f", "", "null"]), "arguments": arguments}
        line = {"message": {"role": "assistant", "tool_calls": [{"function": function}]}, "done": rng.random() < 0.2}
        events.insert(rng.randint(0, len(events)), line)
    else:
        index = rng.randrange(4)
        event = rng.choice(
            [
                {
                    "contentBlockStart": {
                        "start": {"toolUse": {"toolUseId": "t", "name": "n"}},
                        "contentBlockIndex": index,
                    }
                },
                {
                    "contentBlockDelta": {
                        "delta": {"toolUse": {"input": rng.choice(_TOKENS)}},
                        "contentBlockIndex": index,
                    }
                },
                {"contentBlockDelta": {"delta": {"text": "t"}, "contentBlockIndex": index}},
                {"contentBlockStop": {"contentBlockIndex": index}},
            ]
        )
        events.insert(rng.randint(0, len(events)), event)
    return events


@st.composite
def hostile_streams(draw: Any, format: str) -> list[Any]:
    """A well-formed stream of ``format`` damaged at random; only the events (no ground truth survives)."""
    events: list[Any] = copy.deepcopy(draw(format_streams(format)).events)
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    for _ in range(draw(st.integers(1, 4))):
        damage = rng.randrange(10)
        if damage == 0 and events:
            del events[rng.randrange(len(events))]
        elif damage == 1 and events:
            events.insert(rng.randint(0, len(events)), copy.deepcopy(rng.choice(events)))
        elif damage == 2 and len(events) > 1:
            a, b = rng.randrange(len(events)), rng.randrange(len(events))
            events[a], events[b] = events[b], events[a]
        elif damage == 3 and events:
            events = events[: rng.randrange(len(events))]
        elif damage in (4, 5) and events:  # a field of the wrong JSON type, or gone
            at = rng.randrange(len(events))
            path = rng.choice(_nodes(events[at]))
            if damage == 5 and path:
                events[at] = _replace(events[at], path, None, delete=True)
            else:
                events[at] = _replace(events[at], path, copy.deepcopy(rng.choice(JUNK)))
        elif damage == 6:
            events.insert(rng.randint(0, len(events)), _error_event(format, rng))
        elif damage == 7:
            events.insert(rng.randint(0, len(events)), _cutting_finish(format, rng))
        elif damage == 8 and events:  # a string cut short or spliced with JSON punctuation (arguments, ids, types)
            at = rng.randrange(len(events))
            strings = [path for path in _nodes(events[at]) if path and isinstance(_at(events[at], path), str)]
            if strings:
                path = rng.choice(strings)
                text = _at(events[at], path)
                cut = rng.randint(0, len(text))
                spliced = text[:cut] + rng.choice(["", *_TOKENS]) + text[cut + rng.randint(0, 1) :]
                events[at] = _replace(events[at], path, spliced)
        elif damage == 9:
            events = _specific(format, rng, events)
    return events


# --------------------------------------------------------------------------------------------------- raw bytes


_STYLES: list[dict[str, Any]] = [
    {"ensure_ascii": False, "separators": (",", ":")},
    {"ensure_ascii": True},
    {"ensure_ascii": False},
]


def _json(event: Any, rng: random.Random, style: dict[str, Any]) -> str:
    """An event's JSON text in the stream's style, now and then in another (lone surrogates escaped: no UTF-8)."""
    text = json.dumps(event, **(style if rng.random() < 0.9 else rng.choice(_STYLES)))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(event)
    return text


def render_bytes(
    format: str, events: list[Any], seed: int, *, hostile: bool = False, proxied: bool = True, misnamed: bool = True
) -> bytes:
    """The events as a provider sends them: SSE (completions, Anthropic, Responses, Gemini) or JSON lines (Ollama, Bedrock).

    SSE events of Anthropic and Responses carry their ``event:`` name, and now and then lose ``type`` from their data
    (a proxy that strips it leaves the name, which then stands in for it); the framing varies as real servers vary it
    (LF, CRLF or CR line ends, comments, ``id:``/``retry:`` fields, keep-alive events without data, a JSON text
    spread over several ``data:`` lines, ``[DONE]``); JSON lines get blank lines and CRLF now and then. ``hostile``
    bytes name some events that keep their ``type`` after another event type (the type wins), and damage the JSON
    text of some events by a character or two, which the raw path must reject as the full reading does. With
    ``proxied=False`` the bytes are what the provider itself sends, which its official SDK reads: every event keeps
    its ``type``, and no event comes without data; with ``misnamed=False`` hostile bytes name every event after its
    type.
    """
    rng = random.Random(seed)
    style = rng.choice(_STYLES)  # a server writes every event alike, which the core's raw-bytes templates rely on
    if format not in SSE_FORMATS:
        end = rng.choice(["\n", "\n", "\r\n"])
        lines = []
        for event in events:
            lines.append(_damaged(_json(event, rng, style), rng, hostile) + end)
            if rng.random() < 0.1:
                lines.append(end)
        return "".join(lines).encode("utf-8", "surrogatepass")
    end = rng.choice(["\n", "\n", "\r\n", "\r"])
    strip = rng.choice([0.0, 0.0, 0.3, 1.0])
    strip = strip if proxied else 0.0  # (drawn all the same: the same seed renders the same bytes otherwise)
    out = []
    if rng.random() < 0.2:
        out.append(": connected" + end + end)
    for event in events:
        lines = []
        if rng.random() < 0.1:
            lines.append(rng.choice([": keep-alive", "retry: 3000", "id: 7"]))
        kind = event.get("type") if isinstance(event, dict) else None
        if format in NAMED_EVENT_FORMATS and isinstance(kind, str) and kind.isascii() and kind.isprintable():
            if hostile and rng.random() < 0.2:
                name = rng.choice(_EVENT_NAMES[format])
                lines.append(f"event: {name if misnamed else kind}")
            else:
                lines.append(f"event: {kind}")
                # Hostile events keep a type the damage made up: under its name, the core reads such an event as
                # the argument delta its data looks like (test_an_event_named_otherwise_is_not_an_arguments_delta).
                if kind and rng.random() < strip and (not hostile or kind in _DECODED_TYPES):
                    event = {key: value for key, value in event.items() if key != "type"}
        if rng.random() < 0.1:  # one JSON text over several data lines (joined with LF, which JSON reads as space)
            lines += [f"data: {line}" for line in json.dumps(event, indent=1).splitlines()]
        else:
            lines.append("data: " + _damaged(_json(event, rng, style), rng, hostile))
        out.append(end.join(lines) + end + end)
        if rng.random() < 0.05 and proxied:
            out.append("data:" + end + end)  # a keep-alive event: no data, no chunk
    if rng.random() < 0.2:
        out.append("data: [DONE]" + end + end)
    return "".join(out).encode("utf-8", "surrogatepass")  # a damaged text may hold a lone surrogate


# What a broken server or proxy leaves in a JSON text: a number with a leading zero, a bad escape, a control
# character, a stray quote or brace, invalid UTF-8 once encoded (a lone surrogate, written raw).
_TEXT_DAMAGE = ["0", "00", "-", "\\", "\\x", '"', "{", "}", ",", " ", "\x00", "\x1f", "\ud800", "é", "e", "."]


def _damaged(text: str, rng: random.Random, hostile: bool) -> str:
    """An event's JSON text, now and then (``hostile``) with a character inserted, replaced or dropped."""
    if not hostile or not text or rng.random() >= 0.1:
        return text
    numbers = [m.end() for m in re.finditer(r'": ?-?(?=[0-9])', text)]
    if numbers and rng.random() < 0.5:  # a number that is no JSON number: 01, -01, 1., -
        at = rng.choice(numbers)
        return text[:at] + rng.choice(["0", "00", "-", "-0"]) + text[at:]
    at = rng.randrange(len(text))
    keep = rng.randint(0, 1)
    return text[:at] + rng.choice(["", *_TEXT_DAMAGE]) + text[at + keep :]


#: The event types the decoders act on.
_DECODED_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.output_item.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_text.delta",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "response.cancelled",
    }
)

_EVENT_NAMES = {
    "anthropic-messages": ["ping", "content_block_delta", "content_block_stop", "message_delta", "error", "future"],
    "openai-responses": [
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
        "error",
        "keepalive",
    ],
}


@st.composite
def split_bytes(draw: Any, data: bytes) -> list[bytes]:
    """The bytes as one read, cut at random places (``iter_bytes``), or as lines without their ends (``iter_lines``)."""
    mode = draw(st.sampled_from(["whole", "cuts", "cuts", "cuts", "lines"]))
    if mode == "whole" or len(data) < 2:
        return [data]
    if mode == "lines":
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")[:-1] or [data]
    cuts = sorted(draw(st.lists(st.integers(1, len(data) - 1), max_size=min(len(data) - 1, 40), unique=True)))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
