"""The values toolwire hands to its users: calls, violations, results and limits.

Both the Rust core and the pure-Python reference build these classes, so the two implementations return objects of
the same classes and compare with ``==``. ``Violation``, ``ToolCall``, ``InvalidToolCall``, ``StreamResult``,
``ChoiceResult``, ``OutputItem`` and ``Pending`` are built in Rust (``rust/py/values.rs``) when the compiled extension is there, and
are the frozen dataclasses below when it is not: the reference still runs without the extension,
and the two classes behave alike (fields, ``==``, ``hash``, ``repr``, ``__match_args__``, ``replaced``, pickling).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from toolwire.formats import WireFormat, call_entry, tool_result, turn

__all__ = [
    "VIOLATION_TABLE",
    "ChoiceResult",
    "InvalidToolCall",
    "Limits",
    "OutputItem",
    "Pending",
    "Severity",
    "StreamResult",
    "TextDialect",
    "ToolCall",
    "Violation",
    "ViolationCode",
    "replaced",
    "violation",
]


class Severity(str, enum.Enum):
    """How bad a violation is: ``error`` makes a call invalid, ``warning`` and ``info`` ride along."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class ViolationCode(str, enum.Enum):
    """Every contract violation toolwire reports (design.md's table)."""

    MISSING_INDEX = "MISSING_INDEX"
    INDEX_REUSED = "INDEX_REUSED"
    ID_CHANGED = "ID_CHANGED"
    NAME_CHANGED = "NAME_CHANGED"
    MISSING_ID = "MISSING_ID"
    MISSING_NAME = "MISSING_NAME"
    TYPE_MISSING = "TYPE_MISSING"
    ARGUMENTS_NOT_STRING = "ARGUMENTS_NOT_STRING"
    EMPTY_ARGUMENTS = "EMPTY_ARGUMENTS"
    ARGUMENTS_NOT_OBJECT = "ARGUMENTS_NOT_OBJECT"
    INVALID_JSON = "INVALID_JSON"
    DUPLICATE_KEY = "DUPLICATE_KEY"
    TRAILING_DATA = "TRAILING_DATA"
    TRUNCATED = "TRUNCATED"
    ARGUMENTS_TOO_LARGE = "ARGUMENTS_TOO_LARGE"
    TOO_DEEP = "TOO_DEEP"
    TOO_MANY_CALLS = "TOO_MANY_CALLS"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    MISSING_REQUIRED_ARGUMENT = "MISSING_REQUIRED_ARGUMENT"
    UNEXPECTED_ARGUMENT = "UNEXPECTED_ARGUMENT"
    TYPE_MISMATCH = "TYPE_MISMATCH"
    ENUM_OUT_OF_RANGE = "ENUM_OUT_OF_RANGE"
    CONSTRAINT_VIOLATION = "CONSTRAINT_VIOLATION"
    ARGUMENTS_MISMATCH = "ARGUMENTS_MISMATCH"
    REPAIRED = "REPAIRED"
    FINISH_REASON_MISMATCH = "FINISH_REASON_MISMATCH"
    FINISH_WITHOUT_CALLS = "FINISH_WITHOUT_CALLS"
    MULTIPLE_FINISH_REASONS = "MULTIPLE_FINISH_REASONS"
    NO_FINISH_REASON = "NO_FINISH_REASON"
    STREAM_CUT = "STREAM_CUT"
    TOOL_CHOICE_IGNORED = "TOOL_CHOICE_IGNORED"
    PROVIDER_ERROR = "PROVIDER_ERROR"
    STREAM_SPLICED = "STREAM_SPLICED"
    INVALID_ARGUMENT_PATH = "INVALID_ARGUMENT_PATH"
    UNRECOGNIZED_STREAM = "UNRECOGNIZED_STREAM"
    VIOLATIONS_OMITTED = "VIOLATIONS_OMITTED"
    VALIDATION_BUDGET_EXCEEDED = "VALIDATION_BUDGET_EXCEEDED"
    TEXT_TOO_LARGE = "TEXT_TOO_LARGE"
    TOO_MANY_CHOICES = "TOO_MANY_CHOICES"
    OUTPUT_TOO_LARGE = "OUTPUT_TOO_LARGE"
    MALFORMED_CALL = "MALFORMED_CALL"
    UNTYPED_VALUE = "UNTYPED_VALUE"
    NO_SCHEMA = "NO_SCHEMA"
    MISSING_END_MARKER = "MISSING_END_MARKER"
    MISSING_START_MARKER = "MISSING_START_MARKER"
    ARGUMENTS_AS_STRING = "ARGUMENTS_AS_STRING"
    CALL_IN_TEXT = "CALL_IN_TEXT"
    MARKER_IN_TEXT = "MARKER_IN_TEXT"
    REASONING_CUT = "REASONING_CUT"
    BUILTIN_TOOL = "BUILTIN_TOOL"
    MALFORMED_HEADER = "MALFORMED_HEADER"
    MALFORMED_RESULT = "MALFORMED_RESULT"
    MISSING_STRUCTURED_CONTENT = "MISSING_STRUCTURED_CONTENT"
    WRAPPED_OUTPUT = "WRAPPED_OUTPUT"
    MISSING_OUTPUT = "MISSING_OUTPUT"


