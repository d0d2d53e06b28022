"""``llama3_json``: ``{"name": ..., "parameters": {...}}``, bare or after ``<|python_tag|>`` (Llama 3.1/3.3, Llama 4).

Llama writes a call as a bare JSON object, anywhere in its answer, so any ``{`` may open one: it is held back only
while it can still be a call, and released as text the moment it cannot. It can while its text is a prefix of the
call's head ``{"name":`` (or Llama 4's ``{"type": "function", "name":``, whitespace between the tokens); once the
head is whole it is read to its close, and is a call when it holds ``name`` and ``parameters`` or ``arguments``
(vLLM's rule: an object with a name but neither is text). A bare object that breaks or closes without that shape
is text (``MARKER_IN_TEXT`` once its head was whole), and reading resumes at the character that decided it, which
may open the next one. ``<|python_tag|>`` declares a call: the object after it is one, valid or not, and anything
but ``{`` after it is text (``MARKER_IN_TEXT``: the built-in tools' ``brave_search.call(...)`` and code are not JSON
calls). Calls are separated by ``;`` (whitespace around it), by whitespace, or by a repeated ``<|python_tag|>``; a
``;`` belongs to the calls only when a call follows it, and the one after it is read as the one before it was.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference._scanner import COMPLETE, INVALID
from toolwire.reference.dialects._shared import (
    TEXT,
    FindingCode,
    JsonReader,
    Parser,
    json_call,
    leading_name,
    parsed,
    utf8_len,
)

__all__ = ["Llama3JsonParser"]

_TAG: Final = "<|python_tag|>"
_ARGUMENT_KEYS: Final = ("parameters", "arguments")
_WHITESPACE: Final = " \t\r\n"
# A call's head, its tokens without the whitespace JSON allows between them: what a bare object must start with.
_HEADS: Final = (("{", '"name"', ":"), ("{", '"type"', ":", '"function"', ",", '"name"', ":"))
_FLAT: Final = tuple("".join(head) for head in _HEADS)
# Where, in each flattened head, whitespace may come: between two tokens.
_BREAKS: Final = tuple(
    frozenset(sum(len(token) for token in head[:at]) for at in range(1, len(head))) for head in _HEADS
)


class Llama3JsonParser(Parser):
    """The ``llama3_json`` dialect."""

    starts = (_TAG, "{")

    def _open(self, marker: str) -> None:
        self._separator = ""
        self._reader = JsonReader(self.limits)
        if marker == _TAG:
            self._tagged = True
            self._held = marker
            self._state = "tag"
            return
        self._tagged = False
        self._begin_bare()

    def _begin_bare(self) -> None:
        """A bare ``{`` (taken): its head is matched before it is held as a call."""
        self._held = "{"
        self._matched = 1
        self._heads = set(range(len(_HEADS)))
        self._state = "head"

    def _begin_json(self, text: str) -> None:
        self._reader = JsonReader(self.limits)
        self._reader.take(text)
        self._state = "json"

    def _advance_tag(self) -> bool:
        self._held += self._skip_whitespace()
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == "{":
            self._pos += 1
            self._separator = ""
            self._begin_json("{")
            return True
        self._text(self._held)
        self._finding("MARKER_IN_TEXT", f"{_TAG} was not followed by a JSON object", None)
        self._state = TEXT
        return True

    def _advance_head(self) -> bool:
        buf = self._buf
        while self._pos < len(buf):
            char = buf[self._pos]
            if char in _WHITESPACE:
                if not any(self._matched in _BREAKS[head] for head in self._heads):
                    return self._not_a_call(reported=False)
            else:
                self._heads = {head for head in self._heads if _FLAT[head][self._matched : self._matched + 1] == char}
                if not self._heads:
                    return self._not_a_call(reported=False)
                self._matched += 1
            self._held += char
            self._pos += 1
            if utf8_len(self._held) > self.limits.max_argument_bytes:
                return self._not_a_call(reported=False)
            if any(self._matched == len(_FLAT[head]) for head in self._heads):
                self._begin_json(self._held)
                return True
        return False

    def _advance_json(self) -> bool:
        state, taken = self._reader.take(self._rest)
        self._pos += taken
        if state == COMPLETE:
            if self._tagged or self._reader.overflow or self._is_call():
                name, arguments, _, findings = json_call(self._reader, _ARGUMENT_KEYS)
                self._call(name, arguments, findings=findings)
                self._separator = ""
                self._state = "after"
                return True
            return self._not_a_call(reported=True, held=self._reader.text)
        if state == INVALID:
            if self._tagged or self._reader.overflow:
                # What the tag announced (or what passed the limit after a call's head) is a call, though broken.
                self._broken(("MALFORMED_CALL", "the call is not JSON"), whole=True)
                self._state = TEXT
                return True
            return self._not_a_call(reported=True, held=self._reader.text)
        return False

    def _is_call(self) -> bool:
        """Whether the whole bare object read has a call's shape (a repeated key or a non-finite number counts)."""
        value, problem = parsed(self._reader.text, self._reader.max_depth)
        return problem is not None or (
            isinstance(value, dict) and "name" in value and any(key in value for key in _ARGUMENT_KEYS)
        )

    def _not_a_call(self, *, reported: bool, held: str | None = None) -> bool:
        """The bare object cannot be a call: it and the separator before it are text; reading resumes at the cursor."""
        self._text(self._separator + (self._held if held is None else held))
        self._separator = ""
        if reported:
            self._finding("MARKER_IN_TEXT", "a JSON object that began as a call is not one; kept as text", None)
        self._state = TEXT
        return True

    def _advance_after(self) -> bool:
        self._text(self._skip_whitespace())
        if self._pos == len(self._buf):
            return False
        if self._buf[self._pos] == ";":
            self._pos += 1
            self._separator = ";"
            self._state = "separator"
        else:
            self._state = TEXT
        return True

    def _advance_separator(self) -> bool:
        self._separator += self._skip_whitespace()
        if self._pos == len(self._buf):
            if utf8_len(self._separator) > self.limits.max_argument_bytes:
                return self._separator_is_text()
            return False
        if self._buf[self._pos] != "{":
            return self._separator_is_text()
        self._pos += 1
        if self._tagged:
            self._separator = ""
            self._begin_json("{")
        else:
            self._begin_bare()
        return True

    def _separator_is_text(self) -> bool:
        self._text(self._separator)
        self._separator = ""
        self._state = TEXT
        return True

    def _cut(self) -> None:
        if self._state in ("head", "separator"):
            self._text(self._separator + (self._held if self._state == "head" else ""))
        elif self._state in ("tag", "json"):
            # A tag, or a bare object past its head, announced a call: the end of the stream cut it.
            self._broken(("CUT", "the stream ended inside the call"), whole=False)

    def _broken(self, why: tuple[FindingCode, str], *, whole: bool) -> None:
        """Hands over the call read so far as invalid for ``why`` (and for its size, when it passed the limit)."""
        body = self._reader.text if self._state == "json" else ""
        size: tuple[tuple[FindingCode, str], ...] = ()
        if self._reader.overflow:
            size = (("TOO_LARGE", "the call's text passed the limit on a call's bytes"),)
        self._call(leading_name(body), body, whole=whole, findings=(*size, why))
        self._separator = ""
