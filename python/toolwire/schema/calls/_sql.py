"""Observed calls from a database: ``sqlite:///path`` with the standard library, any other URL with SQLAlchemy.

The query selects columns by name: ``id``, ``name`` and ``arguments`` are required (rename with ``AS``), ``ts`` and
``schema_fingerprint`` (or ``tool_fingerprint``) are read when present, and every other column goes to ``fields``.
Rows are streamed: SQLite steps its cursor ``batch_size`` rows at a time; SQLAlchemy runs the query with
``stream_results`` and ``yield_per`` (a server-side cursor on PostgreSQL), so a table of any size is never held whole.

``sqlite:///`` is read with ``sqlite3`` rather than SQLAlchemy so that the embedded default needs nothing installed
(the ``sql`` extra is for other databases). Replay never writes: an SQLite file, whichever URL names it
(``sqlite:///``, ``sqlite+pysqlite:///``), is opened read-only (a ``file:...?mode=ro`` URI: a missing file is an
error, never created, and a query that writes fails); a PostgreSQL session is read-only; nothing is ever committed.

The query is sent to the database as written, with no parameters: SQLAlchemy's ``text()`` would read ``:name`` (and
``:1``) as bind parameters even inside a string literal, so the query goes through ``exec_driver_sql`` instead, and
``%`` needs no doubling. Every failure is one line naming the URL (password hidden), ending in the query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from toolwire.schema.calls._model import ObservedCall, UnreadableRecord, call_from_record

__all__ = ["REQUIRED_COLUMNS", "read_database", "sqlite_path"]

#: The columns a query must select, by name.
REQUIRED_COLUMNS: Final = ("id", "name", "arguments")
_OPTIONAL: Final = ("ts", "time", "schema_fingerprint", "tool_fingerprint")


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///`` URL, as SQLAlchemy reads it (``sqlite:////abs/path``, ``sqlite:///relative``).

    Raises:
        ValueError: The URL names no file (an in-memory database holds no calls).
    """
    rest = url[len("sqlite://") :]
    if not rest.startswith("/") or rest == "/":
        raise ValueError(f"{url}: write sqlite:///relative/path.db or sqlite:////absolute/path.db")
    path = rest[1:].split("?", 1)[0]
    if path in ("", ":memory:"):
        raise ValueError(f"{url}: an in-memory database holds no calls; give the database file")
    return Path(path)


def _columns(returned: Sequence[str], url: str, query: str) -> dict[str, str]:
    """Map the record keys to the query's column names (exact, else case-insensitive: databases fold case).

    Raises:
        ValueError: A required column is missing, naming the columns the query returned.
    """
    by_lower = {column.lower(): column for column in returned}
    found = {}
    for key in (*REQUIRED_COLUMNS, *_OPTIONAL):
        column = key if key in returned else by_lower.get(key)
        if column is not None:
            found[key] = column
    missing = [key for key in REQUIRED_COLUMNS if key not in found]
    if missing:
        raise ValueError(
            f"{url}: the query returned the columns {list(returned)}; it must select {', '.join(REQUIRED_COLUMNS)} "
            f"(missing: {', '.join(missing)}); rename with AS, e.g. SELECT call_id AS id, tool AS name, "
            f"args AS arguments FROM ... (query: {query!r:.120})"
        )
    return found


def _rows(
    columns: Sequence[str], batches: Iterator[Sequence[Sequence[Any]]], url: str, query: str
) -> Iterator[ObservedCall | UnreadableRecord]:
    mapping = _columns(columns, url, query)
    renamed = {column: key for key, column in mapping.items()}
    keys = [renamed.get(column, column) for column in columns]
    number = 0
    for batch in batches:
        for row in batch:
            number += 1
            record: Mapping[str, Any] = dict(zip(keys, row, strict=True))
            yield call_from_record(record, f"{url} row {number}")


def _one_line(error: object) -> str:
    """A database's message on one line (PostgreSQL's span several: the error, the line, a caret)."""
    return " ".join(str(error).split())


def _query_failed(where: str, error: object, query: str) -> ValueError:
    reason = _one_line(error)
    folded = reason.replace("-", "").replace(" ", "").lower()
    if "readonly" in folded:
        reason += "; replay opens the database read-only and runs only queries that read (SELECT ...)"
    elif "binding" in folded or "placeholder" in folded:
        reason += "; replay sends the query without parameters: write the values into it"
    elif "cursorfor" in folded:
        # PostgreSQL reads through a server-side cursor (DECLARE ... CURSOR FOR <query>), which takes a SELECT only.
        reason += "; replay reads the rows through a cursor: the query must be a SELECT (or WITH ... SELECT)"
    return ValueError(f"{where}: the query failed: {reason} (query: {query!r:.120})")


def _no_rows(where: str, query: str) -> ValueError:
    return ValueError(
        f"{where}: the query returns no rows; replay reads calls with a query that selects them "
        f"(SELECT id, name, arguments FROM ...) (query: {query!r:.120})"
    )


