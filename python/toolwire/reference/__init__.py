"""The pure-Python reference implementation of toolwire's reassembly.

Plain, readable Python with no performance tricks and no import of the Rust extension: it states
``docs/semantics.md`` in code, serves as the oracle of the differential tests and as the baseline of the
benchmarks. It exposes the same names as ``toolwire`` with the same behaviour.
"""

from __future__ import annotations

from toolwire._api import AsyncToolCallStream, ToolCallStream, make_entry_points
from toolwire._api import Reassembler as _Reassembler
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
from toolwire._validation import make_validators
from toolwire.errors import (
    InvalidToolCallError,
    MalformedChunkError,
    SchemaError,
    StreamContractError,
    ToolwireError,
)
from toolwire.formats import WIRE_FORMATS, WireFormat
from toolwire.reference._engine import Engine
from toolwire.reference._tools import reference_validators
from toolwire.registry import ServerTool, Tool, ToolRegistry

__all__ = [
    "WIRE_FORMATS",
    "ArgumentsDelta",
    "AsyncEventStream",
    "AsyncToolCallStream",
    "ChoiceResult",
    "Engine",
    "Event",
    "EventStream",
    "Finished",
    "InvalidToolCall",
    "InvalidToolCallError",
    "Limits",
    "MalformedChunkError",
    "OutputItem",
    "Pending",
    "Reassembler",
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
    "aevents",
    "areassemble",
    "events",
    "normalize",
    "reassemble",
    "validate",
    "validate_many",
]


class Reassembler(_Reassembler):
    """``toolwire.Reassembler`` over the reference engine."""

    _engine_factory = Engine
    _compile_tools = staticmethod(reference_validators)


reassemble, areassemble = make_entry_points(Engine, reference_validators)
events, aevents = make_event_entry_points(Engine, reference_validators)
validate, validate_many = make_validators(reference_validators)
normalize = make_normalize(reassemble)
