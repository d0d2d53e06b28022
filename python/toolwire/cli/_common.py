"""What every command shares: the one vocabulary of flags, project defaults, handlers, output and exit status.

The vocabulary (as ruff and pytest keep theirs): ``--output-format`` says how results print and ``--output FILE``
where a command writes a file; ``--fail-on`` takes a severity (``error``, ``warning``, ``info``) or ``never``;
``--wire-format`` names a wire format; ``--key-env VAR`` names the variable holding an API key (``key_env`` in a
model spec); ``--color {auto,always,never}``, ``-q`` and ``-v`` are on every command, and ``--config FILE`` on every
command that reads ``[tool.toolwire]``. JSON output says ``"ok"``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from toolwire._common._import_path import import_object

if TYPE_CHECKING:
    from toolwire.schema import Config, FindingReport

__all__ = [
    "COLORS",
    "FAIL_ON",
    "OUTPUT_FORMATS",
    "Progress",
    "add_call_sources",
    "add_fail_on",
    "add_finding_output",
    "add_output_format",
    "add_shared_options",
    "add_tools",
    "config_of",
    "error_line",
    "finish",
    "handler_specs",
    "import_handlers",
    "importable",
    "note",
    "show_progress",
    "tool_specs",
    "use_color",
    "verbosity",
    "whole_number",
]

#: Every ``--output-format`` a command may offer; each offers those it renders, ``text`` first and by default.
OUTPUT_FORMATS: Final = ("text", "json", "markdown", "github", "junit")
#: Every ``--fail-on`` value: the lowest severity that makes the exit status 1, or never.
FAIL_ON: Final = ("error", "warning", "info", "never")
#: ``--color``: auto colours when writing to a terminal and ``NO_COLOR`` is unset.
COLORS: Final = ("auto", "always", "never")

_RED, _RESET = "\x1b[1;31m", "\x1b[0m"


def add_shared_options(parser: argparse.ArgumentParser, *, config: bool) -> None:
    """``--color``, ``-q``, ``-v``, and ``--config`` for a command that reads ``[tool.toolwire]``."""
    shared = parser.add_argument_group("shared options")
    if config:
        shared.add_argument(
            "--config",
            type=Path,
            metavar="FILE",
            help="a pyproject.toml to read [tool.toolwire] from (default: nearest)",
        )
    shared.add_argument(
        "--color", choices=COLORS, default="auto", help="colours: auto (on a terminal, unless NO_COLOR is set; default)"
    )
    shared.add_argument(
        "-q", "--quiet", action="count", default=0, help="print results only: no progress, notes or summaries on stderr"
    )
    shared.add_argument(
        "-v", "--verbose", action="count", default=0, help="say more: the configuration read, the time taken"
    )


def add_output_format(parser: argparse.ArgumentParser, choices: Sequence[str], what: str = "results") -> None:
    """``--output-format`` with the formats the command renders (a subset of ``OUTPUT_FORMATS``, ``text`` first)."""
    parser.add_argument(
        "--output-format",
        choices=tuple(choices),
        default=choices[0],
        help=f"how {what} print: {', '.join(choices)} (default: {choices[0]})",
    )


def add_fail_on(parser: argparse.ArgumentParser, choices: Sequence[str], meaning: str, default: str | None) -> None:
    """``--fail-on`` with the severities the command can tell apart (a subset of ``FAIL_ON``, ending in never)."""
    shown = default if default is not None else "error, or fail-on in [tool.toolwire]"
    parser.add_argument(
        "--fail-on", choices=tuple(choices), default=default, help=f"exit 1 when {meaning} (default: {shown})"
    )


def add_tools(parser: argparse.ArgumentParser) -> None:
    """The ``TOOLS`` a command reads when it reads no other files (``tool_specs`` falls back to the configuration's)."""
    parser.add_argument(
        "tools",
        nargs="*",
        metavar="TOOLS",
        help="tool files (.json, .yaml, .yml, .jsonl), directories or package.module:attr import paths "
        "(default: tools in [tool.toolwire])",
    )


def add_call_sources(parser: argparse.ArgumentParser) -> None:
    """The ``SOURCE`` arguments of a command that reads observed calls, and ``--query`` for its database sources."""
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a .jsonl/.json log, a recording or a directory, '-' (stdin), or a database URL",
    )
    parser.add_argument(
        "--query",
        metavar="SQL",
        help="for database sources: SQL selecting columns named id, name, arguments (optionally ts, "
        'schema_fingerprint), e.g. "SELECT call_id AS id, tool AS name, args AS arguments FROM tool_calls"',
    )


def add_finding_output(parser: argparse.ArgumentParser) -> None:
    """``--output-format`` and ``--fail-on`` of a command whose result is a ``FindingReport`` (printed by ``finish``)."""
    add_output_format(parser, OUTPUT_FORMATS)
    add_fail_on(parser, FAIL_ON, "a finding reaches this level", None)


