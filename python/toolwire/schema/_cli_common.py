"""What every schema command shares on the command line: output options, project defaults, exit status."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from toolwire.schema._config import Config, load_config
from toolwire.schema._findings import LEVELS, FindingReport
from toolwire.schema._output import OUTPUT_FORMATS, render

__all__ = ["add_output_options", "config_of", "finish", "tool_specs"]


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--format``, ``--fail-on``, ``--config`` and ``--color`` (the same on every schema command)."""
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="text", help="output format (default: text)")
    parser.add_argument(
        "--fail-on",
        choices=(*LEVELS, "never"),
        help="exit 1 when a finding reaches this level (default: error, or fail-on in [tool.toolwire])",
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.toolwire] from (default: nearest)")
    parser.add_argument(
        "--color",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw the text table with colours (default: when writing to a terminal)",
    )


def config_of(options: argparse.Namespace) -> Config:
    """The project configuration the options point to (or the nearest ``pyproject.toml``)."""
    return load_config(options.config)


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
    out = out or sys.stdout
    report = report.with_levels(config.rules)
    fail_on = options.fail_on or config.fail_on
    color = options.color if options.color is not None else out.isatty()
    width = shutil.get_terminal_size((120, 24)).columns
    print(render(report, options.format, fail_on=fail_on, color=color, width=width, extra_sections=sections), file=out)
    return report.exit_code(fail_on)
