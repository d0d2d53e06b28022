"""Recorded provider streams: reading them, iterating them as they came over the network, and writing new ones.

A recording is a pair of files in ``recordings/<format>/``: the stream itself — ``<name>.sse`` (the raw bytes as
received), ``<name>.jsonl`` (one chunk JSON per line, where only parsed chunks exist, or the raw bytes of a JSON-lines
wire format such as Ollama's; for the ``text`` format, one JSON string per line: a text delta as the server streamed
it), ``<name>.json-array`` (the one JSON array Gemini's ``streamGenerateContent`` sends
without ``alt=sse``) or ``<name>.eventstream`` (the binary AWS event-stream body of Bedrock's ``ConverseStream``) —
and ``<name>.json``, its manifest. The same files feed the Rust tests, pytest, the
benchmarks and the local endpoint (``toolwire.server``).

Manifest keys: ``format`` (the wire format, or ``text`` for a model's own text deltas; required), ``dialect`` (the
dialect the model wrote its calls into its text in: ``reassemble_options`` passes it as ``dialect=``), ``request`` (the request body as sent, or at least its
``tools`` and ``tool_choice``), ``expected`` (what reassembling must give: ``calls``, ``finish_reason``, ``text``,
``violations``, ``usage``, and optionally ``output`` and ``choices``, each choice's text and finish), ``notes``, and
for the bundled files ``quirk`` and ``source``. Recordings written by :func:`write` or a :class:`Recorder` also carry ``model``,
``tools_fingerprint`` (``toolwire.ToolRegistry(tools).fingerprint``), ``recorded_at`` (ISO-8601 UTC),
``complete`` (false when the consumer stopped before the stream ended) and ``transport``: ``{"status",
"content_type", "headers", "chunks": [[offset_ms, size], ...]}`` (``chunks`` for byte streams only: every network
read in order, with its milliseconds since recording started).

Reading is pure Python and does not need the compiled core. Its readers of each framing are deliberately minimal (they
serve tests and the demo); the fast path frames raw bytes in the Rust core. ``write`` and ``Recorder`` live in
``toolwire.recordings._write``.

Example:
    >>> import toolwire
    >>> from toolwire.recordings import load
    >>> recording = load("recordings/openai-chat/parallel-calls.sse")  # doctest: +SKIP
    >>> [call.name for call in toolwire.reassemble(recording)]  # doctest: +SKIP
    ['plus', 'minus']
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_SUFFIXES",
    "RAW_SUFFIXES",
    "TEXT_FORMAT",
    "Recording",
    "decode_eventstream",
    "decode_json_array",
    "decode_jsonl",
    "decode_sse",
    "describe_call",
    "iter_recordings",
    "load",
    "load_recording",
]

#: Suffixes of stream data files, in the order they are looked for next to a manifest.
DATA_SUFFIXES: tuple[str, ...] = (".sse", ".jsonl", ".json-array", ".eventstream")

#: Suffixes of data files that hold a body's raw bytes as received (a ``.jsonl`` file holds chunks, one per line).
RAW_SUFFIXES: tuple[str, ...] = (".sse", ".json-array", ".eventstream")

#: The format of a recording of a model's text itself: its ``.jsonl`` lines are JSON strings, the text deltas.
TEXT_FORMAT = "text"

#: Suffix of the manifest that sits next to every data file.
MANIFEST_SUFFIX = ".json"

#: ``recordings/`` next to the package's source tree (``python/toolwire/../../recordings``).
DEFAULT_ROOT = Path(__file__).resolve().parents[3] / "recordings"

# Line ends of SSE (and of our JSON lines): CRLF, LF or a lone CR. Not str.splitlines(), which would also split on
# U+2028, U+0085 and friends, all of which may appear raw inside a JSON string.
_LINE_END = re.compile(r"\r\n|\r|\n")

_DONE = "[DONE]"


def _decode_utf8(data: bytes, origin: str) -> str:
    """Decode bytes as UTF-8, dropping a leading byte-order mark.

    Args:
        data: The raw bytes.
        origin: Where they came from, for the error message.

    Returns:
        The text.

    Raises:
        ValueError: The bytes are not UTF-8.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{origin}: not UTF-8 ({exc})") from exc


