"""``toolwire.CallLog``: every tool call a production loop handles, appended as one JSON line, secrets redacted.

A line is ``{"id", "name", "arguments", "tool_fingerprint", "ts", "outcome"}``, then ``"result"`` when the tool's result
is given, plus any extra keys given to ``record``: exactly what ``toolwire replay`` (``toolwire.schema.read_calls``)
reads back, checking a result against its tool's MCP ``outputSchema`` (``toolwire.validate_result``).

- ``arguments`` is the JSON *text* of the arguments, kept exactly as the call carried it (whitespace, key order,
  duplicate keys, number spelling), so that a replay judges what the model sent; it is rewritten only where
  redaction replaced something, and then only the redacted strings change.
- ``tool_fingerprint`` is the fingerprint the call was validated against (``ToolCall.tool_fingerprint``), else that
  of the tool of the same name in ``tools=``; null when neither knows it.
- ``ts`` is ISO 8601 UTC with microseconds; ``outcome`` is ``"ok"``, ``"error"``, ``"invalid"`` or any word of
  the caller's (default: ``"invalid"`` for an ``InvalidToolCall``, ``"ok"`` otherwise).
- ``result`` is what the tool answered: an MCP ``CallToolResult`` written as the spec's JSON (by its aliases:
  ``structuredContent``, ``isError``), or JSON data as given.

Redaction happens before anything is written, with the detectors every writer of toolwire uses
(``toolwire._common._secrets``: API keys and tokens, JWTs, ``Basic`` and ``Bearer`` credentials, PEM private keys), each
match replaced by ``[REDACTED]``; the values of members whose name says secret (``password``, ``token``,
``client_secret``, ``api_key``, ``authorization``...; ``redact_keys=`` adds names) are replaced whole, at any depth;
``redact=`` adds regexes. They run over every decoded string of the arguments (keys too, so a secret spelled with
JSON escapes is still found), over the arguments text as a whole, and over the id, the name and every string of the
extra keys and of the result.

Appends are thread-safe and async-safe: one lock, taken for no longer than one ``os.write`` of whole lines, never
across an ``await``; the file is opened with ``O_APPEND``, so processes appending to the same file on a local file
system do not interleave partial lines either. Each record is written when ``record`` returns (``buffer_bytes=0``,
the default), or gathered until ``buffer_bytes`` have accumulated and written at once (``flush``, ``close``, leaving
the ``with`` block, and the interpreter's exit write what is left). There is no rotation: open a new ``CallLog`` per
period (``calls-2025-05-01.jsonl``), or use ``logrotate`` with ``copytruncate`` (``O_APPEND`` makes the next write
land at the start of the truncated file; a line written between the copy and the truncation is lost).

A record is either in the file, read back by replay, or named by a ``CallLogWriteError`` (an ``OSError``) raised by
the ``record``, ``flush`` or ``close`` whose write failed (a full disk): ``error.records`` are the records that write
did not put in the file, those gathered earlier under ``buffer_bytes`` included; they are dropped, never written
later. A failure that leaves part of a line in the file is followed, at the next write, by a line end, so the part
stays a line of its own, which replay reports as unreadable, and never swallows the next record; so is a file opened
with such a tail (a process that died mid-write).
"""

from __future__ import annotations

import json
import os
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from toolwire._common._closing import AsyncClosingBlock
from toolwire._common._json import compact, compact_utf8, sdk_json
from toolwire._common._jsontree import Pairs, dump_tree, parse_tree
from toolwire._common._redact import REDACTED, Redactor, compile_patterns
from toolwire.errors import CallLogWriteError

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["CallLog"]

