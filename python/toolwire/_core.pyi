"""The Rust extension behind toolwire (hand-written stub with the docstrings of the Rust objects)."""

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias, final

from typing_extensions import Self  # typing's from Python 3.11

from toolwire._model import Limits, Severity, TextDialect, ViolationCode
from toolwire._pipeline._choice import ToolChoice
from toolwire.formats import WireFormat

__all__ = [
    "DIALECT_NAMES",
    "ArgumentsDelta",
    "CallLogReader",
    "ChoiceResult",
    "DialectParser",
    "Engine",
    "Finished",
    "InvalidToolCall",
    "OutputItem",
    "Pending",
    "StreamResult",
    "TextDelta",
    "ToolCall",
    "ToolCallInvalid",
    "ToolCallReady",
    "ToolCallStarted",
    "ToolValidators",
    "ValueReader",
    "Violation",
    "__version__",
    "dialect_findings",
    "frame",
    "frame_body",
    "framing_of",
    "scan",
    "schema_problems",
    "violation_table",
]

__version__: Final[str]

#: Every text dialect the core parses, by the name servers give it, in the core's table order.
DIALECT_NAMES: Final[tuple[str, ...]]

#: An event of a ``DialectParser``: ``("text", s)``, ``("reasoning", s)``, ``("call", index, name, arguments, id,
#: whole, valid)`` or ``("finding", code, message, call)``.
_DialectEvent: TypeAlias = (
    tuple[Literal["text"], str]
    | tuple[Literal["reasoning"], str]
    | tuple[Literal["call"], int, str | None, str, str | None, bool, bool]
    | tuple[Literal["finding"], str, str, int | None]
)

@final
class DialectParser:
    """The core's parser of one text dialect: text deltas in, events out, the reference's events exactly."""

    def __new__(
        cls,
        dialect: str,
        tools: dict[str, Any] | None = None,
        *,
        reasoning: bool = False,
        max_argument_bytes: int | None = None,
        max_depth: int | None = None,
    ) -> DialectParser:
        """A parser of ``dialect`` at the start of a model's text.

        Args:
            dialect: One of ``DIALECT_NAMES``.
            tools: Each tool's parameters schema, by name: what types raw values.
            reasoning: The prompt opened reasoning, so the text starts inside it.
            max_argument_bytes: ``Limits.max_argument_bytes`` (its default when None).
            max_depth: ``Limits.max_depth`` (its default when None).

        Raises:
            ValueError: ``dialect`` is not one of ``DIALECT_NAMES`` (the message names them).
        """

    def feed(self, delta: str) -> list[_DialectEvent]:
        """The events ``delta`` completes.

        Raises:
            ValueError: The parser was finished.
        """

    def finish(self) -> list[_DialectEvent]:
        """The events the end of the stream completes; the parser takes nothing more.

        Raises:
            ValueError: The parser was finished.
        """

def dialect_findings() -> list[tuple[str, str, str]]:
    """``(code, severity, meaning)`` for every finding a dialect parser reports, in order."""
