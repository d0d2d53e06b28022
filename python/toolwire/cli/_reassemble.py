"""``toolwire reassemble FILE``: the calls of one recorded stream as JSON lines, then the stream's result."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolwire._model import Violation
from toolwire._pipeline._bound import core
from toolwire.recordings import load_recording

__all__ = ["add_arguments", "findings_of", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``reassemble`` options."""
    parser.add_argument("file", type=Path, help="a .sse or .jsonl recording (with its .json manifest beside it)")
    parser.add_argument(
        "--emit",
        choices=("complete", "call_end", "stream_end"),
        default="call_end",
        help="when a call is handed over (default: call_end)",
    )


def findings_of(violations: Iterable[Violation]) -> list[str]:
    """Each violation as its code, followed by its JSON path when it has one."""
    return [f"{v.code.value} {v.path}" if v.path else v.code.value for v in violations]


def run(options: argparse.Namespace) -> int:
    """Print the calls and the result; 0 when the stream is ok, else 1.

    Raises:
        ValueError: The recording's manifest is broken.
        OSError: The recording cannot be read.
    """
    recording = load_recording(options.file)
    stream = core.reassemble(
        recording.source(), **recording.reassemble_options(), emit=options.emit, on_invalid="yield"
    )
    out = sys.stdout
    for call in stream:
        line: dict[str, Any] = {"seq": call.seq, "id": call.id, "name": call.name, "arguments": call.arguments}
        line["ok"] = call.ok
        line["violations"] = findings_of(call.violations if call.ok else (*call.errors, *call.violations))
        print(json.dumps(line, ensure_ascii=False), file=out)
    result = stream.result
    summary = {
        "finish_reason": result.finish_reason,
        "violations": [v.code.value for v in result.violations],
        "ok": result.ok,
    }
    print(json.dumps({"result": summary}, ensure_ascii=False), file=out)
    return 0 if result.ok else 1
