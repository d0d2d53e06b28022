"""The Ollama decoder (NDJSON, choice 0): ``/api/chat``'s messages and ``/api/generate``'s ``response`` lines.

Each ``message.tool_calls`` entry is a whole call; ``message.content`` and ``response`` are text. The rules are
those of ``docs/semantics.md`` ("ollama"): the two endpoints share one line grammar (``done``, ``done_reason``, the
statistics of the last line, ``error``) and differ only in where the text is. Ollama sends ``done_reason: "stop"``
with calls, so only ``length`` means anything: the stream was cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._model import OutputItem
from toolwire.reference._accumulator import Accumulator, Fragment
from toolwire.reference._fields import Fields
from toolwire.reference.decode._shared import reported_error

_CALL_TYPE = "function"


class OllamaDecoder:
    """The state of one Ollama stream."""

    def __init__(self, accumulator: Accumulator) -> None:
        """Feed ``accumulator``."""
        self._accumulator = accumulator

    @staticmethod
    def identifies(event: Mapping[str, Any], kind: str | None) -> bool:
        """A line with ``done`` and ``message`` (``/api/chat``) or ``response`` (``/api/generate``)."""
        return event.get("done") is not None and (event.get("message") is not None or event.get("response") is not None)

    def read(self, event: dict[str, Any], number: int, name: str | None = None) -> None:
        """Apply one line: an error, or the message's calls and text and the ``response`` text, then a ``done`` finish."""
        fields = Fields(number)
        if reported_error(self._accumulator, event):
            return
        self._accumulator.touch(0)
        message = fields.mapping(event, "message", "message")
        if message is not None:
            for position, entry in enumerate(fields.sequence(message, "tool_calls", "message.tool_calls")):
                self._call(entry, f"message.tool_calls[{position}]", fields)
            content = fields.string(message, "content", "message.content")
            if content:
                self._accumulator.text(0, content)
        response = fields.string(event, "response", "response")
        if response:
            self._accumulator.generated_text(0, response)
        if fields.boolean(event, "done", "done"):
            reason = fields.string(event, "done_reason", "done_reason")
            self._accumulator.usage(event)
            if reason is not None:
                self._accumulator.finish(0, reason, "cut" if reason == "length" else "neutral")

    def end(self) -> None:
        """Nothing is held back in this format."""

    def output(self) -> tuple[OutputItem, ...]:
        """Ollama sends nothing but text and calls."""
        return ()

    def usage(self) -> None:
        """The usage is the last one sent (the accumulator keeps it)."""

    def _call(self, entry: Any, at: str, fields: Fields) -> None:
        fields.record(entry, at)
        call_id = fields.string(entry, "id", f"{at}.id")
        function = fields.mapping(entry, "function", f"{at}.function") or {}
        call_name = fields.string(function, "name", f"{at}.function.name")
        arguments = fields.arguments(function, "arguments", f"{at}.function.arguments")
        self._accumulator.whole_call(0, Fragment(None, call_id, call_name, _CALL_TYPE, arguments))
