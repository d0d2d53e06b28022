"""Differential and ground-truth property tests: the Rust core against the pure-Python reference and docs/semantics.md.

Every generated stream is reassembled by ``toolwire`` (the core) and ``toolwire.reference`` under each emission
policy with ``on_invalid="yield"``, through ``reassemble`` and through ``Reassembler``. The two must hand over the
same objects in the same order at the same chunk, produce the same ``StreamResult`` and report the same violations
to ``on_violation`` (violations are compared by every field but the message). Where the stream's ground truth is
known (tests/support/strategies_chat.py) both must also match it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
import toolwire.reference as reference
from tests.core.helpers import CountedSource, call_form, error_form, read_all
from tests.support.comparable import strict as _strict
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.strategies_chat import (
    ABSENT,
    CHUNK_HEAD,
    ChatCase,
    HostileCase,
    arguments_objects,
    chat_streams,
    hostile_streams,
    junk_streams,
    random_programs,
    render_styles,
    split_text,
    strict_json_loads,
)
from toolwire import ChoiceResult, InvalidToolCall, MalformedChunkError, ToolCall, Violation

POLICIES = ("complete", "call_end", "stream_end")


def strict(x: Any) -> Any:
    """``comparable.strict``, an object of another type matching only itself."""
    return _strict(x, id)


# ------------------------------------------------------------------------------------------------ normalizing


def nv(v: Violation) -> tuple[Any, ...]:
    """A violation without its message."""
    assert type(v) is Violation, type(v)
    assert isinstance(v.message, str) and v.message
    return (v.code.value, v.severity.value, v.choice, v.seq, v.index, v.path, v.offset, v.recoverable, strict(v.data))


def nc(c: Any) -> tuple[Any, ...]:
    """A handed-over call, violations normalized; an invalid call's errors are all errors."""
    if type(c) is InvalidToolCall:
        assert c.errors and all(v.severity.value == "error" for v in c.errors)
    return call_form(c, nv)


def nr(r: toolwire.StreamResult | None) -> Any:
    if r is None:
        return None
    return {
        "calls": tuple(map(nc, r.calls)),
        "invalid_calls": tuple(map(nc, r.invalid_calls)),
        "finish_reason": r.finish_reason,
        "usage": strict(r.usage),
        "text": r.text,
        "violations": tuple(map(nv, r.violations)),
        "choices": r.choices,
    }


def key(v: Violation) -> tuple[Any, ...]:
    return v.key()


# -------------------------------------------------------------------------------------------------- running


@dataclass
class Outcome:
    """What one implementation made of one stream under one policy."""

    handed: list[Any] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # chunk after which each call came out; n = the end
    result: toolwire.StreamResult | None = None
    seen: list[Violation] = field(default_factory=list)  # on_violation, in order
    error: BaseException | None = None
    feed_log: list[Any] = field(default_factory=list)  # Reassembler: per chunk, violations seen so far and error

    def comparable(self) -> dict[str, Any]:
        """What ``reassemble`` and a ``Reassembler`` that met no error must agree on."""
        normalized = self.normalized()
        return {k: normalized[k] for k in ("handed", "positions", "result", "on_violation", "error")}

    def normalized(self) -> dict[str, Any]:
        return {
            "handed": [nc(c) for c in self.handed],
            "positions": self.positions,
            "result": nr(self.result),
            "on_violation": [nv(v) for v in self.seen],
            "error": error_form(self.error),
            "feed_log": self.feed_log,
        }


def run(module: Any, chunks: list[Any], emit: str, *, tool_choice: Any = None, limits: Any = None) -> Outcome:
    """``reassemble`` over a generator that records how many chunks were read when each call comes out."""
    out = Outcome()
    source = CountedSource(chunks)
    stream = module.reassemble(
        iter(source),
        emit=emit,
        on_invalid="yield",
        on_violation=out.seen.append,
        tool_choice=tool_choice,
        limits=limits,
    )
    try:
        out.result = read_all(stream, source, out.handed, out.positions)
    except Exception as exc:
        out.error = exc
    return out


