"""``toolwire demo [FOLDER]``: reassemble every recording of a folder and print each call with its findings.

Without a folder it reads the demonstration set shipped in the package (``toolwire/_demo``: one or two recordings
of each wire format, the same files as in the repository's ``recordings/``), so that it works from an installed
wheel.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from toolwire._pipeline._bound import core
from toolwire.cli._common import error_line, use_color
from toolwire.cli._reassemble import findings_of
from toolwire.recordings import TEXT_FORMAT, iter_recordings

__all__ = ["DEMO_RECORDINGS", "add_arguments", "run"]

#: The recordings ``toolwire demo`` shows when given no folder.
DEMO_RECORDINGS = Path(__file__).resolve().parent.parent / "_demo"

_COLUMNS = ("seq", "id", "name", "arguments", "findings")
_WIDTHS = (3, 30, 22, 44, 0)
_RED, _YELLOW, _RESET = "\x1b[31m", "\x1b[33m", "\x1b[0m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``demo`` options."""
    parser.add_argument(
        "folder",
        nargs="?",
        type=Path,
        help="a recordings folder (default: the demonstration set shipped with toolwire)",
    )


def _clip(text: str, width: int) -> str:
    if width and len(text) > width:
        return text[: width - 1] + "…"
    return text


def _row(cells: Sequence[str]) -> str:
    return "  ".join(
        _clip(cell, width).ljust(width) if width else cell for cell, width in zip(cells, _WIDTHS, strict=False)
    )


def _demo(folder: Path, out: TextIO, color: bool) -> int:
    def paint(text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if color and text else text

    recordings = list(iter_recordings(folder))
    if not recordings:
        error_line(None, f"no recordings found in {folder}")
        return 1
    totals = {"calls": 0, "invalid": 0, "findings": 0}
    for recording in recordings:
        pieces = f"{len(recording.chunks())} {'text deltas' if recording.format == TEXT_FORMAT else 'chunks'}"
        described = f"{recording.format}, dialect {recording.dialect}" if recording.dialect else recording.format
        stream = core.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield")
        calls = list(stream)
        result = stream.result
        finish = result.finish_reason or "no finish reason"
        print(f"\n{recording.name}  ({described}, {pieces}, {finish})", file=out)
        print("  " + _row(_COLUMNS), file=out)
        for call in calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False) if call.arguments is not None else "—"
            if call.ok:
                findings = paint(" ".join(findings_of(call.violations)), _YELLOW)
            else:
                findings = paint("INVALID " + " ".join(findings_of([*call.errors, *call.violations])), _RED)
            print("  " + _row((str(call.seq), call.id, call.name or "—", arguments, findings)), file=out)
            totals["calls"] += 1
            totals["invalid"] += not call.ok
        if not calls:
            print("  (no tool call)", file=out)
        if result.violations:
            print(f"  stream: {paint(' '.join(findings_of(result.violations)), _YELLOW)}", file=out)
        totals["findings"] += len(result.violations) + sum(len(c.violations) for c in result.calls)
    print(
        f"\n{len(recordings)} recordings, {totals['calls']} calls handed over "
        f"({totals['invalid']} invalid), {totals['findings']} findings on valid calls and streams",
        file=out,
    )
    return 0


def run(options: argparse.Namespace) -> int:
    """Print the calls of every recording; 0, or 1 when the folder holds none.

    Raises:
        ValueError: A manifest is broken.
        OSError: A recording cannot be read.
    """
    folder = options.folder if options.folder is not None else DEMO_RECORDINGS
    return _demo(folder, sys.stdout, use_color(options, sys.stdout))
