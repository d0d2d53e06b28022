"""The entry points, written once over an implementation and bound by each package: ``reassemble = core.reassemble``.

``toolwire`` binds an ``Api`` to the Rust core and ``toolwire.reference`` one to the reference, so both offer the same
functions with the same signatures and documentation, and a type checker sees every parameter. A bound method costs
what the closures it replaces cost; nothing here runs per chunk.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from toolwire._model import Limits, StreamResult, TextDialect, Violation
from toolwire._pipeline._choice import ToolChoiceLike
from toolwire._pipeline._normalize import buffered_stream, drained
from toolwire._pipeline._objects import (
    AsyncObjectStream,
    ObjectResult,
    ObjectStream,
    SchemaLike,
    ValueReading,
    aread_events,
    aread_texts,
    compiled_schema,
    element_schema,
    output_schema,
    read_events,
    read_texts,
)
from toolwire._pipeline._options import Options
from toolwire._pipeline._progress import AsyncEventStream, EventStream
from toolwire._pipeline._protocol import Emit, Implementation, OnInvalid, OnViolation, SchemaCheck
from toolwire._pipeline._repair import Repair
from toolwire._pipeline._results import (
    ResultLike,
    is_final,
    is_result,
    result_data,
    shape_violations,
    structured_violations,
)
from toolwire._pipeline._sdk_bodies import async_sdk_source, sdk_engine, sdk_source
from toolwire._pipeline._sources import AsyncSource, Source, is_raw
from toolwire._pipeline._streams import AsyncToolCallStream, ToolCallStream
from toolwire._pipeline._validation import (
    ArgumentsLike,
    CallLike,
    arguments_text,
    call_pair,
    tool_name,
    validation_bounds,
)
from toolwire.errors import SchemaError
from toolwire.formats import WireFormat
from toolwire.registry import ToolRegistry, ToolsLike

# ``Emit`` and ``OnInvalid`` are the API's own argument types, importable with it.
__all__ = ["Api", "Emit", "OnInvalid"]


class Api:
    """toolwire's entry points over one implementation (the Rust core's, or the reference's)."""

    __slots__ = ("implementation",)

    def __init__(self, implementation: Implementation) -> None:
        """Bind the entry points to ``implementation``'s engine and compiled tools."""
        self.implementation = implementation

    def __repr__(self) -> str:
        """Name the engine, so that ``toolwire.reassemble`` says which implementation it runs."""
        engine = self.implementation.engine
        return f"Api({engine.__module__}.{getattr(engine, '__qualname__', type(engine).__qualname__)})"

    def reassemble(
        self,
        source: Source,
        *,
        tools: ToolsLike | None = None,
        tool_choice: ToolChoiceLike = None,
        emit: Emit = "call_end",
        on_invalid: OnInvalid = "raise",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        repair: Repair | None = None,
        format: WireFormat | None = None,
        dialect: str | TextDialect | None = None,
    ) -> ToolCallStream:
        """Reassemble the tool calls of a stream, handing each over as soon as ``emit`` allows.

        Args:
            source: The fast path: the raw body of the HTTP response (server-sent events, JSON lines as Ollama sends,
                the JSON array of Gemini's ``streamGenerateContent`` without ``alt=sse``, or Bedrock's AWS
                event-stream messages; told from its first bytes), as one ``bytes`` object, an iterable of ``bytes``
                or ``str`` split anywhere (httpx's ``iter_bytes()``/``iter_raw()``/``iter_text()``/``iter_lines()``),
                or a binary file; framed and parsed in Rust. Or an iterable of
                events: dicts or the official SDKs' objects (openai ``ChatCompletionChunk`` and Responses events,
                anthropic ``RawMessageStreamEvent``), or the SDK's stream object itself (or its helper's manager),
                which, while nothing has read it, is read from its response's bytes (an error event is then a
                ``PROVIDER_ERROR``, not the SDK's ``APIError``: ``docs/semantics.md``, "Official SDK streams").
            tools: The tools declared in the request: a ``ToolRegistry`` or anything it loads (OpenAI, Anthropic or
                MCP definitions, a ``{name: schema}`` mapping...). Every call is then checked: an undeclared name is
                ``UNKNOWN_TOOL``, arguments that break the tool's schema are invalid (``TYPE_MISMATCH``,
                ``MISSING_REQUIRED_ARGUMENT``... each with its JSON pointer), and a valid call carries the
                ``tool_fingerprint`` it was checked against. ``None`` (the default) checks no names or schemas.
            tool_choice: The ``tool_choice`` sent with the request, to check the stream against it.
            emit: ``"complete"`` (the moment a call's JSON closes), ``"call_end"`` (closed and the call is over;
                the default) or ``"stream_end"`` (only once the stream ended with an acceptable finish).
            on_invalid: ``"raise"`` (default) raises ``InvalidToolCallError`` for an invalid call and
                ``StreamContractError`` for error-severity stream findings at the end; ``"yield"`` hands invalid
                calls over as ``InvalidToolCall`` so an agent loop can answer every call id.
            on_violation: Called with every ``Violation`` as it is found.
            limits: Bounds on argument size, nesting depth and number of calls.
            repair: Opt-in: called with each ``InvalidToolCall`` whose arguments were whole but wrong (bad JSON,
                schema violations); may return corrected arguments (a dict), which are re-validated and, if valid,
                hand the call over as a ``ToolCall`` marked ``REPAIRED`` (never a silent change). Return None to
                leave the call invalid. Needs ``tools``.
            format: The wire format (``"openai-completions"``, ``"openai-chat"``, ``"openai-responses"``,
                ``"anthropic-messages"``, ``"gemini"``, ``"ollama"``, ``"bedrock-converse"``); by default detected
                from the first event that identifies one.
            dialect: The dialect a model writes its calls in when they are in its text (one of ``toolwire.DIALECTS``,
                the name servers give its ``--tool-call-parser``: ``"hermes"``, ``"qwen3_coder"``, ``"harmony"``...,
                or a ``TextDialect`` to say the prompt opened reasoning). The source may then be the model's text
                itself: an iterable of ``str`` deltas (or one ``str``), split anywhere; a completions stream
                (``/v1/completions``) or Ollama's ``/api/generate`` carries that text too. In any other format's
                content the calls are leaks (a server whose tool-call parser is off): they are recovered, each with
                ``CALL_IN_TEXT``, and left out of ``result.text``. Reasoning the dialect marks is kept in
                ``result.output``; ``docs/dialects.md`` has each dialect's rules.

        Returns:
            An iterator of ``ToolCall`` (and ``InvalidToolCall`` under ``on_invalid="yield"``) whose ``result`` is
            the ``StreamResult`` once exhausted.
        """
        options = Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair, format, dialect)
        source = sdk_source(source, options)
        return ToolCallStream(source, sdk_engine(source, options.engine(self.implementation)), options.on_invalid)

    def areassemble(
        self,
        source: AsyncSource,
        *,
        tools: ToolsLike | None = None,
        tool_choice: ToolChoiceLike = None,
        emit: Emit = "call_end",
        on_invalid: OnInvalid = "raise",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        repair: Repair | None = None,
        format: WireFormat | None = None,
        dialect: str | TextDialect | None = None,
    ) -> AsyncToolCallStream:
        """``reassemble`` over an async iterable (the openai SDK's ``AsyncStream``, an async generator...)."""
        options = Options(tools, tool_choice, emit, on_invalid, on_violation, limits, repair, format, dialect)
        source = async_sdk_source(source, options)
        engine = sdk_engine(source, options.engine(self.implementation))
        return AsyncToolCallStream(source, engine, options.on_invalid)

    def events(
        self,
        source: Source,
        *,
        tools: ToolsLike | None = None,
        tool_choice: ToolChoiceLike = None,
        emit: Emit = "call_end",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        format: WireFormat | None = None,
        dialect: str | TextDialect | None = None,
    ) -> EventStream:
        """The stream's progress as events, for interfaces that show calls as they form.

        Takes every source and keyword ``reassemble`` takes (``on_invalid`` aside: an invalid call is an event, as
        a valid one is). Yields ``TextDelta``, ``ToolCallStarted``, ``ArgumentsDelta`` (with ``snapshot()``),
        ``ToolCallReady``/``ToolCallInvalid`` and, last, ``Finished`` with the ``StreamResult``.

        Raises:
            MalformedChunkError: An event that does not have the shape of its wire format (while iterating).
        """
        options = Options(tools, tool_choice, emit, "yield", on_violation, limits, None, format, dialect)
        source = sdk_source(source, options)
        return EventStream(source, sdk_engine(source, options.engine(self.implementation, progress=True)))

    def aevents(
        self,
        source: AsyncSource,
        *,
        tools: ToolsLike | None = None,
        tool_choice: ToolChoiceLike = None,
        emit: Emit = "call_end",
        on_violation: OnViolation | None = None,
        limits: Limits | None = None,
        format: WireFormat | None = None,
        dialect: str | TextDialect | None = None,
    ) -> AsyncEventStream:
        """``events`` over an async iterable (the SDKs' async streams, httpx's ``aiter_bytes()``...)."""
        options = Options(tools, tool_choice, emit, "yield", on_violation, limits, None, format, dialect)
        source = async_sdk_source(source, options)
        return AsyncEventStream(source, sdk_engine(source, options.engine(self.implementation, progress=True)))

    def validate(
        self, name: str, arguments: ArgumentsLike, tools: ToolsLike, *, limits: Limits | None = None
    ) -> list[Violation]:
        """Check one tool call's arguments against the declared tools, as a stream checks a whole call.

        Args:
            name: The tool name the call carries.
            arguments: JSON text (``str`` or ``bytes``, exactly as received) or an already parsed value. ``None`` and
                ``""`` mean no arguments: ``EMPTY_ARGUMENTS`` (info), checked as ``{}``.
            tools: A ``ToolRegistry`` or anything it loads. Pass a registry when validating many calls: its schemas
                are compiled once and kept.
            limits: ``max_depth`` bounds the nesting of the arguments (``TOO_DEEP`` past it), ``max_validation_steps``
                the search for the problems of invalid ones (``VALIDATION_BUDGET_EXCEEDED`` past it).

        Returns:
            Every violation, in the order a stream finds them: what is wrong with the text (``EMPTY_ARGUMENTS``,
            ``INVALID_JSON``, ``TOO_DEEP``, ``ARGUMENTS_NOT_OBJECT``), then ``UNKNOWN_TOOL``, then the schema's
            findings sorted by JSON pointer; empty when the call is valid. ``choice``, ``seq`` and ``index`` are None.

        Raises:
            TypeError: ``name`` is not a string, or ``arguments`` is neither JSON text nor a JSON-compatible value.
            toolwire.errors.SchemaError: A tool's schema cannot be compiled.
        """
        compiled = self.implementation.compile_tools(ToolRegistry.load(tools), *validation_bounds(limits))
        return compiled.validate(tool_name(name, "validate"), arguments_text(arguments, "validate"))

    def validate_many(
        self, calls: Iterable[CallLike], tools: ToolsLike, *, limits: Limits | None = None
    ) -> list[list[Violation]]:
        """``validate`` for a batch: the core checks it with the GIL released, on every core when it is large.

        Args:
            calls: ``(name, arguments)`` pairs, mappings with ``name`` and ``arguments`` (an OpenAI ``tool_calls``
                entry with ``function`` too, or an Anthropic ``tool_use`` block with ``input``), or call objects
                with ``name`` and ``arguments`` attributes (``ToolCall``, ``InvalidToolCall``).
            tools: A ``ToolRegistry`` or anything it loads.
            limits: As for ``validate``.

        Returns:
            One list of violations per call, in order.
        """
        compiled = self.implementation.compile_tools(ToolRegistry.load(tools), *validation_bounds(limits))
        batch = calls if isinstance(calls, list) else list(calls)
        # (name, text) pairs go to the compiled form as they are; anything else is read into pairs first.
        found = compiled.validate_many(batch)
        if found is None:
            pairs = []
            for position, item in enumerate(batch):
                call_name, arguments = call_pair(item, position)
                pairs.append((call_name, arguments_text(arguments, f"calls[{position}]")))
            found = compiled.validate_many(pairs)
        assert found is not None, "every item is a (name, text) pair now"
        return found

    def validate_result(
        self, name: str, result: ResultLike, tools: ToolsLike, *, limits: Limits | None = None
    ) -> list[Violation]:
        """Check a tool result's shape (the MCP specification's) and its structured content (the tool's outputSchema).

        Args:
            name: The tool that gave the result.
            result: A ``CallToolResult`` of the official ``mcp`` SDK (as ``ClientSession.call_tool`` returns it), a
                mapping of its shape (``{"content": [...], "structuredContent": {...}, "isError": False}``), or its
                JSON text.
            tools: A ``ToolRegistry`` or anything it loads: MCP tools keep their ``outputSchema``
                (``ToolRegistry.from_mcp``, a ``tools/list`` result). Pass a registry when checking many results: its
                output schemas are compiled once and kept.
            limits: As for ``validate``, applied to the structured content.

        Returns:
            Every violation, in order: the result's shape (``MALFORMED_RESULT``, in the order the result is written:
            content blocks without their required members, of an unknown type, with data that is not base64, an
            ``isError`` that is not a boolean); then ``UNKNOWN_TOOL``; then, for a tool that declares an
            ``outputSchema``, ``MISSING_STRUCTURED_CONTENT`` or the schema's findings, with the validator and codes
            of arguments and pointers into the result (``/structuredContent/temperature``). An error result
            (``isError`` true) and one that is not final (a ``resultType`` other than ``"complete"``) are checked
            for their shape only. Empty when the result is valid.

        Raises:
            TypeError: ``name`` is not a string, or ``result`` is neither a result object, a mapping nor JSON text,
                or holds a value JSON cannot (a ``datetime``).
            toolwire.errors.SchemaError: The tool's ``outputSchema`` cannot be compiled (``error.schema`` is
                ``"outputSchema"``).
            ValueError: The tool's ``outputSchema`` is not an object schema.
        """
        name = tool_name(name, "validate_result")
        registry = ToolRegistry.load(tools)
        data, unreadable = result_data(result)
        found = [unreadable] if unreadable is not None else shape_violations(data)
        depth, steps = validation_bounds(limits)
        unknown = self.implementation.compile_tools(registry, depth, steps).unknown_tool(name)
        if unknown is not None:
            found.append(unknown)
            return found
        tool = registry.get(name)
        if tool is None or "outputSchema" not in tool.extra:
            return found
        if not is_result(data) or data.get("isError") is True or not is_final(data):
            return found
        try:
            outputs = self.implementation.compile_tools(registry._outputs(), depth, steps)
        except SchemaError as error:
            raise SchemaError(error.tool, error.pointer, error.problem, "outputSchema") from None
        found.extend(structured_violations(name, data.get("structuredContent"), outputs))
        return found

    def stream_object(
        self,
        source: Source,
        *,
        schema: SchemaLike,
        format: WireFormat | Literal["text"] | None = None,
        tool: str | None = None,
        elements: bool | str = False,
        recover: bool = False,
        limits: Limits | None = None,
    ) -> ObjectStream:
        """A structured output as it arrives: honest snapshots while it streams, then its value checked.

        The model writes one JSON value as its text (OpenAI ``response_format``/``text.format``, Anthropic structured
        outputs, Gemini ``responseSchema``, Ollama ``format``); iterate the stream for an ``ObjectSnapshot`` after
        every piece that adds to the value (a ``Pending`` where a value is still arriving, never shown as final), and
        with ``elements=`` an ``ObjectElement`` for each element of an array the moment it is whole and checked.
        ``result`` is the ``ObjectResult``: the value, checked against ``schema`` with the validator of arguments,
        and every violation. The rules are docs/semantics.md's "Structured outputs".

        Args:
            source: Any source ``reassemble`` reads (its first choice's content text is the value), or plain text
                deltas: a ``str``, a list of ``str``, or any iterable of ``str`` with ``format="text"``.
            schema: The JSON Schema of the value, the ``response_format``/``text.format`` the request gave, or a
                pydantic model class.
            format: The wire format (detected when None), or ``"text"`` for text deltas.
            tool: For providers whose structured output is a forced tool call (Anthropic tool-as-schema), the tool's
                name: the value is that call's arguments.
            elements: ``True`` for each element of a top-level array, or a member's name for each element of the
                array that member of a top-level object holds, checked against the schema's ``items``.
            recover: Read the value inside a code fence or after prose (``REPAIRED``, an info); without it, text that
                is no JSON value is ``WRAPPED_OUTPUT`` and text after the value ``TRAILING_DATA``.
            limits: ``max_depth``, ``max_validation_steps`` and ``max_text_bytes`` bound the value; the stream's
                other limits as for ``reassemble``.

        Raises:
            TypeError: ``schema`` is no schema, or ``elements`` neither a bool nor a name.
            ValueError: ``elements`` names an array the schema gives no ``items`` for.
            toolwire.errors.SchemaError: ``schema`` cannot be compiled (``error.schema`` is ``"output"``).
        """
        reading = self._object_reading(schema, elements, recover, limits)
        outcome: list[ObjectResult] = []
        if _text_deltas(source, format):
            texts = (source,) if isinstance(source, str) else source
            return ObjectStream(read_texts(texts, reading, outcome), outcome)
        events = self.events(source, limits=limits, format=None if format == "text" else format)
        return ObjectStream(read_events(events, reading, tool, outcome), outcome)

    def astream_object(
        self,
        source: AsyncSource,
        *,
        schema: SchemaLike,
        format: WireFormat | Literal["text"] | None = None,
        tool: str | None = None,
        elements: bool | str = False,
        recover: bool = False,
        limits: Limits | None = None,
    ) -> AsyncObjectStream:
        """``stream_object`` over an async iterable (an SDK's async stream, or async text deltas with ``format="text"``)."""
        reading = self._object_reading(schema, elements, recover, limits)
        outcome: list[ObjectResult] = []
        if format == "text":
            return AsyncObjectStream(aread_texts(source, reading, outcome), outcome)
        events = self.aevents(source, limits=limits, format=format)
        return AsyncObjectStream(aread_events(events, reading, tool, outcome), outcome)

    def _object_reading(
        self, schema: SchemaLike, elements: bool | str, recover: bool, limits: Limits | None
    ) -> ValueReading:
        """The reading of one structured output: its reader, and its schema (and its elements') compiled."""
        limits = limits if limits is not None else Limits()
        if not isinstance(elements, (bool, str)) or elements == "":
            raise TypeError(f"elements must be True, False or a member's name; got {elements!r}")
        root = output_schema(schema)
        part: str | Literal[True] | None = None if elements is False else elements
        check_element = None if part is None else self._schema_check(element_schema(root, part), limits)
        return ValueReading(
            self.implementation.value_reader(limits.max_depth),
            self._schema_check(root, limits),
            recover=bool(recover),
            elements=part,
            check_element=check_element,
            max_text_bytes=limits.max_text_bytes,
        )

    def _schema_check(self, schema: dict[str, Any], limits: Limits) -> SchemaCheck:
        try:
            return compiled_schema(self.implementation.compile_schema, schema, limits)
        except SchemaError as error:
            raise SchemaError("", error.pointer, error.problem, "output") from None

    def normalize(
        self,
        response: object,
        *,
        tools: ToolsLike | None = None,
        tool_choice: ToolChoiceLike = None,
        format: WireFormat | None = None,
        limits: Limits | None = None,
    ) -> StreamResult:
        """The calls of a buffered response, checked as a stream's are, in the ``StreamResult`` a stream gives.

        Args:
            response: A buffered response, as a dict or its SDK's object: an OpenAI chat completion
                (``ChatCompletion``), a Responses ``Response``, an Anthropic ``Message``, a Gemini ``generateContent``
                response, an Ollama ``/api/chat`` response or a Bedrock ``Converse`` response.
            tools: As for ``reassemble``: every call is checked against them.
            tool_choice: As for ``reassemble``.
            format: The response's wire format; by default told from its shape.
            limits: As for ``reassemble``.

        Returns:
            The result: ``calls`` and ``invalid_calls`` (nothing is raised for them), ``finish_reason``, ``text``,
            ``usage`` and the findings. ``arguments`` is always a dict and ``arguments_json`` a string, whatever the
            provider sent (an object where a string is promised is ``ARGUMENTS_NOT_STRING``; where the format promises
            an object, as Anthropic, Gemini, Ollama and Bedrock do, it is simply correct).

        Raises:
            MalformedChunkError: The response does not have the shape of its format (the path names the field).
            TypeError: ``response`` is not a response object, or its format cannot be told.
        """
        events, wire_format = buffered_stream(response, format)
        stream = self.reassemble(
            events, tools=tools, tool_choice=tool_choice, on_invalid="yield", limits=limits, format=wire_format
        )
        return drained(stream, wire_format)


def _text_deltas(source: object, format: str | None) -> bool:
    """Whether ``source`` is plain text deltas: ``format="text"``, one ``str``, or a list of ``str`` that no body opens."""
    if format == "text" or (format is None and isinstance(source, str)):
        return True
    if format is None and isinstance(source, (list, tuple)) and source:
        return isinstance(source[0], str) and not is_raw(source[0], text_deltas=True)
    return False