#: code -> (level, default severity, recoverable). ``recoverable`` says whether the model can fix the problem on
#: its next turn when told about it (a malformed or truncated call can be resent; a cut stream cannot be "fixed"
#: by the model). The Rust core mirrors this table; a test asserts that both are equal.
VIOLATION_TABLE: dict[ViolationCode, tuple[Literal["call", "stream", "call/stream"], Severity, bool]] = {
    ViolationCode.MISSING_INDEX: ("call", Severity.WARNING, False),
    ViolationCode.INDEX_REUSED: ("call", Severity.INFO, False),
    ViolationCode.ID_CHANGED: ("call", Severity.WARNING, False),
    ViolationCode.NAME_CHANGED: ("call", Severity.ERROR, True),
    ViolationCode.MISSING_ID: ("call", Severity.WARNING, False),
    ViolationCode.MISSING_NAME: ("call", Severity.ERROR, True),
    ViolationCode.TYPE_MISSING: ("call", Severity.INFO, False),
    ViolationCode.ARGUMENTS_NOT_STRING: ("call", Severity.WARNING, False),
    ViolationCode.EMPTY_ARGUMENTS: ("call", Severity.INFO, False),
    ViolationCode.ARGUMENTS_NOT_OBJECT: ("call", Severity.ERROR, True),
    ViolationCode.INVALID_JSON: ("call", Severity.ERROR, True),
    ViolationCode.DUPLICATE_KEY: ("call", Severity.WARNING, True),
    ViolationCode.TRAILING_DATA: ("call/stream", Severity.ERROR, True),
    ViolationCode.TRUNCATED: ("call", Severity.ERROR, True),
    ViolationCode.ARGUMENTS_TOO_LARGE: ("call", Severity.ERROR, True),
    ViolationCode.TOO_DEEP: ("call", Severity.ERROR, True),
    ViolationCode.TOO_MANY_CALLS: ("stream", Severity.ERROR, True),
    ViolationCode.UNKNOWN_TOOL: ("call", Severity.ERROR, True),
    ViolationCode.MISSING_REQUIRED_ARGUMENT: ("call", Severity.ERROR, True),
    ViolationCode.UNEXPECTED_ARGUMENT: ("call", Severity.ERROR, True),
    ViolationCode.TYPE_MISMATCH: ("call", Severity.ERROR, True),
    ViolationCode.ENUM_OUT_OF_RANGE: ("call", Severity.ERROR, True),
    ViolationCode.CONSTRAINT_VIOLATION: ("call", Severity.ERROR, True),
    ViolationCode.ARGUMENTS_MISMATCH: ("call", Severity.WARNING, False),
    ViolationCode.REPAIRED: ("call", Severity.INFO, False),
    ViolationCode.FINISH_REASON_MISMATCH: ("stream", Severity.WARNING, False),
    ViolationCode.FINISH_WITHOUT_CALLS: ("stream", Severity.ERROR, False),
    ViolationCode.MULTIPLE_FINISH_REASONS: ("stream", Severity.WARNING, False),
    ViolationCode.NO_FINISH_REASON: ("stream", Severity.WARNING, False),
    ViolationCode.STREAM_CUT: ("stream", Severity.ERROR, False),
    ViolationCode.TOOL_CHOICE_IGNORED: ("stream", Severity.ERROR, False),
    ViolationCode.PROVIDER_ERROR: ("stream", Severity.ERROR, False),
    ViolationCode.STREAM_SPLICED: ("stream", Severity.ERROR, False),
    ViolationCode.INVALID_ARGUMENT_PATH: ("call", Severity.ERROR, False),
    ViolationCode.UNRECOGNIZED_STREAM: ("stream", Severity.ERROR, False),
    ViolationCode.VIOLATIONS_OMITTED: ("call/stream", Severity.ERROR, False),
    ViolationCode.VALIDATION_BUDGET_EXCEEDED: ("call", Severity.ERROR, False),
    ViolationCode.TEXT_TOO_LARGE: ("stream", Severity.ERROR, False),
    ViolationCode.TOO_MANY_CHOICES: ("stream", Severity.ERROR, False),
    ViolationCode.OUTPUT_TOO_LARGE: ("stream", Severity.ERROR, False),
    ViolationCode.MALFORMED_CALL: ("call", Severity.ERROR, True),
    ViolationCode.UNTYPED_VALUE: ("call", Severity.ERROR, True),
    ViolationCode.NO_SCHEMA: ("call", Severity.WARNING, False),
    ViolationCode.MISSING_END_MARKER: ("call/stream", Severity.WARNING, False),
    ViolationCode.MISSING_START_MARKER: ("call", Severity.WARNING, False),
    ViolationCode.ARGUMENTS_AS_STRING: ("call", Severity.WARNING, False),
    ViolationCode.CALL_IN_TEXT: ("call", Severity.INFO, False),
    ViolationCode.MARKER_IN_TEXT: ("stream", Severity.INFO, False),
    ViolationCode.REASONING_CUT: ("stream", Severity.WARNING, False),
    ViolationCode.BUILTIN_TOOL: ("stream", Severity.WARNING, False),
    ViolationCode.MALFORMED_HEADER: ("stream", Severity.WARNING, False),
    ViolationCode.MALFORMED_RESULT: ("call", Severity.ERROR, False),
    ViolationCode.MISSING_STRUCTURED_CONTENT: ("call", Severity.ERROR, False),
    ViolationCode.WRAPPED_OUTPUT: ("stream", Severity.ERROR, True),
    ViolationCode.MISSING_OUTPUT: ("stream", Severity.ERROR, True),
}


