"""``qwen3_coder``: ``<tool_call><function=NAME><parameter=K>V</parameter>…</function></tool_call>``, and ``seed_oss``.

Qwen3-Coder, Qwen3.5/3.6, Nemotron 3 Nano and StepFun 3.5 write it; ByteDance Seed-OSS wraps the same body in
``<seed:tool_call>`` and reasons in ``<seed:think>``. Values are raw text typed by the tool's schema
(``_raw_values``): one newline right after ``>`` is a delimiter, and then so is one right before ``</parameter>``;
all other whitespace is the value's. ``</parameter>`` ends a value only when ``<parameter=`` or ``</function>``
follows it (after whitespace), so a value may hold the tag; a value that runs into ``<parameter=`` at the start of a
line ends there (``MISSING_END_MARKER``). A call is whole at ``</function>``. ``<function=`` without the start
marker opens a call (``MISSING_START_MARKER``). For Qwen3.5, whose prompt opens reasoning, a call ends reasoning
without ``</think>``.
"""

from __future__ import annotations

from typing import ClassVar, Final

from toolwire.reference.dialects._raw_values import typed_arguments
from toolwire.reference.dialects._shared import TEXT, FindingCode, Parser, quoted, utf8_len

__all__ = ["Qwen3CoderParser", "SeedOssParser"]

_FUNCTION: Final = "<function="
# The characters a message quotes of what stands where a tag belongs.
_SHOWN: Final = 20


