"""Observed calls from files: JSONL and JSON logs, standard input, recordings and directories of them.

JSONL is read as bytes lines and parsed with ``orjson`` (a line of a call log costs about a microsecond); each line
is a call record or a conversation, decided by its keys (see ``toolwire.schema.calls._calls``). A line ``orjson``
refuses is read again with the standard library, which also takes integers beyond 64 bits and ``NaN`` (so that the
reason given is the right one: ``NaN`` arguments are not JSON-able, a truncated line is not JSON).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, TypeAlias

import orjson

from toolwire._common._json import compact
from toolwire.recordings import DATA_SUFFIXES, RAW_SUFFIXES
from toolwire.schema.calls._conversations import calls_in_conversation, is_conversation
from toolwire.schema.calls._model import ObservedCall, RawCall, UnreadableRecord, call_from_record, is_database_url
from toolwire.schema.calls._recordings import read_recording

__all__ = ["LOG_SUFFIXES", "log_file", "open_log", "read_lines", "read_numbered", "read_path", "read_stdin"]

#: Files read as logs of calls or conversations (anything else in a directory is not a log and is left alone).
LOG_SUFFIXES: Final = (".jsonl", ".jsonl.gz", ".json", ".ndjson")

_BOM: Final = b"\xef\xbb\xbf"

Found: TypeAlias = "ObservedCall | UnreadableRecord"
_MISSING: Final = object()
_NO_RECORD: Final[dict[str, Any]] = {}


def _orjson_dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _record(value: Any, origin: str, dumps: Callable[[Any], str]) -> Iterator[Found]:
    """One parsed record: a call, a conversation, or neither."""
    if is_conversation(value):
        yield from calls_in_conversation(value, origin, dumps)
    elif isinstance(value, dict) and any(key in value for key in ("name", "arguments", "input")):
        yield call_from_record(value, origin, dumps)  # a call record, or one that says what it lacks
    else:
        what = f"an object with keys {sorted(value)[:8]}" if isinstance(value, dict) else type(value).__name__
        yield UnreadableRecord(
            origin,
            f'{what} is neither a call record (needs "name" and "arguments") nor a conversation (a list of '
            'messages, or an object with "messages", "input" or "output")',
        )


def _not_json(line: bytes, origin: str) -> tuple[Any, UnreadableRecord | None]:
    """The cold path of a line ``orjson`` refused: the standard library's reading, or the reason it is not JSON."""
    try:
        return json.loads(line), None
    except UnicodeDecodeError as error:
        return None, UnreadableRecord(origin, f"not UTF-8 ({error.reason} at byte {error.start}); write UTF-8 JSON")
    except json.JSONDecodeError as error:
        return None, UnreadableRecord(
            origin,
            f"not JSON: {error.msg} (column {error.colno}); each line must be one JSON object (a call record or a "
            "conversation)",
        )


def read_lines(
    lines: Iterable[bytes], label: str, records: bool = True, owned: bool = False
) -> Iterator[RawCall | Found]:
    """The records of JSONL given as bytes lines (blank lines are skipped; a line is numbered from 1).

    A call record whose keys have their usual types, and that records no result, comes out as a ``RawCall`` tuple
    (``observed`` makes it an ``ObservedCall``); anything else goes through ``call_from_record`` or the conversation
    reader, with the same result, only slower.

    Args:
        lines: The lines (a binary file, ``sys.stdin.buffer``).
        label: The name lines are prefixed with in origins (``calls.jsonl`` gives ``calls.jsonl:12``).
        records: Whether a ``RawCall`` keeps its parsed record (for ``fields``); replay, which needs no fields, lets
            it go at once, so that a batch holds no dicts for the garbage collector to scan.
        owned: Close ``lines`` when done (a file opened for this reading). The file is handed over rather than read
            in a ``with`` block of another generator: each generator a call passes through costs per call.

    Returns:
        Raw calls, observed calls and unreadable records, in line order.
    """
    return read_numbered(enumerate(lines, start=1), label, records, lines if owned else None)


