"""Text dialects: the tool calls open-weight models write into their text, parsed as the text streams.

The specification in code of the core's ``rust/core/src/dialects/`` (its twin, file for file, as dialects are ported): a
dialect's parser is ``dialects/<dialect>.py``, named as servers name it for ``--tool-call-parser``; what they share
is ``_shared.py`` (events, findings, the buffer and its hold-back) and ``_raw_values.py`` (raw values typed by the
schema). ``DIALECTS`` is the one table of dialects. The rules are ``docs/semantics.md``'s "Text dialects", each
dialect's are ``docs/dialects.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from toolwire._model import Limits
from toolwire.reference.dialects import (
    apriel,
    cohere_command,
    deepseek_dsml,
    deepseek_v3,
    deepseek_v31,
    functiongemma,
    gemma4,
    glm45,
    glm47,
    granite,
    harmony,
    hermes,
    kimi_k2,
    llama3_json,
    minimax_m2,
    mistral,
    phi4_mini,
    pythonic,
    qwen3_coder,
    xlam,
)
from toolwire.reference.dialects._shared import (
    FINDINGS,
    Call,
    Event,
    Finding,
    FindingCode,
    Parser,
    Reasoning,
    Text,
    quoted,
)

__all__ = [
    "DIALECTS",
    "FINDINGS",
    "Call",
    "Event",
    "Finding",
    "FindingCode",
    "Parser",
    "Reasoning",
    "Text",
    "merged",
    "parse",
]

#: Every dialect's parser, by the name servers give it.
DIALECTS: Final[Mapping[str, type[Parser]]] = MappingProxyType(
    {
        "hermes": hermes.HermesParser,
        "qwen3_coder": qwen3_coder.Qwen3CoderParser,
        "seed_oss": qwen3_coder.SeedOssParser,
        "llama3_json": llama3_json.Llama3JsonParser,
        "mistral": mistral.MistralParser,
        "pythonic": pythonic.PythonicParser,
        "minimax_m2": minimax_m2.MiniMaxM2Parser,
        "deepseek_v3": deepseek_v3.DeepSeekV3Parser,
        "deepseek_v31": deepseek_v31.DeepSeekV31Parser,
        "deepseek_dsml": deepseek_dsml.DsmlParser,
        "kimi_k2": kimi_k2.KimiK2Parser,
        "harmony": harmony.HarmonyParser,
        "glm45": glm45.Glm45Parser,
        "glm47": glm47.Glm47Parser,
        "gemma4": gemma4.Gemma4Parser,
        "functiongemma": functiongemma.FunctionGemmaParser,
        "granite": granite.GraniteParser,
        "phi4_mini": phi4_mini.Phi4MiniParser,
        "xlam": xlam.XlamParser,
        "apriel": apriel.AprielParser,
        "cohere_command": cohere_command.CohereCommandParser,
    }
)


def parse(
    dialect: str,
    deltas: Iterable[str],
    tools: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    reasoning: bool = False,
    limits: Limits | None = None,
) -> list[Event]:
    """The events of a model's text, fed as ``deltas``, in ``dialect``.

    Args:
        dialect: A name of ``DIALECTS``.
        deltas: The text as it streamed, split anywhere.
        tools: The parameters schema of each tool, by name: what types raw values.
        reasoning: The prompt opened reasoning, so the text starts inside it.
        limits: The bounds on a call's text and nesting.

    Raises:
        ValueError: ``dialect`` is not one of ``DIALECTS``.
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {quoted(dialect)}; the dialects are {', '.join(DIALECTS)}")
    parser = DIALECTS[dialect](tools, reasoning=reasoning, limits=limits)
    events: list[Event] = []
    for delta in deltas:
        events += parser.feed(delta)
    return events + parser.finish()


def merged(events: Iterable[Event]) -> list[Event]:
    """``events`` with each run of text (and of reasoning) as one event: the same for every split of one text."""
    out: list[Event] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, Text) and isinstance(last, Text):
            out[-1] = Text(last.text + event.text)
        elif isinstance(event, Reasoning) and isinstance(last, Reasoning):
            out[-1] = Reasoning(last.text + event.text)
        else:
            out.append(event)
    return out
