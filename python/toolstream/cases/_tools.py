"""The tools of a case: a registry file, a Python import path, or definitions written inline.

A relative file path is read from the case file's folder, so a case file and its tools move together. Each source is
loaded once per case file, whatever number of cases name it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from toolstream.errors import SchemaError
from toolstream.registry import ToolRegistry

__all__ = ["TOOL_FILE_SUFFIXES", "ToolsProblem", "ToolsResolver"]

TOOL_FILE_SUFFIXES: Final = (".json", ".jsonl", ".yaml", ".yml")


class ToolsProblem(Exception):
    """Tools that cannot be loaded, with what to do about it (turned into a case-file problem by the loader)."""

    def __init__(self, message: str, fix: str) -> None:
        """Keep the message and the fix apart, as the loader reports them."""
        super().__init__(message)
        self.message = message
        self.fix = fix


def _import_object(spec: str) -> Any:
    # toolstream.schema owns the one import_object of the project; it is imported only for an import path.
    from toolstream.schema._sources import import_object

    return import_object(spec, "tools")


class ToolsResolver:
    """Loads tool sources relative to one case file, each once."""

    def __init__(self, base: Path) -> None:
        """Resolve relative paths against ``base`` (the case file's folder)."""
        self.base = base
        self._loaded: dict[str, ToolRegistry] = {}

    def _file(self, path: Path) -> ToolRegistry:
        if not path.is_file():
            raise ToolsProblem(
                f"no tools file {path}",
                f"check the path (a relative path is read from the case file's folder, {self.base})",
            )
        try:
            return ToolRegistry.from_file(path)
        except ImportError as error:
            raise ToolsProblem(f"cannot read {path}: {error}", "pip install 'toolstream[cases]'") from error
        except (OSError, ValueError, TypeError) as error:
            raise ToolsProblem(f"cannot load the tools of {path}: {error}", "fix the tools file") from error

    def _import(self, spec: str) -> ToolRegistry:
        try:
            value = _import_object(spec)
        except ValueError as error:
            raise ToolsProblem(str(error), "check the module and attribute names (package.module:attr)") from error
        try:
            return ToolRegistry.load(value)
        except (TypeError, ValueError, SchemaError) as error:
            raise ToolsProblem(
                f"{spec} is no set of tools: {error}",
                "point it at a ToolRegistry, a list of tool definitions, or a function or pydantic model to use as a tool",
            ) from error

    def _string(self, spec: str) -> ToolRegistry:
        path = Path(spec)
        if not path.is_absolute():
            path = self.base / path
        if path.suffix.lower() in TOOL_FILE_SUFFIXES or path.exists():
            return self._file(path)
        if ":" in spec:
            return self._import(spec)
        raise ToolsProblem(
            f"{spec!r} is neither a tools file nor an import path",
            f"name a {', '.join(TOOL_FILE_SUFFIXES)} file, or a Python object as package.module:attr",
        )

    def load(self, spec: Any) -> ToolRegistry:
        """The registry ``spec`` names or holds.

        Raises:
            ToolsProblem: It cannot be loaded (the message says why, the fix what to do).
        """
        if isinstance(spec, ToolRegistry):
            return spec
        if isinstance(spec, Path):
            spec = str(spec)
        if isinstance(spec, str):
            if spec not in self._loaded:
                self._loaded[spec] = self._string(spec)
            return self._loaded[spec]
        if isinstance(spec, (list, tuple, Mapping)):
            try:
                return ToolRegistry(spec)
            except (TypeError, ValueError, SchemaError) as error:
                raise ToolsProblem(f"the inline tools do not load: {error}", "fix the tool definitions") from error
        try:
            return ToolRegistry.load(spec)
        except (TypeError, ValueError, SchemaError) as error:
            raise ToolsProblem(
                f"tools of type {type(spec).__name__} do not load: {error}", "pass a ToolRegistry"
            ) from error
