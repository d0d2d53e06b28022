"""``toolwire diff OLD NEW``: what a change to the tool registry breaks, risks, or leaves alone."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from toolwire.cli._common import (
    OUTPUT_FORMATS,
    add_output_format,
    config_of,
    handler_specs,
    import_handlers,
    show_progress,
    use_color,
)

if TYPE_CHECKING:
    from toolwire.schema import Config
    from toolwire.schema.diff import Policy

__all__ = ["add_arguments", "run"]

# A change's verdict read as a severity: BREAKING is an error, RISKY a warning (``Policy.fail_on`` names verdicts).
_VERDICT_OF_LEVEL: Final = {"error": "breaking", "warning": "risky", "never": "never"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``diff`` options."""
    parser.add_argument("old", metavar="OLD", help="tools file, directory, module:attr, or git:REV:PATH")
    parser.add_argument("new", metavar="NEW", help="the same, for the new version (e.g. tools.yaml)")
    parser.add_argument(
        "--target",
        action="append",
        metavar="T[,T...]",
        help="lint targets for provider regressions, or all (repeatable; default: targets in [tool.toolwire.diff] "
        "or [tool.toolwire])",
    )
    parser.add_argument(
        "--evidence",
        nargs="+",
        metavar="CALLS",
        help="recorded calls: JSONL of calls, conversation logs, recordings, sqlite:///db or a SQLAlchemy URL",
    )
    parser.add_argument("--query", metavar="SQL", help="the SQL selecting id, name, arguments from a database")
    parser.add_argument("--evidence-limit", type=int, metavar="N", help="failing calls shown per change (default 5)")
    parser.add_argument(
        "--rules", type=Path, metavar="FILE", help="a policy file (TOML, YAML or JSON): severities, waivers"
    )
    parser.add_argument(
        "--handler",
        action="append",
        default=[],
        metavar="NAME=module:attr",
        help="the handler of tool NAME, for the handler check (repeatable; adds to [tool.toolwire.handlers])",
    )
    parser.add_argument(
        "--strict-optional-semantics",
        action="store_true",
        default=None,
        help="read OpenAI-strict's required + nullable as optional (the validator treats missing as null)",
    )
    add_output_format(parser, OUTPUT_FORMATS)
    parser.add_argument(
        "--fail-on",
        choices=tuple(_VERDICT_OF_LEVEL),
        help="exit 1 when a change reaches this level: error (BREAKING), warning (RISKY too), or never (default: "
        "fail-on in [tool.toolwire.diff], else error)",
    )


def _policy(config: Config, rules: Path | None) -> Policy:
    from toolwire.schema.diff import Policy, load_policy_file, parse_policy

    table = config.raw.get("diff")
    policy = parse_policy(table, f"{config.path}: [tool.toolwire.diff]") if table is not None else Policy()
    return policy.merged(load_policy_file(rules)) if rules is not None else policy


def run(options: argparse.Namespace) -> int:
    """Diff, print, and return the exit status (0 clean, 1 a change reached --fail-on or a waiver expired).

    Raises:
        ValueError: A source, policy, target or handler that cannot be used (``toolwire.cli.main`` exits 2).
        OSError: A file or git that cannot be read.
    """
    from toolwire.schema import diff

    config = config_of(options)
    policy = _policy(config, options.rules)
    if options.evidence_limit is not None and options.evidence_limit < 0:
        raise ValueError(f"--evidence-limit: a whole number >= 0; got {options.evidence_limit}")
    specs = handler_specs(options.handler, config)
    handlers = import_handlers(specs, config) if specs else None
    if options.evidence and show_progress(options):
        print(f"toolwire diff: reading evidence from {' '.join(options.evidence)}...", file=sys.stderr)
    report = diff.diff_tools(
        options.old,
        options.new,
        targets=options.target or list(policy.targets) or list(config.targets),
        evidence=options.evidence,
        policy=policy,
        handlers=handlers,
        strict_optional_semantics=bool(options.strict_optional_semantics),
        evidence_limit=options.evidence_limit,
        evidence_query=options.query,
    )
    fail_on = _VERDICT_OF_LEVEL[options.fail_on] if options.fail_on else policy.fail_on or "breaking"
    color = use_color(options, sys.stdout)
    width = shutil.get_terminal_size((120, 24)).columns
    print(report.render(options.output_format, fail_on=fail_on, color=color, width=width))
    return report.exit_code(fail_on)
