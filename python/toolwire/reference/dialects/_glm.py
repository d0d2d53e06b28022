"""What ``glm45`` and ``glm47`` share: ``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>``.

One grammar, whitespace optional between its parts: GLM-4.5/4.6 write a newline (and sometimes indentation) after
the name and around each tag, GLM-4.7 writes none. The name runs from the start marker (after whitespace) to
whitespace or ``<``; it is known only at its end, so ``get`` is never taken for ``get_weather``. What follows it
decides what the marker was: ``<arg_key>`` or ``</tool_call>`` opens a call, another of the dialect's tags makes a
malformed call (``NAMEkey</arg_key>``, the model forgetting ``<arg_key>``), anything else is prose that mentions the
marker (``MARKER_IN_TEXT``). Values are raw text typed by the tool's schema (``_raw_values``), kept exactly: the
templates write them inline, so no whitespace is a delimiter. ``</arg_value>`` ends a value only when ``<arg_key>`` or
``</tool_call>`` follows it (after whitespace), so a value may hold the tag. A call is whole at ``</tool_call>``, its
only end. Reasoning is ``<think>…</think>``.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference.dialects._raw_values import typed_arguments
from toolwire.reference.dialects._shared import TEXT, FindingCode, Parser, quoted, utf8_len

__all__ = ["GlmParser"]

START: Final = "<tool_call>"
END: Final = "</tool_call>"
KEY: Final = "<arg_key>"
KEY_END: Final = "</arg_key>"
VALUE: Final = "<arg_value>"
VALUE_END: Final = "</arg_value>"
# The dialect's own tags: one of them right after a name means a call was meant, however damaged.
_TAGS: Final = (KEY, END, VALUE, KEY_END, VALUE_END)
_WHITESPACE: Final = " \t\r\n"


class GlmParser(Parser):
    """The GLM grammar; ``glm45`` and ``glm47`` differ in whether a call ends reasoning."""

    starts = (START,)
    think = ("<think>", "</think>")

    def _open(self, marker: str) -> None:
        self._raw: list[str] = [marker]
        self._size = utf8_len(marker)
        self._overflow = False
        self._name: str | None = None
        self._key: list[str] = []
        self._value: list[str] = []
        # `</arg_value>` and the whitespace after it: the value's end, or its text if no key or end tag follows.
        self._ended: list[str] = []
        self._pairs: list[tuple[str, str]] = []
        self._keys: set[str] = set()
        self._findings: list[tuple[FindingCode, str]] = []
        # The head (whitespace, name, whitespace) is scanned before anything is taken, as the marker may be prose.
        self._scanned = 0
        self._head_bytes = 0
        self._name_start: int | None = None
        self._name_end: int | None = None
        self._state = "head"

    def _tag(self, tags: tuple[str, ...], at: int | None = None) -> str | None:
        """The tag of ``tags`` at ``at`` (the cursor); None while the text there may still become one, "" if not."""
        at = self._pos if at is None else at
        rest = self._buf[at : at + max(map(len, tags))]
        for tag in tags:
            if rest.startswith(tag):
                return tag
        return None if any(tag.startswith(rest) for tag in tags) else ""

    def _consume(self, end: int, into: list[str] | None = None) -> bool:
        """Takes the call's text up to ``end`` (into ``into`` too); False when it passed the limit on a call's bytes.

        The limit is placed on the character that passes it, so the call is skipped from the same place however
        the text was split.
        """
        chunk = self._buf[self._pos : end]
        if self._overflow:
            self._pos = end
            return True
        if self._size + utf8_len(chunk) > self.limits.max_argument_bytes:
            for at, char in enumerate(chunk):
                self._size += utf8_len(char)
                if self._size > self.limits.max_argument_bytes:
                    self._pos += at
                    break
            self._findings.append(("TOO_LARGE", "the call's text passed the limit on a call's bytes"))
            # Nothing of the call is kept, as for the other raw-value dialects.
            self._raw = []
            self._overflow = True
            self._state = "skip"
            return False
        self._size += utf8_len(chunk)
        self._raw.append(chunk)
        if into is not None:
            into.append(chunk)
        self._pos = end
        return True

    def _malformed(self, why: str) -> None:
        self._findings.append(("MALFORMED_CALL", why))
        self._state = "skip"

    def _advance_head(self) -> bool:
        at = self._scan_head()
        if at is None:
            # A name no call could carry: the marker was prose (decided on one character, whatever the split).
            return self._in_text()
        if at == len(self._buf):
            return False
        tag = self._tag(_TAGS, at)
        if tag is None:
            return False
        name = self._head_name()
        if not tag:
            return self._in_text()
        if not self._consume(at):
            return True
        if tag in (KEY, END) and name:
            self._name = name
            self._take_next(tag)
        else:
            self._malformed(
                f"{tag} after {quoted(name)}, where a name and {KEY} or {END} belong" if name else "no name"
            )
        return True

    def _scan_head(self) -> int | None:
        """Where the head (whitespace, name, whitespace) ends so far; None once it passed the limit on a call's bytes.

        What was scanned is not scanned again when more text arrives.
        """
        buf, pos = self._buf, self._pos
        at = pos + self._scanned
        while at < len(buf):
            char = buf[at]
            named = self._name_start is not None
            if char in "<>" or (char not in _WHITESPACE and self._name_end is not None):
                if named and self._name_end is None:
                    self._name_end = at - pos
                break
            if char in _WHITESPACE:
                if named and self._name_end is None:
                    self._name_end = at - pos
            elif not named:
                self._name_start = at - pos
            self._head_bytes += utf8_len(char)
            if self._head_bytes > self.limits.max_argument_bytes:
                return None
            at += 1
        self._scanned = at - pos
        return at

    def _head_name(self) -> str:
        """The name the head holds, "" when none was read whole."""
        if self._name_start is None or self._name_end is None:
            return ""
        return self._buf[self._pos + self._name_start : self._pos + self._name_end]

    def _in_text(self) -> bool:
        self._text("".join(self._raw))
        self._finding("MARKER_IN_TEXT", f"{START} was not followed by a name and {KEY} or {END}", None)
        self._state = TEXT
        return True

    def _take_next(self, tag: str) -> None:
        """Takes ``<arg_key>`` or ``</tool_call>``, read at the cursor after a name or a value."""
        if not self._consume(self._pos + len(tag)):
            return
        if tag == END:
            self._whole()
        else:
            self._key = []
            self._state = "key"

    def _advance_key(self) -> bool:
        buf, start = self._buf, self._pos
        at = start
        while at < len(buf) and buf[at] not in "<\n":
            at += 1
        if not self._consume(at, self._key):
            return True
        if at == len(buf):
            return at > start
        tag = self._tag((KEY_END,)) if buf[at] == "<" else ""
        if tag is None:
            return at > start
        key = "".join(self._key)
        if not tag or not key:
            self._malformed(f"a key {quoted(key)} not closed by {KEY_END}" if not tag else "a key with no text")
        elif self._consume(self._pos + len(tag)):
            self._state = "before_value"
        return True

    def _advance_before_value(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if not self._consume(at):
            return True
        tag = self._tag((VALUE,))
        if tag is None:
            return at > self._pos
        key = "".join(self._key)
        if not tag:
            self._malformed(f"the key {quoted(key)} has no {VALUE}")
        elif self._consume(self._pos + len(tag)):
            self._value = []
            self._state = "value"
        return True

    def _advance_value(self) -> bool:
        buf, start = self._buf, self._pos
        close = buf.find(VALUE_END, start)
        if close < 0:
            # Only the end that may still become the end tag waits.
            held = buf.rfind("<", start)
            end = held if held >= 0 and VALUE_END.startswith(buf[held:]) else len(buf)
            self._consume(end, self._value)
            return end > start
        if self._consume(close, self._value) and self._consume(close + len(VALUE_END), self._ended):
            self._state = "after_value"
        return True

    def _advance_after_value(self) -> bool:
        """After ``</arg_value>``: the value ends if ``<arg_key>`` or ``</tool_call>`` follows (after whitespace).

        The whitespace is taken as it arrives (it counts toward the limit whatever it turns out to be), so that none
        is scanned twice.
        """
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if not self._consume(at, self._ended):
            return True
        tag = self._tag((KEY, END))
        if tag is None:
            return False
        ended, self._ended = self._ended, []
        if tag:
            self._pair()
            self._take_next(tag)
        else:
            # The end tag is the value's text: what follows it is no part of the call's structure.
            self._value += ended
            self._state = "value"
        return True

    def _pair(self) -> None:
        key = "".join(self._key)
        if key in self._keys:
            self._findings.append(("MALFORMED_CALL", f"the parameter {quoted(key)} is given twice; the first is kept"))
        else:
            self._keys.add(key)
            self._pairs.append((key, "".join(self._value)))

    def _advance_skip(self) -> bool:
        buf, start = self._buf, self._pos
        close = buf.find(END, start)
        if close < 0:
            held = buf.rfind("<", start)
            end = held if held >= 0 and END.startswith(buf[held:]) else len(buf)
            self._consume(end)
            return end > start
        # Past the limit, the call is skipped from the character that passed it: to this end tag unless it was one
        # of the tag's own characters.
        if self._consume(close + len(END)):
            self._whole()
        return True

    def _whole(self) -> None:
        """``</tool_call>``: the call is whole; its values are typed and it is handed over."""
        findings = self._findings
        if self._state == "skip":
            self._call(self._name, "".join(self._raw), findings=tuple(findings))
        else:
            arguments = typed_arguments(self._pairs, self._schema(self._name), findings, self.limits.max_depth)
            self._call(self._name, arguments, findings=tuple(findings))
        self._state = TEXT

    def _cut(self) -> None:
        if self._state == "head":
            # A name whose end was read (whitespace after it) is known though no tag followed.
            self._name = self._head_name() or None
        raw = "" if self._overflow else "".join(self._raw) + self._rest
        findings = (*self._findings, ("CUT", f"the stream ended before {END}"))
        self._call(self._name, raw, whole=False, findings=findings)
