"""``toolwire``: the parser built from the command table, and ``main``.

Only the command being run has its module imported (``toolwire --help`` imports none); a command whose extra is not
installed says in one line what to install, and exits 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Sequence

from toolwire._core import __version__
from toolwire.cli._commands import COMMANDS, Command, command_named
from toolwire.cli._common import add_shared_options, error_line, note

__all__ = ["build_parser", "main"]


def build_parser(names: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The ``toolwire`` parser.

    Args:
        names: The commands whose options are added (every command by default). Every command is listed in
            ``toolwire --help`` either way; ``main`` passes the one it runs, so that no other is imported.

    Returns:
        The parser; ``options.command`` names the command parsed.
    """
    parser = argparse.ArgumentParser(
        prog="toolwire",
        description="Streamed LLM tool calls reassembled and validated; contract tests for tool schemas and providers.",
        epilog="Exit status: 0 clean, 1 findings or failed checks, 2 usage or I/O errors.",
    )
    parser.add_argument("--version", action="version", version=f"toolwire {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    wanted = None if names is None else set(names)
    for command in COMMANDS:
        child = commands.add_parser(command.name, help=command.help, description=command.description)
        if wanted is None or command.name in wanted:
            command.load().add_arguments(child)
            add_shared_options(child, config=bool(command.config_keys))
    return parser


def _missing_dependency(error: ImportError) -> str | None:
    """The third-party module whose absence caused ``error`` (kits re-raise with their own hint), if one did."""
    seen: BaseException | None = error
    while isinstance(seen, ImportError):
        if seen.name and seen.name.partition(".")[0] != "toolwire":
            return seen.name.partition(".")[0]
        seen = seen.__cause__ or seen.__context__
    return None


def _run(command: Command, options: argparse.Namespace) -> int:
    try:
        return int(command.load().run(options))
    except ImportError as error:
        missing = _missing_dependency(error)
        if missing is None or command.extra is None:
            raise
        # A tool source of another kit (an MCP server) needs that kit's extra, whatever the command's is.
        hint = "pip install 'toolwire[mcp]'" if missing == "mcp" else command.install_hint()
        error_line(options, f"toolwire {command.name}: needs {missing}: {hint}")
        return 2
    except (OSError, ValueError) as error:
        error_line(options, f"toolwire: {error}")
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 findings or failed checks, 2 usage or I/O errors)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # The top level takes no option with a value, so the first word that is no option names the command.
    named = next((arg for arg in args if not arg.startswith("-")), None)
    options = build_parser([named] if named is not None else []).parse_args(args)
    command = command_named(options.command)
    started = time.perf_counter()
    status = _run(command, options)
    note(options, f"exit status {status} after {time.perf_counter() - started:.2f} s")
    return status
