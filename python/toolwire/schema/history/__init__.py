"""A registry's history: its versions, the migrations between them, and recorded calls replayed through them."""

from __future__ import annotations

from toolwire.schema.history._history import RegistryHistory
from toolwire.schema.history._migrations import Migration, MigrationError, Migrations, default_migrations, migration
from toolwire.schema.history._model import VersionMatch
from toolwire.schema.history._replay import replay_history
from toolwire.schema.history._report import REPORT_FORMATS, CallProblem, HistoryReport
from toolwire.schema.history._sources import RegistryVersion

__all__ = [
    "REPORT_FORMATS",
    "CallProblem",
    "HistoryReport",
    "Migration",
    "MigrationError",
    "Migrations",
    "RegistryHistory",
    "RegistryVersion",
    "VersionMatch",
    "default_migrations",
    "migration",
    "replay_history",
]