@dataclass(frozen=True, slots=True)
class _Violation:
    """One contract violation, as data (never an exception).

    Attributes:
        code: What went wrong.
        message: A sentence for humans; differential tests never compare it.
        severity: ``error`` makes the call (or the stream) invalid; ``warning`` and ``info`` ride along.
        choice: The choice it concerns (0 unless the request asked for several).
        seq: The call it concerns, by opening order in the stream; None for stream-wide findings.
        index: The provider's ``index`` of that call as sent, when it sent one.
        path: JSON pointer inside the arguments (``/items/0/qty``) for argument-level findings.
        offset: Byte offset inside the call's arguments text for parse findings.
        recoverable: Whether the model can fix it on its next turn if told.
        data: The payload that must not be lost: a provider error event; for ``TRAILING_DATA`` on a call that was
            over, ``{"text", "bytes", "fragments"}``; what a finding names or counts (see docs/semantics.md).
    """

    code: ViolationCode
    message: str
    severity: Severity
    choice: int | None = None
    seq: int | None = None
    index: int | None = None
    path: str | None = None
    offset: int | None = None
    recoverable: bool = False
    data: Any = None

    def key(self) -> tuple[str, str, int | None, int | None, str | None]:
        """The identity differential tests compare: (code, severity, choice, seq, path)."""
        return (self.code.value, self.severity.value, self.choice, self.seq, self.path)

    def __str__(self) -> str:
        """One line: ``CODE at /pointer: message``, or ``CODE: message`` for a finding without a pointer."""
        message = str(self.message).replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
        if self.path is None:
            return f"{self.code.value}: {message}"
        return f"{self.code.value} at {self.path}: {message}"

    def __replace__(self, **changes: Any) -> _Violation:
        """A copy with the fields named in ``changes`` replaced (``copy.replace``, as Python 3.13 adds it)."""
        return dataclasses.replace(self, **changes)


