"""``toolwire check TOOLS...``: the registry rules from the command line."""

from __future__ import annotations

import argparse

from toolwire.cli._common import add_finding_output, add_tools, config_of, finish, tool_specs
from toolwire.schema.check import DEFAULT_SIMILARITY_THRESHOLD, check_tools

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``check`` options."""
    add_tools(parser)
    parser.add_argument(
        "--similarity-threshold",
        type=float,
        metavar="X",
        help="score in (0, 1] from which two tools are reported as ambiguous "
        f"(default: similarity-threshold in [tool.toolwire], else {DEFAULT_SIMILARITY_THRESHOLD})",
    )
    add_finding_output(parser)


def run(options: argparse.Namespace) -> int:
    """Check the tools; 0 when no finding reaches ``--fail-on``, 1 when one does.

    Raises:
        ValueError: No tools given or configured, a threshold outside (0, 1], or a source that cannot be read.
        OSError: A tool file cannot be read.
    """
    config = config_of(options)
    threshold = options.similarity_threshold
    if threshold is None:
        threshold = config.similarity_threshold
    report = check_tools(tool_specs(options.tools, config), similarity_threshold=threshold)
    return finish(report, options, config)
