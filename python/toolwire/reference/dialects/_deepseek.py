"""What the DeepSeek dialects share: a section of calls between marker tokens, reasoning in ``<think>``.

DeepSeek's markers are special tokens spelled with full-width bars (U+FF5C) and, for spaces, U+2581
(``<｜tool▁calls▁begin｜>``); ``token`` spells them. A section opens with its start marker and holds calls, whitespace
between them, until its end marker. Right after the start, text that opens no call is a malformed call up to the
next call or the section's end (vLLM keeps such a block as text, which hides that calls were meant); a section that
ends with no call in it is text (``MARKER_IN_TEXT``); after a call, text that neither opens a call nor ends the
section ends it (``MISSING_END_MARKER``) and is text. The stream ending in a section with no call is ``CUT``, after
a call ``MISSING_END_MARKER``: the calls stand. V3/R1 and V3.1 write each call as a header, JSON arguments and a
trailer (``JsonCallParser``), as Kimi K2 does with its own markers and an id; V3.2/V4 write DSML markup
(``deepseek_dsml``).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar, Final

from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._shared import TEXT, FindingCode, JsonReader, Parser, arguments_of, quoted, utf8_len

__all__ = [
    "BAR",
    "CALLS_BEGIN",
    "CALLS_END",
    "CALL_BEGIN",
    "CALL_END",
    "SEP",
    "JsonCallParser",
    "SectionParser",
    "name_token",
    "token",
]

BAR: Final = "\uff5c"
SPACE: Final = "\u2581"


def token(name: str) -> str:
    """The DeepSeek special token ``name``: ``<｜NAME｜>`` with its spaces written as U+2581."""
    return f"<{BAR}{name.replace(' ', SPACE)}{BAR}>"


CALLS_BEGIN: Final = token("tool calls begin")
CALLS_END: Final = token("tool calls end")
CALL_BEGIN: Final = token("tool call begin")
CALL_END: Final = token("tool call end")
SEP: Final = token("tool sep")

_WHITESPACE: Final = " \t\r\n"


class SectionParser(Parser):
    """A section of calls: its start and end markers, what opens a call in it, and what is between calls.

    A dialect sets ``sections`` (each start marker and the end marker that closes it) and ``call_start``, and
    implements ``_begin_call`` (``call_start`` was read), an ``_advance_<state>`` step per state inside a call,
    ``_block_name`` (the name a malformed block writes, if any) and ``_cut_inside``. A call is handed over with
    ``_called``, which returns to the section.
    """

    sections: ClassVar[Mapping[str, str]] = {}
    call_start: ClassVar[str] = ""
    think = ("<think>", "</think>")

    def _open(self, marker: str) -> None:
        self._section_end = self.sections[marker]
        self._held = marker
        self._in_section = 0
        self._state = "section"

    def _advance_section(self) -> bool:
        space = self._skip_whitespace()
        if not self._in_section:
            self._held += space
        if self._pos == len(self._buf):
            return False
        for literal in (self.call_start, self._section_end):
            found = self._starts_with(literal)
            if found is None:
                return False
            if found:
                self._pos += len(literal)
                self._section_marker(literal)
                return True
        if self._in_section:
            self._finding(
                "MISSING_END_MARKER", f"the section of calls was not closed by {self._section_end}", self._calls - 1
            )
            self._state = TEXT
        else:
            self._begin_raw("")
            self._state = "block"
        return True

    def _section_marker(self, marker: str) -> None:
        """``call_start`` or the section's end marker was read (and taken) between calls."""
        if marker == self.call_start:
            self._begin_raw(marker)
            self._begin_call()
        elif self._in_section:
            self._state = TEXT
        else:
            self._text(self._held + marker)
            self._finding("MARKER_IN_TEXT", "a section of calls held no call", None)
            self._state = TEXT

    def _advance_block(self) -> bool:
        marker = self._collect((self.call_start, self._section_end))
        if marker is None:
            return False
        self._called(
            self._block_name(self._raw), self._raw, (("MALFORMED_CALL", f"no {self.call_start} opens the call"),)
        )
        self._section_marker(marker)
        return True

    def _collect(self, markers: tuple[str, ...]) -> str | None:
        """Takes the call's text up to the earliest of ``markers`` (kept in ``_raw`` up to the byte limit)."""
        parts: list[str] = []
        marker = self._release_until(markers, parts.append)
        self._keep("".join(parts))
        return marker

    def _begin_raw(self, text: str) -> None:
        self._raw = ""
        self._raw_bytes = 0
        self._full = False
        self._keep(text)

    def _keep(self, text: str) -> None:
        """Adds ``text`` to the call's text as it arrived, up to the limit on a call's bytes.

        What fits of the text that passes the limit is kept and nothing after it, so that the text kept is the same
        however the stream was split.
        """
        if self._full:
            return
        size = utf8_len(text)
        if self._raw_bytes + size <= self.limits.max_argument_bytes:
            self._raw += text
            self._raw_bytes += size
            return
        for char in text:
            size = utf8_len(char)
            if self._raw_bytes + size > self.limits.max_argument_bytes:
                break
            self._raw += char
            self._raw_bytes += size
        self._full = True

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
        self._in_section += 1
        self._state = "section"

    def _cut(self) -> None:
        if self._state == "section":
            if self._in_section:
                self._finding("MISSING_END_MARKER", f"the stream ended before {self._section_end}", self._calls - 1)
            else:
                self._finding("CUT", "the stream ended inside a section of calls, before its first call", None)
        elif self._state == "block":
            findings: tuple[tuple[FindingCode, str], ...] = (
                ("MALFORMED_CALL", f"no {self.call_start} opens the call"),
                ("CUT", f"the stream ended before {self._section_end}"),
            )
            self._call(self._block_name(self._raw), self._raw, findings=findings, whole=False)
        else:
            self._cut_inside()

    # What a dialect implements.

    @abstractmethod
    def _begin_call(self) -> None: ...

    @abstractmethod
    def _block_name(self, block: str) -> str | None: ...

    @abstractmethod
    def _cut_inside(self) -> None: ...


