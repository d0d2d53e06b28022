"""``adapt_tools``: each tool's schema rewritten into a target's subset, led by the lint of that target.

The lint says what the target refuses, ignores or weakens; each of its findings is answered by the rewrite of its
construct (``_rewrites``), deepest first, and the schema is linted again until nothing more can be answered. What
is left is reported, not hidden. The original definitions are untouched: calls are checked against them (the
registry a program builds from its own tools), never only against the copy the provider was sent.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from toolwire._common._json_data import json_fields
from toolwire.schema._findings import Finding, FindingReport, Level, sorted_findings
from toolwire.schema._sources import ToolSource, sources_of
from toolwire.schema.adapt._rewrites import Adaptation, rewrite
from toolwire.schema.lint import LintRule, lint_tools, resolve_targets, target_rules

__all__ = ["NOT_LOADABLE_RULE", "AdaptReport", "AdaptedTool", "adapt_tools"]

#: The finding of a definition that does not load, so that nothing can be adapted.
NOT_LOADABLE_RULE: Final = "adapt/not-loadable"

#: The effects a target has on a construct that call for a rewrite (a deviation changes nothing a call may hold).
_ANSWERED: Final = ("reject", "ignored", "weakened")
#: Rounds of lint and rewrite: a rewrite can reveal a construct (an inlined definition brings its own keywords).
_ROUNDS: Final = 16


@dataclass(frozen=True)
class AdaptedTool:
    """One tool, adapted.

    Attributes:
        name: The tool's name (None for a definition that names none).
        origin: Where the definition is (``tools.yaml:14#1``).
        definition: The adapted definition, ``{"name", "description", "parameters"}`` (``"strict": true`` for a
            strict target), or None when the original does not load.
        adaptations: Every change, in the order made.
        left: The target's findings no rewrite could answer (what it would still refuse, ignore or weaken).
    """

    name: str | None
    origin: str
    definition: dict[str, Any] | None
    adaptations: tuple[Adaptation, ...] = ()
    left: tuple[Finding, ...] = ()

    @property
    def ok(self) -> bool:
        """The adapted definition loads and nothing the target refuses is left."""
        return self.definition is not None and not any(finding.effect == "reject" for finding in self.left)


@dataclass(frozen=True)
class AdaptReport:
    """The tools adapted for one target.

    Attributes:
        target: The lint target (``openai-strict``, ``gemini``...).
        tools: Each tool, in the order read.
    """

    target: str
    tools: tuple[AdaptedTool, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Every tool loads and nothing the target refuses is left."""
        return all(tool.ok for tool in self.tools)

    def definitions(self) -> list[dict[str, Any]]:
        """The adapted definitions of the tools that load, in the neutral shape.

        ``ToolRegistry(...).to_openai()`` and its siblings wrap them for a request (``strict: true`` rides along).
        """
        return [tool.definition for tool in self.tools if tool.definition is not None]

    def findings(self) -> FindingReport:
        """Every change and every leftover as findings (command ``adapt``), for the report renderers.

        A weakening is a ``warning`` (the handler must check calls against the original), another change ``info``,
        and what the target still refuses an ``error``; what it still ignores or weakens keeps its lint level.
        """
        found: list[Finding] = []
        for tool in self.tools:
            for change in tool.adaptations:
                level: Level = "warning" if change.weakening else "info"
                data = {"action": change.action, "weakening": change.weakening}
                found.append(
                    Finding(
                        change.rule,
                        level,
                        change.detail,
                        tool.name,
                        change.pointer,
                        tool.origin,
                        self.target,
                        data=data,
                    )
                )
            found.extend(tool.left)
        subjects = tuple(tool.name or tool.origin for tool in self.tools)
        return FindingReport("adapt", sorted_findings(found), subjects, {"target": self.target})

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON data."""
        return json_fields(self, "target tools")


def adapt_tools(tools: ToolSource | Iterable[Any] | Any, target: str) -> AdaptReport:
    """Rewrite each tool's schema into what ``target`` takes, and say what every change costs.

    Args:
        tools: ``ToolSource``s, ``Tool``s, a ``ToolRegistry``, definitions, or files, directories and import paths.
        target: One lint target (``toolwire.schema.lint.LINT_TARGETS``).

    Raises:
        ValueError: Not exactly one known target (the message names the known ones), or unreadable tool files.
    """
    chosen = resolve_targets(target)
    if len(chosen) != 1:
        raise ValueError(f"adapt for one target at a time; got {', '.join(chosen)}")
    rules = {rule.id: rule for rule in target_rules(chosen[0]).rules}
    return AdaptReport(
        chosen[0], tuple(_adapt(source, chosen[0], rules) for source in sources_of(tools, "adapt_tools"))
    )


def _adapt(source: ToolSource, target: str, rules: dict[str, LintRule]) -> AdaptedTool:
    if source.tool is None:
        refused = Finding(
            NOT_LOADABLE_RULE,
            "error",
            f"the definition does not load: {source.error}",
            source.name,
            "",
            source.origin,
            target,
        )
        return AdaptedTool(source.name, source.origin, None, left=(refused,))
    tool = source.tool
    definition: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description or "",
        "parameters": copy.deepcopy(source.parameters),
    }
    if target.endswith("-strict"):
        definition["strict"] = True
    adaptations: list[Adaptation] = []
    declined: set[tuple[str, str]] = set()
    for _ in range(_ROUNDS):
        pending = [f for f in _findings(definition, target) if (f.rule, f.pointer) not in declined]
        if not pending:
            break
        # Deepest first: a change to an inner schema leaves the pointers of the outer ones as they were.
        for finding in sorted(pending, key=lambda f: f.pointer.count("/"), reverse=True):
            rule = rules.get(finding.rule)
            change = rewrite(definition["parameters"], finding, rule) if rule is not None else None
            if change is None:
                declined.add((finding.rule, finding.pointer))
                continue
            adaptations.append(change)
            if change.action in ("inlined", "merged"):
                break  # the schema's shape changed: lint it again before using another pointer
    left = tuple(
        Finding(f.rule, f.level, f.message, tool.name, f.pointer, source.origin, target, f.effect, f.source, f.data)
        for f in _findings(definition, target)
    )
    return AdaptedTool(tool.name, source.origin, definition, tuple(adaptations), left)


def _findings(definition: dict[str, Any], target: str) -> list[Finding]:
    report = lint_tools([definition], target)
    return [finding for finding in report.findings if finding.effect in _ANSWERED]
