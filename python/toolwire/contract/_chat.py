"""OpenAI Chat Completions: the checks of a buffered completion and of a stream of ``chat.completion.chunk``.

The stream's structure is read from the chunk dicts themselves, fragment by fragment. Fragments are matched to
calls by the rules ``reassemble`` follows (design.md, "Call identity"): by ``index``; with the same index, a
different id opens a new call when the fragment also brings a name or the open call's value has closed; without
an index, by a known id, else a new id opens a call, else the latest call. A ``null`` or ``""`` id or name (and a
``null`` ``arguments``) counts as not sent, as it does there.

``id_once`` and ``name_once`` fail when a call's id or name is sent again on a later fragment, and when it first
arrives on a later fragment rather than the first; an id repeated on fragments that have no index is not counted
(without an index the id is the only key a client has; ``index_present`` names that fault).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire._pipeline._choice import ToolChoice
from toolwire.contract._common import (
    CallSeen,
    CheckSpec,
    Findings,
    call_checks,
    error_text,
    is_int,
    judge,
    ordered_checks,
    show,
    span,
    text_of,
)
from toolwire.contract._report import Check
from toolwire.registry import ToolRegistry

__all__ = ["SPECS", "check_chat_completion", "check_chat_stream"]

SPECS: tuple[CheckSpec, ...] = (
    CheckSpec("finish_reason", "calls end with finish_reason 'tool_calls', no calls with another; one per choice"),
    CheckSpec("content_type", "content is null or a string"),
    CheckSpec("tool_calls_nonempty", "a tool_calls field that is present is a non-empty list"),
    CheckSpec("call_ids", "every call id is a non-empty string"),
    CheckSpec("call_type", "every call's type is 'function' (streamed: where sent)"),
    CheckSpec("tool_names", "every tool name is among the declared tools"),
    CheckSpec("arguments_string", "arguments are a string (streamed: every fragment)"),
    CheckSpec("arguments_json", "each call's arguments (streamed: concatenated) are one JSON object, nothing else"),
    CheckSpec("arguments_valid", "each call's arguments validate against its tool's schema"),
    CheckSpec("forced_tool", "a forced tool choice is honoured: a call, and to the named tool"),
    CheckSpec("index_present", "every tool-call fragment has an integer index", streamed_only=True),
    CheckSpec("id_once", "a call's id is sent on its first fragment only", streamed_only=True),
    CheckSpec("name_once", "a call's name is sent on its first fragment only", streamed_only=True),
    CheckSpec("one_call_per_index", "no fragment brings another id or name at a taken index", streamed_only=True),
    CheckSpec(
        "calls_contiguous", "one call's fragments are not interleaved with another's", "warning", streamed_only=True
    ),
    CheckSpec("well_formed", "every chunk (buffered: the response) is a JSON object of the format's shape"),
)
_BY_ID = {spec.id: spec for spec in SPECS}

_STOP_DEVIATION = "documented deviation: OpenAI ends a named forced tool call with finish_reason 'stop'"


def _sent(value: object) -> bool:
    """Whether an id or name field carries a value (None, ``""`` and ``"null"`` are placeholders)."""
    return value is not None and value != "" and value != "null"


def _finish_problem(value: object, calls: int, forced: ToolChoice | None) -> tuple[str | None, str | None]:
    """(problem, note) of one choice's finish reason given how many calls it made."""
    if value is None:
        return "no finish_reason (null); fix: end every choice with a finish reason", None
    if not isinstance(value, str):
        return f"finish_reason {show(value)} is not a string; fix: send 'tool_calls', 'stop', 'length'...", None
    if calls and value != "tool_calls":
        if value == "stop" and forced is not None and forced.name is not None:
            return None, _STOP_DEVIATION
        return (
            f"finish_reason {value!r} although {calls} call(s) were made (FINISH_REASON_MISMATCH); "
            "fix: end a turn with calls with finish_reason 'tool_calls' (a cut such as 'length' loses calls)",
            None,
        )
    if not calls and value == "tool_calls":
        return (
            "finish_reason 'tool_calls' but no call was made (FINISH_WITHOUT_CALLS); "
            "fix: use 'tool_calls' only when the message carries calls",
            None,
        )
    return None, None


