"""``toolwire examples FILE... --tools T``: the tool-call examples of rendered prompts against the current tools."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolwire.cli._common import add_finding_output, config_of, finish, tool_specs

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``examples`` options."""
    parser.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help="prompts: .json/.jsonl/.yaml message lists or text"
    )
    parser.add_argument(
        "--tools",
        action="append",
        metavar="T",
        help="tool files, directories or module:attr (repeatable; default: tools in [tool.toolwire])",
    )
    add_finding_output(parser)


def run(options: argparse.Namespace) -> int:
    """Check every prompt file; 0 when no finding reaches ``--fail-on``, else 1."""
    from toolwire.schema import FindingReport, load_tools, sorted_findings
    from toolwire.schema.examples import check_examples

    config = config_of(options)
    sources = load_tools(tool_specs(options.tools, config))
    for path in options.files:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such prompt file")
    reports = [check_examples(path, sources) for path in options.files]
    merged = FindingReport(
        "examples",
        sorted_findings(finding for report in reports for finding in report.findings),
        tuple(subject for report in reports for subject in report.subjects),
        {
            "examples": [
                dict(record, file=str(path))
                for path, r in zip(options.files, reports, strict=True)
                for record in r.extra["examples"]
            ]
        },
    )
    return finish(merged, options, config)
