"""What version resolution decides for a call, and what a replay reads of a history.

``RegistryHistory`` resolves calls into ``VersionMatch`` values; the replay reads a history through
``VersionedRegistry``, which ``RegistryHistory`` has, so that the history can offer ``replay`` without the replay
having to know the history's class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from toolwire.schema.history._sources import RegistryVersion

__all__ = ["CallLike", "ResolutionRule", "VersionMatch", "VersionedRegistry"]

#: Which rule decided a call's version.
ResolutionRule = Literal["fingerprint", "time", "unknown"]


class CallLike(Protocol):
    """What version resolution reads of a call (``toolwire.schema.ObservedCall`` has it)."""

    @property
    def name(self) -> str:
        """The tool name."""
        ...

    @property
    def ts(self) -> datetime | None:
        """When the call was made."""
        ...

    @property
    def schema_fingerprint(self) -> str | None:
        """The fingerprint of the tool definition the call was produced under."""
        ...


@dataclass(frozen=True, slots=True)
class VersionMatch:
    """Which version a call was produced under, and why.

    Attributes:
        version: The version, or None when no rule decides.
        index: Its position in the history (0 is the oldest), or None.
        rule: ``"fingerprint"``, ``"time"`` or ``"unknown"``.
        explain: Builds ``reason``; kept unevaluated because a replay resolves every call but explains few.
    """

    version: RegistryVersion | None
    index: int | None
    rule: ResolutionRule
    explain: Callable[[], str] = field(repr=False, compare=False)

    @property
    def reason(self) -> str:
        """The evidence, in a sentence: which fingerprint matched where, which start times bound ``ts``."""
        return self.explain()


class VersionedRegistry(Protocol):
    """What a replay reads of a registry history (``RegistryHistory`` has it)."""

    @property
    def versions(self) -> tuple[RegistryVersion, ...]:
        """The versions, oldest first."""
        ...

    @property
    def skipped(self) -> tuple[tuple[str, str], ...]:
        """``(label, reason)`` of versions that could not be read."""
        ...

    @property
    def current(self) -> RegistryVersion:
        """The last version."""
        ...

    @property
    def labels(self) -> tuple[str, ...]:
        """The versions' labels, oldest first."""
        ...

    def index(self, label: str) -> int:
        """The position of the version called ``label`` (its label or an alias)."""
        ...

    def version_of(self, call: CallLike) -> VersionMatch:
        """Which version ``call`` was produced under, and why."""
        ...