def _finish_check(
    verdicts: Sequence[tuple[str, object, int, str | None]], errors: Sequence[str], forced: ToolChoice | None
) -> Check:
    """``finish_reason`` from ``(where, value, calls, extra problem)`` per choice and the error events."""
    failures = list(errors)
    notes = []
    passed = []
    for where, value, calls, extra in verdicts:
        if extra is not None:
            failures.append(f"{where}: {extra}")
            continue
        problem, note = _finish_problem(value, calls, forced)
        if problem is not None:
            failures.append(f"{where}: {problem}")
        if note is not None:
            notes.append(note)
        passed.append(f"{where}: {value!r} after {calls} call(s)")
    if not verdicts and not failures:
        failures.append("no choice at all, so no finish reason; fix: send the choice with its finish_reason")
    return judge(_BY_ID["finish_reason"], failures, passed="; ".join(passed), note=notes[0] if notes else None)


# --- buffered -------------------------------------------------------------------------------------------------


class _Completion:
    """Reads one buffered chat completion into calls, texts and findings."""

    def __init__(self) -> None:
        self.findings = Findings()
        self.calls: list[CallSeen] = []
        self.texts: dict[int, str] = {}
        self.finishes: list[tuple[str, object, int, str | None]] = []
        self.tool_calls_seen = 0

    def read(self, response: Mapping[str, Any]) -> None:
        choices = response.get("choices")
        if not isinstance(choices, list):
            self.findings.add(
                "well_formed", f"'choices' is {show(choices)}, not a list; fix: send the chat.completion shape"
            )
            return
        for position, choice in enumerate(choices):
            if not isinstance(choice, Mapping):
                self.findings.add("well_formed", f"choices[{position}] is {show(choice)}, not an object")
                continue
            self._choice(position, choice)

    def _choice(self, position: int, choice: Mapping[str, Any]) -> None:
        index = choice.get("index")
        number = index if is_int(index) else position
        message = choice.get("message")
        if not isinstance(message, Mapping):
            self.findings.add("well_formed", f"choices[{position}].message is {show(message)}, not an object")
            message = {}
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            self.findings.add(
                "content_type",
                f"choice {number}: content is {show(content)} ({type(content).__name__}); fix: send a string or null",
            )
        elif content:
            self.texts[number] = content
        before = len(self.calls)
        self._tool_calls(position, number, message)
        self.finishes.append((f"choice {number}", choice.get("finish_reason"), len(self.calls) - before, None))

    def _tool_calls(self, position: int, number: int, message: Mapping[str, Any]) -> None:
        tool_calls = message.get("tool_calls")
        where = f"choices[{position}].message.tool_calls"
        if tool_calls is None:
            return
        self.tool_calls_seen += 1
        if not isinstance(tool_calls, list) or not tool_calls:
            self.findings.add(
                "tool_calls_nonempty",
                f"choice {number}: {where} is {show(tool_calls)}; fix: leave tool_calls out (or null) when there is "
                "no call, else send a list of calls",
            )
            return
        for place, entry in enumerate(tool_calls):
            if not isinstance(entry, Mapping):
                self.findings.add("well_formed", f"choice {number}: {where}[{place}] is {show(entry)}, not an object")
                continue
            self._call(number, f"{where}[{place}]", entry)

    def _call(self, number: int, where: str, entry: Mapping[str, Any]) -> None:
        function = entry.get("function")
        if not isinstance(function, Mapping):
            self.findings.add("well_formed", f"choice {number}: {where}.function is {show(function)}, not an object")
            function = {}
        call = CallSeen(
            label=f"choice {number}, call {show(entry.get('id'))} ({show(function.get('name'))})",
            where=where,
            id=entry.get("id"),
            name=function.get("name"),
            group=number,
        )
        if entry.get("type") != "function":
            self.findings.add(
                "call_type", f"{call.label} ({where}): type is {show(entry.get('type'))}; fix: send type 'function'"
            )
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            self.findings.add(
                "arguments_string",
                f"{call.label} ({where}): arguments is {show(arguments)} ({type(arguments).__name__}), not a string "
                "(ARGUMENTS_NOT_STRING); fix: send the arguments as JSON text",
            )
        call.arguments.append(("arguments", arguments))
        self.calls.append(call)


def check_chat_completion(
    response: Mapping[str, Any], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings
) -> tuple[Check, ...]:
    """The ``BufferedChecker`` of a chat completion."""
    walk = _Completion()
    for evidence in findings.get("well_formed"):
        walk.findings.add("well_formed", evidence)
    errors = []
    if response.get("error") is not None:
        errors.append(f"the response is an error: {error_text(response['error'])}; fix: see the provider's message")
    else:
        walk.read(response)
    results = call_checks(
        _BY_ID, walk.calls, registry=registry, forced=forced, texts=walk.texts, findings=walk.findings
    )
    results["finish_reason"] = _finish_check(walk.finishes, errors, forced)
    results.update(_shape_checks(walk.findings, walk.calls, walk.tool_calls_seen, streamed=False))
    return ordered_checks(SPECS, results, streamed=False)


