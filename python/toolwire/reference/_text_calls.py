"""Calls written into a stream's text: one dialect parser per choice, and what each finding is as a violation.

The stage between a format's text and the accumulator (``docs/semantics.md``, "Calls in text"). With ``dialect=``,
the text a decoder reads goes through the dialect's parser of its choice (``toolwire.reference.dialects``); the
accumulator keeps the text outside calls and reasoning as the choice's text, reasoning as output, and turns each call
into a call of the stream, its findings into violations (``VIOLATION_OF``). The core's twin is
``rust/core/src/text_calls.rs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from toolwire._model import Limits, TextDialect, ViolationCode
from toolwire.reference.dialects import DIALECTS, Event, FindingCode, Parser

__all__ = ["JUDGED", "VIOLATION_OF", "TextCalls"]

#: The violation each dialect finding is in the stream.
VIOLATION_OF: Final[Mapping[FindingCode, ViolationCode]] = MappingProxyType(
    {
        "CUT": ViolationCode.TRUNCATED,
        "MALFORMED_CALL": ViolationCode.MALFORMED_CALL,
        "INVALID_ARGUMENTS": ViolationCode.INVALID_JSON,
        "UNTYPED_VALUE": ViolationCode.UNTYPED_VALUE,
        "NO_SCHEMA": ViolationCode.NO_SCHEMA,
        "TOO_LARGE": ViolationCode.ARGUMENTS_TOO_LARGE,
        "MISSING_END_MARKER": ViolationCode.MISSING_END_MARKER,
        "MISSING_START_MARKER": ViolationCode.MISSING_START_MARKER,
        "ARGUMENTS_AS_STRING": ViolationCode.ARGUMENTS_AS_STRING,
        "MARKER_IN_TEXT": ViolationCode.MARKER_IN_TEXT,
        "REASONING_CUT": ViolationCode.REASONING_CUT,
        "BUILTIN_TOOL": ViolationCode.BUILTIN_TOOL,
        "MALFORMED_HEADER": ViolationCode.MALFORMED_HEADER,
    }
)

#: Findings after which a call's text is not its arguments object (the dialect judged it): the accumulator hands
#: the call over with that text and these findings, and neither judges nor validates it as arguments. An untyped
#: raw value is not among them: its call's text is an object, validated as any other.
JUDGED: Final = frozenset({"CUT", "MALFORMED_CALL", "INVALID_ARGUMENTS", "TOO_LARGE"})


class TextCalls:
    """The dialect parsers of one stream, one per choice, made as each choice's text first arrives."""

    def __init__(self, dialect: TextDialect, tools: Mapping[str, Mapping[str, Any]] | None, limits: Limits) -> None:
        """Parsers of ``dialect`` that type raw values by ``tools`` (each tool's parameters, by name).

        Raises:
            ValueError: ``dialect.name`` is not a dialect.
        """
        if dialect.name not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect.name!r}; the dialects are {', '.join(DIALECTS)}")
        self.dialect = dialect
        self._tools = tools
        self._limits = limits
        self._parsers: dict[int, Parser] = {}

    def feed(self, choice: int, text: str) -> list[Event]:
        """The events ``text``, the next text of ``choice``, completes."""
        parser = self._parsers.get(choice)
        if parser is None:
            parser = DIALECTS[self.dialect.name](self._tools, reasoning=self.dialect.reasoning, limits=self._limits)
            self._parsers[choice] = parser
        return parser.feed(text)

    def finish(self) -> list[tuple[int, list[Event]]]:
        """Each choice's events the end of the stream completes, in the order of the choices."""
        return [(choice, self._parsers[choice].finish()) for choice in sorted(self._parsers)]