@final
class Engine:
    """Reassembles one stream; the engine behind ``toolwire.reassemble`` (driven by ``toolwire._pipeline._streams``).

    A stream object is single-consumer: using one engine from two threads at once raises ``RuntimeError``.
    """

    def __new__(
        cls,
        *,
        tool_choice: ToolChoice,
        emit: str,
        limits: Limits,
        on_violation: Callable[[Violation], object] | None = None,
        validators: ToolValidators | None = None,
        format: str | None = None,
        progress: bool = False,
        dialect: TextDialect | None = None,
    ) -> Engine: ...
    @property
    def text_deltas(self) -> bool:
        """A ``str`` chunk is a delta of the model's text (``dialect`` without ``format``), not a raw body's."""
    def take_progress(self) -> list[tuple[Any, ...]]:
        """The stream's progress since the last take (with ``progress``), in order.

        ``("text", choice, text)``, ``("started", seq, choice, index, id, name)``, ``("arguments", seq, choice,
        fragment)``, ``("ready", call)``.
        """
    def snapshot(self, seq: int) -> Any:
        """The arguments of call ``seq`` as they stand (with ``progress``; see ``toolwire.Pending``)."""
    def feed(self, chunk: Any) -> list[ToolCall | InvalidToolCall]:
        """Read one chunk; return the calls it made ready (after those an exception kept an earlier step from returning).

        Raises:
            toolwire.MalformedChunkError: the chunk does not have the shape of its wire format.
            ValueError: the stream has already ended.
        """
    def pull(self, chunks: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """Read chunks in Rust until at least one call is ready; None once ``chunks`` is exhausted."""
    def feed_bytes(self, data: bytes | bytearray | memoryview) -> list[ToolCall | InvalidToolCall]:
        """Read a raw body's next bytes (split anywhere); return the calls they made ready.

        Raises:
            toolwire.MalformedChunkError: the body is of no framing toolwire reads or breaks its framing, an
                event's data is not a JSON event of its wire format, or an event is larger than
                ``Limits.max_event_bytes``.
        """
    def feed_item(self, item: bytes | bytearray | memoryview | str) -> list[ToolCall | InvalidToolCall] | None:
        """Read one item of a raw source (a read or a line, as the stream tells); return the calls it made ready.

        None when it made none ready (an engine made with ``progress`` returns a list every time).

        Raises:
            toolwire.MalformedChunkError: as ``feed_bytes``.
            TypeError: the item is neither bytes nor text.
        """
    def pull_items(self, items: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """``pull`` over the items of a raw source (bytes or text); None once ``items`` is exhausted."""
    def end(self) -> list[ToolCall | InvalidToolCall]:
        """End the stream; return the calls that only the end made ready.

        After an exception, calling it again finishes what is left of the end and returns the calls no step returned.
        """
    def result(self) -> StreamResult:
        """The result so far (final after ``end``): every call handed over, whatever exception came in between.

        The calls are built again from the core's records the first time (equal to the calls handed over), the same
        objects every time after.
        """
    def has_stream_errors(self) -> bool:
        """Whether the stream made a finding of error severity of its own (not on a call), known without a result."""
    def amend(self, call: ToolCall | InvalidToolCall) -> None:
        """Replace the handed-over call with the same ``(choice, seq)`` by ``call`` (a repaired one)."""

@final
class ValueReader:
    """One JSON value read as its text arrives (a streamed structured output): the scanner's verdict and a snapshot."""

    def __new__(cls, max_depth: int = 128) -> ValueReader:
        """A reader of a value nested at most ``max_depth`` levels."""
    def feed(self, text: bytes) -> tuple[str, int | None, str | None]:
        """Read the next piece of the text; the verdict on all of it so far.

        ``"incomplete"``, ``"complete"`` with the offset just past the value (or where text after it starts), or
        ``"invalid"`` with the offset of the byte that broke it and why.
        """
    def finish(self) -> tuple[str, int | None, str | None]:
        """Declare the end of the text (a top-level number whole so far completes here); the verdict."""
    def snapshot(self) -> Any:
        """The value as it stands (None before it started); the live value, updated in place by later pieces."""
    def take_duplicate_keys(self) -> list[tuple[str, int]]:
        """The keys found twice in one object so far, not taken before: ``(JSON pointer of the second, offset)``."""
    def open_values(self) -> list[Any]:
        """The containers of the snapshot still open, outermost first."""

@final
class CallLogReader:
    """A JSONL call log read and validated by the core in chunks, with the GIL released.

    Lines of the usual call-record shape (``name``, ``arguments`` as text or an object, ``id``, ``schema_fingerprint`` or
    ``tool_fingerprint``, ``ts`` or ``time``, each a string or null) are read and validated in the core; every other
    line is handed back as bytes for the Python reader (the reference). The bytes held at once are at most
    ``chunk_size`` plus the longest line.
    """

    def __new__(
        cls,
        validators: ToolValidators,
        path: str | os.PathLike[str] | None = None,
        chunk_size: int = ...,
        *,
        hand_back_results: bool = False,
    ) -> CallLogReader:
        """A reader validating with ``validators``: of the file at ``path``, or (without) of the bytes it is fed.

        With ``hand_back_results``, a line that records the call's result (``result``) is handed back too, for the
        Python reader to check the result against its tool's output schema.

        Raises:
            OSError: The file cannot be opened.
            ValueError: ``chunk_size`` is 0.
        """

    def feed(self, data: bytes, last: bool = False) -> None:
        """Add bytes of the log after those fed before (``last`` when no more follow).

        Raises:
            ValueError: The reader reads a file, or was given its last bytes.
        """

    def read(
        self, max_lines: int
    ) -> (
        list[
            tuple[int, list[tuple[str, str | None]], list[tuple[int, str, str, str | None, list[Violation]]]]
            | tuple[int, bytes]
        ]
        | None
    ):
        """Judge the next lines (at most ``max_lines``), reading the file as needed.

        Returns:
            Segments in line order: ``(calls, new_keys, flagged)`` for a run of lines read in the core
            (``new_keys``: the ``(name, fingerprint)`` pairs first seen in it, in order, whose calls ``counts``
            counts; ``flagged``: ``(line, name, arguments, id, violations)`` for each call with any violation) and
            ``(line, bytes)`` for a line the Python reader reads; None when no line is whole (the end of the log, or
            more bytes are to be fed).

        Raises:
            OSError: The file cannot be read.
        """

    def counts(self) -> list[tuple[str, str | None, int]]:
        """The calls read in the core so far, as ``(name, fingerprint, count)`` in first-seen order."""

@final
class ToolValidators:
    """Compiled parameter schemas of a set of tools, with each tool's fingerprint. Immutable and thread-safe."""

    def __new__(
        cls,
        tools: Sequence[tuple[str, str, str]],
        server_names: Sequence[str],
        max_depth: int,
        max_steps: int = ...,
    ) -> ToolValidators:
        """Compile ``(name, parameters schema as JSON text, fingerprint)`` triples.

        ``max_depth`` and ``max_steps`` are ``Limits.max_depth`` and ``Limits.max_validation_steps``.

        Raises:
            toolwire.SchemaError: a schema does not compile (naming the tool and the JSON pointer).
        """
    @property
    def names(self) -> list[str]:
        """The function tools' names, in declaration order."""
    def fingerprint(self, name: str) -> str | None:
        """The fingerprint of the function tool ``name``, or None."""
    def unknown_tool(self, name: str) -> Violation | None:
        """``UNKNOWN_TOOL`` when ``name`` is neither a function tool nor a server tool, else None."""
    def validate(self, name: str, arguments: str | bytes, *, call: bool = True) -> list[Violation]:
        """Every problem of ``arguments`` (JSON text) for the tool ``name``; with ``call``, judged as a call's."""
    def validate_many(self, calls: Sequence[tuple[str, str | bytes]]) -> list[list[Violation]]:
        """``validate`` for each pair, with the GIL released while the batch is checked."""
    def parameters(self) -> dict[str, Any]:
        """Each function tool's parameters schema, by name: what types the raw values a text dialect writes."""

@final
class Violation:
    """One contract violation, as data (never an exception).

    ``toolwire._model`` exports this class, and a frozen dataclass of the same fields when the extension is missing.

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

    __match_args__ = ("code", "message", "severity", "choice", "seq", "index", "path", "offset", "recoverable", "data")

    def __new__(
        cls,
        code: ViolationCode,
        message: str,
        severity: Severity,
        choice: int | None = ...,
        seq: int | None = ...,
        index: int | None = ...,
        path: str | None = ...,
        offset: int | None = ...,
        recoverable: bool = ...,
        data: Any = ...,
    ) -> Self: ...
    @property
    def code(self) -> ViolationCode: ...
    @property
    def message(self) -> str: ...
    @property
    def severity(self) -> Severity: ...
    @property
    def choice(self) -> int | None: ...
    @property
    def seq(self) -> int | None: ...
    @property
    def index(self) -> int | None: ...
    @property
    def path(self) -> str | None: ...
    @property
    def offset(self) -> int | None: ...
    @property
    def recoverable(self) -> bool: ...
    @property
    def data(self) -> Any: ...
    def __str__(self) -> str:
        """One line: ``CODE at /pointer: message``, or ``CODE: message`` for a finding without a pointer."""
    def key(self) -> tuple[str, str, int | None, int | None, str | None]:
        """The identity differential tests compare: (code, severity, choice, seq, path)."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCall:
    """A whole, valid tool call, ready to dispatch.

    ``toolwire._model`` exports this class, and a frozen dataclass of the same fields when the extension is missing
    (its docstring says what each field holds).
    """

    __match_args__ = (
        "id",
        "name",
        "arguments",
        "arguments_json",
        "seq",
        "index",
        "choice",
        "violations",
        "tool_fingerprint",
        "extra",
        "input",
    )

    def __new__(
        cls,
        id: str,
        name: str,
        arguments: dict[str, Any],
        arguments_json: str | None,
        seq: int,
        index: int | None,
        choice: int,
        violations: tuple[Violation, ...] = ...,
        tool_fingerprint: str | None = ...,
        extra: Mapping[str, Any] = ...,
        input: str | None = ...,
    ) -> Self: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def arguments_json(self) -> str | None: ...
    @property
    def seq(self) -> int: ...
    @property
    def index(self) -> int | None: ...
    @property
    def choice(self) -> int: ...
    @property
    def ok(self) -> Literal[True]:
        """Always True: a ``ToolCall`` is valid by construction."""
    @property
    def violations(self) -> tuple[Violation, ...]: ...
    @property
    def tool_fingerprint(self) -> str | None: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...
    @property
    def input(self) -> str | None: ...
    def to_history(self, format: WireFormat) -> dict[str, Any]:
        """This call as the assistant side of a conversation records it, its id echoed exactly."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class InvalidToolCall:
    """A tool call that must not be dispatched; it still carries everything that arrived for it.

    ``toolwire._model`` exports this class, and a frozen dataclass of the same fields when the extension is missing
    (its docstring says what each field holds).
    """

    __match_args__ = (
        "id",
        "name",
        "arguments",
        "arguments_json",
        "seq",
        "index",
        "choice",
        "errors",
        "violations",
        "tool_fingerprint",
        "extra",
        "input",
    )

    def __new__(
        cls,
        id: str,
        name: str | None,
        arguments: Any,
        arguments_json: str | None,
        seq: int,
        index: int | None,
        choice: int,
        errors: tuple[Violation, ...],
        violations: tuple[Violation, ...] = ...,
        tool_fingerprint: str | None = ...,
        extra: Mapping[str, Any] = ...,
        input: str | None = ...,
    ) -> Self: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def arguments(self) -> Any: ...
    @property
    def arguments_json(self) -> str | None: ...
    @property
    def seq(self) -> int: ...
    @property
    def index(self) -> int | None: ...
    @property
    def choice(self) -> int: ...
    @property
    def errors(self) -> tuple[Violation, ...]: ...
    @property
    def ok(self) -> Literal[False]:
        """Always False."""
    def to_tool_result(self, format: WireFormat) -> dict[str, Any]:
        """The tool-result message that tells the model what was wrong, so it can try again on its next turn."""
    @property
    def violations(self) -> tuple[Violation, ...]: ...
    @property
    def tool_fingerprint(self) -> str | None: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...
    @property
    def input(self) -> str | None: ...
    def to_history(self, format: WireFormat) -> dict[str, Any]:
        """This call as the assistant side of a conversation records it, its id echoed exactly."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ChoiceResult:
    """What one choice of the response brought besides its calls.

    Attributes:
        choice: The choice index.
        text: Its concatenated content text.
        finish_reason: Its first non-null finish reason, or None.
        refusal: What it said when it refused (OpenAI ``refusal`` deltas), concatenated; None when it did not.
    """

    __match_args__ = ("choice", "text", "finish_reason", "refusal")

    def __new__(cls, choice: int, text: str, finish_reason: str | None, refusal: str | None = ...) -> Self: ...
    @property
    def choice(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def finish_reason(self) -> str | None: ...
    @property
    def refusal(self) -> str | None: ...
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class OutputItem:
    """A piece of the assistant turn that is not a client tool call, kept for the next request.

    Anthropic content blocks (text, thinking with its signature, redacted thinking, server tool use and results),
    Responses output items (message, reasoning, built-in tool calls and their outputs), Gemini parts other than
    calls, Bedrock reasoning blocks: each as the provider's own JSON shape, completed from its deltas.

    Attributes:
        after_calls: How many calls of the stream were opened before it, which places it among them.
        value: The block, item or part, as the provider's JSON object.
    """

    __match_args__ = ("after_calls", "value")

    def __new__(cls, after_calls: int, value: dict[str, Any]) -> Self: ...
    @property
    def after_calls(self) -> int: ...
    @property
    def value(self) -> dict[str, Any]: ...
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Pending:
    """A value of a snapshot that is still arriving, never shown as final (``{"n": 12`` is not ``{"n": 12}``).

    Attributes:
        kind: ``"string"``, ``"number"`` or ``"literal"`` (``true``, ``false``, ``null`` being spelled), or
            ``"value"`` for a member whose key arrived and whose value has not started.
        text: What arrived so far: a string's decoded text (an escape still arriving left out), a number's or a
            literal's characters.
    """

    __match_args__ = ("kind", "text")

    def __new__(cls, kind: Literal["string", "number", "literal", "value"], text: str) -> Self: ...
    @property
    def kind(self) -> Literal["string", "number", "literal", "value"]: ...
    @property
    def text(self) -> str: ...
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class StreamResult:
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

    __match_args__ = (
        "calls",
        "invalid_calls",
        "finish_reason",
        "usage",
        "text",
        "violations",
        "choices",
        "output",
        "format",
        "refusal",
    )

    def __new__(
        cls,
        calls: tuple[ToolCall, ...] = ...,
        invalid_calls: tuple[InvalidToolCall, ...] = ...,
        finish_reason: str | None = ...,
        usage: Any = ...,
        text: str = ...,
        violations: tuple[Violation, ...] = ...,
        choices: tuple[ChoiceResult, ...] = ...,
        output: tuple[OutputItem, ...] = ...,
        format: str | None = ...,
        refusal: str | None = ...,
    ) -> Self: ...
    @property
    def calls(self) -> tuple[ToolCall, ...]: ...
    @property
    def invalid_calls(self) -> tuple[InvalidToolCall, ...]: ...
    @property
    def finish_reason(self) -> str | None: ...
    @property
    def usage(self) -> Any: ...
    @property
    def text(self) -> str: ...
    @property
    def violations(self) -> tuple[Violation, ...]: ...
    @property
    def choices(self) -> tuple[ChoiceResult, ...]: ...
    @property
    def output(self) -> tuple[OutputItem, ...]: ...
    @property
    def format(self) -> str | None: ...
    @property
    def refusal(self) -> str | None: ...
    @property
    def server_calls(self) -> tuple[dict[str, Any], ...]:
        """The calls the provider ran itself, as sent (their results, kept in ``output`` too, are not calls)."""
    @property
    def ok(self) -> bool:
        """True when no call is invalid and no stream-level violation is an error."""
    def to_history(self, format: WireFormat) -> Any:
        """The assistant turn of the first choice, ready to append to the next request, ids echoed exactly."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def scan(
    fragments: Sequence[bytes], *, max_depth: int = 128, finish: bool = True
) -> tuple[str, int | None, str | None, str | None, list[tuple[str, int]]]:
    """Scan ``fragments`` in order with the incremental JSON scanner.

    Returns:
        ``(state, end_or_offset, error_kind, root_kind, duplicate_keys)``: state is ``"incomplete"``,
        ``"complete"`` (with the end offset) or ``"invalid"`` (with the offset of the offending byte and its kind);
        duplicate keys as ``(json_pointer, offset)``.
    """

def frame(pieces: Sequence[bytes], *, limit: int = ..., items: bool = False) -> list[tuple[bytes, bytes]]:
    """The ``(event, data)`` pairs of a raw body given as reads, or with ``items`` as a raw source's items.

    For tests comparing the framer with the reference's.

    Raises:
        ValueError: the body does not frame (the message is the framing error's).
    """

def frame_body(body: bytes, limit: int) -> tuple[str | None, list[bytes], str | None]:
    """A whole raw body as the engine frames it, for the recording writer.

    Args:
        body: The body.
        limit: ``Limits.max_event_bytes`` for the framing.

    Returns:
        ``(framing, events, error)``: the framing its opening tells (``"sse"``, ``"json-lines"``, ``"json-array"``,
        ``"aws-event-stream"``; None when it tells none, or the body ends before it tells), each event's data up to
        where the framing broke, and the framing error's message (None when the whole body frames).
    """

def framing_of(body: bytes) -> str | None:
    """The framing a raw body's opening tells, as the engine tells it.

    Returns:
        ``"sse"``, ``"json-lines"``, ``"json-array"`` or ``"aws-event-stream"``; None when the opening tells none or
        the body ends before it tells.
    """

def schema_problems(schema_json: bytes, draft: str = "2020-12") -> list[tuple[str, str]]:
    """Every way a schema breaks the meta-schema of its draft, for ``toolwire check``.

    Args:
        schema_json: The schema as JSON text (UTF-8 bytes).
        draft: ``"2020-12"`` (the default), ``"2019-09"``, ``"7"``, ``"6"`` or ``"4"``; the schema's own
            ``$schema`` is not read: the caller names the draft. The bundled meta-schemas are used; nothing is fetched.

    Returns:
        ``(pointer, message)`` pairs: the JSON pointer inside the schema and what the meta-schema says is wrong there,
        sorted by pointer then message; empty when the schema is valid.

    Raises:
        ValueError: ``schema_json`` is not JSON, or ``draft`` is not one of the names above.
    """

def violation_table() -> list[tuple[str, str, str, bool]]:
    """``(code, level, severity, recoverable)`` for every violation code the core knows, in order."""
@final
class TextDelta:
    """Content text of a choice, as it arrived."""

    __match_args__ = ("choice", "text")

    def __new__(cls, choice: int, text: str) -> Self: ...
    @property
    def choice(self) -> int: ...
    @property
    def text(self) -> str: ...
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCallStarted:
    """A call opened; its id and name as they stand then (a name may still come later: see ``ToolCallReady``)."""

    __match_args__ = ("seq", "choice", "index", "id", "name")

    def __new__(cls, seq: int, choice: int, index: int | None, id: str | None, name: str | None) -> Self: ...
    @property
    def seq(self) -> int: ...
    @property
    def choice(self) -> int: ...
    @property
    def index(self) -> int | None: ...
    @property
    def id(self) -> str | None: ...
    @property
    def name(self) -> str | None: ...
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ArgumentsDelta:
    """A piece of a call's arguments text, as it arrived."""

    __match_args__ = ("seq", "choice", "fragment")

    def __new__(cls, seq: int, choice: int, fragment: str, snapshots: Callable[[int], Any]) -> Self: ...
    @property
    def seq(self) -> int: ...
    @property
    def choice(self) -> int: ...
    @property
    def fragment(self) -> str: ...
    def snapshot(self) -> Any:
        """The call's arguments as they stand now (a value still arriving is a ``toolwire.Pending``)."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCallReady:
    """A whole, valid call, handed over."""

    __match_args__ = ("call",)

    def __new__(cls, call: ToolCall) -> Self: ...
    @property
    def call(self) -> ToolCall: ...
    @property
    def seq(self) -> int:
        """The call's seq."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCallInvalid:
    """An invalid call, handed over (answer it with ``call.to_tool_result(format)``)."""

    __match_args__ = ("call",)

    def __new__(cls, call: InvalidToolCall) -> Self: ...
    @property
    def call(self) -> InvalidToolCall: ...
    @property
    def seq(self) -> int:
        """The call's seq."""
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Finished:
    """The stream ended."""

    __match_args__ = ("result",)

    def __new__(cls, result: StreamResult) -> Self: ...
    @property
    def result(self) -> StreamResult: ...
    def __replace__(self, **changes: Any) -> Self:
        """A copy with the fields named in ``changes`` replaced (``copy.replace`` on Python 3.13+; not a dataclass)."""
    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