#: The keys of a line, in the order they are written.
RECORD_KEYS: Final = ("id", "name", "arguments", "tool_fingerprint", "ts", "outcome")
# Keys a reader of call records takes as aliases of the ones above: an extra field under one would be misread.
_ALIASES: Final = frozenset({"input", "time", "schema_fingerprint"})
_OPEN_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class _ArgumentRedactor:
    """Every value written, redacted: secrets become ``[REDACTED]``, secret-named members' values whole."""

    def __init__(self, patterns: list[re.Pattern[str]], keys: Iterable[str]) -> None:
        self.redactor = Redactor(patterns, (), keys)

    def text(self, text: str) -> str:
        """Text with every secret replaced."""
        return self.redactor.replace(text)

    def _secret(self, key: object) -> bool:
        return isinstance(key, str) and self.redactor.secret_name(key)

    def tree(self, value: Any) -> Any:
        """A ``_parse`` tree redacted: every string and key through the patterns, secret-named members whole."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Pairs):
            return Pairs((self.text(key), REDACTED if self._secret(key) else self.tree(item)) for key, item in value)
        if isinstance(value, list):
            return [self.tree(item) for item in value]
        return value

    def plain(self, value: Any) -> Any:
        """An extra field's value (plain Python JSON data) redacted the same way."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                self.text(str(key)): REDACTED if self._secret(key) else self.plain(item) for key, item in value.items()
            }
        if isinstance(value, (list, tuple)):
            return [self.plain(item) for item in value]
        return value

    def arguments(self, text: str) -> str:
        """The arguments text with every secret replaced; the exact text when nothing was."""
        if not self.redactor.may_hold(text):
            return text  # one search shows most arguments hold no secret, spelled or escaped, and no secret name
        try:
            tree = parse_tree(text)
        except ValueError:
            # Not JSON (a truncated or malformed call): its members are found by a tolerant scan instead.
            return self.text(_redact_members(text, self._secret))
        redacted = self.tree(tree)
        candidate = text if _same(tree, redacted) else dump_tree(redacted)
        # A match across JSON syntax (a user pattern spanning a key and its value) is still caught here; it may
        # leave text that is not JSON, which replay reports, but the secret never reaches the file.
        return self.text(candidate)


def _string_end(text: str, start: int) -> int:
    """The index after the string opening at ``start`` (its closing quote), or the end of a truncated text."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return index + 1
        index += 1
    return len(text)


def _value_end(text: str, start: int) -> int:
    """The index after the JSON value starting at ``start``: a string, a bracketed value, or a bare token."""
    if start >= len(text):
        return start
    opening = text[start]
    if opening == '"':
        return _string_end(text, start)
    if opening in "{[":
        depth = 0
        index = start
        while index < len(text):
            char = text[index]
            if char == '"':
                index = _string_end(text, index)
                continue
            depth += char in "{["
            depth -= char in "}]"
            index += 1
            if depth == 0:
                return index
        return len(text)
    index = start
    while index < len(text) and text[index] not in ",}] \t\r\n":
        index += 1
    return index


def _redact_members(text: str, secret: Callable[[str], bool]) -> str:
    """Text that is not JSON with the value of every secret-named member replaced, to the end if it is cut short."""
    out: list[str] = []
    index = 0
    while index < len(text):
        if text[index] != '"':
            out.append(text[index])
            index += 1
            continue
        end = _string_end(text, index)
        token = text[index:end]
        colon = end
        while colon < len(text) and text[colon] in " \t\r\n":
            colon += 1
        if colon < len(text) and text[colon] == ":" and token.endswith('"') and len(token) > 1:
            try:
                key = json.loads(token)
            except ValueError:
                key = token[1:-1]
            if secret(key):
                start = colon + 1
                while start < len(text) and text[start] in " \t\r\n":
                    start += 1
                out.append(text[index:start] + json.dumps(REDACTED))
                index = _value_end(text, start)
                continue
        out.append(token)
        index = end
    return "".join(out)


def _same(left: Any, right: Any) -> bool:
    """Whether redaction left a tree unchanged (only strings can change; ``Number`` leaves are shared)."""
    if isinstance(left, Pairs):
        return len(left) == len(right) and all(
            key == other_key and _same(item, other_item)
            for (key, item), (other_key, other_item) in zip(left, right, strict=True)
        )
    if isinstance(left, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return left is right or (isinstance(left, str) and left == right)


def _get(obj: Any, key: str) -> Any:
    """A field of a mapping or an attribute of an SDK object (pydantic models, dataclasses), else None."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _first(obj: Any, *keys: str) -> Any:
    for key in keys:
        value = _get(obj, key)
        if value is not None:
            return value
    return None


