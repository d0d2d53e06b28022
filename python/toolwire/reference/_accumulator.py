"""The accumulator: tool calls in progress, their identity, their arguments and when they are handed over.

This is the plain-Python statement of ``docs/semantics.md``; the Rust core implements the same rules and the
differential tests hold the two together. Nothing here knows a wire format: decoders call ``fragment`` (or
``whole_call``, ``end_call`` and ``done_arguments`` where the format says when a call is over), ``text``,
``finish``, ``provider_error`` and ``end``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from toolwire._model import (
    ChoiceResult,
    InvalidToolCall,
    Limits,
    OutputItem,
    Severity,
    StreamResult,
    ToolCall,
    Violation,
    ViolationCode,
    replaced,
    violation,
)
from toolwire._pipeline._choice import ToolChoice
from toolwire.reference._numbers import NUMBER_TOO_LONG, loads_arguments
from toolwire.reference._scanner import COMPLETE, INCOMPLETE, Scanner
from toolwire.reference._text_calls import JUDGED, VIOLATION_OF, TextCalls
from toolwire.reference.dialects import Call, Event, Finding, Reasoning, Text

if TYPE_CHECKING:
    from toolwire.registry import CompiledTools

Emit = Literal["complete", "call_end", "stream_end"]
Emitted = ToolCall | InvalidToolCall
#: What a finish reason means for the calls of its choice (each decoder classifies its provider's reasons).
FinishKind = Literal["calls", "stop", "cut", "neutral"]

PLACEHOLDERS = frozenset({"", "null"})

_SCAN_ERROR_CODES = {"too_deep": ViolationCode.TOO_DEEP, "trailing_data": ViolationCode.TRAILING_DATA}
#: Findings about the text itself, dropped when an authoritative final text replaces it (``done_arguments``).
_TEXT_CODES = frozenset(
    {
        ViolationCode.INVALID_JSON,
        ViolationCode.TOO_DEEP,
        ViolationCode.TRAILING_DATA,
        ViolationCode.DUPLICATE_KEY,
        ViolationCode.ARGUMENTS_TOO_LARGE,
    }
)
_WHITESPACE = b" \t\r\n"
#: The ``seq`` of a call refused past ``Limits.max_calls`` (``open_call`` returns it): it names no call, and a
#: fragment addressed to it is counted by the stream's one ``TOO_MANY_CALLS``.
REFUSED: Final = -1
#: What an output item, and each value a delta adds whole to one, counts towards ``Limits.max_output_bytes`` besides
#: its text: the bookkeeping it takes, so that a stream of tiny pieces is bounded as a stream of large ones is.
BOOKKEEPING: Final = 256
_PARSE = object()  # marker: the arguments text is one complete value, to be parsed last
_TEXT = object()  # marker: the call's text is free text (a custom tool's input), not arguments


def value_or_none(value: str | None) -> str | None:
    """Drop the placeholders providers send for "no value yet" (``""`` and ``"null"``)."""
    return None if value is None or value in PLACEHOLDERS else value


@dataclass(slots=True)
class Fragment:
    """One tool-call delta, already read out of its wire format.

    ``arguments`` is the text to append (None when the fragment carried none); ``arguments_was_value`` says it was
    sent as a JSON value rather than a string (``ARGUMENTS_NOT_STRING``). ``extra`` holds provider fields the call
    must carry back to the next request (``ToolCall.extra``), each taken on first arrival.
    """

    index: int | None
    id: str | None
    name: str | None
    type: str | None
    arguments: str | None
    arguments_was_value: bool = False
    extra: tuple[tuple[str, Any], ...] = ()
    #: The call this fragment opens takes free text, not JSON (a Responses custom tool): kept, never scanned, and
    #: whole only once its end came.
    free_text: bool = False
    #: The call was written into text and a dialect parser found its text is not its arguments object (cut,
    #: malformed, not JSON, too large): kept as it came, never scanned nor validated; the parser's findings say why.
    judged: bool = False


@dataclass(slots=True)
class _Tally:
    """A finding a stream may repeat without end, kept as one that grows.

    ``TRAILING_DATA`` after a call's end, ``TOO_MANY_CALLS``, ``VIOLATIONS_OMITTED``: ``found`` is the violation as
    found; its data is, when read, its counts (and text, up to its limit) as they stand.
    """

    found: Violation
    counts: dict[str, int]
    text: bytearray | None = None

    @property
    def code(self) -> ViolationCode:
        return self.found.code

    def violation(self) -> Violation:
        data: dict[str, Any] = {} if self.text is None else {"text": bytes(self.text).decode("utf-8", "replace")}
        return replaced(self.found, data=data | self.counts)


#: A list of violations within ``Limits.max_violations``, its tallies growing in place.
_Findings = list[Violation | _Tally]
#: Whose findings: the choice, seq and index a list's ``VIOLATIONS_OMITTED`` carries (the stream's: none).
_Scope = tuple[int | None, int | None, int | None]
_STREAM: _Scope = (None, None, None)


def _settled(findings: _Findings) -> tuple[Violation, ...]:
    return tuple(v.violation() if isinstance(v, _Tally) else v for v in findings)


def _room(findings: _Findings, limit: int) -> int:
    """How many more violations a list keeps: none once its ``VIOLATIONS_OMITTED`` was added."""
    if findings and findings[-1].code is ViolationCode.VIOLATIONS_OMITTED:
        return 0
    return max(0, limit - len(findings))


@dataclass(slots=True)
class _Trailing:
    """Where a call's one ``TRAILING_DATA`` landed: on the call or on the stream; None when it had no room."""

    on_stream: bool
    tally: _Tally | None


