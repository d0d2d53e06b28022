"""Observed calls from databases: SQLite (standard library, and through SQLAlchemy) and a real PostgreSQL server.

PostgreSQL: ``TOOLWIRE_TEST_POSTGRES_URL`` names a server (``.ci/run`` starts one with ``.ci/postgres``); when it is
set and the server cannot be reached, the tests fail. Without it, a throwaway cluster is made with ``initdb`` in a
temporary directory (as user ``postgres`` when running as root), listening on 127.0.0.1 on a free port, and stopped
at the end; when that is not possible the tests skip, saying why.
"""

from __future__ import annotations

import glob
import importlib.util
import itertools
import json
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.cli import main
from toolwire.schema.calls import ObservedCall, UnreadableRecord, read_calls
from toolwire.schema.replay._replay import replay_calls

WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
        "additionalProperties": False,
    },
}
QUERY = (
    "SELECT call_id AS id, tool AS name, args AS arguments, created_at AS ts, fingerprint AS schema_fingerprint, "
    "outcome FROM tool_calls ORDER BY seq"
)
START = datetime(2025, 5, 1, 12, tzinfo=timezone.utc)


def rows(n: int) -> list[tuple[Any, ...]]:
    """``n`` calls of get_weather: every 7th sends ``days`` as a string (invalid), every 11th is below its minimum;
    the fingerprint of the current tool on even rows, an older one on odd rows; one row without a tool name."""
    fingerprint = toolwire.ToolRegistry([WEATHER]).get("get_weather")
    assert fingerprint is not None
    found = []
    for seq in range(n):
        days: Any = str(seq % 5 + 1) if seq % 7 == 3 else (0 if seq % 11 == 5 else seq % 5 + 1)
        arguments = {"city": f"city {seq}", "days": days}
        name = None if seq == n - 1 else "get_weather"
        print_fp = fingerprint.fingerprint if seq % 2 == 0 else "sha256:" + "0" * 64
        found.append((seq, f"call_{seq}", name, json.dumps(arguments), START + timedelta(seconds=seq), print_fp, "ok"))
    return found


def expected_invalid(n: int) -> int:
    return sum(1 for seq in range(n - 1) if seq % 7 == 3 or seq % 11 == 5)


# --- SQLite ---------------------------------------------------------------------------------------------------------


def sqlite_db(path: Path, n: int) -> Path:
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE tool_calls (seq INTEGER, call_id TEXT, tool TEXT, args TEXT, created_at TEXT, "
            "fingerprint TEXT, outcome TEXT)"
        )
        db.executemany(
            "INSERT INTO tool_calls VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(*row[:4], row[4].isoformat(), *row[5:]) for row in rows(n)],
        )
    return path


def test_sqlite_rows_are_calls(tmp_path: Path) -> None:
    db = sqlite_db(tmp_path / "calls.db", 40)
    url = f"sqlite:///{db}"
    found = list(read_calls(url, query=QUERY, batch_size=7))
    calls = [c for c in found if isinstance(c, ObservedCall)]
    assert len(calls) == 39 and len(found) == 40
    assert isinstance(found[-1], UnreadableRecord) and found[-1].origin == f"{url} row 40"
    first = calls[0]
    assert (first.id, first.name, json.loads(first.arguments)) == (
        "call_0",
        "get_weather",
        {"city": "city 0", "days": 1},
    )
    assert first.ts == START and first.fields == {"outcome": "ok"} and first.origin == f"{url} row 1"
    assert [c.ts for c in calls] == [START + timedelta(seconds=s) for s in range(39)]


