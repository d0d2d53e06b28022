"""Recordings served as they were received.

A recording becomes a ``Replay``: a raw body (``.sse``, ``.json-array``, ``.eventstream``) exactly as stored, split at
the network reads its manifest recorded (``transport.chunks``) when it has them, with its recorded content type (else
its framing's); a ``.jsonl`` recording (parsed chunks only, or Ollama's JSON lines) is framed as its format's body —
``data:`` lines for OpenAI Chat (then ``data: [DONE]``), ``event:`` and ``data:`` lines for the typed-event formats,
``data:`` lines or one JSON array for Gemini (as the request's ``alt`` asks), one AWS event-stream message per event
for Bedrock. Ollama is not served: its ``/api/chat`` route is not one of the endpoint's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolwire.formats import REQUEST_FORMATS, format_of
from toolwire.recordings import Recording, iter_recordings, load_recording
from toolwire.server._script import RECORDING_PREFIX, Script

__all__ = ["REPLAYED_FORMATS", "SERVED_FORMATS", "Replay", "load_replays", "resolve_references"]

#: The wire formats the endpoint speaks, scripted models and recordings alike, and the path of each one's endpoint.
SERVED_FORMATS: Final[Mapping[str, str]] = {name: format_of(name).endpoint for name in REQUEST_FORMATS}
#: The wire formats whose routes replay recordings only, and the path of each (the model is part of the path).
REPLAYED_FORMATS: Final[Mapping[str, str]] = {name: format_of(name).endpoint for name in ("gemini", "bedrock-converse")}
_CONTENT_TYPES: Final = {
    ".sse": "text/event-stream",
    ".json-array": "application/json",
    ".eventstream": "application/vnd.amazon.eventstream",
}
_AWS: Final = "application/vnd.amazon.eventstream"


@dataclass(frozen=True)
class Replay:
    """A recording ready to be sent.

    Attributes:
        name: ``"<format>/<name>"``.
        format: Its wire format.
        chunks: The body, in the writes it is sent in.
        status: The HTTP status (the recorded one, else 200).
        content_type: The content type (the recorded one, else its framing's).
        array: For a Gemini recording of chunks, the body as the JSON array Gemini sends without ``alt=sse``.
    """

    name: str
    format: str
    chunks: tuple[bytes, ...]
    status: int = 200
    content_type: str = "text/event-stream"
    array: tuple[bytes, ...] | None = None


def _transport(recording: Recording) -> Mapping[str, Any]:
    transport = recording.manifest.get("transport")
    if transport is None:
        return {}
    if not isinstance(transport, Mapping):
        raise ValueError(f"{recording.manifest_path}: 'transport' must be a JSON object")
    return transport


def _split(data: bytes, recording: Recording, transport: Mapping[str, Any]) -> tuple[bytes, ...]:
    """The bytes cut at the recorded network reads, or whole when none were recorded."""
    reads = transport.get("chunks")
    if reads is None:
        return (data,)
    entries = reads if isinstance(reads, list) else [None]
    sizes = [entry[1] if isinstance(entry, list) and len(entry) == 2 else None for entry in entries]
    whole = [size for size in sizes if isinstance(size, int) and size >= 0]
    if len(whole) != len(sizes) or sum(whole) != len(data):
        raise ValueError(
            f"{recording.manifest_path}: transport.chunks must be [offset_ms, size] pairs whose sizes add up to the "
            f"{len(data)} bytes of {recording.path.name}"
        )
    parts, start = [], 0
    for size in whole:
        parts.append(data[start : start + size])
        start += size
    return tuple(parts)


def replay_of(recording: Recording) -> Replay:
    """The replay of one recording of a served format.

    Raises:
        ValueError: The manifest's ``transport`` is malformed, or a ``.jsonl`` file is not JSON lines.
    """
    transport = _transport(recording)
    suffix = recording.path.suffix
    # A recording written without them says null: the defaults then.
    status = transport.get("status")
    status = 200 if status is None else status
    content_type = transport.get("content_type") or _CONTENT_TYPES.get(suffix, "text/event-stream")
    array = None
    if suffix in _CONTENT_TYPES:
        chunks = _split(recording.read_bytes(), recording, transport)
    else:
        events = recording.chunks()
        wire = format_of(recording.format)
        try:
            chunks = tuple(wire.module.stream_body(events))
        except ValueError as error:
            raise ValueError(f"{recording.path}: {error}") from None
        content_type = _AWS if wire.framing == "aws-event-stream" else "text/event-stream"
        if recording.format == "gemini":
            elements = [json.dumps(event).encode() for event in events]
            array = (b"[", *(b",\r\n" * bool(number) + element for number, element in enumerate(elements)), b"]")
    if not isinstance(status, int) or not isinstance(content_type, str):
        raise ValueError(f"{recording.manifest_path}: transport.status must be an integer, content_type a string")
    return Replay(recording.name, recording.format, chunks, status, content_type, array)


def load_replays(folder: str | Path) -> dict[str, Replay]:
    """Every recording of a served or replayed format under ``folder``, by model name (``recording:<format>/<name>``).

    Raises:
        FileNotFoundError: The folder does not exist.
        ValueError: A manifest is malformed.
    """
    return {
        f"{RECORDING_PREFIX}{recording.name}": replay_of(recording)
        for recording in iter_recordings(folder)
        if recording.format in SERVED_FORMATS or recording.format in REPLAYED_FORMATS
    }


def resolve_references(script: Script, replays: Mapping[str, Replay], folder: str | Path | None) -> dict[str, Replay]:
    """The replays that the script's ``{recording: ...}`` replies name, found among ``replays`` or on disk.

    A name is looked up among the served recordings first, then as ``<folder>/<format>/<name>`` (the default
    ``recordings/`` of the source tree when no folder is given).

    Returns:
        The replays by recording name (``"<format>/<name>"``).

    Raises:
        ValueError: A reply names a recording that does not exist or is of a format the endpoint does not serve;
            the message names the script and the field.
    """
    from toolwire import recordings

    root = Path(folder) if folder is not None else recordings.DEFAULT_ROOT
    found: dict[str, Replay] = {}
    for model in script.models.values():
        replies = [rule.reply for rule in model.rules] + ([model.otherwise] if model.otherwise else [])
        for reply in replies:
            name = reply.recording
            if name is None or name in found:
                continue
            replay = replays.get(RECORDING_PREFIX + name)
            if replay is None:
                replay = _from_disk(root, name, f"{script.source}: {reply.where}.recording")
            found[name] = replay
    return found


def _from_disk(root: Path, name: str, where: str) -> Replay:
    manifest = root / f"{name}.json"
    try:
        recording = load_recording(manifest)
    except FileNotFoundError:
        raise ValueError(f"{where}: no recording {name!r} in {root} (looked for {manifest.name})") from None
    if recording.format not in SERVED_FORMATS:
        raise ValueError(
            f"{where}: {name!r} is a {recording.format} recording; served formats: {', '.join(SERVED_FORMATS)}"
        )
    return replay_of(recording)
