"""The pure-Python reference implementation of toolstream's reassembly.

Plain, readable Python with no performance tricks and no import of the Rust extension: it states
``docs/semantics.md`` in code, serves as the oracle of the differential tests and as the baseline of the
benchmarks. It exposes the same names as ``toolstream`` with the same behaviour.
"""

from __future__ import annotations

from toolstream._api import AsyncToolCallStream, ToolCallStream, make_entry_points
from toolstream._api import Reassembler as _Reassembler
from toolstream._model import (
    ChoiceResult,
    InvalidToolCall,
    Limits,
    Severity,
    StreamResult,
    ToolCall,
    Violation,
    ViolationCode,
)
from toolstream.errors import InvalidToolCallError, MalformedChunkError, StreamContractError, ToolstreamError
from toolstream.reference._engine import Engine
from toolstream.registry import ServerTool, Tool, ToolRegistry

__all__ = [
    "AsyncToolCallStream",
    "ChoiceResult",
    "Engine",
    "InvalidToolCall",
    "InvalidToolCallError",
    "Limits",
    "MalformedChunkError",
    "Reassembler",
    "ServerTool",
    "Severity",
    "StreamContractError",
    "StreamResult",
    "Tool",
    "ToolCall",
    "ToolCallStream",
    "ToolRegistry",
    "ToolstreamError",
    "Violation",
    "ViolationCode",
    "areassemble",
    "reassemble",
]


class Reassembler(_Reassembler):
    """``toolstream.Reassembler`` over the reference engine."""

    _engine_factory = Engine


reassemble, areassemble = make_entry_points(Engine)
