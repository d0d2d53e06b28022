"""Writing recordings: ``toolwire.recordings.write`` and ``Recorder``, with secrets redacted on the way to disk.

A recording is written as ``<folder>/<name>.<suffix>`` (its data file) and ``<folder>/<name>.json``. ``name`` may hold
``/``-separated subfolders (``"openai-chat/parallel-calls"`` under a recordings root, as ``iter_recordings`` and the
pytest plugin name recordings); absolute names, ``.``/``..`` or empty parts, backslashes, control characters and a
trailing data or manifest suffix are rejected with ``ValueError``. Folders are created as needed. Each file is
written to a temporary file beside it and renamed into place, data file first and manifest last, so a crash never
leaves a half-written manifest; a data file of another suffix left by an earlier recording of the same name is
removed.

What the stream is decides the data file:

- bytes (one object, or an iterable of network reads: ``bytes``, ``bytearray``, ``memoryview`` or ``str``, the last
  encoded as UTF-8): the bytes byte for byte, under the suffix of the framing the engine tells from their first
  bytes: ``.sse`` (server-sent events), ``.jsonl`` (JSON lines: Ollama), ``.json-array`` (Gemini without
  ``alt=sse``), ``.eventstream`` (AWS event-stream messages: Bedrock's ``ConverseStream`` over HTTP); a body of no
  framing under its format's usual suffix (``.jsonl`` for Ollama, ``.sse`` otherwise). Every read is kept in
  ``transport.chunks`` as ``[offset_ms, size]``. Record reads (httpx ``iter_bytes()``, ``iter_raw()``,
  ``aiter_bytes()``), not ``iter_lines()``, which drops the line ends.
- chunks (dicts or SDK objects, dumped with ``model_dump(mode="json", by_alias=True, exclude_unset=True)``): one
  compact JSON object per line in ``.jsonl``.
- a ``Recording`` (it iterates as one of the two).

Secrets never reach the disk, and what is written still replays. Secret headers (``Authorization``, ``X-Api-Key``,
``Cookie``...) are dropped, their values secrets wherever else they appear. In the stream, secrets are found by
meaning (``toolwire.recordings._redact_stream``): in each call's reassembled arguments (its strings decoded, the values of
members named like ``password`` or ``token``) and each choice's text, however they were cut into fragments, reads or
escapes, and in every other string of every event; every character of a secret becomes ``*`` in the fragment it came
in (an AWS message that changed is framed anew: its length and CRCs), so the recording loads, replays to the same
calls with the secrets masked, and is served as it was. The manifest is masked the same way: every string (keys too)
and the values of secret-named members (a number keeps its shape), so that ``expected`` calls read as the recording
replays. Detectors: ``toolwire._common._secrets``; ``redact=`` adds
regexes. A secret the rewriting could not place raises ``ValueError`` and nothing is written; so does a secret in the
bytes past a break in a JSON array's or AWS body's framing (a cut, a bad CRC), which are kept as they came otherwise
(``docs/semantics.md``, "Secrets in what toolwire writes"). The consumer of ``Recorder.tee`` still gets the stream
unchanged.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Final

from toolwire._common._closing import AsyncClosingBlock
from toolwire._common._json import compact_utf8
from toolwire._common._redact import Redactor, compile_patterns, split_headers
from toolwire.formats import FRAMING_SUFFIXES, WIRE_FORMATS, Format, Framing, format_of
from toolwire.recordings._redact_stream import redact_chunks, redact_stream
from toolwire.registry import ToolRegistry

if TYPE_CHECKING:
    from toolwire.recordings._read import Recording

__all__ = ["Recorder", "check_name", "write"]

# A raw body's content type, by its data file's suffix.
_CONTENT_TYPES: Final = {
    ".sse": "text/event-stream",
    ".jsonl": "application/x-ndjson",
    ".json-array": "application/json",
    ".eventstream": "application/vnd.amazon.eventstream",
}
_RAW: Final = (bytes, bytearray, memoryview, str)


def check_name(name: object) -> str:
    """Check a recording name (see the module docstring for the rules).

    Args:
        name: ``"<stem>"`` or ``"<folder>/.../<stem>"``, without a suffix.

    Returns:
        The name.

    Raises:
        TypeError: The name is not a string.
        ValueError: The name is empty, absolute, leaves its folder or is otherwise unusable as a file stem.
    """
    from toolwire.recordings._read import DATA_SUFFIXES, MANIFEST_SUFFIX

    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'openai-chat/parallel-calls'; got {type(name).__name__}")
    problem = None
    if not name:
        problem = "it is empty"
    elif PurePosixPath(name).is_absolute() or PureWindowsPath(name).is_absolute() or PureWindowsPath(name).drive:
        problem = "it is absolute; give it relative to the folder"
    elif "\\" in name:
        problem = "it holds a backslash; separate subfolders with '/'"
    elif any(part in ("", ".", "..") for part in name.split("/")):
        problem = "it has an empty, '.' or '..' part; a recording stays inside its folder"
    elif any(ord(char) < 32 or char == "\x7f" for char in name):
        problem = "it holds a control character"
    elif name.endswith((*DATA_SUFFIXES, MANIFEST_SUFFIX)):
        problem = "it ends with a file suffix; give the stem, the suffix follows from the stream"
    if problem:
        raise ValueError(f"bad recording name {name!r}: {problem}")
    return name


def _line(chunk: Any) -> str:
    """A chunk as one compact JSON line (non-ASCII kept, unless a lone surrogate needs its escape)."""
    return compact_utf8(chunk, allow_nan=True)


def _check_format(format: object) -> Format:
    if not isinstance(format, str):
        raise ValueError(f"format must be one of {', '.join(map(repr, WIRE_FORMATS))}; got {format!r}")
    return format_of(format)


def _json_value(value: Any, field: str) -> Any:
    """A JSON-ready deep copy (SDK objects dumped), or a TypeError naming the field."""

    def dump(obj: Any) -> Any:
        model_dump = getattr(obj, "model_dump", None)
        if callable(model_dump):
            return model_dump(mode="json", by_alias=True, exclude_unset=True)
        raise TypeError(f"{type(obj).__name__} is not JSON")

    try:
        return json.loads(json.dumps(value, default=dump, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise TypeError(f"{field} must be JSON (mappings, lists, strings, numbers, booleans, null): {error}") from None


class _Capture:
    """What a stream brought so far: network reads or chunks, each with its offset in milliseconds."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.recorded_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.raw: bool | None = None
        self.items: list[Any] = []
        self.offsets: list[int] = []

    def add(self, item: Any) -> None:
        raw = isinstance(item, _RAW)
        if self.raw is None:
            self.raw = raw
        elif raw != self.raw:
            kinds = ("bytes", "chunks") if self.raw else ("chunks", "bytes")
            raise TypeError(
                f"stream item {len(self.items)} is a {type(item).__name__}, but the stream began with {kinds[0]}; "
                f"a recording holds either network reads or chunks, not {kinds[1]} among them"
            )
        if raw:
            data = item.encode("utf-8") if isinstance(item, str) else bytes(item)
            if not data:
                return  # an empty read brought nothing
            self.items.append(data)
        else:
            value = _json_value(item, f"stream item {len(self.items)}")
            if not isinstance(value, dict):
                raise TypeError(f"stream item {len(self.items)} must be a chunk object; got {type(item).__name__}")
            self.items.append(value)
        self.offsets.append(round((time.perf_counter() - self.started) * 1000))


