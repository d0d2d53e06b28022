"""Observed calls: tool calls already made, read from call logs, conversation logs, recordings and databases."""

from __future__ import annotations

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

__all__ = [
    "ObservedCall",
    "RawCall",
    "Source",
    "UnreadableRecord",
    "is_database_url",
    "iter_raw",
    "observed",
    "read_calls",
    "shown_url",
]