def run_reassembler(
    module: Any, chunks: list[Any], emit: str, *, tool_choice: Any = None, limits: Any = None
) -> Outcome:
    """The same stream through ``Reassembler.feed``/``finish``/``close``; a chunk that raises is skipped."""
    out = Outcome()
    machine = module.Reassembler(
        emit=emit, on_invalid="yield", on_violation=out.seen.append, tool_choice=tool_choice, limits=limits
    )
    for position, chunk in enumerate(chunks):
        error = None
        try:
            for call in machine.feed(chunk):
                out.handed.append(call)
                out.positions.append(position)
        except ALLOWED_ERRORS as exc:
            error = error_form(exc)
        out.feed_log.append((len(out.seen), error))
    try:
        for call in machine.finish():
            out.handed.append(call)
            out.positions.append(len(chunks))
        assert machine.finish() == []
        out.result = machine.close()
    except Exception as exc:
        out.error = exc
    return out


ALLOWED_ERRORS = (MalformedChunkError, ValueError)


def differential(
    chunks: list[Any], emit: str, *, tool_choice: Any = None, limits: Any = None, reassembler: bool = True
) -> tuple[Outcome, Outcome]:
    """Run both implementations and assert they agree in every respect; return (core, reference)."""
    core = run(toolwire, chunks, emit, tool_choice=tool_choice, limits=limits)
    ref = run(reference, chunks, emit, tool_choice=tool_choice, limits=limits)
    # A source whose first item is bytes is raw: a later item that is not bytes is a TypeError (semantics.md).
    allowed = (*ALLOWED_ERRORS, TypeError) if chunks and isinstance(chunks[0], (bytes, bytearray)) else ALLOWED_ERRORS
    for name, outcome in (("core", core), ("reference", ref)):
        if outcome.error is not None and not isinstance(outcome.error, allowed):
            raise AssertionError(f"{name} raised {type(outcome.error).__name__}: {outcome.error}") from outcome.error
    assert core.normalized() == ref.normalized(), f"core and reference disagree under emit={emit!r}"
    if reassembler:
        driven = {}
        for name, module, outcome in (("core", toolwire, core), ("reference", reference, ref)):
            driven[name] = run_reassembler(module, chunks, emit, tool_choice=tool_choice, limits=limits)
            if outcome.error is None:
                assert driven[name].comparable() == outcome.comparable(), (
                    f"{name}: Reassembler and reassemble disagree under emit={emit!r}"
                )
        assert driven["core"].normalized() == driven["reference"].normalized(), (
            f"Reassembler: core and reference disagree under emit={emit!r}"
        )
    return core, ref


# ---------------------------------------------------------------------------------- 1. well-formed streams


def check_ground_truth(case: ChatCase, emit: str, out: Outcome) -> None:
    assert out.error is None, out.error
    assert all(type(c) is ToolCall for c in out.handed), [nc(c) for c in out.handed if type(c) is not ToolCall]
    assert [(c.choice, c.seq) for c in out.handed] == case.expected_order(emit)
    truth = {(t.choice, t.seq): t for t in case.calls}
    n = len(case.chunks)
    for call, position in zip(out.handed, out.positions, strict=True):
        t = truth[(call.choice, call.seq)]
        assert (call.id, call.name, call.index, call.arguments_json) == (t.id, t.name, t.index, t.text)
        assert strict(call.arguments) == strict(t.arguments)
        assert sorted(map(key, call.violations)) == case.violation_keys(t)
        assert position == case.expected_chunk(t, emit), (
            f"seq={call.seq} handed over after chunk {position} (of {n}); expected after {case.expected_chunk(t, emit)}"
        )
    result = out.result
    assert result is not None
    assert result.calls == tuple(sorted(out.handed, key=lambda c: (c.choice, c.seq)))
    assert result.invalid_calls == ()
    assert result.violations == ()
    assert result.finish_reason == "tool_calls"
    assert result.text == case.texts[0]
    assert result.usage is case.usage  # kept as sent
    assert result.choices == tuple(ChoiceResult(c, case.texts[c], "tool_calls") for c in case.choices)
    assert sorted(map(key, out.seen)) == sorted(k for t in case.calls for k in case.violation_keys(t))


