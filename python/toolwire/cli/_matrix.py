"""``toolwire matrix``: run a case file against several models and report the case-by-model matrix.

``toolwire matrix CASES --model SPEC [--model SPEC]... [--models FILE]`` runs every case against every model
(``--repeat N`` times), prints the grid (``--output-format``) and writes the reports ``--output FILE`` names, each in
the format its suffix says (``.html``, ``.json``, ``.xml`` for JUnit, ``.md``). ``toolwire matrix --compare OLD.json
NEW.json`` says what changed between two runs written as JSON.

Exit status: 0 when ``--fail-on`` is met, 1 when it is not (``error``, the default: a cell below its case's
``min_pass_rate``; ``warning``: any failed repeat; ``never``: always 0); with ``--compare``, 1 for a cell newly below
its threshold (``warning``: any pass rate that dropped). 2 for a usage error, a file that cannot be read, an unset
``key_env`` or, with ``--offline``, a request the cache cannot answer. 3, whatever ``--fail-on`` says, when a model
could not be reached (its cells are ``unreachable``, and the reports still say so), with a line on stderr for each
such model naming its URL and why.

A case file's ``tools:`` may name a Python import path only with ``--allow-imports`` or ``allow-imports = true``
under ``[tool.toolwire.cases]`` of the nearest ``pyproject.toml`` (``--config`` names another): importing a module
runs its code, and a case file alone must not be able to do that.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from toolwire.cli._common import add_fail_on, add_output_format, config_of, error_line, show_progress, use_color

if TYPE_CHECKING:
    from toolwire.cases import ModelSpec
    from toolwire.cases.report import FailOn, MatrixResult, ReportFormat

__all__ = ["add_arguments", "run"]

# ``--fail-on`` severities as the runner's policies: a cell below its threshold is an error, a failed repeat in a
# cell that still meets it a warning.
_POLICY: Final[dict[str, FailOn]] = {"error": "threshold", "warning": "any", "never": "never"}
# ``--output FILE``: the report format of each file suffix.
_SUFFIXES: Final[dict[str, ReportFormat]] = {
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".xml": "junit",
    ".md": "markdown",
    ".markdown": "markdown",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``matrix`` options."""
    parser.epilog = (
        "Exit status: 0 when --fail-on is met, 1 when not (error: a cell below its min_pass_rate; warning: any "
        "failed repeat; never: always 0); with --compare, 1 for a cell newly below its threshold. 2 for usage "
        "errors, unreadable files, an unset key_env, or an --offline cache miss. 3 when a model could not be "
        "reached (no answer, or a 401, 403, 404, 405, 429, 502, 503 or 504), whatever --fail-on says."
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
    add_output_format(parser, ("text", "markdown", "json", "junit"))
    parser.add_argument(
        "--output",
        action="append",
        type=Path,
        metavar="FILE",
        help="also write the report to FILE, in the format its suffix says: .html (self-contained), .json (what "
        "--compare reads), .xml (JUnit, a testcase per case and model), .md (repeatable)",
    )
    parser.add_argument(
        "--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="compare two JSON reports instead of running"
    )
    add_fail_on(
        parser,
        tuple(_POLICY),
        "a cell is below its min_pass_rate (error), any repeat failed (warning), or never",
        "error",
    )


def _allow_imports(options: argparse.Namespace) -> bool:
    """``--allow-imports``, else ``allow-imports`` under ``[tool.toolwire.cases]``, else False.

    Raises:
        ValueError: The ``cases`` table holds an unknown key or a value that is not a boolean.
    """
    if options.allow_imports:
        return True
    config = config_of(options)
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
    from toolwire.cases import load_models, parse_spec

    specs = list(load_models(options.models)) if options.models is not None else []
    specs += [parse_spec(text, origin=f"--model {text}") for text in options.model]
    return specs


def _print_text(result: MatrixResult, out: TextIO, color: bool) -> None:
    from toolwire.cases.report import print_rich, render_text

    if color:
        try:
            print_rich(result, out)
            return
        except ModuleNotFoundError:  # rich is optional: the plain table has ANSI colours of its own
            pass
    out.write(render_text(result, color=color))


def _output_formats(paths: list[Path] | None) -> list[tuple[Path, ReportFormat]]:
    """Each ``--output`` file with the report format its suffix says, checked before anything runs.

    Raises:
        ValueError: A suffix that names no report format.
    """
    found = []
    for path in paths or []:
        fmt = _SUFFIXES.get(path.suffix.lower())
        if fmt is None:
            raise ValueError(f"--output {path}: name the format by the suffix: {', '.join(_SUFFIXES)}")
        found.append((path, fmt))
    return found


def _compare(options: argparse.Namespace) -> int:
    from toolwire.cases.report import compare_reports, load_report

    if options.cases is not None or options.model or options.models is not None:
        error_line(options, "toolwire matrix: --compare OLD NEW takes no case file and no models")
        return 2
    old_path, new_path = options.compare
    comparison = compare_reports(
        load_report(old_path), load_report(new_path), old_name=str(old_path), new_name=str(new_path)
    )
    fmt = options.output_format if options.output_format in ("markdown", "json") else "text"
    sys.stdout.write(comparison.render(fmt))
    return comparison.exit_status(_POLICY[options.fail_on])


def _matrix(options: argparse.Namespace) -> int:
    from toolwire.cases import load_cases
    from toolwire.cases.run import ProgressBar, RetryPolicy, run_matrix

    if options.cases is None:
        error_line(options, "toolwire matrix: give a case file (or --compare OLD.json NEW.json)")
        return 2
    outputs = _output_formats(options.output)
    specs = _specs(options)
    if not specs:
        error_line(options, "toolwire matrix: give at least one --model SPEC or a --models FILE")
        return 2
    case_file = load_cases(options.cases, tools=options.tools, allow_imports=_allow_imports(options))
    cases = list(case_file.cases)
    if options.case:
        unknown = [name for name in options.case if name not in {case.name for case in cases}]
        if unknown:
            known = ", ".join(case.name for case in cases)
            error_line(
                options, f"toolwire matrix: --case {', '.join(unknown)}: not in {options.cases} (its cases: {known})"
            )
            return 2
        cases = [case for case in cases if case.name in options.case]
    policy = RetryPolicy(attempts=options.attempts, max_retry_after=options.max_retry_after)
    bar = ProgressBar(enabled=show_progress(options))
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
    for path, fmt in outputs:
        path.write_text(result.render(fmt), encoding="utf-8")
    if options.output_format == "text":
        _print_text(result, sys.stdout, use_color(options, sys.stdout))
    else:
        sys.stdout.write(result.render(options.output_format))
    for label, cause in result.unreachable_models().items():
        print(f"toolwire matrix: model {label!r} is unreachable: {cause}", file=sys.stderr)
    return result.exit_status(_POLICY[options.fail_on])


def run(options: argparse.Namespace) -> int:
    """Run the matrix, or compare two runs; returns the exit status (see the module docstring)."""
    from toolwire.cases.run import CacheMissError

    try:
        if options.compare is not None:
            return _compare(options)
        return _matrix(options)
    except CacheMissError as error:
        error_line(options, f"toolwire matrix: {error.args[0]}")
        return 2
    except (OSError, ValueError) as error:
        error_line(options, f"toolwire matrix: {error}")
        return 2
