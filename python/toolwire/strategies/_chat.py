"""OpenAI Chat Completions streams rendered from given calls, with the ground truth reassembly must produce.

``chat_cases(calls)`` lays the calls out as a provider streams them: the arguments text (as given, or rendered in a
drawn ``json.dumps`` style) cut anywhere, parallel calls interleaved by ``index`` (sequential, from 1, sparse, or all
at index 0), over one or more choices, with the quirks docs/semantics.md says must not change the calls: fragments
without ``index``, placeholder ids, types and names (``""``, ``"null"``, ``None``) on continuations, the name arriving
on a later fragment, empty argument fragments, content text around the calls, chunks packed or split, noise chunks
(empty ``choices``, Azure's filter-results chunk, usage-only chunks, ``delta: None``). The ``ChatCase`` it returns
knows when each call must be handed over under each emission policy and which warnings it carries; the project's
differential tests check the Rust core and the reference against it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from toolwire.strategies._calls import CallSpec
from toolwire.strategies._json import json_strings, merge, render_styles, split_text

__all__ = ["ABSENT", "CHUNK_HEAD", "ChatCase", "Item", "TruthCall", "chat_cases", "pack", "placeholder", "put"]

ABSENT: Any = object()  # a field left out of a fragment


@dataclass
class Item:
    """One thing a choice says, in stream order: a tool-call fragment, content text or a finish reason."""

    kind: str  # "frag" | "content" | "finish"
    choice: int
    payload: Any = None  # the tool_calls entry, the content string or the finish reason
    call: int | None = None  # the call a fragment belongs to (position in the case's call list)
    frag: int | None = None  # the fragment's position within its call


CHUNK_HEAD: dict[str, Any] = {
    "id": "chatcmpl-TS",
    "object": "chat.completion.chunk",
    "created": 1_700_000_000,
    "model": "m",
}


def _noise_chunk(rng: random.Random, choices: list[int]) -> tuple[dict[str, Any], Any]:
    """A chunk that must change no call (and the usage it carries, if any)."""
    kind = rng.randrange(5)
    if kind == 0:
        return {**CHUNK_HEAD, "choices": []}, None
    if kind == 1:  # Azure's first chunk
        head = {"id": "", "object": "", "created": 0, "model": ""}
        return {
            **head,
            "choices": [],
            "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
        }, None
    if kind == 2:
        a, b = rng.randrange(100), rng.randrange(100)
        usage = {"prompt_tokens": a, "completion_tokens": b, "total_tokens": a + b}
        return {**CHUNK_HEAD, "choices": [], "usage": usage}, usage
    choice = rng.choice(choices)
    if kind == 3:
        return {**CHUNK_HEAD, "choices": [{"index": choice, "delta": None, "finish_reason": None}]}, None
    delta = {"role": "assistant", "content": rng.choice([None, ""]), "refusal": None}
    return {**CHUNK_HEAD, "choices": [{"index": choice, "delta": delta, "logprobs": None, "finish_reason": None}]}, None


def pack(
    rng: random.Random,
    items: list[Item],
    *,
    pack_p: float,
    noise_p: float = 0.0,
    choices: list[int] | None = None,
    explicit_nulls: bool = False,
) -> tuple[list[Any], list[int], Any]:
    """Lay items out as chunks. Returns the chunks, the chunk position of each item and the last usage sent."""
    chunks: list[Any] = []
    where: list[int] = []
    usage = None
    current: list[dict[str, Any]] | None = None

    def new_entry(choice: int) -> dict[str, Any]:
        entry: dict[str, Any] = {"index": choice, "delta": {}}
        if explicit_nulls or rng.random() < 0.5:
            entry["finish_reason"] = None
        return entry

    for item in items:
        join = current is not None and rng.random() < pack_p
        if not join or current is None:
            if noise_p and choices and rng.random() < noise_p:
                noise, sent = _noise_chunk(rng, choices)
                chunks.append(noise)
                usage = sent if sent is not None else usage
            current = []
            chunk: dict[str, Any] = {**CHUNK_HEAD, "choices": current}
            if explicit_nulls:
                chunk["usage"] = None
            chunks.append(chunk)
        entry = current[-1] if current else None
        fits = (
            entry is not None
            and entry["index"] == item.choice
            and entry.get("finish_reason") is None
            and (item.kind == "finish" or "content" not in entry["delta"])
        )
        if entry is None or not fits:
            entry = new_entry(item.choice)
            current.append(entry)
        if item.kind == "frag":
            entry["delta"].setdefault("tool_calls", []).append(item.payload)
        elif item.kind == "content":
            entry["delta"]["content"] = item.payload
        else:
            entry["finish_reason"] = item.payload
        where.append(len(chunks) - 1)
    if noise_p and choices and rng.random() < noise_p:
        noise, sent = _noise_chunk(rng, choices)
        chunks.append(noise)
        usage = sent if sent is not None else usage
    # A choice entry may leave out its index when its position says the same.
    for packed in chunks:
        for position, entry in enumerate(packed.get("choices") or []):
            if entry.get("index") == position and rng.random() < 0.2:
                del entry["index"]
    return chunks, where, usage


def placeholder(rng: random.Random) -> Any:
    """A value that says nothing: the field left out, ``None``, ``""`` or ``"null"``."""
    return rng.choice([ABSENT, None, "", "null"])


def put(d: dict[str, Any], key: str, value: Any) -> None:
    """``d[key] = value`` unless ``value`` is ``ABSENT``."""
    if value is not ABSENT:
        d[key] = value


@dataclass
class TruthCall:
    """A call as it must come out of a well-formed stream."""

    choice: int
    id: str
    name: str
    arguments: Any
    text: str
    index: int | None
    violations: list[tuple[str, str]]  # (code, severity) of its expected call-level violations
    seq: int = -1
    close_item: int = -1
    call_end_item: int | None = None  # None: handed over only by the end of the stream


@dataclass
class ChatCase:
    """A well-formed stream and everything reassembly must make of it."""

    chunks: list[Any]
    calls: list[TruthCall]  # ordered by (choice, seq)
    choices: list[int]
    texts: dict[int, str]
    usage: Any
    where: list[int]  # chunk position of each item
    finishes: dict[int, str | None]  # the finish reason each choice ends with (None: none is sent)

    def violation_keys(self, call: TruthCall) -> list[tuple[Any, ...]]:
        """The expected ``Violation.key()`` of each of the call's violations, sorted."""
        return sorted((code, severity, call.choice, call.seq, None) for code, severity in call.violations)

    def trigger(self, call: TruthCall, emit: str) -> int | None:
        """The item whose reading hands the call over (None: the end of the stream)."""
        if emit == "complete":
            return call.close_item
        if emit == "call_end":
            return call.call_end_item
        return None

    def expected_order(self, emit: str) -> list[tuple[int, int]]:
        """(choice, seq) of the calls in the order they are handed over under ``emit``."""

        def key(call: TruthCall) -> tuple[float, int, int]:
            trigger = self.trigger(call, emit)
            return (float("inf") if trigger is None else trigger, call.choice, call.seq)

        return [(c.choice, c.seq) for c in sorted(self.calls, key=key)]

    def expected_chunk(self, call: TruthCall, emit: str) -> int:
        """Position of the chunk after which the call is handed over; len(chunks) for the end of the stream."""
        trigger = self.trigger(call, emit)
        return len(self.chunks) if trigger is None else self.where[trigger]


