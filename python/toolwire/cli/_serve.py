"""``toolwire serve [SCRIPT] [--recordings DIR] [--host H] [--port P]``: the local endpoint from a shell.

It prints the base URL and the models, then serves until interrupted (Ctrl-C). Each ``EndpointLimits`` field has a
flag (``--max-body-bytes``, ``--header-timeout``, ...). starlette and uvicorn are imported only when it runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any, Final, TextIO

from toolwire.server import EndpointLimits, LocalEndpoint

__all__ = ["add_arguments", "run"]

_DEFAULT_PORT = 8000
_DEFAULTS: Final = EndpointLimits()
# Each limit's flag and help (the default is added from EndpointLimits()).
_LIMIT_HELP: Final = {
    "max_body_bytes": "the largest request body in bytes; beyond it, HTTP 413 and the connection is closed",
    "max_json_depth": "the deepest nesting of arrays and objects in a body; beyond it, HTTP 400",
    "header_timeout": "seconds a connection has to send a whole request head; past it the connection is closed",
    "body_timeout": "seconds to wait for each next piece of a request body; past it, HTTP 408",
    "keep_alive_timeout": "seconds an idle keep-alive connection stays open",
    "max_header_bytes": "the most bytes of an unfinished request head held; past it, HTTP 400",
    "max_connections": "connections open at once; a new one beyond it closes the longest-waiting idle one",
    "log_requests": "requests kept in the request log",
    "log_bytes": "body bytes kept in the request log over all its entries",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` options."""
    parser.add_argument(
        "script", nargs="?", type=Path, help="a script (.yaml, .yml or .json); default: the bundled one"
    )
    parser.add_argument(
        "--recordings",
        type=Path,
        help="a recordings folder: each recording is served as model recording:<format>/<name>",
    )
    parser.add_argument("--host", default="127.0.0.1", help="the interface to listen on (default: 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=_DEFAULT_PORT, help=f"the port (default: {_DEFAULT_PORT}; 0 picks a free one)"
    )
    limits = parser.add_argument_group("limits", "what one client may cost the endpoint (docs/contract.md)")
    for field in fields(EndpointLimits):
        default = getattr(_DEFAULTS, field.name)
        limits.add_argument(
            f"--{field.name.replace('_', '-')}",
            type=int if field.type == "int" else float,
            metavar="N" if field.type == "int" else "S",
            help=f"{_LIMIT_HELP[field.name]} (default: {default})",
        )


def _limits(options: argparse.Namespace) -> EndpointLimits:
    """The limits the flags set, the others left at their defaults."""
    given = {field.name: getattr(options, field.name, None) for field in fields(EndpointLimits)}
    return EndpointLimits(**{name: value for name, value in given.items() if value is not None})


def _wait_for_interrupt() -> None:
    while True:
        time.sleep(3600)


def run(options: argparse.Namespace, out: TextIO | None = None, wait: Any = _wait_for_interrupt) -> int:
    """Serve until interrupted.

    Args:
        options: The parsed ``serve`` arguments.
        out: Where the URL and the models are printed (standard output by default).
        wait: Blocks while the endpoint serves; returns or raises ``KeyboardInterrupt`` to stop it.

    Returns:
        0 once stopped.

    Raises:
        FileNotFoundError: The script or the recordings folder does not exist.
        ValueError: The script is invalid, or a limit is not positive.
        OSError: The port is taken.
    """
    out = sys.stdout if out is None else out
    endpoint = LocalEndpoint(
        options.script, recordings=options.recordings, host=options.host, port=options.port, limits=_limits(options)
    )
    with endpoint:
        print(f"toolwire serve: {endpoint.url}", file=out)
        print(f"  OpenAI clients: base_url={endpoint.url}", file=out)
        print(f"  Anthropic clients: base_url={endpoint.url.removesuffix('/v1')}", file=out)
        print(f"  {len(endpoint.models)} models: {', '.join(endpoint.models)}", file=out)
        print("  Ctrl-C stops it.", file=out, flush=True)
        try:
            wait()
        except KeyboardInterrupt:
            print("toolwire serve: stopped", file=out)
    return 0
