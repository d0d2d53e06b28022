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

Keys of a call record: ``name`` (required), ``arguments`` (JSON text as received, or an object, dumped compactly;
``input`` is accepted as an alias; absent or null is "no arguments"), ``id`` (a string or an integer), ``ts`` (ISO
8601 text or epoch seconds; ``time`` is an alias; a time without zone is UTC), ``schema_fingerprint``
(``tool_fingerprint`` is an alias, as ``toolwire.CallLog`` writes it). Every other key is kept in ``fields``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Any, Final, TypeAlias

__all__ = [
    "CALL_KEYS",
    "ObservedCall",
    "RawCall",
    "Source",
    "UnreadableRecord",
    "call_from_record",
    "is_database_url",
    "iter_raw",
    "observed",
    "read_calls",
    "shown_url",
    "timestamp",
]

#: The keys of a call record ``read_calls`` reads (with their aliases); every other key goes to ``fields``.
CALL_KEYS: Final = frozenset(
    {"id", "name", "arguments", "input", "ts", "time", "schema_fingerprint", "tool_fingerprint"}
)

_URL: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_PASSWORD: Final = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@]*):[^@/]*@")
# Keys of a tool definition: a record with a name, one of these and no arguments is a definition given as a call.
_DEFINITION_KEYS: Final = ("parameters", "input_schema", "inputSchema")
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class ObservedCall:
    """One tool call already made, as read from a log, a database or a recording.

    Attributes:
        name: The tool name the call carried.
        arguments: The arguments as JSON text, exactly as observed (an object value in the record is dumped
            compactly; no arguments is ``""``, which validation checks as ``{}``).
        id: The call id, when the record has one.
        ts: When the call was made, timezone-aware (a naive time or epoch seconds is taken as UTC).
        schema_fingerprint: The ``Tool.fingerprint`` (``"sha256:..."``) the call was produced under, when recorded.
        origin: Where the call was read: ``calls.jsonl:12``, ``chat.jsonl:3 messages[2].tool_calls[0]``,
            ``recordings/openai-chat/x.sse call 1``, ``sqlite:///db.sqlite row 5``.
        fields: The record's other keys (``outcome``, ``conversation``...), as read.
    """

    name: str
    arguments: str
    id: str | None = None
    ts: datetime | None = None
    schema_fingerprint: str | None = None
    origin: str = ""
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UnreadableRecord:
    """A record that is not a call: kept and reported, never dropped.

    Attributes:
        origin: Where the record is (as ``ObservedCall.origin``).
        reason: What is wrong with it and how to fix it.
    """

    origin: str
    reason: str


#: A call record read on the fast path of JSONL, before it becomes an ``ObservedCall`` (which costs more to build
#: than to parse the line): ``(name, arguments, id, ts, schema_fingerprint, label, line number, record)``.
RawCall: TypeAlias = "tuple[str, str, str | None, datetime | None, str | None, str, int, dict[str, Any]]"

#: A source of calls: a path, ``"-"`` (stdin) or a database URL.
Source: TypeAlias = "str | os.PathLike[str]"


def is_database_url(source: object) -> bool:
    """Whether a source is a database URL (``scheme://...``) rather than a path."""
    return isinstance(source, str) and _URL.match(source) is not None


def shown_url(url: str) -> str:
    """A database URL with its password replaced by ``***`` (for origins and reports)."""
    return _PASSWORD.sub(r"\1:***@", url)


def timestamp(value: Any, key: str = "ts") -> datetime | None:
    """A record's time as a timezone-aware ``datetime`` (naive times and epoch seconds are UTC).

    Args:
        value: ISO 8601 text (a trailing ``Z`` is accepted), epoch seconds (int or float), a ``datetime``, or None.
        key: The record's key, named in the error.

    Returns:
        The time, or None when the value is None.

    Raises:
        ValueError: The value is none of these.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError) as error:
            raise ValueError(f"{key}: {value!r} is out of range for epoch seconds ({error})") from None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = _iso_z(value, key)
    else:
        raise ValueError(f"{key}: expected ISO 8601 text or epoch seconds; got {type(value).__name__} {value!r:.60}")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _iso_z(value: str, key: str) -> datetime:
    """ISO 8601 text ``fromisoformat`` refused: Python 3.10's does not take a trailing ``Z`` or spaces around."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{key}: {value!r:.60} is not a time; write ISO 8601 (2025-05-01T12:00:00Z) or epoch seconds"
        ) from None


def _json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def arguments_text(value: Any, dumps: Callable[[Any], str] = _json_dumps) -> str:
    """The arguments of a record as JSON text: text as it is, bytes decoded, None as ``""``, anything else dumped.

    Raises:
        ValueError: Bytes that are not UTF-8, or a value JSON cannot represent (NaN, a date, a set...).
    """
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"arguments: bytes that are not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        return dumps(value)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"arguments: not JSON-able ({error}); store the arguments as JSON text or a JSON object"
        ) from None


def _identifier(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"id: expected a string or an integer; got {type(value).__name__} {value!r:.60}")


def call_from_record(
    record: Mapping[str, Any], origin: str, dumps: Callable[[Any], str] = _json_dumps
) -> ObservedCall | UnreadableRecord:
    """One call record (a JSONL object, a database row) as an ``ObservedCall``, or why it is not one.

    Args:
        record: The record's keys (see the module docstring).
        origin: Where it was read.
        dumps: Turns an arguments object into compact JSON text (``orjson`` on the fast path).

    Returns:
        The call, or an ``UnreadableRecord`` naming the key at fault and the fix.
    """
    name = record.get("name")
    if not isinstance(name, str) or not name:
        what = "no 'name'" if name is None else f"'name' {name!r:.60}, not a tool name"
        return UnreadableRecord(origin, f'{what}: a call record needs "name": "<tool>" (the tool called)')
    arguments = record.get("arguments", _MISSING)
    if arguments is _MISSING:
        if any(key in record for key in _DEFINITION_KEYS):
            return UnreadableRecord(
                origin,
                f"a tool definition ({name!r} with {', '.join(k for k in _DEFINITION_KEYS if k in record)}), not a "
                "call: give the tools with --tools and the calls as sources",
            )
        arguments = record.get("input")
    try:
        text = arguments_text(arguments, dumps)
        ts = record.get("ts", _MISSING)
        moment = timestamp(record.get("time") if ts is _MISSING else ts, "ts" if ts is not _MISSING else "time")
        fingerprint = record.get("schema_fingerprint", _MISSING)
        if fingerprint is _MISSING:
            fingerprint = record.get("tool_fingerprint")
        if fingerprint is not None and not isinstance(fingerprint, str):
            raise ValueError(f"schema_fingerprint: expected a string (sha256:...); got {fingerprint!r:.60}")
        identifier = _identifier(record.get("id"))
    except ValueError as error:
        return UnreadableRecord(origin, f"{error} (tool {name!r})")
    others = {key: value for key, value in record.items() if key not in CALL_KEYS}
    return ObservedCall(name, text, identifier, moment, fingerprint, origin, others)


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


def observed(raw: RawCall) -> ObservedCall:
    """The ``ObservedCall`` of a call record read on the fast path."""
    name, text, identifier, moment, fingerprint, label, number, record = raw
    others = {key: value for key, value in record.items() if key not in CALL_KEYS}
    return ObservedCall(name, text, identifier, moment, fingerprint, f"{label}:{number}", others)


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