def test_sqlite_replay_counts_and_fingerprints(tmp_path: Path) -> None:
    db = sqlite_db(tmp_path / "calls.db", 200)
    report = replay_calls(f"sqlite:///{db}", [WEATHER], query=QUERY, batch_size=16)
    assert (report.calls, report.unreadable) == (199, 1)
    assert report.invalid == expected_invalid(200)
    assert report.by_tool["get_weather"].fingerprint_mismatch == sum(1 for seq in range(199) if seq % 2)
    # The codes counted per failing call are those validate finds call by call.
    codes: Counter[str] = Counter()
    for row in rows(200)[:-1]:
        codes.update({v.code.value for v in toolwire.validate("get_weather", row[3], [WEATHER])})
    assert report.by_code == dict(codes) and set(codes) == {"TYPE_MISMATCH", "CONSTRAINT_VIOLATION"}


def test_sqlite_streams_rows_instead_of_loading_the_table(tmp_path: Path) -> None:
    """A query without end: reading must give the first calls at once (it never could load the whole result)."""
    db = tmp_path / "empty.db"
    sqlite3.connect(db).close()
    endless = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT i AS id, 'get_weather' AS name, '{\"city\": \"x\"}' AS arguments FROM n"
    )
    started = time.perf_counter()
    first = list(itertools.islice(read_calls(f"sqlite:///{db}", query=endless, batch_size=100), 250))
    assert time.perf_counter() - started < 5
    assert [c.id for c in first if isinstance(c, ObservedCall)] == [str(i) for i in range(1, 251)]


def test_sqlite_types_and_errors(tmp_path: Path) -> None:
    db = tmp_path / "typed.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE t (ID INTEGER, Name TEXT, Arguments BLOB, ts REAL)")
        connection.executemany(
            "INSERT INTO t VALUES (?, ?, ?, ?)",
            [(1, "a", b'{"x": 1}', 1_700_000_000.5), (2, "b", b"\xff\xfe", None), (3, "c", None, "not a time")],
        )
    url = f"sqlite:///{db}"
    found = list(read_calls(url, query="SELECT * FROM t"))  # column names match case-insensitively
    assert isinstance(found[0], ObservedCall) and found[0].arguments == '{"x": 1}' and found[0].id == "1"
    assert found[0].ts == datetime.fromtimestamp(1_700_000_000.5, tz=timezone.utc)
    assert isinstance(found[1], UnreadableRecord) and "not UTF-8" in found[1].reason
    assert isinstance(found[2], UnreadableRecord) and found[2].reason.startswith("ts:")
    with pytest.raises(ValueError, match=r"returned the columns \['id', 'tool'\].*missing: name, arguments"):
        list(read_calls(url, query="SELECT ID AS id, Name AS tool FROM t"))
    with pytest.raises(ValueError, match="the query failed: no such table"):
        list(read_calls(url, query="SELECT * FROM nope"))
    with pytest.raises(FileNotFoundError, match="no database file"):
        list(read_calls(f"sqlite:///{tmp_path / 'absent.db'}", query="SELECT 1"))
    assert not (tmp_path / "absent.db").exists()  # opened read-only: nothing is created
    with pytest.raises(ValueError, match="in-memory"):
        list(read_calls("sqlite:///:memory:", query="SELECT 1"))


