"""The one reader of ``package.module:attr`` import paths: tools, handlers and migrations named on a command line."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["import_object"]


def import_object(spec: str, what: str = "") -> Any:
    """The object a ``package.module:attr`` path names (``attr`` may be dotted).

    Args:
        spec: The import path.
        what: What it is for, prefixed to the error (``"handler for 'refund'"``).

    Raises:
        ValueError: The module or the attribute cannot be imported, naming the path and the form to write.
    """
    module_name, _, attribute = spec.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as error:
        prefix = f"{what}: " if what else ""
        raise ValueError(f"{prefix}cannot import {spec!r} ({error}); write package.module:attr") from error
    return value