@given(case=chat_streams())
def test_well_formed_streams(case: ChatCase) -> None:
    """Valid calls come out whole, exactly, at the right chunk, under every policy, in both implementations."""
    for emit in POLICIES:
        core, ref = differential(case.chunks, emit)
        check_ground_truth(case, emit, core)
        check_ground_truth(case, emit, ref)


# ------------------------------------------------------------------------------------ 2. hostile streams


def check_verdicts(case: HostileCase, emit: str, out: Outcome) -> None:
    expect = case.expect(emit)
    assert out.error is None, out.error
    assert out.result is not None
    calls = {c.seq: c for c in out.handed}
    # Calls past Limits.max_calls are refused: nothing of them is handed over (the stream's TOO_MANY_CALLS says so).
    kept = [c for c in case.calls if c.seq < (case.limits or toolwire.Limits()).max_calls]
    assert sorted(calls) == [c.seq for c in kept], "every call within the limit is handed over exactly once"
    assert len(out.handed) == len(kept)
    result_calls = {c.seq: c for c in (*out.result.calls, *out.result.invalid_calls)}
    assert {s: nc(c) for s, c in result_calls.items()} == {s: nc(c) for s, c in calls.items()}
    for spec in kept:
        call = calls[spec.seq]
        got = {(v.code.value, v.severity.value, v.path) for v in (*getattr(call, "errors", ()), *call.violations)}
        where = f"seq={spec.seq} kind={spec.kind} text={spec.text!r}"
        assert call.choice == spec.choice, where
        assert call.index == spec.index, where
        assert call.id == (spec.id if spec.id is not None else f"ts_{spec.choice}_{spec.seq}"), where
        assert call.name == spec.name, where
        if spec.seq in expect.loose:  # a mutated text: only its validity is known
            ok, value = strict_json_loads(spec.text)
            text_codes = {"INVALID_JSON", "TRUNCATED", "TRAILING_DATA"}
            found = {c for c, _, _ in got}
            stream_trailing = any(v.code.value == "TRAILING_DATA" and v.seq == spec.seq for v in out.result.violations)
            if not spec.text.strip(" \t\r\n"):
                assert "EMPTY_ARGUMENTS" in found and not found & text_codes, where
            elif ok:
                assert not found & text_codes and not stream_trailing, where
                if isinstance(value, dict):
                    assert "ARGUMENTS_NOT_OBJECT" not in found, where
                    assert strict(call.arguments) == strict(value), where
                else:
                    assert "ARGUMENTS_NOT_OBJECT" in found, where
            else:
                assert found & text_codes or stream_trailing, where
                assert stream_trailing or not call.ok, where
            continue
        assert got == expect.call_codes[spec.seq], where
        assert call.ok == expect.valid[spec.seq], where
        if spec.seq in expect.arguments_json:
            assert call.arguments_json == expect.arguments_json[spec.seq], where
        if spec.seq in expect.arguments:
            assert strict(call.arguments) == strict(expect.arguments[spec.seq]), where
    if expect.stream_codes is not None:
        got_stream = Counter((v.code.value, v.severity.value, v.choice, v.seq) for v in out.result.violations)
        assert got_stream == expect.stream_codes
    errors = [v for v in out.result.violations if v.code.value == "PROVIDER_ERROR"]
    assert [v.data for v in errors] == ([case.error] if case.error is not None else [])
    reported = Counter(map(key, out.seen))
    assert reported == Counter(
        map(key, [*out.result.violations, *(v for c in out.handed for v in (*getattr(c, "errors", ()), *c.violations))])
    ), "on_violation sees every violation exactly once"


@given(case=hostile_streams())
def test_hostile_streams(case: HostileCase) -> None:
    """Broken streams: both implementations agree, and give the verdicts docs/semantics.md prescribes."""
    for emit in POLICIES:
        core, ref = differential(case.chunks, emit, tool_choice=case.tool_choice, limits=case.limits)
        check_verdicts(case, emit, ref)
        check_verdicts(case, emit, core)


# ----------------------------------------------------------------------------------- splitting invariance

