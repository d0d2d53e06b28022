"""``toolwire matrix``: run a case file against several models and report the case-by-model matrix.

``toolwire matrix CASES --model SPEC [--model SPEC]... [--models FILE]`` runs every case against every model
(``--repeat N`` times), prints the grid (``--format``) and writes the other reports asked for (``--html``,
``--json``, ``--junit``, ``--markdown``). ``toolwire matrix --compare OLD.json NEW.json`` says what changed between
two runs written with ``--json``.

Exit status: 0 when the policy of ``--fail-on`` is met, 1 when it is not (``threshold``, the default: a cell below
its case's ``min_pass_rate``; ``any``: any failed repeat; ``never``: always 0); with ``--compare``, 1 for a cell
newly below its threshold (``any``: any pass rate that dropped). 2 for a usage error, a file that cannot be read, an
unset ``key_env`` or, with ``--offline``, a request the cache cannot answer. 3, whatever ``--fail-on`` says, when a
model could not be reached (its cells are ``unreachable``, and the reports still say so), with a line on stderr for
each such model naming its URL and why.

A case file's ``tools:`` may name a Python import path only with ``--allow-imports`` or ``allow-imports = true``
under ``[tool.toolwire.cases]`` of the nearest ``pyproject.toml`` (``--config`` names another): importing a module
runs its code, and a case file alone must not be able to do that.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from toolwire.cases._cache import CacheMissError
from toolwire.cases._compare import compare_reports, load_report
from toolwire.cases._report import FAIL_ON, FailOn, MatrixResult, ReportFormat
from toolwire.cases._run_http import RetryPolicy
from toolwire.cases._spec import ModelSpec, load_models, parse_spec

__all__ = ["add_parser", "run"]

_FORMATS = ("text", "markdown", "json", "junit")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``matrix`` subcommand."""
    parser = commands.add_parser(
        "matrix",
        help="run a case file against several models and report the case-by-model matrix",
        description=(
            "Run every case of a case file against every model, judge each answer, and report the case-by-model "
            "matrix (cells k/n). A model spec is FORMAT:MODEL[@BASE_URL][,KEY=VALUE]..., e.g. openai-chat:gpt-4.1 or "
            "openai-chat:my-vllm@http://localhost:8000/v1,temperature=0 (keys: label, key_env, stream, timeout, "
            "temperature, top_p, max_tokens, seed, top_k, parallel_tool_calls, params.NAME)."
        ),
        epilog=(
            "Exit status: 0 when --fail-on is met, 1 when not (threshold: a cell below its min_pass_rate; any: any "
            "failed repeat; never: always 0); with --compare, 1 for a cell newly below its threshold. 2 for usage "
            "errors, unreadable files, an unset key_env, or an --offline cache miss. 3 when a model could not be "
            "reached (no answer, or a 401, 403, 404, 405, 429, 502, 503 or 504), whatever --fail-on says."
        ),
    )
    parser.add_argument("cases", nargs="?", type=Path, metavar="CASES", help="the case file (YAML or JSON)")
    parser.add_argument(
        "--model", action="append", default=[], metavar="SPEC", help="a model to run against (repeatable)"
    )
    parser.add_argument("--models", type=Path, metavar="FILE", help="a models file (YAML, TOML or JSON)")
    parser.add_argument("--tools", type=Path, metavar="FILE", help="tools for cases whose file names none")
    parser.add_argument(
        "--allow-imports",
        action="store_true",
        default=None,
        help="let the case file name tools as package.module:attr (importing runs the module's code; default: "
        "allow-imports under [tool.toolwire.cases], else refused)",
    )
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="a pyproject.toml to read [tool.toolwire] from (default: nearest)"
    )
    parser.add_argument("--case", action="append", metavar="NAME", help="run only this case (repeatable)")
    parser.add_argument("--repeat", type=int, metavar="N", help="repeats per cell (default: each case's own)")
    parser.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight (default 4)")
    parser.add_argument("--cache", type=Path, metavar="DIR", help="read answers from DIR and store new ones there")
    parser.add_argument("--offline", action="store_true", help="answer from --cache only; a miss is an error")
    parser.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="ask for streamed answers, for specs that do not say (default: --stream)",
    )
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds per read (default 60)")
    parser.add_argument("--attempts", type=int, default=5, metavar="N", help="requests per turn at most (default 5)")
    parser.add_argument(
        "--max-retry-after", type=float, default=120.0, metavar="S", help="longest Retry-After honoured (default 120)"
    )
    parser.add_argument("--format", choices=_FORMATS, default="text", help="what to print (default text)")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the self-contained HTML report")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report (what --compare reads)")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML (a testcase per case and model)")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the Markdown report")
    parser.add_argument(
        "--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="compare two --json reports instead of running"
    )
    parser.add_argument(
        "--fail-on",
        choices=tuple(FAIL_ON),
        default="threshold",
        help="when to exit 1: threshold (a cell below its min_pass_rate; default), any (any failed repeat), never",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _allow_imports(options: argparse.Namespace) -> bool:
    """``--allow-imports``, else ``allow-imports`` under ``[tool.toolwire.cases]``, else False.

    Raises:
        ValueError: The ``cases`` table holds an unknown key or a value that is not a boolean.
    """
    if options.allow_imports:
        return True
    from toolwire.schema._config import load_config

    config = load_config(options.config)
    table: Any = config.raw.get("cases", {})
    where = f"{config.path}: [tool.toolwire.cases]"
    if not isinstance(table, dict):
        raise ValueError(f"{where} must be a table, e.g. [tool.toolwire.cases] then allow-imports = true")
    unknown = sorted(set(table) - {"allow-imports"})
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; known: allow-imports")
    allowed = table.get("allow-imports", False)
    if not isinstance(allowed, bool):
        raise ValueError(f"{where}.allow-imports: true or false; got {allowed!r}")
    return allowed


def _specs(options: argparse.Namespace) -> list[ModelSpec]:
    specs = list(load_models(options.models)) if options.models is not None else []
    specs += [parse_spec(text, origin=f"--model {text}") for text in options.model]
    return specs


def _print_text(result: MatrixResult, out: TextIO) -> None:
    terminal = out.isatty()
    if terminal and not os.environ.get("NO_COLOR"):
        try:
            from toolwire.cases._report_text import print_rich

            print_rich(result, out)
            return
        except ModuleNotFoundError:
            pass
    from toolwire.cases._report_text import render_text

    out.write(render_text(result, color=terminal and not os.environ.get("NO_COLOR")))


def _write_files(result: MatrixResult, options: argparse.Namespace) -> None:
    written: tuple[tuple[Path | None, ReportFormat], ...] = (
        (options.html, "html"),
        (options.json, "json"),
        (options.junit, "junit"),
        (options.markdown, "markdown"),
    )
    for path, fmt in written:
        if path is not None:
            path.write_text(result.render(fmt), encoding="utf-8")


def _compare(options: argparse.Namespace) -> int:
    if options.cases is not None or options.model or options.models is not None:
        print("toolwire matrix: --compare OLD NEW takes no case file and no models", file=sys.stderr)
        return 2
    old_path, new_path = options.compare
    comparison = compare_reports(
        load_report(old_path), load_report(new_path), old_name=str(old_path), new_name=str(new_path)
    )
    fmt = options.format if options.format in ("markdown", "json") else "text"
    sys.stdout.write(comparison.render(fmt))
    fail_on: FailOn = options.fail_on
    return comparison.exit_status(fail_on)


def _matrix(options: argparse.Namespace) -> int:
    from toolwire.cases._load import load_cases
    from toolwire.cases._run import run_matrix
    from toolwire.cases._run_progress import ProgressBar

    if options.cases is None:
        print("toolwire matrix: give a case file (or --compare OLD.json NEW.json)", file=sys.stderr)
        return 2
    specs = _specs(options)
    if not specs:
        print("toolwire matrix: give at least one --model SPEC or a --models FILE", file=sys.stderr)
        return 2
    case_file = load_cases(options.cases, tools=options.tools, allow_imports=_allow_imports(options))
    cases = list(case_file.cases)
    if options.case:
        unknown = [name for name in options.case if name not in {case.name for case in cases}]
        if unknown:
            known = ", ".join(case.name for case in cases)
            print(
                f"toolwire matrix: --case {', '.join(unknown)}: not in {options.cases} (its cases: {known})",
                file=sys.stderr,
            )
            return 2
        cases = [case for case in cases if case.name in options.case]
    policy = RetryPolicy(attempts=options.attempts, max_retry_after=options.max_retry_after)
    bar = ProgressBar(enabled=False if options.no_progress else None)
    with bar:
        result = run_matrix(
            cases,
            specs,
            source=str(options.cases),
            repeat=options.repeat,
            concurrency=options.concurrency,
            stream=True if options.stream is None else options.stream,
            timeout=options.timeout,
            retry=policy,
            cache=options.cache,
            offline=options.offline,
            on_progress=bar,
        )
    _write_files(result, options)
    if options.format == "text":
        _print_text(result, sys.stdout)
    else:
        sys.stdout.write(result.render(options.format))
    for label, cause in result.unreachable_models().items():
        print(f"toolwire matrix: model {label!r} is unreachable: {cause}", file=sys.stderr)
    fail_on: FailOn = options.fail_on
    return result.exit_status(fail_on)


def run(options: argparse.Namespace) -> int:
    """Run the matrix, or compare two runs; returns the exit status (see the module docstring)."""
    try:
        if options.compare is not None:
            return _compare(options)
        return _matrix(options)
    except CacheMissError as error:
        print(f"toolwire matrix: {error.args[0]}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"toolwire matrix: {error}", file=sys.stderr)
        return 2
