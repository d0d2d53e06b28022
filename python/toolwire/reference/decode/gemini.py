"""The Gemini decoder (``streamGenerateContent?alt=sse``): a ``functionCall`` part is a whole call, or opens one.

The rules are those of ``docs/semantics.md`` ("gemini"). A candidate's choice is its ``index``, else its position.
Gemini sends ``STOP`` with calls, in the call's chunk or a later one (Q28), so ``STOP`` is neutral. With streamed
arguments (Vertex ``streamFunctionCallArguments``), a part with ``willContinue`` opens a call that later parts'
``partialArgs`` fill (``_partial_args``) until a part without ``willContinue`` closes it. Other parts are kept within
``Limits.max_output_bytes``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire._model import OutputItem, ViolationCode
from toolwire.reference._accumulator import Accumulator, FinishKind, Fragment
from toolwire.reference._fields import Fields
from toolwire.reference.decode._output import BOOKKEEPING, text_size, whole_size
from toolwire.reference.decode._partial_args import ArgumentsWriter, PathError, read_entry
from toolwire.reference.decode._shared import reported_error

_CALL_TYPE = "function_call"
_CUTTING = frozenset(
    {
        "MAX_TOKENS",
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
        "LANGUAGE",
        "IMAGE_SAFETY",
    }
)
_TEXT_ONLY = frozenset({"text"})
_THOUGHT_TEXT = frozenset({"text", "thought"})


@dataclass(slots=True)
class _Part:
    """A non-call part kept for the next request, with the texts of the parts joined to it."""

    choice: int
    after_calls: int
    value: dict[str, Any]
    texts: list[str] = field(default_factory=list)

    def item(self) -> OutputItem:
        if len(self.texts) < 2:
            return OutputItem(self.after_calls, self.value)
        return OutputItem(self.after_calls, {**self.value, "text": "".join(self.texts)})


@dataclass(slots=True)
class _Streamed:
    """A call whose arguments are streaming: its ``seq`` and the writer of its text."""

    seq: int
    writer: ArgumentsWriter


class GeminiDecoder:
    """The state of one Gemini stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator
        self._parts: list[_Part] = []
        self._streamed: dict[int, _Streamed] = {}  # per choice: the call whose arguments are still streaming

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """A chunk with ``candidates`` or ``promptFeedback``."""
        return event.get("candidates") is not None or event.get("promptFeedback") is not None

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one chunk (a ``GenerateContentResponse``): candidates in order, each part, then its finish."""
        fields = Fields(number)
        if reported_error(self._accumulator, event):
            return
        for position, candidate in enumerate(fields.sequence(event, "candidates", "candidates")):
            self._candidate(candidate, position, fields)
        usage = event.get("usageMetadata")
        if usage is not None:
            self._accumulator.usage(usage)

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """Every part but the calls, in order, a streamed text's pieces joined into one part."""
        return tuple(part.item() for part in self._parts)

    def usage(self) -> None:
        """The usage is the last one sent (the accumulator keeps it)."""

    def _candidate(self, candidate: Any, position: int, fields: Fields) -> None:
        where = f"candidates[{position}]"
        fields.record(candidate, where)
        choice = fields.integer(candidate, "index", f"{where}.index")
        if choice is None:
            choice = position
        if not self._accumulator.choice_entry(choice):
            return  # a candidate past Limits.max_choices: counted, not read
        content = fields.mapping(candidate, "content", f"{where}.content")
        parts = [] if content is None else fields.sequence(content, "parts", f"{where}.content.parts")
        for part_position, part in enumerate(parts):
            self._part(choice, part, f"{where}.content.parts[{part_position}]", fields)
        reason = fields.string(candidate, "finishReason", f"{where}.finishReason")
        if reason is not None:
            self._cut_short(choice)
            kind: FinishKind = "cut" if reason in _CUTTING else "neutral"
            self._accumulator.finish(choice, reason, kind)

    def _part(self, choice: int, part: Any, at: str, fields: Fields) -> None:
        fields.record(part, at)
        call = fields.mapping(part, "functionCall", f"{at}.functionCall")
        if call is not None:
            self._call(choice, part, call, f"{at}.functionCall", fields)
            return
        thought = fields.boolean(part, "thought", f"{at}.thought")
        text = fields.string(part, "text", f"{at}.text")
        if text is not None and not thought:
            self._accumulator.text(choice, text)
        self._keep(choice, part, at, fields)

    def _call(self, choice: int, part: dict[str, Any], call: dict[str, Any], at: str, fields: Fields) -> None:
        """A ``functionCall`` part: a whole call, the opening or a continuation of a streamed one, or its end."""
        call_id = fields.string(call, "id", f"{at}.id")
        call_name = fields.string(call, "name", f"{at}.name")
        arguments = fields.arguments(call, "args", f"{at}.args")
        will_continue = fields.boolean(call, "willContinue", f"{at}.willContinue") is True
        entries = call.get("partialArgs")
        if entries is not None and not isinstance(entries, list):
            raise fields.fail(f"{at}.partialArgs", f"expected a list, got {type(entries).__name__}")
        signature = part.get("thoughtSignature")
        extra = () if signature is None else (("thought_signature", signature),)
        if call_name is not None:
            # A new call: one still streaming never got its end.
            self._cut_short(choice)
        streamed = self._streamed.get(choice)
        if streamed is not None:
            self._accumulator.fragment_to(streamed.seq, Fragment(None, call_id, None, _CALL_TYPE, None, extra=extra))
        elif will_continue or entries is not None:
            writer = ArgumentsWriter(self._accumulator.limits.max_argument_bytes)
            opening = Fragment(None, call_id, call_name, _CALL_TYPE, writer.opening, extra=extra)
            streamed = self._streamed[choice] = _Streamed(self._accumulator.open_call(choice, opening), writer)
        else:
            if call_name is not None or call_id is not None or arguments is not None:
                fragment = Fragment(None, call_id, call_name, _CALL_TYPE, arguments, extra=extra)
                self._accumulator.whole_call(choice, fragment)
            # else: an end with no call open ends nothing
            return
        if arguments is not None and arguments != "{}":
            self._violation(streamed, PathError("a part of a call whose arguments stream carries whole args", None))
        self._stream(choice, streamed, entries or [], will_continue, at, fields)

    def _stream(
        self, choice: int, streamed: _Streamed, entries: list[Any], will_continue: bool, at: str, fields: Fields
    ) -> None:
        """A streamed call's part: its entries written, and the call closed unless it continues."""
        text = []
        for position, entry in enumerate(entries):
            where = f"{at}.partialArgs[{position}]"
            value = fields.record(entry, where)
            read = read_entry(value, _failing(fields, where))
            try:
                text.append(streamed.writer.write(read))
            except PathError as error:
                self._violation(streamed, error)
        if not will_continue:
            closing, unfinished = streamed.writer.close()
            if unfinished is not None:
                self._violation(streamed, unfinished)
            text.append(closing)
        if any(text):
            self._accumulator.fragment_to(streamed.seq, Fragment(None, None, None, _CALL_TYPE, "".join(text)))
        if not will_continue:
            del self._streamed[choice]
            self._accumulator.end_seq(streamed.seq)

    def _violation(self, streamed: _Streamed, error: PathError) -> None:
        self._accumulator.call_violation(
            streamed.seq, ViolationCode.INVALID_ARGUMENT_PATH, str(error), path=error.pointer
        )

    def _cut_short(self, choice: int) -> None:
        """The call still streaming in ``choice`` is over without its end (a new call, the finish).

        It is ended as it stands, its text still open (``TRUNCATED``).
        """
        streamed = self._streamed.pop(choice, None)
        if streamed is not None:
            self._accumulator.end_seq(streamed.seq)

    def _keep(self, choice: int, part: dict[str, Any], at: str, fields: Fields) -> None:
        """A streamed text arrives as many parts: one that only continues the previous one is joined to it."""
        after_calls = self._accumulator.calls_opened()
        joinable = _joinable(part)
        last = self._parts[-1] if self._parts else None
        if joinable and last is not None and last.texts and _continues(last, choice, part, after_calls):
            if self._accumulator.admit_output(text_size(part["text"])):
                last.texts.append(part["text"])
            return
        size = BOOKKEEPING + text_size(part["text"]) if joinable else whole_size(part, fields, at)
        if self._accumulator.admit_output(size):
            self._parts.append(_Part(choice, after_calls, part, [part["text"]] if joinable else []))


def _failing(fields: Fields, where: str) -> Callable[[str, str], Exception]:
    """The error for a field of an entry at ``where``."""
    return lambda key, problem: fields.fail(f"{where}.{key}", problem)


def _joinable(part: dict[str, Any]) -> bool:
    """Plain streamed text: ``{"text"}``, or ``{"text", "thought": true}``."""
    keys = part.keys()
    return isinstance(part.get("text"), str) and (
        keys == _TEXT_ONLY or (keys == _THOUGHT_TEXT and part["thought"] is True)
    )


def _continues(last: _Part, choice: int, part: dict[str, Any], after_calls: int) -> bool:
    """Whether a joinable ``part`` continues ``last`` (itself joinable): same candidate, keys and place among calls."""
    return last.choice == choice and last.after_calls == after_calls and last.value.keys() == part.keys()
