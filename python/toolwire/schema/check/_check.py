"""``toolwire.schema.check_tools``: the registry rules of ``toolwire check``, over every tool of a project.

The rules (``CHECK_RULES``, ids stable) look at each definition on its own (``_rules``: loadability, names,
meta-schema, root type, ``required``, examples, descriptions, open objects on side-effecting tools, deprecation and
sunset, secrets) and across definitions (here: a name declared twice, and two tools that read alike, scored by
``_similarity``). Nothing is fetched and no model is called: a check of thousands of tools takes seconds.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from typing import Any

from toolwire.schema._findings import Finding, FindingReport, sorted_findings
from toolwire.schema._similarity import (
    DEFAULT_SIMILARITY_THRESHOLD,
    ToolText,
    shared_words,
    similar_pairs,
    tool_text,
)
from toolwire.schema._sources import ToolSource, sources_of
from toolwire.schema.check._rules import CHECK_RULES, finding, per_tool

__all__ = ["CHECK_RULES", "DEFAULT_SIMILARITY_THRESHOLD", "check_tools", "sources_of"]


def _duplicates(sources: list[ToolSource]) -> Iterator[Finding]:
    first: dict[str, ToolSource] = {}
    for source in sources:
        if source.name is None:
            continue
        earlier = first.setdefault(source.name, source)
        if earlier is not source:
            yield finding(
                "duplicate-name",
                source,
                f"{source.name!r} is declared at {earlier.origin} and again at {source.origin}: rename or remove one",
                origins=[earlier.origin, source.origin],
            )


def _text_of(source: ToolSource) -> ToolText:
    parameters = source.parameters
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    description = source.tool.description if source.tool is not None else source.description
    return tool_text(
        source.name or "",
        description if isinstance(description, str) else None,
        [str(name) for name in properties] if isinstance(properties, Mapping) else [],
    )


def _ambiguous(sources: list[ToolSource], threshold: float) -> Iterator[Finding]:
    # One entry per name: a name declared twice is duplicate-name's finding, not a pair of look-alikes.
    unique: dict[str, ToolSource] = {}
    for source in sources:
        if source.name is not None and source.server_tool is None:
            unique.setdefault(source.name, source)
    chosen = list(unique.values())
    texts = [_text_of(source) for source in chosen]
    for first, second, score in similar_pairs(texts, threshold):
        earlier, later = chosen[first], chosen[second]
        shared = shared_words(texts[first], texts[second])
        yield finding(
            "ambiguous-tools",
            later,
            f"reads like {earlier.name!r} ({earlier.origin}): similarity {score:.2f} >= {threshold:.2f}, sharing "
            f"{', '.join(shared) or 'no content word'}; say in each description when to use it rather than the other",
            other=earlier.name,
            other_origin=earlier.origin,
            score=round(score, 3),
            threshold=threshold,
            shared=shared,
            actions=[texts[first].action, texts[second].action],
            measure="cosine of weighted content words x action factor (toolwire.schema._similarity)",
        )


def _threshold(value: object) -> float:
    if value is None:
        return DEFAULT_SIMILARITY_THRESHOLD
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"similarity_threshold must be a number in (0, 1]; got {value!r}")
    return float(value)


def check_tools(
    sources_or_specs: Any,
    *,
    similarity_threshold: float | None = None,
    today: datetime.date | None = None,
) -> FindingReport:
    """Check tool definitions against the registry rules (``CHECK_RULES``).

    Args:
        sources_or_specs: Tool files and directories (``.json``, ``.yaml``/``.yml``, ``.jsonl``), import paths
            (``package.module:attr``), definitions as mappings, ``Tool``s, a ``ToolRegistry``, ``ToolSource``s from
            ``load_tools``, or a list mixing them (see ``sources_of``).
        similarity_threshold: The score from which two tools are ``ambiguous-tools`` (default
            ``DEFAULT_SIMILARITY_THRESHOLD``, 0.55), in (0, 1].
        today: The date sunsets are compared with (default: today, local time).

    Returns:
        A ``FindingReport`` of command ``check`` whose subjects are the tools' names (or origins), findings at
        each rule's default level (apply ``[tool.toolwire.rules]`` with ``report.with_levels(config.rules)``).

    Raises:
        TypeError: An input is not a tool source.
        ValueError: A threshold outside (0, 1], or a file or import path that cannot be read.
        OSError: A file cannot be read.

    Example:
        >>> report = check_tools([{"name": "get-weather", "description": "Get the weather in a city.",
        ...                        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
        ...                                       "required": ["town"]}}])
        >>> sorted(finding.rule for finding in report.findings)
        ['name-not-portable', 'property-description-missing', 'required-not-a-property']
    """
    threshold = _threshold(similarity_threshold)
    sources = sources_of(sources_or_specs)
    day = today or datetime.date.today()
    findings = [found for source in sources for found in per_tool(source, day)]
    findings += _duplicates(sources)
    findings += _ambiguous(sources, threshold)
    subjects = tuple(dict.fromkeys(source.name or source.origin for source in sources))
    return FindingReport("check", sorted_findings(findings), subjects)
