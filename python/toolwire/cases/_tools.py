"""The tools of a case: a registry file, a Python import path, or definitions written inline.

A relative file path is read from the case file's folder, so a case file and its tools move together. Each source is
loaded once per case file, whatever number of cases name it.

An import path imports a module, which runs its code: loading a case file must not run code the file names unless the
user opted in (``allow_imports``, ``--allow-imports``, ``allow-imports`` under ``[tool.toolwire.cases]``). Tools the
caller gives (``load_cases(tools=...)``, ``--tools``) are the caller's own choice and are always loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from toolwire._common._import_path import import_object
from toolwire.errors import SchemaError
from toolwire.registry import ToolRegistry

__all__ = ["IMPORTS_FIX", "TOOL_FILE_SUFFIXES", "ToolsProblem", "ToolsResolver"]

TOOL_FILE_SUFFIXES: Final = (".json", ".jsonl", ".yaml", ".yml")
#: How to allow a case file's import paths, everywhere a case file is loaded.
IMPORTS_FIX: Final = (
    "if you trust the file, allow imports (toolwire matrix --allow-imports, allow-imports = true under "
    "[tool.toolwire.cases] in pyproject.toml, or load_cases(..., allow_imports=True)); else name a tools file "
    "(.json, .yaml) or write the definitions inline"
)


class ToolsProblem(Exception):
    """Tools that cannot be loaded, with what to do about it (turned into a case-file problem by the loader)."""

    def __init__(self, message: str, fix: str) -> None:
        """Keep the message and the fix apart, as the loader reports them."""
        super().__init__(message)
        self.message = message
        self.fix = fix


class ToolsResolver:
    """Loads tool sources relative to one case file, each once."""

    def __init__(self, base: Path, *, allow_imports: bool = False) -> None:
        """Resolve relative paths against ``base`` (the case file's folder); import paths only when allowed."""
        self.base = base
        self.allow_imports = allow_imports
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
            raise ToolsProblem(f"cannot read {path}: {error}", "pip install 'toolwire[cases]'") from error
        except (OSError, ValueError, TypeError) as error:
            raise ToolsProblem(f"cannot load the tools of {path}: {error}", "fix the tools file") from error

    def _import(self, spec: str) -> ToolRegistry:
        try:
            value = import_object(spec, "tools")
        except ValueError as error:
            raise ToolsProblem(str(error), "check the module and attribute names (package.module:attr)") from error
        try:
            return ToolRegistry.load(value)
        except (TypeError, ValueError, SchemaError) as error:
            raise ToolsProblem(
                f"{spec} is no set of tools: {error}",
                "point it at a ToolRegistry, a list of tool definitions, or a function or pydantic model to use as a tool",
            ) from error

    def _string(self, spec: str, trusted: bool) -> ToolRegistry:
        path = Path(spec)
        if not path.is_absolute():
            path = self.base / path
        if path.suffix.lower() in TOOL_FILE_SUFFIXES or path.exists():
            return self._file(path)
        if ":" in spec:
            if not (trusted or self.allow_imports):
                module = spec.partition(":")[0]
                raise ToolsProblem(
                    f"{spec!r} is a Python import path; loading it would import {module!r} and run its code, which a "
                    "case file may not do unless imports are allowed",
                    IMPORTS_FIX,
                )
            return self._import(spec)
        raise ToolsProblem(
            f"{spec!r} is neither a tools file nor an import path",
            f"name a {', '.join(TOOL_FILE_SUFFIXES)} file, or a Python object as package.module:attr",
        )

    def load(self, spec: Any, *, trusted: bool = False) -> ToolRegistry:
        """The registry ``spec`` names or holds.

        Args:
            spec: A tools file, an import path, inline definitions or a registry.
            trusted: Given by the caller rather than read from the case file: an import path is loaded even when
                imports are not allowed.

        Raises:
            ToolsProblem: It cannot be loaded (the message says why, the fix what to do), or it is an import path
                read from the file while imports are not allowed.
        """
        if isinstance(spec, ToolRegistry):
            return spec
        if isinstance(spec, Path):
            spec = str(spec)
        if isinstance(spec, str):
            if spec not in self._loaded:
                self._loaded[spec] = self._string(spec, trusted)
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
