"""``toolwire replay SOURCE... --tools T``: validate calls already made against the current tools."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from toolwire.schema._cli_common import config_of, tool_specs
from toolwire.schema._replay import DEFAULT_BATCH_SIZE, replay_calls
from toolwire.schema._replay_output import REPLAY_FORMATS, render_replay

__all__ = ["add_parser", "run"]

_FAIL_ON = ("invalid", "never")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more; got {value}")
    return value


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` subcommand (and the ``--history`` options, when the history module is there)."""
    parser = commands.add_parser(
        "replay",
        help="validate calls already made (JSONL, conversation logs, recordings, SQL) against the current tools",
        description=(
            "Validate tool calls already made against the tools as they are now: JSONL of observed calls (id, name, "
            "arguments, ts, schema_fingerprint), conversation logs (OpenAI Chat, Responses or Anthropic message "
            "lists), directories of recordings, '-' for JSONL on stdin, and databases (sqlite:///calls.db, or any "
            "SQLAlchemy URL with --query). Validation runs in the Rust core in batches. Exits 1 when a call fails or "
            "a record is not a call (unless --fail-on never), 2 on a usage or I/O error."
        ),
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a .jsonl/.json log, a recording or a directory, '-' (stdin), or a database URL",
    )
    parser.add_argument(
        "--tools",
        action="append",
        metavar="T",
        help="the current tools: a file (.json, .yaml, .jsonl), a directory or package.module:attr (repeatable; "
        "default: tools in [tool.toolwire])",
    )
    parser.add_argument(
        "--query",
        metavar="SQL",
        help="for database sources: SQL selecting columns named id, name, arguments (optionally ts, "
        'schema_fingerprint), e.g. "SELECT call_id AS id, tool AS name, args AS arguments FROM tool_calls"',
    )
    parser.add_argument("--format", choices=REPLAY_FORMATS, default="text", help="output format (default: text)")
    parser.add_argument(
        "--limit", type=_positive, default=20, metavar="N", help="failures and unreadable records listed (default: 20)"
    )
    parser.add_argument(
        "--fail-on",
        choices=_FAIL_ON,
        default="invalid",
        help="exit 1 when a call is invalid or a record unreadable (invalid, the default), or never",
    )
    parser.add_argument(
        "--batch-size",
        type=_positive,
        default=DEFAULT_BATCH_SIZE,
        metavar="N",
        help=f"calls validated per batch, rows fetched per round trip (default: {DEFAULT_BATCH_SIZE})",
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.toolwire] from (default: nearest)")
    parser.add_argument(
        "--color",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw the text tables with colours (default: when writing to a terminal)",
    )
    try:
        from toolwire.schema import _history_cli
    except ModuleNotFoundError:
        return  # the history options are an add-on: replay works without them
    _history_cli.add_options(parser)


class _Progress:
    """Calls read and calls per second on stderr, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.perf_counter()
        self.drawn = 0.0

    def __call__(self, calls: int) -> None:
        now = time.perf_counter()
        if now - self.drawn < 0.1:
            return
        self.drawn = now
        rate = calls / (now - self.started) if now > self.started else 0.0
        self.stream.write(f"\rtoolwire replay: {calls:,} calls read, {rate:,.0f} calls/s ")
        self.stream.flush()

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * 72 + "\r")
            self.stream.flush()


def run(options: argparse.Namespace, out: TextIO | None = None) -> int:
    """Replay the calls; 0 when every call validates and every record is a call, else 1 (unless ``--fail-on never``).

    Raises:
        ValueError: No tools given or configured, a tool that does not load, a database source without ``--query``
            or a query without the needed columns.
        OSError: A source or tool file cannot be read, a database cannot be reached.
    """
    out = out or sys.stdout
    if options.batch_size < 1:
        raise ValueError("--batch-size must be at least 1")
    if getattr(options, "history", None):
        from toolwire.schema._calls import read_calls
        from toolwire.schema._history_cli import run as run_history

        calls = read_calls(options.sources, query=options.query, batch_size=options.batch_size)
        return run_history(options, calls, out)
    config = config_of(options)
    tools = tool_specs(options.tools, config)
    progress: Callable[[int], None] | None = None
    bar = _Progress(sys.stderr) if sys.stderr.isatty() else None
    progress = bar
    try:
        report = replay_calls(
            options.sources,
            tools,
            query=options.query,
            batch_size=options.batch_size,
            limit_failures=options.limit,
            progress=progress,
        )
    finally:
        if bar is not None:
            bar.clear()
    color = options.color if options.color is not None else out.isatty()
    width = shutil.get_terminal_size((120, 24)).columns
    print(render_replay(report, options.format, color=color, width=width), file=out)
    return 0 if report.ok or options.fail_on == "never" else 1
