"""TOML, read by the standard library's ``tomllib`` from Python 3.11 and by its backport ``tomli`` on 3.10.

The one place that knows the two: configuration (``[tool.toolwire]``), diff policies and model files import this
module when they first read TOML. ``tomli`` is the package's one dependency, and on 3.10 only.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

__all__ = ["TOMLDecodeError", "loads"]

TOMLDecodeError = tomllib.TOMLDecodeError


def loads(text: str) -> dict[str, Any]:
    """The TOML document ``text`` as a dict (raises ``TOMLDecodeError``)."""
    return tomllib.loads(text)
