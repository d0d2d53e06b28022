"""Observed calls: tool calls already made, read from call logs, conversation logs, recordings and databases."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolwire.schema.calls._calls import iter_raw, read_calls
from toolwire.schema.calls._model import (
    ObservedCall,
    RawCall,
    Source,
    UnreadableRecord,
    is_database_url,
    observed,
    shown_url,
)

if TYPE_CHECKING:
    from toolwire.schema.calls._files import log_file, open_log, read_numbered

# The JSONL readers need orjson (the `replay` extra): imported on first use, so that a command's help needs no extra.
_LAZY = frozenset({"log_file", "open_log", "read_numbered"})


def __getattr__(name: str) -> Any:
    """The JSONL readers, imported on first use."""
    if name in _LAZY:
        return getattr(importlib.import_module("toolwire.schema.calls._files"), name)
    raise AttributeError(f"module 'toolwire.schema.calls' has no attribute {name!r}")


__all__ = [
    "ObservedCall",
    "RawCall",
    "Source",
    "UnreadableRecord",
    "is_database_url",
    "iter_raw",
    "log_file",
    "observed",
    "open_log",
    "read_calls",
    "read_numbered",
    "shown_url",
]
