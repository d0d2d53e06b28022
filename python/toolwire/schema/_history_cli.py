"""``toolwire replay ... --history DIR|git:PATH [--migrations MODULE[:ATTR]]``: replay through a registry's history.

``toolwire replay`` (``_replay_cli.py``) adds these options with ``add_options`` and hands its calls to ``run``
when ``--history`` is given: each call is checked against the version it was produced under, carried to the last
version through the migrations, and checked there (``RegistryHistory.replay``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from toolwire.schema._calls import ObservedCall, UnreadableRecord
from toolwire.schema._history import RegistryHistory
from toolwire.schema._history_replay import REPORT_FORMATS, replay_history
from toolwire.schema._migrations import Migration, Migrations, default_migrations
from toolwire.schema._sources import import_object

__all__ = ["add_options", "load_migrations", "run"]

_DEFAULT_LIMIT = 20
_DEFAULT_CHUNK = 10_000


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--history`` and ``--migrations`` to the ``replay`` parser."""
    group = parser.add_argument_group(
        "schema history",
        "check each call against the registry version it was produced under (by schema_fingerprint, else by ts), "
        "carry it to the last version through migrations, and check it there",
    )
    group.add_argument(
        "--history",
        metavar="DIR|git:PATH",
        help="the registry's versions: a directory of registry files (natural order of their names; dates from a "
        "released key or a leading YYYY-MM-DD; or a history.yaml manifest), or git:PATH for every commit that "
        "changed the file",
    )
    group.add_argument(
        "--migrations",
        action="append",
        metavar="MODULE[:ATTR]",
        help="import MODULE so that its @toolwire.migration functions register (repeatable); MODULE:ATTR names a "
        "toolwire.Migrations collection instead",
    )


@contextmanager
def _importable(folders: Sequence[Path]) -> Iterator[None]:
    """The working directory on ``sys.path`` while migrations are imported (a console script does not add it)."""
    added = [str(folder) for folder in folders if str(folder) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for folder in added:
            sys.path.remove(folder)


def load_migrations(specs: Sequence[str]) -> Migrations:
    """The migrations ``--migrations`` names, with those registered by ``@toolwire.migration``.

    Args:
        specs: ``MODULE`` (imported; its decorated functions register in the default collection) or
            ``MODULE:ATTR`` (a ``Migrations`` object, or an iterable of ``Migration``).

    Returns:
        One collection: the default one's migrations, then each ``MODULE:ATTR``'s.

    Raises:
        ValueError: A module or attribute cannot be imported, an attribute is no collection of migrations, or two
            migrations of the same tool and versions clash.
    """
    named: list[Iterable[Migration]] = []
    with _importable([Path.cwd()]):
        for spec in specs:
            if ":" in spec:
                value: Any = import_object(spec, "--migrations")
                if not isinstance(value, Migrations) and not (
                    isinstance(value, (list, tuple)) and all(isinstance(item, Migration) for item in value)
                ):
                    raise ValueError(
                        f"--migrations {spec}: {type(value).__name__} is not a toolwire.Migrations collection; name "
                        "one, or name the module alone to use its @toolwire.migration functions"
                    )
                named.append(value)
                continue
            try:
                importlib.import_module(spec)
            except ImportError as error:
                raise ValueError(
                    f"--migrations: cannot import {spec!r} ({error}); write package.module or package.module:attr"
                ) from error
    found = Migrations(default_migrations())
    for collection in named:
        found.update(collection)
    return found


def _progress(done: int) -> None:
    print(f"\r{done} records", end="", file=sys.stderr, flush=True)


def run(options: argparse.Namespace, calls: Iterable[ObservedCall | UnreadableRecord], out: TextIO) -> int:
    """Replay ``calls`` through ``options.history``; 0 when every call is carried, 1 otherwise.

    Reads ``options.history`` and ``options.migrations``, and from the replay parser, when it has them:
    ``options.format`` (text, json or markdown), ``options.limit`` (failing calls listed per kind),
    ``options.batch_size`` (calls per validation batch), ``options.fail_on`` (``never`` makes the exit status 0)
    and ``options.tools`` (refused: the current tools are the history's last version).

    Raises:
        ValueError: An unsupported format, ``--tools`` beside ``--history``, a history or migrations that cannot
            be read.
        OSError: A history file cannot be read, or git cannot run.
    """
    fmt = getattr(options, "format", None) or "text"
    if fmt not in REPORT_FORMATS:
        raise ValueError(f"--history reports as {', '.join(REPORT_FORMATS)}; got --format {fmt}")
    if getattr(options, "tools", None):
        raise ValueError(
            "--tools and --history: the current tools are the history's last version; drop --tools (or add the "
            "tools to the history as its newest version)"
        )
    history = RegistryHistory.load(options.history)
    migrations = load_migrations(getattr(options, "migrations", None) or [])
    limit = getattr(options, "limit", None)
    terminal = sys.stderr.isatty()
    report = replay_history(
        history,
        calls,
        migrations,
        limit_failures=_DEFAULT_LIMIT if limit is None else limit,
        chunk_size=getattr(options, "batch_size", None) or _DEFAULT_CHUNK,
        on_progress=_progress if terminal else None,
    )
    if terminal:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    print(report.render(fmt), file=out)
    return 0 if getattr(options, "fail_on", None) == "never" else report.exit_code()