class Qwen3CoderParser(Parser):
    """The ``qwen3_coder`` dialect."""

    start: ClassVar[str] = "<tool_call>"
    end: ClassVar[str] = "</tool_call>"
    # The body's tags, which MiniMax spells otherwise (``minimax_m2``).
    function: ClassVar[str] = _FUNCTION
    parameter: ClassVar[str] = "<parameter="
    value_end: ClassVar[str] = "</parameter>"
    function_end: ClassVar[str] = "</function>"
    # Whether one newline at each end of a value is a delimiter (the templates write values on their own line).
    newline_delimited: ClassVar[bool] = True
    # Whether a block holds several calls, so that the next function tag may follow a call's end tag.
    several_per_block: ClassVar[bool] = False
    starts = ("<tool_call>", _FUNCTION)
    think = ("<think>", "</think>")
    call_ends_reasoning = True

    def _open(self, marker: str) -> None:
        self._held = marker
        self._marked = marker != self.function
        self._name: str | None = None
        self._key = ""
        self._parameters: list[tuple[str, str]] = []
        self._findings: list[tuple[FindingCode, str]] = []
        if not self._marked:
            self._findings.append(("MISSING_START_MARKER", f"{self.function} came without {self.start}"))
        self._raw = marker
        self._size = self._searched = self._measured = self._pending = self._counted = self._bytes = 0
        self._overflow = False
        self._state = "open" if self._marked else "name"

    @property
    def run_on(self) -> str:
        """A parameter tag at a line's start: it ends a value whose end tag is missing."""
        return "\n" + self.parameter

    @property
    def lookback(self) -> int:
        """How far back a search starts again: a marker may straddle what was searched and what arrived."""
        return max(len(self.value_end), len(self.run_on))

    def _tag_value(self, text: str) -> str | None:
        """The name a tag's text (up to its ``>``) gives, None when it gives none (``minimax_m2`` quotes it)."""
        return text or None

    def _advance_open(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf) or (self._final and self.function.startswith(self._rest)):
            return False  # the end of the stream cuts the call here
        opened = self._starts_with(self.function)
        if opened is None:
            return False
        if opened:
            self._pos += len(self.function)
            self._raw = self._held + self.function
            self._state = "name"
            return True
        self._text(self._held)
        self._finding("MARKER_IN_TEXT", f"{self.start} was not followed by {self.function}", None)
        self._state = TEXT
        return True

    def _tag_name(self) -> str | None:
        """The name of a ``<function=``/``<parameter=`` tag up to its ``>`` (taken); None while unread or broken.

        A tag broken by a newline or ``<`` before its ``>`` sends the call to ``skip``.
        """
        rest = self._rest
        for at, char in enumerate(rest):
            if char == ">":
                self._raw += rest[: at + 1]
                self._pos += at + 1
                name = self._tag_value(rest[:at])
                if name is not None:
                    return name
                self._malformed(
                    f"a tag whose name is not in double quotes: {quoted(rest[:at])}" if at else "a tag with no name"
                )
                return None
            if char in "\n<":
                self._raw += rest[:at]
                self._pos += at
                self._malformed(f"a tag without '>': {quoted(rest[:at])}")
                return None
        return None

    def _malformed(self, why: str) -> None:
        self._findings.append(("MALFORMED_CALL", why))
        self._state = "skip"

    def _advance_name(self) -> bool:
        before = self._state
        name = self._tag_name()
        if name is not None:
            self._name = name
            self._state = "body"
        return self._state != before

    def _advance_body(self) -> bool:
        self._raw += self._skip_whitespace()
        for literal, state in ((self.parameter, "parameter"), (self.function_end, "whole")):
            found = self._starts_with(literal)
            if found is None:
                return False
            if found:
                self._pos += len(literal)
                self._raw += literal
                if state == "whole":
                    self._whole()
                else:
                    self._state = "key"
                return True
        arrived = len(self._buf) - self._pos
        if arrived == 0 or (arrived < _SHOWN and not self._final):
            return False  # the message quotes what stands here: as much of it whatever the split
        self._malformed(f"{quoted(self._rest[:_SHOWN])} where a parameter or {self.function_end} belongs")
        return True

    def _advance_key(self) -> bool:
        key = self._tag_name()
        if key is None:
            return self._state != "key"
        self._key = key
        self._state = "value"
        self._searched = self._measured = self._pending = self._counted = self._bytes = 0
        return True

    def _advance_value(self) -> bool:
        buf, start = self._buf, self._pos
        # Only what arrived since the last look is searched again (less a marker's length, which may straddle);
        # the cursor stays at the value's start until it is taken, so the value's offsets count from it.
        at = start + max(0, self._searched - self.lookback)
        while True:
            close = buf.find(self.value_end, at)
            run_on = buf.find(self.run_on, at)
            if run_on >= 0 and (close < 0 or run_on < close):
                self._take_value(buf[start : run_on + 1], run_on + 1)
                self._findings.append(
                    ("MISSING_END_MARKER", f"the parameter {quoted(self._key)} had no {self.value_end}")
                )
                return True
            if close < 0:
                break
            after = close + len(self.value_end)
            while after < len(buf) and buf[after] in " \t\r\n":
                after += 1
            ends = [self._starts_with(literal, after) for literal in (self.parameter, self.function_end)]
            if True in ends or (after == len(buf) and self._final):
                self._take_value(buf[start:close], close + len(self.value_end))
                return True
            if None in ends or after == len(buf):
                self._searched = close - start
                return False
            at = close + 1
        self._searched = len(buf) - start
        if not self._overflow:
            # The value's bytes so far, less an end that may start its end tag (which the value does not hold): its
            # last `lookback - 1` bytes, as the core counts them (characters would count a wide one as one byte).
            self._bytes += utf8_len(buf[start + self._counted :])
            self._counted = len(buf) - start
            measured = max(self._measured, self._bytes - (self.lookback - 1))
            self._pending += measured - self._measured
            self._measured = measured
            if self._size + self._pending <= self.limits.max_argument_bytes:
                return False
            self._too_large()
        # The value passed the limit: it is still read to its end (where the call goes on whatever the split), and
        # what was searched goes, less what may start a marker.
        dropped = max(0, self._searched - self.lookback)
        self._pos += dropped
        self._searched -= dropped
        return False

    def _too_large(self) -> None:
        self._findings.append(("TOO_LARGE", "the call's values passed the limit on a call's bytes"))
        # Nothing of the call is kept: where the limit was found depends on how the text was split.
        self._raw = ""
        self._overflow = True

    def _take_value(self, raw: str, resume: int) -> None:
        if not self._overflow:
            self._size += utf8_len(raw)
            if self._size > self.limits.max_argument_bytes:
                self._too_large()
        if self._overflow:
            self._pos = resume
            self._state = "skip"
            return
        self._raw += self._buf[self._pos : resume]
        self._pos = resume
        if self.newline_delimited and raw.startswith("\n"):
            raw = raw[1:].removesuffix("\n")
        if any(key == self._key for key, _ in self._parameters):
            self._findings.append(
                ("MALFORMED_CALL", f"the parameter {quoted(self._key)} is given twice; the first is kept")
            )
        else:
            self._parameters.append((self._key, raw))
        self._state = "body"

    def _advance_skip(self) -> bool:
        parts: list[str] = []
        found = self._release_until((self.function_end,), parts.append)
        self._keep("".join(parts) + (found or ""))
        if found is None:
            return False
        self._whole()
        return True

    def _keep(self, text: str) -> None:
        """Adds ``text`` to the call's text, which stands for its arguments; past the limit, nothing is kept."""
        if self._overflow:
            return
        if utf8_len(self._raw) + utf8_len(text) > self.limits.max_argument_bytes:
            self._findings.append(("TOO_LARGE", "the call's text passed the limit on a call's bytes"))
            self._raw = ""
            self._overflow = True
            return
        self._raw += text

    def _whole(self) -> None:
        """``</function>``: the call is whole; its values are typed and it is handed over."""
        findings = self._findings
        if self._state == "skip":
            self._call(self._name, self._raw, findings=tuple(findings))
        else:
            self._call(self._name, self._typed(findings), findings=tuple(findings))
        self._state = "end"

    def _typed(self, findings: list[tuple[FindingCode, str]]) -> str:
        return typed_arguments(self._parameters, self._schema(self._name), findings, self.limits.max_depth)

    def _advance_end(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in " \t\r\n":
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        if self.several_per_block and self._marked and at < len(self._buf):
            following = self._starts_with(self.function, at)
            if following is None:
                return False
            if following:
                # The block's next call: read as the first was, from its function tag on.
                self._open(self.start)
                self._held = ""
                return True
        closed = self._starts_with(self.end, at) if at < len(self._buf) else False
        if closed is None:
            return False
        if closed:
            self._pos = at + len(self.end)
        elif self._marked:
            self._finding("MISSING_END_MARKER", f"no {self.end} after the call", self._calls - 1)
        self._state = TEXT
        return True

    def _cut(self) -> None:
        if self._state == "value" and not self._overflow:
            self._raw += self._rest
        findings = (*self._findings, ("CUT", f"the stream ended before {self.function_end}"))
        self._call(self._name, self._raw, whole=False, findings=findings)


class SeedOssParser(Qwen3CoderParser):
    """The ``seed_oss`` dialect: ``qwen3_coder``'s body in ``<seed:tool_call>``, reasoning in ``<seed:think>``."""

    start = "<seed:tool_call>"
    end = "</seed:tool_call>"
    starts = ("<seed:tool_call>", _FUNCTION)
    think = ("<seed:think>", "</seed:think>")
    call_ends_reasoning = False
