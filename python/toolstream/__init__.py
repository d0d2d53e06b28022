"""toolstream: streamed LLM tool calls reassembled into whole, validated calls, fast.

``for call in toolstream.reassemble(stream)`` hands over each tool call of a streamed response the moment it is
whole, with every contract violation reported as data. The engine is the Rust extension ``toolstream._core``;
``toolstream.reference`` is the same behaviour in plain Python.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolstream._api import AsyncToolCallStream, ToolCallStream, make_entry_points
from toolstream._api import Reassembler as _Reassembler
from toolstream._calllog import CallLog
from toolstream._core import Engine as _Engine
from toolstream._core import __version__
from toolstream._formats import WIRE_FORMATS, WireFormat
from toolstream._model import (
    ChoiceResult,
    InvalidToolCall,
    Limits,
    OutputItem,
    Pending,
    Severity,
    StreamResult,
    ToolCall,
    Violation,
    ViolationCode,
)
from toolstream._normalize import make_normalize
from toolstream._progress import (
    ArgumentsDelta,
    AsyncEventStream,
    Event,
    EventStream,
    Finished,
    TextDelta,
    ToolCallInvalid,
    ToolCallReady,
    ToolCallStarted,
    make_event_entry_points,
)
from toolstream._validation import core_validators as _core_validators
from toolstream._validation import make_validators
from toolstream.errors import (
    CallLogWriteError,
    InvalidToolCallError,
    MalformedChunkError,
    SchemaError,
    StreamContractError,
    ToolstreamError,
)
from toolstream.registry import ServerTool, Tool, ToolRegistry

if TYPE_CHECKING:
    from toolstream._batch import validate_batch
    from toolstream.schema._history import RegistryHistory
    from toolstream.schema._migrations import Migrations, migration

# Imported on first use: schema histories read YAML and git, and validate_batch needs pyarrow; an agent loop that
# only reassembles pays for none of it.
_LAZY = {
    "RegistryHistory": "toolstream.schema._history",
    "Migrations": "toolstream.schema._migrations",
    "migration": "toolstream.schema._migrations",
    "validate_batch": "toolstream._batch",
}


def __getattr__(name: str) -> Any:
    """The names of the compatibility kit, imported on first use."""
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'toolstream' has no attribute {name!r}")


__all__ = [
    "WIRE_FORMATS",
    "ArgumentsDelta",
    "AsyncEventStream",
    "AsyncToolCallStream",
    "CallLog",
    "CallLogWriteError",
    "ChoiceResult",
    "Event",
    "EventStream",
    "Finished",
    "InvalidToolCall",
    "InvalidToolCallError",
    "Limits",
    "MalformedChunkError",
    "Migrations",
    "OutputItem",
    "Pending",
    "Reassembler",
    "RegistryHistory",
    "SchemaError",
    "ServerTool",
    "Severity",
    "StreamContractError",
    "StreamResult",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallInvalid",
    "ToolCallReady",
    "ToolCallStarted",
    "ToolCallStream",
    "ToolRegistry",
    "ToolstreamError",
    "Violation",
    "ViolationCode",
    "WireFormat",
    "__version__",
    "aevents",
    "areassemble",
    "events",
    "migration",
    "normalize",
    "reassemble",
    "validate",
    "validate_batch",
    "validate_many",
]


class Reassembler(_Reassembler):
    """Reassembly for callers who drive their own loop; see ``toolstream._api.Reassembler``."""

    _engine_factory = _Engine
    _compile_tools = staticmethod(_core_validators)


reassemble, areassemble = make_entry_points(_Engine, _core_validators)
events, aevents = make_event_entry_points(_Engine, _core_validators)
validate, validate_many = make_validators(_core_validators)
normalize = make_normalize(reassemble)