def _stream_items(stream: object) -> Iterator[Any]:
    if isinstance(stream, (bytes, bytearray, memoryview)):
        return iter((stream,))
    if isinstance(stream, (str, Mapping)):
        hint = " (encode it, or pass an iterable of reads)" if isinstance(stream, str) else ""
        raise TypeError(
            f"stream must be bytes, an iterable of reads or chunks, or a Recording; got a {type(stream).__name__}{hint}"
        )
    if not isinstance(stream, Iterable):
        raise TypeError(
            f"stream must be bytes, an iterable of reads or chunks, or a Recording; got {type(stream).__name__}"
        )
    return iter(stream)


class _Spec:
    """Everything about a recording except its stream: checked up front, turned into files by ``commit``."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        name: str,
        *,
        format: str,
        redact: Iterable[str | re.Pattern[str]],
        **options: Any,
    ) -> None:
        self.folder = Path(folder)
        self.name = check_name(name)
        self._wire = _check_format(format)
        self.format = self._wire.name
        self.patterns = compile_patterns(redact)
        for key in ("model", "notes", "source", "quirk"):
            if options[key] is not None and not isinstance(options[key], str):
                raise TypeError(f"{key} must be a string or None; got {type(options[key]).__name__}")
        request = options["request"]
        if request is not None and not isinstance(request, Mapping):
            raise TypeError(f"request must be the request body (a mapping) or None; got {type(request).__name__}")
        self.options = options

    def commit(self, capture: _Capture, *, complete: bool, status: object, headers: object) -> Recording:
        if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
            raise TypeError(f"status must be the HTTP status code (an int) or None; got {status!r:.40}")
        kept, literals = split_headers(headers)
        redactor = Redactor(self.patterns, literals)
        suffix, data, chunks = self._encode(capture, redactor)
        content_type = next((value for name, value in kept.items() if name.lower() == "content-type"), None)
        if content_type is None and capture.raw is not False:
            content_type = _CONTENT_TYPES[suffix]
        transport: dict[str, Any] = {"status": status, "content_type": content_type}
        if kept:
            transport["headers"] = kept
        manifest = redactor.mask_value(self._manifest(capture, complete, transport))
        if chunks is not None:
            manifest["transport"]["chunks"] = chunks  # offsets and sizes of reads: nothing to mask, and many
        text = json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
        return _commit_files(self.folder, self.name, suffix, data, (text + "\n").encode("utf-8"))

    def _encode(self, capture: _Capture, redactor: Redactor) -> tuple[str, bytes, list[list[int]] | None]:
        what = f"recording {self.name!r}"
        # Nothing captured is no chunks where SDKs hand over parsed events, not bytes (AWS event-stream is binary).
        if capture.raw is False or (capture.raw is None and self._wire.framing == "aws-event-stream"):
            texts = [_line(item) for item in capture.items]
            return ".jsonl", redact_chunks(texts, format=self.format, redactor=redactor, what=what), None
        cuts: list[int] = []
        for item in capture.items:
            cuts.append((cuts[-1] if cuts else 0) + len(item))
        data, cuts, framing = redact_stream(
            b"".join(capture.items), cuts, format=self.format, redactor=redactor, what=what
        )
        sizes = [end - start for start, end in zip([0, *cuts], cuts, strict=False)]
        chunks = [[offset, size] for offset, size in zip(capture.offsets, sizes, strict=True) if size]
        # A body of no framing (nothing came, an HTML error page) keeps the suffix its format's text bodies have (an
        # unframed body is no AWS event-stream, which is binary: it reads as text).
        suffix = FRAMING_SUFFIXES[framing if framing is not None else _text_framing(self._wire)]
        return suffix, data, chunks

    def _manifest(self, capture: _Capture, complete: bool, transport: dict[str, Any]) -> dict[str, Any]:
        options = self.options
        request = _json_value(options["request"], "request") if options["request"] is not None else None
        tools = options["tools"]
        if tools is None and request is not None:
            tools = request.get("tools")
        fingerprint = None
        if tools is not None:
            registry = ToolRegistry(tools)
            fingerprint = registry.fingerprint
            if request is None or "tools" not in request:
                request = {**(request or {}), "tools": self._wire.module.request_tools(registry)}
        model = options["model"] if options["model"] is not None else (request or {}).get("model")
        manifest: dict[str, Any] = {
            "format": self.format,
            "model": model,
            "tools_fingerprint": fingerprint,
            "recorded_at": capture.recorded_at,
            "complete": complete,
            "transport": transport,
        }
        if request is not None:
            manifest["request"] = request
        if options["expected"] is not None:
            manifest["expected"] = _json_value(options["expected"], "expected")
        for key in ("notes", "source", "quirk"):
            if options[key] is not None:
                manifest[key] = options[key]
        return manifest


def _text_framing(wire: Format) -> Framing:
    """The framing of the format's bodies when they are text, else server-sent events."""
    return "sse" if wire.framing == "aws-event-stream" else wire.framing


