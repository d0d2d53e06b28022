"""``toolwire.schema.lint_tools``: what each provider or engine does with each tool schema.

The rules are data, one versioned YAML file per target in ``toolwire/schema/lint/rules/`` (format and match
vocabulary in ``_rules``), taken from the research note on provider schema rules (Part A), each with an id, an
effect, a source and an as-of date. A finding names the tool, the JSON pointer of the construct, the target and the
effect; its level follows the effect: ``reject`` (the request fails) is an error, ``ignored`` and ``weakened`` (the
provider accepts the schema but will not enforce the construct, so the handler must re-validate) are warnings, and
``deviation`` (the provider behaves differently from JSON Schema) is info. Where the research could not settle what
a target does (its ``?`` cells), nothing is enforced: ``show_unverified`` lists those constructs as info findings
with the effect ``unverified``.

The tools linted together are treated as one request: request-wide limits (tool counts, Anthropic strict's summed
optional and union parameters, Cohere's field count) are checked over all of them.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable, Sequence
from importlib import resources
from os import PathLike
from typing import TYPE_CHECKING, Any

from toolwire._common._suggest import did_you_mean
from toolwire.registry import Tool, ToolRegistry
from toolwire.schema._findings import Finding, FindingReport, Rule, sorted_findings
from toolwire.schema._sources import ToolSource, sources_of
from toolwire.schema.lint._match import CompiledTarget, Entry, Hit
from toolwire.schema.lint._matrix import NOT_LOADABLE_RULE, UNNAMED, build_matrix
from toolwire.schema.lint._rules import EFFECT_LEVELS, LintRule, TargetRules, parse_rules_yaml
from toolwire.schema.lint._walk import SchemaFacts

__all__ = ["LINT_RULES", "LINT_TARGETS", "lint_tools", "message_template", "resolve_targets", "target_rules"]

#: Every lint target, in the order reports show them.
LINT_TARGETS: tuple[str, ...] = (
    "openai",
    "openai-strict",
    "anthropic",
    "anthropic-strict",
    "gemini",
    "vertex",
    "bedrock",
    "mistral",
    "cohere",
    "ollama",
    "vllm",
    "llama-cpp",
)

_NOT_LOADABLE_SUMMARY = "the definition does not load, so no target can be judged; fix it first (toolwire check)"


def _unknown_target(target: str) -> str:
    return (
        f"unknown lint target {target!r}{did_you_mean(target, LINT_TARGETS)}; known: {', '.join(LINT_TARGETS)} (or all)"
    )


@functools.cache
def target_rules(target: str) -> TargetRules:
    """A target's data file, read and checked once.

    Raises:
        ValueError: An unknown target, or a data file that breaks the format (named with the rule and field).
    """
    if target not in LINT_TARGETS:
        raise ValueError(_unknown_target(target))
    name = f"{target}.yaml"
    text = resources.files("toolwire.schema.lint").joinpath("rules").joinpath(name).read_text(encoding="utf-8")
    return parse_rules_yaml(text, f"toolwire/schema/lint/rules/{name}", target)


def _summary(entry: Entry) -> str:
    if isinstance(entry, LintRule):
        return f"{entry.effect}: {message_template(entry.message)}"
    return f"unverified: {entry.construct}: {entry.why}"


def message_template(message: str, placeholder: str = "<{}>") -> str:
    """A rule's message as a reader sees it before a finding fills it.

    Escaped braces read as braces (a pattern's ``{1,64}``); each field reads as ``placeholder`` names it
    (``<value>``).
    """
    return message.format_map({key: placeholder.format(key) for key in _placeholders(message)})


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _catalogue() -> tuple[Rule, ...]:
    rules = [Rule(NOT_LOADABLE_RULE, "error", _NOT_LOADABLE_SUMMARY)]
    for target in LINT_TARGETS:
        for entry in target_rules(target).entries:
            level = entry.level if isinstance(entry, LintRule) else EFFECT_LEVELS["unverified"]
            rules.append(Rule(entry.id, level, _summary(entry)))
    return tuple(rules)


if TYPE_CHECKING:
    #: Every rule id of every data file (enforced rules at their effect's level, unverified constructs at ``info``),
    #: and ``lint/not-loadable``.
    LINT_RULES: tuple[Rule, ...]


def __getattr__(name: str) -> Any:
    """``LINT_RULES``, read from the data files on first use.

    Importing the lint (for a ``--help``, or a target's name) must not need PyYAML, which the ``schema`` extra brings.
    """
    if name == "LINT_RULES":
        rules = _catalogue()
        globals()["LINT_RULES"] = rules  # later reads find the module attribute and no longer come here
        return rules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve_targets(targets: str | Iterable[str]) -> tuple[str, ...]:
    """Targets as given: a name, a comma-separated list, ``all``, or an iterable of those; duplicates dropped.

    Raises:
        ValueError: None given, or an unknown name (the message lists the known ones).
    """
    given = [targets] if isinstance(targets, str) else list(targets)
    names: list[str] = []
    for item in given:
        if not isinstance(item, str):
            raise TypeError(f"a target is a string; got {type(item).__name__}")
        for name in (part.strip() for part in item.split(",")):
            expanded = LINT_TARGETS if name == "all" else (name,)
            for target in expanded:
                if target not in LINT_TARGETS:
                    raise ValueError(_unknown_target(target))
                if target not in names:
                    names.append(target)
    if not names:
        raise ValueError(f"no lint target given; choose from {', '.join(LINT_TARGETS)} (or all)")
    return tuple(names)


@functools.cache
def _compiled(target: str, show_unverified: bool) -> CompiledTarget:
    return CompiledTarget(target_rules(target), show_unverified=show_unverified)


def _sources(sources_or_specs: Any) -> list[ToolSource]:
    return sources_of(sources_or_specs, "lint_tools")


def _message(entry: Entry, hit: Hit) -> str:
    if isinstance(entry, LintRule):
        fields = {key: hit.data.get(key, "") for key in _placeholders(entry.message)}
        return entry.message.format_map(fields)
    return (
        f"Unverified for {entry.target}: {entry.construct}. {entry.why} No source confirms what the provider does "
        "with it, so nothing is enforced; check it against the provider before relying on it."
    )


def _finding(entry: Entry, hit: Hit, source: ToolSource | None) -> Finding:
    if isinstance(entry, LintRule):
        effect, data = entry.effect, {**hit.data, "as_of": entry.as_of}
    else:
        effect, data = "unverified", {**hit.data, "as_of": entry.as_of, "construct": entry.construct}
    return Finding(
        rule=entry.id,
        level=EFFECT_LEVELS[effect],
        message=_message(entry, hit),
        tool=(source.tool.name if source.tool else source.name) if source else None,
        pointer=hit.pointer,
        origin=source.origin if source else None,
        target=entry.target,
        effect=effect,
        source=f"{entry.source} (as of {entry.as_of})",
        data=data,
    )


def _not_loadable(source: ToolSource) -> Finding:
    where = f" at {source.error_pointer}" if source.error_pointer else ""
    return Finding(
        rule=NOT_LOADABLE_RULE,
        level="error",
        message=f"The definition does not load{where} ({source.error}), so no target can be judged; fix it first.",
        tool=source.name,
        pointer=source.error_pointer or "",
        origin=source.origin,
    )


def lint_tools(
    sources_or_specs: ToolSource | Tool | ToolRegistry | str | PathLike[str] | Iterable[Any],
    targets: str | Sequence[str],
    *,
    show_unverified: bool = False,
) -> FindingReport:
    """Lint tool schemas against providers and engines.

    Args:
        sources_or_specs: ``ToolSource``s (from ``load_tools``), ``Tool``s, a ``ToolRegistry``, or files,
            directories and ``package.module:attr`` import paths (read with ``load_tools``), alone or in a list.
        targets: One of ``LINT_TARGETS``, a comma-separated list, ``all``, or a list of those.
        show_unverified: Also list, as ``info`` findings with the effect ``unverified``, the constructs the research
            could not settle for a target (never enforced).

    Returns:
        The report (command ``lint``): findings sorted by origin, tool, pointer and rule; ``extra["targets"]``;
        with more than one target, ``extra["matrix"]`` (see ``_matrix``).

    Raises:
        ValueError: An unknown target (the message lists the known ones), or unreadable tool files.
        TypeError: Something that is not a tool source.
        FileNotFoundError: A path that does not exist.
    """
    chosen = resolve_targets(targets)
    compiled = [_compiled(target, show_unverified) for target in chosen]
    findings: list[Finding] = []
    linted: list[tuple[Tool, SchemaFacts]] = []
    rows: list[tuple[str, str | None]] = []
    for source in _sources(sources_or_specs):
        if source.server_tool is not None:
            continue  # a provider's built-in tool: no schema of ours to lint
        rows.append((source.tool.name if source.tool else source.name or UNNAMED, source.origin))
        if source.tool is None:
            findings.append(_not_loadable(source))
            continue
        facts = SchemaFacts(source.tool.parameters)
        linted.append((source.tool, facts))
        for target in compiled:
            findings += (_finding(entry, hit, source) for entry, hit in target.tool_hits(source.tool, facts))
    for target in compiled:
        findings += (_finding(entry, hit, None) for entry, hit in target.request_hits(linted))
    ordered = sorted_findings(findings)
    extra: dict[str, Any] = {"targets": list(chosen)}
    if len(chosen) > 1:
        extra["matrix"] = build_matrix(ordered, rows, chosen)
    return FindingReport("lint", ordered, subjects=tuple(tool for tool, _ in rows), extra=extra)
