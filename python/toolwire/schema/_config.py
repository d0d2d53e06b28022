"""Project defaults for the schema commands: ``[tool.toolwire]`` in ``pyproject.toml``.

```toml
[tool.toolwire]
tools = ["tools.yaml"]                 # what the commands read when no TOOLS are given
targets = ["openai-strict", "anthropic"]   # `lint` targets
fail-on = "warning"                    # error (default), warning, info or never
similarity-threshold = 0.6             # `check`'s ambiguous-description score

[tool.toolwire.rules]                # levels per rule id: error, warning, info or off
description-too-long = "error"
"gemini/*" = "off"

[tool.toolwire.handlers]             # `drift` handlers per tool
refund = "app.handlers:refund"

[tool.toolwire.cases]                # `matrix`
allow-imports = true                   # case files may name tools as package.module:attr (imports run code)
```

Relative paths are read from the folder of the ``pyproject.toml``. Command-line options win over the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolwire._common._suggest import did_you_mean
from toolwire.schema._findings import LEVELS

__all__ = ["Config", "find_pyproject", "load_config"]

# "diff" and "cases" are subtables their commands read from ``Config.raw`` and check themselves.
_KNOWN_KEYS = frozenset({"tools", "targets", "fail-on", "similarity-threshold", "rules", "handlers", "diff", "cases"})


@dataclass(frozen=True)
class Config:
    """The ``[tool.toolwire]`` table, checked.

    Attributes:
        path: The ``pyproject.toml`` it came from, or None when there is none.
        tools: Default tool sources (paths made absolute, import paths as written).
        targets: Default lint targets.
        fail_on: The lowest level that fails a command.
        similarity_threshold: ``check``'s threshold for ambiguous descriptions, when set.
        rules: Levels per rule id (``"off"`` removes a rule's findings).
        handlers: ``drift`` handlers per tool name (import paths).
        raw: The whole table, for commands that read more (``diff``).
    """

    path: Path | None = None
    tools: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    fail_on: str = "error"
    similarity_threshold: float | None = None
    rules: Mapping[str, str] = field(default_factory=dict)
    handlers: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (the working directory by default)."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            return path
    return None


def _toml(path: Path) -> Mapping[str, Any]:
    from toolwire._common import _toml

    try:
        return _toml.loads(path.read_bytes().decode("utf-8"))
    except _toml.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from error


def _strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ValueError(f"{where}: expected a string or a list of strings; got {value!r}")


def _table(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{where}: expected a table of strings; got {value!r}")
    return {str(key): item for key, item in value.items()}


def _path_like(entry: str, root: Path) -> str:
    """A tool source made absolute when it is a path; an import path (``module:attr``) is kept as written."""
    if ":" in entry and not Path(entry).exists() and not (root / entry).exists():
        return entry
    path = Path(entry)
    return str(path if path.is_absolute() else root / path)


def _check_rule_ids(rules: Mapping[str, Any], where: str) -> None:
    """Refuse a rule id no command reports (a typo would otherwise silently leave the rule at its default level).

    Raises:
        ValueError: An id, or a ``prefix/*``, that names no rule, with the closest id.
    """
    if not rules:
        return
    from toolwire.schema._rule_ids import rule_ids

    known = rule_ids()
    for rule in rules:
        prefix = rule.removesuffix("*") if rule.endswith("/*") else None
        if rule in known or (prefix is not None and any(each.startswith(prefix) for each in known)):
            continue
        if prefix is not None:
            prefixes = {each.partition("/")[0] + "/*" for each in known if "/" in each}
            hint = did_you_mean(rule, prefixes)
        else:
            hint = did_you_mean(rule, known)
        raise ValueError(
            f'{where}."{rule}": no rule has this id{hint}; the ids are listed in docs/schema-rules.md and each '
            "finding names its own"
        )


def load_config(path: Path | None = None, *, start: Path | None = None) -> Config:
    """Read ``[tool.toolwire]``.

    Args:
        path: A ``pyproject.toml`` (or any TOML file with that table); found from ``start`` upward when None.
        start: Where the search starts (the working directory by default).

    Returns:
        The configuration (all defaults when there is no file or no table).

    Raises:
        ValueError: The table holds a key or value the commands do not understand (named, with what is allowed).
        OSError: ``path`` cannot be read.
    """
    path = path or find_pyproject(start)
    if path is None:
        return Config()
    table = _toml(path).get("tool", {}).get("toolwire", {})
    where = f"{path}: [tool.toolwire]"
    if not isinstance(table, Mapping):
        raise ValueError(f"{where} must be a table")
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        hints = "".join(did_you_mean(key, _KNOWN_KEYS) for key in unknown)
        raise ValueError(
            f"{where}: unknown key(s) {', '.join(unknown)}{hints}; known: {', '.join(sorted(_KNOWN_KEYS))}"
        )
    fail_on = table.get("fail-on", "error")
    if fail_on not in (*LEVELS, "never"):
        raise ValueError(f"{where}.fail-on: one of {', '.join(LEVELS)} or never; got {fail_on!r}")
    threshold = table.get("similarity-threshold")
    if threshold is not None and (not isinstance(threshold, (int, float)) or not 0 < threshold <= 1):
        raise ValueError(f"{where}.similarity-threshold: a number in (0, 1]; got {threshold!r}")
    rules = _table(table.get("rules", {}), f"{where}.rules")
    for rule, level in rules.items():
        if level not in (*LEVELS, "off"):
            raise ValueError(f"{where}.rules.{rule}: one of {', '.join(LEVELS)} or off; got {level!r}")
    _check_rule_ids(rules, f"{where}.rules")
    root = path.parent
    return Config(
        path=path,
        tools=tuple(_path_like(entry, root) for entry in _strings(table.get("tools", []), f"{where}.tools")),
        targets=_strings(table.get("targets", []), f"{where}.targets"),
        fail_on=str(fail_on),
        similarity_threshold=float(threshold) if threshold is not None else None,
        rules=rules,
        handlers=_table(table.get("handlers", {}), f"{where}.handlers"),
        raw=dict(table),
    )
