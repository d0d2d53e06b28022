"""Hypothesis strategies for OpenAI Chat Completions chunk streams, with the ground truth they must produce.

Used by ``tests/core/test_differential.py``. Four families:

* ``chat_streams``: well-formed streams of valid calls (arbitrary JSON arguments rendered by ``json.dumps``, split
  anywhere, optionally interleaved, over one or two choices, with the noise docs/semantics.md says must not change
  the calls). Ground truth is exact: every call, its timing under each emission policy, every violation. The stream
  is rendered by ``toolwire.strategies`` (``_chat.chat_cases``, the generator behind the public
  ``toolwire.strategies.streams``); this module draws the calls and, now and then, turns chunks into SDK-like
  attribute objects.
* ``hostile_streams``: sequential calls whose arguments, identity or stream ending break the contract. Ground truth
  is the verdict (which calls are valid, which codes appear where), computed by ``HostileCase.expect`` from
  docs/semantics.md for these constrained shapes.
* ``random_programs``: chunk lists drawn from a small vocabulary of fields and argument tokens, with no ground
  truth: the Rust core and the reference are compared with each other only.
* ``junk_streams``: ``random_programs`` with arbitrary Python objects put in place of chunks or of any field.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from hypothesis import strategies as st

import toolwire
from toolwire.strategies._calls import CallSpec
from toolwire.strategies._chat import ABSENT, CHUNK_HEAD, ChatCase, Item, TruthCall, chat_cases, pack
from toolwire.strategies._chat import placeholder as _placeholder
from toolwire.strategies._chat import put as _put
from toolwire.strategies._json import (
    arguments_objects,
    canonical,
    deep_values,
    json_floats,
    json_ints,
    json_scalars,
    json_strings,
    json_values,
    merge,
    render_styles,
    split_text,
)

__all__ = [
    "ABSENT",
    "CHUNK_HEAD",
    "NAMES",
    "ChatCase",
    "Expect",
    "HCall",
    "HostileCase",
    "Item",
    "TruthCall",
    "arguments_objects",
    "canonical",
    "chat_streams",
    "deep_values",
    "hostile_streams",
    "json_depth",
    "json_floats",
    "json_ints",
    "json_scalars",
    "json_strings",
    "json_values",
    "junk_streams",
    "merge",
    "pack",
    "random_programs",
    "render_styles",
    "split_text",
    "strict_json_loads",
    "to_namespace",
]

# ----------------------------------------------------------------------------------------------- JSON values


def json_depth(text: str) -> int:
    """The deepest nesting of arrays/objects reached in a (prefix of a) JSON text."""
    depth = best = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def strict_json_loads(text: str) -> tuple[bool, Any]:
    """RFC 8259 strict parse in Python: no NaN/Infinity, no control characters, no lone surrogates anywhere."""

    def reject(name: str) -> Any:
        raise ValueError(name)

    try:
        text.encode("utf-8")
        value = json.loads(text, parse_constant=reject)
    except (ValueError, UnicodeEncodeError):
        return False, None

    def clean(x: Any) -> bool:
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return False
            return True
        if isinstance(x, list):
            return all(clean(i) for i in x)
        if isinstance(x, dict):
            return all(clean(k) and clean(v) for k, v in x.items())
        return True

    return (True, value) if clean(value) else (False, None)


def to_namespace(value: Any) -> Any:
    """Dicts become attribute objects (as the openai SDK's models are), recursively; usage is kept as sent."""
    if isinstance(value, dict):
        return SimpleNamespace(**{k: v if k == "usage" else to_namespace(v) for k, v in value.items()})
    if isinstance(value, list):
        return [to_namespace(v) for v in value]
    return value


# ------------------------------------------------------------------------------------ family 1: valid streams

NAMES = ["get_weather", "search", "f", "a.b-c_d", "工具", "x" * 64, "Null", "none"]


@st.composite
def chat_streams(
    draw: Any,
    *,
    max_calls: int = 4,
    n_choices: int | None = None,
    allow_interleave: bool = True,
    allow_noise: bool = True,
    allow_sdk_objects: bool = True,
) -> ChatCase:
    """A well-formed stream of valid calls (see the module docstring) with its exact ground truth."""
    if n_choices is None:
        n_choices = draw(st.sampled_from([1, 1, 1, 2]))
    specs = []
    serial = 0
    for choice in range(n_choices):
        for _ in range(draw(st.integers(1, max_calls))):
            serial += 1
            call_id = f"call_{serial}_{draw(st.sampled_from(['', 'x', 'AbC9', 'é']))}"
            specs.append(CallSpec(draw(st.sampled_from(NAMES)), draw(arguments_objects()), None, call_id, choice))
    case: ChatCase = draw(chat_cases(specs, noise=allow_noise, interleave=allow_interleave))
    if allow_sdk_objects and draw(st.integers(0, 4)) == 0:
        rng = random.Random(draw(st.integers(0, 2**32 - 1)))
        case.chunks = [to_namespace(c) if rng.random() < 0.7 else c for c in case.chunks]
    return case


# ---------------------------------------------------------------------------------- family 2: hostile streams

CUTTING = ("length", "content_filter")
TEXT_KINDS = [
    "valid",
    "dup",
    "trailing",
    "not_object",
    "number",
    "truncated",
    "empty",
    "dict_value",
    "list_value",
    "mutated",
]
SMALL_LIMIT_KINDS = ["valid", "truncated", "empty", "not_object", "dict_value", "list_value"]
CLOSING_KINDS = {"valid", "dup", "trailing", "not_object", "dict_value", "list_value"}
_MUTATION_CHARS = [*'{}[]",:\\ 0-.eEtnu\x00\x1f\ud800é\U0001f600', "\\u", "\\ud800", "null", "1e999"]


@dataclass
class HCall:
    """A call of a hostile stream and what is known of its fate."""

    choice: int
    kind: str
    text: str  # the arguments text received (canonical text for a value)
    args: list[Any]  # per fragment: a string, None, ABSENT, or a JSON value (ARGUMENTS_NOT_STRING)
    fragments: list[dict[str, Any]]
    id: str | None
    name: str | None
    index: int | None
    id_mode: str
    name_mode: str
    index_mode: str
    type_missing: bool
    close_frag: int | None  # fragment in which the (first) value closes, for kinds that close
    trailing_frag: int | None = None  # fragment carrying the first trailing byte
    dup_paths: set[str] = field(default_factory=set)
    seq: int = -1


@dataclass
class Expect:
    """The verdict docs/semantics.md gives, under one emission policy."""

    valid: dict[int, bool]  # seq -> valid (missing: no opinion)
    call_codes: dict[int, set[tuple[str, str, str | None]]]  # seq -> {(code, severity, path)}
    stream_codes: Counter[tuple[str, str, int | None, int | None]] | None  # (code, severity, choice, seq)
    arguments_json: dict[int, str]
    arguments: dict[int, Any]  # seq -> expected arguments (valid or invalid call), when known
    loose: dict[int, str]  # seq -> "mutated": only the validity of the text is known


@dataclass
class HostileCase:
    """A hostile stream: its chunks, its calls and the request options."""

    chunks: list[Any]
    calls: list[HCall]  # by seq
    choices: dict[int, list[str]]  # choice -> finish reasons sent, in order
    limits: toolwire.Limits | None
    tool_choice: Any
    error: Any  # the error event payload appended at the end, or None
    seen_choices: list[int]

    def expect(self, emit: str) -> Expect:
        return _expect(self, emit)


def _dup_text(rng: random.Random, value: Any, path: str, paths: set[str]) -> str:
    """Render a value by hand, repeating some object keys (in a different escape form now and then)."""

    def key_text(key: str) -> str:
        text = json.dumps(key, ensure_ascii=rng.random() < 0.5)
        if rng.random() < 0.3 and key and key[0].isascii() and key[0].isalnum():
            text = '"' + f"\\u{ord(key[0]):04x}" + text[2:]
        return text

    if isinstance(value, dict):
        members = [(k, _dup_text(rng, v, f"{path}/{_token(k)}", paths)) for k, v in value.items()]
        for k in list(value):
            if rng.random() < 0.5:
                members.insert(
                    rng.randint(len(members) - len(members) // 2, len(members)), (k, json.dumps(rng.randrange(9)))
                )
                paths.add(f"{path}/{_token(k)}")
        return "{" + ",".join(f"{key_text(k)}:{v}" for k, v in members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dup_text(rng, v, f"{path}/{i}", paths) for i, v in enumerate(value)) + "]"
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


def _token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _locate(args: list[Any], position: int) -> int:
    """The fragment holding character ``position`` of the concatenated string arguments."""
    seen = 0
    for j, a in enumerate(args):
        if isinstance(a, str):
            seen += len(a)
            if position < seen:
                return j
    raise AssertionError(position)


@st.composite
def _hostile_text(draw: Any, rng: random.Random, kind: str) -> tuple[str, list[Any], set[str], int | None]:
    """Arguments text and per-fragment args for a kind; returns (text, args, dup paths, first value's length)."""
    if kind == "empty":
        args = [rng.choice(["", None, ABSENT])] + [
            rng.choice(["", None, ABSENT, " ", "\n\t "]) for _ in range(draw(st.integers(0, 2)))
        ]
        return "".join(a for a in args if isinstance(a, str)), args, set(), None
    if kind in ("dict_value", "list_value"):
        value = draw(arguments_objects()) if kind == "dict_value" else draw(st.lists(json_values, max_size=3))
        args = [value] if rng.random() < 0.5 else [rng.choice(["", None, ABSENT]), value]
        return canonical(value), args, set(), None
    paths: set[str] = set()
    first_length = None
    if kind == "number":
        text = rng.choice(["", " ", "\n"]) + json.dumps(draw(st.one_of(json_ints, json_floats)))
    elif kind == "not_object":
        value = draw(st.one_of(st.lists(json_values, max_size=3), json_strings(), st.booleans()))
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    elif kind == "dup":
        value = draw(st.dictionaries(json_strings(4), json_values, min_size=1, max_size=4))
        text = _dup_text(rng, value, "", paths)
    else:
        text = json.dumps(draw(arguments_objects()), **draw(render_styles()))
        if kind == "truncated":
            text = text[: draw(st.integers(1, len(text) - 1))]
        elif kind == "trailing":
            first_length = len(text)
            text += rng.choice(["", " ", "\n"]) + json.dumps(draw(json_values))
        elif kind == "mutated":
            chars = list(text)
            for _ in range(draw(st.integers(1, 3))):
                at = rng.randint(0, len(chars))
                op = rng.randrange(3)
                if op == 0 or not chars:
                    chars.insert(at, rng.choice(_MUTATION_CHARS))
                elif op == 1:
                    del chars[min(at, len(chars) - 1)]
                else:
                    chars[min(at, len(chars) - 1)] = rng.choice(_MUTATION_CHARS)
            text = "".join(chars)
    pieces = draw(split_text(text)) if text else [""]
    return text, pieces, paths, first_length


@st.composite
def hostile_streams(draw: Any, *, allow_mutated: bool = True, max_calls: int = 4) -> HostileCase:
    """A stream of sequential calls that break the contract in known ways (see ``HostileCase.expect``)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    small = draw(st.integers(0, 4)) == 0
    limits = None
    if small:
        limits = toolwire.Limits(
            max_argument_bytes=draw(st.integers(1, 64)),
            max_depth=draw(st.integers(1, 5)),
            max_calls=draw(st.integers(1, 4)),
        )
    kinds = SMALL_LIMIT_KINDS if small else [k for k in TEXT_KINDS if allow_mutated or k != "mutated"]
    n_choices = draw(st.sampled_from([0, 1, 1, 1, 1, 2])) if not small else 1
    tool_choice = draw(
        st.sampled_from(
            [
                None,
                None,
                "auto",
                "required",
                {"type": "any"},
                {"type": "function", "function": {"name": "f"}},
                {"type": "function", "name": "f"},
                {"type": "tool", "name": "f"},
            ]
        )
    )
    calls: list[HCall] = []
    per_choice: list[list[Item]] = []
    finishes: dict[int, list[str]] = {}
    serial = 0
    for choice in range(n_choices):
        sequence: list[Item] = []
        n = draw(st.integers(0, max_calls))
        used_indices: list[int] = []
        previous: HCall | None = None
        for _ in range(n):
            serial += 1
            kind = draw(st.sampled_from(kinds))
            text, args, paths, first_length = draw(_hostile_text(rng, kind))
            id_mode = draw(st.sampled_from(["normal"] * 4 + ["absent", "changed"]))
            name_mode = draw(st.sampled_from(["normal"] * 4 + ["absent", "changed"]))
            index_mode = draw(st.sampled_from(["normal"] * 4 + ["missing", "reuse"]))
            if kind == "mutated":  # a mutated text may close early: a later change would open a new call
                id_mode = "normal" if id_mode == "changed" else id_mode
                name_mode = "normal" if name_mode == "changed" else name_mode
            if id_mode == "changed" and name_mode == "changed":  # a new id with a name opens a new call
                name_mode = "normal"
            if index_mode == "missing" and id_mode != "normal":
                index_mode = "normal"
            if index_mode == "reuse" and not (
                previous is not None
                and previous.index_mode != "missing"
                and previous.id_mode != "absent"
                and id_mode != "absent"
                and name_mode != "absent"
            ):
                index_mode = "normal"
            type_missing = draw(st.integers(0, 5)) == 0
            # Where the value closes, and make room for a change of id or name before that.
            string_text = "".join(a for a in args if isinstance(a, str))
            close_frag = trailing_frag = None
            if kind in ("dict_value", "list_value"):
                close_frag = next(j for j, a in enumerate(args) if not (isinstance(a, str) or a is None or a is ABSENT))
            elif kind == "trailing":
                assert first_length is not None
                close_frag = _locate(args, first_length - 1)
                rest = string_text[first_length:]
                trailing_frag = _locate(args, first_length + len(rest) - len(rest.lstrip(" \n")))
            elif kind in CLOSING_KINDS:
                close_frag = max(j for j, a in enumerate(args) if isinstance(a, str) and a)
            if (id_mode == "changed" or name_mode == "changed") and (close_frag == 0 or len(args) == 1):
                args.insert(0, rng.choice(["", None, ABSENT]))
                close_frag = None if close_frag is None else close_frag + 1
                trailing_frag = None if trailing_frag is None else trailing_frag + 1
            change_at = 0
            if id_mode == "changed" or name_mode == "changed":
                change_at = rng.randint(1, close_frag if close_frag is not None else len(args) - 1)
            call_id = f"id{serial}" if id_mode != "absent" else None
            name = rng.choice(["f", "f", "g", "lookup"]) if name_mode != "absent" else None
            if index_mode == "reuse":
                assert previous is not None
                index = previous.index
            elif index_mode == "missing":
                index = None
            else:
                index = draw(st.sampled_from([i for i in range(6) if i not in used_indices]))
            if index is not None:
                used_indices.append(index)
            fragments = []
            for j, piece in enumerate(args):
                frag: dict[str, Any] = {}
                if index is not None:
                    frag["index"] = index
                elif rng.random() < 0.5:
                    frag["index"] = None
                function: dict[str, Any] = {}
                if j == 0:
                    _put(frag, "id", call_id if call_id is not None else _placeholder(rng))
                    _put(frag, "type", _placeholder(rng) if type_missing else "function")
                    _put(function, "name", name if name is not None else _placeholder(rng))
                if j == change_at and j > 0:
                    if id_mode == "changed":
                        frag["id"] = f"other{serial}"
                    if name_mode == "changed":
                        function["name"] = f"{name}_v2"
                _put(function, "arguments", piece)
                frag["function"] = function
                fragments.append(frag)
            call = HCall(
                choice,
                kind,
                text,
                args,
                fragments,
                call_id,
                name,
                index,
                id_mode,
                name_mode,
                index_mode,
                type_missing,
                close_frag,
                trailing_frag,
                paths,
            )
            calls.append(call)
            sequence += [Item("frag", choice, f, len(calls) - 1, j) for j, f in enumerate(fragments)]
            previous = call
        reasons = []
        first = draw(st.sampled_from(["tool_calls", "tool_calls", "stop", "length", "content_filter", None]))
        if first is not None:
            reasons.append(first)
            if draw(st.integers(0, 4)) == 0:
                reasons.append(draw(st.sampled_from(["tool_calls", "stop", "length", "content_filter"])))
        if any(c.kind == "mutated" for c in calls if c.choice == choice):
            reasons = [r for r in reasons if r not in CUTTING]  # no cut: the fate of a mutated text is only a verdict
        for reason in reasons:
            sequence.append(Item("finish", choice, reason))
        if draw(st.integers(0, 3)) == 0:
            sequence.insert(rng.randint(0, len(sequence)), Item("content", choice, "Hello"))
        if not sequence:  # a choice that says nothing but still appears
            sequence.append(Item("content", choice, None))
        finishes[choice] = reasons
        per_choice.append(sequence)
    items = merge(rng, per_choice)
    opened = [i.call for i in items if i.kind == "frag" and i.frag == 0]
    for seq, number in enumerate(opened):
        calls[number].seq = seq
    calls.sort(key=lambda c: c.seq)
    chunks, _, _ = pack(rng, items, pack_p=draw(st.sampled_from([0.0, 0.5, 1.0])))
    error = None
    if not any(c.kind == "mutated" for c in calls) and draw(st.integers(0, 5)) == 0:
        error = {"message": "upstream overloaded", "type": "server_error", "code": 503}
        chunks.append({"error": error})
    if n_choices == 0 and draw(st.booleans()):
        chunks.append({**CHUNK_HEAD, "choices": [], "usage": {"total_tokens": 3}})
    return HostileCase(chunks, calls, finishes, limits, tool_choice, error, list(range(n_choices)))


def _chat_recognised(chunk: Any) -> bool:
    """A chunk of the Chat Completions format's own (``choices``, a ``chat.completion`` object) or an error."""
    if not isinstance(chunk, dict):
        return False
    kind = chunk.get("object")
    return (
        chunk.get("choices") is not None
        or chunk.get("error") is not None
        or (isinstance(kind, str) and kind.startswith("chat.completion"))
    )


def _expect(case: HostileCase, emit: str) -> Expect:
    """docs/semantics.md applied to a hostile stream (sequential calls per choice, finishes last, error at the end)."""
    limits = case.limits or toolwire.Limits()
    valid: dict[int, bool] = {}
    codes: dict[int, set[tuple[str, str, str | None]]] = {}
    stream: Counter[tuple[str, str, int | None, int | None]] = Counter()
    arguments_json: dict[int, str] = {}
    arguments: dict[int, Any] = {}
    loose: dict[int, str] = {}
    named = None
    required = False
    tc = case.tool_choice
    if tc in ("required",) or (isinstance(tc, dict) and tc.get("type") in ("any", "required")):
        required = True
    elif isinstance(tc, dict):
        required = True
        named = (tc.get("function") or {}).get("name") or tc.get("name")

    def facts(call: HCall) -> dict[str, Any]:
        too_many = call.seq >= limits.max_calls
        text = call.text
        started = text.strip(" \t\r\n") != ""
        too_large = len(text.encode("utf-8", "surrogatepass")) > limits.max_argument_bytes
        too_deep = call.kind in SMALL_LIMIT_KINDS and json_depth(text) > limits.max_depth
        closes = call.kind in CLOSING_KINDS and not too_deep
        settled = too_many or too_deep or closes  # an empty call, or one past the size limit, is not settled
        return {
            "too_many": too_many,
            "started": started,
            "too_large": too_large,
            "too_deep": too_deep,
            "closes": closes,
            "settled": settled,
        }

    info = {call.seq: facts(call) for call in case.calls}
    handed: dict[int, str] = {}  # seq -> "early" (before its own fragments ended), "live", "cut", "end"
    cut_choices: set[int] = set()
    errored = False

    def static_codes(call: HCall) -> set[tuple[str, str, str | None]]:
        f = info[call.seq]
        out: set[tuple[str, str, str | None]] = set()
        if call.type_missing:
            out.add(("TYPE_MISSING", "info", None))
        if call.index_mode == "missing":
            out.add(("MISSING_INDEX", "warning", None))
        if call.index_mode == "reuse":
            out.add(("INDEX_REUSED", "info", None))
        if call.id_mode == "changed":
            out.add(("ID_CHANGED", "warning", None))
        if call.id_mode == "absent":
            out.add(("MISSING_ID", "warning", None))
        if call.name_mode == "changed":
            out.add(("NAME_CHANGED", "error", None))
        if call.name_mode == "absent":
            out.add(("MISSING_NAME", "error", None))
        if call.kind in ("dict_value", "list_value"):
            out.add(("ARGUMENTS_NOT_STRING", "warning", None))
        if f["too_large"]:
            out.add(("ARGUMENTS_TOO_LARGE", "error", None))
        if f["too_deep"]:
            out.add(("TOO_DEEP", "error", None))
        if not f["started"]:
            out.add(("EMPTY_ARGUMENTS", "info", None))
        elif not f["too_deep"]:
            if call.kind in ("not_object", "list_value") and not f["too_large"]:
                out.add(("ARGUMENTS_NOT_OBJECT", "error", None))
            if call.kind == "dup":
                out |= {("DUPLICATE_KEY", "warning", p) for p in call.dup_paths}
        return out

    def hand(call: HCall, how: str) -> None:
        f = info[call.seq]
        if f["too_many"]:  # refused: nothing of it is kept or handed over; the stream's TOO_MANY_CALLS counts it
            return
        out = static_codes(call)
        if call.choice in cut_choices or errored:
            out.add(("STREAM_CUT", "error", None))
        incomplete = call.kind == "truncated" or (call.kind == "number" and how != "end")
        if not f["too_deep"] and f["started"] and incomplete:
            out.add(("TRUNCATED", "error", None))
        if call.kind == "number" and how == "end" and not f["too_large"]:
            out.add(("ARGUMENTS_NOT_OBJECT", "error", None))
        json_text = call.text
        early = how == "early"
        if early:  # handed over right after the closing fragment: later fragments are never appended
            assert call.close_frag is not None
            json_text = "".join(a for a in call.args[: call.close_frag + 1] if isinstance(a, str))
            if call.kind in ("dict_value", "list_value"):
                json_text = call.text
        if call.kind == "trailing":
            assert call.close_frag is not None and call.trailing_frag is not None
            if not early or call.trailing_frag == call.close_frag:
                out.add(("TRAILING_DATA", "error", None))
            # After the hand-over, every later fragment makes the stream's one TRAILING_DATA for the call.
            later = call.args[call.close_frag + 1 :]
            if early and any(isinstance(a, str) and a.strip(" \t\r\n") for a in later):
                stream[("TRAILING_DATA", "error", call.choice, call.seq)] += 1
        if call.kind == "mutated":
            loose[call.seq] = "mutated"
        else:
            codes[call.seq] = out
            valid[call.seq] = not any(sev == "error" for _, sev, _ in out)
        if f["too_large"]:
            pass  # the kept prefix depends on the fragments; arguments are {} or None
        elif f["too_deep"]:
            arguments_json[call.seq] = json_text
            arguments[call.seq] = None
        else:
            arguments_json[call.seq] = json_text
            if not f["started"]:
                arguments[call.seq] = {}
            elif call.kind in ("valid", "dup", "not_object", "dict_value", "list_value"):
                arguments[call.seq] = json.loads(call.text)
            elif call.kind == "number":
                arguments[call.seq] = json.loads(call.text) if how == "end" else None
            elif call.kind == "truncated":
                arguments[call.seq] = None
            elif call.kind == "trailing":
                arguments[call.seq] = json.loads(json_text) if early and call.trailing_frag != call.close_frag else None
        handed[call.seq] = how

    def cut(choice: int, seqless: bool) -> None:
        if choice in cut_choices:
            return
        cut_choices.add(choice)
        mine = [c for c in case.calls if c.choice == choice]
        done = [c for c in mine if c.seq in handed]
        for c in done:
            stream[("STREAM_CUT", "error", choice, c.seq)] += 1
        if seqless and not done:
            stream[("STREAM_CUT", "error", choice, None)] += 1
        if emit != "stream_end":
            for c in mine:
                if c.seq not in handed:
                    hand(c, "cut")

    for choice in case.seen_choices:
        mine = [c for c in case.calls if c.choice == choice]
        for k, call in enumerate(mine):
            if emit != "stream_end":  # the opening fragment of this call hands over the settled others
                for other in mine[:k]:
                    if other.seq not in handed and info[other.seq]["settled"]:
                        hand(other, "live")
            if emit == "complete" and info[call.seq]["closes"] and not info[call.seq]["too_many"]:
                hand(call, "early")
        reasons = case.choices.get(choice, [])
        for position, reason in enumerate(reasons):
            if position:
                stream[("MULTIPLE_FINISH_REASONS", "warning", choice, None)] += 1
            if reason in CUTTING:  # every cutting finish cuts (once)
                cut(choice, True)
            elif emit != "stream_end":  # every finish ends the settled calls and the ones with no arguments yet
                for c in mine:
                    if c.seq not in handed and (info[c.seq]["settled"] or not info[c.seq]["started"]):
                        hand(c, "live")
    if case.error is not None:
        stream[("PROVIDER_ERROR", "error", None, None)] += 1
        errored = True
        for choice in case.seen_choices:
            cut(choice, False)
    for call in case.calls:
        if call.seq not in handed:
            hand(call, "end")
    if not case.seen_choices:
        stream[("NO_FINISH_REASON", "warning", None, None)] += 1
    if not any(_chat_recognised(chunk) for chunk in case.chunks):  # an empty stream is no response (semantics.md)
        stream[("UNRECOGNIZED_STREAM", "error", None, None)] += 1
    if any(info[c.seq]["too_many"] for c in case.calls):
        stream[("TOO_MANY_CALLS", "error", None, None)] += 1
    for choice in case.seen_choices:
        mine = [c for c in case.calls if c.choice == choice and not info[c.seq]["too_many"]]
        reasons = case.choices.get(choice, [])
        first = reasons[0] if reasons else None
        if first is None:
            stream[("NO_FINISH_REASON", "warning", choice, None)] += 1
        elif first == "stop" and mine:
            stream[("FINISH_REASON_MISMATCH", "info" if named else "warning", choice, None)] += 1
        elif first == "tool_calls" and not mine:
            stream[("FINISH_WITHOUT_CALLS", "error", choice, None)] += 1
        if required and (not mine or (named is not None and any(c.name != named for c in mine))):
            stream[("TOOL_CHOICE_IGNORED", "error", choice, None)] += 1
    has_mutated = any(c.kind == "mutated" for c in case.calls)
    return Expect(
        valid, codes, None if has_mutated and emit == "complete" else stream, arguments_json, arguments, loose
    )


# ------------------------------------------------------------------------------- family 3: random programs

ARG_TOKENS = [
    "",
    "{",
    "}",
    '"a"',
    ":",
    "1",
    ",",
    "[",
    "]",
    " ",
    '{"a":1}',
    '{"a":',
    "1}",
    "null",
    "tru",
    "e",
    '"x\\',
    'u00e9"',
    "\\ud800",
    '{"a":1,"a":2}',
    "12",
    "\n",
    '"\\ud83d',
    '\\ude00"',
    "}{",
    "\ud800",
]
_field = st.sampled_from
fragment_dicts = st.fixed_dictionaries(
    {},
    optional={
        "index": _field([0, 0, 1, 2, None, -1, 2**62]),
        "id": _field(["a", "b", "c", "", "null", None, "ts_0_0", "ts_0_1", "ts_1_0"]),
        "type": _field(["function", "function", "", None, "null"]),
        "function": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {},
                optional={
                    "name": _field(["f", "g", "", "null", None]),
                    "arguments": st.one_of(
                        _field(ARG_TOKENS), st.none(), st.just({"k": 1}), st.just([1]), st.just(5), st.just("x")
                    ),
                },
            ),
        ),
    },
)
choice_entries = st.fixed_dictionaries(
    {},
    optional={
        "index": _field([0, 0, 1, 3, -1]),
        "delta": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {},
                optional={
                    "tool_calls": st.one_of(st.none(), st.lists(fragment_dicts, max_size=3)),
                    "content": _field(["", "hi ", None]),
                    "role": st.just("assistant"),
                },
            ),
        ),
        "finish_reason": _field([None, None, None, "tool_calls", "stop", "length", "content_filter", "function_call"]),
    },
)
program_chunks = st.one_of(
    st.fixed_dictionaries({"choices": st.lists(choice_entries, max_size=2)}, optional={"usage": st.none()}),
    st.fixed_dictionaries({"choices": st.lists(choice_entries, max_size=2)}),
    st.fixed_dictionaries(
        {"choices": st.just([]), "usage": st.fixed_dictionaries({"total_tokens": st.integers(0, 9)})}
    ),
    st.just({"error": {"message": "boom"}}),
)
limit_options = st.one_of(
    st.none(),
    st.builds(
        toolwire.Limits,
        max_argument_bytes=st.integers(1, 40),
        max_depth=st.integers(1, 4),
        max_calls=st.integers(1, 4),
        max_violations=st.integers(1, 6),
        max_text_bytes=st.integers(1, 12),
        max_choices=st.integers(1, 3),
    ),
)
tool_choices = st.sampled_from(
    [
        None,
        "auto",
        "none",
        "required",
        {"type": "any"},
        {"type": "function", "function": {"name": "f"}},
        {"type": "tool", "name": "g"},
    ]
)