# Its repr and pickling name it as users know it: this module's ``Violation`` it is when the extension is missing.
_Violation.__name__ = _Violation.__qualname__ = "Violation"

if TYPE_CHECKING:
    from toolwire._core import Violation
else:
    try:
        from toolwire._core import Violation  # built in Rust (see the module's docstring)
    except ImportError:  # no compiled extension
        Violation = _Violation

_Value = TypeVar("_Value")


def violation(
    code: ViolationCode,
    message: str,
    *,
    severity: Severity | None = None,
    choice: int | None = None,
    seq: int | None = None,
    index: int | None = None,
    path: str | None = None,
    offset: int | None = None,
    data: Any = None,
) -> Violation:
    """A violation with its code's severity (unless ``severity`` overrides it) and recoverability from the table."""
    _, default_severity, recoverable = VIOLATION_TABLE[code]
    return Violation(code, message, severity or default_severity, choice, seq, index, path, offset, recoverable, data)


def replaced(value: _Value, **changes: Any) -> _Value:
    """A copy of a value of this module with the fields named in ``changes`` replaced, whichever class built it.

    ``dataclasses.replace`` reads a dataclass's fields, which a class built in Rust has not; ``copy.replace`` is
    Python 3.13's. Both classes of a value have ``__replace__``.
    """
    replace: Any = getattr(value, "__replace__")  # noqa: B009 - typed as Any: a dataclass's is added on 3.13 only
    made: _Value = replace(**changes)
    return made


class _NoExtra(Mapping[str, Any]):
    """The ``extra`` of a call that has none: an empty, read-only mapping that pickles as this module's one instance.

    A ``MappingProxyType`` is read-only too, but cannot be pickled, and neither could a call holding one.
    """

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"

    def __reduce__(self) -> str:
        return "_NO_EXTRA"


#: The ``extra`` of a call that has none: one shared, read-only mapping.
_NO_EXTRA: Mapping[str, Any] = _NoExtra()


def _no_extra() -> Mapping[str, Any]:
    return _NO_EXTRA


