"""The tool calls of recorded streams: each recording reassembled, every handed-over call kept, valid or not.

A recording is reassembled with the tools and ``tool_choice`` its manifest recorded (``on_invalid="yield"``), so a
call's ``schema_fingerprint`` is the fingerprint of the tool the recorded request declared: the schema the call was
produced under. Its arguments are the text as received (``arguments_json``), so replay judges them afresh.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolwire._pipeline._bound import core
from toolwire.errors import ToolwireError
from toolwire.recordings import Recording, load_recording
from toolwire.schema.calls._model import ObservedCall, UnreadableRecord, timestamp

__all__ = ["calls_in_recording", "read_recording"]


def calls_in_recording(recording: Recording) -> Iterator[ObservedCall | UnreadableRecord]:
    """Every call a recording hands over, as observed calls.

    Args:
        recording: A loaded recording.

    Returns:
        One ``ObservedCall`` per handed-over call (origin ``<data file> call <n>``, n from 1; ``fields``: recording,
        format, seq, choice, ok as reassembled); an ``UnreadableRecord`` for a call that carried no tool name, and for
        a recording that cannot be read or reassembled (after the calls it handed over before failing).
    """
    origin = str(recording.path)
    try:
        moment = timestamp(recording.manifest.get("recorded_at"), "recorded_at")
    except ValueError as error:
        yield UnreadableRecord(str(recording.manifest_path), f"{error} (recording manifest)")
        moment = None
    count = 0
    try:
        stream = core.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield")
        for call in stream:
            count += 1
            where = f"{origin} call {count}"
            if not call.name:
                yield UnreadableRecord(where, "the stream handed over a call without a tool name (nothing to validate)")
                continue
            fields: dict[str, Any] = {
                "recording": recording.name,
                "format": recording.format,
                "seq": call.seq,
                "choice": call.choice,
                "ok": call.ok,
            }
            # A custom tool call's input is free text, kept as it is (as CallLog logs it).
            text = call.input if call.arguments_json is None else call.arguments_json
            yield ObservedCall(call.name, text or "", call.id, moment, call.tool_fingerprint, where, fields)
    except (ToolwireError, ValueError, TypeError, OSError) as error:
        yield UnreadableRecord(
            f"{origin} (after {count} calls)",
            f"the recording cannot be reassembled: {error}; check its manifest and data file "
            "(toolwire reassemble FILE shows the same)",
        )


def read_recording(path: Path) -> Iterator[ObservedCall | UnreadableRecord]:
    """The calls of the recording a data file or manifest belongs to; a broken manifest is an unreadable record."""
    try:
        recording = load_recording(path)
    except (ValueError, OSError) as error:
        yield UnreadableRecord(str(path), f"not a readable recording: {error}")
        return
    yield from calls_in_recording(recording)