def _atomic_temp(target: Path, data: bytes) -> Path:
    """Write ``data`` to a temporary file beside ``target`` (flushed to disk) and return its path."""
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _commit_files(folder: Path, name: str, suffix: str, data: bytes, manifest: bytes) -> Recording:
    from toolwire.recordings._read import DATA_SUFFIXES, MANIFEST_SUFFIX, load_recording

    stem = folder.joinpath(*name.split("/"))
    stem.parent.mkdir(parents=True, exist_ok=True)
    data_path = stem.with_name(stem.name + suffix)
    manifest_path = stem.with_name(stem.name + MANIFEST_SUFFIX)
    temps: list[Path] = []
    try:
        temps.append(_atomic_temp(data_path, data))
        temps.append(_atomic_temp(manifest_path, manifest))
        os.replace(temps[0], data_path)
        for other in DATA_SUFFIXES:
            if other != suffix:
                stem.with_name(stem.name + other).unlink(missing_ok=True)
        os.replace(temps[1], manifest_path)  # last: the manifest is what makes the pair a recording
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)
    return load_recording(data_path)


def write(
    folder: str | os.PathLike[str],
    name: str,
    stream: Any,
    *,
    format: str,
    request: Mapping[str, Any] | None = None,
    model: str | None = None,
    tools: Any = None,
    status: int | None = None,
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
    redact: Iterable[str | re.Pattern[str]] = (),
    expected: Mapping[str, Any] | None = None,
    notes: str | None = None,
    source: str | None = None,
    quirk: str | None = None,
) -> Recording:
    """Write a stream as a recording, secrets redacted (see the module docstring).

    Args:
        folder: The folder the name is relative to (created as needed), e.g. a ``recordings/`` root.
        name: ``"<stem>"`` or ``"<subfolder>/<stem>"``, without a suffix.
        stream: Bytes, an iterable of network reads (consumed here; their timing is kept) or of chunks, or a
            ``Recording`` (copied).
        format: The wire format (``"openai-chat"``, ``"openai-responses"``, ``"anthropic-messages"``, ...).
        request: The request body as sent; kept whole, redacted.
        model: The model; by default the request's ``model``.
        tools: Anything ``toolwire.ToolRegistry`` accepts, for ``tools_fingerprint``; by default the request's
            ``tools``. Added to the manifest's ``request`` (in the format's shape) when the request has none.
        status: The HTTP status of the response.
        headers: HTTP headers to keep (secret ones are dropped); ``Content-Type`` gives ``transport.content_type``.
        redact: More regexes, matched against every decoded string; each character of a match becomes ``*``.
        expected: What reassembling the stream must give (the manifest's ``expected``).
        notes: Free text about the recording.
        source: Where it comes from (the bundled recordings say ``"real: ..."`` or ``"synthetic: ..."``).
        quirk: The quirk it shows, for a recording meant for ``recordings/``.

    Returns:
        The written recording, loaded back.

    Raises:
        TypeError: An argument or stream item of the wrong type (named).
        ValueError: A bad name, format or ``redact`` pattern, or a secret that could not be masked in place (nothing
            is written then).
        OSError: The files cannot be written.
    """
    spec = _Spec(
        folder,
        name,
        format=format,
        redact=redact,
        request=request,
        model=model,
        tools=tools,
        expected=expected,
        notes=notes,
        source=source,
        quirk=quirk,
    )
    capture = _Capture()
    for item in _stream_items(stream):
        capture.add(item)
    return spec.commit(capture, complete=True, status=status, headers=headers)