@dataclass(frozen=True, slots=True)
class _ToolCall:
    """A whole, valid tool call, ready to dispatch.

    Attributes:
        id: The provider's call id, or a generated ``ts_<choice>_<seq>`` (with ``MISSING_ID``) when none came.
        name: The tool name, taken on first arrival.
        arguments: The parsed arguments, exactly the value that was checked; ``{}`` for a custom tool call (its
            input is ``input``).
        arguments_json: The exact concatenated arguments text (the canonical text when an object was sent); None
            for a custom tool call, whose input is free text, not JSON.
        seq: Position of the call in the order calls were opened in this stream.
        index: The provider's ``index`` as sent, or None.
        choice: The choice the call belongs to.
        violations: Warnings and infos found on the way (errors would have made it an ``InvalidToolCall``).
        tool_fingerprint: The fingerprint of the tool definition the arguments were validated against (see
            ``Tool.fingerprint``), so logs can say which schema version accepted the call; None when no tools
            were given or the name is a server tool's.
        extra: Provider fields the next request needs back, as sent: Responses ``item_id``, Gemini
            ``thought_signature``, Anthropic ``caller``. Empty for most calls.
        input: A custom tool call's input text (OpenAI Responses ``custom_tool_call``: free text, never parsed or
            validated), exactly as it arrived; None for a function call.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_json: str | None
    seq: int
    index: int | None
    choice: int
    violations: tuple[Violation, ...] = ()
    tool_fingerprint: str | None = None
    extra: Mapping[str, Any] = field(default_factory=_no_extra)
    input: str | None = None

    @property
    def ok(self) -> Literal[True]:
        """Always True: a ``ToolCall`` is valid by construction."""
        return True

    def __replace__(self, **changes: Any) -> _ToolCall:
        """A copy with the fields named in ``changes`` replaced (``copy.replace``, as Python 3.13 adds it)."""
        return dataclasses.replace(self, **changes)

    def to_history(self, format: WireFormat) -> dict[str, Any]:
        """This call as the assistant side of a conversation records it, its id echoed exactly.

        Args:
            format: ``"openai-chat"`` (a ``tool_calls`` entry; a custom tool call's is ``{"type": "custom"}``),
                ``"openai-responses"`` (a ``function_call`` item, or a ``custom_tool_call`` item with its ``input``;
                with its ``item_id`` as ``id``), ``"anthropic-messages"`` (a ``tool_use`` block, with its ``caller``),
                ``"gemini"`` (a ``functionCall`` part, with its ``thoughtSignature``), ``"ollama"`` (a
                ``tool_calls`` entry) or ``"bedrock-converse"`` (a ``toolUse`` content block).

        Returns:
            The entry; ``StreamResult.to_history`` builds the whole assistant turn from these.

        Raises:
            ValueError: ``"openai-completions"``, whose requests carry a prompt with no shape for a call (the model's
                chat template writes it in the model's dialect), or an unknown format.
        """
        return call_entry(self, format)


@dataclass(frozen=True, slots=True)
class _InvalidToolCall:
    """A tool call that must not be dispatched; it still carries everything that arrived for it.

    Attributes:
        id: The provider's call id, or a generated one, so that a tool result can still answer it.
        name: The tool name, or None when none arrived.
        arguments: The parsed arguments when the text was a complete JSON value, else None (always for a custom
            tool call).
        arguments_json: The arguments text received (up to the size limit); None for a custom tool call.
        seq: Position of the call in the order calls were opened in this stream.
        index: The provider's ``index`` as sent, or None.
        choice: The choice the call belongs to.
        errors: The error-severity violations that make it invalid (at least one).
        violations: Its warnings and infos.
        tool_fingerprint: The fingerprint of the declared tool its arguments were checked against, or None (no
            tools given, unknown or missing name, server tool).
        extra: Provider fields the next request needs back (see ``ToolCall.extra``).
        input: A custom tool call's input text as received (see ``ToolCall.input``); None for a function call.
    """

    id: str
    name: str | None
    arguments: Any
    arguments_json: str | None
    seq: int
    index: int | None
    choice: int
    errors: tuple[Violation, ...]
    violations: tuple[Violation, ...] = ()
    tool_fingerprint: str | None = None
    extra: Mapping[str, Any] = field(default_factory=_no_extra)
    input: str | None = None

    @property
    def ok(self) -> Literal[False]:
        """Always False."""
        return False

    def __replace__(self, **changes: Any) -> _InvalidToolCall:
        """A copy with the fields named in ``changes`` replaced (``copy.replace``, as Python 3.13 adds it)."""
        return dataclasses.replace(self, **changes)

    def to_history(self, format: WireFormat) -> dict[str, Any]:
        """This call as the assistant side of a conversation records it (see ``ToolCall.to_history``).

        An invalid call is part of the turn too: its tool result (``to_tool_result``) must answer a call the provider
        knows. Its arguments text is replayed as received (``{}`` when none came); Anthropic's ``input``, which must
        be an object, is ``{}`` when the text was no object.
        """
        return call_entry(self, format)

    def to_tool_result(self, format: WireFormat) -> dict[str, Any]:
        """The tool-result message that tells the model what was wrong, so it can try again on its next turn.

        The content is compact JSON: ``{"error": "invalid_tool_call", "tool", "problems": [{"code", "path",
        "message", and what is allowed there: "expected" types, "allowed" values, or "keyword" and "limit"}],
        "available_tools" (for an unknown tool), "instruction"}``, with at most 20 problems (``more_problems``
        counts the rest).

        Args:
            format: ``"openai-chat"`` (a ``role: "tool"`` message with ``tool_call_id``), ``"openai-responses"``
                (a ``function_call_output`` item with ``call_id``; ``custom_tool_call_output`` for a custom tool
                call), ``"anthropic-messages"`` (a ``tool_result``
                content block with ``tool_use_id`` and ``is_error: true``), ``"gemini"`` (a ``functionResponse`` part
                whose ``response`` is ``{"error": payload}``), ``"ollama"`` (a ``role: "tool"`` message with
                ``tool_name``) or ``"bedrock-converse"`` (a ``toolResult`` block with ``status: "error"`` and the
                payload as ``json`` content). The call's id is echoed exactly.

        Returns:
            A dict ready to append to the next request (the Anthropic and Bedrock blocks go in a ``user`` message's
            content, the Gemini part in a ``user`` content's parts).

        Raises:
            ValueError: ``"openai-completions"``, whose requests have no message to answer a call with, or an unknown
                format.
        """
        return tool_result(self, format)


@dataclass(frozen=True, slots=True)
class _ChoiceResult:
    """What one choice of the response brought besides its calls.

    Attributes:
        choice: The choice index.
        text: Its concatenated content text.
        finish_reason: Its first non-null finish reason, or None.
        refusal: What it said when it refused (OpenAI ``refusal`` deltas), concatenated; None when it did not.
    """

    choice: int
    text: str
    finish_reason: str | None
    refusal: str | None = None


@dataclass(frozen=True, slots=True)
class _Pending:
    """A value of a snapshot that is still arriving, never shown as final (``{"n": 12`` is not ``{"n": 12}``).

    Attributes:
        kind: ``"string"``, ``"number"`` or ``"literal"`` (``true``, ``false``, ``null`` being spelled), or
            ``"value"`` for a member whose key arrived and whose value has not started.
        text: What arrived so far: a string's decoded text (an escape still arriving left out), a number's or a
            literal's characters.
    """

    kind: Literal["string", "number", "literal", "value"]
    text: str

    def __replace__(self, **changes: Any) -> _Pending:
        """A copy with the fields named in ``changes`` replaced (``copy.replace``, as Python 3.13 adds it)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class _OutputItem:
    """A piece of the assistant turn that is not a client tool call, kept for the next request.

    Anthropic content blocks (text, thinking with its signature, redacted thinking, server tool use and results),
    Responses output items (message, reasoning, built-in tool calls and their outputs), Gemini parts other than
    calls, Bedrock reasoning blocks: each as the provider's own JSON shape, completed from its deltas.

    Attributes:
        after_calls: How many calls of the stream were opened before it, which places it among them.
        value: The block, item or part, as the provider's JSON object.
    """

    after_calls: int
    value: dict[str, Any]


#: Output types that are calls the provider ran itself (never validated, never handed over).
SERVER_CALL_TYPES: frozenset[str] = frozenset({"server_tool_use", "mcp_tool_use"})
#: Gemini parts that are calls of its built-in tools (code execution, search, file search).
GEMINI_SERVER_CALL_PARTS: frozenset[str] = frozenset({"executableCode", "toolCall"})


def _is_server_call(value: dict[str, Any]) -> bool:
    kind = value.get("type")
    if kind in SERVER_CALL_TYPES or (isinstance(kind, str) and kind.endswith("_call") and kind != "function_call"):
        return True
    tool_use = value.get("toolUse")
    if isinstance(tool_use, dict) and tool_use.get("type") == "server_tool_use":
        return True
    return any(value.get(part) is not None for part in GEMINI_SERVER_CALL_PARTS)


@dataclass(frozen=True, slots=True)
class _StreamResult:
    """Everything a stream brought, settled once it has ended.

    Attributes:
        calls: The valid calls, ordered by (choice, seq).
        invalid_calls: The invalid calls, ordered by (choice, seq).
        finish_reason: The first non-null finish reason of choice 0 (or of the lowest choice seen).
        usage: The last usage payload the stream carried, as sent.
        text: The content text of that same choice.
        violations: Stream-level findings.
        choices: Text and finish reason of every choice seen.
        output: The turn's other pieces in order (see ``OutputItem``): thinking, reasoning, server tool calls.
        format: The wire format the stream was read as (named or detected), or None when nothing told it.
        refusal: What that same choice said when it refused (OpenAI ``refusal`` deltas), or None.
    """

    calls: tuple[ToolCall, ...] = ()
    invalid_calls: tuple[InvalidToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Any = None
    text: str = ""
    violations: tuple[Violation, ...] = ()
    choices: tuple[ChoiceResult, ...] = field(default=())
    output: tuple[OutputItem, ...] = ()
    format: str | None = None
    refusal: str | None = None

    def __replace__(self, **changes: Any) -> _StreamResult:
        """A copy with the fields named in ``changes`` replaced (``copy.replace``, as Python 3.13 adds it)."""
        return dataclasses.replace(self, **changes)

    @property
    def server_calls(self) -> tuple[dict[str, Any], ...]:
        """The calls the provider ran itself, as sent (their results, kept in ``output`` too, are not calls).

        Anthropic ``server_tool_use``/``mcp_tool_use`` blocks, Responses built-in tool call items
        (``web_search_call``, ``tool_search_call``, a ``custom_tool_call`` the provider ran, ...), Bedrock ``toolUse``
        blocks of type ``server_tool_use``, Gemini ``executableCode`` and ``toolCall`` parts.
        """
        return server_calls(self)

    def to_history(self, format: WireFormat) -> Any:
        """The assistant turn of the first choice, ready to append to the next request, ids echoed exactly.

        Every call of that choice, valid or invalid, in the order the model opened them, with the choice's text and,
        when ``format`` is the stream's own, every other piece of the turn in its place (``output``: Anthropic
        thinking blocks with their signatures and server tool blocks, Responses reasoning and message items, Gemini
        thought parts): what the provider needs back to accept the next request.

        Args:
            format: ``"openai-chat"`` (one ``role: "assistant"`` message with ``content`` and ``tool_calls``),
                ``"openai-responses"`` (a list of input items), ``"anthropic-messages"`` (one assistant message of
                content blocks), ``"gemini"`` (one ``role: "model"`` content of parts), ``"ollama"`` (one assistant
                message with ``tool_calls``) or ``"bedrock-converse"`` (one assistant message of content blocks).

        Returns:
            The message (a list of items for Responses; the text for ``"openai-completions"``, whose turn is its text).

        Raises:
            ValueError: ``"openai-completions"`` for a turn with calls (see ``ToolCall.to_history``), or an unknown
                format.
        """
        return turn(self, format)

    @property
    def ok(self) -> bool:
        """True when no call is invalid and no stream-level violation is an error."""
        return not self.invalid_calls and all(v.severity is not Severity.ERROR for v in self.violations)


def server_calls(result: StreamResult | _StreamResult) -> tuple[dict[str, Any], ...]:
    """``StreamResult.server_calls``, for either class of a result."""
    return tuple(item.value for item in result.output if _is_server_call(item.value))


# Their reprs and pickling name them as users know them: this module's classes they are without the extension.
_FALLBACKS = (_ToolCall, _InvalidToolCall, _ChoiceResult, _OutputItem, _StreamResult, _Pending)
for _fallback in _FALLBACKS:
    _fallback.__name__ = _fallback.__qualname__ = _fallback.__name__.removeprefix("_")

if TYPE_CHECKING:
    from toolwire._core import ChoiceResult, InvalidToolCall, OutputItem, Pending, StreamResult, ToolCall
else:
    try:  # built in Rust (see the module's docstring)
        from toolwire._core import ChoiceResult, InvalidToolCall, OutputItem, Pending, StreamResult, ToolCall
    except ImportError:  # no compiled extension
        ToolCall, InvalidToolCall, ChoiceResult, OutputItem, StreamResult, Pending = _FALLBACKS


#: jiter (which builds the Python objects in the core) refuses nesting deeper than this.
MAX_SUPPORTED_DEPTH = 200


@dataclass(frozen=True, slots=True)
class TextDialect:
    """The dialect a model writes its tool calls in, when they are in its text (``dialect=``).

    ``dialect="hermes"`` is ``TextDialect("hermes")``.

    Attributes:
        name: One of ``toolwire.DIALECTS``: the name servers give the model family's parser
            (``--tool-call-parser``), such as ``hermes``, ``qwen3_coder`` or ``harmony``.
        reasoning: The prompt opened the model's reasoning (a generation prompt ending with ``<think>``, as
            Qwen3's and DeepSeek-R1's thinking templates do), so that the text starts inside it.
    """

    name: str
    reasoning: bool = False


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that keep memory and time finite on hostile or broken streams.

    Going past a limit is a violation, never a crash: on the call concerned, which becomes invalid, or on the stream's
    result (which is then not ok) for what it keeps besides its calls. What comes past a limit is counted, not kept,
    and the stream goes on. The defaults are far above what any provider sends (docs/semantics.md, "What a stream
    keeps besides its calls", gives the figures); what a stream holds is bounded by its limits together.

    Attributes:
        max_argument_bytes: Bytes of arguments text kept per call (default 8 MiB). Past it the call is
            ``ARGUMENTS_TOO_LARGE``; its further bytes are scanned, not stored.
        max_depth: Nesting of arrays and objects in the arguments, the top-level object counting as 1 (default
            128, at most 200). Deeper is ``TOO_DEEP``.
        max_calls: Calls per stream (default 256). Calls opened past it are refused: nothing of them is kept or
            handed over, and the stream's one ``TOO_MANY_CALLS`` counts their fragments.
        max_violations: Violations kept per call, and for the stream itself (default 1000). Past it they are
            counted, not kept: the list's last one, ``VIOLATIONS_OMITTED`` (an error), says how many were left out.
        max_event_bytes: Bytes of one event of a raw body — a server-sent event (or a line of one), a JSON element,
            an AWS event-stream message — and of the items a raw source opens with while they cannot yet tell reads
            from lines (default 32 MiB, room for a whole call at ``max_argument_bytes`` with its escapes), checked as
            the bytes arrive. More is a ``MalformedChunkError``: the body is not the stream it was taken for.
        max_validation_steps: Steps a search for the problems of invalid arguments may take (default 100 000),
            counted before it starts as one per (subschema, value) pair reachable through every applicator (each
            branch of an ``anyOf``, both ``then`` and ``else``, ...), so that nested unions cannot make it explode.
            A call whose search would take more is invalid with one ``VALIDATION_BUDGET_EXCEEDED``; whether a call
            is valid is decided in any case.
        max_text_bytes: Bytes of content text kept per choice, as UTF-8 (default 32 MiB: some sixty times the text of a
            model's longest answer). The piece of text that would take a choice past it, and every piece after, is counted,
            not kept: the choice's ``TEXT_TOO_LARGE``.
        max_choices: Choices per stream (default 128, the largest ``n`` OpenAI accepts). The entries of a choice
            past it (a chunk's ``choices`` item, a Gemini candidate) are not read, only counted:
            ``TOO_MANY_CHOICES``.
        max_output_bytes: What ``StreamResult.output`` keeps (default 64 MiB): each item, and each value a delta adds
            whole to one (a citation, a result's content item), counts 256 bytes of bookkeeping and its JSON text
            written compactly; each piece of text a delta adds, its UTF-8 bytes. What would take the output past it,
            and everything after, is counted, not kept: ``OUTPUT_TOO_LARGE``.
    """

    max_argument_bytes: int = 8 * 1024 * 1024
    max_depth: int = 128
    max_calls: int = 256
    max_violations: int = 1000
    max_event_bytes: int = 32 * 1024 * 1024
    max_validation_steps: int = 100_000
    max_text_bytes: int = 32 * 1024 * 1024
    max_choices: int = 128
    max_output_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        """Reject limits that could not be enforced."""
        for name in (
            "max_argument_bytes",
            "max_depth",
            "max_calls",
            "max_violations",
            "max_event_bytes",
            "max_validation_steps",
            "max_text_bytes",
            "max_choices",
            "max_output_bytes",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Limits.{name} must be an int, got {type(value).__name__}")
            if value < 1:
                raise ValueError(f"Limits.{name} must be at least 1, got {value}")
        if self.max_depth > MAX_SUPPORTED_DEPTH:
            raise ValueError(f"Limits.max_depth must be at most {MAX_SUPPORTED_DEPTH}, got {self.max_depth}")
        if self.max_validation_steps >= 2**64:
            raise ValueError(f"Limits.max_validation_steps must be below 2**64, got {self.max_validation_steps}")