def _existing(path: Path, url: str) -> Path:
    """An SQLite file that exists (read-only mode would not create it: say so before trying).

    Raises:
        FileNotFoundError: There is no such file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"{url}: no database file {path} (replay opens databases read-only and creates none)")
    return path


def _sqlite(url: str, query: str, batch_size: int) -> Iterator[ObservedCall | UnreadableRecord]:
    path = sqlite_path(url)
    try:
        connection = sqlite3.connect(f"{_existing(path, url).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise OSError(f"{url}: cannot open the database ({_one_line(error)})") from error
    try:
        try:
            cursor = connection.execute(query)
        except sqlite3.Error as error:
            raise _query_failed(url, error, query) from error
        if cursor.description is None:
            raise _no_rows(url, query)
        columns = [description[0] for description in cursor.description]

        def batches() -> Iterator[list[Any]]:
            while True:
                try:
                    batch = cursor.fetchmany(batch_size)
                except sqlite3.Error as error:
                    raise _query_failed(url, error, query) from error
                if not batch:
                    return
                yield batch

        yield from _rows(columns, batches(), url, query)
    finally:
        connection.close()


def _engine(url: str) -> tuple[Any, str]:
    """The SQLAlchemy engine of a URL (an SQLite file made read-only) and the URL as shown (password hidden)."""
    try:
        import sqlalchemy
        from sqlalchemy import exc
    except ModuleNotFoundError as error:
        scheme = url.split("://", 1)[0]
        raise ValueError(
            f"{scheme}:// URLs are read with SQLAlchemy, which is not installed: pip install 'toolwire[sql]' and "
            "the database's driver (sqlite:/// needs neither)"
        ) from error
    try:
        parsed = sqlalchemy.engine.make_url(url)
        shown = parsed.render_as_string(hide_password=True)
        if parsed.get_backend_name() == "sqlite":
            if not parsed.database or parsed.database == ":memory:":
                raise ValueError(f"{shown}: an in-memory database holds no calls; give the database file")
            # SQLAlchemy appends the URL's query to a URI database (``uri=true``): its mode, whatever it said, is ro.
            database = parsed.database
            if not database.startswith("file:"):
                database = _existing(Path(database), shown).resolve().as_uri()
            parsed = parsed.set(database=database, query={**parsed.query, "uri": "true", "mode": "ro"})
        return sqlalchemy.create_engine(parsed), shown
    except (exc.ArgumentError, exc.NoSuchModuleError) as error:
        raise ValueError(f"{url.split('@')[-1]}: not a database URL SQLAlchemy can use ({error})") from error
    except ImportError as error:
        raise ValueError(
            f"{url.split('@')[-1]}: the database driver is not installed ({error}); install it (psycopg[binary] for "
            "postgresql+psycopg://, pymysql for mysql+pymysql://)"
        ) from error


def _sqlalchemy(url: str, query: str, batch_size: int) -> Iterator[ObservedCall | UnreadableRecord]:
    from sqlalchemy import exc

    engine, shown = _engine(url)
    try:
        try:
            connection = engine.connect()
        except exc.SQLAlchemyError as error:
            raise OSError(f"{shown}: cannot connect ({_one_line(getattr(error, 'orig', None) or error)})") from error
        with connection:
            # No parameters and the driver's own SQL: a ':x' or '%' in a string literal stays what it is.
            options: dict[str, Any] = {"stream_results": True, "yield_per": batch_size, "no_parameters": True}
            if engine.dialect.name == "postgresql":
                options["postgresql_readonly"] = True
            try:
                result = connection.execution_options(**options).exec_driver_sql(query)
            except exc.SQLAlchemyError as error:
                raise _query_failed(shown, getattr(error, "orig", None) or error, query) from error
            try:
                if not result.returns_rows:
                    raise _no_rows(shown, query)
                # The size is given again here: partitions() without one fetches every remaining row at once.
                batches = (list(partition) for partition in result.yield_per(batch_size).partitions(batch_size))
                yield from _rows(list(result.keys()), batches, shown, query)
            except exc.SQLAlchemyError as error:
                raise _query_failed(shown, getattr(error, "orig", None) or error, query) from error
            finally:
                result.close()  # the server-side cursor, also when reading stops early or a column is missing
                connection.rollback()  # nothing read is ever committed
    finally:
        engine.dispose()


def read_database(url: str, query: str | None, batch_size: int) -> Iterator[ObservedCall | UnreadableRecord]:
    """The calls a query selects from a database, streamed.

    Args:
        url: ``sqlite:///path`` or a SQLAlchemy URL (``postgresql+psycopg://user:pw@host/db``).
        query: The SQL (see the module docstring for its columns).
        batch_size: Rows fetched at a time.

    Returns:
        One call (origin ``<url> row <n>``, password hidden) or unreadable record per row.

    Raises:
        ValueError: No query, a query that fails or lacks a required column, an unusable URL.
        OSError: The database file is missing or the server cannot be reached.
        ModuleNotFoundError: SQLAlchemy (or the URL's driver) is not installed.
    """
    if not query:
        raise ValueError(
            f"{url}: a database source needs a query selecting id, name and arguments "
            "(--query 'SELECT id, name, arguments, ts FROM tool_calls')"
        )
    if url.startswith("sqlite:///") or url == "sqlite://":
        yield from _sqlite(url, query, batch_size)
    else:
        yield from _sqlalchemy(url, query, batch_size)