def test_sqlalchemy_reads_the_same_rows(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    db = sqlite_db(tmp_path / "calls.db", 30)
    plain = list(read_calls(f"sqlite:///{db}", query=QUERY))
    through = list(read_calls(f"sqlite+pysqlite:///{db}", query=QUERY, batch_size=4))
    strip = [(c.id, c.name, c.arguments, c.ts, c.fields) for c in plain if isinstance(c, ObservedCall)]
    assert strip == [(c.id, c.name, c.arguments, c.ts, c.fields) for c in through if isinstance(c, ObservedCall)]
    assert len(through) == len(plain) == 30
    with pytest.raises(ValueError, match="not a database URL"):
        list(read_calls("nosuchdialect://x/y", query="SELECT 1"))


def sqlite_urls(db: Path) -> list[str]:
    """Every URL naming the same SQLite file: the standard library's, SQLAlchemy's, and SQLAlchemy's with a mode."""
    urls = [f"sqlite:///{db}"]
    if importlib.util.find_spec("sqlalchemy") is not None:
        urls += [
            f"sqlite+pysqlite:///{db}",
            f"sqlite+pysqlite:///{db}?mode=rw",
            f"sqlite+pysqlite:///file:{db}?mode=rwc",
        ]
    return urls


def test_sqlite_is_read_only_whatever_the_url_says(tmp_path: Path) -> None:
    db = sqlite_db(tmp_path / "calls.db", 5)
    for url in sqlite_urls(db):
        for writes in ("DELETE FROM tool_calls", "DROP TABLE tool_calls", "PRAGMA user_version = 7"):
            with pytest.raises(ValueError, match="read-only and runs only queries that read") as raised:
                list(read_calls(url, query=writes))
            assert str(raised.value).endswith(f"(query: {writes!r})")
        with sqlite3.connect(db) as connection:
            assert connection.execute(
                "SELECT count(*), (SELECT user_version FROM pragma_user_version) FROM tool_calls"
            ).fetchone() == (5, 0)
    for url in sqlite_urls(tmp_path / "absent.db")[:2]:
        with pytest.raises(FileNotFoundError, match=r"no database file .*absent\.db .*creates none"):
            list(read_calls(url, query="SELECT 1"))
        assert not (tmp_path / "absent.db").exists()


def test_a_colon_or_percent_in_a_string_literal_is_not_a_parameter(tmp_path: Path) -> None:
    db = sqlite_db(tmp_path / "calls.db", 5)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE tool_calls SET outcome = 'retried at :1 and :name, 100%' WHERE seq = 2")
    query = (
        "SELECT call_id AS id, tool AS name, args AS arguments, outcome FROM tool_calls "
        "WHERE outcome = 'retried at :1 and :name, 100%' OR outcome LIKE '%:x%'"
    )
    for url in sqlite_urls(db):
        found = list(read_calls(url, query=query))
        assert [(c.id, c.fields) for c in found if isinstance(c, ObservedCall)] == [
            ("call_2", {"outcome": "retried at :1 and :name, 100%"})
        ], url
        # A parameter outside a literal is the query's mistake, said as such: replay sends none.
        with pytest.raises(ValueError, match="replay sends the query without parameters"):
            list(
                read_calls(
                    url, query="SELECT call_id AS id, tool AS name, args AS arguments FROM tool_calls WHERE seq = :1"
                )
            )


def test_database_errors_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite_db(tmp_path / "calls.db", 5)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]))
    select = "SELECT call_id AS id, tool AS name, args AS arguments FROM tool_calls"
    for url in sqlite_urls(db)[:2]:
        for query, message in (
            ("DELETE FROM tool_calls", "attempt to write a readonly database; replay opens the database read-only"),
            (f"{select} WHERE seq = :1", "replay sends the query without parameters"),
            (f"{select} WHERE outcome = ':1'", None),
            ("SELECT * FROM no_such_table", "the query failed: no such table: no_such_table"),
        ):
            status = main(["replay", url, "--tools", str(tools), "--query", query])
            captured = capsys.readouterr()
            if message is None:
                assert status == 0, captured.err
                continue
            assert status == 2, (url, query)
            assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
            assert captured.err.startswith(f"toolwire: {url}: ") and message in captured.err, captured.err
    status = main(["replay", f"sqlite:///{tmp_path / 'absent.db'}", "--tools", str(tools), "--query", select])
    assert status == 2 and capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "absent.db").exists()


# --- PostgreSQL -----------------------------------------------------------------------------------------------------


def reachable(url: str) -> None:
    """Fail (not skip) when the configured server cannot be reached: CI must not pass by skipping."""
    import sqlalchemy

    try:
        engine = sqlalchemy.create_engine(url)
        with engine.connect() as connection:
            connection.execute(sqlalchemy.text("SELECT 1"))
        engine.dispose()
    except Exception as error:  # any failure to connect is the same verdict: the configured server is not there
        pytest.fail(f"TOOLWIRE_TEST_POSTGRES_URL is set but the server cannot be reached: {error}")


