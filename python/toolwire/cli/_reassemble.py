"""``toolwire reassemble FILE|-``: the calls of one stream as JSON lines, then the stream's result.

The stream is a recording (a data file with its ``.json`` manifest beside it, whose request gives the tools, the tool
choice and the dialect) or a raw capture (``curl ... > capture.sse``, or ``-`` for standard input): the body's bytes
as received, its wire format detected unless ``--wire-format`` names it. A capture from standard input is read as it
arrives, so that ``curl -N ... | toolwire reassemble -`` prints each call the moment it is whole.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import toolwire
from toolwire._model import Violation
from toolwire._pipeline._bound import core
from toolwire.errors import MalformedChunkError
from toolwire.formats import WIRE_FORMATS
from toolwire.recordings import DATA_SUFFIXES, MANIFEST_SUFFIX, load_recording

__all__ = ["add_arguments", "findings_of", "run"]

#: How much of a capture file one read takes: large reads, since a file is all there already.
_FILE_READ = 64 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``reassemble`` options."""
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a recording (.sse, .jsonl, .json-array or .eventstream with its .json manifest beside it), a raw "
        "capture of a response body (any file without a manifest), or '-' to read a capture from standard input",
    )
    parser.add_argument(
        "--wire-format",
        choices=WIRE_FORMATS,
        help="the capture's wire format (default: the recording's, or detected from the body)",
    )
    parser.add_argument(
        "--tools",
        action="append",
        metavar="T",
        help="check the calls against these tools: a file (.json, .yaml, .jsonl), a directory or "
        "package.module:attr (repeatable; default: the recording's request's, else none)",
    )
    parser.add_argument(
        "--dialect",
        choices=toolwire.DIALECTS,
        metavar="NAME",
        help="read the calls a model wrote into its text in this dialect (default: the recording's, else none); "
        f"one of {', '.join(toolwire.DIALECTS)}",
    )
    parser.add_argument(
        "--emit",
        choices=("complete", "call_end", "stream_end"),
        default="call_end",
        help="when a call is handed over: complete (the moment its arguments are whole JSON), call_end (when the "
        "stream says the call ended; default) or stream_end (all at the end)",
    )


def findings_of(violations: Iterable[Violation]) -> list[str]:
    """Each violation as its code, followed by its JSON path when it has one."""
    return [f"{v.code.value} {v.path}" if v.path else v.code.value for v in violations]


def run(options: argparse.Namespace) -> int:
    """Print the calls and the result; 0 when the stream is ok, else 1.

    Raises:
        ValueError: The recording's manifest is broken, a tool given does not load, or the stream is not one a wire
            format reads (named with the file).
        OSError: The file or a tool file cannot be read.
    """
    source, recorded = _source(options.file)
    given = {
        "tools": _registry(options.tools) if options.tools else None,
        "format": options.wire_format,
        "dialect": options.dialect,
    }
    chosen = {**recorded, **{key: value for key, value in given.items() if value is not None}}
    stream = core.reassemble(source, **chosen, emit=options.emit, on_invalid="yield")
    out = sys.stdout
    try:
        for call in stream:
            line: dict[str, Any] = {"seq": call.seq, "id": call.id, "name": call.name, "arguments": call.arguments}
            line["ok"] = call.ok
            line["violations"] = findings_of(call.violations if call.ok else (*call.errors, *call.violations))
            print(json.dumps(line, ensure_ascii=False), file=out, flush=True)
    except MalformedChunkError as error:
        origin = "standard input" if options.file == "-" else options.file
        raise ValueError(f"{origin}: {error}") from None
    result = stream.result
    summary = {
        "format": result.format,
        "finish_reason": result.finish_reason,
        "violations": [v.code.value for v in result.violations],
        "ok": result.ok,
    }
    print(json.dumps({"result": summary}, ensure_ascii=False), file=out)
    return 0 if result.ok else 1


def _source(name: str) -> tuple[Iterable[Any], dict[str, Any]]:
    """The stream ``name`` gives, and what its recording's request says to read it with (nothing for a capture).

    Raises:
        FileNotFoundError: No such file.
        ValueError: A recording's manifest is broken.
    """
    if name == "-":
        return _arriving(sys.stdin.buffer), {}
    path = Path(name)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if _is_recording(path):
        recording = load_recording(path)
        return recording.source(), recording.reassemble_options()
    return _file_pieces(path), {}


def _is_recording(path: Path) -> bool:
    """A data file with its manifest beside it, or a manifest with its data file beside it."""
    if path.suffix in DATA_SUFFIXES:
        return path.with_suffix(MANIFEST_SUFFIX).is_file()
    return path.suffix == MANIFEST_SUFFIX and any(path.with_suffix(suffix).is_file() for suffix in DATA_SUFFIXES)


def _file_pieces(path: Path) -> Iterator[bytes]:
    """A capture file's bytes, in large reads."""
    with path.open("rb") as file:
        while piece := file.read(_FILE_READ):
            yield piece


def _arriving(stream: BinaryIO) -> Iterator[bytes]:
    """Standard input's bytes as they arrive: each read returns what is there (``read1``), never waiting to fill."""
    read = getattr(stream, "read1", stream.read)
    while piece := read(_FILE_READ):
        yield piece


def _registry(specs: list[str]) -> toolwire.ToolRegistry:
    from toolwire.schema.replay import registry_of  # the schema kit, imported only when tools are given

    return registry_of(specs)
