"""``hermes``: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Hermes 2 Pro/3, Qwen2.5/Qwen3, Granite 4).

A call is whole when its JSON object closes; ``</tool_call>`` is then expected after whitespace (its absence is
``MISSING_END_MARKER``, and what follows is text). Reasoning is ``<think>…</think>``; a call written inside it is
reasoning text, as Reka's and Qwen3's templates make it. A start marker not followed by ``{`` is prose.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._shared import TEXT, FindingCode, JsonReader, Parser, json_call, leading_name

__all__ = ["HermesParser"]

_START: Final = "<tool_call>"
_END: Final = "</tool_call>"


class HermesParser(Parser):
    """The ``hermes`` dialect."""

    starts = (_START,)
    think = ("<think>", "</think>")

    def _open(self, marker: str) -> None:
        self._held = marker
        self._reader = JsonReader(self.limits)
        self._broken = ""
        self._state = "open"

    def _advance_open(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == "{":
            self._state = "json"
            return True
        self._text(self._held)
        self._finding("MARKER_IN_TEXT", f"{_START} was not followed by a JSON object", None)
        self._state = TEXT
        return True

    def _advance_json(self) -> bool:
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            name, arguments, _, findings = json_call(self._reader, ("arguments",))
            self._call(name, arguments, findings=findings)
            self._state = "after"
            return True
        if state == INVALID:
            # The block's text up to its end marker (or the next call's start) is the malformed call.
            self._broken = self._reader.text
            self._state = "broken"
            return True
        return False

    def _advance_broken(self) -> bool:
        parts: list[str] = []
        marker = self._release_until((_END, _START), parts.append)
        self._broken += "".join(parts)
        if marker is None:
            return False
        self._call(leading_name(self._broken), self._broken, findings=(("MALFORMED_CALL", "the call is not JSON"),))
        if marker == _START:
            self._open(marker)
        else:
            self._state = TEXT
        return True

    def _advance_after(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in " \t\r\n":
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        closed = self._starts_with(_END, at) if at < len(self._buf) else False
        if closed is None:
            return False
        if closed:
            self._pos = at + len(_END)
        else:
            self._finding("MISSING_END_MARKER", f"no {_END} after the call", self._calls - 1)
        self._state = TEXT
        return True

    def _cut(self) -> None:
        findings: tuple[tuple[FindingCode, str], ...]
        if self._state == "broken":
            body = self._broken
            findings = (("MALFORMED_CALL", "the call is not JSON"), ("CUT", f"the stream ended before {_END}"))
        else:
            body = self._reader.text
            findings = (("CUT", "the stream ended inside the call"),)
        self._call(leading_name(body), body, whole=False, findings=findings)
