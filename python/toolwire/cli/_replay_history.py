"""``toolwire replay ... --history DIR|git:PATH [--migrations MODULE[:ATTR]]``: replay through a registry's history.

``toolwire replay`` (``_replay.py``) adds these options with ``add_arguments`` and hands over to ``run`` when
``--history`` is given: each call is checked against the version it was produced under, carried to the last version
through the migrations, and checked there (``RegistryHistory.replay``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from toolwire._common._import_path import import_object
from toolwire.cli._common import importable, show_progress

if TYPE_CHECKING:
    from toolwire.schema.calls import ObservedCall, UnreadableRecord
    from toolwire.schema.history import Migration, Migrations

__all__ = ["add_arguments", "load_migrations", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
    from toolwire.schema.history import Migration, Migrations, default_migrations

    named: list[Iterable[Migration]] = []
    with importable([Path.cwd()]):
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
    """Replay ``calls`` through ``options.history``; 0 when every call is carried, else 1.

    Besides ``--history`` and ``--migrations`` it reads the replay options: ``--output-format`` (text, json or
    markdown), ``--limit`` (failing calls listed per kind), ``--batch-size`` (calls per validation batch),
    ``--fail-on`` (``never`` makes the exit status 0), and refuses ``--tools`` (the current tools are the history's
    last version).

    Raises:
        ValueError: ``--tools`` beside ``--history``, a history or migrations that cannot be read.
        OSError: A history file cannot be read, or git cannot run.
    """
    from toolwire.schema.history import RegistryHistory, replay_history

    if options.tools:
        raise ValueError(
            "--tools and --history: the current tools are the history's last version; drop --tools (or add the "
            "tools to the history as its newest version)"
        )
    history = RegistryHistory.load(options.history)
    migrations = load_migrations(options.migrations or [])
    drawing = show_progress(options)
    report = replay_history(
        history,
        calls,
        migrations,
        limit_failures=options.limit,
        chunk_size=options.batch_size,
        on_progress=_progress if drawing else None,
    )
    if drawing:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    print(report.render(options.output_format), file=out)
    return 0 if options.fail_on == "never" else report.exit_code()
