"""toolwire: streamed LLM tool calls reassembled into whole, validated calls, fast.

``for call in toolwire.reassemble(stream)`` hands over each tool call of a streamed response the moment it is
whole, with every contract violation reported as data. The engine is the Rust extension ``toolwire._core``;
``toolwire.reference`` is the same behaviour in plain Python.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolwire._api import AsyncToolCallStream, ToolCallStream, make_entry_points
from toolwire._api import Reassembler as _Reassembler
from toolwire._calllog import CallLog
from toolwire._core import Engine as _Engine
from toolwire._core import __version__
from toolwire._model import (
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
from toolwire._normalize import make_normalize
from toolwire._progress import (
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
from toolwire._validation import core_validators as _core_validators
from toolwire._validation import make_validators
from toolwire.errors import (
    CallLogWriteError,
    InvalidToolCallError,
    MalformedChunkError,
    SchemaError,
    StreamContractError,
    ToolwireError,
)
from toolwire.formats import WIRE_FORMATS, WireFormat
from toolwire.registry import ServerTool, Tool, ToolRegistry

if TYPE_CHECKING:
    from toolwire._batch import validate_batch
    from toolwire.schema._history import RegistryHistory
    from toolwire.schema._migrations import Migrations, migration

# Imported on first use: schema histories read YAML and git, and validate_batch needs pyarrow; an agent loop that
# only reassembles pays for none of it.
_LAZY = {
    "RegistryHistory": "toolwire.schema._history",
    "Migrations": "toolwire.schema._migrations",
    "migration": "toolwire.schema._migrations",
    "validate_batch": "toolwire._batch",
}


def __getattr__(name: str) -> Any:
    """The names of the compatibility kit, imported on first use."""
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'toolwire' has no attribute {name!r}")


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
    "ToolwireError",
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
    """Reassembly for callers who drive their own loop; see ``toolwire._api.Reassembler``."""

    _engine_factory = _Engine
    _compile_tools = staticmethod(_core_validators)


reassemble, areassemble = make_entry_points(_Engine, _core_validators)
events, aevents = make_event_entry_points(_Engine, _core_validators)
validate, validate_many = make_validators(_core_validators)
normalize = make_normalize(reassemble)
