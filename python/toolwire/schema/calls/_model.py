"""Observed calls and the records they are read from: what ``read_calls`` yields, and how a record becomes one.

Keys of a call record: ``name`` (required), ``arguments`` (JSON text as received, or an object, dumped compactly;
``input`` is accepted as an alias; absent or null is "no arguments"), ``id`` (a string or an integer), ``ts`` (ISO
8601 text or epoch seconds; ``time`` is an alias; a time without zone is UTC), ``schema_fingerprint``
(``tool_fingerprint`` is an alias, as ``toolwire.CallLog`` writes it), ``result`` (what the tool answered: an MCP
``CallToolResult`` as JSON). Every other key is kept in ``fields``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final, TypeAlias

from toolwire._common._json import compact

__all__ = [
    "CALL_KEYS",
    "ObservedCall",
    "RawCall",
    "Source",
    "UnreadableRecord",
    "arguments_text",
    "call_from_record",
    "is_database_url",
    "observed",
    "shown_url",
    "timestamp",
]

#: The keys of a call record ``read_calls`` reads (with their aliases); every other key goes to ``fields``.
CALL_KEYS: Final = frozenset(
    {"id", "name", "arguments", "input", "ts", "time", "schema_fingerprint", "tool_fingerprint", "result"}
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
        result: What the tool answered, as recorded (an MCP ``CallToolResult`` as JSON), or None.
    """

    name: str
    arguments: str
    id: str | None = None
    ts: datetime | None = None
    schema_fingerprint: str | None = None
    origin: str = ""
    fields: Mapping[str, Any] = field(default_factory=dict)
    result: Any = None


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


def arguments_text(value: Any, dumps: Callable[[Any], str] = compact) -> str:
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
    record: Mapping[str, Any], origin: str, dumps: Callable[[Any], str] = compact
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
    return ObservedCall(name, text, identifier, moment, fingerprint, origin, others, record.get("result"))


def observed(raw: RawCall) -> ObservedCall:
    """The ``ObservedCall`` of a call record read on the fast path."""
    name, text, identifier, moment, fingerprint, label, number, record = raw
    others = {key: value for key, value in record.items() if key not in CALL_KEYS}
    return ObservedCall(name, text, identifier, moment, fingerprint, f"{label}:{number}", others, record.get("result"))