@st.composite
def random_programs(draw: Any, max_chunks: int = 12) -> tuple[list[Any], Any, Any]:
    """(chunks, limits, tool_choice): chunk lists from a small vocabulary, rarely with an error event."""
    chunks = draw(st.lists(program_chunks.filter(lambda c: "error" not in c), max_size=max_chunks))
    if draw(st.integers(0, 7)) == 0:
        chunks.insert(draw(st.integers(0, len(chunks))), {"error": {"message": "boom"}})
    return chunks, draw(limit_options), draw(tool_choices)


# ------------------------------------------------------------------------------------ family 4: junk inside


class _Weird:
    """An object with attributes that look like a chunk's, some of them broken."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


class _Exploding:
    """An object whose attribute access raises something else than AttributeError."""

    def __getattr__(self, name: str) -> Any:
        raise KeyError(name)


FIELD_NAMES = [
    "choices",
    "delta",
    "tool_calls",
    "index",
    "id",
    "type",
    "function",
    "name",
    "arguments",
    "content",
    "finish_reason",
    "usage",
    "error",
]
junk_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=4),  # lone surrogates: explicit tests
    st.binary(max_size=4),
    st.builds(bytearray, st.binary(max_size=2)),
    st.builds(object),
    st.sampled_from([{1, 2}, frozenset(), 1j, range(2), b"", ""]),
)
junk_values = st.recursive(
    junk_leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=2)), children, max_size=3),
        st.dictionaries(st.sampled_from(FIELD_NAMES), children, max_size=3).map(lambda d: _Weird(**d)),
    ),
    max_leaves=6,
)


def _replace_somewhere(rng: random.Random, value: Any, junk: Any) -> Any:
    """A copy of a JSON-like value with one node (maybe the root) replaced by junk."""
    nodes: list[tuple[Any, Any]] = []

    def walk(v: Any, parent: Any, key: Any) -> None:
        nodes.append((parent, key))
        if isinstance(v, dict):
            for k, child in v.items():
                walk(child, v, k)
        elif isinstance(v, list):
            for i, child in enumerate(v):
                walk(child, v, i)

    copy = json.loads(json.dumps(value)) if _jsonable(value) else value
    walk(copy, None, None)
    parent, key = rng.choice(nodes)
    if parent is None:
        return junk
    parent[key] = junk
    return copy


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


@st.composite
def junk_streams(draw: Any) -> list[Any]:
    """A random program with junk in place of chunks or of any field."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    chunks = draw(st.lists(program_chunks, max_size=6))
    for _ in range(draw(st.integers(1, 3))):
        junk = draw(junk_values)
        if chunks and rng.random() < 0.8:
            at = rng.randrange(len(chunks))
            chunks[at] = _replace_somewhere(rng, chunks[at], junk)
        else:
            chunks.insert(rng.randint(0, len(chunks)), junk)
    return chunks
