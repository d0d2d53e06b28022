"""``toolwire probe``: the live contract suite from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from toolwire.cli._common import add_fail_on, add_output_format, error_line, show_progress, verbosity
from toolwire.contract import PROBE_FORMATS, EndpointUnreachableError, probe

__all__ = ["add_arguments", "run"]

# The variable each format's official SDK reads its key from.
_DEFAULT_KEY_ENV = {"anthropic-messages": "ANTHROPIC_API_KEY"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``probe`` options."""
    parser.add_argument("--base-url", required=True, help="API root, e.g. http://localhost:8000/v1")
    parser.add_argument("--model", required=True, help="the model to ask")
    parser.add_argument(
        "--wire-format", choices=PROBE_FORMATS, default="openai-chat", help="wire format spoken (default: openai-chat)"
    )
    parser.add_argument(
        "--key-env",
        metavar="VAR",
        help="environment variable holding the API key (default: OPENAI_API_KEY, or ANTHROPIC_API_KEY for "
        "anthropic-messages; none is sent when it is unset)",
    )
    parser.add_argument("--tools", type=Path, metavar="FILE", help="your tool definitions: must be accepted as sent")
    parser.add_argument("--record", type=Path, metavar="DIR", help="record every streamed answer into DIR")
    parser.add_argument("--only", action="append", metavar="PROBE", help="run only this probe (repeatable)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each answer (default 60)")
    add_output_format(parser, ("text", "markdown", "json", "junit"), "results (-v lists every check in text)")
    add_fail_on(parser, ("error", "warning", "never"), "a check of this severity fails (warning: any check)", "error")


def run(options: argparse.Namespace) -> int:
    """Run the suite; 0 when the contract holds, 1 when a check fails, 2 when the endpoint cannot be reached."""
    key_env = options.key_env or _DEFAULT_KEY_ENV.get(options.wire_format, "OPENAI_API_KEY")
    api_key = os.environ.get(key_env)
    if options.key_env and not api_key:
        print(f"toolwire probe: ${key_env} is not set; no API key is sent", file=sys.stderr)
    drawing = show_progress(options)

    def progress(done: int, total: int, name: str) -> None:
        if drawing:
            print(f"\r[{done + 1}/{total}] {name:<24}", end="", file=sys.stderr, flush=True)

    tools = None
    if options.tools is not None:
        from toolwire.registry import ToolRegistry

        tools = ToolRegistry.from_file(options.tools)
    try:
        result = probe(
            options.base_url,
            options.model,
            format=options.wire_format,
            api_key=api_key,
            tools=tools,
            record=options.record,
            timeout=options.timeout,
            only=options.only,
            on_progress=progress,
        )
    except EndpointUnreachableError as error:
        error_line(options, f"toolwire probe: {error}; no probe was judged")
        return 2
    except ValueError as error:
        error_line(options, f"toolwire probe: {error}")
        return 2
    finally:
        if drawing:
            print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    print(result.render(options.output_format, verbose=verbosity(options) > 0))
    if options.fail_on == "never":
        return 0
    failed = not result.ok if options.fail_on == "error" else bool(result.failed())
    return int(failed)
