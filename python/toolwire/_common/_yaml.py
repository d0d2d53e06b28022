"""YAML documents as every reader of tool, script and schema files reads them: safely, PyYAML imported only then.

PyYAML comes with an extra (``yaml``, and ``schema``, ``server`` and ``cases`` bring it too), so nothing imports it
before a YAML file is read; a YAML error names the file and, where PyYAML knows it, the line and column.
"""

from __future__ import annotations

import importlib
from typing import Any, TypeAlias

__all__ = ["Lines", "YamlError", "parse_yaml", "value_lines"]

#: Where a value of a document starts: ``(line from 1, its children's)``, the children a list for a sequence's items,
#: a dict by key for a mapping's values (a repeated key's last, as a load keeps it), None past the depth asked for.
Lines: TypeAlias = "tuple[int, list[Lines] | dict[str, Lines] | None]"


class YamlError(ValueError):
    """A text that is not YAML: ``<where>: invalid YAML at line L column C: <problem>``.

    Attributes:
        line: The line PyYAML points at, from 1, or None when it names none.
        column: Its column, from 1, or None.
        problem: What PyYAML says is wrong.
    """

    def __init__(self, where: str, line: int | None, column: int | None, problem: str) -> None:
        """Say where and what."""
        self.line = line
        self.column = column
        self.problem = problem
        at = f" at line {line} column {column}" if line is not None else ""
        super().__init__(f"{where}: invalid YAML{at}: {problem}")


def parse_yaml(text: str, where: str, *, install: str = "pip install 'toolwire[yaml]'") -> Any:
    """The document of a YAML text.

    Args:
        text: The YAML text.
        where: What the errors name: a file, or a file and a line.
        install: What the ImportError says to run.

    Raises:
        ImportError: PyYAML is not installed.
        YamlError: The text is not YAML (a ``ValueError``): where, and what PyYAML says.
    """
    try:
        yaml = importlib.import_module("yaml")
    except ImportError as error:
        raise ImportError(f"{where}: reading YAML needs PyYAML ({install})") from error
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        raise YamlError(where, line, column, getattr(error, "problem", None) or str(error)) from error


def value_lines(text: str, depth: int) -> Lines | None:
    """The line each value of a YAML text (or a JSON one, which YAML reads) starts on, ``depth`` levels down.

    None when PyYAML is missing or cannot read the text: lines are a help to the reader of a report, never a reason
    to fail where the document itself loads.
    """
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        return None
    return None if node is None else _lines(yaml, node, depth)


def _lines(yaml: Any, node: Any, depth: int) -> Lines:
    line = node.start_mark.line + 1
    if depth <= 0:
        return line, None
    if isinstance(node, yaml.SequenceNode):
        return line, [_lines(yaml, item, depth - 1) for item in node.value]
    if isinstance(node, yaml.MappingNode):
        return line, {str(key.value): _lines(yaml, value, depth - 1) for key, value in node.value}
    return line, None
