"""Findings: what every schema command reports, with a stable rule id, a level and the place it concerns."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from toolwire._common._json_data import json_fields

__all__ = ["LEVELS", "Finding", "FindingReport", "Level", "Rule", "level_reaches", "sorted_findings"]

_DIGITS: Final = re.compile(r"(\d+)")

#: How serious a finding is; ``--fail-on`` names the lowest level that fails a command.
Level = Literal["info", "warning", "error"]

#: The levels from the least to the most serious.
LEVELS: tuple[Level, ...] = ("info", "warning", "error")


def level_reaches(level: str, threshold: str) -> bool:
    """Whether ``level`` is at least ``threshold`` (``"never"`` is never reached).

    Raises:
        ValueError: Either is not a level.
    """
    if threshold == "never":
        return False
    for name in (level, threshold):
        if name not in LEVELS:
            raise ValueError(f"a level is one of {', '.join(LEVELS)} (or 'never' as a threshold); got {name!r}")
    return LEVELS.index(level) >= LEVELS.index(threshold)


@dataclass(frozen=True)
class Rule:
    """One rule a command enforces, documented once.

    Attributes:
        id: The stable id findings carry, e.g. ``"duplicate-name"`` or ``"openai-strict/open-object"``.
        level: The level its findings get unless the project's configuration says otherwise.
        summary: One line: what it flags and why it matters.
    """

    id: str
    level: Level
    summary: str


@dataclass(frozen=True)
class Finding:
    """One thing a command found.

    Attributes:
        rule: The rule's stable id.
        level: ``"error"``, ``"warning"`` or ``"info"``.
        message: What is wrong and how to fix it, in one or two sentences.
        tool: The tool concerned, when there is one.
        pointer: The JSON pointer of the construct inside the tool's parameters schema (``""``: the root), or of
            the member of a prompt or example.
        origin: Where the tool came from: a file (``tools.yaml``, ``tools.jsonl:12``) or an import path.
        target: For the provider lint: the target (``openai-strict``, ``gemini``...).
        effect: For the provider lint: ``reject``, ``ignored``, ``weakened`` or ``deviation``.
        source: For the provider lint: the documentation the rule rests on, and its as-of date.
        data: Further evidence (a similarity score and its threshold, the allowed values, ...), JSON-ready.
    """

    rule: str
    level: Level
    message: str
    tool: str | None = None
    pointer: str = ""
    origin: str | None = None
    target: str | None = None
    effect: str | None = None
    source: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data (keys with no value left out)."""
        full = json_fields(self, "rule level message tool pointer origin target effect source data")
        return {key: value for key, value in full.items() if value not in (None, {}) or key == "pointer"}


@dataclass(frozen=True)
class FindingReport:
    """The findings of one command over what it checked.

    Attributes:
        command: ``check``, ``lint``, ``drift``, ``examples``...
        findings: Every finding, in a stable order (by origin, tool, pointer, rule).
        subjects: The names of what was checked (tools, handlers, prompt files), for the summary and JUnit.
        extra: Command-specific JSON-ready results (e.g. the lint's tool x target matrix).
    """

    command: str
    findings: tuple[Finding, ...]
    subjects: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """The number of findings per level."""
        return {level: sum(finding.level == level for finding in self.findings) for level in LEVELS}

    def failed(self, fail_on: str = "error") -> bool:
        """Whether a finding reaches ``fail_on`` (a level, or ``"never"``)."""
        return any(level_reaches(finding.level, fail_on) for finding in self.findings)

    def exit_code(self, fail_on: str = "error") -> int:
        """``1`` when a finding reaches ``fail_on``, else ``0``."""
        return int(self.failed(fail_on))

    def with_levels(self, levels: Mapping[str, str]) -> FindingReport:
        """The same report with the project's rule levels applied.

        Args:
            levels: ``{rule id: level or "off"}``; a rule id ending in ``/*`` covers every rule under that prefix
                (``"gemini/*": "off"``). The most specific entry wins.

        Returns:
            A report whose findings of an ``"off"`` rule are gone and the others carry their configured level.

        Raises:
            ValueError: A level that is not ``error``, ``warning``, ``info`` or ``off``.
        """
        for rule, level in levels.items():
            if level != "off" and level not in LEVELS:
                raise ValueError(f"rule {rule!r}: a level is one of {', '.join(LEVELS)} or 'off'; got {level!r}")
        findings = []
        for finding in self.findings:
            configured = _configured(finding.rule, levels)
            if configured == "off":
                continue
            findings.append(finding if configured is None else replace(finding, level=_level(configured)))
        return replace(self, findings=tuple(findings))


def _level(name: str) -> Level:
    for level in LEVELS:
        if level == name:
            return level
    raise ValueError(f"a level is one of {', '.join(LEVELS)}; got {name!r}")


def _configured(rule: str, levels: Mapping[str, str]) -> str | None:
    if rule in levels:
        return levels[rule]
    parts = rule.split("/")
    for cut in range(len(parts) - 1, 0, -1):
        wildcard = "/".join(parts[:cut]) + "/*"
        if wildcard in levels:
            return levels[wildcard]
    return None


def sorted_findings(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Findings in the order reports show them: by origin (its numbers as numbers), tool, pointer, rule, target."""
    return tuple(
        sorted(
            findings,
            key=lambda f: (_natural(f.origin or ""), f.tool or "", f.pointer, f.rule, f.target or "", f.message),
        )
    )


def _natural(text: str) -> tuple[str | int, ...]:
    """``tools.yaml:9#1`` before ``tools.yaml:10#2``: the digits of a text compared as numbers (str, int, str...)."""
    return tuple(int(part) if index % 2 else part for index, part in enumerate(_DIGITS.split(text)))
