"""A registry's history: its versions in order, each with a label and, when known, the time it started.

Where versions come from:

- ``RegistryHistory(versions)``: ``RegistryVersion`` objects or ``(label, tools[, started])`` tuples, in order.
- ``RegistryHistory.from_directory(path)``: one registry file per version (``.json``, ``.yaml``/``.yml``,
  ``.jsonl``; not recursive). Without a manifest, the label is the file's stem and versions are in natural order of
  the stems (``v2`` before ``v10``; ISO dates sort as dates). A version's start is the file's top-level
  ``released`` key (``{"released": "2026-03-01", "tools": [...]}``), else a leading ISO date in the file name
  (``2026-03-01-priority.yaml``), else unknown. A manifest ``history.yaml`` (or ``.yml``/``.json``) lists the
  versions instead, in order: ``versions: [{file, label?, released?}, ...]``; every registry file of the directory
  must then be listed, so that none is ignored unnoticed.
- ``RegistryHistory.from_git(path, repo=".")``: every commit that changed the file (renames followed), oldest
  first; the label is the short hash (the full hash and tags on the commit are aliases), the start is the commit
  time. A commit whose file does not load is kept in ``skipped`` with the reason.

Start times must not decrease along the order (a ``ValueError`` names the two versions).

Which version a call was produced under (``version_of``):

1. **fingerprint**: the call's ``schema_fingerprint`` is a tool's ``Tool.fingerprint`` (or a whole registry's
   ``ToolRegistry.fingerprint``) in some version. When several versions share that schema, the call's ``ts`` picks
   the latest of them started at or before it; without ``ts``, the latest of them.
2. **time**: else the call's ``ts`` falls after the start of one version and before the start of the next. A
   version without a start time only takes part when it is the only version that can hold the call (the first
   version, when ``ts`` is before the second one started; or one undated version between two dated ones).
3. **unknown**: neither decides; ``VersionMatch.reason`` says why.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timezone
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolwire.registry import ToolRegistry
from toolwire.schema.history._model import CallLike, ResolutionRule, VersionMatch
from toolwire.schema.history._report import HistoryReport
from toolwire.schema.history._sources import RegistryVersion, instant, versions_from_directory, versions_from_git

if TYPE_CHECKING:
    from toolwire.schema.history._migrations import Migrations

__all__ = ["CallLike", "RegistryHistory", "RegistryVersion", "ResolutionRule", "VersionMatch", "instant"]


def _stamp(moment: datetime) -> str:
    return moment.isoformat()


def _short(fingerprint: str) -> str:
    return fingerprint[:19] + "…" if len(fingerprint) > 20 else fingerprint


class RegistryHistory:
    """The versions of a registry, oldest first; the last one is ``current``.

    Example:
        >>> v1 = {"create_ticket": {"type": "object", "properties": {"title": {"type": "string"}}}}
        >>> v2 = {"create_ticket": {"type": "object", "properties": {"title": {"type": "string"},
        ...                                                          "priority": {"type": "string"}}}}
        >>> history = RegistryHistory([("v1", v1, "2026-01-05"), ("v2", v2, "2026-03-01")])
        >>> history.labels, history.current.label
        (('v1', 'v2'), 'v2')
    """

    __slots__ = ("_by_registry", "_by_tool", "_dated", "_starts", "_tool_names", "_unique", "skipped", "versions")

    versions: tuple[RegistryVersion, ...]
    skipped: tuple[tuple[str, str], ...]

    def __init__(
        self,
        versions: Iterable[RegistryVersion | Sequence[Any]],
        *,
        skipped: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Build a history from versions in order.

        Args:
            versions: ``RegistryVersion`` objects, or ``(label, tools)`` / ``(label, tools, started)`` tuples where
                ``tools`` is anything ``ToolRegistry`` loads and ``started`` a date, datetime, ISO text or None.
            skipped: ``(label, reason)`` of versions that could not be read (reported, not used).

        Raises:
            ValueError: No versions, a label given twice, or start times that decrease along the order.
            TypeError: An item is neither a ``RegistryVersion`` nor a tuple of 2 or 3 items.
        """
        built = [self._version(item, number) for number, item in enumerate(versions)]
        if not built:
            raise ValueError("a registry history needs at least one version")
        seen: dict[str, str] = {}
        for version in built:
            for name in (version.label, *version.aliases):
                if name in seen and seen[name] != version.label:
                    raise ValueError(f"versions {seen[name]!r} and {version.label!r} are both called {name!r}")
                if name == version.label and name in seen:
                    raise ValueError(f"two versions are labelled {name!r}; labels must be unique")
                seen[name] = version.label
        dated = [version for version in built if version.started is not None]
        for before, after in pairwise(dated):
            assert before.started is not None and after.started is not None
            if after.started < before.started:
                raise ValueError(
                    f"version {after.label!r} ({after.origin or 'given'}) started {_stamp(after.started)}, before the "
                    f"version it follows, {before.label!r}, started ({_stamp(before.started)}); order the versions "
                    "by time or fix the dates"
                )
        self.versions = tuple(built)
        self.skipped = tuple(skipped)
        self._starts = [version.started for version in self.versions]
        # A fingerprint found in one version always resolves the same way: its match is made once.
        self._unique: dict[str, VersionMatch] = {}
        known = [start for start in self._starts if start is not None]
        # Every version dated (the usual case): the start times are sorted, so a bisection finds the version.
        self._dated: list[datetime] | None = known if len(known) == len(self._starts) else None
        self._by_tool: dict[str, list[int]] = {}
        self._tool_names: dict[str, str] = {}
        self._by_registry: dict[str, list[int]] = {}
        for index, version in enumerate(self.versions):
            self._by_registry.setdefault(version.registry.fingerprint, []).append(index)
            for tool in version.registry:
                self._by_tool.setdefault(tool.fingerprint, []).append(index)
                self._tool_names[tool.fingerprint] = tool.name

    @staticmethod
    def _version(item: RegistryVersion | Sequence[Any], number: int) -> RegistryVersion:
        if isinstance(item, RegistryVersion):
            return item
        if isinstance(item, (tuple, list)) and len(item) in (2, 3):
            label = item[0]
            if not isinstance(label, str) or not label:
                raise TypeError(f"versions[{number}]: the label must be a non-empty str; got {label!r}")
            started = item[2] if len(item) == 3 else None
            moment = None if started is None else instant(started, f"versions[{number}] ({label}) start")
            try:
                registry = ToolRegistry.load(item[1])
            except TypeError as error:
                raise TypeError(f"versions[{number}] ({label}): {error}") from error
            except ValueError as error:
                raise ValueError(f"versions[{number}] ({label}): {error}") from error
            return RegistryVersion(label, registry, moment, f"versions[{number}]")
        raise TypeError(
            f"versions[{number}]: expected a RegistryVersion or a (label, tools[, started]) tuple; got "
            f"{type(item).__name__}"
        )

    # -- reading -----------------------------------------------------------------------------------------------------

    @classmethod
    def from_directory(cls, path: str | Path) -> RegistryHistory:
        """The versions of a directory of registry files (see the module docstring for order, labels and dates).

        Args:
            path: The directory.

        Returns:
            The history.

        Raises:
            FileNotFoundError: No such directory.
            NotADirectoryError: The path is a file.
            ValueError: No registry files, a file or the manifest that does not load (naming the file, the
                definition and the problem), two files with the same stem, a file the manifest does not list, or
                dates that disagree or decrease.
        """
        return cls(versions_from_directory(path))

    @classmethod
    def from_git(cls, path: str | Path, repo: str | Path = ".") -> RegistryHistory:
        """The versions of one file in a git repository: every commit that changed it, oldest first.

        Renames are followed. The label is the short hash; the full hash and the commit's tags are aliases, so a
        migration may name a version ``from_="v1.4"`` when that commit is tagged so. The start is the commit time.
        A commit whose file does not load (or deleted it) is kept in ``skipped`` with the reason.

        Args:
            path: The registry file, relative to ``repo`` (or absolute).
            repo: A directory inside the repository.

        Returns:
            The history.

        Raises:
            OSError: ``git`` cannot be run.
            ValueError: Not a repository, no commit ever changed the file, or none of its versions loads.
        """
        versions, skipped = versions_from_git(path, repo)
        return cls(versions, skipped=skipped)

    @classmethod
    def load(cls, spec: str | Path) -> RegistryHistory:
        """A history from the command line's spelling: a directory, or ``git:PATH`` for a file's git history.

        Raises:
            As ``from_directory`` and ``from_git``.
        """
        text = str(spec)
        if text.startswith("git:"):
            target = Path(text[4:])
            if not text[4:]:
                raise ValueError("--history git:PATH needs the path of a registry file after git:")
            return cls.from_git(target.name, repo=target.parent)
        return cls.from_directory(text)

    # -- looking up --------------------------------------------------------------------------------------------------

    @property
    def current(self) -> RegistryVersion:
        """The last version: what calls are carried forward to."""
        return self.versions[-1]

    @property
    def labels(self) -> tuple[str, ...]:
        """The versions' labels, oldest first."""
        return tuple(version.label for version in self.versions)

    def index(self, label: str) -> int:
        """The position of the version ``label`` names (a label, an alias, or a commit hash prefix).

        Raises:
            KeyError: No version answers to it (the labels are listed).
        """
        for position, version in enumerate(self.versions):
            if version.answers_to(label):
                return position
        raise KeyError(f"no version {label!r} in this history; versions: {', '.join(self.labels)}")

    def __getitem__(self, label: str) -> RegistryVersion:
        """The version ``label`` names (see ``index``)."""
        return self.versions[self.index(label)]

    def __iter__(self) -> Iterator[RegistryVersion]:
        """The versions, oldest first."""
        return iter(self.versions)

    def __len__(self) -> int:
        """The number of versions."""
        return len(self.versions)

    def __repr__(self) -> str:
        """The labels and the current version."""
        return f"RegistryHistory({list(self.labels)!r}, current={self.current.label!r})"

    def version_of(self, call: CallLike) -> VersionMatch:
        """The version ``call`` was produced under: by fingerprint, else by time, else unknown.

        Args:
            call: An ``ObservedCall`` (or anything with ``name``, ``ts`` and ``schema_fingerprint``).

        Returns:
            The version, its index, the rule that decided and the evidence (``reason``).
        """
        fingerprint = call.schema_fingerprint
        ts = call.ts
        if ts is not None and ts.tzinfo is None:
            ts = ts.replace(tzinfo=timezone.utc)
        if fingerprint:
            known = self._unique.get(fingerprint)
            if known is not None:
                return known
            found = self._by_tool.get(fingerprint)
            whole = found is None
            if found is None:
                found = self._by_registry.get(fingerprint)
            if found is not None:
                match = self._by_fingerprint(found, self._what(fingerprint, whole), ts)
                if len(found) == 1:
                    self._unique[fingerprint] = match
                return match

        # The texts of a reason are only built when it is read: a replay resolves every call and explains few.
        def unmatched() -> str:
            return f"{self._what(fingerprint, False)()} matches no version; " if fingerprint else ""

        if ts is None:
            reason = "no ts" if fingerprint else "no schema_fingerprint and no ts"
            return VersionMatch(None, None, "unknown", lambda: unmatched() + reason)
        return self._by_time(ts, unmatched)

    def _what(self, fingerprint: str, whole: bool) -> Callable[[], str]:
        def what() -> str:
            name = self._tool_names.get(fingerprint)
            kind = " (the whole registry)" if whole else f" ({name})" if name is not None else ""
            return f"schema_fingerprint {_short(fingerprint)}{kind}"

        return what

    def _match(self, index: int | None, rule: ResolutionRule, explain: Callable[[], str]) -> VersionMatch:
        return VersionMatch(None if index is None else self.versions[index], index, rule, explain)

    def _by_fingerprint(self, found: list[int], what: Callable[[], str], ts: datetime | None) -> VersionMatch:
        def labels() -> str:
            return ", ".join(self.versions[i].label for i in found)

        if len(found) == 1:
            return self._match(found[0], "fingerprint", lambda: f"{what()} is in {labels()}")
        if ts is not None:
            started = [i for i in found if (start := self._starts[i]) is not None and start <= ts]
            if started:
                index = started[-1]
                label = self.versions[index].label
                return self._match(
                    index, "fingerprint", lambda: f"{what()} is in {labels()}; ts {_stamp(ts)} picks {label}"
                )

        def latest() -> str:
            why = "no ts" if ts is None else f"none started by ts {_stamp(ts)}"
            return f"{what()} is in {labels()}; {why}, so the latest"

        return self._match(found[-1], "fingerprint", latest)

    def _bounds(self, ts: datetime) -> tuple[int | None, int]:
        """The last version started at or before ``ts`` (None: none), and the first after it started later."""
        if self._dated is not None:
            last = bisect_right(self._dated, ts) - 1
            return (last if last >= 0 else None), last + 1
        starts = self._starts
        low = next((i for i in range(len(starts) - 1, -1, -1) if (s := starts[i]) is not None and s <= ts), None)
        high = next(
            (i for i in range(0 if low is None else low + 1, len(starts)) if (s := starts[i]) is not None and s > ts),
            len(starts),
        )
        return low, high

    def _by_time(self, ts: datetime, prefix: Callable[[], str]) -> VersionMatch:
        low, high = self._bounds(ts)
        candidates = range(0 if low is None else low, high)
        if not candidates:  # the first version is dated, after ts

            def early() -> str:
                first = self.versions[0]
                assert first.started is not None
                return f"{prefix()}ts {_stamp(ts)} is before the first version {first.label} started ({_stamp(first.started)})"

            return self._match(None, "unknown", early)
        if len(candidates) > 1:

            def ambiguous() -> str:
                labels = ", ".join(self.versions[i].label for i in candidates)
                undated = ", ".join(self.versions[i].label for i in candidates if self._starts[i] is None)
                return f"{prefix()}ts {_stamp(ts)} could be in any of {labels} ({undated} without a start time; give it one)"

            return self._match(None, "unknown", ambiguous)

        def bounded() -> str:
            version = self.versions[candidates[0]]
            following = self.versions[high] if high < len(self.versions) else None
            parts = []
            if version.started is not None:
                parts.append(f"after {version.label} started ({_stamp(version.started)})")
            if following is not None and following.started is not None:
                parts.append(f"before {following.label} started ({_stamp(following.started)})")
            return f"{prefix()}ts {_stamp(ts)} is {' and '.join(parts)}"

        return self._match(candidates[0], "time", bounded)

    # -- replaying ---------------------------------------------------------------------------------------------------

    def replay(
        self, calls: Iterable[Any], migrations: Migrations | None = None, *, limit_failures: int = 20
    ) -> HistoryReport:
        """Check each call against its version, carry it to ``current`` through ``migrations``, check it there.

        Args:
            calls: ``ObservedCall``s (``UnreadableRecord``s among them are counted and listed), e.g. from
                ``toolwire.schema.read_calls``.
            migrations: The migrations to use; None uses the ones registered with ``@toolwire.migration``.
            limit_failures: How many failing calls of each kind the report lists (all are counted).

        Returns:
            The report (``toolwire.schema.HistoryReport``).
        """
        from toolwire.schema.history._replay import replay_history

        return replay_history(self, calls, migrations, limit_failures=limit_failures)
