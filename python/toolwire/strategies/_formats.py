"""Streams of the event formats besides Chat Completions, rendered from given calls, with their ground truth.

One renderer per format (``FORMAT_CASES``): the calls with their ids, names and arguments (the text as given, or
rendered in a drawn ``json.dumps`` style, cut into random fragments where the format streams text), laid out as the
provider sends them (Anthropic and Bedrock blocks one after the other, Responses output items interleaved by
``output_index``, Gemini candidates interleaved, Ollama calls in batches), with the content real streams carry around
the calls (text, thinking/reasoning blocks, Anthropic server tool blocks, Responses built-in tool items, Gemini code
parts; the completions format and Ollama's ``/api/generate`` carry text only) and noise that must change nothing
(pings, unknown event types, keep-alives, usage-only events). Each event records what it does to the calls
(``Action``), so that ``FormatCase`` can say, per emission policy, after which event each call is handed over, and
what the result must be.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from toolwire.strategies._calls import CallSpec
from toolwire.strategies._json import (
    arguments_objects,
    canonical,
    json_strings,
    json_values,
    merge,
    render_styles,
    split_text,
)

__all__ = ["FORMAT_CASES", "Action", "FormatCase", "TruthCall"]

# ------------------------------------------------------------------------------------------------ ground truth

# What one event does to the stream, in the order the decoder does it:
#   ("frag", call, closes)   a fragment for the call (opening it when new); ``closes``: its arguments value closed
#   ("final", call)          Responses' authoritative text bringing the call's only arguments (it closes the value)
#   ("end", call)            the format's explicit end of the call
#   ("whole", call)          a call that arrives whole (Gemini, Ollama)
#   ("finish", choice, reason)
#   ("text", choice, text)
#   ("output", value)        an output item, placed after the calls opened so far
#   ("part", choice, value)  a Gemini non-call part (joined with the streamed text parts before it)
#   ("touch", choice)        a choice seen, with nothing else
Action = tuple[Any, ...]


@dataclass
class TruthCall:
    """A call as it must come out of a well-formed stream (``seq`` is set from the order calls open)."""

    choice: int
    id: str | None  # None: none is sent, the call gets ``ts_<choice>_<seq>`` and MISSING_ID
    name: str
    arguments: dict[str, Any]
    arguments_json: str
    index: int | None
    extra: dict[str, Any] = field(default_factory=dict)
    codes: tuple[str, ...] = ()  # its expected violation codes, sorted
    seq: int = -1

    @property
    def expected_id(self) -> str:
        return self.id if self.id is not None else f"ts_{self.choice}_{self.seq}"


@dataclass
class FormatCase:
    """A well-formed stream of one format and everything reassembly must make of it."""

    format: str
    events: list[Any]
    actions: list[list[Action]]  # per event
    calls: list[TruthCall]  # in the builder's order; ``ordered`` sorts them by (choice, seq)
    usage: Any
    stream_codes: tuple[str, ...]  # expected stream-level violation codes, sorted

    def __post_init__(self) -> None:
        opened: list[int] = []
        for actions in self.actions:
            for action in actions:
                if action[0] in ("frag", "whole") and action[1] not in opened:
                    opened.append(action[1])
        assert sorted(opened) == list(range(len(self.calls))), "every call must open"
        for seq, call in enumerate(opened):
            self.calls[call].seq = seq

    @property
    def ordered(self) -> list[TruthCall]:
        return sorted(self.calls, key=lambda call: (call.choice, call.seq))

    def choices(self) -> list[tuple[int, str, str | None]]:
        """(choice, text, finish reason) of every choice seen, by choice."""
        texts: dict[int, list[str]] = {}
        finishes: dict[int, str | None] = {}
        for actions in self.actions:
            for action in actions:
                kind = action[0]
                if kind in ("frag", "whole", "final", "end"):
                    choice = self.calls[action[1]].choice
                elif kind in ("finish", "text", "part", "touch"):
                    choice = action[1]
                else:
                    continue
                texts.setdefault(choice, [])
                finishes.setdefault(choice, None)
                if kind == "text":
                    texts[choice].append(action[2])
                elif kind == "finish" and finishes[choice] is None:
                    finishes[choice] = action[2]
        return [(choice, "".join(texts[choice]), finishes[choice]) for choice in sorted(texts)]

    def output(self) -> list[tuple[int, dict[str, Any]]]:
        """The output items, each with the number of calls opened before it.

        Gemini: a run of plain text parts (or of thought text parts) of one candidate, with no call and no other part
        between them, is one part (docs/semantics.md, "gemini").
        """
        items: list[tuple[int, dict[str, Any]]] = []
        opened: set[int] = set()
        run: tuple[int, int, frozenset[str]] | None = None  # (choice, after_calls, keys) of a joinable last item
        for actions in self.actions:
            for action in actions:
                kind = action[0]
                if kind in ("frag", "whole"):
                    opened.add(action[1])
                elif kind == "output":
                    items.append((len(opened), action[1]))
                    run = None
                elif kind == "part":
                    choice, part = action[1], action[2]
                    keys = frozenset(part)
                    joinable = isinstance(part.get("text"), str) and (
                        keys == {"text"} or (keys == {"text", "thought"} and part["thought"] is True)
                    )
                    if joinable and run == (choice, len(opened), keys):
                        after, value = items[-1]
                        items[-1] = (after, {**value, "text": value["text"] + part["text"]})
                        continue
                    items.append((len(opened), part))
                    run = (choice, len(opened), keys) if joinable else None
        return items

    def handed_over(self, emit: str) -> list[tuple[int, int]]:
        """(event position, seq) of each call in hand-over order; position ``len(events)`` is the end of the stream.

        docs/semantics.md, "When a call is handed over": a settled call goes when a fragment for another call of its
        choice arrives; under ``complete`` a call goes as its value closes; at the format's end of a call it goes
        (not under ``stream_end``); a finish hands over the settled calls of its choice; the end hands over the rest
        in (choice, seq) order.
        """
        closed: set[int] = set()
        handed: list[tuple[int, int]] = []
        done: set[int] = set()
        opened: list[int] = []

        def hand(call: int, position: int) -> None:
            done.add(call)
            handed.append((position, self.calls[call].seq))

        for position, actions in enumerate(self.actions):
            for action in actions:
                kind = action[0]
                if kind in ("frag", "whole"):
                    call = action[1]
                    if call not in opened:
                        opened.append(call)
                    choice = self.calls[call].choice
                    if emit != "stream_end":
                        for other in opened:
                            if other != call and other not in done and other in closed:
                                if self.calls[other].choice == choice:
                                    hand(other, position)
                    if kind == "whole" or action[2]:
                        closed.add(call)
                    if call not in done and (
                        (kind == "whole" and emit != "stream_end") or (emit == "complete" and call in closed)
                    ):
                        hand(call, position)
                elif kind == "final":
                    closed.add(action[1])
                    if emit == "complete" and action[1] not in done:
                        hand(action[1], position)
                elif kind == "end":
                    closed.add(action[1])
                    if emit != "stream_end" and action[1] not in done:
                        hand(action[1], position)
                elif kind == "finish" and emit != "stream_end":
                    for call in opened:
                        if call not in done and self.calls[call].choice == action[1]:
                            assert call in closed, "a well-formed stream finishes after its calls closed"
                            hand(call, position)
        rest = [call for call in opened if call not in done]
        for call in sorted(rest, key=lambda c: (self.calls[c].choice, self.calls[c].seq)):
            hand(call, len(self.events))
        return handed


def _stream_codes(finishes: dict[int, str | None], kinds: dict[str, str], calls: list[TruthCall]) -> tuple[str, ...]:
    """The stream-level findings a finish makes (docs/semantics.md, "Finish classes")."""
    codes = []
    for choice, reason in sorted(finishes.items()):
        has_calls = any(call.choice == choice for call in calls)
        kind = None if reason is None else kinds.get(reason, "neutral")
        if kind is None:
            codes.append("NO_FINISH_REASON")
        elif kind == "calls" and not has_calls:
            codes.append("FINISH_WITHOUT_CALLS")
        elif kind == "stop" and has_calls:
            codes.append("FINISH_REASON_MISMATCH")
    return tuple(sorted(codes))


# --------------------------------------------------------------------------------------------- shared drawing


@st.composite
def _arguments(draw: st.DrawFn, *, ascii: bool | None = None) -> tuple[dict[str, Any], str, list[str]]:
    """An arbitrary object (a server tool's input), its text as a model writes it, in non-empty pieces.

    ``ascii=False`` keeps astral characters as they are: a hostile stream that drops or repeats a piece of an
    ``ensure_ascii`` text can leave half a surrogate pair, which the core does not keep yet (see the xfail
    regressions in tests/core/test_differential_formats.py).
    """
    value = draw(arguments_objects())
    style = draw(render_styles())
    if ascii is not None:
        style["ensure_ascii"] = ascii
    text = json.dumps(value, **style)
    return json.loads(text), text, draw(split_text(text))


@st.composite
def _call_text(draw: st.DrawFn, spec: CallSpec) -> tuple[dict[str, Any], str, list[str]]:
    """A call's arguments, their text (as given, or as a model writes it) and that text in non-empty pieces."""
    text = spec.text if spec.text is not None else json.dumps(spec.arguments, **draw(render_styles()))
    value: dict[str, Any] = json.loads(text)
    return value, text, draw(split_text(text))


def _layout(
    draw: st.DrawFn, rng: random.Random, n_calls: int, kinds: Sequence[str], *, extras: bool, max_extras: int
) -> list[tuple[str, int]]:
    """The calls in their order, ``("call", k)``, with drawn other kinds ``(kind, -1)`` put at random places."""
    others = draw(st.lists(st.sampled_from(list(kinds)), max_size=max_extras)) if extras else []
    out = [("call", k) for k in range(n_calls)]
    for kind in others:
        out.insert(rng.randint(0, len(out)), (kind, -1))
    return out


def _reason(
    draw: st.DrawFn, finish: bool | None, has_calls: bool, fitting: str, drawn: Sequence[str | None]
) -> str | None:
    """The finish: ``fitting`` (True), drawn from ``drawn`` as real streams end (None), or none (False)."""
    if finish is False:
        return None
    if finish is True:
        return fitting
    reason: str | None = draw(st.sampled_from(list(drawn)))
    return reason


@st.composite
def _texts(draw: st.DrawFn, max_pieces: int = 3) -> list[str]:
    pieces: list[str] = draw(st.lists(json_strings(8), min_size=1, max_size=max_pieces))
    return pieces


def _place(rng: random.Random, sequence: list[Any], noise: list[Any]) -> list[Any]:
    """``sequence`` with each noise item put at a random place."""
    out = list(sequence)
    for item in noise:
        out.insert(rng.randint(0, len(out)), item)
    return out


Step = tuple[Any, list[Action]]  # an event and what it does


def _case(
    format: str, steps: list[Step], calls: list[TruthCall], usage: Any, stream_codes: tuple[str, ...]
) -> FormatCase:
    return FormatCase(format, [e for e, _ in steps], [a for _, a in steps], calls, usage, stream_codes)


def _closing(pieces: list[str]) -> int:
    """The piece that closes an object's text (its last non-empty one)."""
    return max(j for j, piece in enumerate(pieces) if piece)


# ------------------------------------------------------------------------------------------ anthropic-messages

_ANTHROPIC_FINISH = {"tool_use": "calls", "end_turn": "stop", "stop_sequence": "neutral", "pause_turn": "neutral"}


@st.composite
def anthropic_cases(
    draw: st.DrawFn, specs: Sequence[CallSpec], *, noise: bool = True, extras: bool = True, finish: bool | None = None
) -> FormatCase:
    """Anthropic Messages events: one content block per call (``toolu_<k>`` ids when none is given)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = noise and draw(st.booleans())
    kinds = _layout(
        draw, rng, len(specs), ["text", "thinking", "redacted", "server", "other"], extras=extras, max_extras=4
    )
    calls: list[TruthCall] = []
    steps: list[Step] = []
    usage: dict[str, Any] = {"input_tokens": rng.randrange(1000), "output_tokens": 1}
    message = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x", "content": []}
    opening = {"type": "message_start", "message": {**message, "stop_reason": None, "usage": dict(usage)}}
    steps.append((opening, [("touch", 0)]))
    index = 0

    def block(start: dict[str, Any], actions: list[Action]) -> None:
        steps.append(({"type": "content_block_start", "index": index, "content_block": start}, actions))

    def delta(body: dict[str, Any], actions: list[Action]) -> None:
        steps.append(({"type": "content_block_delta", "index": index, "delta": body}, actions))

    def stop(actions: list[Action]) -> None:
        steps.append(({"type": "content_block_stop", "index": index}, actions))

    for kind, number in kinds:
        if kind == "call":
            spec = specs[number]
            value, text, pieces = draw(_call_text(spec))
            call = len(calls)
            call_id = spec.id if spec.id is not None else f"toolu_{call:02}"
            start: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": spec.name}
            extra = {}
            if rng.random() < 0.2:
                extra["caller"] = start["caller"] = {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}
            in_start = rng.random() < 0.25  # the whole input in the start block (programmatic callers, no deltas)
            start["input"] = value if in_start else {}
            calls.append(
                TruthCall(0, start["id"], start["name"], value, canonical(value) if in_start else text, index, extra)
            )
            block(start, [("frag", call, False)])
            if in_start:
                for _ in range(rng.randrange(3)):  # deltas that bring no byte leave the start input in place
                    delta({"type": "input_json_delta", "partial_json": ""}, [("frag", call, False)])
                stop([("frag", call, True), ("end", call)])
            else:
                pieces = ([""] if rng.random() < 0.5 else []) + pieces
                closing = _closing(pieces)
                for j, piece in enumerate(pieces):
                    delta({"type": "input_json_delta", "partial_json": piece}, [("frag", call, j == closing)])
                stop([("end", call)])
        elif kind == "text":
            first = rng.choice(["", "", draw(json_strings(4))])  # the API starts empty; a start text counts too
            pieces = draw(_texts())
            citations = []
            at = len(steps)
            block({"type": "text", "text": first}, [("text", 0, first)])
            for piece in pieces:
                delta({"type": "text_delta", "text": piece}, [("text", 0, piece)])
                if rng.random() < 0.2:
                    citation = {"type": "char_location", "cited_text": piece, "document_index": 0}
                    citations.append(citation)
                    delta({"type": "citations_delta", "citation": citation}, [])
            value = {"type": "text", "text": first + "".join(pieces)}
            if citations:
                value["citations"] = citations
            steps[at][1].append(("output", value))
            stop([])
        elif kind == "thinking":
            thinking, signature = draw(_texts()), draw(_texts(2))
            at = len(steps)
            block({"type": "thinking", "thinking": "", "signature": ""}, [])
            for piece in thinking:
                delta({"type": "thinking_delta", "thinking": piece}, [])
            for piece in signature:
                delta({"type": "signature_delta", "signature": piece}, [])
            value = {"type": "thinking", "thinking": "".join(thinking), "signature": "".join(signature)}
            steps[at][1].append(("output", value))
            stop([])
        elif kind == "redacted":
            value = {"type": "redacted_thinking", "data": draw(json_strings(6))}
            block(value, [("output", value)])
            stop([])
        elif kind == "server":
            tool_id = f"srvtoolu_{index:02}"
            query, text, pieces = draw(_arguments(ascii=False))
            at = len(steps)
            block({"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {}}, [])
            for piece in pieces:
                delta({"type": "input_json_delta", "partial_json": piece}, [])
            steps[at][1].append(
                ("output", {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": query})
            )
            stop([])
            index += 1
            result = {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": [{"type": "x", "url": "u"}]}
            block(result, [("output", result)])
            stop([])
        else:  # a block type this library has never heard of
            value = {"type": "future_block", "payload": draw(json_values)}
            block(value, [("output", value)])
            stop([])
        index += 1
    drawn: list[str | None] = ["tool_use", "tool_use", "tool_use", "tool_use", "end_turn", "pause_turn", None]
    if not calls:
        drawn = ["end_turn", "end_turn", "end_turn", "stop_sequence", "tool_use", None]
    reason = _reason(draw, finish, bool(calls), "tool_use" if calls else "end_turn", drawn)
    if reason is not None:
        output_tokens = rng.randrange(1, 500)
        final = {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}}
        steps.append(({**final, "usage": {"output_tokens": output_tokens}}, [("finish", 0, reason)]))
    steps.append(({"type": "message_stop"}, []))
    if noise:
        noise_steps: list[Step] = [({"type": "ping"}, []) for _ in range(rng.randrange(3))]
        noise_steps += [({"type": "future_event", "detail": {"index": 0}}, []) for _ in range(rng.randrange(2))]
        if rng.random() < 0.5:  # a usage-only message_delta (Anthropic sends usage updates alone)
            alone = {"type": "message_delta", "delta": {}, "usage": {"server_tool_use": {"web_search_requests": 1}}}
            noise_steps.append((alone, []))
        steps = steps[:1] + _place(rng, steps[1:], noise_steps)
        if rng.random() < 0.3:  # a ping may even come first: it names the format as well as message_start does
            steps.insert(0, ({"type": "ping"}, []))
        if rng.random() < 0.5:  # a delta type this library has never heard of, inside a block
            for at, (event, _) in enumerate(steps):
                if event.get("type") == "content_block_delta":
                    unknown = {
                        "type": "content_block_delta",
                        "index": event["index"],
                        "delta": {"type": "future_delta"},
                    }
                    steps.insert(at, (unknown, []))
                    break
    # Each message_delta's usage is cumulative: the latest one's members stand in for the start's.
    deltas = [event["usage"] for event, _ in steps if event.get("type") == "message_delta" and "usage" in event]
    usage |= deltas[-1] if deltas else {}
    return _case("anthropic-messages", steps, calls, usage, _stream_codes({0: reason}, _ANTHROPIC_FINISH, calls))


# -------------------------------------------------------------------------------------------- openai-responses


@st.composite
def responses_cases(
    draw: st.DrawFn,
    specs: Sequence[CallSpec],
    *,
    noise: bool = True,
    extras: bool = True,
    finish: bool | None = None,
    open_in_order: bool = False,
) -> FormatCase:
    """OpenAI Responses events: one ``function_call`` output item per call, events interleaved by ``output_index``.

    A call without an id gets ``call_<output_index>``; the stream ends with ``response.completed`` unless ``finish``
    is False.
    """
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = noise and draw(st.booleans())
    kinds = _layout(draw, rng, len(specs), ["message", "reasoning", "web_search"], extras=extras, max_extras=3)
    calls: list[TruthCall] = []
    items: list[list[Step]] = []
    final_output: list[dict[str, Any]] = []
    for output_index, (kind, number) in enumerate(kinds):
        steps: list[Step] = []
        head = {"output_index": output_index}
        if kind == "call":
            spec = specs[number]
            value, text, pieces = draw(_call_text(spec))
            call = len(calls)
            item_id, name = f"fc_{output_index}", spec.name
            call_id = spec.id if spec.id is not None else f"call_{output_index}"
            calls.append(TruthCall(0, call_id, name, value, text, output_index, {"item_id": item_id}))
            rotate = rng.random() < 0.3  # some servers give every event of one item another item id (Q27)
            item: dict[str, Any] = {
                "id": item_id,
                "type": "function_call",
                "status": "in_progress",
                "call_id": call_id,
                "name": name,
            }
            mode = rng.choice(["deltas", "deltas", "deltas", "in_added", "done_only", "item_done_only"])
            rotate = rotate and mode != "item_done_only"  # there the done item's id is the first to arrive
            added_arguments = pieces[0] if mode == "in_added" else ""
            if mode != "item_done_only":
                added = {"type": "response.output_item.added", **head, "item": {**item, "arguments": added_arguments}}
                steps.append((added, [("frag", call, mode == "in_added" and len(pieces) == 1)]))
            if mode in ("deltas", "in_added"):
                rest = pieces[1:] if mode == "in_added" else pieces
                for j, piece in enumerate(rest):
                    delta_id = f"{item_id}_{j}" if rotate else item_id
                    event = {
                        "type": "response.function_call_arguments.delta",
                        "item_id": delta_id,
                        **head,
                        "delta": piece,
                    }
                    steps.append((event, [("frag", call, j == len(rest) - 1)]))
            brought = mode in ("deltas", "in_added")
            if mode != "item_done_only":
                done = {"type": "response.function_call_arguments.done", "item_id": item_id, **head, "arguments": text}
                steps.append((done, ([] if brought else [("final", call)]) + [("end", call)]))
            done_item: dict[str, Any] = {
                **item,
                "id": f"{item_id}_done" if rotate else item_id,
                "status": "completed",
                "arguments": text,
            }
            actions: list[Action] = [("frag", call, False)]
            if mode == "item_done_only":
                actions += [("final", call), ("end", call)]
            steps.append(({"type": "response.output_item.done", **head, "item": done_item}, actions))
            final_output.append(done_item)
        elif kind == "message":
            pieces = draw(_texts())
            item_id = f"msg_{output_index}"
            item = {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
            part = {"type": "output_text", "annotations": [], "text": ""}
            where = {"item_id": item_id, **head, "content_index": 0}
            steps.append(({"type": "response.output_item.added", **head, "item": item}, []))
            steps.append(({"type": "response.content_part.added", **where, "part": part}, []))
            for piece in pieces:
                steps.append(({"type": "response.output_text.delta", **where, "delta": piece}, [("text", 0, piece)]))
            whole = {**part, "text": "".join(pieces)}
            steps.append(({"type": "response.output_text.done", **where, "text": whole["text"]}, []))
            steps.append(({"type": "response.content_part.done", **where, "part": whole}, []))
            done_item = {**item, "status": "completed", "content": [whole]}
            steps.append(({"type": "response.output_item.done", **head, "item": done_item}, [("output", done_item)]))
            final_output.append(done_item)
        elif kind == "reasoning":
            pieces = draw(_texts())
            item_id = f"rs_{output_index}"
            where = {"item_id": item_id, **head, "summary_index": 0}
            steps.append(
                (
                    {
                        "type": "response.output_item.added",
                        **head,
                        "item": {"id": item_id, "type": "reasoning", "summary": []},
                    },
                    [],
                )
            )
            for piece in pieces:
                steps.append(({"type": "response.reasoning_summary_text.delta", **where, "delta": piece}, []))
            summary = [{"type": "summary_text", "text": "".join(pieces)}]
            done_item = {"id": item_id, "type": "reasoning", "summary": summary, "encrypted_content": "gAAAA"}
            steps.append(({"type": "response.output_item.done", **head, "item": done_item}, [("output", done_item)]))
            final_output.append(done_item)
        else:
            item_id = f"ws_{output_index}"
            item = {"id": item_id, "type": "web_search_call", "status": "in_progress"}
            steps.append(({"type": "response.output_item.added", **head, "item": item}, []))
            for stage in ("in_progress", "searching", "completed"):
                steps.append(({"type": f"response.web_search_call.{stage}", **head, "item_id": item_id}, []))
            done_item = {**item, "status": "completed", "action": {"type": "search", "query": draw(json_strings(5))}}
            steps.append(({"type": "response.output_item.done", **head, "item": done_item}, [("output", done_item)]))
            final_output.append(done_item)
        items.append(steps)
    interleave = draw(st.booleans())
    body = merge(rng, items, open_in_order=open_in_order) if interleave else [step for steps in items for step in steps]
    if noise:
        noise_steps: list[Step] = [({"type": "keepalive"}, []) for _ in range(rng.randrange(2))]
        noise_steps += [
            ({"type": "response.future_event", "output_index": 0, "detail": "x"}, []) for _ in range(rng.randrange(2))
        ]
        noise_steps += [({"type": "response.output_text.annotation.added", "output_index": 0, "annotation": {}}, [])]
        body = _place(rng, body, noise_steps)
    response = {"id": "resp_1", "object": "response", "model": "gpt-x", "error": None}
    usage = {"input_tokens": rng.randrange(1000), "output_tokens": rng.randrange(1000), "total_tokens": 7}
    steps = [
        (
            {
                "type": "response.created",
                "response": {**response, "status": "in_progress", "output": [], "usage": None},
            },
            [("touch", 0)],
        ),
        (
            {
                "type": "response.in_progress",
                "response": {**response, "status": "in_progress", "output": [], "usage": None},
            },
            [("touch", 0)],
        ),
        *body,
    ]
    terminal = {**response, "status": "completed", "output": final_output, "usage": usage}
    if finish is not False:
        steps.append(({"type": "response.completed", "response": terminal}, [("finish", 0, "completed")]))
    for position, (event, _) in enumerate(steps):
        event["sequence_number"] = position
    if finish is False:
        return _case("openai-responses", steps, calls, None, ("NO_FINISH_REASON",))
    return _case("openai-responses", steps, calls, usage, ())


# ----------------------------------------------------------------------------------------------------- gemini

_GEMINI_NEUTRAL = ["STOP", "STOP", "STOP", "OTHER", "FINISH_REASON_UNSPECIFIED"]


@st.composite
def gemini_cases(
    draw: st.DrawFn, specs: Sequence[CallSpec], *, noise: bool = True, extras: bool = True, finish: bool | None = None
) -> FormatCase:
    """Gemini ``streamGenerateContent`` chunks: ``functionCall`` parts, candidates interleaved.

    A call goes to candidate ``choice``, with an id only when one is given; an empty object may go as no ``args``.
    A call whose arguments ``partialArgs`` can carry may stream them instead (``_streamed_parts``).
    """
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = noise and draw(st.booleans())
    n_candidates = max((spec.choice for spec in specs), default=0) + 1
    calls: list[TruthCall] = []
    entries: list[list[tuple[int, list[tuple[dict[str, Any], list[Action]]], str | None]]] = []
    finishes: dict[int, str | None] = {}
    for candidate in range(n_candidates):
        parts: list[tuple[dict[str, Any], list[Action]]] = []
        mine_specs = [spec for spec in specs if spec.choice == candidate]
        kinds = _layout(
            draw, rng, len(mine_specs), ["text", "thought", "signed_text", "code"], extras=extras, max_extras=4
        )
        for kind, number in kinds:
            if kind == "call":
                spec = mine_specs[number]
                value = spec.arguments
                call = len(calls)
                body: dict[str, Any] = {"name": spec.name}
                has_id, has_args = spec.id is not None, value != {} or rng.random() < 0.5
                if spec.id is not None:
                    body["id"] = spec.id
                if has_args:
                    body["args"] = value
                part: dict[str, Any] = {"functionCall": body}
                extra = {}
                if rng.random() < 0.3:
                    extra["thought_signature"] = part["thoughtSignature"] = f"sig{call}=="
                if _streamable(value) and rng.random() < 0.5:
                    # Vertex streamFunctionCallArguments: the call opens, its values follow by JSON path.
                    body.pop("args", None)
                    body["willContinue"] = True
                    codes: tuple[str, ...] = () if has_id else ("MISSING_ID",)
                    truth = TruthCall(candidate, body.get("id"), spec.name, value, canonical(value), None, extra, codes)
                    calls.append(truth)
                    parts += [(part, [("frag", call, False)]), *_streamed_parts(draw, rng, call, value)]
                    continue
                codes = tuple(sorted(([] if has_id else ["MISSING_ID"]) + ([] if has_args else ["EMPTY_ARGUMENTS"])))
                arguments = value if has_args else {}
                text = canonical(value) if has_args else ""
                calls.append(TruthCall(candidate, body.get("id"), body["name"], arguments, text, None, extra, codes))
                parts.append((part, [("whole", call)]))
            elif kind in ("text", "thought"):
                for piece in draw(_texts()):
                    part = {"text": piece, "thought": True} if kind == "thought" else {"text": piece}
                    actions: list[Action] = [] if kind == "thought" else [("text", candidate, piece)]
                    parts.append((part, [*actions, ("part", candidate, part)]))
            elif kind == "signed_text":  # Gemini 3 signs the first text part: no longer a plain streamed piece
                piece = draw(json_strings(6))
                part = {"text": piece, "thoughtSignature": "sigT=="}
                parts.append((part, [("text", candidate, piece), ("part", candidate, part)]))
            else:
                part = {"executableCode": {"language": "PYTHON", "code": draw(json_strings(6))}}
                parts.append((part, [("part", candidate, part)]))
        reason = rng.choice(_GEMINI_NEUTRAL) if rng.random() < 0.9 else None
        if finish is not None:
            reason = "STOP" if finish else None
        finishes[candidate] = reason
        cuts = sorted(rng.sample(range(1, len(parts)), rng.randint(0, len(parts) - 1))) if len(parts) > 1 else []
        groups = [parts[a:b] for a, b in zip([0, *cuts], [*cuts, len(parts)], strict=True)] if parts else []
        mine: list[tuple[int, list[tuple[dict[str, Any], list[Action]]], str | None]]
        mine = [(candidate, group, None) for group in groups]
        if reason is not None:
            if mine and rng.random() < 0.5:
                mine[-1] = (candidate, mine[-1][1], reason)
            else:  # Q28: the finish comes in a later chunk, with an empty text part
                closing: dict[str, Any] = {"text": ""}
                mine.append((candidate, [(closing, [("text", candidate, ""), ("part", candidate, closing)])], reason))
        if not mine:
            mine = [(candidate, [], None)]
        entries.append(mine)
    sequence = merge(rng, entries)
    steps: list[Step] = []
    usage = None
    while sequence:
        chunk_entries = [sequence.pop(0)]
        while sequence and rng.random() < 0.4 and sequence[0][0] not in [c for c, _, _ in chunk_entries]:
            chunk_entries.append(sequence.pop(0))
        candidates, actions = [], []
        for position, (candidate, group, reason) in enumerate(chunk_entries):
            entry: dict[str, Any] = {"content": {"parts": [part for part, _ in group], "role": "model"}}
            if candidate != position or rng.random() < 0.8:
                entry["index"] = candidate
            actions.append(("touch", candidate))
            actions += [action for _, part_actions in group for action in part_actions]
            if reason is not None:
                entry["finishReason"] = reason
                actions.append(("finish", candidate, reason))
            candidates.append(entry)
        chunk: dict[str, Any] = {"candidates": candidates, "modelVersion": "gemini-x", "responseId": "r1"}
        if rng.random() < 0.7 or not sequence:
            usage = chunk["usageMetadata"] = {"promptTokenCount": 9, "totalTokenCount": len(steps) + 9}
        steps.append((chunk, actions))
    if noise:
        usage_only = {"usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 1}}
        noise_steps: list[Step] = [(usage_only, [])] if rng.random() < 0.5 else []
        noise_steps += [({"candidates": [], "modelVersion": "gemini-x"}, []) for _ in range(rng.randrange(2))]
        steps = (
            steps[:1] + _place(rng, steps[1:-1], noise_steps) + steps[-1:] if len(steps) > 1 else steps + noise_steps
        )
        usage = next(event["usageMetadata"] for event, _ in reversed(steps) if "usageMetadata" in event)
    return _case("gemini", steps, calls, usage, _stream_codes(finishes, {}, calls))


def _streamable(arguments: dict[str, Any]) -> bool:
    """Whether ``partialArgs`` can carry the arguments: scalars only (no empty object or array below the top)."""
    return all(_scalars_only(member) for member in arguments.values())


def _scalars_only(value: Any) -> bool:
    if isinstance(value, dict):
        return bool(value) and all(_scalars_only(member) for member in value.values())
    if isinstance(value, list):
        return bool(value) and all(_scalars_only(item) for item in value)
    return not isinstance(value, str) or _utf8(value)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _leaves(value: Any, path: list[str | int]) -> list[tuple[list[str | int], Any]]:
    """The scalars of a value with their paths, in document order."""
    if isinstance(value, dict):
        return [leaf for key, member in value.items() for leaf in _leaves(member, [*path, key])]
    if isinstance(value, list):
        return [leaf for position, item in enumerate(value) for leaf in _leaves(item, [*path, position])]
    return [(path, value)]


def _json_path(rng: random.Random, path: list[str | int]) -> str:
    """A singular JSON path, each key in dot or bracket notation (RFC 9535) as a provider may write it."""
    out = "$"
    for segment in path:
        if isinstance(segment, int):
            out += f"[{segment}]"
        elif segment and not any(character in ".[]'\"\\" for character in segment) and rng.random() < 0.7:
            out += f".{segment}"
        else:
            out += "[" + json.dumps(segment, ensure_ascii=False) + "]"
    return out


def _streamed_parts(
    draw: st.DrawFn, rng: random.Random, call: int, value: dict[str, Any]
) -> list[tuple[dict[str, Any], list[Action]]]:
    """The parts after a streamed call's opening, in order.

    Its values as ``partialArgs`` entries (strings in pieces, each piece but the last with ``willContinue``), a few
    per part, parts that change nothing, and the end: an empty ``functionCall`` or a last part without
    ``willContinue``.
    """
    entries: list[dict[str, Any]] = []
    for path, leaf in _leaves(value, []):
        json_path = _json_path(rng, path)
        if isinstance(leaf, str):
            pieces = draw(split_text(leaf)) if leaf else [""]
            if rng.random() < 0.5:
                pieces.append("")  # Vertex ends each string with an empty piece
            entries += [
                {"jsonPath": json_path, "stringValue": piece, **({"willContinue": True} if k + 1 < len(pieces) else {})}
                for k, piece in enumerate(pieces)
            ]
        elif leaf is None:
            entries.append({"jsonPath": json_path, "nullValue": rng.choice([None, "NULL_VALUE"])})
        elif isinstance(leaf, bool):
            entries.append({"jsonPath": json_path, "boolValue": leaf})
        else:
            entries.append({"jsonPath": json_path, "numberValue": leaf})
    parts: list[tuple[dict[str, Any], list[Action]]] = []
    while entries:
        take = rng.randint(1, 3)
        group, entries = entries[:take], entries[take:]
        parts.append(({"functionCall": {"partialArgs": group, "willContinue": True}}, [("frag", call, False)]))
        if rng.random() < 0.2:
            parts.append(({"functionCall": {"willContinue": True}}, [("frag", call, False)]))
    if parts and rng.random() < 0.4:
        del parts[-1][0]["functionCall"]["willContinue"]
        parts[-1] = (parts[-1][0], [("frag", call, True), ("end", call)])
    else:
        parts.append(({"functionCall": {}}, [("frag", call, True), ("end", call)]))
    return parts


# ----------------------------------------------------------------------------------------------------- ollama


@st.composite
def ollama_cases(
    draw: st.DrawFn, specs: Sequence[CallSpec], *, noise: bool = True, extras: bool = True, finish: bool | None = None
) -> FormatCase:
    """Ollama lines: ``/api/chat``'s calls whole, one to three per message, or with no call ``/api/generate``'s text.

    A call has an id only when one is given.
    """
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = noise and draw(st.booleans())
    calls: list[TruthCall] = []
    steps: list[Step] = []
    head = {"model": "qwen3:8b", "created_at": "2025-09-18T10:44:02.180114Z"}
    # With no call to carry, the stream may be /api/generate's: its lines carry `response` text instead of a message.
    generate = not specs and draw(st.booleans())
    batches: list[list[CallSpec]] = []
    while sum(map(len, batches)) < len(specs):
        start = sum(map(len, batches))
        batches.append(list(specs[start : start + draw(st.integers(1, 3))]))
    for kind, number in _layout(draw, rng, len(batches), ["text", "thinking"], extras=extras, max_extras=3):
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        actions: list[Action] = []
        if kind == "call":
            message["tool_calls"] = []
            for position, spec in enumerate(batches[number]):
                value = spec.arguments
                call = len(calls)
                function: dict[str, Any] = {"name": spec.name, "arguments": value}
                if rng.random() < 0.5:
                    function = {"index": position, **function}
                entry: dict[str, Any] = {"function": function}
                if spec.id is not None:
                    entry = {"id": spec.id, **entry}
                codes = () if "id" in entry else ("MISSING_ID",)
                calls.append(TruthCall(0, entry.get("id"), function["name"], value, canonical(value), None, {}, codes))
                message["tool_calls"].append(entry)
                actions.append(("whole", call))
        elif kind == "text":
            message["content"] = draw(json_strings(8))
            actions.append(("text", 0, message["content"]))
        else:
            message["thinking"] = draw(json_strings(8))
        line: dict[str, Any] = {**head, "message": message, "done": False}
        if generate:
            line = {**head, "response": message["content"], "done": False}
            if "thinking" in message:
                line["thinking"] = message["thinking"]
        steps.append((line, [("touch", 0), *actions]))
    empty: dict[str, Any] = {"response": ""} if generate else {"message": {"role": "assistant", "content": ""}}
    reason = "stop" if rng.random() < 0.9 else None
    if finish is not None:
        reason = "stop" if finish else None
    usage = None
    if reason is not None:
        usage = {**head, **empty, "done_reason": reason, "done": True}
        usage |= {"total_duration": rng.randrange(10**9), "eval_count": rng.randrange(100)}
        if generate:
            usage["context"] = [rng.randrange(150000) for _ in range(rng.randrange(4))]
        steps.append((usage, [("touch", 0), ("finish", 0, reason)]))
    if noise:
        keep_alive = ({**head, **empty, "done": False}, [("touch", 0)])
        steps = _place(rng, steps, [keep_alive] * rng.randrange(1, 3))
    if not steps:
        steps = [({**head, **empty, "done": False}, [("touch", 0)])]
    return _case("ollama", steps, calls, usage, _stream_codes({0: reason}, {}, calls))


# ------------------------------------------------------------------------------------------- bedrock-converse

_BEDROCK_FINISH = {"tool_use": "calls", "end_turn": "stop", "stop_sequence": "neutral"}


@st.composite
def bedrock_cases(
    draw: st.DrawFn, specs: Sequence[CallSpec], *, noise: bool = True, extras: bool = True, finish: bool | None = None
) -> FormatCase:
    """Bedrock ConverseStream events: one ``toolUse`` block per call (``tooluse_<k>`` ids when none is given)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = noise and draw(st.booleans())
    calls: list[TruthCall] = []
    steps: list[Step] = [({"messageStart": {"role": "assistant"}}, [("touch", 0)])]
    kinds = _layout(draw, rng, len(specs), ["text", "reasoning", "redacted"], extras=extras, max_extras=4)
    for index, (kind, number) in enumerate(kinds):
        where = {"contentBlockIndex": index}

        def delta(body: dict[str, Any], actions: list[Action], where: dict[str, Any] = where) -> None:
            steps.append(({"contentBlockDelta": {"delta": body, **where}}, actions))

        if kind == "call":
            spec = specs[number]
            value, text, pieces = draw(_call_text(spec))
            call = len(calls)
            tool = {"toolUseId": spec.id if spec.id is not None else f"tooluse_{call}", "name": spec.name}
            calls.append(TruthCall(0, tool["toolUseId"], tool["name"], value, text, index))
            steps.append(({"contentBlockStart": {"start": {"toolUse": tool}, **where}}, [("frag", call, False)]))
            for j, piece in enumerate(pieces):
                delta({"toolUse": {"input": piece}}, [("frag", call, j == len(pieces) - 1)])
            steps.append(({"contentBlockStop": where}, [("end", call)]))
            continue
        if kind == "text":
            pieces = draw(_texts())
            for j, piece in enumerate(pieces):
                delta(
                    {"text": piece}, [("text", 0, piece)] + ([("output", {"text": "".join(pieces)})] if j == 0 else [])
                )
        elif kind == "reasoning":
            pieces, signature = draw(_texts()), draw(_texts(2))
            value = {"reasoningContent": {"reasoningText": {"text": "".join(pieces), "signature": "".join(signature)}}}
            for j, piece in enumerate(pieces):
                delta({"reasoningContent": {"text": piece}}, [("output", value)] if j == 0 else [])
            for piece in signature:
                delta({"reasoningContent": {"signature": piece}}, [])
        else:
            data = draw(json_strings(6))
            delta(
                {"reasoningContent": {"redactedContent": data}},
                [("output", {"reasoningContent": {"redactedContent": data}})],
            )
        steps.append(({"contentBlockStop": where}, []))
    drawn: list[str | None] = ["tool_use", "tool_use", "tool_use", "tool_use", "end_turn", None]
    if not calls:
        drawn = ["end_turn", "end_turn", "end_turn", "stop_sequence", "tool_use", None]
    reason = _reason(draw, finish, bool(calls), "tool_use" if calls else "end_turn", drawn)
    if reason is not None:
        steps.append(({"messageStop": {"stopReason": reason}}, [("finish", 0, reason)]))
    usage = {"inputTokens": rng.randrange(1000), "outputTokens": rng.randrange(1000), "totalTokens": 5}
    steps.append(({"metadata": {"usage": usage, "metrics": {"latencyMs": 123}}}, []))
    if noise:
        early = {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 0, "totalTokens": 1}}}
        noise_steps: list[Step] = [(early, [])] if rng.random() < 0.5 else []
        noise_steps += [({"futureEvent": {"x": 1}}, []) for _ in range(rng.randrange(2))]
        steps = _place(rng, steps[:-1], noise_steps) + steps[-1:]
    return _case("bedrock-converse", steps, calls, usage, _stream_codes({0: reason}, _BEDROCK_FINISH, calls))


