"""``toolwire probe``: the live contract suite from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from toolwire.contract._probe import ReportFormat, probe
from toolwire.contract._probe_requests import PROBE_FORMATS
from toolwire.contract._reach import EndpointUnreachableError

__all__ = ["add_parser", "run"]

# The variable each format's official SDK reads its key from.
_DEFAULT_KEY_ENV = {"anthropic-messages": "ANTHROPIC_API_KEY"}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``probe`` subcommand."""
    parser = commands.add_parser(
        "probe",
        help="run the live tool-calling contract suite against an endpoint",
        description=(
            "Send forced, parallel, none, strict and parameterless tool-calling requests to an endpoint and check "
            "every answer's shape. Exits 1 when a contract check fails; 2 on a usage error or when the endpoint "
            "cannot be reached (no answer, or a 401, 403, 404, 405, 429, 502, 503 or 504: a wrong base URL or model, "
            "a refused key, a service that is down), which says nothing of the contract."
        ),
    )
    parser.add_argument("--base-url", required=True, help="API root, e.g. http://localhost:8000/v1")
    parser.add_argument("--model", required=True, help="the model to ask")
    parser.add_argument("--format", choices=PROBE_FORMATS, default="openai-chat", help="wire format spoken")
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (default: OPENAI_API_KEY, or ANTHROPIC_API_KEY for "
        "anthropic-messages; none is sent when it is unset)",
    )
    parser.add_argument("--tools", type=Path, metavar="FILE", help="your tool definitions: must be accepted as sent")
    parser.add_argument("--record", type=Path, metavar="DIR", help="record every streamed answer into DIR")
    parser.add_argument("--only", action="append", metavar="PROBE", help="run only this probe (repeatable)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each answer (default 60)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the result as JSON")
    output.add_argument("--output", choices=("text", "markdown", "json", "junit"), help="output format")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check, not only failures")


def run(options: argparse.Namespace) -> int:
    """Run the suite; 0 when the contract holds, 1 when a check fails, 2 when the endpoint cannot be reached."""
    key_env = options.api_key_env or _DEFAULT_KEY_ENV.get(options.format, "OPENAI_API_KEY")
    api_key = os.environ.get(key_env)
    if options.api_key_env and not api_key:
        print(f"toolwire probe: ${key_env} is not set; no API key is sent", file=sys.stderr)

    def progress(done: int, total: int, name: str) -> None:
        if sys.stderr.isatty():
            print(f"\r[{done + 1}/{total}] {name:<24}", end="", file=sys.stderr, flush=True)

    tools = None
    if options.tools is not None:
        from toolwire.registry import ToolRegistry

        tools = ToolRegistry.from_file(options.tools)
    try:
        result = probe(
            options.base_url,
            options.model,
            format=options.format,
            api_key=api_key,
            tools=tools,
            record=options.record,
            timeout=options.timeout,
            only=options.only,
            on_progress=progress,
        )
    except EndpointUnreachableError as error:
        print(f"toolwire probe: {error}; no probe was judged", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"toolwire probe: {error}", file=sys.stderr)
        return 2
    finally:
        if sys.stderr.isatty():
            print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    fmt: ReportFormat = "json" if options.json else options.output or "text"
    print(result.render(fmt, verbose=options.verbose))
    return 0 if result.ok else 1
