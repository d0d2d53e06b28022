"""Tool calls already made, read from where they were kept: call logs, conversation logs, recordings, databases.

``read_calls`` takes one source or many and yields one ``ObservedCall`` per call, in source order, or an
``UnreadableRecord`` for a record that is not a call (kept and reported, never dropped). A source is:

- a JSONL file (``.jsonl``, or ``.jsonl.gz``) read line by line; each line is detected on its own: an object with
  ``name`` is a call record, an object with ``messages`` (or ``role``, ``input``, ``output``) or a JSON list is a
  conversation log (OpenAI Chat, Responses or Anthropic message lists: every assistant tool call inside);
- a JSON file (``.json``): one record, a list of records, or one conversation;
- ``"-"``: JSONL on standard input;
- a recording (``.sse``/``.jsonl`` with its ``.json`` manifest) or a directory: every recording in it, reassembled,
  and every other ``.jsonl``/``.json`` file in it read as a log, in name order;
- a database URL: ``sqlite:///path`` (the standard library's ``sqlite3``, nothing to install) or any SQLAlchemy
  URL (``postgresql+psycopg://user@host/db``), with ``query`` selecting columns named ``id``, ``name`` and
  ``arguments`` (and optionally ``ts`` and ``schema_fingerprint``); rows are streamed, never loaded whole.

The keys of a call record, and the values yielded, are in ``_model``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path

from toolwire.schema.calls._model import ObservedCall, RawCall, Source, UnreadableRecord, is_database_url, observed

__all__ = ["iter_raw", "read_calls"]


def _sources(sources: Source | Iterable[Source]) -> list[Source]:
    if isinstance(sources, (str, os.PathLike)):
        return [sources]
    if isinstance(sources, Iterable):
        found = list(sources)
        for item in found:
            if not isinstance(item, (str, os.PathLike)):
                raise TypeError(
                    f"read_calls takes paths, '-' (stdin) and database URLs; got {type(item).__name__} {item!r:.60}"
                )
        return found
    raise TypeError(f"read_calls takes a path, '-', a database URL, or a list of them; got {type(sources).__name__}")


def _read_one(
    source: Source, query: str | None, batch_size: int, records: bool
) -> Iterator[RawCall | ObservedCall | UnreadableRecord]:
    if is_database_url(source):
        from toolwire.schema.calls._sql import read_database

        return read_database(str(source), query, batch_size)
    from toolwire.schema.calls._files import read_path, read_stdin

    if source == "-":
        return read_stdin(records)
    return read_path(Path(source), records)


def read_calls(
    sources: Source | Iterable[Source], *, query: str | None = None, batch_size: int = 10_000
) -> Iterator[ObservedCall | UnreadableRecord]:
    """Every call of one source or many, in order, and every record that is not a call.

    Args:
        sources: A path (JSONL or JSON logs of calls or conversations, a recording, a directory), ``"-"`` for JSONL
            on standard input, or a database URL; or a list of them. See the module docstring for each kind.
        query: The SQL that selects the calls of a database source: columns named ``id``, ``name`` and
            ``arguments`` (and optionally ``ts`` and ``schema_fingerprint``; others go to ``fields``). Required for
            database sources; files ignore it.
        batch_size: Rows fetched from a database at a time (the server-side cursor's batch).

    Returns:
        An iterator: ``ObservedCall`` per call, ``UnreadableRecord`` per record that is not one. Sources are read as
        the iterator is consumed, one at a time.

    Raises:
        TypeError: A source is not a path or a string.
        ValueError: A database source without ``query``, a query that does not select the needed columns (naming
            the columns it returned), or a file of an unknown type.
        OSError: A file that does not exist or cannot be read, a database that cannot be reached.
        ModuleNotFoundError: ``orjson`` (JSONL, ``toolwire[replay]``) or ``sqlalchemy`` (URLs other than
            ``sqlite:///``, ``toolwire[sql]``) is not installed.
    """
    for item in iter_raw(sources, query=query, batch_size=batch_size):
        yield observed(item) if isinstance(item, tuple) else item


def iter_raw(
    sources: Source | Iterable[Source], *, query: str | None = None, batch_size: int = 10_000, records: bool = True
) -> Iterator[RawCall | ObservedCall | UnreadableRecord]:
    """``read_calls`` with JSONL call records left as ``RawCall`` tuples (for replay, which needs no more).

    Args:
        sources: As ``read_calls``.
        query: As ``read_calls``.
        batch_size: As ``read_calls``.
        records: Whether each ``RawCall`` keeps its parsed record; without it ``observed`` gives empty ``fields``.

    Raises:
        As ``read_calls`` (``TypeError`` and the ``batch_size`` ``ValueError`` at once, the others as read).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1; got {batch_size}")
    # chain, not a generator's `yield from`: the calls go from the reader to the consumer through no Python frame.
    return chain.from_iterable(_read_one(source, query, batch_size, records) for source in _sources(sources))