def _call_parts(call: Any) -> tuple[Any, Any, Any, Any]:
    """``(id, name, arguments, tool_fingerprint)`` of a call in any of the shapes ``record`` takes.

    toolwire's ``ToolCall``/``InvalidToolCall`` (``arguments_json``, the exact text; a custom tool call's free-text
    ``input``, which is no JSON and is logged as it is); an OpenAI Chat ``tool_calls``
    entry or an Ollama one (``function.name``/``function.arguments``); a Responses ``function_call`` item (its
    ``call_id`` is the id a tool result answers); an Anthropic ``tool_use`` block (``input``); a Bedrock ``toolUse``
    (``toolUseId``/``input``, wrapped or not); a Gemini ``functionCall`` (``args``, wrapped or not); or a mapping with
    ``name`` and ``arguments`` (a record of this log).
    """
    for wrapper in ("toolUse", "functionCall", "function_call"):
        inner = _get(call, wrapper)
        if inner is not None and _get(inner, "name") is not None:
            call = inner
            break
    fingerprint = _get(call, "tool_fingerprint")
    text = _get(call, "arguments_json")
    function = _get(call, "function")
    if function is not None and _get(function, "name") is not None:
        return _get(call, "id"), _get(function, "name"), _first(function, "arguments", "args"), fingerprint
    identifier = _first(call, "call_id", "toolUseId", "id")
    # A custom tool call (toolwire's, or a Responses custom_tool_call item) carries its input text, not arguments.
    arguments = text if isinstance(text, str) else _first(call, "input", "arguments", "args")
    return identifier, _get(call, "name"), arguments, fingerprint


