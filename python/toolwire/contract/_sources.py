"""What the checks read: any stream source as a list of decoded events, a buffered response as JSON data.

Raw bytes (one object, network chunks split anywhere, a binary file) are joined and framed here, tolerantly: an
event whose data is not JSON, or bytes that are not UTF-8, are findings of the ``well_formed`` check, never
exceptions. Server-sent events and JSON lines are both read; SDK objects are read as the JSON they serialize to.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.contract._common import Findings, show
from toolwire.formats import event_json
from toolwire.recordings import Recording

__all__ = ["Malformed", "detect_stream", "read_response", "read_stream"]

_RAW = (bytes, bytearray, memoryview)
_LINE_END = re.compile(r"\r\n|\r|\n")
_ANTHROPIC_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)


@dataclass(frozen=True)
class Malformed:
    """An event that could not be read as JSON; it keeps its place in the numbering.

    Attributes:
        problem: What is wrong with it, for the evidence.
    """

    problem: str

    def __repr__(self) -> str:
        """The problem itself, so evidence that shows the event says what it was."""
        return f"<unreadable: {self.problem}>"


def _text(data: bytes, findings: Findings) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        findings.add(
            "well_formed",
            f"the stream is not UTF-8 (byte {error.start}: {error.reason}); fix: send UTF-8 (undecodable bytes were "
            "read as U+FFFD)",
        )
        return data.decode("utf-8-sig", errors="replace")


def _sse_payloads(text: str) -> list[str]:
    """The data of each server-sent event (``data`` lines joined), comments and other fields left out."""
    payloads: list[str] = []
    data: list[str] = []
    for raw_line in _LINE_END.split(text):
        line = raw_line.lstrip(" \t")  # a stray space before a field name is tolerated, as reassemble does
        if not line:
            if data:
                payloads.append("\n".join(data))
                data = []
            continue
        name, colon, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if colon and value.startswith(" ") else value)
    if data:
        payloads.append("\n".join(data))
    return payloads


def _parse(payload: str, origin: str) -> object:
    try:
        return json.loads(payload)
    except json.JSONDecodeError as error:
        return Malformed(f"{origin} is not JSON ({error.msg} at {error.pos}): {show(payload)}")
    except RecursionError:
        return Malformed(f"{origin} nests too deeply to read: {show(payload)}")


def decode_raw(data: bytes, findings: Findings, *, lines: bool | None = None) -> list[object]:
    """The events of raw stream bytes: server-sent events, or JSON lines.

    Args:
        data: The whole stream.
        findings: Where undecodable text is reported.
        lines: JSON lines (True), server-sent events (False), or told from the first line (None: a line opening
            with ``{`` is JSON lines).

    Returns:
        One item per event, ``[DONE]`` and keep-alives left out; a ``Malformed`` for data that is not JSON.
    """
    text = _text(data, findings)
    if lines is None:
        lines = text.lstrip().startswith("{")
    if lines:
        pieces = [line for line in _LINE_END.split(text) if line.strip()]
        return [_parse(line, f"line {number + 1}") for number, line in enumerate(pieces)]
    payloads = [payload for payload in _sse_payloads(text) if payload.strip() and payload.strip() != "[DONE]"]
    return [_parse(payload, f"event {number}'s data") for number, payload in enumerate(payloads)]


def _object(item: object, number: int) -> object:
    """One chunk given as a Python object: a mapping as it is, an SDK object as its JSON, anything else as it is."""
    if isinstance(item, Mapping) or item is None or isinstance(item, (int, float, str, list)):
        return item
    if isinstance(item, _RAW):
        return Malformed(f"chunk {number} is bytes among chunk objects")
    if callable(getattr(item, "model_dump", None)):
        try:
            return json.loads(event_json(item))
        except (TypeError, ValueError, RecursionError) as error:
            return Malformed(f"chunk {number} ({type(item).__name__}) cannot be read as JSON: {error}")
    return item


def _raw_items(items: Iterable[object], findings: Findings) -> bytes:
    data = bytearray()
    for number, item in enumerate(items):
        if isinstance(item, _RAW):
            data += item
        elif isinstance(item, str):
            data += item.encode("utf-8", errors="replace")
        else:
            findings.add("well_formed", f"item {number} of the raw stream is {show(item)}, not bytes; it was skipped")
    return bytes(data)


def read_stream(source: object) -> tuple[list[object], Findings]:
    """Every event of a stream source, decoded, and the findings made on the way.

    Args:
        source: Raw bytes, an iterable of bytes or of chunk objects (dicts, SDK objects), a binary file, or a
            ``Recording``.

    Returns:
        The events in order, and findings for ``well_formed``.

    Raises:
        TypeError: ``source`` is not a stream source (a single str or dict, or not iterable).
    """
    findings = Findings()
    if isinstance(source, Recording):
        if source.path.suffix in (".json-array", ".eventstream"):
            return list(source.chunks()), findings  # framings read by their own decoders: whole JSON events
        return decode_raw(source.read_bytes(), findings, lines=source.path.suffix == ".jsonl"), findings
    if isinstance(source, _RAW):
        return decode_raw(bytes(source), findings), findings
    if isinstance(source, io.IOBase) and not isinstance(source, io.TextIOBase):
        return decode_raw(source.read(), findings), findings
    if isinstance(source, (str, Mapping)):
        hint = (
            "encode it: raw stream text is read as bytes"
            if isinstance(source, str)
            else ("a single chunk; pass the list of chunks, or use check_completion for a buffered response")
        )
        raise TypeError(
            "source must be raw stream bytes, an iterable of bytes or of chunks (dicts, SDK objects), a binary file "
            f"or a Recording; got a {type(source).__name__} ({hint})"
        )
    if not isinstance(source, Iterable):
        raise TypeError(
            "source must be raw stream bytes, an iterable of bytes or of chunks (dicts, SDK objects), a binary file "
            f"or a Recording; got {type(source).__name__}"
        )
    items = list(source)
    if items and isinstance(items[0], (*_RAW, str)):
        return decode_raw(_raw_items(items, findings), findings), findings
    return [_object(item, number) for number, item in enumerate(items)], findings


def detect_stream(events: Iterable[object]) -> str | None:
    """The wire format named by the first event that identifies one, or None."""
    for event in events:
        if not isinstance(event, Mapping):
            continue
        kind = event.get("type")
        if event.get("object") == "chat.completion.chunk" or "choices" in event:
            return "openai-chat"
        if not isinstance(kind, str):
            continue
        if kind in _ANTHROPIC_TYPES:
            return "anthropic-messages"
        if kind.startswith("response."):
            return "openai-responses"
    return None


def read_response(response: object) -> dict[str, Any]:
    """A buffered response as JSON data: a mapping as it is, an SDK object through ``model_dump(mode="json")``.

    Raises:
        TypeError: Anything else (the type named).
    """
    if isinstance(response, Mapping):
        return dict(response)
    if callable(getattr(response, "model_dump", None)):
        data = json.loads(event_json(response))
        if isinstance(data, dict):
            return data
    raise TypeError(
        "response must be a buffered response: a dict, or an SDK object (openai ChatCompletion or Response, "
        f"anthropic Message); got {type(response).__name__}"
    )
