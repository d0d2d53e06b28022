"""``toolwire adapt --target T TOOLS...``: the tools rewritten into one provider's schema subset, with every cost."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolwire.cli._common import add_finding_output, add_tools, config_of, finish, tool_specs
from toolwire.schema.adapt import adapt_tools
from toolwire.schema.lint import LINT_TARGETS

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``adapt`` options."""
    add_tools(parser)
    parser.add_argument(
        "--target",
        required=True,
        metavar="T",
        help=f"the provider or engine to adapt for: one of {', '.join(LINT_TARGETS)}",
    )
    parser.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="write the adapted definitions (JSON) to FILE; without it they go to stdout and the report to stderr",
    )
    add_finding_output(parser)


def run(options: argparse.Namespace) -> int:
    """Adapt, write the definitions, print the report, and return the exit status.

    Raises:
        ValueError: No tools, an unknown target (``toolwire.cli.main`` turns it into exit 2).
        OSError: The output cannot be written.
    """
    config = config_of(options)
    report = adapt_tools(tool_specs(options.tools, config), options.target)
    text = json.dumps(report.definitions(), ensure_ascii=False, indent=2) + "\n"
    if options.output is not None:
        options.output.write_text(text, encoding="utf-8")
        return finish(report.findings(), options, config)
    sys.stdout.write(text)
    return finish(report.findings(), options, config, out=sys.stderr)
