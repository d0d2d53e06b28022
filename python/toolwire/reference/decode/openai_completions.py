"""The legacy completions decoder (``/v1/completions``, ``stream: true``): each choice carries generated ``text``.

The rules are those of ``docs/semantics.md`` ("openai-completions"). The endpoint has no tool calls: a model served
over it writes its calls into its text, which is kept whole, per choice (``n`` > 1 choices keyed by their ``index``).
Its finish reasons say why generation stopped, never whether calls were made, so only the cuts mean anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._model import OutputItem
from toolwire.formats.openai_completions import OBJECT
from toolwire.reference._accumulator import Accumulator, FinishKind
from toolwire.reference._fields import Fields
from toolwire.reference.decode._shared import error_object, reported_error

_CUTTING = frozenset({"length", "content_filter"})


def finish_kind(reason: str) -> FinishKind:
    """``length`` and ``content_filter`` cut; any other is neutral (``stop`` too: calls written in text stop so)."""
    return "cut" if reason in _CUTTING else "neutral"


def undecided(event: Mapping[str, Any]) -> bool:
    """Whether a chunk decides nothing between this format and chat: empty ``choices``, no ``object`` naming either.

    A completions stream may open with a usage-only or empty chunk (as Azure's chat stream opens with its
    ``prompt_filter_results``), and chat's hint takes any ``choices``: such a chunk must not decide the stream's format.
    It carries nothing either format reads differently (no choice; its ``usage`` is kept as sent by both).
    """
    kind = event.get("object")
    named = isinstance(kind, str) and (kind == OBJECT or kind.startswith("chat.completion"))
    choices = event.get("choices")
    return not named and isinstance(choices, list) and not choices


class OpenAiCompletionsDecoder:
    """The state of one completions stream: none, each choice's text is the accumulator's."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """A ``text_completion`` object, or ``choices`` whose first entry has ``text`` and no ``delta``.

        Asked before chat's hint, which takes any ``choices``: a chat chunk's choices have a ``delta``.
        """
        if event.get("object") == OBJECT:
            return True
        choices = event.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            return False
        return choices[0].get("text") is not None and choices[0].get("delta") is None

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one chunk: an error, or each choice's text and finish, then the usage.

        An error is an ``error`` member, or the chunk is vLLM's error object (``error_object``: the whole chunk is its
        payload).
        """
        fields = Fields(number)
        if reported_error(self._accumulator, event):
            return
        if error_object(event):
            self._accumulator.provider_error(event)
            return
        for position, entry in enumerate(fields.sequence(event, "choices", "choices")):
            where = f"choices[{position}]"
            choice = fields.record(entry, where)
            choice_number = fields.integer(choice, "index", f"{where}.index")
            if choice_number is None:
                choice_number = position
            if not self._accumulator.choice_entry(choice_number):
                continue  # a choice past Limits.max_choices: counted, not read
            text = fields.string(choice, "text", f"{where}.text")
            if text is not None:
                self._accumulator.generated_text(choice_number, text)
            reason = fields.string(choice, "finish_reason", f"{where}.finish_reason")
            if reason is not None:
                self._accumulator.finish(choice_number, reason, finish_kind(reason))
        usage = event.get("usage")
        if usage is not None:
            self._accumulator.usage(usage)

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """The completions stream sends nothing but text."""
        return ()

    def usage(self) -> None:
        """The usage is the last one sent (the accumulator keeps it)."""