# ------------------------------------------------------------------------------------------ openai-completions

_COMPLETIONS_FINISH = {"length": "cut", "content_filter": "cut"}


@st.composite
def completions_cases(
    draw: st.DrawFn, specs: Sequence[CallSpec], *, noise: bool = True, extras: bool = True, finish: bool | None = None
) -> FormatCase:
    """Legacy completions chunks (vLLM's shape): one to three choices of text pieces, interleaved, each finished.

    The format carries no calls: a model's calls are text in its dialect, which these streams do not write.

    Raises:
        ValueError: ``specs`` holds calls.
    """
    if specs:
        raise ValueError(
            f"openai-completions streams carry text only, not {len(specs)} call(s): a model writes its calls into "
            "the text in its own dialect"
        )
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    noise = noise and draw(st.booleans())
    head = {"id": "cmpl-7f3a", "object": "text_completion", "created": 1733220184, "model": "Qwen/Qwen2.5-7B"}
    n = draw(st.integers(1, 3)) if extras else 1
    runs: list[list[Step]] = []
    finishes: dict[int, str | None] = {}
    for choice in range(n):
        pieces = draw(_texts(4)) if extras else []
        drawn: list[str | None] = ["stop", "stop", "stop", "length", None]
        reason = _reason(draw, finish, False, "stop", drawn)
        finishes[choice] = reason
        run: list[Step] = []
        for j, piece in enumerate(pieces):
            last = j == len(pieces) - 1
            entry = {"index": choice, "text": piece, "logprobs": None, "finish_reason": reason if last else None}
            actions: list[Action] = [("touch", choice), ("text", choice, piece)]
            run.append(
                ({**head, "choices": [entry]}, actions + ([("finish", choice, reason)] if last and reason else []))
            )
        if not pieces:  # the choice's one chunk: its finish, or its only (empty) text
            entry = {"index": choice, "text": "", "logprobs": None, "finish_reason": reason}
            run.append(
                ({**head, "choices": [entry]}, [("touch", choice)] + ([("finish", choice, reason)] if reason else []))
            )
        runs.append(run)
    steps: list[Step] = []
    while any(runs):  # choices interleave as a server's per-choice outputs arrive
        run = rng.choice([run for run in runs if run])
        steps.append(run.pop(0))
    usage = None
    if rng.random() < 0.7:  # stream_options.include_usage: one chunk of empty choices, last
        usage = {"prompt_tokens": rng.randrange(1000), "completion_tokens": rng.randrange(100), "total_tokens": 1}
        steps.append(({**head, "choices": [], "usage": usage}, []))
    if noise:  # chunks of empty text, which servers send for tokens that decode to nothing yet
        empty = {"index": 0, "text": "", "logprobs": None, "finish_reason": None, "stop_reason": None}
        steps = _place(rng, steps, [({**head, "choices": [empty]}, [("touch", 0)])] * rng.randrange(1, 3))
    cuts = tuple("STREAM_CUT" for reason in finishes.values() if reason in _COMPLETIONS_FINISH)
    codes = tuple(sorted(_stream_codes(finishes, _COMPLETIONS_FINISH, []) + cuts))
    return _case("openai-completions", steps, [], usage, codes)


FormatRenderer = Callable[..., st.SearchStrategy[FormatCase]]

#: The renderer of each format: ``FORMAT_CASES[format](specs, noise=..., extras=..., finish=...)``.
FORMAT_CASES: dict[str, FormatRenderer] = {
    "openai-completions": completions_cases,
    "anthropic-messages": anthropic_cases,
    "openai-responses": responses_cases,
    "gemini": gemini_cases,
    "ollama": ollama_cases,
    "bedrock-converse": bedrock_cases,
}
