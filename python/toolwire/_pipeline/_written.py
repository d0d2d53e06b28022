"""Which dialect the calls in a text are written in: how the kits name a call a model wrote instead of making it.

A server whose tool-call parser is off (or set for another model) leaves the calls the model wrote in its answer's
text, and a model may write a call into prose on its own. The probe's ``calls_in_text`` check and the case judge read
such text with each dialect's parser (``reassemble`` with ``dialect=``: text deltas in, calls out) rather than guess
from markers: a dialect whose parser hands over a call is one the text is written in, and the calls it read are named
exactly. Several dialects can read one text: Llama 3's bare JSON reads the object inside a Hermes block or a
pre-v11 Mistral list, Qwen3-Coder's parser the ``<function=`` inside Seed-OSS's block. The one reading the most valid
calls is named; among those, the one that leaves the least text outside its calls (the markers it read are its own,
where the other leaves them as text); then the first in the table's order (GLM-4.5's and GLM-4.7's parsers read each
other's calls whole: vLLM serves both with one class).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from toolwire._model import InvalidToolCall, ToolCall
from toolwire._pipeline import _extension
from toolwire._pipeline._bound import core
from toolwire._pipeline._protocol import OnInvalid
from toolwire._pipeline._streams import ToolCallStream
from toolwire.registry import ToolsLike

__all__ = ["TextReader", "WrittenCalls", "core_dialects", "server_parser", "written_calls"]

# Where vLLM's --tool-call-parser name for a dialect is not the dialect's own (docs/dialects.md names them after
# the servers, and these two after the format: gpt-oss's Harmony, DeepSeek V3.2/V4's DSML).
_VLLM_PARSERS: Final = {"harmony": "openai", "deepseek_dsml": "deepseek_v32"}


class TextReader(Protocol):
    """An implementation's ``reassemble``: the core's (``_bound.core``) or the reference's (``toolwire.reference``)."""

    def reassemble(
        self,
        source: list[str],
        *,
        tools: ToolsLike | None = ...,
        on_invalid: OnInvalid = ...,
        dialect: str,
    ) -> ToolCallStream:
        """The calls ``dialect``'s parser reads in the text deltas ``source``."""
        ...


@dataclass(frozen=True)
class WrittenCalls:
    """The calls one dialect's parser read in a text.

    Attributes:
        dialect: The dialect, by the name ``dialect=`` takes.
        calls: Every call read, valid and invalid, in the text's order (never empty).
        text: The text outside the calls (and outside reasoning), as the dialect's parser left it.
    """

    dialect: str
    calls: tuple[ToolCall | InvalidToolCall, ...]
    text: str

    @property
    def valid(self) -> int:
        """How many of the calls are valid (a well-formed call to a declared tool, within its schema)."""
        return sum(isinstance(call, ToolCall) for call in self.calls)

    @property
    def names(self) -> str:
        """The calls' names in order, ``"(no name)"`` for a call whose name was not read: ``"get_weather, f"``."""
        return ", ".join(call.name or "(no name)" for call in self.calls)

    @property
    def summary(self) -> str:
        """How many calls, in which dialect, and their names: ``1 call(s) written in the hermes dialect (f)``."""
        valid = "" if self.valid == len(self.calls) else f"; {self.valid} valid"
        return f"{len(self.calls)} call(s) written in the {self.dialect} dialect ({self.names}{valid})"


def core_dialects() -> tuple[str, ...]:
    """Every dialect the core reads (``toolwire.DIALECTS``), in its table's order.

    Raises:
        ImportError: The extension is missing.
    """
    return _extension.dialect_names()


def server_parser(dialect: str) -> str:
    """The vLLM ``--tool-call-parser`` that reads ``dialect`` (most are named alike; Harmony's is ``openai``)."""
    return _VLLM_PARSERS.get(dialect, dialect)


def written_calls(
    text: str,
    tools: ToolsLike | None = None,
    *,
    dialects: Iterable[str] | None = None,
    reader: TextReader = core,
) -> WrittenCalls | None:
    """The calls written in ``text``, read by the dialect that reads the most valid ones; None when none reads any.

    Args:
        text: A model's text: a chat answer's content, a case turn's text.
        tools: The tools the request offered: raw values are typed by their schemas, and a call to another tool is
            read, but invalid (``UNKNOWN_TOOL``).
        dialects: The dialects to try, in the order that breaks ties; by default every dialect the core reads
            (``toolwire.DIALECTS``).
        reader: The implementation that reads (the core by default).

    Returns:
        What the dialect that reads ``text`` best read, with every call it read; None when no dialect reads a call
        (or ``text`` is empty). Best: the most valid calls, then the least text left outside them, then the earliest
        in ``dialects``.
    """
    if not text:
        return None
    best: WrittenCalls | None = None
    for dialect in core_dialects() if dialects is None else dialects:
        stream = reader.reassemble([text], tools=tools, on_invalid="yield", dialect=dialect)
        calls = tuple(stream)
        if calls:
            read = WrittenCalls(dialect, calls, stream.result.text)
            if best is None or _rank(read) > _rank(best):
                best = read
    return best


def _rank(read: WrittenCalls) -> tuple[int, int]:
    return read.valid, -len(read.text)