class Recorder(AsyncClosingBlock):
    """Records a live stream while its consumer reads it, and writes it on close (see the module docstring).

    ``tee`` (or ``atee`` for an async stream) hands every item on unchanged and notes it with its offset in
    milliseconds since the recorder was made; make the recorder just before sending the request to keep the time
    to the first byte. The recording is written when the tee ends — the stream ran out, the consumer stopped early
    (the generator is closed), or the stream raised — or on ``close()`` / leaving a ``with`` block, whichever comes
    first; ``complete`` in the manifest says whether the stream ran out. Use ``with`` (or ``async with``) so that an
    early stop is written at once rather than when the abandoned generator is collected.

    ``status`` and ``headers`` may be set after the response has arrived.

    Example:
        >>> with Recorder("recordings", "openai-chat/mine", format="openai-chat", request=body) as recorder:  # doctest: +SKIP
        ...     for call in toolwire.reassemble(recorder.tee(response.iter_bytes())):
        ...         ...

    Attributes:
        status: The HTTP status to record.
        headers: The HTTP headers to record (secret ones are dropped).
        recording: The written recording, once written.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        name: str,
        *,
        format: str,
        request: Mapping[str, Any] | None = None,
        model: str | None = None,
        tools: Any = None,
        status: int | None = None,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        redact: Iterable[str | re.Pattern[str]] = (),
        expected: Mapping[str, Any] | None = None,
        notes: str | None = None,
        source: str | None = None,
        quirk: str | None = None,
    ) -> None:
        """Check everything but the stream now, so a bad name fails before the request is sent (same args as write)."""
        self._spec = _Spec(
            folder,
            name,
            format=format,
            redact=redact,
            request=request,
            model=model,
            tools=tools,
            expected=expected,
            notes=notes,
            source=source,
            quirk=quirk,
        )
        self._capture = _Capture()
        self._teed = False
        self._complete = False
        self.status = status
        self.headers = headers
        self.recording: Recording | None = None
        self._failure: ValueError | OSError | None = None

    def _claim(self) -> None:
        if self._teed:
            raise ValueError("a Recorder records one stream; make another Recorder for the next one")
        self._teed = True

    def tee(self, stream: Iterable[Any]) -> Iterator[Any]:
        """Pass a stream through, recording it.

        Args:
            stream: Network reads (bytes) or chunks.

        Returns:
            A generator of the same items.

        Raises:
            ValueError: This recorder has already teed a stream.
        """
        self._claim()
        return self._tee(_stream_items(stream))

    def _tee(self, items: Iterator[Any]) -> Iterator[Any]:
        try:
            for item in items:
                self._capture.add(item)
                yield item
            self._complete = True
        finally:
            if not self._complete:
                close = getattr(items, "close", None)
                if callable(close):
                    close()
            self.close()

    def atee(self, stream: AsyncIterable[Any]) -> AsyncIterator[Any]:
        """Pass an async stream through, recording it.

        Args:
            stream: An async iterable of network reads (bytes) or chunks.

        Returns:
            An async generator of the same items.

        Raises:
            TypeError: ``stream`` is not an async iterable.
            ValueError: This recorder has already teed a stream.
        """
        if not isinstance(stream, AsyncIterable):
            raise TypeError(f"atee takes an async iterable (use tee for a sync one); got {type(stream).__name__}")
        self._claim()
        return self._atee(stream.__aiter__())

    async def _atee(self, items: AsyncIterator[Any]) -> AsyncIterator[Any]:
        try:
            async for item in items:
                self._capture.add(item)
                yield item
            self._complete = True
        finally:
            if not self._complete:
                aclose = getattr(items, "aclose", None)
                if callable(aclose):
                    await aclose()
            self.close()

    def close(self) -> Recording:
        """Write what was recorded so far (once; later calls return the same recording, or raise the same error).

        Returns:
            The written recording.

        Raises:
            ValueError: A secret could not be masked in place: nothing was written.
            OSError: The files could not be written.
        """
        if self._failure is not None:
            raise self._failure
        if self.recording is None:
            try:
                self.recording = self._spec.commit(
                    self._capture, complete=self._complete, status=self.status, headers=self.headers
                )
            except (ValueError, OSError) as error:
                self._failure = error
                raise
        return self.recording
