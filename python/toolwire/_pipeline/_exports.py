"""The names ``toolwire`` and ``toolwire.reference`` both export, listed once.

Each package star-imports them and adds what is its own: the entry points bound to its implementation
(``toolwire._pipeline._api``), its ``Reassembler`` (``toolwire._pipeline._reassembler``), and, for ``toolwire``, the call log, schema
histories and migrations, Arrow batches and the version; for ``toolwire.reference``, its ``Engine``.
"""

from __future__ import annotations

from toolwire._model import (
    ChoiceResult,
    InvalidToolCall,
    Limits,
    OutputItem,
    Pending,
    Severity,
    StreamResult,
    TextDialect,
    ToolCall,
    Violation,
    ViolationCode,
)
from toolwire._pipeline._choice import ToolChoiceLike
from toolwire._pipeline._objects import (
    AsyncObjectStream,
    ObjectElement,
    ObjectEvent,
    ObjectResult,
    ObjectSnapshot,
    ObjectStream,
    SchemaLike,
)
from toolwire._pipeline._progress import (
    ArgumentsDelta,
    AsyncEventStream,
    Event,
    EventStream,
    Finished,
    TextDelta,
    ToolCallInvalid,
    ToolCallReady,
    ToolCallStarted,
)
from toolwire._pipeline._protocol import Emit, OnInvalid
from toolwire._pipeline._sources import AsyncSource, Source
from toolwire._pipeline._streams import AsyncToolCallStream, ToolCallStream
from toolwire.errors import (
    InvalidToolCallError,
    MalformedChunkError,
    SchemaError,
    StreamContractError,
    ToolwireError,
)
from toolwire.formats import WIRE_FORMATS, WireFormat
from toolwire.registry import ServerTool, Tool, ToolRegistry, ToolsLike

# A tuple, so that a package's ``__all__ += (...)`` makes its own list and leaves this one as it is.
__all__: tuple[str, ...] = (
    "WIRE_FORMATS",
    "ArgumentsDelta",
    "AsyncEventStream",
    "AsyncObjectStream",
    "AsyncSource",
    "AsyncToolCallStream",
    "ChoiceResult",
    "Emit",
    "Event",
    "EventStream",
    "Finished",
    "InvalidToolCall",
    "InvalidToolCallError",
    "Limits",
    "MalformedChunkError",
    "ObjectElement",
    "ObjectEvent",
    "ObjectResult",
    "ObjectSnapshot",
    "ObjectStream",
    "OnInvalid",
    "OutputItem",
    "Pending",
    "SchemaError",
    "SchemaLike",
    "ServerTool",
    "Severity",
    "Source",
    "StreamContractError",
    "StreamResult",
    "TextDelta",
    "TextDialect",
    "Tool",
    "ToolCall",
    "ToolCallInvalid",
    "ToolCallReady",
    "ToolCallStarted",
    "ToolCallStream",
    "ToolChoiceLike",
    "ToolRegistry",
    "ToolsLike",
    "ToolwireError",
    "Violation",
    "ViolationCode",
    "WireFormat",
)