def _shape_checks(
    findings: Findings, calls: Sequence[CallSeen], tool_calls_seen: int, *, streamed: bool
) -> dict[str, Check]:
    no_calls = "no tool call was made" if not calls else None
    sent = " where sent" if streamed else ""
    return {
        "content_type": judge(
            _BY_ID["content_type"], findings.get("content_type"), passed="content is null or a string throughout"
        ),
        "tool_calls_nonempty": judge(
            _BY_ID["tool_calls_nonempty"],
            findings.get("tool_calls_nonempty"),
            passed=f"{tool_calls_seen} tool_calls field(s), each a non-empty list",
            not_applicable=None if tool_calls_seen else "no tool_calls field was sent",
        ),
        "call_type": judge(
            _BY_ID["call_type"], findings.get("call_type"), passed=f"type 'function'{sent}", not_applicable=no_calls
        ),
        "arguments_string": judge(
            _BY_ID["arguments_string"],
            findings.get("arguments_string"),
            passed="arguments sent as strings",
            not_applicable=no_calls,
        ),
        "well_formed": judge(
            _BY_ID["well_formed"],
            findings.get("well_formed"),
            passed="every chunk a chat.completion.chunk object" if streamed else "a chat.completion object",
        ),
    }


# --- streamed -------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Closure:
    """Whether argument text has closed its top-level object or array, scanned once however often it is asked.

    Only brackets, strings and escapes are followed (no validation): enough to tell, as ``reassemble`` must, whether
    a fragment with another id at a taken index starts a new call or continues one mid-value.
    """

    scanned: int = 0
    depth: int = 0
    in_string: bool = False
    escape: bool = False
    closed: bool = False

    def scan(self, pieces: Sequence[str]) -> bool:
        for piece in pieces[self.scanned :]:
            for char in piece:
                if self.closed:
                    break
                self._step(char)
        self.scanned = len(pieces)
        return self.closed

    def _step(self, char: str) -> None:
        if self.in_string:
            if self.escape:
                self.escape = False
            elif char == "\\":
                self.escape = True
            elif char == '"':
                self.in_string = False
        elif char == '"':
            self.in_string = True
        elif char in "{[":
            self.depth += 1
        elif char in "}]":
            self.depth -= 1
            self.closed = self.depth <= 0


@dataclass(eq=False)
class _Call:
    """One call as its fragments arrive."""

    choice: int
    index: int | None
    id: str | None = None
    name: str | None = None
    pieces: list[str] = field(default_factory=list)
    chunks: list[int] = field(default_factory=list)
    id_again: list[int] = field(default_factory=list)
    id_late: int | None = None
    name_again: list[int] = field(default_factory=list)
    name_late: int | None = None
    left: bool = False
    closure: _Closure = field(default_factory=_Closure)

    def closed(self) -> bool:
        """Whether the arguments so far have closed their JSON object."""
        return self.closure.scan(self.pieces)

    def label(self) -> str:
        index = f"index {self.index}" if self.index is not None else "no index"
        return f"choice {self.choice}, call {show(self.id)} ({index}, {show(self.name)})"


