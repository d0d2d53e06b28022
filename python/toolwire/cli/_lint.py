"""``toolwire lint``: what each provider or engine does with each tool schema, from the command line."""

from __future__ import annotations

import argparse

from toolwire.cli._common import add_finding_output, add_tools, config_of, finish, tool_specs
from toolwire.schema.lint import LINT_TARGETS, lint_tools, refresh_matrix, render_matrix, resolve_targets

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``lint`` options."""
    add_tools(parser)
    parser.add_argument(
        "--target",
        action="append",
        metavar="T[,T...]",
        help=f"targets: {', '.join(LINT_TARGETS)}, or all (repeatable; default: targets in [tool.toolwire])",
    )
    parser.add_argument(
        "--show-unverified",
        action="store_true",
        help="also list, as info, the constructs no source settles for a target (never enforced)",
    )
    add_finding_output(parser)


def run(options: argparse.Namespace) -> int:
    """Lint, print, and return the exit status (0 clean, 1 a finding reached --fail-on).

    Raises:
        ValueError: No tools or targets, or an unknown target (``toolwire.cli.main`` turns it into exit 2).
    """
    config = config_of(options)
    given = options.target or list(config.targets)
    if not given:
        raise ValueError(
            f"no lint target: pass --target T[,T...] ({', '.join(LINT_TARGETS)}, or all) or set targets in "
            "[tool.toolwire]"
        )
    targets = resolve_targets(given)
    report = lint_tools(tool_specs(options.tools, config), targets, show_unverified=options.show_unverified)
    # The matrix shows what the findings show once the project's rule levels (and "off") are applied.
    report = refresh_matrix(report.with_levels(config.rules))
    matrix = report.extra.get("matrix")
    fmt = options.output_format
    sections = [render_matrix(matrix, fmt)] if matrix and fmt in ("text", "markdown") else []
    return finish(report, options, config, sections=sections)