HOSTILE_TEXTS = st.one_of(
    arguments_objects().flatmap(lambda a: render_styles().map(lambda s: json.dumps(a, **s))),
    st.sampled_from(
        [
            '{"a":1}{"b":2}',
            '{"a":1,"a":2}',
            '{"a":[1,2',
            "[1,2]",
            '"s"',
            "12",
            "  ",
            '{"a":"\\ud800"}',
            '{"a":tru}',
            '{"a":01}',
            '{"\u00e9":1,"\\u00e9":2}',
            '{"a":1} x',
            '{"a":"\x01"}',
            "nul",
        ]
    ),
    st.text(st.sampled_from(list('{}[]":,1a\\u ')), max_size=12),
)


@st.composite
def split_pairs(draw: Any) -> tuple[list[Any], list[Any], bool]:
    """The same calls (one choice, sequential) fragmented and packed twice; and whether `complete` is comparable."""
    texts = draw(st.lists(HOSTILE_TEXTS, min_size=1, max_size=3))
    streams = []
    for _ in range(2):
        chunks: list[Any] = []
        for k, text in enumerate(texts):
            pieces = draw(split_text(text)) if text else [""]
            frags = [{"index": k, "id": f"c{k}", "type": "function", "function": {"name": "f", "arguments": pieces[0]}}]
            frags += [{"index": k, "function": {"arguments": p}} for p in pieces[1:]]
            per_chunk = draw(st.integers(1, 3))
            for at in range(0, len(frags), per_chunk):
                chunks.append(
                    {**CHUNK_HEAD, "choices": [{"index": 0, "delta": {"tool_calls": frags[at : at + per_chunk]}}]}
                )
        chunks.append({**CHUNK_HEAD, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        streams.append(chunks)
    # Under `complete` a value that closes before its text ends is handed over at once, and what follows is
    # stream-level TRAILING_DATA per fragment: that depends on the splitting by design.
    comparable = all(strict_json_loads(t)[0] or not t.strip() for t in texts)
    return streams[0], streams[1], comparable


def _calls_and_keys(out: Outcome) -> Any:
    assert out.error is None, out.error
    assert out.result is not None
    return [nc(c) for c in out.handed], [nv(v) for v in out.result.violations]


@given(pair=split_pairs())
def test_splitting_invariance(pair: tuple[list[Any], list[Any], bool]) -> None:
    """Where a call's text is split changes nothing: same calls, same violations (offsets included)."""
    first, second, comparable = pair
    for emit in POLICIES if comparable else ("call_end", "stream_end"):
        a, _ = differential(first, emit, reassembler=False)
        b, _ = differential(second, emit, reassembler=False)
        assert _calls_and_keys(a) == _calls_and_keys(b)


# -------------------------------------------------------------------- numbers and strings against Python's json

JSON_NUMBERS = st.from_regex(r"\A-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,3})?\Z")
STRING_PARTS = st.one_of(
    st.characters(exclude_categories=("Cs",), exclude_characters='"\\'),
    st.sampled_from(
        ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\x00", "\x1f", "\x7f", "\\x", "\\U0041"]
    ),
    st.from_regex(r"\A\\u[0-9a-fA-F]{4}\Z"),
    st.from_regex(r"\A\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}\Z"),
)


def _single_call(text: str) -> list[Any]:
    return [_tools(_frag(0, "a", "f", text, "function"), finish="tool_calls")]


@given(numbers=st.lists(JSON_NUMBERS, min_size=1, max_size=5))
def test_numbers_are_exact(numbers: list[str]) -> None:
    """Every JSON number becomes exactly what Python's json makes of it (int of any size, correctly rounded float)."""
    text = '{"n":[' + ",".join(numbers) + "]}"
    expected = strict(json.loads(text))
    core, ref = differential(_single_call(text), "call_end", reassembler=False)
    assert strict(core.handed[0].arguments) == expected == strict(ref.handed[0].arguments)


@given(key=st.lists(STRING_PARTS, max_size=4), value=st.lists(STRING_PARTS, max_size=8))
def test_strings_and_escapes(key: list[str], value: list[str]) -> None:
    """Escapes, control characters and surrogate escapes: valid iff strict RFC 8259 (no lone surrogates) says so."""
    text = '{"' + "".join(key) + '":"' + "".join(value) + '"}'
    ok, expected = strict_json_loads(text)
    core, _ = differential(_single_call(text), "call_end", reassembler=False)
    call = core.handed[0]
    if ok:
        assert call.ok and strict(call.arguments) == strict(expected)
    else:
        assert not call.ok and [v.code.value for v in call.errors] == ["INVALID_JSON"]


# ---------------------------------------------------------------------------- 3. random programs and junk


@given(program=random_programs())
def test_random_programs(program: tuple[list[Any], Any, Any]) -> None:
    """Chunk lists from a small vocabulary of ids, names, indices, argument tokens and finishes: same everything."""
    chunks, limits, tool_choice = program
    for emit in POLICIES:
        differential(chunks, emit, tool_choice=tool_choice, limits=limits)


@settings(max_examples=max(1, settings().max_examples // 2))
@given(chunks=junk_streams())
def test_junk_inside_chunks(chunks: list[Any]) -> None:
    """Arbitrary objects as chunks or fields: the same outcome, or the same MalformedChunkError/ValueError."""
    for emit in POLICIES:
        differential(chunks, emit)


# --------------------------------------------------------------------------------- explicit regressions


def _chunk(*entries: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**CHUNK_HEAD, "choices": list(entries), **extra}


def _frag(
    index: Any = ABSENT, id: Any = ABSENT, name: Any = ABSENT, arguments: Any = ABSENT, type: Any = ABSENT
) -> dict[str, Any]:
    frag: dict[str, Any] = {}
    for k, v in (("index", index), ("id", id), ("type", type)):
        if v is not ABSENT:
            frag[k] = v
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not ABSENT}
    if function:
        frag["function"] = function
    return frag


def _tools(*frags: dict[str, Any], choice: int = 0, finish: str | None = None) -> dict[str, Any]:
    return _chunk({"index": choice, "delta": {"tool_calls": list(frags)}, "finish_reason": finish})


def _finish(reason: str = "tool_calls", choice: int = 0) -> dict[str, Any]:
    return _chunk({"index": choice, "delta": {}, "finish_reason": reason})


def _all_policies(chunks: list[Any], **options: Any) -> dict[str, Outcome]:
    return {emit: differential(chunks, emit, **options)[0] for emit in POLICIES}


def _summary(out: Outcome) -> list[tuple[Any, ...]]:
    return [
        (
            type(c).__name__,
            c.seq,
            c.id,
            c.name,
            c.arguments,
            sorted(v.code.value for v in (*getattr(c, "errors", ()), *c.violations)),
        )
        for c in out.handed
    ]


def test_interleaved_fragments_0101() -> None:
    chunks = [
        _tools(_frag(0, "a", "f", '{"x":', "function")),
        _tools(_frag(1, "b", "g", '{"y":', "function")),
        _tools(_frag(0, arguments="1}")),
        _tools(_frag(1, arguments="2}")),
        _finish(),
    ]
    outs = _all_policies(chunks)
    for emit, out in outs.items():
        assert _summary(out) == [("ToolCall", 0, "a", "f", {"x": 1}, []), ("ToolCall", 1, "b", "g", {"y": 2}, [])], emit
        assert out.result is not None and out.result.violations == ()
    assert outs["complete"].positions == [2, 3]
    assert outs["call_end"].positions == [3, 4]
    assert outs["stream_end"].positions == [5, 5]


def test_whole_call_in_the_finish_chunk() -> None:
    """Q11: one chunk carries the whole call and the finish reason."""
    chunks = [
        _chunk({"index": 0, "delta": {"role": "assistant"}}),
        _tools(_frag(0, "a", "f", '{"q":"x"}', "function"), finish="tool_calls"),
    ]
    for emit, out in _all_policies(chunks).items():
        assert _summary(out) == [("ToolCall", 0, "a", "f", {"q": "x"}, [])], emit
        assert out.positions == ([1] if emit != "stream_end" else [2])


def test_name_after_first_argument_fragment() -> None:
    """Q21: the name arrives with the second fragment."""
    chunks = [
        _tools(_frag(0, "a", arguments='{"q":', type="function")),
        _tools(_frag(0, name="f", arguments="1}")),
        _finish(),
    ]
    for emit, out in _all_policies(chunks).items():
        assert _summary(out) == [("ToolCall", 0, "a", "f", {"q": 1}, [])], emit


def test_fifteen_calls_at_index_zero() -> None:
    """openrouter/gemini: every call at index 0 with its own id."""
    chunks = [_tools(_frag(0, f"id{k}", "f", f'{{"k":{k}}}', "function")) for k in range(15)] + [_finish()]
    for emit, out in _all_policies(chunks).items():
        expected = [("ToolCall", k, f"id{k}", "f", {"k": k}, ["INDEX_REUSED"] if k else []) for k in range(15)]
        assert _summary(out) == expected, emit


def test_index_starting_at_one() -> None:
    """Q8: indices 1 and 2."""
    chunks = [
        _tools(_frag(1, "a", "f", '{"a":1}', "function")),
        _tools(_frag(2, "b", "f", "{}", "function")),
        _finish(),
    ]
    for emit, out in _all_policies(chunks).items():
        assert [(c.seq, c.index, c.arguments) for c in out.handed] == [(0, 1, {"a": 1}), (1, 2, {})], emit


def test_lone_surrogate_in_python_string_argument() -> None:
    chunks = [_tools(_frag(0, "a", "f", '{"a":"\ud800"}', "function")), _finish()]
    for emit, out in _all_policies(chunks).items():
        assert [c.ok for c in out.handed] == [False], emit
        assert [v.code.value for v in out.handed[0].errors] == ["INVALID_JSON"], emit


def test_exceptions_of_the_chunk_itself_propagate() -> None:
    """An SDK-like object whose attribute access raises: both implementations let that exception through."""
    from tests.support.strategies_chat import _Exploding

    for emit in POLICIES:
        outcomes = [run(module, [_finish(), _Exploding()], emit) for module in IMPLEMENTATIONS.values()]
        assert [type(o.error) for o in outcomes] == [KeyError, KeyError]


def test_misuse_is_value_error() -> None:
    for module in IMPLEMENTATIONS.values():
        machine = module.Reassembler(on_invalid="yield")
        machine.finish()
        with pytest.raises(ValueError):
            machine.feed(_finish())
        with pytest.raises(ValueError):
            module.reassemble([], emit="sometime")
        with pytest.raises(ValueError):
            module.reassemble([]).result  # noqa: B018 - not iterated yet


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param([_tools(_frag(0, "a", "f", "{", "function")), _finish("length")], id="cut-by-length"),
        pytest.param([_tools(_frag(0, "a", "f", "{}", "function")), _chunk(error={"message": "x"})], id="error-event"),
        pytest.param([_tools(_frag(0, "a", "f", "{}", "function")), _finish(), _finish("stop")], id="two-finishes"),
        pytest.param([_finish()], id="finish-without-calls"),
        pytest.param([], id="empty-stream"),
    ],
)
def test_stream_endings(chunks: list[Any]) -> None:
    _all_policies(chunks, tool_choice="required")


# ------------------------------------------------------------- regressions for discrepancies found by hunting


def test_on_violation_sees_findings_of_a_chunk_that_then_raises() -> None:
    """A finding made before a later part of the same chunk raises is reported to on_violation as it is found.

    docs/semantics.md: "on_violation sees every violation once, as it is found". The STREAM_CUT below is on the
    result in both implementations; the core held it back from on_violation (and ``reassemble`` never delivers it).
    """
    chunk = _chunk({"index": 0, "finish_reason": "length"}, None)
    for name, module in IMPLEMENTATIONS.items():
        seen: list[Violation] = []
        with pytest.raises(MalformedChunkError):
            list(module.reassemble([chunk], on_invalid="yield", on_violation=seen.append))
        assert [v.key() for v in seen] == [("STREAM_CUT", "error", 0, None, None)], name
        seen.clear()
        machine = module.Reassembler(on_invalid="yield", on_violation=seen.append)
        with pytest.raises(MalformedChunkError):
            machine.feed(chunk)
        assert [v.key() for v in seen] == [("STREAM_CUT", "error", 0, None, None)], name


LONE = "\ud800"


@pytest.mark.parametrize("where", ["id", "name", "content", "finish_reason"])
def test_lone_surrogates_in_string_fields_are_kept_as_sent(where: str) -> None:
    """A str field holding a lone surrogate is still a string: it is kept as sent (a provider id is never replaced)."""
    frag = _frag(0, LONE if where == "id" else "a", LONE if where == "name" else "f", "{}", "function")
    entry: dict[str, Any] = {"index": 0, "delta": {"tool_calls": [frag]}}
    if where == "content":
        entry["delta"]["content"] = "x" + LONE
    entry["finish_reason"] = LONE if where == "finish_reason" else "tool_calls"
    for emit in POLICIES:
        for name, module in IMPLEMENTATIONS.items():
            out = run(module, [_chunk(entry)], emit)
            assert out.error is None and out.result is not None, name
            call = out.handed[0]
            assert (call.id, call.name) == (LONE if where == "id" else "a", LONE if where == "name" else "f"), name
            assert out.result.text == ("x" + LONE if where == "content" else ""), name
            assert out.result.finish_reason == (LONE if where == "finish_reason" else "tool_calls"), name
        differential([_chunk(entry)], emit)


def test_distinct_lone_surrogate_ids_stay_distinct_calls() -> None:
    """Without index, calls are matched by id: "\\ud800" and "\\udc00" are two different ids, hence two calls."""
    chunks = [
        _tools(
            _frag(id="\ud800", name="f", arguments='{"a":', type="function"),
            _frag(id="\udc00", name="g", arguments="{}", type="function"),
            _frag(id="\ud800", arguments="1}"),
        ),
        _finish(),
    ]
    for emit in POLICIES:
        for name, module in IMPLEMENTATIONS.items():
            out = run(module, chunks, emit)
            assert out.result is not None, name
            assert [(c.id, c.name, c.arguments) for c in out.result.calls] == [
                ("\ud800", "f", {"a": 1}),
                ("\udc00", "g", {}),
            ], name
        differential(chunks, emit)


class _MappingChunk(Mapping[str, Any]):
    """A read-only mapping that is not a dict."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


@pytest.mark.parametrize("wrap", [MappingProxyType, _MappingChunk], ids=["MappingProxyType", "abc.Mapping"])
@pytest.mark.parametrize("level", ["chunk", "fragment"])
def test_any_mapping_is_read_like_a_dict(wrap: Any, level: str) -> None:
    """docs/semantics.md: "A chunk is a mapping (or an object with the same attributes)". A Mapping that is not a
    dict must be read by key, not by attribute (which silently finds no field at all)."""
    frag = _frag(0, "a", "f", '{"x":1}', "function")
    chunk = _tools(wrap(frag) if level == "fragment" else frag, finish="tool_calls")
    chunks = [wrap(chunk) if level == "chunk" else chunk]
    for emit in POLICIES:
        core, ref = differential(chunks, emit)
        for name, out in (("core", core), ("reference", ref)):
            assert _summary(out) == [("ToolCall", 0, "a", "f", {"x": 1}, [])], name


def test_arguments_value_too_deep_to_serialize_is_a_malformed_chunk() -> None:
    """docs/semantics.md: arguments sent as a value "that cannot be serialized raises MalformedChunkError" (a
    TypeError). A dict nested past Python's recursion limit cannot be serialized; both let RecursionError out."""
    value: dict[str, Any] = {}
    for _ in range(5000):
        value = {"a": value}
    chunks = [_tools(_frag(0, "a", "f", value, "function"), finish="tool_calls")]
    for name, module in IMPLEMENTATIONS.items():
        out = run(module, chunks, "call_end")
        assert isinstance(out.error, MalformedChunkError), (name, type(out.error))
        assert out.error.path == "choices[0].delta.tool_calls[0].function.arguments", name


def test_circular_arguments_value_is_a_malformed_chunk() -> None:
    value: dict[str, Any] = {}
    value["self"] = value
    chunks = [_tools(_frag(0, "a", "f", value, "function"), finish="tool_calls")]
    for emit in POLICIES:
        core, ref = differential(chunks, emit)
        assert isinstance(core.error, MalformedChunkError) and isinstance(ref.error, MalformedChunkError)


# --------------------------------------------------------------------- on_invalid="raise" and the async API


def _raise_outcome(module: Any, chunks: list[Any], emit: str, **options: Any) -> Any:
    handed = []
    try:
        for call in module.reassemble(iter(chunks), emit=emit, on_invalid="raise", **options):
            handed.append(nc(call))
    except (toolwire.InvalidToolCallError, toolwire.StreamContractError) as exc:
        extra = nc(exc.call) if isinstance(exc, toolwire.InvalidToolCallError) else tuple(map(nv, exc.violations))
        return handed, type(exc).__name__, extra, nr(exc.result)
    return handed, None, None, None


@settings(max_examples=max(1, settings().max_examples // 2))
@given(case=hostile_streams())
def test_on_invalid_raise(case: HostileCase) -> None:
    """Under on_invalid="raise" both stop at the same call with the same error and the same result so far."""
    for emit in POLICIES:
        options = {"tool_choice": case.tool_choice, "limits": case.limits}
        core = _raise_outcome(toolwire, case.chunks, emit, **options)
        ref = _raise_outcome(reference, case.chunks, emit, **options)
        assert core == ref, emit
        yielded = run(reference, case.chunks, emit, **options)
        first_invalid = next((i for i, c in enumerate(yielded.handed) if not c.ok), None)
        if first_invalid is not None:
            assert ref[1] == "InvalidToolCallError" and ref[2] == nc(yielded.handed[first_invalid])
            assert ref[0] == [nc(c) for c in yielded.handed[:first_invalid]]


async def _collect_async(module: Any, chunks: list[Any], emit: str, **options: Any) -> Any:
    async def source() -> Any:
        for chunk in chunks:
            yield chunk

    stream = module.areassemble(source(), emit=emit, on_invalid="yield", **options)
    handed = [nc(call) async for call in stream]
    return handed, nr(stream.result)


@settings(max_examples=max(1, settings().max_examples // 2))
@given(program=random_programs())
def test_async_matches_sync(program: tuple[list[Any], Any, Any]) -> None:
    import asyncio

    chunks, limits, tool_choice = program
    for emit in POLICIES:
        for module in IMPLEMENTATIONS.values():
            sync = run(module, chunks, emit, limits=limits, tool_choice=tool_choice)
            assert sync.error is None
            got = asyncio.run(_collect_async(module, chunks, emit, limits=limits, tool_choice=tool_choice))
            assert got == ([nc(c) for c in sync.handed], nr(sync.result))


def test_raise_yields_the_valid_calls_handed_over_before_the_invalid_one() -> None:
    """on_invalid="raise": calls are handed over in order; a valid call handed over before an invalid one (here
    both at the finish) reaches the consumer before InvalidToolCallError. The shared stream layer (_streams._checked)
    checks the whole batch first and raises, so the valid call seq 0 is never yielded, in either implementation."""
    chunks = [
        _tools(_frag(0, "a", "f", None, "function")),  # no arguments yet: handed over at the finish
        _tools(_frag(1, "b", "g", "[]", "function")),  # ARGUMENTS_NOT_OBJECT
        _finish(),
    ]
    for name, module in IMPLEMENTATIONS.items():
        got = []
        with pytest.raises(toolwire.InvalidToolCallError) as info:
            for call in module.reassemble(chunks, on_invalid="raise"):
                got.append(call.seq)
        assert info.value.call.seq == 1, name
        assert got == [0], name


def test_on_violation_that_raises() -> None:
    """An exception raised by on_violation propagates from both, and leaves both in the same state.

    (docs/semantics.md says nothing of it; the two implementations must still agree.) The reference raises in the
    middle of applying the fragment (the call keeps no id, name or arguments); the core reads the whole chunk first
    and drops the chunk's other notifications."""
    chunks = [_tools(_frag(id="a", name="f", arguments="{}")), _finish("stop")]
    outcomes = {}
    for name, module in IMPLEMENTATIONS.items():

        def boom(v: Violation) -> None:
            raise RuntimeError(v.code.value)

        machine = module.Reassembler(on_invalid="yield", on_violation=boom)
        log = []
        for chunk in chunks:
            try:
                log.append([nc(c) for c in machine.feed(chunk)])
            except RuntimeError as exc:
                log.append(("raised", str(exc)))
        outcomes[name] = log
    assert outcomes["core"] == outcomes["reference"]
