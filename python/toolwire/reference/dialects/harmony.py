"""``harmony``: gpt-oss, messages ``<|start|>assistant<|channel|>CHANNEL<|message|>BODY<|end|>`` in one text.

A message's header (between ``<|start|>`` and ``<|message|>``) holds the role, ``<|channel|>`` and the channel's name,
a recipient ``to=R`` (after the role or after the channel) and a content type (``json``, ``<|constrain|>json``,
``code``), spaces around each token optional (llm-jp writes one after every special token). The generation prompt ends
with ``<|start|>assistant``, so the text starts inside a header (`` to=…<|channel|>`` or ``<|channel|>``); text that
cannot be such a header start is a header-less message's body, which is text.

A message to ``functions.NAME`` is a call, whatever its channel (calls land on ``analysis`` too, vllm#24768): its
body is a JSON object, whole when it closes; ``<|call|>`` (or ``<|end|>``, llm-jp) is then expected, and its absence
is ``MISSING_END_MARKER`` (the stop token is often not in the text). Any other recipient (``browser.search``,
``python``, ``container.exec``) is a tool the model's runtime runs, not a client function: ``BUILTIN_TOOL``, with
the message. Without a recipient, ``analysis`` is reasoning and any other channel (``final``, ``commentary``) text.
A message ends at ``<|end|>``, ``<|call|>``, ``<|return|>`` or the next ``<|start|>``; a header no message follows,
or one that is not role, channel, recipient and content type, is ``MALFORMED_HEADER``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolwire._model import Limits
from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._shared import (
    REASONING,
    TEXT,
    FindingCode,
    JsonReader,
    Parser,
    _held,
    arguments_of,
    quoted,
    utf8_len,
)

__all__ = [
    "CALL",
    "CHANNEL",
    "CONSTRAIN",
    "END",
    "MESSAGE",
    "RETURN",
    "START",
    "HarmonyParser",
    "Header",
    "header_of",
]

START: Final = "<|start|>"
CHANNEL: Final = "<|channel|>"
CONSTRAIN: Final = "<|constrain|>"
MESSAGE: Final = "<|message|>"
END: Final = "<|end|>"
CALL: Final = "<|call|>"
RETURN: Final = "<|return|>"

_FUNCTIONS: Final = "functions."
_ROLE: Final = "assistant"
_REASONING_CHANNEL: Final = "analysis"
_ENDS: Final = (END, CALL, RETURN)
_HEADER_MARKERS: Final = (MESSAGE, CHANNEL, CONSTRAIN, START, *_ENDS)
# What the text can be while it may still be the rest of the prompt's ``<|start|>assistant`` header.
_HEADER_START: Final = re.compile(r"\s*(?:t|to|to=\S*\s*)?")
_WHITESPACE: Final = " \t\r\n"


class _Kept:
    """Text kept up to a number of bytes: what fits of the text that passes it, and nothing after, however split."""

    def __init__(self, limit: int, text: str = "") -> None:
        self._limit = limit
        self._parts: list[str] = []
        self._bytes = 0
        self.full = False
        self.add(text)

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def add(self, text: str) -> None:
        if self.full:
            return
        size = utf8_len(text)
        if self._bytes + size <= self._limit:
            self._parts.append(text)
            self._bytes += size
            return
        for char in text:
            size = utf8_len(char)
            if self._bytes + size > self._limit:
                break
            self._parts.append(char)
            self._bytes += size
        self.full = True


@dataclass(frozen=True, slots=True)
class Header:
    """What a message's header says: its channel, recipient and content type, or why it says nothing sound."""

    channel: str | None
    recipient: str | None
    content_type: str | None
    problem: str | None