def read_numbered(  # noqa: C901 (the inlined hot path)
    numbered: Iterable[tuple[int, bytes]], label: str, records: bool = True, owned: object = None
) -> Iterator[RawCall | Found]:
    """``read_lines`` for lines given with their numbers (the lines of a log the core hands back; see replay).

    Args:
        numbered: ``(line number, line)`` pairs.
        label: As ``read_lines``.
        records: As ``read_lines``.
        owned: A file to close when done, or None.
    """
    loads = orjson.loads
    dumps = _orjson_dumps
    isoformat = datetime.fromisoformat
    try:
        for number, line in numbered:
            try:
                value = loads(line)
            except orjson.JSONDecodeError:
                yield from _cold_line(line, label, number)
                continue
            if (
                type(value) is not dict
                or "name" not in value
                or "role" in value
                or "messages" in value
                or "result" in value  # an ObservedCall carries it; a raw call keeps no record in replay
            ):
                yield from _record(value, f"{label}:{number}", dumps)
                continue
            # The hot path, inlined (a function call per line is a tenth of the line's cost): the usual types only;
            # anything else is read by call_from_record, which explains what is wrong.
            name = value["name"]
            arguments = value.get("arguments", _MISSING)
            identifier = value.get("id")
            fingerprint = value.get("schema_fingerprint", _MISSING)
            if fingerprint is _MISSING:
                fingerprint = value.get("tool_fingerprint")
            ts = value.get("ts", _MISSING)
            if ts is _MISSING:
                ts = value.get("time")
            if (
                type(name) is str
                and name
                and (identifier is None or type(identifier) is str)
                and (fingerprint is None or type(fingerprint) is str)
                and (ts is None or type(ts) is str)
            ):
                if type(arguments) is str:
                    text = arguments
                elif type(arguments) is dict:
                    text = dumps(arguments)
                else:
                    yield call_from_record(value, f"{label}:{number}", dumps)
                    continue
                moment = None
                if ts is not None:
                    try:
                        moment = isoformat(ts)
                    except ValueError:
                        yield call_from_record(value, f"{label}:{number}", dumps)
                        continue
                    if moment.tzinfo is None:
                        moment = moment.replace(tzinfo=timezone.utc)
                yield (name, text, identifier, moment, fingerprint, label, number, value if records else _NO_RECORD)
            else:
                yield call_from_record(value, f"{label}:{number}", dumps)
    finally:
        if owned is not None and hasattr(owned, "close"):
            owned.close()


def _cold_line(line: bytes, label: str, number: int) -> Iterator[Found]:
    """A line ``orjson`` refused: blank (skipped), with a BOM, or read by the standard library (or not JSON)."""
    if not line.strip():
        return
    if number == 1 and line.startswith(_BOM):
        line = line[len(_BOM) :]
    value, unreadable = _not_json(line, f"{label}:{number}")
    if unreadable is not None:
        yield unreadable
        return
    # What the standard library reads and orjson does not (NaN, huge integers) is dumped the same way.
    yield from _record(value, f"{label}:{number}", compact)


def read_stdin(records: bool = True) -> Iterator[RawCall | Found]:
    """The records of JSONL on standard input (origins ``<stdin>:N``)."""
    return read_lines(sys.stdin.buffer, "<stdin>", records)


def _read_json(path: Path) -> Iterator[Found]:
    """A ``.json`` file: one record, a list of records, or one conversation (a list of messages)."""
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
        dumps = _orjson_dumps
    except orjson.JSONDecodeError:
        try:
            value = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            yield UnreadableRecord(str(path), f"not JSON ({error}); a .json source holds one record or a list of them")
            return
        dumps = compact
    if isinstance(value, list) and not any(isinstance(item, dict) and "role" in item for item in value):
        for index, item in enumerate(value):
            yield from _record(item, f"{path}[{index}]", dumps)
    else:
        yield from _record(value, str(path), dumps)


