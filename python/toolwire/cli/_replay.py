"""``toolwire replay SOURCE... --tools T``: validate calls already made against the current tools."""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TextIO

from toolwire.cli import _replay_history
from toolwire.cli._common import (
    Progress,
    add_call_sources,
    add_fail_on,
    add_output_format,
    config_of,
    show_progress,
    tool_specs,
    use_color,
    whole_number,
)
from toolwire.schema.calls import read_calls
from toolwire.schema.replay import DEFAULT_BATCH_SIZE, REPLAY_FORMATS, render_replay, replay_calls

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``replay`` options, with those of ``--history``."""
    add_call_sources(parser)
    parser.add_argument(
        "--tools",
        action="append",
        metavar="T",
        help="the current tools: a file (.json, .yaml, .jsonl), a directory or package.module:attr (repeatable; "
        "default: tools in [tool.toolwire])",
    )
    add_output_format(parser, REPLAY_FORMATS)
    parser.add_argument(
        "--limit",
        type=whole_number,
        default=20,
        metavar="N",
        help="failures and unreadable records listed (default: 20)",
    )
    # An invalid call or an unreadable record is an error; replay finds nothing at a lower level.
    add_fail_on(parser, ("error", "never"), "a call is invalid or a record unreadable", "error")
    parser.add_argument(
        "--batch-size",
        type=whole_number,
        default=DEFAULT_BATCH_SIZE,
        metavar="N",
        help=f"calls validated per batch, rows fetched per round trip (default: {DEFAULT_BATCH_SIZE})",
    )
    _replay_history.add_arguments(parser)


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
    if options.history:
        calls = read_calls(options.sources, query=options.query, batch_size=options.batch_size)
        return _replay_history.run(options, calls, out)

    config = config_of(options)
    tools = tool_specs(options.tools, config)
    bar = Progress("replay", rate=True) if show_progress(options) else None
    try:
        report = replay_calls(
            options.sources,
            tools,
            query=options.query,
            batch_size=options.batch_size,
            limit_failures=options.limit,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.clear()
    width = shutil.get_terminal_size((120, 24)).columns
    print(render_replay(report, options.output_format, color=use_color(options, out), width=width), file=out)
    return 0 if report.ok or options.fail_on == "never" else 1