@dataclass(eq=False)
class _Choice:
    """What one choice's chunks brought."""

    finishes: list[tuple[int, object]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    by_index: dict[int, _Call] = field(default_factory=dict)
    by_id: dict[str, _Call] = field(default_factory=dict)
    current: _Call | None = None


class _Stream:
    """Reads a chat stream's chunks, fragment by fragment."""

    def __init__(self, findings: Findings) -> None:
        self.findings = findings
        self.choices: dict[int, _Choice] = {}
        self.errors: list[str] = []
        self.tool_calls_seen = 0

    def chunk(self, number: int, chunk: object) -> None:
        if not isinstance(chunk, Mapping):
            self.findings.add(
                "well_formed", f"chunk {number}: {show(chunk)} is not a JSON object; fix: send chat.completion.chunk"
            )
            return
        if chunk.get("error") is not None:
            # As reassemble does: an error chunk is read for its error only.
            self.errors.append(f"chunk {number} is an error event: {error_text(chunk['error'])}")
            return
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            self.findings.add(
                "well_formed",
                f"chunk {number}: 'choices' is {show(choices)}, not a list; fix: send chat.completion.chunk objects",
            )
            return
        for position, choice in enumerate(choices):
            if not isinstance(choice, Mapping):
                self.findings.add(
                    "well_formed", f"chunk {number}: choices[{position}] is {show(choice)}, not an object"
                )
                continue
            self._choice(number, position, choice)

    def _choice(self, number: int, position: int, choice: Mapping[str, Any]) -> None:
        index = choice.get("index")
        if not is_int(index):
            self.findings.add(
                "well_formed", f"chunk {number}: choices[{position}].index is {show(index)}; fix: send the choice index"
            )
            index = position
        state = self.choices.setdefault(index, _Choice())
        if choice.get("finish_reason") is not None:
            state.finishes.append((number, choice["finish_reason"]))
        delta = choice.get("delta")
        if delta is None:
            return
        if not isinstance(delta, Mapping):
            self.findings.add("well_formed", f"chunk {number}: choice {index}'s delta is {show(delta)}, not an object")
            return
        content = delta.get("content")
        if content is not None and not isinstance(content, str):
            self.findings.add(
                "content_type", f"chunk {number}, choice {index}: content is {show(content)}; fix: send a string"
            )
        elif content:
            state.text.append(content)
        self._tool_calls(number, index, state, delta.get("tool_calls"))

    def _tool_calls(self, number: int, choice: int, state: _Choice, tool_calls: object) -> None:
        if tool_calls is None:
            return
        self.tool_calls_seen += 1
        if not isinstance(tool_calls, list) or not tool_calls:
            self.findings.add(
                "tool_calls_nonempty",
                f"chunk {number}, choice {choice}: tool_calls is {show(tool_calls)}; fix: leave it out (or null) when "
                "a chunk has no fragment, else send a list of fragments",
            )
            return
        for position, fragment in enumerate(tool_calls):
            where = f"chunk {number}, choice {choice}, tool_calls[{position}]"
            if not isinstance(fragment, Mapping):
                self.findings.add("well_formed", f"{where}: {show(fragment)} is not an object")
                continue
            self._fragment(number, choice, state, where, fragment)

    def _field(self, where: str, holder: Mapping[str, Any], key: str, check_id: str) -> str | None:
        value = holder.get(key)
        if not _sent(value):
            return None
        if isinstance(value, str):
            return value
        self.findings.add(check_id, f"{where}: {key} is {show(value)} ({type(value).__name__}); fix: send a string")
        return None

    def _fragment(self, number: int, choice: int, state: _Choice, where: str, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index")
        if not is_int(index):
            shown = "absent" if "index" not in fragment else show(index)
            self.findings.add(
                "index_present",
                f"{where}: index is {shown} (MISSING_INDEX); fix: send the call's integer index on every fragment",
            )
            index = None
        kind = fragment.get("type")
        if kind is not None and kind != "function":
            self.findings.add("call_type", f"{where}: type is {show(kind)}; fix: send type 'function'")
        function = fragment.get("function")
        if function is None:
            function = {}
        elif not isinstance(function, Mapping):
            self.findings.add("well_formed", f"{where}: function is {show(function)}, not an object")
            function = {}
        call_id = self._field(where, fragment, "id", "call_ids")
        name = self._field(where, function, "name", "tool_names")
        call = self._match(state, choice, index, call_id, name, where)
        # Without an index the id is the only key a client can match a fragment by, so repeating it is not a fault.
        self._take(state, call, number, call_id if index is not None or not call.chunks else None, name)
        self._arguments(call, where, function)

    def _match(
        self, state: _Choice, choice: int, index: int | None, call_id: str | None, name: str | None, where: str
    ) -> _Call:
        if index is not None:
            current = state.by_index.get(index)
            if current is None:
                return self._open(state, choice, index)
            other_id = call_id is not None and current.id is not None and call_id != current.id
            other_name = name is not None and current.name is not None and name != current.name
            opens = other_id and (name is not None or current.closed())
            if other_id or other_name:
                brought = f"id {call_id!r}" if other_id else f"name {name!r}"
                code = (
                    "INDEX_REUSED: read as a new call"
                    if opens
                    else ("ID_CHANGED" if other_id else "NAME_CHANGED") + ": read as the same call"
                )
                self.findings.add(
                    "one_call_per_index",
                    f"{where}: index {index} is taken by call {current.id!r} ({current.name!r}) but this fragment "
                    f"brings {brought} ({code}); fix: give every call of a turn its own index and keep its id and name",
                )
            return self._open(state, choice, index) if opens else current
        if call_id is not None and call_id in state.by_id:
            return state.by_id[call_id]
        if call_id is not None or not state.calls:
            return self._open(state, choice, None)
        return state.calls[-1]

    @staticmethod
    def _open(state: _Choice, choice: int, index: int | None) -> _Call:
        call = _Call(choice=choice, index=index)
        state.calls.append(call)
        if index is not None:
            state.by_index[index] = call
        return call

    def _take(self, state: _Choice, call: _Call, number: int, call_id: str | None, name: str | None) -> None:
        first = not call.chunks
        if call_id is not None:
            if call.id is None:
                call.id = call_id
                state.by_id.setdefault(call_id, call)
                call.id_late = None if first else number
            elif call_id == call.id:
                call.id_again.append(number)
        if name is not None:
            if call.name is None:
                call.name = name
                call.name_late = None if first else number
            elif name == call.name:
                call.name_again.append(number)
        if state.current is not call:
            if call.left:
                self.findings.add(
                    "calls_contiguous",
                    f"chunk {number}: {call.label()} gets a fragment again after another call's; fix: stream each "
                    "call's fragments together (clients that close a call when the next starts break)",
                )
            if state.current is not None:
                state.current.left = True
            state.current = call
        call.chunks.append(number)

    def _arguments(self, call: _Call, where: str, function: Mapping[str, Any]) -> None:
        arguments = function.get("arguments")
        if arguments is None:
            return
        if isinstance(arguments, str):
            call.pieces.append(arguments)
            return
        self.findings.add(
            "arguments_string",
            f"{where}: arguments is {show(arguments)} ({type(arguments).__name__}), not a string "
            "(ARGUMENTS_NOT_STRING); fix: stream the arguments as JSON text fragments",
        )
        call.pieces.append(text_of(arguments))


def _once(calls: Sequence[_Call], what: str) -> list[str]:
    failures = []
    for call in calls:
        again = call.id_again if what == "id" else call.name_again
        late = call.id_late if what == "id" else call.name_late
        first = call.chunks[0]
        if again:
            failures.append(
                f"{call.label()}: its {what} is sent again on chunk(s) {', '.join(map(str, again[:8]))} "
                f"(first on chunk {first}); fix: send the {what} on a call's first fragment only"
            )
        if late is not None:
            failures.append(
                f"{call.label()}: its {what} first arrives on chunk {late}, not on the call's first fragment "
                f"(chunk {first}); fix: send the {what} with the call's first fragment"
            )
    return failures


def check_chat_stream(
    events: Sequence[object], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings
) -> tuple[Check, ...]:
    """The ``StreamChecker`` of chat completion chunks."""
    walk = _Stream(findings)
    for number, chunk in enumerate(events):
        walk.chunk(number, chunk)
    calls: list[_Call] = [call for state in walk.choices.values() for call in state.calls]
    seen = [
        CallSeen(
            label=call.label(),
            where=span("chunk", call.chunks),
            id=call.id,
            name=call.name,
            arguments=[("concatenated arguments", "".join(call.pieces))],
            group=call.choice,
        )
        for call in calls
    ]
    texts = {number: "".join(state.text) for number, state in walk.choices.items()}
    results = call_checks(_BY_ID, seen, registry=registry, forced=forced, texts=texts, findings=findings)
    verdicts = [_stream_finish(number, state) for number, state in sorted(walk.choices.items())]
    results["finish_reason"] = _finish_check(verdicts, walk.errors, forced)
    results.update(_shape_checks(findings, seen, walk.tool_calls_seen, streamed=True))
    no_calls = "no tool call was made" if not calls else None
    for check_id, failures, passed in (
        ("index_present", findings.get("index_present"), "every fragment has an integer index"),
        ("id_once", _once(calls, "id"), "each call's id on its first fragment only"),
        ("name_once", _once(calls, "name"), "each call's name on its first fragment only"),
        ("one_call_per_index", findings.get("one_call_per_index"), "one call per index"),
        ("calls_contiguous", findings.get("calls_contiguous"), "each call's fragments arrive together"),
    ):
        results[check_id] = judge(_BY_ID[check_id], failures, passed=passed, not_applicable=no_calls)
    return ordered_checks(SPECS, results, streamed=True)


def _stream_finish(number: int, state: _Choice) -> tuple[str, object, int, str | None]:
    where = f"choice {number}"
    if not state.finishes:
        problem = (
            "no chunk carries a finish_reason (NO_FINISH_REASON); "
            "fix: end the choice with one chunk whose finish_reason is set"
        )
        return where, None, len(state.calls), problem
    if len(state.finishes) > 1:
        listed = ", ".join(f"chunk {chunk}: {show(value)}" for chunk, value in state.finishes[:6])
        problem = f"{len(state.finishes)} finish reasons ({listed}) (MULTIPLE_FINISH_REASONS); fix: send exactly one"
        return where, None, len(state.calls), problem
    chunk, value = state.finishes[0]
    return f"{where} (chunk {chunk})", value, len(state.calls), None
