"""``toolwire.schema.diff_tools``: what a change to a tool registry does, as a list of concrete consequences.

OLD and NEW (files, directories, import paths, ``git:REV:PATH``, definitions, tools or registries) are read
(``_sources``), each schema normalised so that spellings never show as changes (``_normalize``), tools
matched by name with probable renames recognised (``_tools``), and the parameters walked into typed changes
(``_walk``). Each change carries the research note's checks (``_rubric``: replay, handler, behaviour,
provider) folded into BREAKING, RISKY or COMPATIBLE. Then, as asked:

1. provider regressions per lint target (``_provider``);
2. the handler check, against the tools' handlers (``_handlers``);
3. recorded calls, validated against both sides, pinned to the changes they break and deciding the rubric's
   evidence-dependent rows (``_evidence``);
4. the team's policy: severities per kind and waivers for intended breaks (``_policy``).

The ``DiffReport`` renders through the schema toolkit's ``render`` (``_report``); ``toolwire diff`` is the
command (``toolwire.cli._diff``).
"""

from __future__ import annotations

import datetime
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from toolwire.schema.diff._change import ABSENT, Change
from toolwire.schema.diff._evidence import DEFAULT_EVIDENCE_LIMIT, Evidence, apply_evidence, read_evidence
from toolwire.schema.diff._handlers import apply_handlers, resolve_handlers
from toolwire.schema.diff._policy import Policy, apply_policy, load_policy_file, parse_policy
from toolwire.schema.diff._provider import provider_changes
from toolwire.schema.diff._report import DiffReport
from toolwire.schema.diff._rubric import CHANGE_KINDS, Checks, KindSpec
from toolwire.schema.diff._sources import label_of, read_side
from toolwire.schema.diff._tools import Side, compare_tools, side_of

__all__ = ["ABSENT", "CHANGE_KINDS", "Change", "Checks", "DiffReport", "KindSpec", "Policy", "diff_tools"]


def _policy(policy: Policy | Mapping[str, Any] | str | os.PathLike[str] | None) -> Policy:
    if policy is None:
        return Policy()
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, Mapping):
        return parse_policy(policy)
    if isinstance(policy, (str, os.PathLike)):
        return load_policy_file(Path(policy))
    raise TypeError(f"policy: a Policy, a mapping or a rules file path; got {type(policy).__name__}")


def _notes(side: Side) -> dict[str, dict[str, int]]:
    notes: dict[str, Counter[str]] = defaultdict(Counter)
    for tool, found in side.notes.items():
        for note in found:
            notes[note.kind][tool] += 1
    return {kind: dict(sorted(counts.items())) for kind, counts in sorted(notes.items())}


def _targets(targets: str | Iterable[str]) -> tuple[str, ...]:
    if not targets:
        return ()
    from toolwire.schema.lint import resolve_targets

    return resolve_targets(targets)


def diff_tools(
    old: Any,
    new: Any,
    *,
    targets: str | Iterable[str] = (),
    evidence: Any = None,
    policy: Policy | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    handlers: Mapping[str, Any] | None = None,
    strict_optional_semantics: bool = False,
    evidence_limit: int | None = None,
    evidence_query: str | None = None,
    today: datetime.date | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> DiffReport:
    """Compare two versions of a tool registry.

    Args:
        old: The version callers were built against: a path, a directory, a ``package.module:attr`` import path or
            ``git:REV:PATH`` (or a list of them), ``ToolSource``s, definitions, ``Tool``s or a ``ToolRegistry``.
        new: The version to ship, in any of the same forms.
        targets: Lint targets for provider regressions (``"openai-strict"``, a comma-separated list, ``"all"``).
        evidence: Recorded calls: what ``read_calls`` reads (JSONL of calls, conversation logs, recordings, database
            URLs), or ``ObservedCall``s already read, or an ``Evidence``.
        policy: A ``Policy``, a policy table (``[tool.toolwire.diff]``'s keys) or a rules file.
        handlers: Handlers by tool name (objects or ``package.module:attr``), for the handler check.
        strict_optional_semantics: Read OpenAI-strict's "required and nullable" as optional (the validator treats
            a missing key as null); the policy's setting also turns it on.
        evidence_limit: Failing calls listed per change (default: the policy's, else 5).
        evidence_query: The SQL selecting calls from database evidence sources.
        today: The date sunsets and waivers are judged against (today by default).
        cwd: Where git runs for ``git:`` sources (the working directory by default).

    Returns:
        The report: changes with checks and verdicts, the overall verdict, findings to render.

    Raises:
        ValueError: A source, policy, target or handler that cannot be used (named, with the fix).
        OSError: A file or git that cannot be read.
        TypeError: Something that is not a tool source, policy or evidence.
    """
    chosen = _policy(policy)
    strict = strict_optional_semantics or bool(chosen.strict_optional_semantics)
    old_side = side_of(label_of(old), read_side(old, cwd=cwd), strict_optional=strict)
    new_side = side_of(label_of(new), read_side(new, cwd=cwd), strict_optional=strict)
    changes: list[Change] = compare_tools(old_side, new_side, today=today)
    lint_targets = _targets(targets or chosen.targets)
    renamed = {str(c.old): str(c.new) for c in changes if c.kind == "tool-renamed"}
    changes += provider_changes(old_side, new_side, lint_targets, renamed)
    if handlers:
        changes = apply_handlers(changes, new_side, resolve_handlers(handlers))
    problems = [*old_side.problems, *new_side.problems]
    summary = None
    if evidence is not None:
        calls: Evidence = read_evidence(evidence, query=evidence_query)
        limit = evidence_limit if evidence_limit is not None else chosen.evidence_limit
        changes, summary, found = apply_evidence(
            changes, calls, old_side, new_side, limit=DEFAULT_EVIDENCE_LIMIT if limit is None else limit
        )
        problems += found
    changes, found = apply_policy(changes, chosen, today=today)
    problems += found
    return DiffReport(
        old_side.label,
        new_side.label,
        tuple(changes),
        tuple(problems),
        summary,
        lint_targets,
        {"old": _notes(old_side), "new": _notes(new_side)},
        tuple(dict.fromkeys((*old_side.tools, *new_side.tools))),
    )