def _parse_json(text: str, origin: str) -> Any:
    """Parse one JSON payload, naming where it came from when it is not JSON.

    Args:
        text: The payload.
        origin: Its place (file and event or line number), for the error message.

    Returns:
        The decoded value.

    Raises:
        ValueError: The payload is not valid JSON.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{origin}: invalid JSON ({exc.msg} at {exc.pos}): {text[:80]!r}") from exc


def _sse_data_fields(text: str) -> Iterator[list[str]]:
    """Split SSE text into events and yield the ``data`` field values of each event that has any.

    Events end at a blank line; an event still open at the end of the text counts too (a missing final blank line).
    Whitespace before a field name is tolerated, lines starting with ``:`` are comments, one space after the colon
    is dropped, and fields other than ``data`` (``event``, ``id``, ``retry``) are ignored.

    Args:
        text: The whole decoded stream.

    Yields:
        The ``data`` values of one event, in order (at least one).
    """
    data: list[str] = []
    for raw_line in _LINE_END.split(text):
        line = raw_line.lstrip(" \t")
        if not line:
            if data:
                yield data
                data = []
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
    if data:
        yield data


def decode_sse(data: bytes, origin: str = "<sse>") -> list[Any]:
    """Decode the JSON payloads of an SSE stream.

    A minimal reader: events are split on blank lines (LF, CRLF or CR line ends), an event's ``data`` field values
    are joined with a line feed, comments and non-``data`` fields are skipped, and so are ``[DONE]`` and events whose
    data is empty or only whitespace (keep-alives).

    Args:
        data: The raw stream bytes (UTF-8).
        origin: A name for error messages, such as the file path.

    Returns:
        One decoded JSON value per event, in stream order.

    Raises:
        ValueError: The bytes are not UTF-8, or an event's data is not JSON.
    """
    payloads: list[Any] = []
    for number, values in enumerate(_sse_data_fields(_decode_utf8(data, origin))):
        payload = "\n".join(values)
        if not payload.strip() or payload.strip() == _DONE:
            continue
        payloads.append(_parse_json(payload, f"{origin}: event {number}"))
    return payloads


def decode_jsonl(data: bytes, origin: str = "<jsonl>") -> list[Any]:
    """Decode JSON lines: one JSON value per non-empty line.

    Args:
        data: The raw file bytes (UTF-8).
        origin: A name for error messages, such as the file path.

    Returns:
        The decoded values, in file order.

    Raises:
        ValueError: The bytes are not UTF-8, or a line is not JSON.
    """
    text = _decode_utf8(data, origin)
    return [
        _parse_json(line, f"{origin}: line {number + 1}")
        for number, line in enumerate(_LINE_END.split(text))
        if line.strip()
    ]


def decode_json_array(data: bytes, origin: str = "<json-array>") -> list[Any]:
    """Decode a JSON-array body: its elements, in order.

    Args:
        data: The raw body (UTF-8).
        origin: A name for error messages, such as the file path.

    Returns:
        The elements.

    Raises:
        ValueError: The bytes are not UTF-8, or not one JSON array.
    """
    elements = _parse_json(_decode_utf8(data, origin), origin)
    if not isinstance(elements, list):
        raise ValueError(f"{origin}: not a JSON array")
    return elements


def decode_eventstream(data: bytes, origin: str = "<eventstream>") -> list[Any]:
    """Decode an AWS event-stream body into the events the AWS SDK yields for it.

    Each message (prelude, headers, payload, CRC32s checked) becomes ``{"<:event-type>": payload}`` (or
    ``{"<:exception-type>": payload}``), the payload's ``p`` padding member dropped, as boto3 gives them; an ``error``
    message (no payload) ``{"error": {"code": <:error-code>, "message": <:error-message>}}``, as the engine reads it.

    Args:
        data: The raw body.
        origin: A name for error messages, such as the file path.

    Returns:
        One event dict per message, in order.

    Raises:
        ValueError: A message is cut short, fails its CRC, or is not an error, or an event or exception with a JSON
            object.
    """
    events: list[Any] = []
    at = 0
    while at < len(data):
        where = f"{origin}: message at byte {at}"
        total, headers_length = int.from_bytes(data[at : at + 4], "big"), int.from_bytes(data[at + 4 : at + 8], "big")
        message = data[at : at + total]
        if len(message) < max(total, 16) or zlib.crc32(message[:8]) != int.from_bytes(message[8:12], "big"):
            raise ValueError(f"{where}: cut short or a broken prelude")
        if zlib.crc32(message[:-4]) != int.from_bytes(message[-4:], "big"):
            raise ValueError(f"{where}: its CRC32 does not match")
        headers = _aws_headers(message[12 : 12 + headers_length], where)
        at += total
        if headers.get(":message-type") == "error":
            events.append({"error": {"code": headers.get(":error-code"), "message": headers.get(":error-message")}})
            continue
        kind = headers.get(":event-type") or headers.get(":exception-type")
        payload = _parse_json(_decode_utf8(message[12 + headers_length : -4], where), where)
        if headers.get(":message-type") not in ("event", "exception") or kind is None or not isinstance(payload, dict):
            raise ValueError(f"{where}: not an event or exception message with a JSON object")
        payload.pop("p", None)
        events.append({kind: payload})
    return events


def _aws_headers(data: bytes, where: str) -> dict[str, str]:
    """The string headers of an AWS event-stream message (each other type skipped by its size)."""
    sizes = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
    headers: dict[str, str] = {}
    at = 0
    while at < len(data):
        name = data[at + 1 : at + 1 + data[at]].decode("utf-8", "replace")
        at += 1 + data[at]
        kind = data[at]
        if kind in (6, 7):
            size = int.from_bytes(data[at + 1 : at + 3], "big")
            if kind == 7:
                headers[name] = data[at + 3 : at + 3 + size].decode("utf-8", "replace")
            at += 3 + size
        elif kind in sizes:
            at += 1 + sizes[kind]
        else:
            raise ValueError(f"{where}: header {name!r} has type {kind}, which the protocol does not define")
    return headers


@dataclass(frozen=True)
class Recording:
    """One recorded stream and its manifest.

    Attributes:
        name: ``<format folder>/<file stem>``, e.g. ``"openai-chat/q8-index-starts-at-1"``.
        path: The data file (one of ``DATA_SUFFIXES``).
        format: The wire format named by the manifest (``openai-chat``, ``openai-responses``, ...).
        manifest: The whole manifest, as decoded.
    """

    name: str
    path: Path
    format: str
    manifest: dict[str, Any] = field(repr=False, hash=False)

    def source(self) -> Any:
        """What ``reassemble`` reads for this recording.

        Returns:
            The raw bytes of a ``.sse``, ``.json-array`` or ``.eventstream`` file (the fast path, framed and parsed in
            Rust); a ``.jsonl`` file's chunks; a ``text`` recording's text deltas (strings, never a raw body: read
            with its ``dialect=``).
        """
        return self.read_bytes() if self._raw else self.chunks()

    @property
    def _raw(self) -> bool:
        """Whether the data file is a body's raw bytes (a ``text`` recording's never is)."""
        return self.path.suffix in RAW_SUFFIXES and self.format != TEXT_FORMAT

    def __iter__(self) -> Iterator[Any]:
        """The stream as it came over the network.

        With ``transport.chunks`` in the manifest (a recorded byte stream): the data file's bytes split into those
        reads. Without: a raw body's bytes (``.sse``, ``.json-array``, ``.eventstream``) as one bytes object, a
        ``.jsonl`` file's chunks, a ``text`` recording's text deltas. Either way ``toolwire.reassemble(recording)``
        reads it (a ``text`` recording with its ``dialect=``).

        Returns:
            An iterator over bytes objects or chunk dicts (the file is read when this is called).

        Raises:
            ValueError: ``transport.chunks`` is malformed or its sizes do not add up to the data file's size.
        """
        sizes = None if self.format == TEXT_FORMAT else self._chunk_sizes()
        if sizes is None:
            return iter((self.read_bytes(),) if self._raw else self.chunks())
        data = self.read_bytes()
        if sum(sizes) != len(data):
            raise ValueError(
                f"{self.manifest_path}: transport.chunks add up to {sum(sizes)} bytes but {self.path.name} holds "
                f"{len(data)}; the data file was changed after recording (drop transport.chunks or re-record)"
            )
        pieces: list[bytes] = []
        start = 0
        for size in sizes:
            pieces.append(data[start : start + size])
            start += size
        return iter(pieces)

    def _chunk_sizes(self) -> list[int] | None:
        """The sizes of the recorded network reads (``transport.chunks``), or None when none were recorded.

        Raises:
            ValueError: ``transport`` or ``transport.chunks`` has the wrong shape.
        """
        transport = self.manifest.get("transport")
        if transport is None:
            return None
        if not isinstance(transport, dict):
            raise ValueError(f"{self.manifest_path}: 'transport' must be a JSON object")
        chunks = transport.get("chunks")
        if chunks is None:
            return None
        if not isinstance(chunks, list):
            raise ValueError(f"{self.manifest_path}: transport.chunks must be a list of [offset_ms, size] pairs")
        sizes: list[int] = []
        for number, entry in enumerate(chunks):
            size = entry[1] if isinstance(entry, list) and len(entry) == 2 else None
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise ValueError(
                    f"{self.manifest_path}: transport.chunks[{number}] must be [offset_ms, size] with a size in "
                    f"bytes (an integer >= 0); got {entry!r:.60}"
                )
            sizes.append(size)
        return sizes

    @property
    def manifest_path(self) -> Path:
        """The manifest file next to the data file."""
        return self.path.with_suffix(MANIFEST_SUFFIX)

    def read_bytes(self) -> bytes:
        """The data file's bytes, exactly as stored.

        Returns:
            The raw bytes.
        """
        return self.path.read_bytes()

    def chunks(self) -> list[Any]:
        """The decoded chunks of the stream.

        ``.jsonl``: one ``json.loads`` per non-empty line (for the ``text`` format each a string: a text delta).
        ``.sse``: the JSON payload of each event (see
        :func:`decode_sse`), without ``[DONE]``. ``.json-array``: the array's elements. ``.eventstream``: the event
        the AWS SDK yields for each message (see :func:`decode_eventstream`).

        Returns:
            The chunks (for OpenAI Chat, ``chat.completion.chunk`` dicts, and error events as sent; for ``text``, the
            deltas' strings).

        Raises:
            ValueError: The file is not UTF-8 or holds something that is not JSON; a ``text`` recording's file is not
                ``.jsonl`` or a line is not a JSON string.
        """
        data = self.read_bytes()
        if self.format == TEXT_FORMAT:
            if self.path.suffix != ".jsonl":
                raise ValueError(f"{self.path}: a text recording is a .jsonl file of JSON strings, one delta a line")
            deltas = decode_jsonl(data, str(self.path))
            for number, delta in enumerate(deltas):
                if not isinstance(delta, str):
                    raise ValueError(f"{self.path}: delta {number + 1} is not a JSON string: {delta!r:.60}")
            return deltas
        decode = {
            ".jsonl": decode_jsonl,
            ".json-array": decode_json_array,
            ".eventstream": decode_eventstream,
        }.get(self.path.suffix, decode_sse)
        return decode(data, str(self.path))

    @property
    def expected(self) -> dict[str, Any]:
        """What reassembling the stream must give (``calls``, ``finish_reason``, ``text``, ``violations``, ``usage``).

        Raises:
            ValueError: The manifest has no ``expected`` object.
        """
        expected = self.manifest.get("expected")
        if not isinstance(expected, dict):
            raise ValueError(f"{self.manifest_path}: 'expected' must be a JSON object")
        return expected

    @property
    def request(self) -> dict[str, Any] | None:
        """The recorded request's ``tool_choice`` and ``tools``, or None when the request is not known.

        Returns:
            ``{"tool_choice": ..., "tools": [...]}`` (``tool_choice`` None when the request sent none).

        Raises:
            ValueError: The manifest's ``request`` is not a JSON object.
        """
        request = self.manifest.get("request")
        if request is None:
            return None
        if not isinstance(request, dict):
            raise ValueError(f"{self.manifest_path}: 'request' must be a JSON object")
        return {"tool_choice": request.get("tool_choice"), "tools": list(request.get("tools") or [])}

    @property
    def dialect(self) -> str | None:
        """The dialect the model wrote its calls into its text in (the manifest's ``dialect``), None when none.

        Raises:
            ValueError: The manifest's ``dialect`` is not a string.
        """
        dialect = self.manifest.get("dialect")
        if dialect is not None and not isinstance(dialect, str):
            raise ValueError(f"{self.manifest_path}: 'dialect' must be a dialect's name (a string)")
        return dialect

    def reassemble_options(self) -> dict[str, Any]:
        """The keywords that replay the recorded request: ``tools``, ``tool_choice`` and ``dialect``.

        ``tools`` is None when unknown; ``dialect`` is there when the model wrote its calls into its text. Use as
        ``toolwire.reassemble(recording.source(), **recording.reassemble_options(), ...)``, so that the calls are
        checked against the tools the request declared, the stream against its ``tool_choice``, and the text read in
        its dialect.
        """
        request = self.request or {}
        options = {"tools": request.get("tools") or None, "tool_choice": request.get("tool_choice")}
        if self.dialect is not None:
            options["dialect"] = self.dialect
        return options


def _data_file_for(manifest_path: Path) -> Path:
    """Find the one data file that sits next to a manifest.

    Args:
        manifest_path: The ``.json`` manifest.

    Returns:
        The data file (one of ``DATA_SUFFIXES``) with the same stem.

    Raises:
        FileNotFoundError: There is none.
        ValueError: There are several.
    """
    found = [manifest_path.with_suffix(suffix) for suffix in DATA_SUFFIXES]
    found = [path for path in found if path.is_file()]
    if not found:
        wanted = " or ".join(manifest_path.with_suffix(suffix).name for suffix in DATA_SUFFIXES)
        raise FileNotFoundError(f"{manifest_path}: no data file ({wanted}) next to the manifest")
    if len(found) > 1:
        raise ValueError(f"{manifest_path}: several data files for one manifest: {[p.name for p in found]}")
    return found[0]


def _load(data_path: Path, name: str) -> Recording:
    """Read a data file's manifest and build the recording.

    Args:
        data_path: The data file (one of ``DATA_SUFFIXES``).
        name: The recording's name.

    Returns:
        The recording (its chunks are read lazily).

    Raises:
        FileNotFoundError: The manifest is missing.
        ValueError: The manifest is not a JSON object with a string ``format``.
    """
    manifest_path = data_path.with_suffix(MANIFEST_SUFFIX)
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{data_path}: no manifest {manifest_path.name} next to the data file")
    manifest = _parse_json(_decode_utf8(manifest_path.read_bytes(), str(manifest_path)), str(manifest_path))
    if not isinstance(manifest, dict):
        raise ValueError(f"{manifest_path}: the manifest must be a JSON object")
    fmt = manifest.get("format")
    if not isinstance(fmt, str) or not fmt:
        raise ValueError(f"{manifest_path}: the manifest must name its 'format'")
    return Recording(name=name, path=data_path, format=fmt, manifest=manifest)


def load_recording(path: str | Path) -> Recording:
    """Load one recording from its data file or from its manifest.

    Args:
        path: The data file (``.sse``, ``.jsonl``, ``.json-array``, ``.eventstream``) or the ``.json`` manifest next to it.

    Returns:
        The recording, named ``<folder>/<stem>``.

    Raises:
        FileNotFoundError: The file, its manifest or its data file is missing.
        ValueError: The path is neither a data file nor a manifest, or the manifest is malformed.
    """
    path = Path(path)
    if path.suffix == MANIFEST_SUFFIX:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such manifest")
        data_path = _data_file_for(path)
    elif path.suffix in DATA_SUFFIXES:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such data file")
        data_path = path
    else:
        raise ValueError(f"{path}: a recording is a data file ({', '.join(DATA_SUFFIXES)}) or its .json manifest")
    return _load(data_path, f"{data_path.parent.name}/{data_path.stem}")


#: Load one recording (the documented name of :func:`load_recording`): iterate the result for the stream as it came
#: over the network, or hand it to ``toolwire.reassemble``.
load = load_recording


def iter_recordings(root: str | Path | None = None, *, format: str | None = None) -> Iterator[Recording]:
    """Iterate over every recording under a folder, sorted by name.

    The folder is read when this is called, so a missing folder or a broken manifest raises here, not later.

    Args:
        root: The recordings folder (``<root>/<format>/<name>.json`` plus its data file). By default the
            ``recordings/`` folder of the source tree this package was imported from.
        format: Only recordings whose manifest names this wire format.

    Returns:
        An iterator over the recordings, sorted by name (``<format folder>/<stem>``).

    Raises:
        FileNotFoundError: The folder does not exist (for the default: the package is not running from its source
            tree, so pass ``root=``), or a manifest has no data file.
        ValueError: A manifest is malformed or has several data files.
    """
    if root is None:
        folder = DEFAULT_ROOT
        if not folder.is_dir():
            raise FileNotFoundError(
                f"no recordings folder at {folder} (toolwire is not running from its source tree); "
                "pass root= the path of a recordings folder"
            )
    else:
        folder = Path(root)
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such recordings folder")
    found = [
        _load(_data_file_for(manifest_path), manifest_path.relative_to(folder).with_suffix("").as_posix())
        for manifest_path in folder.rglob(f"*{MANIFEST_SUFFIX}")
    ]
    found.sort(key=lambda recording: recording.name)
    return iter([recording for recording in found if format is None or recording.format == format])


def describe_call(call: Any) -> dict[str, Any]:
    """A handed-over call in the shape of a manifest's ``expected.calls`` entries.

    Violations are listed as sorted codes (``violations`` for warnings and infos, ``errors`` for an invalid call's
    errors, each followed by its JSON pointer when it has one: ``"TYPE_MISMATCH /celsius"``), the form in which a
    manifest states them.

    Args:
        call: A ``ToolCall`` or ``InvalidToolCall`` (from the core or the reference).

    Returns:
        ``{"seq", "choice", "index", "id", "name", "arguments", "arguments_json", "ok", "violations"}`` plus
        ``"errors"`` for an invalid call, ``"extra"`` for a call that carries provider fields and ``"input"`` for a
        custom tool call.
    """
    description: dict[str, Any] = {
        "seq": call.seq,
        "choice": call.choice,
        "index": call.index,
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "arguments_json": call.arguments_json,
        "ok": call.ok,
        "violations": sorted(violation.code.value for violation in call.violations),
    }
    if not call.ok:
        description["errors"] = sorted(
            f"{error.code.value} {error.path}" if error.path is not None else error.code.value for error in call.errors
        )
    if call.extra:
        description["extra"] = dict(call.extra)
    if call.input is not None:
        description["input"] = call.input
    return description