class JsonCallParser(SectionParser):
    """A call as a header, a JSON object and a trailer, in a section: DeepSeek V3/R1 and V3.1, Kimi K2.

    ``head`` are the markers that end each part of the header (``header`` is what messages call it), ``_header_of``
    reads the name and id from those parts, and ``trail`` are the literals expected (after whitespace) between the
    arguments and ``call_end``. A call is whole when its JSON object closes; a trailer or end marker that does not
    follow is ``MISSING_END_MARKER``. Arguments that break are the malformed call's text up to ``call_end``. A dialect
    whose calls may stand outside a section opens one with ``_open_bare``: it ends with its call and gives the stream
    back to text.
    """

    sections: ClassVar[Mapping[str, str]] = {CALLS_BEGIN: CALLS_END}
    call_start = CALL_BEGIN
    call_end: ClassVar[str] = CALL_END
    starts: ClassVar[tuple[str, ...]] = (CALLS_BEGIN,)
    head: ClassVar[tuple[str, ...]] = ()
    header: ClassVar[str] = "header"
    trail: ClassVar[tuple[str, ...]] = ()

    def _open(self, marker: str) -> None:
        self._bare = False
        super()._open(marker)

    def _open_bare(self, section_end: str) -> None:
        """``call_start`` was read outside a section: the call stands alone, and text follows it."""
        self._bare = True
        self._section_end = section_end
        self._in_section = 0
        self._begin_raw(self.call_start)
        self._begin_call()

    def _begin_call(self) -> None:
        self._parts: list[str] = []
        self._part = ""
        self._name: str | None = None
        self._id: str | None = None
        self._findings: list[tuple[FindingCode, str]] = []
        self._reader = JsonReader(self.limits)
        self._begun = False
        self._state = "head"

    def _advance_head(self) -> bool:
        expected = self.head[len(self._parts)]
        parts: list[str] = []
        marker = self._release_until((expected, *self._ends()), parts.append)
        self._part += "".join(parts)
        self._keep("".join(parts))
        if self._full:
            # Past the limit the call is read on to its end, not kept; where that is does not depend on the split.
            self._findings.append(("TOO_LARGE", f"the call's {self.header} passed the limit on a call's bytes"))
            self._part = ""
            if marker is None or marker == expected:
                self._state = "skip"
            else:
                self._skipped(marker)
            return True
        if marker is None:
            return False
        if marker != expected:
            self._findings.append(("MALFORMED_CALL", f"the call's {self.header} ended before {expected}"))
            self._skipped(marker)
            return True
        self._keep(marker)
        self._parts.append(self._part)
        self._part = ""
        if len(self._parts) < len(self.head):
            return True
        self._name, self._id, problem = self._header_of(self._parts)
        if problem is not None:
            self._findings.append(("MALFORMED_CALL", problem))
        self._state = "arguments"
        return True

    def _ends(self) -> tuple[str, ...]:
        """What ends a call whatever state it is in: its end marker, the next call, the section's end."""
        return (self.call_end, self.call_start, self._section_end)

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
            self._trailed = 0
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
        if marker == self.call_end:
            self._keep(marker)
        self._called(self._name, self._raw, tuple(self._findings), id=self._id)
        if marker == self.call_end:
            return
        if self._state == TEXT:
            # A call outside a section: what ends it is read as text reads it.
            self._pos -= len(marker)
        else:
            self._section_marker(marker)

    def _advance_trail(self) -> bool:
        literals = (*self.trail, self.call_end)
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        found = self._starts_with(literals[self._trailed], at) if at < len(self._buf) else False
        if found is None:
            return False
        if found:
            self._pos = at + len(literals[self._trailed])
            self._trailed += 1
            if self._trailed == len(literals):
                self._state = self._after
        else:
            self._finding("MISSING_END_MARKER", f"no {literals[self._trailed]} after the call", self._calls - 1)
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
        if not self._bare:
            super()._called(name, arguments, findings, whole=whole, id=id)
            return
        self._call(name, arguments, id=id, findings=findings, whole=whole)
        self._state = TEXT

    def _block_name(self, block: str) -> str | None:
        parts: list[str] = []
        for marker in self.head:
            part, found, block = block.partition(marker)
            if not found:
                return None
            parts.append(part)
        name, _, problem = self._header_of(parts)
        return None if problem else name

    @abstractmethod
    def _header_of(self, parts: list[str]) -> tuple[str | None, str | None, str | None]:
        """The function's name and the call's id the header's ``parts`` write, or why they write none."""

    def _cut_inside(self) -> None:
        if self._state == "arguments":
            self._keep(self._reader.text)
        findings = (*self._findings, ("CUT", f"the stream ended before {self.call_end}"))
        self._call(self._name, self._raw, id=self._id, findings=findings, whole=False)


def name_token(text: str) -> tuple[str | None, str | None]:
    """``text`` as a function's name (whitespace around it aside), or why it is none: empty, or with whitespace."""
    name = text.strip()
    if not name or any(char in _WHITESPACE for char in name):
        return None, f"{quoted(text)} is not a function name"
    return name, None