def _arguments_text(value: Any) -> str:
    """Arguments as JSON text: text as it is, None as ``""`` (no arguments), a value dumped compactly."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"CallLog.record: arguments bytes are not UTF-8 ({error.reason})") from None
    if hasattr(value, "model_dump") and callable(value.model_dump):
        value = value.model_dump(mode="json")
    try:
        return compact(value)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"CallLog.record: arguments must be JSON text or a JSON-compatible value; {error}; pass the text the "
            "model sent (ToolCall.arguments_json) or a dict of JSON values"
        ) from None


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError(f"CallLog.record: ts must be timezone-aware; got naive {moment.isoformat()}")
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _line(record: Mapping[str, Any]) -> bytes:
    return (compact_utf8(record) + "\n").encode("utf-8")


class _Sink:
    """The open file and its pending lines; finalised (flushed, closed) even when the log is never closed.

    A write that fails raises ``CallLogWriteError`` naming every record it did not write, and those records are
    dropped (never written later, so a caller who records them again writes each once). A failure may leave part of
    a line in the file; the next write then starts with a line end, so that the part stays a line of its own, which
    replay reports as unreadable, rather than swallowing the next record. A file opened with such a tail is treated
    alike.
    """

    def __init__(self, path: Path, buffer_bytes: int, fsync: bool) -> None:
        self.path = path
        self.fd: int | None = os.open(path, _OPEN_FLAGS, 0o600)
        self.lock = threading.Lock()
        self.pending: list[tuple[bytes, dict[str, Any]]] = []
        self.size = 0
        self.buffer_bytes = buffer_bytes
        self.fsync = fsync
        self.torn = _torn_tail(path)

    def append(self, line: bytes, record: dict[str, Any]) -> None:
        with self.lock:
            if self.fd is None:
                raise ValueError("CallLog is closed; open a new CallLog to record more calls")
            self.pending.append((line, record))
            self.size += len(line)
            if self.size >= self.buffer_bytes:
                self._write()

    def _write(self) -> None:
        # The caller holds the lock. One write of whole lines: O_APPEND places it at the end in one piece.
        if not self.pending or self.fd is None:
            return
        batch, self.pending, self.size = self.pending, [], 0
        prefix = b"\n" if self.torn else b""
        data = memoryview(prefix + b"".join(line for line, _ in batch))
        written = 0
        try:
            while written < len(data):
                written += os.write(self.fd, data[written:])
        except OSError as error:
            whole, self.torn = _cut(batch, written - len(prefix), self.torn)
            raise CallLogWriteError(str(self.path), tuple(record for _, record in batch[whole:]), error) from None
        self.torn = False
        if self.fsync:
            try:
                os.fsync(self.fd)
            except OSError as error:
                records = tuple(record for _, record in batch)
                raise CallLogWriteError(str(self.path), records, error, synced=False) from None

    def flush(self) -> None:
        with self.lock:
            self._write()

    def close(self) -> None:
        with self.lock:
            if self.fd is None:
                return
            try:
                self._write()
            finally:
                fd, self.fd = self.fd, None
                os.close(fd)


def _torn_tail(path: Path) -> bool:
    """Whether the file ends inside a line (a write that failed, or a crash, left part of one).

    A file this process may append to but not read is taken to: a line end too many is a blank line, which readers
    skip, where one too few would join two records.
    """
    try:
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            return size > 0 and file.seek(size - 1) >= 0 and file.read(1) != b"\n"
    except OSError:
        return True


def _cut(batch: list[tuple[bytes, dict[str, Any]]], written: int, torn: bool) -> tuple[int, bool]:
    """How many lines of a batch a failed write left whole in the file, and whether the file now ends inside a line.

    ``written`` counts the batch's bytes written; it is negative when even the line end meant to close an earlier
    torn line is missing, which leaves that line torn.
    """
    if written < 0:
        return 0, torn
    end = 0
    for whole, (line, _) in enumerate(batch):
        if end + len(line) > written:
            return whole, written > end
        end += len(line)
    return len(batch), False


class CallLog(AsyncClosingBlock):
    """Appends each tool call a production loop handles to a JSONL file, ready for ``toolwire replay``.

    Example:
        >>> import toolwire
        >>> with toolwire.CallLog("calls.jsonl", tools=registry) as log:  # doctest: +SKIP
        ...     for call in toolwire.reassemble(stream, tools=registry, on_invalid="yield"):
        ...         try:
        ...             result = dispatch(call) if call.ok else None
        ...         except Exception:
        ...             log.record(call, "error")
        ...             raise
        ...         log.record(call)  # "ok", or "invalid" for an InvalidToolCall
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        redact: Iterable[str | re.Pattern[str]] = (),
        redact_keys: Iterable[str] = (),
        tools: ToolRegistry | None = None,
        buffer_bytes: int = 0,
        fsync: bool = False,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        """Open (or create, readable by its owner only) the log file for appending.

        Args:
            path: The JSONL file; appended to when it exists.
            redact: Regexes (strings or compiled ``str`` patterns) whose matches become ``[REDACTED]``, on top of the
                built-in detectors, which are always on.
            redact_keys: Key names whose values are replaced whole by ``[REDACTED]`` wherever they occur in the
                arguments or the extra fields (``"ssn"``), on top of the secret names always replaced (``password``,
                ``token``...); case and ``-``/``_`` do not matter.
            tools: The registry the loop validates against: the fingerprint of a call's tool is taken from it when
                the call does not carry one (an SDK object, a mapping). Anything ``ToolRegistry.load`` takes.
            buffer_bytes: Gather lines until this many bytes are pending, then write them at once; 0 (the default)
                writes every record before ``record`` returns. A gathered record that a later write fails to put
                in the file is named by that write's ``CallLogWriteError``.
            fsync: Also ``os.fsync`` after every write (durable across a power cut; much slower).
            clock: Returns the current time (timezone-aware) for ``ts``; ``datetime.now(timezone.utc)`` by default.

        Raises:
            TypeError: A ``redact`` item is not a pattern, or a ``redact_keys`` item is not a string.
            ValueError: A ``redact`` regex that does not compile, or a negative ``buffer_bytes``.
            OSError: The file cannot be opened for appending (its folder missing, no permission).
        """
        self._patterns = compile_patterns(redact)
        keys = [redact_keys] if isinstance(redact_keys, str) else list(redact_keys)
        for number, key in enumerate(keys):
            if not isinstance(key, str) or not key:
                raise TypeError(f"redact_keys[{number}] must be a non-empty key name; got {key!r:.60}")
        if isinstance(buffer_bytes, bool) or not isinstance(buffer_bytes, int) or buffer_bytes < 0:
            raise ValueError(f"buffer_bytes must be an int >= 0 (0 writes every record at once); got {buffer_bytes!r}")
        if tools is not None:
            from toolwire.registry import ToolRegistry

            tools = ToolRegistry.load(tools)
        self._redactor = _ArgumentRedactor(self._patterns, keys)
        self._tools = tools
        self._clock = clock or _utc_now
        self._path = Path(path)
        self._sink = _Sink(self._path, buffer_bytes, fsync)
        self._finalizer = weakref.finalize(self, self._sink.close)

    @property
    def path(self) -> Path:
        """The log file."""
        return self._path

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called (records are refused from then on)."""
        return self._sink.fd is None

    def entry(
        self,
        call: Any = None,
        outcome: str | None = None,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments: Any = None,
        tool_fingerprint: str | None = None,
        ts: datetime | None = None,
        result: Any = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """The line ``record`` would write for a call, redacted, as a dict (nothing is written).

        Arguments as for ``record``.
        """
        found_id, found_name, found_arguments, found_fingerprint = (
            _call_parts(call) if call is not None else (None,) * 4
        )
        name = name if name is not None else found_name
        if call is None and name is None:
            raise TypeError("CallLog.record: give a call, or name= and arguments=")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"CallLog.record: the tool name must be a string; got {type(name).__name__} {name!r:.60}")
        identifier = id if id is not None else found_id
        if identifier is not None and not isinstance(identifier, str):
            # Some SDKs number their calls; the reader takes an integer id too, but one type keeps logs uniform.
            identifier = str(identifier)
        if outcome is None:
            outcome = "invalid" if call is not None and _get(call, "ok") is False else "ok"
        if not isinstance(outcome, str) or not outcome:
            raise TypeError(f"CallLog.record: outcome must be a non-empty string ('ok', 'error', ...); got {outcome!r}")
        text = _arguments_text(arguments if arguments is not None else found_arguments)
        fingerprint = self._fingerprint(tool_fingerprint or found_fingerprint, name)
        redactor = self._redactor
        record: dict[str, Any] = {
            "id": redactor.text(identifier) if identifier is not None else None,
            "name": redactor.text(name) if name is not None else None,
            "arguments": redactor.arguments(text),
            "tool_fingerprint": fingerprint,
            "ts": _iso(ts if ts is not None else self._clock()),
            "outcome": redactor.text(outcome),
        }
        if result is not None:
            record["result"] = redactor.plain(sdk_json(result))
        for key, value in fields.items():
            if key in _ALIASES:
                raise ValueError(
                    f"CallLog.record: {key!r} would be read back as a call key; give the extra field another name"
                )
            record[redactor.text(key)] = REDACTED if redactor._secret(key) else redactor.plain(value)
        return record

    def _fingerprint(self, given: object, name: str | None) -> str | None:
        """The fingerprint given (checked), else that of the tool ``name`` in ``tools=``."""
        if given is not None and not isinstance(given, str):
            raise TypeError(f"CallLog.record: tool_fingerprint must be a string (sha256:...); got {given!r:.60}")
        if given is None and self._tools is not None and isinstance(name, str):
            tool = self._tools.get(name)
            return tool.fingerprint if tool is not None else None
        return given

    def record(
        self,
        call: Any = None,
        outcome: str | None = None,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments: Any = None,
        tool_fingerprint: str | None = None,
        ts: datetime | None = None,
        result: Any = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """Append one call as a line (redacted first); safe from any thread and from coroutines.

        Args:
            call: A ``ToolCall`` or ``InvalidToolCall``, an SDK tool call object (OpenAI Chat ``tool_calls`` entry,
                Responses ``function_call`` item, Anthropic ``tool_use`` block, Gemini ``functionCall``, Bedrock
                ``toolUse``), a mapping of one of those shapes or with ``name`` and ``arguments``; or None when
                ``name`` and ``arguments`` are given.
            outcome: What the loop did with it: ``"ok"``, ``"error"`` (the handler failed), ``"invalid"`` (not
                dispatched), or any word of yours. Default: ``"invalid"`` for a call whose ``ok`` is False,
                else ``"ok"``.
            id: The call id, overriding the call's.
            name: The tool name, overriding the call's.
            arguments: The arguments (JSON text, or a JSON value dumped compactly), overriding the call's.
            tool_fingerprint: The fingerprint of the tool definition used, overriding the call's and ``tools``'.
            ts: When the call was handled (timezone-aware); now by default.
            result: What the tool answered: an ``mcp`` ``CallToolResult`` (written by its aliases, as the spec's JSON),
                or JSON data (a mapping of that shape for an MCP tool); left out of the line when None. ``replay``
                checks it against the tool's ``outputSchema``.
            **fields: Extra keys for the line (``conversation="c-42"``, ``latency_ms=31``), redacted like the
                arguments; ``replay`` keeps them in ``ObservedCall.fields``.

        Returns:
            The record as written.

        Raises:
            TypeError: A name that is not a string, an empty outcome, arguments that are not JSON-compatible, or
                a result or extra fields JSON cannot represent.
            ValueError: The log is closed, ``ts`` is naive, or an extra field is named like a call key's alias
                (``input``, ``time``, ``schema_fingerprint``).
            CallLogWriteError: The write failed (a full disk): its ``records`` were not written (with
                ``buffer_bytes``, earlier records gathered with this one too).
        """
        record = self.entry(
            call,
            outcome,
            id=id,
            name=name,
            arguments=arguments,
            tool_fingerprint=tool_fingerprint,
            ts=ts,
            result=result,
            **fields,
        )
        try:
            line = _line(record)
        except (TypeError, ValueError) as error:
            raise TypeError(f"CallLog.record: the result or an extra field is not JSON-compatible: {error}") from None
        self._sink.append(line, record)
        return record

    async def arecord(self, call: Any = None, outcome: str | None = None, **options: Any) -> dict[str, Any]:
        """``record`` from a coroutine, the write done in a worker thread so the event loop never waits on the disk.

        ``record`` itself is also safe in a coroutine (it never awaits while holding its lock); prefer this one with
        ``fsync=True`` or a slow disk.
        """
        import asyncio

        return await asyncio.to_thread(self.record, call, outcome, **options)

    def flush(self) -> None:
        """Write the lines gathered under ``buffer_bytes`` now.

        Raises:
            CallLogWriteError: The write failed: its ``records`` were not written.
        """
        self._sink.flush()

    def close(self) -> None:
        """Write what is pending and close the file; further records raise ``ValueError``. Idempotent.

        Raises:
            CallLogWriteError: The last write failed: its ``records`` were not written (the file is closed all the
                same).
        """
        self._finalizer()

    def __repr__(self) -> str:
        """``CallLog('calls.jsonl')`` (closed logs say so)."""
        return f"CallLog({str(self._path)!r}{', closed' if self.closed else ''})"
