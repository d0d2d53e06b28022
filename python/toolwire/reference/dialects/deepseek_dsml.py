"""``deepseek_dsml``: DeepSeek V3.2 and V4, calls in DSML markup with typed parameters.

``<｜DSML｜function_calls>`` (V4: ``<｜DSML｜tool_calls>``) holds ``<｜DSML｜invoke name="NAME">`` elements, each with
``<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>`` per argument, or a JSON object as its body
(SGLang's tests), closed by ``</｜DSML｜invoke>``, where the call is whole; the section's rules are ``_deepseek``'s. The
markup types each value: ``string="true"`` is the raw text, exactly, and ``string="false"`` is JSON, so no schema is
needed (a value that is not JSON is ``INVALID_ARGUMENTS``). A value ends at ``</｜DSML｜parameter>``; one that runs
into ``</｜DSML｜invoke>`` ends there (``MISSING_END_MARKER``). Reasoning is ``<think>…</think>``, which the thinking
prompt opens; a section ends it without ``</think>``, as V4's template writes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar, Final

from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._deepseek import BAR, SectionParser
from toolwire.reference.dialects._shared import (
    FindingCode,
    JsonReader,
    arguments_of,
    compact_text,
    members,
    object_text,
    quoted,
    read_json,
    utf8_len,
)

__all__ = ["DsmlParser"]

_DSML: Final = f"{BAR}DSML{BAR}"
_INVOKE: Final = f"<{_DSML}invoke"
_INVOKE_END: Final = f"</{_DSML}invoke>"
_PARAMETER: Final = f"<{_DSML}parameter"
_PARAMETER_END: Final = f"</{_DSML}parameter>"
_INVOKE_TAG: Final = re.compile(r'\s+name="([^"<>]+)"\s*')
_PARAMETER_TAG: Final = re.compile(r'\s+name="([^"<>]+)"\s+string="(true|false)"\s*')
_NAME: Final = re.compile(r'name="([^"<>]+)"')


class DsmlParser(SectionParser):
    """The ``deepseek_dsml`` dialect."""

    sections: ClassVar[Mapping[str, str]] = {
        f"<{_DSML}{block}>": f"</{_DSML}{block}>" for block in ("function_calls", "tool_calls")
    }
    starts = tuple(sections)
    call_start = _INVOKE
    call_ends_reasoning = True

    def _begin_call(self) -> None:
        self._name: str | None = None
        self._key = ""
        self._string = True
        self._value = ""
        self._arguments: dict[str, str] = {}  # each value as JSON text
        self._findings: list[tuple[FindingCode, str]] = []
        self._reader: JsonReader | None = None
        self._overflow = False
        self._tag_seen = self._tag_bytes = 0
        self._state = "invoke"

    def _tag(self) -> str | None:
        """The attributes of the tag at the cursor up to its ``>`` (taken); None while unread or when broken.

        A ``<`` before the ``>`` breaks the tag and sends the call to ``skip``.
        """
        rest = self._rest
        # What was looked at before holds neither '>' nor '<': only what arrived since is searched and measured, and
        # the limit is held against the tag's text before its '>' or '<', so that the split decides nothing.
        at = self._tag_seen
        while at < len(rest) and rest[at] not in "<>":
            at += 1
        self._tag_bytes += utf8_len(rest[self._tag_seen : at])
        self._tag_seen = at
        if self._tag_bytes > self.limits.max_argument_bytes:
            self._findings.append(("TOO_LARGE", "a tag passed the limit on a call's bytes"))
            self._state = "skip"
            return None
        if at == len(rest):
            return None
        if rest[at] == "<":
            self._malformed(f"a tag without '>': {quoted(rest[:at])}")
            return None
        self._keep(rest[: at + 1])
        self._pos += at + 1
        self._tag_seen = self._tag_bytes = 0
        return rest[:at]

    def _malformed(self, why: str) -> None:
        self._findings.append(("MALFORMED_CALL", why))
        self._state = "skip"

    def _advance_invoke(self) -> bool:
        attributes = self._tag()
        if attributes is None:
            return self._state != "invoke"
        match = _INVOKE_TAG.fullmatch(attributes)
        if match is None:
            self._malformed(f'the invoke tag\'s attributes {quoted(attributes)} are not name="…"')
            return True
        self._name = match.group(1)
        self._state = "body"
        return True

    def _advance_body(self) -> bool:
        self._keep(self._skip_whitespace())
        if self._pos == len(self._buf):
            return False
        for literal in (_PARAMETER, _INVOKE_END):
            found = self._starts_with(literal)
            if found is None:
                return False
            if found:
                self._pos += len(literal)
                self._keep(literal)
                if literal == _INVOKE_END:
                    self._whole()
                else:
                    self._state = "parameter"
                return True
        if self._buf[self._pos] == "{" and self._reader is None and not self._arguments:
            self._reader = JsonReader(self.limits)
            self._state = "json"
            return True
        self._malformed(f"{quoted(self._rest[:20])} where a parameter or {_INVOKE_END} belongs")
        return True

    def _advance_parameter(self) -> bool:
        attributes = self._tag()
        if attributes is None:
            return self._state != "parameter"
        match = _PARAMETER_TAG.fullmatch(attributes)
        if match is None:
            self._malformed(
                f'the parameter tag\'s attributes {quoted(attributes)} are not name="…" string="true|false"'
            )
            return True
        self._key, self._string, self._value, self._value_bytes = match.group(1), match.group(2) == "true", "", 0
        self._state = "value"
        return True

    def _advance_value(self) -> bool:
        parts: list[str] = []
        marker = self._release_until((_PARAMETER_END, _INVOKE_END), parts.append)
        if not self._overflow:
            self._value += "".join(parts)
            self._value_bytes += utf8_len("".join(parts))
            if self._raw_bytes + self._value_bytes > self.limits.max_argument_bytes:
                # The value is read on to its end, not kept: where it ends does not depend on the split.
                self._findings.append(("TOO_LARGE", "the call's values passed the limit on a call's bytes"))
                self._keep(self._value)
                self._value = ""
                self._overflow = True
        if marker is None:
            return False
        if not self._overflow:
            self._keep(self._value + marker)
            self._take_value()
        if marker == _INVOKE_END:
            self._findings.append(("MISSING_END_MARKER", f"the parameter {quoted(self._key)} had no {_PARAMETER_END}"))
            self._whole()
        else:
            self._state = "body"
        return True

    def _take_value(self) -> None:
        if self._key in self._arguments:
            self._findings.append(
                ("MALFORMED_CALL", f"the parameter {quoted(self._key)} is given twice; the first is kept")
            )
            return
        if self._string:
            self._arguments[self._key] = quoted(self._value)
            return
        try:
            read_json(self._value, self.limits.max_depth)
        except ValueError as error:
            self._findings.append(("INVALID_ARGUMENTS", f"the parameter {quoted(self._key)} is not JSON ({error})"))
            self._arguments[self._key] = quoted(self._value)
        else:
            self._arguments[self._key] = compact_text(self._value)

    def _advance_json(self) -> bool:
        assert self._reader is not None
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            text, findings = arguments_of(self._reader)
            self._keep(self._reader.text)
            self._findings += findings
            if not findings:
                self._arguments = dict(members(text))
            self._state = "body"
            return True
        if state == INVALID:
            self._keep(self._reader.text)
            self._findings.append(("INVALID_ARGUMENTS", "the invoke's body is not JSON"))
            self._state = "skip"
            return True
        return False

    def _advance_skip(self) -> bool:
        marker = self._collect((_INVOKE_END, self.call_start, self._section_end))
        if marker is None:
            return False
        if marker == _INVOKE_END:
            self._keep(marker)
            self._whole()
        else:
            self._called(self._name, self._raw, tuple(self._findings))
            self._section_marker(marker)
        return True

    def _whole(self) -> None:
        """``</｜DSML｜invoke>``: the call is whole and handed over."""
        broken = any(code in ("MALFORMED_CALL", "TOO_LARGE") for code, _ in self._findings) or self._state == "skip"
        self._called(self._name, self._raw if broken else object_text(self._arguments.items()), tuple(self._findings))

    def _block_name(self, block: str) -> str | None:
        match = _NAME.search(block)
        return match.group(1) if match else None

    def _cut_inside(self) -> None:
        if self._state == "value":
            self._keep(self._value)
        elif self._state == "json" and self._reader is not None:
            self._keep(self._reader.text)
        findings = (*self._findings, ("CUT", f"the stream ended before {_INVOKE_END}"))
        self._call(self._name, self._raw, findings=findings, whole=False)