def _manifest_beside(data_path: Path) -> bool:
    """Whether a ``.jsonl`` file is a recording's data file: a ``.json`` manifest naming a ``format`` sits beside it."""
    manifest = data_path.with_suffix(".json")
    if not manifest.is_file():
        return False
    try:
        value = orjson.loads(manifest.read_bytes())
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and isinstance(value.get("format"), str)


def _is_manifest(path: Path) -> bool:
    """Whether a ``.json`` file is a recording's manifest: a data file beside it, and a ``format`` in it."""
    return any(path.with_suffix(suffix).is_file() for suffix in DATA_SUFFIXES) and _manifest_beside(path)


def _open(path: Path) -> gzip.GzipFile | io.BufferedReader:
    return gzip.GzipFile(path, "rb") if path.name.endswith(".gz") else path.open("rb")


def _read_file(path: Path, records: bool) -> Iterator[RawCall | Found]:
    name = path.name.lower()
    if name.endswith(RAW_SUFFIXES) or (name.endswith(".jsonl") and _manifest_beside(path)):
        return read_recording(path)
    if name.endswith(".json"):
        return read_recording(path) if _is_manifest(path) else _read_json(path)
    if name.endswith((".jsonl", ".ndjson", ".jsonl.gz")):
        return read_lines(_open(path), str(path), records, owned=True)
    raise ValueError(
        f"{path}: unknown source type; give a .jsonl (or .jsonl.gz) or .json log, a recording (.sse/.jsonl/.json-array/.eventstream with "
        "its .json manifest), a directory, '-' for stdin, or a database URL (sqlite:///calls.db)"
    )


def log_file(source: object) -> Path | None:
    """The path of ``source`` when ``read_path`` reads it as plain JSON lines, else None.

    Those are the ``.jsonl``, ``.ndjson`` and ``.jsonl.gz`` files that are not a recording's data file: the logs whose
    lines replay reads in the core.
    """
    if not isinstance(source, (str, os.PathLike)) or source == "-" or is_database_url(source):
        return None
    path = Path(source)
    name = path.name.lower()
    if not name.endswith((".jsonl", ".ndjson", ".jsonl.gz")) or name.endswith(RAW_SUFFIXES) or not path.is_file():
        return None
    return None if name.endswith(".jsonl") and _manifest_beside(path) else path


def open_log(path: Path) -> gzip.GzipFile | io.BufferedReader:
    """A log file opened for its bytes (``.gz`` decompressed)."""
    return _open(path)


def _directory(path: Path, records: bool) -> Iterator[RawCall | Found]:
    """Every recording and log under a directory, in name order; a recording's data file and manifest count once."""
    files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    taken: set[Path] = set()
    for file in files:
        if file in taken or not file.name.lower().endswith((*LOG_SUFFIXES, ".sse")):
            continue
        name = file.name.lower()
        is_recording = (
            name.endswith(".sse")
            or (name.endswith(".jsonl") and _manifest_beside(file))
            or (name.endswith(".json") and _is_manifest(file))
        )
        if is_recording:
            # Found by its manifest or its data file, whichever sorts first; the other is the same recording.
            taken.update(file.with_suffix(suffix) for suffix in (*DATA_SUFFIXES, ".json"))
            yield from read_recording(file)
        else:
            yield from _read_file(file, records)


def read_path(path: Path, records: bool = True) -> Iterator[RawCall | Found]:
    """The records of a file or a directory (see ``toolwire.schema.calls._calls``).

    Raises:
        FileNotFoundError: The path does not exist.
        ValueError: A file of an unknown type.
    """
    if path.is_dir():
        return _directory(path, records)
    if path.is_file():
        return _read_file(path, records)
    raise FileNotFoundError(f"{path}: no such file or directory (a database source is a URL: sqlite:///calls.db)")
