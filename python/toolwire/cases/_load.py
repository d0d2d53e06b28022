"""Reading a case file: parse (YAML or JSON), check against the published schema, build the cases.

The file is checked against ``case-file.schema.json`` with the Rust core's validator (no extra dependency), then by
``_build`` for what a schema cannot say. Every problem is collected and reported at once in a ``CaseFileError``, each
naming the file (and the line, for YAML), the case (position and name), the JSON pointer and the fix::

    cases.yaml:14: case 2 ('weather in two cities') at /cases/2/expect/mode: 'unorderd' is not a mode; fix: use one
    of exact, in_order, unordered, superset, subset (did you mean 'unordered'?)
"""

from __future__ import annotations

import datetime
import functools
import importlib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolwire._common._json import pointer_token, pointer_tokens, unescape_token
from toolwire._common._suggest import did_you_mean
from toolwire._common._yaml import YamlError, parse_yaml
from toolwire._core import ToolValidators
from toolwire._model import Violation
from toolwire.cases._build import Builder, Problem
from toolwire.cases._model import CaseFile
from toolwire.errors import ToolwireError

__all__ = ["SCHEMA_PATH", "CaseFileError", "CaseFileProblem", "case_file_schema", "load_cases"]

#: The published JSON Schema of case files (draft 2020-12).
SCHEMA_PATH: Final = Path(__file__).with_name("case-file.schema.json")

_SUFFIXES: Final = (".yaml", ".yml", ".json")
_NAME: Final = "case-file"


@dataclass(frozen=True)
class CaseFileProblem:
    """One problem of a case file, located.

    Attributes:
        file: The case file.
        pointer: The JSON pointer into the file's data (``""`` for the whole file).
        message: What is wrong.
        fix: What to do.
        case: The position of the case concerned, when one is.
        case_name: Its name, when it has one.
        line: The line in the file (YAML files), when known.
    """

    file: str
    pointer: str
    message: str
    fix: str
    case: int | None = None
    case_name: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        """``file:line: case N ('name') at /pointer: message; fix: fix``."""
        where = self.file + (f":{self.line}" if self.line is not None else "")
        case = ""
        if self.case is not None:
            case = f" case {self.case}" + (f" ({self.case_name!r})" if self.case_name else "")
        return f"{where}:{case} at {self.pointer or '/'}: {self.message}; fix: {self.fix}"


class CaseFileError(ToolwireError, ValueError):
    """A case file that cannot be loaded; ``str()`` lists every problem, one per line.

    Attributes:
        path: The file.
        problems: Every problem found, in file order.
    """

    def __init__(self, path: str, problems: list[CaseFileProblem]) -> None:
        """List the problems under a one-line summary."""
        self.path = path
        self.problems = tuple(problems)
        count = len(problems)
        head = f"{path}: {count} problem{'s' if count != 1 else ''} in the case file"
        super().__init__("\n".join([head, *(f"  {problem}" for problem in problems)]))


