"""``kimi_k2``: Kimi K2 and K2-Thinking, ``<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}``.

Calls sit in ``<|tool_calls_section_begin|>`` … ``<|tool_calls_section_end|>`` (the singular
``<|tool_call_section_begin|>`` occurs too, llama.cpp#17376), each ``<|tool_call_begin|>ID<|tool_call_argument_begin|>``
then a JSON object and ``<|tool_call_end|>``; the section's rules are ``_deepseek``'s, whose machinery this dialect
shares. The id ``functions.NAME:IDX`` (or ``NAME:IDX``) is kept as the call's id and names the call; an id that names
nothing is a malformed call, never a name guessed from the arguments (as vLLM's bare counters are). A call is whole
when its object closes. K2-Thinking writes calls inside an unclosed ``<think>``, sometimes with neither section
markers nor ``<|tool_call_end|>``: a call marker ends reasoning, and a call outside a section stands
(``MISSING_START_MARKER``), ended by its object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._deepseek import SectionParser, name_token
from toolwire.reference.dialects._shared import TEXT, FindingCode, JsonReader, arguments_of, quoted

__all__ = [
    "ARGUMENT_BEGIN",
    "CALL_BEGIN",
    "CALL_END",
    "SECTION_BEGIN",
    "SECTION_BEGIN_SINGULAR",
    "SECTION_END",
    "KimiK2Parser",
    "call_id",
]

SECTION_BEGIN: Final = "<|tool_calls_section_begin|>"
SECTION_BEGIN_SINGULAR: Final = "<|tool_call_section_begin|>"
SECTION_END: Final = "<|tool_calls_section_end|>"
CALL_BEGIN: Final = "<|tool_call_begin|>"
ARGUMENT_BEGIN: Final = "<|tool_call_argument_begin|>"
CALL_END: Final = "<|tool_call_end|>"

_PREFIX: Final = "functions."
_WHITESPACE: Final = " \t\r\n"


def call_id(header: str) -> tuple[str | None, str | None, str | None]:
    """The id a call's header writes (whitespace around it aside), the name it gives, and why it gives none.

    ``functions.NAME:IDX`` or ``NAME:IDX``, IDX digits: the name is what lies between the prefix and the last ``:``.
    """
    text = header.strip()
    name, colon, index = text.removeprefix(_PREFIX).rpartition(":")
    if not colon or not index.isascii() or not index.isdigit():
        return None, None, f"the call id {quoted(text)} is not functions.NAME:IDX"
    found, problem = name_token(name)
    if problem is not None:
        return None, None, f"the call id {quoted(text)} names no function"
    return text, found, None


class KimiK2Parser(SectionParser):
    """The ``kimi_k2`` dialect."""

    sections: ClassVar[Mapping[str, str]] = {SECTION_BEGIN: SECTION_END, SECTION_BEGIN_SINGULAR: SECTION_END}
    call_start = CALL_BEGIN
    starts = (SECTION_BEGIN, SECTION_BEGIN_SINGULAR, CALL_BEGIN)
    call_ends_reasoning = True

    def _open(self, marker: str) -> None:
        self._bare = marker == CALL_BEGIN
        if not self._bare:
            super()._open(marker)
            return
        self._section_end = SECTION_END
        self._in_section = 0
        self._begin_raw(marker)
        self._begin_call()
        self._findings.append(("MISSING_START_MARKER", f"a call outside a {SECTION_BEGIN} section"))

    def _begin_call(self) -> None:
        self._id: str | None = None
        self._name: str | None = None
        self._findings: list[tuple[FindingCode, str]] = []
        self._reader = JsonReader(self.limits)
        self._begun = False
        self._state = "head"

    def _ends(self) -> tuple[str, ...]:
        """What ends a call whatever state it is in: its end marker, the next call, the section's end."""
        return (CALL_END, CALL_BEGIN, SECTION_END)

    def _advance_head(self) -> bool:
        marker = self._collect((ARGUMENT_BEGIN, *self._ends()))
        if self._full:
            # Past the limit the call is read on to its end, not kept; where that is does not depend on the split.
            self._findings.append(("TOO_LARGE", "the call's id passed the limit on a call's bytes"))
            if marker is None or marker == ARGUMENT_BEGIN:
                self._state = "skip"
            else:
                self._skipped(marker)
            return True
        if marker is None:
            return False
        if marker != ARGUMENT_BEGIN:
            self._findings.append(("MALFORMED_CALL", f"the call's id ended before {ARGUMENT_BEGIN}"))
            self._skipped(marker)
            return True
        self._id, self._name, problem = call_id(self._raw[len(CALL_BEGIN) :])
        if problem is not None:
            self._findings.append(("MALFORMED_CALL", problem))
        self._keep(marker)
        self._state = "arguments"
        return True

    def _advance_arguments(self) -> bool:
        if not self._begun:
            self._keep(self._skip_whitespace())
            if self._pos == len(self._buf):
                return False
            self._begun = True
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            arguments, findings = arguments_of(self._reader)
            self._called(self._name, arguments, (*self._findings, *findings), id=self._id)
            self._after = self._state
            self._state = "trail"
            return True
        if state == INVALID:
            self._keep(self._reader.text)
            self._findings.append(("INVALID_ARGUMENTS", "the arguments are not JSON"))
            self._state = "skip"
            return True
        return False

    def _advance_skip(self) -> bool:
        marker = self._collect(self._ends())
        if marker is None:
            return False
        self._skipped(marker)
        return True

    def _skipped(self, marker: str) -> None:
        """The malformed call ended at ``marker``: handed over, and ``marker`` read as what it is."""
        if marker == CALL_END:
            self._keep(marker)
        self._called(self._name, self._raw, tuple(self._findings), id=self._id)
        if marker == CALL_END:
            return
        if self._state == TEXT:
            # A call outside a section: what ends it is read as text reads it.
            self._pos -= len(marker)
        else:
            self._section_marker(marker)

    def _advance_trail(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        found = self._starts_with(CALL_END, at) if at < len(self._buf) else False
        if found is None:
            return False
        if found:
            self._pos = at + len(CALL_END)
        else:
            self._finding("MISSING_END_MARKER", f"no {CALL_END} after the call", self._calls - 1)
        self._state = self._after
        return True

    def _called(
        self,
        name: str | None,
        arguments: str,
        findings: tuple[tuple[FindingCode, str], ...],
        *,
        whole: bool = True,
        id: str | None = None,
    ) -> None:
        self._call(name, arguments, id=id, findings=findings, whole=whole)
        if self._bare:
            self._state = TEXT
        else:
            self._in_section += 1
            self._state = "section"

    def _block_name(self, block: str) -> str | None:
        header, found, _ = block.partition(ARGUMENT_BEGIN)
        return call_id(header)[1] if found else None

    def _cut_inside(self) -> None:
        if self._state == "arguments":
            self._keep(self._reader.text)
        findings = (*self._findings, ("CUT", f"the stream ended before {CALL_END}"))
        self._call(self._name, self._raw, id=self._id, findings=findings, whole=False)
