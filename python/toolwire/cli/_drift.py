"""``toolwire drift TOOLS... --handler NAME=module:attr``: each tool's schema against the handler that runs it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolwire.cli._common import (
    add_finding_output,
    add_tools,
    config_of,
    finish,
    handler_specs,
    import_handlers,
    tool_specs,
)

if TYPE_CHECKING:
    from toolwire.schema import ToolSource

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``drift`` options."""
    add_tools(parser)
    parser.add_argument(
        "--handler",
        action="append",
        default=[],
        metavar="NAME=module:attr",
        help="the handler of tool NAME, e.g. refund=app.handlers:RefundArgs (repeatable; wins over the config)",
    )
    add_finding_output(parser)


def _tool_named(name: str, sources: Sequence[ToolSource]) -> ToolSource:
    for source in sources:
        if source.name == name:
            if source.tool is None:
                raise ValueError(f"handler for {name!r}: the tool ({source.origin}) does not load: {source.error}")
            return source
    declared = ", ".join(sorted({s.name for s in sources if s.name})) or "none"
    raise ValueError(f"handler for {name!r}: no tool of that name is declared (declared: {declared})")


def run(options: argparse.Namespace) -> int:
    """Check every handler named against its tool; 0 when no finding reaches ``--fail-on``, else 1."""
    from toolwire.schema import FindingReport, load_tools, sorted_findings
    from toolwire.schema.drift import check_handler

    config = config_of(options)
    sources = load_tools(tool_specs(options.tools, config))
    specs = handler_specs(options.handler, config)
    if not specs:
        raise ValueError("no handlers: pass --handler NAME=module:attr, or set [tool.toolwire.handlers]")
    pairs = {name: _tool_named(name, sources) for name in specs}
    handlers = import_handlers(specs, config)
    reports = []
    for name, source in pairs.items():
        try:
            reports.append(check_handler(source, handlers[name]))
        except TypeError as error:  # the object is no handler, or its annotations do not resolve: a usage error
            raise ValueError(f"handler for {name!r} ({specs[name]}): {error}") from error
    merged = FindingReport(
        "drift",
        sorted_findings(finding for report in reports for finding in report.findings),
        tuple(subject for report in reports for subject in report.subjects),
        {"handlers": [summary for report in reports for summary in report.extra["handlers"]]},
    )
    return finish(merged, options, config)
