"""The two implementations every behaviour is tested in: the Rust core and the pure-Python reference.

A test of one implementation at a time takes the ``implementation`` fixture (``tests/conftest.py``); a differential
test, which runs both on the same input and compares them, iterates ``IMPLEMENTATIONS``. The keys are the test ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Final

import toolwire
import toolwire.reference

__all__ = ["IMPLEMENTATIONS"]

IMPLEMENTATIONS: Final[Mapping[str, ModuleType]] = {"core": toolwire, "reference": toolwire.reference}