@dataclass(slots=True)
class _Call:
    seq: int
    choice: int
    index: int | None
    scanner: Scanner
    id: str | None = None
    name: str | None = None
    buffer: bytearray = field(default_factory=bytearray)
    received: int = 0  # argument bytes received, stored or not; offsets of post-hand-over data count from here
    over_limit: bool = False
    missing_index_reported: bool = False
    # The conflicting ids and names reported, at most Limits.max_violations of them (as many as findings it keeps).
    changed_values_reported: set[tuple[str, str]] = field(default_factory=set)
    violations: _Findings = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    handed_over: bool = False
    ended: bool = False  # the format said the call is over: later bytes for it are trailing data
    free_text: bool = False
    judged: bool = False
    trailing: _Trailing | None = None  # the one TRAILING_DATA of the arguments arriving after its end

    @property
    def scope(self) -> _Scope:
        return (self.choice, self.seq, self.index)

    @property
    def closed(self) -> bool:
        return self.scanner.state == COMPLETE or (
            self.scanner.error is not None and self.scanner.error.kind == "trailing_data"
        )

    @property
    def settled(self) -> bool:
        """The value closed or was rejected: nothing that arrives later can make it a different call.

        A call with no arguments yet is not settled: with interleaved calls its arguments may still come.
        """
        return self.scanner.state != INCOMPLETE

    @property
    def empty(self) -> bool:
        return not self.scanner.is_started


#: Where the stream's one finding of a limit is: not found yet (None), kept (its tally), or left out (False).
_Counted = _Tally | Literal[False] | None


@dataclass(slots=True)
class _Choice:
    number: int
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    text_bytes: int = 0  # the UTF-8 bytes of ``text`` and ``refusal``, which Limits.max_text_bytes bounds together
    text_over: _Counted = None  # its TEXT_TOO_LARGE: once they passed Limits.max_text_bytes, no more of either is kept
    finish_reason: str | None = None
    finish_kind: FinishKind | None = None
    cut: bool = False
    calls: list[_Call] = field(default_factory=list)
    by_index: dict[int, _Call] = field(default_factory=dict)
    by_id: dict[str, _Call] = field(default_factory=dict)
    # The latest call opened in this choice was refused (past Limits.max_calls): a fragment with neither index nor id
    # goes to it.
    refused: bool = False


