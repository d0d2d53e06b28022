"""``toolwire drift TOOLS... --handler NAME=module:attr``: each tool's schema against the handler that runs it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from toolwire.schema._cli_common import add_output_options, config_of, finish, tool_specs
from toolwire.schema._config import Config
from toolwire.schema._drift import check_handler
from toolwire.schema._findings import FindingReport, sorted_findings
from toolwire.schema._sources import ToolSource, import_object, load_tools

__all__ = ["add_parser", "run"]


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``drift`` subcommand."""
    parser = commands.add_parser(
        "drift",
        help="check handlers (functions, dataclasses, pydantic models...) against their tool schemas",
        description=(
            "Compare each tool's parameters schema with the handler that runs its calls: fields the handler requires "
            "that the schema does not, properties it ignores, types, enums and defaults that disagree, and valid "
            "examples the handler refuses. Handlers come from --handler and [tool.toolwire.handlers]. Exits 1 when "
            "a finding reaches --fail-on, 2 on a usage error."
        ),
    )
    parser.add_argument(
        "tools", nargs="*", metavar="TOOLS", help="tool files, directories or module:attr (default: tools in config)"
    )
    parser.add_argument(
        "--handler",
        action="append",
        default=[],
        metavar="NAME=module:attr",
        help="the handler of tool NAME, e.g. refund=app.handlers:RefundArgs (repeatable; wins over the config)",
    )
    add_output_options(parser)


def _handler_specs(given: Sequence[str], config: Config) -> dict[str, str]:
    """``{tool name: import path}`` from the config, then the command line (which wins)."""
    specs = dict(config.handlers)
    for entry in given:
        name, sep, path = entry.partition("=")
        if not sep or not name.strip() or ":" not in path:
            raise ValueError(
                f"--handler {entry!r}: write NAME=package.module:attribute, e.g. refund=app.handlers:refund"
            )
        specs[name.strip()] = path.strip()
    if not specs:
        raise ValueError("no handlers: pass --handler NAME=module:attr, or set [tool.toolwire.handlers]")
    return specs


def _tool_named(name: str, sources: Sequence[ToolSource]) -> ToolSource:
    for source in sources:
        if source.name == name:
            if source.tool is None:
                raise ValueError(f"handler for {name!r}: the tool ({source.origin}) does not load: {source.error}")
            return source
    declared = ", ".join(sorted({s.name for s in sources if s.name})) or "none"
    raise ValueError(f"handler for {name!r}: no tool of that name is declared (declared: {declared})")


@contextmanager
def _importable(folders: Sequence[Path]) -> Iterator[None]:
    """The project's folders on ``sys.path`` while handlers are imported (a console script does not add them)."""
    added = [str(folder) for folder in folders if str(folder) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for folder in added:
            sys.path.remove(folder)


def _handlers(specs: Mapping[str, str], config: Config) -> dict[str, Any]:
    folders = [Path.cwd()] + ([config.path.parent] if config.path is not None else [])
    with _importable(folders):
        return {name: import_object(spec, f"handler for {name!r}") for name, spec in specs.items()}


def run(options: argparse.Namespace) -> int:
    """Check every handler named against its tool; 0 when no finding reaches ``--fail-on``, else 1."""
    config = config_of(options)
    sources = load_tools(tool_specs(options.tools, config))
    specs = _handler_specs(options.handler, config)
    pairs = {name: _tool_named(name, sources) for name in specs}
    handlers = _handlers(specs, config)
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
