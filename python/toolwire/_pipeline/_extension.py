"""The compiled extension ``toolwire._core``, imported here alone, so that its absence is one clear error.

``toolwire`` imports without it: the pure-Python ``toolwire.reference`` needs nothing compiled, and a platform the
wheel was not built for should still reach it. What does need the extension (the core's entry points, ``Reassembler``
and ``validate``) raises ``ImportError`` the moment it is used, saying what is missing and what works without it.
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from collections.abc import Callable

    from toolwire._core import Engine, ToolValidators, ValueReader

__all__ = ["available", "engine_factory", "require", "tool_validators", "value_reader", "version"]

_missing: ImportError | None = None
try:
    import toolwire._core as _core
except ImportError as error:  # a platform or Python the wheel was not built for, or a source tree not yet built
    _missing = error


def available() -> bool:
    """Whether the compiled extension imported."""
    return _missing is None


def require() -> None:
    """Return when the extension is available.

    Raises:
        ImportError: It is not: what is missing, how to get it, and that ``toolwire.reference`` works without it.
    """
    if _missing is not None:
        raise _unavailable(_missing) from _missing


def _unavailable(cause: ImportError) -> ImportError:
    return ImportError(
        f"toolwire's compiled extension (toolwire._core) is not available: {cause}. Install a toolwire wheel built "
        "for this platform and Python, or build it in a source tree (make build-dev); the pure-Python "
        "implementation, toolwire.reference, has the same API and works without it.",
        name="toolwire._core",
    )


def engine_factory() -> type[Engine] | Callable[..., NoReturn]:
    """The core's ``Engine`` class; without the extension, a factory whose every call raises ``require``'s error."""
    if _missing is None:
        return _core.Engine
    cause = _missing

    def missing(**options: Any) -> NoReturn:
        raise _unavailable(cause) from cause

    return missing


def tool_validators() -> type[ToolValidators]:
    """The core's ``ToolValidators`` class.

    Raises:
        ImportError: The extension is missing (see ``require``).
    """
    require()
    return _core.ToolValidators


def value_reader(max_depth: int) -> ValueReader:
    """The core's reader of one JSON value as its text arrives (``stream_object``).

    Raises:
        ImportError: The extension is missing (see ``require``).
    """
    require()
    return _core.ValueReader(max_depth)


def dialect_names() -> tuple[str, ...]:
    """The dialects the core reads (``dialect=``), in the order of its table.

    Raises:
        ImportError: The extension is missing (see ``require``).
    """
    require()
    return _core.DIALECT_NAMES


def version() -> str:
    """The version: the extension's, which is Cargo's; without it, the installed distribution's (the same string).

    Raises:
        ImportError: Neither is available (a source tree neither built nor installed), as ``require`` says.
    """
    if _missing is None:
        return _core.__version__
    try:
        return importlib.metadata.version("toolwire")
    except importlib.metadata.PackageNotFoundError:
        raise _unavailable(_missing) from _missing
