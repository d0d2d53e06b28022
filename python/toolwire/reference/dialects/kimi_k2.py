"""``kimi_k2``: Kimi K2 and K2-Thinking, ``<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}``.

Calls sit in ``<|tool_calls_section_begin|>`` … ``<|tool_calls_section_end|>`` (the singular
``<|tool_call_section_begin|>`` occurs too, llama.cpp#17376), each ``<|tool_call_begin|>ID<|tool_call_argument_begin|>``
then a JSON object and ``<|tool_call_end|>``; the section's and the call's rules are ``_deepseek``'s
(``JsonCallParser``, with the id as the call's header). The id ``functions.NAME:IDX`` (or ``NAME:IDX``) is kept as the
call's id and names the call; an id that names nothing is a malformed call, never a name guessed from the arguments (as
vLLM's bare counters are). A call is whole when its object closes. K2-Thinking writes calls inside an unclosed
``<think>``, sometimes with neither section markers nor ``<|tool_call_end|>``: a call marker ends reasoning, and a call
outside a section stands (``MISSING_START_MARKER``), ended by its object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from toolwire.reference.dialects._deepseek import JsonCallParser, name_token
from toolwire.reference.dialects._shared import quoted

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


class KimiK2Parser(JsonCallParser):
    """The ``kimi_k2`` dialect."""

    sections: ClassVar[Mapping[str, str]] = {SECTION_BEGIN: SECTION_END, SECTION_BEGIN_SINGULAR: SECTION_END}
    call_start = CALL_BEGIN
    call_end = CALL_END
    starts = (SECTION_BEGIN, SECTION_BEGIN_SINGULAR, CALL_BEGIN)
    call_ends_reasoning = True
    head = (ARGUMENT_BEGIN,)
    header = "id"

    def _open(self, marker: str) -> None:
        if marker != CALL_BEGIN:
            super()._open(marker)
            return
        self._open_bare(SECTION_END)
        self._findings.append(("MISSING_START_MARKER", f"a call outside a {SECTION_BEGIN} section"))

    def _header_of(self, parts: list[str]) -> tuple[str | None, str | None, str | None]:
        found, name, problem = call_id(parts[0])
        return name, found, problem