@st.composite
def _call_fragments(
    draw: st.DrawFn, rng: random.Random, spec: CallSpec, *, call_id: str, index: int, noise: bool
) -> tuple[Any, str, list[dict[str, Any]], int, dict[str, Any]]:
    """One valid call's fragments. Returns arguments, text, fragments, the closing fragment and its options."""
    text = spec.text if spec.text is not None else json.dumps(spec.arguments, **draw(render_styles()))
    pieces = draw(split_text(text))
    name = spec.name
    type_mode = draw(st.sampled_from(["function"] * 5 + ["absent", "none", "", "null"])) if noise else "function"
    drop = draw(st.sampled_from(["none", "none", "none", "some", "all"])) if noise else "none"
    late_name = noise and draw(st.integers(0, 3)) == 0
    first_empty = late_name or draw(st.booleans())
    args: list[Any] = ([rng.choice(["", "", None, ABSENT])] if first_empty else []) + pieces
    if noise and len(args) > 1:  # continuations that carry no arguments at all (never after the closing one)
        for _ in range(draw(st.integers(0, 2))):
            args.insert(rng.randint(1, len(args) - 1), rng.choice([ABSENT, None, ""]))
    close = max(j for j, a in enumerate(args) if isinstance(a, str) and a)
    late_at = rng.randint(1, close) if late_name else 0
    fragments = []
    for j, piece in enumerate(args):
        frag: dict[str, Any] = {}
        has_index = drop == "none" or (drop == "some" and (j == 0 or rng.random() < 0.5))
        if has_index:
            frag["index"] = index
        elif rng.random() < 0.5:
            frag["index"] = None
        function: dict[str, Any] = {}
        if j == 0:
            frag["id"] = call_id
            put(frag, "type", {"function": "function", "absent": ABSENT, "none": None}.get(type_mode, type_mode))
            put(function, "name", placeholder(rng) if late_name else name)
        else:
            if noise and rng.random() < 0.3:
                frag["id"] = rng.choice([call_id, call_id, "", "null", None])
            if noise and rng.random() < 0.3:
                frag["type"] = rng.choice(["function", "", "null", None])
            if j == late_at:
                function["name"] = name
            elif noise and rng.random() < 0.3:
                function["name"] = rng.choice(["", "null", None] + ([name] if j > late_at else []))
        put(function, "arguments", piece)
        if function or j == 0 or rng.random() < 0.5:
            frag["function"] = function if (function or rng.random() < 0.7) else None
        fragments.append(frag)
    options = {"type_mode": type_mode, "name": name}
    return json.loads(text), text, fragments, close, options