class Accumulator:
    """Slots keyed by stream position, each with an incremental scanner; see ``docs/semantics.md``."""

    def __init__(
        self,
        *,
        emit: Emit,
        limits: Limits,
        tool_choice: ToolChoice,
        log_violations: bool,
        validators: CompiledTools | None = None,
        log_steps: bool = False,
        text_calls: TextCalls | None = None,
    ) -> None:
        """Start an empty stream; with ``log_violations``, every violation found is also kept for ``take_log``.

        With ``validators``, each call is checked against the declared tools as it is handed over. With
        ``text_calls``, the calls written into the text are read by its dialect parsers.
        """
        self._validators = validators
        self._emit = emit
        self._limits = limits
        self._tool_choice = tool_choice
        self._log: list[Violation] | None = [] if log_violations else None
        # With ``log_steps``: what happened, in order (``take_steps``), for interfaces that show calls as they form.
        self._steps: list[tuple[Any, ...]] | None = [] if log_steps else None
        self._choices: dict[int, _Choice] = {}
        self._calls: list[_Call] = []
        self._ready: list[Emitted] = []
        self._valid: list[ToolCall] = []
        self._invalid: list[InvalidToolCall] = []
        self._stream_violations: _Findings = []
        # The stream's one TOO_MANY_CALLS, TOO_MANY_CHOICES and OUTPUT_TOO_LARGE.
        self._refusals: _Counted = None
        self._choices_refused: _Counted = None
        self._output_over: _Counted = None
        self._output_bytes = 0  # what the output kept, as ``admit_output`` counts it
        self._usage: Any = None
        self._errored = False
        self._ended = False
        self._text_calls = text_calls
        # The source is plain text deltas (``text_source``): one choice, and no finish reasons to expect.
        self.is_text_source = False
        # Per choice: the seq of each call its dialect parser handed over, by the parser's index, and the findings
        # that came before a call, waiting for it.
        self._text_call_seqs: dict[int, dict[int, int]] = {}
        self._waiting: dict[int, list[Finding]] = {}
        # Whether each choice's text is content (its calls leaks) or generated text: what the end of it is read as.
        self._leaked: dict[int, bool] = {}
        # The reasoning the dialect parsers read: each run (of one choice, after the same number of calls) one item.
        self._reasoning: list[tuple[tuple[int, int], list[str]]] = []

    # ----------------------------------------------------------------------------------------------- input

    def fragment(self, choice_number: int, fragment: Fragment) -> int:
        """Apply one tool-call delta of one choice; return the ``seq`` of the call it went to.

        ``REFUSED`` for a call past ``Limits.max_calls``, or a choice past ``Limits.max_choices``.
        """
        choice = self._admitted(choice_number)
        if choice is None:
            return REFUSED
        call = self._match(choice, fragment)
        self._hand_over_others(choice, call)
        self._apply(call, fragment)
        self._hand_over_if_complete(call)
        return REFUSED if call is None else call.seq

    def whole_call(self, choice_number: int, fragment: Fragment) -> int:
        """A call that arrives whole (Gemini, Ollama): always a new call, over at once; return its ``seq``.

        The fragment is never matched to an earlier call, so it has no ``MISSING_INDEX`` although it has no index.
        """
        choice = self._admitted(choice_number)
        if choice is None:
            return REFUSED
        call = self._open(choice, fragment)
        self._hand_over_others(choice, call)
        self._apply(call, fragment)
        if call is None:
            return REFUSED
        self._end_call(call)
        return call.seq

    def open_call(self, choice_number: int, fragment: Fragment) -> int:
        """A call whose later fragments are addressed to it by ``seq`` (Gemini streamed arguments); return its ``seq``.

        Always a new call, never matched to an earlier one (no ``MISSING_INDEX``); it stays open until ``end_seq``.
        """
        choice = self._admitted(choice_number)
        if choice is None:
            return REFUSED
        call = self._open(choice, fragment)
        self._hand_over_others(choice, call)
        self._apply(call, fragment)
        self._hand_over_if_complete(call)
        return REFUSED if call is None else call.seq

    def fragment_to(self, seq: int, fragment: Fragment) -> None:
        """Apply a fragment to the call ``seq`` (opened by ``open_call``); its ``index`` is not read."""
        call = self._call_at(seq)
        if call is None:
            self._refused_fragment()
            return
        self._hand_over_others(self._choice(call.choice), call)
        self._apply(call, fragment)
        self._hand_over_if_complete(call)

    def end_seq(self, seq: int) -> None:
        """The format's explicit end of the call ``seq`` (see ``end_call``)."""
        call = self._call_at(seq)
        if call is not None and not call.ended:
            self._end_call(call)

    def call_violation(self, seq: int, code: ViolationCode, message: str, *, path: str | None = None) -> None:
        """A decoder's finding on the call ``seq`` (a streamed argument it could not place)."""
        call = self._call_at(seq)
        if call is not None:
            self._report(call, code, message, path=path)

    def _call_at(self, seq: int) -> _Call | None:
        """The call ``seq``; None for ``REFUSED``."""
        return self._calls[seq] if 0 <= seq < len(self._calls) else None

    @property
    def limits(self) -> Limits:
        """The stream's limits."""
        return self._limits

    def end_call(self, choice_number: int, index: int) -> None:
        """The format's explicit end of the latest call of the choice opened with ``index`` (none: nothing).

        Under ``call_end`` and ``complete`` the call is handed over here (a value still open is ``TRUNCATED``); bytes
        that arrive for it later are ``TRAILING_DATA``.
        """
        choice = self._choices.get(choice_number)
        call = None if choice is None else choice.by_index.get(index)
        if call is not None and not call.ended:
            self._end_call(call)

    def done_arguments(self, choice_number: int, index: int, text: str) -> None:
        """The authoritative final arguments text of a call (Responses' ``.done``); callers call ``end_call`` next.

        Arguments that only arrive here are taken; a text that differs from the deltas is ``ARGUMENTS_MISMATCH`` and
        replaces them while the call has not been handed over.
        """
        choice = self._choices.get(choice_number)
        call = None if choice is None else choice.by_index.get(index)
        if call is None:
            self.fragment(choice_number, Fragment(index, None, None, None, text))
            return
        data = text.encode("utf-8", "surrogatepass")
        if call.received == 0:
            self._append(call, data)
            self._hand_over_if_complete(call)
            return
        if call.over_limit or call.buffer == data:
            return  # nothing was kept to compare with (past a limit), or the two agree
        self._report(
            call,
            ViolationCode.ARGUMENTS_MISMATCH,
            "the final arguments text differs from the deltas that came before it; the final text is used",
        )
        if call.handed_over:
            return
        call.violations = [v for v in call.violations if v.code not in _TEXT_CODES]
        if call.trailing is not None and not call.trailing.on_stream:
            call.trailing = None  # it went with the replaced text
        call.scanner = Scanner(self._limits.max_depth)
        call.buffer = bytearray()
        call.received = 0
        call.over_limit = False
        call.ended = False  # open again for its new text; the caller's ``end_call`` ends it
        self._append(call, data)
        self._hand_over_if_complete(call)

    def text(self, choice_number: int, text: str) -> None:
        """Content text of a choice: with a dialect, the calls written into it are leaks, recovered (``CALL_IN_TEXT``).

        See ``generated_text``.
        """
        self._read_text(choice_number, text, leaked=True)

    def text_source(self) -> None:
        """The source is the model's text deltas, not a wire format: one choice, whose end no finish reason says."""
        self.is_text_source = True
        self.touch(0)

    def generated_text(self, choice_number: int, text: str) -> None:
        """Text a model generated that no server read calls out of (completions, Ollama's generate).

        Its calls are its own, read by the dialect's parser when there is one. The text kept (outside calls and reasoning) stays within ``Limits.max_text_bytes``: the text that would take
        it past, and all of the choice's text after, is counted by its ``TEXT_TOO_LARGE``.
        """
        self._read_text(choice_number, text, leaked=False)

    def _read_text(self, choice_number: int, text: str, *, leaked: bool) -> None:
        if self._text_calls is None:
            self._keep_text(choice_number, text)
            return
        if not text or self._admitted(choice_number) is None:
            return
        # The parser reads text; a lone surrogate (a JSON escape no character has) reads as U+FFFD per byte, as the
        # core's lossy reading of its UTF-8 does.
        readable = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        self._leaked.setdefault(choice_number, leaked)
        self._apply_text_events(choice_number, self._text_calls.feed(choice_number, readable), leaked)

    def _apply_text_events(self, choice_number: int, events: list[Event], leaked: bool) -> None:
        for event in events:
            if isinstance(event, Text):
                self._keep_text(choice_number, event.text)
            elif isinstance(event, Reasoning):
                self._keep_reasoning(choice_number, event.text)
            elif isinstance(event, Call):
                self._text_call(choice_number, event, leaked)
            elif event.call is None:
                self._report_stream(VIOLATION_OF[event.code], event.message, choice=choice_number)
            else:
                seq = self._text_call_seqs.get(choice_number, {}).get(event.call)
                call = None if seq is None else self._call_at(seq)
                if call is not None:
                    self._report(call, VIOLATION_OF[event.code], event.message)
                elif seq is None:
                    self._waiting.setdefault(choice_number, []).append(event)

    def _text_call(self, choice_number: int, event: Call, leaked: bool) -> None:
        """A call a dialect parser read: a call of the stream, over at once, with the parser's findings."""
        findings = self._waiting.pop(choice_number, [])
        judged = any(finding.code in JUDGED for finding in findings)
        # A dialect that writes no ids has its calls' ids made here, as the core makes them: no id is missing.
        call_id = event.id if event.id is not None else f"ts_{choice_number}_{len(self._calls)}"
        fragment = Fragment(event.index, call_id, event.name, "function", event.arguments, judged=judged)
        choice = self._choice(choice_number)
        call = self._open(choice, fragment)
        self._hand_over_others(choice, call)
        self._apply(call, fragment)
        if call is None:
            return
        self._text_call_seqs.setdefault(choice_number, {})[event.index] = call.seq
        for finding in findings:
            self._report(call, VIOLATION_OF[finding.code], finding.message)
        if leaked:
            assert self._text_calls is not None
            self._report(
                call,
                ViolationCode.CALL_IN_TEXT,
                f"the call was written into the text, in the {self._text_calls.dialect.name} dialect, instead of "
                f"being sent as a tool call (is the server's tool-call parser off?): recovered from the text",
            )
        self._end_call(call)

    def _keep_reasoning(self, choice_number: int, text: str) -> None:
        """Reasoning text, one output item per run between calls, within ``Limits.max_output_bytes``."""
        size = len(text.encode("utf-8", "surrogatepass"))
        opened = (choice_number, len(self._calls))
        if self._reasoning and self._reasoning[-1][0] == opened:
            if self.admit_output(size):
                self._reasoning[-1][1].append(text)
        elif self.admit_output(size + BOOKKEEPING):
            self._reasoning.append((opened, [text]))

    def refusal(self, choice_number: int, text: str) -> None:
        """What a choice says when it refuses (OpenAI ``delta.refusal``, Responses ``response.refusal.delta``).

        Kept apart from its content text, within the same ``Limits.max_text_bytes`` as that text, never read for calls.
        """
        choice = self._within_text_budget(choice_number, text)
        if choice is not None:
            choice.refusal.append(text)

    def _keep_text(self, choice_number: int, text: str) -> None:
        """Append content text to a choice, while its text stays within ``Limits.max_text_bytes``.

        The text that would take it past, and all of the choice's text after, is counted by its ``TEXT_TOO_LARGE``.
        """
        choice = self._within_text_budget(choice_number, text)
        if choice is None:
            return
        choice.text.append(text)
        if self._steps is not None:
            self._steps.append(("text", choice_number, text))

    def _within_text_budget(self, choice_number: int, text: str) -> _Choice | None:
        """The choice, when ``text`` (not empty) may be kept for it, its bytes then counted.

        A choice's text and refusal stay within ``Limits.max_text_bytes`` together: what would take them past, and
        all of either after, is counted by its ``TEXT_TOO_LARGE``.
        """
        choice = self._admitted(choice_number)
        if choice is None or not text:
            return None
        size = len(text.encode("utf-8", "surrogatepass"))
        limit = self._limits.max_text_bytes
        if choice.text_over is not None or choice.text_bytes + size > limit:
            choice.text_over = self._count(
                choice.text_over,
                ViolationCode.TEXT_TOO_LARGE,
                f"the text of choice {choice_number} passed {limit} bytes (Limits.max_text_bytes): the rest was "
                f"counted, not kept; `data` counts its bytes",
                limit,
                "bytes",
                size,
                choice=choice_number,
            )
            return None
        choice.text_bytes += size
        return choice

    def take_steps(self) -> list[tuple[Any, ...]]:
        """The progress since the last take (empty without ``log_steps``).

        ``("text", choice, text)``, ``("started", seq, choice, index, id, name)`` (the identity as it stands now),
        ``("arguments", seq, choice, bytes)``, ``("ready", call)``.
        """
        if not self._steps:
            return []
        steps, self._steps = self._steps, []
        return [
            ("started", step[1].seq, step[1].choice, step[1].index, step[1].id, step[1].name)
            if step[0] == "opened"
            else step
            for step in steps
        ]

    def usage(self, usage: Any) -> None:
        """Keep the latest usage payload."""
        self._usage = usage

    def touch(self, choice_number: int) -> None:
        """Note that a choice appeared in the stream, even with nothing in it (a format of one choice)."""
        self._admitted(choice_number)

    def choice_entry(self, choice_number: int) -> bool:
        """An entry of a choice begins (a chunk's ``choices`` item, a Gemini candidate): whether it is read.

        It is not when the choice is new and the stream has ``Limits.max_choices`` already: nothing of it is kept, and
        the stream's one ``TOO_MANY_CHOICES`` counts its entries.
        """
        if self._admitted(choice_number) is not None:
            return True
        limit = self._limits.max_choices
        self._choices_refused = self._count(
            self._choices_refused,
            ViolationCode.TOO_MANY_CHOICES,
            f"more than {limit} choices in one stream (Limits.max_choices): the entries of the choices past it are not "
            f"read; `data` counts them",
            limit,
            "entries",
            1,
        )
        return False

    def admit_output(self, size: int) -> bool:
        """Whether ``size`` more bytes of output are kept (as ``Limits.max_output_bytes`` counts them).

        They are while the output stays within its limit. Once some did not fit, nothing more is kept, and the stream's
        one ``OUTPUT_TOO_LARGE`` counts the bytes left out.
        """
        limit = self._limits.max_output_bytes
        if self._output_over is None and self._output_bytes + size <= limit:
            self._output_bytes += size
            return True
        self._output_over = self._count(
            self._output_over,
            ViolationCode.OUTPUT_TOO_LARGE,
            f"the output passed {limit} bytes (Limits.max_output_bytes): what came after was counted, not kept; "
            f"`data` counts its bytes",
            limit,
            "bytes",
            size,
        )
        return False

    @property
    def output_is_over(self) -> bool:
        """Whether some output was left out (``OUTPUT_TOO_LARGE``)."""
        return self._output_over is not None

    def finish(self, choice_number: int, reason: str, kind: FinishKind) -> None:
        """A non-null finish reason for a choice, of the kind its decoder gives it."""
        choice = self._admitted(choice_number)
        if choice is None:
            return
        if choice.finish_reason is None:
            choice.finish_reason = reason
            choice.finish_kind = kind
        else:
            self._report_stream(
                ViolationCode.MULTIPLE_FINISH_REASONS,
                f"choice {choice.number} finished again with {reason!r} after {choice.finish_reason!r}; "
                f"the first one stands",
                choice=choice.number,
            )
        if kind == "cut":
            self._cut(choice, because=f"finish_reason {reason!r}", seqless=True)
        elif self._emit != "stream_end":
            for call in self._pending(choice):
                if call.settled or call.empty:
                    self._hand_over(call)

    def provider_error(self, payload: Any) -> None:
        """An error event in the stream: reported with its payload, and every choice counts as cut."""
        self._report_stream(
            ViolationCode.PROVIDER_ERROR, f"the provider sent an error event: {_brief(payload)}", data=payload
        )
        if not self._errored:
            self._errored = True
            for choice in sorted(self._choices.values(), key=lambda c: c.number):
                self._cut(choice, because="an error event", seqless=False)

    def unrecognized(self, message: str, data: dict[str, Any]) -> None:
        """No event of the stream was understood: ``UNRECOGNIZED_STREAM``, with how many events were read."""
        self._report_stream(ViolationCode.UNRECOGNIZED_STREAM, message, data=data)

    def spliced(self, first_id: str, second_id: str) -> None:
        """A second generation began in the same stream (a message with another id): ``STREAM_SPLICED``."""
        self._report_stream(
            ViolationCode.STREAM_SPLICED,
            f"a second message {second_id!r} began after {first_id!r} in the same stream; "
            f"the two are read as they come, nothing is merged",
        )

    def end(self) -> None:
        """The stream ended: every call not yet handed over is, then the stream-level findings are settled."""
        if self._ended:
            return
        self._ended = True
        if self._text_calls is not None:
            for choice_number, events in self._text_calls.finish():
                self._apply_text_events(choice_number, events, self._leaked[choice_number])
        for call in sorted(self._calls, key=lambda c: (c.choice, c.seq)):
            if not call.handed_over:
                call.scanner.finish()
                self._hand_over(call)
        self._settle_stream()

    # ---------------------------------------------------------------------------------------------- output

    def calls_opened(self) -> int:
        """How many calls were opened so far (the place of an ``OutputItem`` among them)."""
        return len(self._calls)

    def has_ready(self) -> bool:
        """Whether calls were handed over since the last ``take_ready``."""
        return bool(self._ready)

    def take_ready(self) -> list[Emitted]:
        """The calls handed over since the last call, in hand-over order."""
        ready, self._ready = self._ready, []
        return ready

    def take_log(self) -> list[Violation]:
        """Every violation found since the last call, in the order found (empty without ``log_violations``)."""
        if self._log is None:
            return []
        log, self._log = self._log, []
        return log

    def has_stream_errors(self) -> bool:
        """Whether a stream-level finding is an error (what ``on_invalid="raise"`` raises for at the end)."""
        return any(found.severity is Severity.ERROR for found in _settled(self._stream_violations))

    def result(self, *, output: tuple[OutputItem, ...] = ()) -> StreamResult:
        """The result so far (final once ``end`` was called), with the decoder's ``output`` items.

        The reasoning the dialect parsers read joins them, each run an item ``{"type": "reasoning", "text": ...}``
        placed by the calls opened before it (after the decoder's items placed alike).
        """
        if self._reasoning:
            reasoning = [
                OutputItem(after, {"type": "reasoning", "text": "".join(parts)})
                for (_, after), parts in self._reasoning
            ]
            output = tuple(sorted((*output, *reasoning), key=lambda item: item.after_calls))
        choices = tuple(
            ChoiceResult(c.number, "".join(c.text), c.finish_reason, "".join(c.refusal) if c.refusal else None)
            for c in sorted(self._choices.values(), key=lambda c: c.number)
        )
        first = choices[0] if choices else None
        return StreamResult(
            calls=tuple(sorted(self._valid, key=lambda c: (c.choice, c.seq))),
            invalid_calls=tuple(sorted(self._invalid, key=lambda c: (c.choice, c.seq))),
            finish_reason=first.finish_reason if first else None,
            usage=self._usage,
            text=first.text if first else "",
            violations=_settled(self._stream_violations),
            choices=choices,
            output=output,
            refusal=first.refusal if first else None,
        )

    # ---------------------------------------------------------------------------------------- call identity

    def _choice(self, number: int) -> _Choice:
        """A choice of the stream's (one that was admitted)."""
        return self._choices[number]

    def _admitted(self, number: int) -> _Choice | None:
        """The choice ``number``, opened when it is new and there is room for it (``Limits.max_choices``)."""
        choice = self._choices.get(number)
        if choice is None and len(self._choices) < self._limits.max_choices:
            choice = self._choices[number] = _Choice(number)
        return choice

    def _match(self, choice: _Choice, fragment: Fragment) -> _Call | None:
        """The call a fragment goes to; None for a call refused past ``Limits.max_calls``."""
        call_id = value_or_none(fragment.id)
        if fragment.index is not None:
            current = choice.by_index.get(fragment.index)
            if current is None:
                return self._open(choice, fragment)
            if call_id is not None and current.id is not None and call_id != current.id:
                if current.closed or value_or_none(fragment.name) is not None:
                    call = self._open(choice, fragment)
                    if call is None:
                        return None
                    self._report(
                        call,
                        ViolationCode.INDEX_REUSED,
                        f"index {fragment.index} was reused by a new call {call_id!r} (after {current.id!r})",
                    )
                    return call
                if _first_time(current, "id", call_id, self._limits.max_violations):
                    self._report(
                        current,
                        ViolationCode.ID_CHANGED,
                        f"id changed from {current.id!r} to {call_id!r} in the middle of the arguments; "
                        f"the first id is kept",
                    )
            return current
        if call_id is not None:
            known = choice.by_id.get(call_id)
            call = known if known is not None else self._open(choice, fragment)
        elif choice.refused:
            return None
        else:
            call = choice.calls[-1] if choice.calls else self._open(choice, fragment)
        if call is not None and not call.missing_index_reported:
            call.missing_index_reported = True
            self._report(call, ViolationCode.MISSING_INDEX, "a fragment of this call came without an index")
        return call

    def _open(self, choice: _Choice, fragment: Fragment) -> _Call | None:
        """A new call; past ``Limits.max_calls`` none: the call is refused (see ``_refuse``)."""
        seq = len(self._calls)
        if seq >= self._limits.max_calls:
            self._refuse(choice, fragment.index)
            return None
        call = _Call(
            seq=seq,
            choice=choice.number,
            index=fragment.index,
            scanner=Scanner(self._limits.max_depth),
            free_text=fragment.free_text,
            judged=fragment.judged,
        )
        self._calls.append(call)
        choice.calls.append(call)
        if self._steps is not None:
            self._steps.append(("opened", call))
        if fragment.index is not None:
            choice.by_index[fragment.index] = call
        if value_or_none(fragment.type) is None:
            self._report(call, ViolationCode.TYPE_MISSING, "the call's first fragment has no type")
        return call

    def _refuse(self, choice: _Choice, index: int | None) -> None:
        """A call past ``Limits.max_calls``: nothing of it is kept, and it adds no entry to any map.

        It is the choice's latest call, and the latest with its index: a call kept before it with that index no longer
        gets fragments by it (they are the refused call's, and so refused too).
        """
        choice.refused = True
        if index is not None:
            choice.by_index.pop(index, None)

    def _refused_fragment(self) -> None:
        """A fragment of a refused call: counted by the stream's one ``TOO_MANY_CALLS``."""
        limit = self._limits.max_calls
        self._refusals = self._count(
            self._refusals,
            ViolationCode.TOO_MANY_CALLS,
            f"more than {limit} calls in one stream (Limits.max_calls): the calls past it are refused and nothing of "
            f"them is kept; `data` counts their fragments",
            limit,
            "fragments",
            1,
        )

    def _count(
        self,
        counted: _Counted,
        code: ViolationCode,
        message: str,
        limit: int,
        unit: str,
        count: int,
        *,
        choice: int | None = None,
    ) -> _Counted:
        """Counts ``count`` more on the stream's one finding of a limit, or files it when there is none yet.

        Returns where it is now: its tally, or False when the stream's list had no room (it is then only counted).
        """
        if isinstance(counted, _Tally):
            counted.counts[unit] += count
            return counted
        if counted is False:
            return False
        counts = {"limit": limit, unit: count}
        found = violation(code, message, choice=choice, data=dict(counts))
        tally = _Tally(found, counts)
        return tally if self._keep(self._stream_violations, tally, _STREAM) else False

    def _apply(self, call: _Call | None, fragment: Fragment) -> None:
        if call is None:
            self._refused_fragment()
            return
        call_id = value_or_none(fragment.id)
        if call_id is not None and call.id is None:
            call.id = call_id
            self._choice(call.choice).by_id[call_id] = call
        name = value_or_none(fragment.name)
        if name is not None:
            if call.name is None:
                call.name = name
            elif name != call.name and _first_time(call, "name", name, self._limits.max_violations):
                self._report(
                    call,
                    ViolationCode.NAME_CHANGED,
                    f"name changed from {call.name!r} to {name!r}; the first name is kept",
                )
        for key, value in fragment.extra:
            call.extra.setdefault(key, value)
        if fragment.arguments_was_value:
            self._report(
                call,
                ViolationCode.ARGUMENTS_NOT_STRING,
                "arguments came as a JSON value where the wire format promises a string; its canonical text is used",
            )
        if fragment.arguments is not None:
            self._append(call, fragment.arguments.encode("utf-8", "surrogatepass"))

    # ------------------------------------------------------------------------------------------- arguments

    def _append(self, call: _Call, data: bytes) -> None:
        if call.handed_over or call.ended:
            start = call.received
            call.received += len(data)
            self._trailing(call, start, data)
            return
        self._store(call, data)

    def _trailing(self, call: _Call, start: int, data: bytes) -> None:
        """Arguments for a call that is over: one ``TRAILING_DATA`` where it lands, grown by every later fragment.

        On the call while it is held, on the stream once it was handed over: its text kept up to
        ``Limits.max_argument_bytes``, its bytes and fragments counted. Whitespace alone before it is allowed.
        """
        cap = self._limits.max_argument_bytes
        # One on the call goes with it when it is handed over: what arrives from then on makes the stream's.
        if call.trailing is not None and call.trailing.on_stream == call.handed_over:
            tally = call.trailing.tally
            if tally is not None and tally.text is not None:
                tally.text += data[: max(0, cap - len(tally.text))]
                tally.counts["bytes"] += len(data)
                tally.counts["fragments"] += 1
            return
        stripped = data.lstrip(_WHITESPACE)
        if not stripped:
            return
        on_stream = call.handed_over
        text, counts = bytearray(data[:cap]), {"bytes": len(data), "fragments": 1}
        found = violation(
            ViolationCode.TRAILING_DATA,
            f"arguments arrived after the call was {'handed over' if on_stream else 'over'}; `data` holds their text "
            f"(up to Limits.max_argument_bytes), bytes and fragments",
            choice=call.choice,
            seq=call.seq,
            index=call.index,
            offset=start + len(data) - len(stripped),
            data={"text": bytes(text).decode("utf-8", "replace"), **counts},
        )
        tally = _Tally(found, counts, text)
        if on_stream:
            kept = self._keep(self._stream_violations, tally, _STREAM)
        else:
            kept = self._keep(call.violations, tally, call.scope)
        call.trailing = _Trailing(on_stream, tally if kept else None)

    def _store(self, call: _Call, data: bytes) -> None:
        """Keep (up to the limit) and scan bytes of a call that is still open."""
        call.received += len(data)
        if not call.over_limit:
            if len(call.buffer) + len(data) > self._limits.max_argument_bytes:
                call.over_limit = True
                call.scanner.stop_tracking_keys()
                self._report(
                    call,
                    ViolationCode.ARGUMENTS_TOO_LARGE,
                    f"arguments exceed {self._limits.max_argument_bytes} bytes (Limits.max_argument_bytes); "
                    f"the rest is checked but not kept",
                    offset=len(call.buffer),
                )
            else:
                call.buffer += data
                if self._steps is not None and data:
                    self._steps.append(("arguments", call.seq, call.choice, bytes(data)))
        if call.free_text or call.judged:
            return  # free text, and text a dialect parser judged, is kept as it came: nothing to scan
        was_invalid = call.scanner.error is not None
        # Pointers are built only for the duplicates the call has room to keep: the rest are counted.
        call.scanner.limit_duplicate_keys(_room(call.violations, self._limits.max_violations))
        call.scanner.feed(data)
        for duplicate in call.scanner.take_duplicate_keys():
            self._report(
                call,
                ViolationCode.DUPLICATE_KEY,
                f"the key at {duplicate.path} appears more than once in its object; the last value wins",
                path=duplicate.path,
                offset=duplicate.offset,
            )
        self._omit(call.violations, call.scanner.take_duplicate_keys_past_limit(), call.scope)
        error = call.scanner.error
        if error is not None and not was_invalid:
            code = _SCAN_ERROR_CODES.get(error.kind, ViolationCode.INVALID_JSON)
            self._report(call, code, _scan_message(error.kind, error.offset, self._limits), offset=error.offset)

    # ------------------------------------------------------------------------------------------- hand-over

    def _hand_over_if_complete(self, call: _Call | None) -> None:
        if self._emit == "complete" and call is not None and not call.handed_over and call.closed:
            self._hand_over(call)

    def _end_call(self, call: _Call) -> None:
        call.ended = True
        call.scanner.finish()
        if self._emit != "stream_end" and not call.handed_over:
            self._hand_over(call)

    def _pending(self, choice: _Choice) -> list[_Call]:
        return [call for call in choice.calls if not call.handed_over]

    def _hand_over_others(self, choice: _Choice, current: _Call | None) -> None:
        if self._emit == "stream_end":
            return
        for call in self._pending(choice):
            if call is not current and call.settled:
                self._hand_over(call)

    def _cut(self, choice: _Choice, *, because: str, seqless: bool) -> None:
        if choice.cut:
            return
        choice.cut = True
        handed = [call for call in choice.calls if call.handed_over]
        for call in handed:
            self._report_stream(
                ViolationCode.STREAM_CUT,
                f"the stream was cut ({because}) after call seq={call.seq} was handed over",
                choice=choice.number,
                seq=call.seq,
                index=call.index,
            )
        if seqless and not handed:
            self._report_stream(ViolationCode.STREAM_CUT, f"the stream was cut ({because})", choice=choice.number)
        if self._emit != "stream_end":
            for call in self._pending(choice):
                self._hand_over(call)

    def _hand_over(self, call: _Call) -> None:
        call.handed_over = True
        if call.id is None:
            call.id = f"ts_{call.choice}_{call.seq}"
            self._report(call, ViolationCode.MISSING_ID, f"no id arrived; {call.id!r} was generated", settle=True)
        if call.name is None:
            self._report(call, ViolationCode.MISSING_NAME, "no name arrived for this call", settle=True)
        arguments = self._settle_arguments(call)
        if self._choice(call.choice).cut or self._errored:
            self._report(call, ViolationCode.STREAM_CUT, "the stream was cut before this call was over", settle=True)
        if self._validators is not None:
            self._validate(call, self._validators, arguments)
        if arguments is _PARSE:
            arguments = self._parse(call)
        violations = _settled(call.violations)
        errors = tuple(v for v in violations if v.severity is Severity.ERROR)
        others = tuple(v for v in violations if v.severity is not Severity.ERROR)
        arguments_json: str | None = call.buffer.decode("utf-8", "replace")
        # Most calls carry no extra: they share the dataclass's empty default rather than each holding a dict.
        extra: dict[str, Any] = {"extra": dict(call.extra)} if call.extra else {}
        if arguments is _TEXT:
            # A custom tool's input is its text as sent; it has no arguments text, and no arguments but {} when valid.
            extra["input"] = call.buffer.decode("utf-8", "surrogatepass")
            arguments_json = None
            arguments = None if errors else {}
        emitted: Emitted
        fingerprint = None
        if self._validators is not None and call.name is not None:
            fingerprint = self._validators.fingerprint(call.name)
        if errors:
            emitted = InvalidToolCall(
                call.id,
                call.name,
                arguments,
                arguments_json,
                call.seq,
                call.index,
                call.choice,
                errors,
                others,
                fingerprint,
                **extra,
            )
            self._invalid.append(emitted)
        else:
            assert call.name is not None
            emitted = ToolCall(
                call.id,
                call.name,
                arguments,
                arguments_json,
                call.seq,
                call.index,
                call.choice,
                others,
                fingerprint,
                **extra,
            )
            self._valid.append(emitted)
        self._ready.append(emitted)
        if self._steps is not None:
            self._steps.append(("ready", emitted))

    def _validate(self, call: _Call, validators: CompiledTools, arguments: Any) -> None:
        """The declared tools' verdict: the name always, the arguments when they are a whole object.

        Arguments that never came are checked as the ``{}`` the call will carry.
        """
        if call.name is None:
            return
        unknown = validators.unknown_tool(call.name)
        if unknown is not None:
            found = [unknown]
        elif arguments is _PARSE and call.scanner.root_kind == "object":
            found = validators.validate(call.name, bytes(call.buffer), call=False)
        elif isinstance(arguments, dict) and not call.free_text:
            found = validators.validate(call.name, "{}", call=False)
        else:
            return
        for each in found:
            adopted = replaced(each, choice=call.choice, seq=call.seq, index=call.index)
            self._keep(call.violations, adopted, call.scope)

    def amend(self, call: Emitted) -> None:
        """Replace the handed-over call with the same (choice, seq) by ``call`` (a repaired one)."""
        key = (call.choice, call.seq)
        kept = len(self._valid) + len(self._invalid)
        self._valid = [old for old in self._valid if (old.choice, old.seq) != key]
        self._invalid = [old for old in self._invalid if (old.choice, old.seq) != key]
        if len(self._valid) + len(self._invalid) < kept:
            if isinstance(call, ToolCall):
                self._valid.append(call)
            else:
                self._invalid.append(call)
            return
        raise ValueError(f"no call with choice={call.choice} seq={call.seq} was handed over")

    def _settle_arguments(self, call: _Call) -> Any:
        """The arguments' findings at hand-over; returns ``{}``, None, or ``_PARSE`` when the text is a value."""
        scanner = call.scanner
        if call.judged:
            return None
        if call.free_text:
            if not call.ended:
                self._report(
                    call,
                    ViolationCode.TRUNCATED,
                    f"the input stopped after {call.received} bytes before the call's end came",
                    offset=call.received,
                    settle=True,
                )
            return _TEXT
        if not scanner.is_started:
            self._report(call, ViolationCode.EMPTY_ARGUMENTS, "the call came without arguments", settle=True)
            return {}
        if scanner.state == COMPLETE and not call.over_limit:
            if scanner.root_kind != "object":
                self._report(
                    call,
                    ViolationCode.ARGUMENTS_NOT_OBJECT,
                    f"the arguments are a JSON {scanner.root_kind}, not an object",
                    settle=True,
                )
            return _PARSE
        if scanner.state == INCOMPLETE:
            self._report(
                call,
                ViolationCode.TRUNCATED,
                f"the arguments stopped after {call.received} bytes with the JSON value still open",
                offset=call.received,
                settle=True,
            )
        return None

    def _parse(self, call: _Call) -> Any:
        try:
            return loads_arguments(bytes(call.buffer))
        except ValueError:
            # Valid JSON that Python values are not built from: a number whose integer part has more than 4300
            # digits (see `_numbers`). Reported last, as the core, unless the declared tools' check, just before,
            # already found it.
            found = (ViolationCode.INVALID_JSON, NUMBER_TOO_LONG)
            if not any(isinstance(v, Violation) and (v.code, v.message) == found for v in call.violations):
                self._report(call, ViolationCode.INVALID_JSON, NUMBER_TOO_LONG, settle=True)
            return None

    # ------------------------------------------------------------------------------------------ end of stream

    def _settle_stream(self) -> None:
        if not self._choices and not self.is_text_source:
            self._report_stream(ViolationCode.NO_FINISH_REASON, "the stream carried no choice and no finish reason")
        for choice in sorted(self._choices.values(), key=lambda c: c.number):
            has_calls = bool(choice.calls)
            names = [call.name for call in choice.calls]
            # Calls read out of the text are none the server knew of: its finish cannot have told them.
            from_text = self._text_call_seqs.get(choice.number, {}).values()
            sent_calls = len(choice.calls) - len(from_text)
            if choice.finish_reason is None:
                if not self.is_text_source:
                    self._report_stream(
                        ViolationCode.NO_FINISH_REASON,
                        f"choice {choice.number} ended without a finish reason",
                        choice=choice.number,
                    )
            elif choice.finish_kind == "stop" and sent_calls:
                named = self._tool_choice.name is not None
                self._report_stream(
                    ViolationCode.FINISH_REASON_MISMATCH,
                    f"choice {choice.number} finished with {choice.finish_reason!r} but carries "
                    f"{len(choice.calls)} call(s)"
                    + (" (expected: OpenAI sends 'stop' when tool_choice names a function)" if named else ""),
                    choice=choice.number,
                    severity=Severity.INFO if named else Severity.WARNING,
                )
            elif choice.finish_kind == "calls" and not has_calls:
                self._report_stream(
                    ViolationCode.FINISH_WITHOUT_CALLS,
                    f"choice {choice.number} finished with {choice.finish_reason!r} but carries no call",
                    choice=choice.number,
                )
            wanted = self._tool_choice
            if wanted.required and (
                not has_calls or (wanted.name is not None and any(n != wanted.name for n in names))
            ):
                brought = ", ".join(sorted({repr(n) for n in names})) if has_calls else "no call"
                demanded = f"a call to {wanted.name!r}" if wanted.name else "a tool call"
                self._report_stream(
                    ViolationCode.TOOL_CHOICE_IGNORED,
                    f"tool_choice demanded {demanded}; choice {choice.number} brought {brought}",
                    choice=choice.number,
                )

    # ---------------------------------------------------------------------------------------------- reports

    def _report(
        self,
        call: _Call,
        code: ViolationCode,
        message: str,
        *,
        path: str | None = None,
        offset: int | None = None,
        data: Any = None,
        settle: bool = False,
    ) -> None:
        """A call-level finding: on the call while it is held, on the stream once the call was handed over."""
        found = violation(
            code, message, choice=call.choice, seq=call.seq, index=call.index, path=path, offset=offset, data=data
        )
        if call.handed_over and not settle:
            self._keep(self._stream_violations, found, _STREAM)
        else:
            self._keep(call.violations, found, call.scope)

    def _report_stream(
        self,
        code: ViolationCode,
        message: str,
        *,
        choice: int | None = None,
        seq: int | None = None,
        index: int | None = None,
        severity: Severity | None = None,
        data: Any = None,
    ) -> None:
        found = violation(code, message, severity=severity, choice=choice, seq=seq, index=index, data=data)
        self._keep(self._stream_violations, found, _STREAM)

    def _keep(self, findings: _Findings, finding: Violation | _Tally, scope: _Scope) -> bool:
        """Files a finding within ``Limits.max_violations`` and logs what that adds; returns whether it was kept."""
        if _room(findings, self._limits.max_violations) > 0:
            findings.append(finding)
            self._found(finding)
            return True
        self._omit(findings, 1, scope)
        return False

    def _omit(self, findings: _Findings, count: int, scope: _Scope) -> None:
        """Counts ``count`` findings a list had no room for, on its last entry: one ``VIOLATIONS_OMITTED``."""
        if not count:
            return
        last = findings[-1] if findings else None
        if isinstance(last, _Tally) and last.code is ViolationCode.VIOLATIONS_OMITTED:
            last.counts["omitted"] += count
            return
        limit = self._limits.max_violations
        choice, seq, index = scope
        counts = {"omitted": count}
        found = violation(
            ViolationCode.VIOLATIONS_OMITTED,
            f"more than {limit} violations (Limits.max_violations): the rest were counted, not kept (`data`)",
            choice=choice,
            seq=seq,
            index=index,
            data=dict(counts),
        )
        marker = _Tally(found, counts)
        findings.append(marker)
        self._found(marker)

    def _found(self, finding: Violation | _Tally) -> None:
        if self._log is not None:
            self._log.append(finding.found if isinstance(finding, _Tally) else finding)


def _first_time(call: _Call, field_name: str, value: str, limit: int) -> bool:
    """Report each distinct conflicting id or name once per call, however often the provider repeats it.

    Only the first ``limit`` distinct ones are remembered: past them, a conflicting value is reported each time.
    """
    key = (field_name, value)
    if key in call.changed_values_reported:
        return False
    if len(call.changed_values_reported) < limit:
        call.changed_values_reported.add(key)
    return True


def _scan_message(kind: str, offset: int, limits: Limits) -> str:
    if kind == "too_deep":
        return f"the arguments nest deeper than {limits.max_depth} levels (Limits.max_depth) at byte {offset}"
    if kind == "trailing_data":
        return f"more data follows the complete arguments value at byte {offset}"
    return f"the arguments are not valid JSON: {kind.replace('_', ' ')} at byte {offset}"


def _brief(payload: Any) -> str:
    try:
        text = json.dumps(payload, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        text = repr(payload)
    return text if len(text) <= 300 else text[:297] + "..."
