"""The ``toolwire`` command.

``toolwire demo [FOLDER]`` reassembles every recording of a folder (the bundled ``recordings/`` by default) and
prints each call with its violations in a table; ``toolwire reassemble FILE`` prints the calls of one recorded
stream (``.sse`` or ``.jsonl``) as JSON lines; ``toolwire serve`` runs the local endpoint (``toolwire.server``)
and ``toolwire probe`` the live contract suite against an endpoint (``toolwire.contract.probe``); ``check``,
``lint``, ``drift`` and ``examples`` are the schema toolkit (``toolwire.schema``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import toolwire
from toolwire._api import Emit
from toolwire.recordings import Recording, iter_recordings, load_recording

__all__ = ["build_parser", "main"]

_COLUMNS = ("seq", "id", "name", "arguments", "findings")
_WIDTHS = (3, 30, 22, 44, 0)


def _clip(text: str, width: int) -> str:
    if width and len(text) > width:
        return text[: width - 1] + "…"
    return text


def _finding(violation: toolwire.Violation) -> str:
    return f"{violation.code.value} {violation.path}" if violation.path else violation.code.value


def _codes(violations: Sequence[toolwire.Violation]) -> str:
    return " ".join(map(_finding, violations))


def _row(cells: Sequence[str]) -> str:
    return "  ".join(
        _clip(cell, width).ljust(width) if width else cell for cell, width in zip(cells, _WIDTHS, strict=False)
    )


def _reassemble(recording: Recording) -> tuple[list[toolwire.ToolCall | toolwire.InvalidToolCall], Any]:
    stream = toolwire.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield")
    calls = list(stream)
    return calls, stream.result


def _demo(folder: Path | None, out: TextIO) -> int:
    recordings = list(iter_recordings(folder))
    if not recordings:
        print(f"no recordings found in {folder}", file=sys.stderr)
        return 1
    totals = {"calls": 0, "invalid": 0, "findings": 0}
    for recording in recordings:
        calls, result = _reassemble(recording)
        finish = result.finish_reason or "no finish reason"
        print(f"\n{recording.name}  ({recording.format}, {len(recording.chunks())} chunks, {finish})", file=out)
        print("  " + _row(_COLUMNS), file=out)
        for call in calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False) if call.arguments is not None else "—"
            findings = _codes(call.violations) if call.ok else "INVALID " + _codes([*call.errors, *call.violations])
            print("  " + _row((str(call.seq), call.id, call.name or "—", arguments, findings)), file=out)
            totals["calls"] += 1
            totals["invalid"] += not call.ok
        if not calls:
            print("  (no tool call)", file=out)
        if result.violations:
            print(f"  stream: {_codes(result.violations)}", file=out)
        totals["findings"] += len(result.violations) + sum(len(c.violations) for c in result.calls)
    print(
        f"\n{len(recordings)} recordings, {totals['calls']} calls handed over "
        f"({totals['invalid']} invalid), {totals['findings']} findings on valid calls and streams",
        file=out,
    )
    return 0


def _reassemble_file(path: Path, emit: Emit, out: TextIO) -> int:
    recording = load_recording(path)
    stream = toolwire.reassemble(recording.source(), **recording.reassemble_options(), emit=emit, on_invalid="yield")
    for call in stream:
        line: dict[str, Any] = {"seq": call.seq, "id": call.id, "name": call.name, "arguments": call.arguments}
        line["ok"] = call.ok
        line["violations"] = [_finding(v) for v in (call.violations if call.ok else (*call.errors, *call.violations))]
        print(json.dumps(line, ensure_ascii=False), file=out)
    result = stream.result
    summary = {"finish_reason": result.finish_reason, "violations": [v.code.value for v in result.violations]}
    print(json.dumps({"result": summary}, ensure_ascii=False), file=out)
    return 0 if result.ok else 1


# Subcommands that live beside what they run, each module with ``add_parser(commands)`` and ``run(options) -> int``:
# (command, module, the extra that brings the dependencies the module imports).
_EXTENSIONS = (
    ("serve", "toolwire.server._cli", "server"),
    ("probe", "toolwire.contract._probe_cli", "probe"),
    ("check", "toolwire.schema._check_cli", "schema"),
    ("lint", "toolwire.schema._lint_cli", "schema"),
    ("drift", "toolwire.schema._drift_cli", "schema"),
    ("examples", "toolwire.schema._examples_cli", "schema"),
    ("diff", "toolwire.schema._diff_cli", "schema"),
    ("replay", "toolwire.schema._replay_cli", "replay"),
    ("sample", "toolwire.schema._sample_cli", "replay"),
    ("matrix", "toolwire.cases._matrix_cli", "cases"),
)


def _unavailable(error: ModuleNotFoundError) -> Callable[[argparse.Namespace], int]:
    def run(options: argparse.Namespace) -> int:
        raise error

    return run


def _add_extensions(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for command, module_name, extra in _EXTENSIONS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            # The command is still listed, and says what to install, instead of breaking the whole CLI.
            parser = commands.add_parser(command, help=f"(needs {error.name}: pip install 'toolwire[{extra}]')")
            parser.add_argument("arguments", nargs=argparse.REMAINDER)
            parser.set_defaults(run=_unavailable(error), extra=extra)
            continue
        module.add_parser(commands)
        commands.choices[command].set_defaults(run=module.run, extra=extra)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (for ``main`` and for tests that check documented command lines)."""
    parser = argparse.ArgumentParser(
        prog="toolwire",
        description="Streamed LLM tool calls reassembled and validated; contract tests for tool schemas and providers.",
        epilog="Exit status: 0 clean, 1 findings or failed checks, 2 usage or I/O errors.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="reassemble every recording of a folder and print the calls")
    demo.add_argument("folder", nargs="?", type=Path, help="a recordings folder (default: the bundled one)")
    one = commands.add_parser("reassemble", help="print the calls of one recorded stream as JSON lines")
    one.add_argument("file", type=Path, help="a .sse or .jsonl recording (with its .json manifest beside it)")
    one.add_argument("--emit", choices=("complete", "call_end", "stream_end"), default="call_end")
    _add_extensions(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 findings or failed checks, 2 usage or I/O errors)."""
    options = build_parser().parse_args(argv)
    try:
        if options.command == "demo":
            return _demo(options.folder, sys.stdout)
        if options.command == "reassemble":
            return _reassemble_file(options.file, options.emit, sys.stdout)
        return int(options.run(options))
    except ModuleNotFoundError as error:
        print(
            f"toolwire {options.command}: needs {error.name}: pip install 'toolwire[{options.extra}]'",
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError) as error:
        print(f"toolwire: {error}", file=sys.stderr)
        return 2
