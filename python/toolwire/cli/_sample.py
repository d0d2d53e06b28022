"""``toolwire sample SOURCE... --output fixtures.jsonl``: a covering, scrubbed fixture of observed calls."""

from __future__ import annotations

import argparse
import sys

from toolwire.cli._common import (
    Progress,
    add_call_sources,
    add_output_format,
    config_of,
    show_progress,
    verbosity,
    whole_number,
)
from toolwire.schema.calls import read_calls
from toolwire.schema.sample import DEFAULT_PER_TOOL, Scrub, sample_calls

__all__ = ["add_arguments", "run"]


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed; got {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``sample`` options."""
    add_call_sources(parser)
    parser.add_argument("--output", default="-", metavar="FILE", help="the fixture to write (default: standard output)")
    parser.add_argument(
        "--per-tool",
        type=whole_number,
        default=DEFAULT_PER_TOOL,
        metavar="N",
        help=f"calls per tool once every feature is covered (default: {DEFAULT_PER_TOOL}; coverage may need more)",
    )
    parser.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the choice (default: 0)")
    parser.add_argument(
        "--scrub-field",
        action="append",
        default=[],
        metavar="NAME",
        help="also replace the whole value of members with this key (repeatable; * is a wildcard: '*_ref')",
    )
    parser.add_argument(
        "--scrub-pattern",
        action="append",
        default=[],
        metavar="REGEX",
        help="also replace the matches of this regex inside strings (repeatable)",
    )
    parser.add_argument(
        "--no-default-scrub",
        action="store_true",
        help="only the --scrub-field and --scrub-pattern rules (and the secret patterns, always on)",
    )
    parser.add_argument(
        "--no-scrub",
        action="store_true",
        help="keep every value as read but secrets (for fixtures of synthetic data only)",
    )
    parser.add_argument(
        "--keep-ids", action="store_true", help="keep the calls' ids instead of numbering them call-0001..."
    )
    parser.add_argument(
        "--tools",
        action="append",
        metavar="T",
        help="the tools (file, directory or package.module:attr; repeatable; default: tools in [tool.toolwire] "
        "if set): features from the schemas, only valid calls sampled, and scrubbing checked to keep them valid",
    )
    parser.add_argument(
        "--include-invalid",
        action="store_true",
        help="sample invalid calls too, covering every violation code seen",
    )
    add_output_format(parser, ("text", "json"), "the summary on stderr")


def run(options: argparse.Namespace) -> int:
    """Sample, write the fixture, print the summary; 0 when clean, 1 when a record or a call had to be left out.

    Raises:
        ValueError: A bad --scrub-pattern, tools that do not load, a database source without --query, or no calls.
        OSError: A source or the output cannot be read or written.
    """
    tools = options.tools or list(config_of(options).tools) or None
    rules = Scrub(
        fields=tuple(options.scrub_field),
        patterns=tuple(options.scrub_pattern),
        defaults=not options.no_default_scrub,
        keep_ids=options.keep_ids,
    )
    progress = Progress("sample") if show_progress(options) else None
    try:
        result = sample_calls(
            read_calls(options.sources, query=options.query),
            per_tool=options.per_tool,
            seed=options.seed,
            scrub=False if options.no_scrub else rules,
            tools=tools,
            include_invalid=options.include_invalid,
            on_progress=progress,
        )
    finally:
        if progress is not None:
            progress.clear()
    summary = result.render(options.output_format) if verbosity(options) >= 0 else None
    if not result.read:
        if summary is not None:
            print(summary, file=sys.stderr)
        raise ValueError(f"no tool calls in {', '.join(options.sources)}: nothing to sample, no fixture written")
    if options.output == "-":
        sys.stdout.write(result.to_jsonl())
        sys.stdout.flush()
    else:
        result.write(options.output)
    if summary is not None:
        print(summary, file=sys.stderr)
    return 0 if result.ok else 1