def case_file_schema() -> dict[str, Any]:
    """The published JSON Schema of case files, as a dict."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=1)
def _validator() -> ToolValidators:
    return ToolValidators([(_NAME, SCHEMA_PATH.read_text(encoding="utf-8"), "")], [], 128)


# -- reading -------------------------------------------------------------------------------------------------------


def _case_of_line(text: str, line: int) -> tuple[int | None, str | None]:
    """The case a YAML line falls in (position and name), read from the layout: for an error where nothing parses."""
    lines = text.splitlines()
    top = next((n for n, raw in enumerate(lines) if re.match(r"cases\s*:", raw)), None)
    if top is None or line <= top:
        return None, None
    item = next((m for raw in lines[top + 1 :] if (m := re.match(r"(\s*)-\s", raw))), None)
    if item is None:
        return None, None
    indent = item.group(1)
    starts = [n for n in range(top + 1, len(lines)) if re.match(rf"{indent}-\s", lines[n])]
    mine = [n for n in starts if n <= line]
    if not mine:
        return None, None
    end = next((n for n in starts if n > line), len(lines))
    name = None
    for raw in lines[mine[-1] : end]:
        # The case's own keys sit two columns right of its dash: on the dash's line or on their own.
        found = re.match(rf"{indent}(?:- |  )name\s*:\s*(.+?)\s*$", raw)
        if found:
            name = found.group(1).strip("'\"")
            break
    return len(mine) - 1, name


def _parse_yaml(text: str, file: str) -> Any:
    try:
        return parse_yaml(text, file, install="pip install 'toolwire[cases]'")
    except YamlError as error:
        case, name = _case_of_line(text, error.line - 1) if error.line is not None else (None, None)
        column = f" column {error.column}" if error.column is not None else ""
        fix = f"fix the YAML at line {error.line}{column} (indentation; quote a string holding ': ' or starting with a '{{')"
        raise CaseFileError(
            file, [CaseFileProblem(file, "", f"invalid YAML: {error.problem}", fix, case, name, error.line)]
        ) from None


def _parse_json(text: str, file: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        fix = f"fix the JSON at line {error.lineno} column {error.colno}"
        raise CaseFileError(
            file, [CaseFileProblem(file, "", f"invalid JSON: {error.msg}", fix, line=error.lineno)]
        ) from None


def _yaml_lines(text: str) -> dict[str, int]:
    """The line (1-based) of every JSON pointer of a YAML document, from its node tree."""
    yaml = importlib.import_module("yaml")
    lines: dict[str, int] = {}

    def walk(node: Any, pointer: str) -> None:
        lines.setdefault(pointer, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = f"{pointer}/{pointer_token(key.value)}"
                lines[child] = key.start_mark.line + 1
                walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, f"{pointer}/{index}")

    root = yaml.compose(text)
    if root is not None:
        walk(root, "")
    return lines


def _json_data(value: Any, pointer: str, problems: list[Problem]) -> Any:
    """The data as plain JSON values; what JSON cannot hold (a YAML date, a non-string key) is a problem."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            problems.append(Problem(pointer, f"{value} is not a JSON number", "write a finite number"))
        return value
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(Problem(pointer, f"the key {key!r} is a {type(key).__name__}", f"quote it: '{key}'"))
                key = str(key)
            out[key] = _json_data(item, f"{pointer}/{pointer_token(key)}", problems)
        return out
    if isinstance(value, list):
        return [_json_data(item, f"{pointer}/{index}", problems) for index, item in enumerate(value)]
    if isinstance(value, (datetime.date, datetime.time)):
        problems.append(Problem(pointer, f"{value} reads as a {type(value).__name__}", f"quote it: '{value}'"))
        return str(value)
    problems.append(Problem(pointer, f"a {type(value).__name__} is not a JSON value", "write JSON values only"))
    return None


# -- the schema's findings in a case file's words -------------------------------------------------------------------

_NOT_MESSAGES: Final = (
    ('"required":["messages"]', "a case has a prompt or messages, not both", "keep one of them"),
    ('"anyOf":[{"required":["calls"]}', "no_tool_call: true goes with neither calls nor one_of", "keep one of them"),
    ('"required":["one_of"]', "calls and one_of exclude each other", "move the calls into one_of as one alternative"),
    ('"required":["', "a matcher takes one of exact, one_of, regex and is", "keep one (optional: true may go with it)"),
)
_PARENT_KINDS: Final = (
    (re.compile(r"/arguments/"), "matcher"),
    (re.compile(r"^$"), None),
    (re.compile(r"^/defaults$"), "defaults"),
    (re.compile(r"^/cases/\d+$"), "case"),
    (re.compile(r"^/cases/\d+/messages/\d+$"), "message"),
    (re.compile(r"^/cases/\d+/expect$"), "expect"),
    (re.compile(r"/tool_choice$"), "tool_choice"),
    (re.compile(r"/one_of/\d+$"), "alternative"),
)


def _allowed_keys(parent: str) -> list[str]:
    schema = case_file_schema()
    kind = next((kind for pattern, kind in _PARENT_KINDS if pattern.search(parent)), "call")
    node = schema if kind is None else schema["$defs"][kind]
    node = node.get("then", node) if kind in ("tool_choice", "call") else node.get("else", node)
    return list(node.get("properties", {}))


