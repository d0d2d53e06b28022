"""The Gemini decoder (``streamGenerateContent?alt=sse``): each ``functionCall`` part is a whole call.

The rules are those of ``docs/semantics.md`` ("gemini"). A candidate's choice is its ``index``, else its position.
Gemini sends ``STOP`` with calls, in the call's chunk or a later one (Q28), so ``STOP`` is neutral.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolstream._model import OutputItem
from toolstream.reference._accumulator import Accumulator, FinishKind, Fragment
from toolstream.reference._fields import Fields

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


class GeminiDecoder:
    """The state of one Gemini stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator
        self._parts: list[_Part] = []

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one chunk (a ``GenerateContentResponse``): candidates in order, each part, then its finish."""
        fields = Fields(number)
        error = event.get("error")
        if error is not None:
            self._accumulator.provider_error(error)
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

    def _candidate(self, candidate: Any, position: int, fields: Fields) -> None:
        where = f"candidates[{position}]"
        fields.record(candidate, where)
        choice = fields.integer(candidate, "index", f"{where}.index")
        if choice is None:
            choice = position
        self._accumulator.touch(choice)
        content = fields.mapping(candidate, "content", f"{where}.content")
        parts = [] if content is None else fields.sequence(content, "parts", f"{where}.content.parts")
        for part_position, part in enumerate(parts):
            self._part(choice, part, f"{where}.content.parts[{part_position}]", fields)
        reason = fields.string(candidate, "finishReason", f"{where}.finishReason")
        if reason is not None:
            kind: FinishKind = "cut" if reason in _CUTTING else "neutral"
            self._accumulator.finish(choice, reason, kind)

    def _part(self, choice: int, part: Any, at: str, fields: Fields) -> None:
        fields.record(part, at)
        call = fields.mapping(part, "functionCall", f"{at}.functionCall")
        if call is not None:
            call_id = fields.string(call, "id", f"{at}.functionCall.id")
            call_name = fields.string(call, "name", f"{at}.functionCall.name")
            arguments = fields.arguments(call, "args", f"{at}.functionCall.args")
            signature = part.get("thoughtSignature")
            extra = () if signature is None else (("thought_signature", signature),)
            self._accumulator.whole_call(choice, Fragment(None, call_id, call_name, _CALL_TYPE, arguments, extra=extra))
            return
        thought = fields.boolean(part, "thought", f"{at}.thought")
        text = fields.string(part, "text", f"{at}.text")
        if text is not None and not thought:
            self._accumulator.text(choice, text)
        self._keep(choice, part)

    def _keep(self, choice: int, part: dict[str, Any]) -> None:
        """A streamed text arrives as many parts: one that only continues the previous one is joined to it."""
        after_calls = self._accumulator.calls_opened()
        joinable = _joinable(part)
        last = self._parts[-1] if self._parts else None
        if joinable and last is not None and last.texts and _continues(last, choice, part, after_calls):
            last.texts.append(part["text"])
            return
        self._parts.append(_Part(choice, after_calls, part, [part["text"]] if joinable else []))


def _joinable(part: dict[str, Any]) -> bool:
    """Plain streamed text: ``{"text"}``, or ``{"text", "thought": true}``."""
    keys = part.keys()
    return isinstance(part.get("text"), str) and (
        keys == _TEXT_ONLY or (keys == _THOUGHT_TEXT and part["thought"] is True)
    )


def _continues(last: _Part, choice: int, part: dict[str, Any], after_calls: int) -> bool:
    """Whether a joinable ``part`` continues ``last`` (itself joinable): same candidate, keys and place among calls."""
    return last.choice == choice and last.after_calls == after_calls and last.value.keys() == part.keys()