def whole_number(text: str) -> int:
    """An argument that counts something: a whole number, 0 or more (an ``argparse`` ``type``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more; got {value}")
    return value


def verbosity(options: argparse.Namespace) -> int:
    """``-v`` counted up, ``-q`` down: below 0 prints results only, above 0 says more."""
    return int(options.verbose) - int(options.quiet)


def use_color(options: argparse.Namespace, stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream`` (https://no-color.org for ``auto``)."""
    if options.color == "auto":
        return stream.isatty() and not os.environ.get("NO_COLOR")
    return bool(options.color == "always")


def show_progress(options: argparse.Namespace) -> bool:
    """Whether to draw progress on stderr: on a terminal, unless ``-q``."""
    return verbosity(options) >= 0 and sys.stderr.isatty()


class Progress:
    """Calls read so far (and how fast) on stderr, redrawn at most ten times a second; only where ``show_progress``."""

    def __init__(self, command: str, *, rate: bool = False, stream: TextIO | None = None) -> None:
        """Draw ``toolwire COMMAND: N calls read`` (with calls per second when ``rate``) on ``stream`` (stderr)."""
        self.command = command
        self.rate = rate
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()
        self.drawn = 0.0
        self.width = 0

    def __call__(self, calls: int) -> None:
        """Show ``calls``, unless the last drawing is younger than a tenth of a second."""
        now = time.perf_counter()
        if now - self.drawn < 0.1:
            return
        self.drawn = now
        line = f"toolwire {self.command}: {calls:,} calls read"
        if self.rate:
            line += f", {calls / (now - self.started) if now > self.started else 0.0:,.0f} calls/s"
        self.width = max(self.width, len(line) + 1)
        self.stream.write(f"\r{line} ")
        self.stream.flush()

    def clear(self) -> None:
        """Erase the line, if one was drawn."""
        if self.drawn:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def note(options: argparse.Namespace, text: str) -> None:
    """A line on stderr that says more (``-v``)."""
    if verbosity(options) > 0:
        print(f"toolwire {options.command}: {text}", file=sys.stderr)


def error_line(options: argparse.Namespace | None, text: str) -> None:
    """The one line a command prints on stderr before it exits 2, its ``toolwire ...:`` head in red with colour."""
    head, sep, rest = text.partition(": ")
    if options is not None and use_color(options, sys.stderr):
        text = f"{_RED}{head}{_RESET}{sep}{rest}"
    print(text, file=sys.stderr)


def config_of(options: argparse.Namespace) -> Config:
    """The project configuration the options point to (or the nearest ``pyproject.toml``); ``-v`` says which."""
    from toolwire.schema import load_config

    config = load_config(options.config)
    note(options, f"[tool.toolwire] of {config.path}" if config.path else "no pyproject.toml: defaults")
    return config


def tool_specs(given: list[str] | None, config: Config) -> list[str]:
    """The tool sources to read: the command line's, else the configuration's.

    Raises:
        ValueError: Neither names any.
    """
    if given:
        return given
    if config.tools:
        return list(config.tools)
    raise ValueError("no tools given: pass TOOLS (files, directories or module:attr) or set tools in [tool.toolwire]")


def handler_specs(given: Sequence[str], config: Config) -> dict[str, str]:
    """``{tool name: import path}`` from ``[tool.toolwire.handlers]``, then ``--handler NAME=module:attr`` (wins).

    Raises:
        ValueError: A ``--handler`` that is not ``NAME=module:attr``.
    """
    specs = dict(config.handlers)
    for entry in given:
        name, sep, path = entry.partition("=")
        if not sep or not name.strip() or ":" not in path:
            raise ValueError(
                f"--handler {entry!r}: write NAME=package.module:attribute, e.g. refund=app.handlers:refund"
            )
        specs[name.strip()] = path.strip()
    return specs


@contextmanager
def importable(folders: Sequence[Path]) -> Iterator[None]:
    """The project's folders on ``sys.path`` while its code is imported (a console script does not add them)."""
    added = [str(folder) for folder in folders if str(folder) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for folder in added:
            sys.path.remove(folder)


def import_handlers(specs: Mapping[str, str], config: Config) -> dict[str, Any]:
    """Each handler imported, with the working directory and the project's folder importable.

    Raises:
        ValueError: A handler that cannot be imported.
    """
    folders = [Path.cwd()] + ([config.path.parent] if config.path is not None else [])
    with importable(folders):
        return {name: import_object(spec, f"handler for {name!r}") for name, spec in specs.items()}


def finish(
    report: FindingReport,
    options: argparse.Namespace,
    config: Config,
    out: TextIO | None = None,
    sections: Sequence[str] = (),
) -> int:
    """Apply the project's rule levels, print the report, and return the exit status.

    ``sections`` are blocks shown before the findings in text and markdown (the lint's matrix).

    Returns:
        0 when no finding reaches ``--fail-on``, 1 when one does.
    """
    from toolwire.schema import render

    out = out or sys.stdout
    report = report.with_levels(config.rules)
    fail_on = options.fail_on or config.fail_on
    width = shutil.get_terminal_size((120, 24)).columns
    text = render(
        report,
        options.output_format,
        fail_on=fail_on,
        color=use_color(options, out),
        width=width,
        extra_sections=sections,
    )
    print(text, file=out)
    return report.exit_code(fail_on)