def header_of(role: str, channel: str) -> Header:
    """The header whose role part (before ``<|channel|>``) is ``role`` and channel part is ``channel``.

    ``<|constrain|>`` is read as the space it stands for.
    """
    recipients = [token[3:] for token in (*role.split(), *channel.split()) if token.startswith("to=")]
    roles = [token for token in role.split() if not token.startswith("to=")]
    rest = [token for token in channel.split() if not token.startswith("to=")]
    name = rest[0] if rest else None
    content_type = rest[1] if len(rest) > 1 else None
    problems = [
        *([f"the role is {quoted(' '.join(roles))}, not {quoted(_ROLE)}"] if roles not in ([], [_ROLE]) else []),
        *(["the header has more than one recipient"] if len(recipients) > 1 else []),
        *(["the header has no channel"] if name is None else []),
        *([f"the header has words no header has: {quoted(' '.join(rest[2:]))}"] if len(rest) > 2 else []),
        *([f"{quoted(recipients[0])} is not a recipient"] if recipients and not recipients[0] else []),
    ]
    recipient = recipients[0] if len(recipients) == 1 and recipients[0] else None
    return Header(name, recipient, content_type, "; ".join(problems) or None)


class HarmonyParser(Parser):
    """The ``harmony`` dialect."""

    starts = (START, CHANNEL, *_ENDS)

    def __init__(
        self,
        tools: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        reasoning: bool = False,
        limits: Limits | None = None,
    ) -> None:
        """A parser at the start of gpt-oss's text, inside the header the prompt's ``<|start|>assistant`` opened.

        ``reasoning`` is ignored: a Harmony message says its channel.
        """
        super().__init__(tools, reasoning=reasoning, limits=limits)
        self._state = "prompt"

    def _open(self, marker: str) -> None:
        if marker in _ENDS:
            # The end of a header-less message: text goes on.
            return
        self._begin_header(channel=marker == CHANNEL)

    def _begin_header(self, *, channel: bool, role: str = "") -> None:
        self._role = role
        self._channel = ""
        self._in_channel = channel
        self._header_bytes = utf8_len(role)
        self._header_full = False
        self._state = "header"

    def _advance_prompt(self) -> bool:
        rest = self._rest
        found = [(at, marker) for marker in self.starts if (at := rest.find(marker)) >= 0]
        at, marker = min(found) if found else (len(rest), "")
        # Of text no marker ends yet, what could still start one is not judged: `to=f <|chan` may be `to=f <|channel|>`.
        head = rest[:at] if found else rest[: len(rest) - _held(rest, 0, self.starts)]
        could_be_header = _HEADER_START.fullmatch(head) is not None and utf8_len(head) <= self.limits.max_argument_bytes
        if marker == CHANNEL and could_be_header:
            self._pos += at + len(marker)
            self._begin_header(channel=True, role=head)
            return True
        if not found and could_be_header and not self._final:
            return False
        self._state = TEXT
        return True

    def _advance_header(self) -> bool:
        parts: list[str] = []
        marker = self._release_until(_HEADER_MARKERS, parts.append)
        self._keep_header("".join(parts))
        if marker is None:
            return False
        if marker == CONSTRAIN:
            self._keep_header(" ")
        elif marker == CHANNEL and not self._in_channel:
            self._in_channel = True
        elif marker == MESSAGE:
            self._begin_message()
        else:
            self._stray_header(f"{marker} came before {MESSAGE}")
            self._open(marker)
            if marker in _ENDS:
                self._state = TEXT
        return True

    def _keep_header(self, text: str) -> None:
        """Adds ``text`` to the header's part, up to the limit on a call's bytes (the same bytes however split)."""
        if self._header_full:
            return
        for char in text:
            self._header_bytes += utf8_len(char)
            if self._header_bytes > self.limits.max_argument_bytes:
                self._header_full = True
                return
            if self._in_channel:
                self._channel += char
            else:
                self._role += char

    def _stray_header(self, why: str) -> None:
        header = f"{self._role}{CHANNEL if self._in_channel else ''}{self._channel}"
        self._finding("MALFORMED_HEADER", f"the header {quoted(header)} has no message: {why}", None)

    def _begin_message(self) -> None:
        header = header_of(self._role, self._channel)
        self._findings: list[tuple[FindingCode, str]] = []
        if self._header_full:
            self._findings.append(("TOO_LARGE", "the message's header passed the limit on a call's bytes"))
        recipient = header.recipient
        if recipient is not None and recipient.startswith(_FUNCTIONS):
            self._name: str | None = recipient.removeprefix(_FUNCTIONS) or None
            if self._name is None:
                self._findings.append(("MALFORMED_CALL", f"the recipient {quoted(recipient)} names no function"))
            if header.problem is not None:
                self._findings.append(("MALFORMED_CALL", header.problem))
            if header.content_type is not None and header.content_type != "json":
                self._findings.append(
                    ("MALFORMED_CALL", f'the content type is {quoted(header.content_type)}, not "json"')
                )
            self._reader = JsonReader(self.limits)
            self._begun = False
            self._state = "arguments"
            return
        for code, message in self._findings:
            self._finding(code, message, None)
        if header.problem is not None:
            self._finding("MALFORMED_HEADER", f"the header is not sound ({header.problem}); its message is read", None)
        self._builtin = recipient
        self._kind = "builtin" if recipient is not None else REASONING if header.channel == _REASONING_CHANNEL else TEXT
        self._body = _Kept(self.limits.max_argument_bytes)
        self._state = "body"

    def _advance_body(self) -> bool:
        marker = self._release_until((*_ENDS, START), self._message)
        if marker is None:
            return False
        self._end_message()
        if marker == START:
            self._begin_header(channel=False)
        else:
            self._state = TEXT
        return True

    def _message(self, text: str) -> None:
        if self._kind == TEXT:
            self._text(text)
        elif self._kind == REASONING:
            self._reasoning(text)
        else:
            self._body.add(text)

    def _end_message(self) -> None:
        if self._kind != "builtin" or self._builtin is None:
            return
        cut = " (cut at the limit on a call's bytes)" if self._body.full else ""
        self._finding(
            "BUILTIN_TOOL",
            f"a message to {quoted(self._builtin)}, a tool of the model's runtime, not a function{cut}: "
            f"{quoted(self._body.text)}",
            None,
        )

    def _advance_arguments(self) -> bool:
        if not self._begun:
            self._skip_whitespace()
            if self._pos == len(self._buf):
                return False
            self._begun = True
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            arguments, findings = arguments_of(self._reader)
            self._call(self._name, arguments, findings=(*self._findings, *findings))
            self._state = "after"
            return True
        if state == INVALID:
            self._broken = _Kept(self.limits.max_argument_bytes, self._reader.text)
            self._state = "broken"
            return True
        return False

    def _advance_broken(self) -> bool:
        parts: list[str] = []
        marker = self._release_until((*_ENDS, START), parts.append)
        self._broken.add("".join(parts))
        if marker is None:
            return False
        findings = (*self._findings, ("INVALID_ARGUMENTS", "the arguments are not JSON"))
        self._call(self._name, self._broken.text, findings=findings)
        if marker == START:
            self._begin_header(channel=False)
        else:
            self._state = TEXT
        return True

    def _advance_after(self) -> bool:
        at = self._pos
        while at < len(self._buf) and self._buf[at] in _WHITESPACE:
            at += 1
        if at == len(self._buf) and not self._final:
            return False
        for end in (CALL, END):
            found = self._starts_with(end, at) if at < len(self._buf) else False
            if found is None:
                return False
            if found:
                self._pos = at + len(end)
                self._state = TEXT
                return True
        self._finding("MISSING_END_MARKER", f"no {CALL} after the call", self._calls - 1)
        self._state = TEXT
        return True

    def _cut(self) -> None:
        if self._state == "header":
            self._stray_header("the stream ended")
        elif self._state == "body":
            self._end_message()
            if self._kind == REASONING:
                self._finding("REASONING_CUT", "the stream ended inside reasoning", None)
        elif self._state in ("arguments", "broken"):
            body = self._reader.text if self._state == "arguments" else self._broken.text
            findings = (*self._findings, ("CUT", f"the stream ended before {CALL}"))
            self._call(self._name, body, findings=findings, whole=False)
