"""Replaying recorded calls through a registry's history: valid when produced, carried forward, valid now.

For each call: its version is resolved (``RegistryHistory.version_of``); it is validated against that version
(``toolwire.validate_many``, one batch per version per chunk of calls); a call valid when produced is carried to
the current version through the registered migrations, and validated against the current version (one batch per
chunk). Between two consecutive versions where the tool's schema changed and no migration is registered, the
arguments are carried unchanged (adding an optional field needs no migration); such a link is listed, and a call
that then fails against the current version is reported as having no migration path.

Every call ends in exactly one outcome: ``carried`` (valid now), or one of ``PROBLEM_KINDS``. Calls are read in
chunks, so memory holds one chunk and the counts, whatever the number of calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final

from toolwire._common._json import compact
from toolwire._model import Severity, Violation
from toolwire._pipeline._bound import core
from toolwire.schema.calls import ObservedCall, UnreadableRecord
from toolwire.schema.history._migrations import Migration, MigrationError, Migrations, default_migrations
from toolwire.schema.history._model import VersionedRegistry, VersionMatch
from toolwire.schema.history._report import CallProblem, HistoryReport, LinkCount, ProblemKind, ToolVersionCount

__all__ = ["replay_history"]

_CHUNK: Final = 10_000


@dataclass(frozen=True)
class _Step:
    start: int
    end: int
    migration: Migration | None


class _Planner:
    """The steps carrying one tool from one version to the current one, computed once per (tool, version)."""

    def __init__(self, history: VersionedRegistry, migrations: Iterable[Migration], notes: list[str]) -> None:
        self.history = history
        self.options: dict[tuple[str, int], list[tuple[int, Migration]]] = {}
        self.cache: dict[tuple[str, int], tuple[_Step, ...]] = {}
        for item in migrations:
            try:
                start, end = history.index(item.from_), history.index(item.to)
            except KeyError as error:
                notes.append(
                    f"migration {item.tool} {item.from_}->{item.to} ({item.where}) is not used: {error.args[0]}"
                )
                continue
            if end <= start:
                notes.append(
                    f"migration {item.tool} {item.from_}->{item.to} ({item.where}) is not used: {item.to} is not "
                    f"later than {item.from_} in this history ({', '.join(history.labels)})"
                )
                continue
            self.options.setdefault((item.tool, start), []).append((end, item))

    def steps(self, tool: str, start: int) -> tuple[_Step, ...]:
        key = (tool, start)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = tuple(self._plan(tool, start))
        return found

    def _plan(self, tool: str, start: int) -> Iterator[_Step]:
        versions = self.history.versions
        position = start
        while position < len(versions) - 1:
            options = self.options.get((tool, position))
            if options:
                # A migration that reaches further (v1->v3 beside v1->v2) is the author's shortcut: take it.
                end, item = max(options, key=lambda option: option[0])
                yield _Step(position, end, item)
                position = end
                continue
            before = versions[position].registry.get(tool)
            after = versions[position + 1].registry.get(tool)
            if (before and before.fingerprint) != (after and after.fingerprint):
                yield _Step(position, position + 1, None)
            position += 1


def _errors(violations: Sequence[Violation]) -> list[Violation]:
    return [violation for violation in violations if violation.severity is Severity.ERROR]


def _describe(violations: Sequence[Violation]) -> str:
    shown = [f"{v.code.value}{' at ' + v.path if v.path else ''}: {v.message}" for v in violations[:3]]
    more = f" (and {len(violations) - 3} more)" if len(violations) > 3 else ""
    return "; ".join(shown) + more


def _codes(violations: Sequence[Violation]) -> tuple[str, ...]:
    return tuple(violation.code.value for violation in violations)


def _arguments_object(text: str) -> dict[str, Any]:
    """The arguments a migration takes; a call valid when produced has an object (or no arguments: ``{}``)."""
    if not text.strip():
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):  # unreachable for a call its own version accepted; kept as a clear failure
        raise MigrationError(f"the arguments are a {type(value).__name__}, not a JSON object")
    return value


class _Replay:
    def __init__(
        self, history: VersionedRegistry, migrations: Migrations, limit_failures: int, report: HistoryReport
    ) -> None:
        self.history = history
        self.report = report
        self.planner = _Planner(history, migrations, report.notes)
        self.last = len(history.versions) - 1
        self.limit_failures = limit_failures

    def _row(self, tool: str, version: str | None) -> ToolVersionCount:
        key = (tool, version)
        row = self.report.rows.get(key)
        if row is None:
            row = self.report.rows[key] = ToolVersionCount()
        return row

    def _link(self, tool: str, step: _Step) -> LinkCount:
        versions = self.history.versions
        key = (tool, versions[step.start].label, versions[step.end].label)
        link = self.report.links.get(key)
        if link is None:
            link = self.report.links[key] = LinkCount(step.migration.where if step.migration else None)
        return link

    def _problem(
        self,
        kind: ProblemKind,
        call: ObservedCall,
        match: VersionMatch,
        reason: Callable[[], str],
        codes: tuple[str, ...],
    ) -> None:
        """Count the call under ``kind``; build its entry (and its reason's text) only while the list has room."""
        report = self.report
        report.counts[kind] += 1
        kept = report.problems[kind]
        if len(kept) < report.limit_failures:
            label = match.version.label if match.version is not None else None
            kept.append(CallProblem(kind, call.id, call.origin, call.name, label, match.rule, reason(), codes))

    def _produced(self, calls: list[ObservedCall], matches: list[VersionMatch]) -> list[list[Violation]]:
        """Each call's violations under its own version: one batch per version (nothing for unknown versions)."""
        groups: dict[int, list[int]] = {}
        for position, match in enumerate(matches):
            self.report.by_rule[match.rule] += 1
            if match.index is not None:
                groups.setdefault(match.index, []).append(position)
        produced: list[list[Violation]] = [[] for _ in calls]
        for index, positions in groups.items():
            found = core.validate_many(
                [(calls[p].name, calls[p].arguments) for p in positions], self.history.versions[index].registry
            )
            for position, violations in zip(positions, found, strict=True):
                produced[position] = violations
        return produced

    def chunk(self, items: Sequence[ObservedCall | UnreadableRecord]) -> None:
        report = self.report
        calls: list[ObservedCall] = []
        for item in items:
            if isinstance(item, UnreadableRecord):
                report._add(CallProblem("unreadable", None, item.origin, None, None, "", item.reason))
            else:
                calls.append(item)
        report.calls += len(calls)
        matches = [self.history.version_of(call) for call in calls]
        produced = self._produced(calls, matches)
        pending: list[tuple[int, str, tuple[_Step, ...]]] = []
        for position, (call, match) in enumerate(zip(calls, matches, strict=True)):
            carried = self._carry(call, match, produced[position])
            if carried is not None:
                pending.append((position, *carried))
        if not pending:
            return
        current = self.history.current.registry
        verdicts = core.validate_many([(calls[position].name, text) for position, text, _ in pending], current)
        for (position, _, steps), violations in zip(pending, verdicts, strict=True):
            self._judge(calls[position], matches[position], steps, _errors(violations))

    def _carry(
        self, call: ObservedCall, match: VersionMatch, produced: list[Violation]
    ) -> tuple[str, tuple[_Step, ...]] | None:
        """The arguments to check against the current version, and the steps taken; None when already decided."""
        if match.index is None:
            return call.arguments, ()
        row = self._row(call.name, match.version.label if match.version else None)
        row.calls += 1
        errors = _errors(produced)
        if errors:
            row.invalid_when_produced += 1
            label = match.version.label if match.version else "?"
            self._problem(
                "invalid_when_produced", call, match, lambda: f"{label} refuses it: {_describe(errors)}", _codes(errors)
            )
            return None
        if match.index == self.last:
            row.carried += 1
            self.report.carried += 1
            return None
        steps = self.planner.steps(call.name, match.index)
        for step in steps:
            self._link(call.name, step).calls += 1
        if not any(step.migration for step in steps):
            return call.arguments, steps
        try:
            arguments = _arguments_object(call.arguments)
            for step in steps:
                if step.migration is not None:
                    try:
                        arguments = step.migration(arguments)
                    except MigrationError:
                        self._link(call.name, step).failed += 1
                        raise
        except (MigrationError, ValueError) as error:
            row.cannot_migrate += 1
            message = str(error)
            self._problem("migration_failed", call, match, lambda: message, ())
            return None
        return compact(arguments), steps

    def _judge(
        self, call: ObservedCall, match: VersionMatch, steps: tuple[_Step, ...], errors: list[Violation]
    ) -> None:
        current = self.history.current.label
        if match.index is None:
            row = self._row(call.name, None)
            row.calls += 1

            def unknown() -> str:
                verdict = f"{current} refuses it: {_describe(errors)}" if errors else f"{current} accepts it"
                return f"{match.reason}; {verdict}"

            self._problem("unknown_version", call, match, unknown, _codes(errors))
            if errors:
                row.unknown_invalid_now += 1
            return
        row = self._row(call.name, match.version.label if match.version else None)
        migrated = any(step.migration for step in steps)
        if not errors:
            row.carried += 1
            row.migrated += migrated
            self.report.carried += 1
            return
        row.cannot_migrate += 1
        versions = self.history.versions
        missing = [step for step in steps if step.migration is None]
        for step in missing:
            self._link(call.name, step).failed += 1

        def refusal() -> str:
            return f"{current} refuses it: {_describe(errors)}"

        if missing:

            def stranded() -> str:
                gaps = ", ".join(f"{versions[s.start].label}->{versions[s.end].label}" for s in missing)
                return (
                    f"no migration of {call.name} for {gaps} (the schema changed there); carried unchanged, {refusal()}"
                )

            self._problem("no_migration_path", call, match, stranded, _codes(errors))
        else:

            def failed() -> str:
                chain = ", ".join(
                    f"{versions[s.start].label}->{versions[s.end].label} ({s.migration.where})"
                    for s in steps
                    if s.migration is not None
                )
                return f"migrated by {chain}; {refusal()}"

            self._problem("invalid_after_migration", call, match, failed, _codes(errors))


def replay_history(
    history: VersionedRegistry,
    calls: Iterable[ObservedCall | UnreadableRecord],
    migrations: Migrations | Iterable[Migration] | None = None,
    *,
    limit_failures: int = 20,
    chunk_size: int = _CHUNK,
    on_progress: Callable[[int], None] | None = None,
) -> HistoryReport:
    """Check every call against the version it was produced under, carry it forward, check it against the current.

    Args:
        history: The registry's versions.
        calls: ``ObservedCall``s and ``UnreadableRecord``s, as ``read_calls`` yields them (any iterable; read in
            chunks).
        migrations: The migrations to use; None uses the default collection (``@toolwire.migration``).
        limit_failures: How many calls of each problem kind the report lists (every one is counted).
        chunk_size: Calls validated per batch.
        on_progress: Called with the number of records read so far after each chunk.

    Returns:
        The report.

    Raises:
        ValueError: ``limit_failures`` is negative or ``chunk_size`` is not positive.
    """
    if limit_failures < 0:
        raise ValueError(f"limit_failures must be 0 or more; got {limit_failures}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1; got {chunk_size}")
    chosen = default_migrations() if migrations is None else migrations
    report = HistoryReport(
        versions=[
            {
                "label": version.label,
                "started": version.started.isoformat() if version.started else None,
                "origin": version.origin,
                "tools": len(version.registry),
                "fingerprint": version.registry.fingerprint,
            }
            for version in history.versions
        ],
        skipped=list(history.skipped),
        current=history.current.label,
        limit_failures=limit_failures,
    )
    replay = _Replay(history, chosen if isinstance(chosen, Migrations) else Migrations(chosen), limit_failures, report)
    iterator = iter(calls)
    done = 0
    while batch := list(islice(iterator, chunk_size)):
        replay.chunk(batch)
        done += len(batch)
        if on_progress is not None:
            on_progress(done)
    return report