def _initdb() -> str | None:
    found = shutil.which("initdb") or next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))[::-1]), None)
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("psycopg")
    url = os.environ.get("TOOLWIRE_TEST_POSTGRES_URL")
    if url:
        reachable(url)
        yield url
        return
    initdb = _initdb()
    if initdb is None:
        pytest.skip(
            "no PostgreSQL: TOOLWIRE_TEST_POSTGRES_URL is not set and initdb is not installed "
            "(apt-get install postgresql, or run bash .ci/postgres and export its URL)"
        )
    prefix: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no PostgreSQL: running as root and there is no user postgres to run initdb as")
        if shutil.which("runuser") is None:
            pytest.skip("no PostgreSQL: running as root without runuser to start the server as user postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="toolwire-pg-"))
    if prefix:
        os.chown(folder, user.pw_uid, user.pw_gid)
    bin_dir = Path(initdb).parent
    port = _free_port()
    data = folder / "data"
    try:
        subprocess.run(
            [*prefix, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
            text=True,
        )
        options = f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={folder}"
        subprocess.run(
            [
                *prefix,
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "log"),
                "-w",
                "-o",
                options,
                "start",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.CalledProcessError) as error:
        log = (folder / "log").read_text(errors="replace")[-400:] if (folder / "log").exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        detail = getattr(error, "stderr", "") or str(error)
        pytest.skip(f"no PostgreSQL: a throwaway cluster did not start ({detail.strip()[-300:]} {log})")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_table(postgres_url: str) -> Iterator[tuple[str, int]]:
    """A ``tool_calls`` table (jsonb arguments, timestamptz times) of 500 calls, dropped afterwards."""
    import sqlalchemy

    n = 500
    engine = sqlalchemy.create_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text("DROP TABLE IF EXISTS tool_calls"))
        connection.execute(
            sqlalchemy.text(
                "CREATE TABLE tool_calls (seq integer PRIMARY KEY, call_id text, tool text, args jsonb, "
                "created_at timestamptz, fingerprint text, outcome text)"
            )
        )
        connection.execute(
            sqlalchemy.text(
                "INSERT INTO tool_calls VALUES (:seq, :id, :tool, CAST(:args AS jsonb), :ts, :fp, :outcome)"
            ),
            [dict(zip(("seq", "id", "tool", "args", "ts", "fp", "outcome"), row, strict=True)) for row in rows(n)],
        )
    try:
        yield postgres_url, n
    finally:
        with engine.begin() as connection:
            connection.execute(sqlalchemy.text("DROP TABLE IF EXISTS tool_calls"))
        engine.dispose()


def test_postgres_calls_are_replayed(postgres_table: tuple[str, int]) -> None:
    url, n = postgres_table
    found = list(read_calls(url, query=QUERY, batch_size=64))
    calls = [c for c in found if isinstance(c, ObservedCall)]
    assert len(found) == n and len(calls) == n - 1
    # jsonb comes back as an object and is dumped compactly; timestamptz as an aware time.
    assert json.loads(calls[3].arguments) == {"city": "city 3", "days": "4"}
    assert [c.ts for c in calls] == [START + timedelta(seconds=s) for s in range(n - 1)]
    assert all(
        c.origin.startswith("postgresql+psycopg://") and c.origin.endswith(f"row {i}") for i, c in enumerate(calls, 1)
    )
    from sqlalchemy.engine import make_url

    password = make_url(url).password
    assert password is None or all(f":{password}@" not in c.origin and ":***@" in c.origin for c in calls)
    report = replay_calls(url, [WEATHER], query=QUERY, batch_size=64)
    assert (report.calls, report.invalid, report.unreadable) == (n - 1, expected_invalid(n), 1)
    assert password is None or (len(report.sources) == 1 and f":{password}@" not in report.sources[0])
    assert report.by_tool["get_weather"].fingerprint_mismatch == sum(1 for seq in range(n - 1) if seq % 2)
    # Every failure is a call the construction made invalid.
    assert all(int(f.id.split("_")[1]) % 7 == 3 or int(f.id.split("_")[1]) % 11 == 5 for f in report.failures if f.id)


def test_postgres_uses_a_server_side_cursor(postgres_url: str) -> None:
    """A query without end: only a server-side cursor, fetched a batch at a time, gives the first calls at all.

    The server cancels any statement after 20 s, so a client-side cursor (which would fetch every row first) fails
    the test instead of hanging it.
    """
    from sqlalchemy.engine import make_url

    guarded = make_url(postgres_url).update_query_dict({"options": "-c statement_timeout=20000"})
    query = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT i AS id, 'get_weather' AS name, '{\"city\": \"x\"}' AS arguments FROM n"
    )
    url = guarded.render_as_string(hide_password=False)
    first = list(itertools.islice(read_calls(url, query=query, batch_size=500), 1200))
    assert [c.id for c in first if isinstance(c, ObservedCall)] == [str(i) for i in range(1, 1201)]


