"""``toolwire mcp snapshot SERVER --output tools.json``: a live MCP server's tools, pinned to a file a team commits."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``mcp`` options."""
    parser.add_argument("action", choices=["snapshot"], help="snapshot: write the server's tools to a file")
    parser.add_argument("server", metavar="SERVER", help="mcp+stdio:COMMAND ARGS... or mcp+http(s)://HOST/PATH")
    parser.add_argument("--output", default="-", metavar="FILE", help="the file to write (default: standard output)")
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="S", help="seconds for the whole listing (default: 30)"
    )


def run(options: argparse.Namespace) -> int:
    """Write the snapshot; 0 once written."""
    from toolwire.mcp import snapshot

    pinned = snapshot(options.server, timeout=options.timeout)
    text = json.dumps(pinned, indent=2, ensure_ascii=False) + "\n"
    if options.output == "-":
        sys.stdout.write(text)
    else:
        Path(options.output).write_text(text, encoding="utf-8")
        count = len(pinned["tools"])
        print(f"{options.output}: {count} tool{'' if count == 1 else 's'} of {options.server}", file=sys.stderr)
    return 0
