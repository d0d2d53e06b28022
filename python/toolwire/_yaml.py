"""YAML documents as every reader of tool, script and schema files reads them: safely, PyYAML imported only then.

PyYAML comes with an extra (``yaml``, and ``schema``, ``server`` and ``cases`` bring it too), so nothing imports it
before a YAML file is read; a YAML error names the file and, where PyYAML knows it, the line and column.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["parse_yaml"]


def parse_yaml(text: str, where: str, *, install: str = "pip install 'toolwire[yaml]'") -> Any:
    """The document of a YAML text.

    Args:
        text: The YAML text.
        where: What the errors name: a file, or a file and a line.
        install: What the ImportError says to run.

    Raises:
        ImportError: PyYAML is not installed.
        ValueError: The text is not YAML: ``<where>: invalid YAML at line L column C: <problem>``.
    """
    try:
        yaml = importlib.import_module("yaml")
    except ImportError as error:
        raise ImportError(f"{where}: reading YAML needs PyYAML ({install})") from error
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ValueError(f"{where}: invalid YAML{at}: {problem}") from error