def test_postgres_missing_columns_and_bad_queries(postgres_url: str) -> None:
    with pytest.raises(ValueError, match=r"returned the columns \['id', 'tool'\]"):
        list(read_calls(postgres_url, query="SELECT 1 AS id, 'x' AS tool"))
    with pytest.raises(ValueError, match="the query failed") as raised:
        list(read_calls(postgres_url, query="SELECT * FROM no_such_table_here"))
    assert "\n" not in str(raised.value)  # PostgreSQL's message spans lines (LINE 1: ..., a caret)


def test_postgres_is_read_only_and_literals_are_not_parameters(postgres_table: tuple[str, int]) -> None:
    import sqlalchemy

    url, n = postgres_table
    literal = "SELECT call_id AS id, tool AS name, args AS arguments FROM tool_calls WHERE outcome <> ':1 :name 100%'"
    assert len(list(read_calls(url, query=literal))) == n
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text("CREATE SEQUENCE IF NOT EXISTS replay_counter"))
    try:
        # A query that reads but writes on the way (nextval) is refused by the read-only session.
        writes = "SELECT nextval('replay_counter') AS id, 'x' AS name, '{}' AS arguments"
        with pytest.raises(ValueError, match=r"read-only transaction.*replay opens the database read-only"):
            list(read_calls(url, query=writes))
        with pytest.raises(ValueError, match=r"the query failed.*a SELECT"):
            list(read_calls(url, query="DELETE FROM tool_calls"))
        assert len(list(read_calls(url, query=literal))) == n
        with engine.connect() as connection:
            assert connection.execute(sqlalchemy.text("SELECT last_value, is_called FROM replay_counter")).one() == (
                1,
                False,
            )
    finally:
        with engine.begin() as connection:
            connection.execute(sqlalchemy.text("DROP SEQUENCE IF EXISTS replay_counter"))
        engine.dispose()


def test_postgres_from_the_command_line(
    postgres_table: tuple[str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, n = postgres_table
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]))
    status = main(["replay", url, "--tools", str(tools), "--query", QUERY, "--output-format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    assert (report["calls"], report["invalid"], report["unreadable"]) == (n - 1, expected_invalid(n), 1)


def test_an_unreachable_configured_server_fails_the_tests() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(pytest.fail.Exception, match="cannot be reached"):
        reachable(f"postgresql+psycopg://nobody:pw@127.0.0.1:{_free_port()}/nothing")
    with pytest.raises(OSError, match="cannot connect"):
        list(read_calls(f"postgresql+psycopg://nobody:secret@127.0.0.1:{_free_port()}/x", query="SELECT 1"))
