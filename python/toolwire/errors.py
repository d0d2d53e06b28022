"""The one exception hierarchy of toolwire, shared by the Rust core and the pure-Python reference.

Both implementations raise exactly these classes, so differential tests compare outcomes with ``==``.
Subclasses also inherit the builtin they refine, so ``except ValueError`` keeps working for callers who do
not know toolwire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire._model import InvalidToolCall, StreamResult, ToolCall, Violation

__all__ = [
    "CallLogWriteError",
    "InvalidToolCallError",
    "MalformedChunkError",
    "McpServerError",
    "SchemaError",
    "StreamContractError",
    "ToolwireError",
]


class ToolwireError(Exception):
    """Base class of every error toolwire raises on purpose."""


class InvalidToolCallError(ToolwireError, ValueError):
    """An invalid tool call was about to be handed over under ``on_invalid="raise"``.

    Agent loops that must answer every call id use ``on_invalid="yield"`` instead and send
    ``call.to_tool_result(...)`` back to the model.

    Attributes:
        call: The invalid call, with its identity and the arguments text received.
        violations: The call's error-severity violations (``call.errors``).
        result: The stream's result as far as it had been read when the error was raised.
        ready: Valid calls handed over in the same step before this one, which the caller has not received yet
            (``Reassembler.feed``/``finish`` return lists; iteration yields them before raising).
    """

    def __init__(
        self, call: InvalidToolCall, result: StreamResult, ready: tuple[ToolCall | InvalidToolCall, ...] = ()
    ) -> None:
        """Build the error from the call, the stream result so far and the calls of the same step before it."""
        self.call = call
        self.violations: tuple[Violation, ...] = call.errors
        self.result = result
        self.ready = ready
        reasons = "; ".join(map(str, call.errors))
        super().__init__(f"invalid tool call seq={call.seq} id={call.id!r} name={call.name!r}: {reasons}")


class StreamContractError(ToolwireError, ValueError):
    """The stream ended with error-severity stream-level violations (cut, provider error, ignored tool_choice...).

    Raised at the end of iteration under ``on_invalid="raise"``; with ``on_invalid="yield"`` the same findings are
    on ``StreamResult.violations``.

    Attributes:
        result: The complete stream result.
        violations: The error-severity stream-level violations.
    """

    def __init__(self, result: StreamResult, violations: tuple[Violation, ...]) -> None:
        """Build the error from the finished result and its error-severity stream violations."""
        self.result = result
        self.violations = violations
        reasons = "; ".join(map(str, violations))
        super().__init__(f"stream broke its contract: {reasons}")


class MalformedChunkError(ToolwireError, TypeError):
    """A chunk does not have the shape of its wire format (not a mapping, a field of the wrong type...).

    Attributes:
        chunk_number: Position of the offending chunk in the stream, from 0.
        path: Where in the chunk, e.g. ``choices[0].delta.tool_calls[1].index``.
        problem: What is wrong there.
        result: The stream's result as far as it had been read when the error was raised: every call handed over
            before the chunk, and those the chunk handed over before its malformed field (None when raised outside a
            stream).
    """

    def __init__(self, chunk_number: int, path: str, problem: str) -> None:
        """Build the error naming the chunk, the field and what is wrong with it."""
        self.chunk_number = chunk_number
        self.path = path
        self.problem = problem
        self.result: StreamResult | None = None
        where = f" at {path}" if path else ""
        super().__init__(f"chunk {chunk_number}{where}: {problem}")


class SchemaError(ToolwireError, ValueError):
    """A tool's schema cannot be compiled.

    Its parameters: raised when the ``ToolRegistry`` is built. Its MCP ``outputSchema``: raised by the first
    ``validate_result`` that needs it. The schema of a structured output (``stream_object``, ``tool`` empty, ``schema``
    ``"output"``): raised when the stream is made.

    Attributes:
        tool: The tool whose schema fails (empty for a structured output's).
        pointer: JSON pointer of the failing part inside that schema (``""`` for the whole schema).
        problem: What is wrong.
        schema: Which schema: a tool's ``"parameters"`` or ``"outputSchema"``, or a structured ``"output"``.
    """

    def __init__(self, tool: str, pointer: str, problem: str, schema: str = "parameters") -> None:
        """Build the error naming the tool, which of its schemas, where in it, and the problem."""
        self.tool = tool
        self.pointer = pointer
        self.problem = problem
        self.schema = schema
        at = f"at {pointer}" if pointer else "at the root"
        whose = f" of tool {tool!r}" if tool else ""
        super().__init__(f"the {schema} schema{whose} is invalid {at}: {problem}")


class CallLogWriteError(ToolwireError, OSError):
    """Records of a ``CallLog`` were not written (the disk is full, the file system failed).

    Raised by the ``record``, ``flush`` or ``close`` call whose write failed; the records it names are not in the file
    (a line cut short by the failure is ended at the next write, so that replay reports it as unreadable and it
    never swallows the next record). The log stays open and records on.

    Attributes:
        path: The log file.
        records: The records not written, as ``record`` returned them (earlier ones gathered under ``buffer_bytes``
            included): record them again once the cause is gone.
        synced: False when the records were written but ``fsync`` (``fsync=True``) failed: they may be in the file.
        errno: The operating system's error number (``errno.ENOSPC`` for a full disk).
    """

    def __init__(self, path: str, records: tuple[dict[str, Any], ...], error: OSError, *, synced: bool = True) -> None:
        """Build the error from the log file, the records concerned and the operating system's error."""
        self.path = path
        self.records = records
        self.synced = synced
        count = f"{len(records)} record{'s' if len(records) != 1 else ''}"
        cause = error.strerror or str(error)
        if synced:
            message = f"CallLog {path}: {count} not written ({cause}); free the disk, then record them again"
        else:
            message = f"CallLog {path}: {count} written but not synced to disk ({cause}); a crash may lose them"
        super().__init__(error.errno, message)


class McpServerError(ToolwireError, ConnectionError):
    """An MCP server did not give its tools.

    It could not be started or reached, it failed or broke the protocol, or it did not finish listing them in time.

    Attributes:
        server: The server as given (``mcp+stdio:COMMAND ARGS...``, ``mcp+http://...``).
    """

    def __init__(self, server: str, problem: str) -> None:
        """Build the error from the server and what went wrong (one line, with the fix when there is one)."""
        self.server = server
        super().__init__(f"{server}: {problem}")