def _schema_problem(violation: Violation) -> Problem:
    pointer = violation.path or ""
    parent, _, key = pointer.rpartition("/")
    key = unescape_token(key)
    code = violation.code.value
    data = violation.data if isinstance(violation.data, dict) else {}
    if code == "MISSING_REQUIRED_ARGUMENT":
        hint = " (or messages:)" if key == "prompt" else ""
        return Problem(pointer, f"missing key {key!r}", f"add {key}:{hint}")
    if code == "UNEXPECTED_ARGUMENT":
        allowed = _allowed_keys(parent)
        fix = f"remove it; the keys allowed here are {', '.join(allowed)}{did_you_mean(key, allowed)}"
        return Problem(pointer, f"unknown key {key!r}", fix)
    if code == "ENUM_OUT_OF_RANGE":
        allowed = [str(value) for value in data.get("allowed", [])]
        return Problem(pointer, f"{key!r} is not one of the allowed values", f"use one of {', '.join(allowed)}")
    if code == "TYPE_MISMATCH":
        expected = " or ".join(data.get("expected", ["another type"]))
        return Problem(pointer, violation.message, f"write {key or 'the file'} as {expected}")
    if data.get("keyword") == "not":
        for needle, message, fix in _NOT_MESSAGES:
            if needle in violation.message:
                return Problem(pointer, message, fix)
    if data.get("keyword") == "minProperties":
        return Problem(pointer, "the expectation is empty", "add calls, one_of, no_tool_call: true or finish_reason")
    return Problem(pointer, violation.message, "see docs/cases.md for what this key takes")


def _enum_value(problem: Problem, data: Any) -> Problem:
    """An enum problem with the value that was written, and the closest allowed one."""
    value: Any = data
    for part in pointer_tokens(problem.pointer):
        value = value[int(part)] if isinstance(value, list) else value.get(part) if isinstance(value, dict) else None
    if not isinstance(value, str) or "allowed values" not in problem.message:
        return problem
    allowed = problem.fix.removeprefix("use one of ").split(", ")
    return Problem(
        problem.pointer, f"{value!r} is not one of the allowed values", problem.fix + did_you_mean(value, allowed)
    )


# -- loading -------------------------------------------------------------------------------------------------------


def _located(file: str, data: Any, problems: list[Problem], lines: dict[str, int]) -> list[CaseFileProblem]:
    located = []
    for problem in problems:
        case = name = None
        found = re.match(r"/cases/(\d+)", problem.pointer)
        if found and isinstance(data, dict) and isinstance(data.get("cases"), list):
            case = int(found.group(1))
            raw = data["cases"][case] if case < len(data["cases"]) else None
            name = raw.get("name") if isinstance(raw, dict) and isinstance(raw.get("name"), str) else None
        pointer = problem.pointer
        while pointer not in lines and pointer:
            pointer = pointer.rpartition("/")[0]
        located.append(
            CaseFileProblem(file, problem.pointer, problem.message, problem.fix, case, name, lines.get(pointer))
        )
    return located


def _read(path: Path, file: str) -> tuple[Any, dict[str, int]]:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(f"{file}: unknown case file type {suffix or '(none)'!r}; use .yaml, .yml or .json")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise FileNotFoundError(f"{file}: no such case file") from None
    if suffix == ".json":
        return _parse_json(text, file), {}
    data = _parse_yaml(text, file)
    return data, _yaml_lines(text)


def load_cases(path: str | os.PathLike[str], *, tools: Any = None, allow_imports: bool = False) -> CaseFile:
    """Load a case file (YAML needs PyYAML: ``pip install 'toolwire[cases]'``).

    Args:
        path: The ``.yaml``/``.yml`` or ``.json`` file.
        tools: Tools standing for the file's own ``tools:`` (a ``ToolRegistry``, a tools file, an import path, or
            anything ``ToolRegistry`` loads); a case's own ``tools:`` still wins.
        allow_imports: Let the file's ``tools:`` name Python import paths (``package.module:attr``), which imports
            the module and so runs its code. Off by default: such a path is then a problem of the file naming the
            fix. ``tools`` given here is always loaded.

    Returns:
        The cases, with the file's defaults applied and their tools loaded.

    Raises:
        FileNotFoundError: The case file does not exist.
        ValueError: An unknown file type.
        ImportError: A YAML file and PyYAML is not installed.
        CaseFileError: The file breaks the schema or names what cannot be found (a ``ValueError``; each problem names
            the file, the line, the case, the JSON pointer and the fix).
    """
    file = os.fspath(path)
    data, lines = _read(Path(file), file)
    problems: list[Problem] = []
    data = _json_data(data, "", problems)
    if not problems:
        violations = _validator().validate(_NAME, json.dumps(data, ensure_ascii=False), call=False)
        problems = [_enum_value(_schema_problem(violation), data) for violation in violations]
    if problems:
        raise CaseFileError(file, _located(file, data, problems, lines))
    builder = Builder(Path(file), data, tools, allow_imports=allow_imports)
    cases = builder.cases()
    if builder.problems:
        raise CaseFileError(file, _located(file, data, builder.problems, lines))
    return CaseFile(Path(file), cases, data.get("defaults", {}), builder.file_tools)