def _lacks_index(frag: dict[str, Any]) -> bool:
    return frag.get("index") is None


@st.composite
def chat_cases(
    draw: st.DrawFn,
    calls: Sequence[CallSpec],
    *,
    noise: bool = True,
    interleave: bool = True,
    content: bool = True,
    finish: bool | None = True,
    open_in_order: bool = False,
) -> ChatCase:
    """The calls as a well-formed Chat Completions stream with its exact ground truth (see the module docstring).

    Args:
        draw: Hypothesis' draw.
        calls: The calls; ``choice`` picks the choice of each, and the choices run from 0 to the largest given. A
            call without an id gets ``call_<position>``.
        noise: Whether the stream may carry the quirks and noise chunks (drawn per stream).
        interleave: Whether parallel calls of one choice may interleave their fragments (drawn per choice).
        content: Whether content text may come around the calls (drawn per choice).
        finish: True: every choice ends with ``tool_calls`` (``stop`` when it has no call); None: drawn, sometimes
            with no finish reason at all; False: no finish reason.
        open_in_order: Whether the calls of a choice open in the order given (their later fragments still
            interleave), so that the result lists them in that order.
    """
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n_choices = max((spec.choice for spec in calls), default=0) + 1
    noisy = noise and draw(st.booleans())
    choices = list(range(n_choices))
    truth: list[TruthCall] = []
    per_choice: list[list[Item]] = []
    finishes: dict[int, str | None] = {}
    for choice in choices:
        mine = [(position, spec) for position, spec in enumerate(calls) if spec.choice == choice]
        n = len(mine)
        style = draw(st.sampled_from(["seq0", "seq1", "distinct", "zero"]))
        if style == "zero":
            indices = [0] * n
        elif style == "distinct":
            indices = draw(st.lists(st.integers(0, 50), min_size=n, max_size=n, unique=True))
        else:
            indices = list(range(style == "seq1", n + (style == "seq1")))
        interleaved = interleave and style != "zero" and draw(st.booleans())
        units: list[list[list[Item]]] = []
        for k, (position, spec) in enumerate(mine):
            call_id = spec.id if spec.id is not None else f"call_{position}"
            arguments, text, fragments, close, options = draw(
                _call_fragments(rng, spec, call_id=call_id, index=indices[k], noise=noisy)
            )
            number = len(truth)
            violations = []
            if options["type_mode"] != "function":
                violations.append(("TYPE_MISSING", "info"))
            truth.append(TruthCall(choice, call_id, options["name"], arguments, text, indices[k], violations))
            items = [Item("frag", choice, f, number, j) for j, f in enumerate(fragments)]
            truth[-1].close_item = close  # fragment position for now; an item position below
            # Any interleaving: a call with no argument text yet is not settled, so it waits for its text.
            units.append([[i] for i in items])
        if interleaved:
            sequence = [i for unit in merge(rng, units, open_in_order=open_in_order) for i in unit]
        else:
            sequence = [i for call_units in units for unit in call_units for i in unit]
        if content and draw(st.booleans()):
            for _ in range(draw(st.integers(1, 3))):
                text_piece = draw(st.one_of(json_strings(6), st.none()))
                sequence.insert(rng.randint(0, len(sequence)), Item("content", choice, text_piece))
        reason: str | None = "tool_calls" if n else "stop"
        if finish is None and draw(st.integers(0, 4)) == 0:
            reason = None
        elif finish is False:
            reason = None
        if reason is not None:
            sequence.append(Item("finish", choice, reason))
        elif not sequence:  # a choice that says nothing but still appears
            sequence.append(Item("content", choice, None))
        finishes[choice] = reason
        per_choice.append(sequence)
    items = merge(rng, per_choice)

    # Index-less continuations need the id unless their call is the latest one opened in the choice.
    latest: dict[int, int] = {}
    opened: list[int] = []
    reused: dict[int, set[int]] = {c: set() for c in choices}
    for item in items:
        if item.kind != "frag" or item.call is None:
            continue
        call = truth[item.call]
        frag = item.payload
        if item.frag == 0:
            latest[item.choice] = item.call
            opened.append(item.call)
            if not _lacks_index(frag):
                if frag["index"] in reused[item.choice]:
                    call.violations.append(("INDEX_REUSED", "info"))
                reused[item.choice].add(frag["index"])
            else:
                call.index = None
        elif _lacks_index(frag) and latest[item.choice] != item.call:
            frag["id"] = call.id
    for number, call in enumerate(truth):
        if any(_lacks_index(i.payload) for i in items if i.kind == "frag" and i.call == number):
            call.violations.append(("MISSING_INDEX", "warning"))
        call.seq = opened.index(number)

    # Where each call closes, and what hands it over under call_end.
    position_of = {(i.call, i.frag): p for p, i in enumerate(items) if i.kind == "frag"}
    for number, call in enumerate(truth):
        call.close_item = position_of[(number, call.close_item)]
        call.call_end_item = next(
            (
                p
                for p in range(call.close_item + 1, len(items))
                if items[p].choice == call.choice
                and (items[p].kind == "finish" or (items[p].kind == "frag" and items[p].call != number))
            ),
            None,
        )
    pack_p = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    chunks, where, usage = pack(
        rng,
        items,
        pack_p=pack_p,
        noise_p=0.3 if noisy else 0.0,
        choices=choices,
        explicit_nulls=noisy and rng.random() < 0.5,
    )
    texts = {c: "".join(i.payload or "" for i in items if i.kind == "content" and i.choice == c) for c in choices}
    truth.sort(key=lambda c: (c.choice, c.seq))
    return ChatCase(chunks, truth, choices, texts, usage, where, finishes)
