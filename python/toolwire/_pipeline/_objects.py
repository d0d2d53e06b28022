"""Streamed structured outputs: one JSON value a model writes as its text, shown while it arrives, then checked.

``stream_object`` and ``astream_object`` show it honestly while it arrives and check it against its schema when the
stream ends.

The value is read from the content text of a stream's first choice (or from the arguments of the call to ``tool=``,
for providers whose structured output is a forced tool call), or from plain text deltas. Each piece goes through the
implementation's ``ValueReader`` (the core's ``_core.ValueReader``, the reference's ``_value_reader.ValueReader``):
its scanner says the moment the value is whole or broken, and its snapshot is the value as it stands, a ``Pending``
where a value is still arriving. The rules are docs/semantics.md's "Structured outputs".
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from toolwire._common._closing import AcloseBlock, ClosingBlock
from toolwire._common._json import canonical
from toolwire._model import Limits, Pending, Severity, StreamResult, Violation, ViolationCode, violation
from toolwire._pipeline._progress import ArgumentsDelta, Finished, TextDelta, ToolCallStarted
from toolwire._pipeline._protocol import CompileSchema, SchemaCheck, ValueReaderLike
from toolwire.formats import problems

if TYPE_CHECKING:
    from toolwire._pipeline._progress import AsyncEventStream, EventStream

__all__ = [
    "AsyncObjectStream",
    "ObjectElement",
    "ObjectEvent",
    "ObjectResult",
    "ObjectSnapshot",
    "ObjectStream",
    "SchemaLike",
    "ValueReading",
    "aread_events",
    "aread_texts",
    "compiled_schema",
    "element_schema",
    "output_schema",
    "read_events",
    "read_texts",
]

SchemaLike: TypeAlias = Mapping[str, Any] | type
"""The schema of a structured output: a JSON Schema, an OpenAI ``response_format`` (``{"type": "json_schema",
"json_schema": {"schema": ...}}``) or Responses ``text.format`` (``{"type": "json_schema", "schema": ...}``) as the
request gave it, a Gemini ``responseSchema`` (OpenAPI's subset: ``"type": "STRING"``, ``nullable``), or a pydantic
model class (its ``model_json_schema()``)."""

#: Gemini's ``Schema`` types, as its ``responseSchema`` spells them.
_OPENAPI_TYPES: Final = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})
#: The members of an OpenAPI schema that hold schemas: by name, in a list, or one.
_SCHEMA_MAPS: Final = ("properties", "$defs", "definitions")
_SCHEMA_LISTS: Final = ("anyOf", "oneOf", "allOf", "prefixItems")

#: Characters a JSON value can start with, besides ``{`` and ``[``.
_SCALAR_STARTS: Final = frozenset('"-0123456789tfn')
_WHITESPACE: Final = frozenset(" \t\r\n")


@dataclass(frozen=True, slots=True)
class ObjectSnapshot:
    """The value as it stands after a piece of its text.

    Complete values are values, and a ``Pending`` stands where one is still arriving: ``{"n": 12`` is
    ``{"n": Pending("number", "12")}``, never ``{"n": 12}``.

    Attributes:
        value: The live value: its containers are updated in place by later pieces (``copy.deepcopy`` keeps one).
    """

    value: Any


@dataclass(frozen=True, slots=True)
class ObjectElement:
    """An element of the array ``elements=`` names, handed over the moment it is whole.

    It is checked against the schema of the array's items.

    Attributes:
        index: Its position in the array.
        value: The element (the live object of the snapshot: it is whole, so nothing changes it any more).
        violations: What the schema of the items finds in it (pointers from the element).
    """

    index: int
    value: Any
    violations: tuple[Violation, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the schema of the items finds no error in it."""
        return not any(violation.severity is Severity.ERROR for violation in self.violations)


ObjectEvent: TypeAlias = ObjectSnapshot | ObjectElement


@dataclass(frozen=True, slots=True)
class ObjectResult:
    """What a structured output came to once its stream ended.

    Attributes:
        value: The value its whole text parses to; None when no whole value was read (see ``violations``).
        violations: Every violation, in order: the stream's own (``STREAM_CUT``, ``PROVIDER_ERROR``...), then the
            text's (``WRAPPED_OUTPUT``, ``MISSING_OUTPUT``, ``INVALID_JSON``, ``TRUNCATED``, ``TRAILING_DATA``,
            ``DUPLICATE_KEY``, ``REPAIRED``), then the schema's, with pointers into the value.
        text: The text read: the content text (or the tool's arguments), every piece joined.
        refusal: What the model said when it refused (OpenAI ``refusal`` deltas, Responses ``response.refusal.delta``,
            Anthropic ``stop_reason: "refusal"``), else None. A refusal is a result, not a violation.
        finish_reason: The stream's finish reason (None for plain text deltas).
        stream: The ``StreamResult`` of the stream the value was read from (None for plain text deltas).
    """

    value: Any
    violations: tuple[Violation, ...]
    text: str
    refusal: str | None = None
    finish_reason: str | None = None
    stream: StreamResult | None = None

    @property
    def errors(self) -> tuple[Violation, ...]:
        """The violations of severity error."""
        return tuple(violation for violation in self.violations if violation.severity is Severity.ERROR)

    @property
    def ok(self) -> bool:
        """A whole value, valid against its schema, no error in the stream, and no refusal."""
        return self.refusal is None and not self.errors

    def retry_payload(self) -> dict[str, Any]:
        """What to tell the model so that its next turn fixes the output, as ``to_tool_result`` tells it of a call.

        ``{"error": "invalid_output", "problems": [{"code", "path", "message", what is allowed...}], "instruction"}``.
        """
        errors = self.errors
        body: dict[str, Any] = {"error": "invalid_output", **problems(errors)}
        codes = {violation.code for violation in errors}
        if codes & {ViolationCode.WRAPPED_OUTPUT, ViolationCode.TRAILING_DATA}:
            body["instruction"] = "Answer with the JSON value alone: no prose and no code fence around it."
        elif codes & {ViolationCode.TRUNCATED, ViolationCode.STREAM_CUT, ViolationCode.MISSING_OUTPUT}:
            body["instruction"] = "The answer did not arrive whole; answer again with the whole JSON value."
        else:
            body["instruction"] = "Answer again with a JSON value that fixes every problem listed."
        return body


def output_schema(schema: SchemaLike) -> dict[str, Any]:
    """The JSON Schema of ``schema`` (see ``SchemaLike``).

    Raises:
        TypeError: ``schema`` is none of those.
    """
    if isinstance(schema, type):
        make = getattr(schema, "model_json_schema", None)
        if make is None:
            raise TypeError(f"schema: a class must be a pydantic model; got {schema.__name__}")
        made: dict[str, Any] = make()
        return made
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"schema must be a JSON Schema (a mapping) or a pydantic model class; got {type(schema).__name__}"
        )
    if schema.get("type") == "json_schema":
        inner = schema.get("json_schema", schema)
        if isinstance(inner, Mapping) and isinstance(inner.get("schema"), Mapping):
            return dict(inner["schema"])
        raise TypeError("schema: a json_schema response format without its 'schema'")
    if schema.get("type") in _OPENAPI_TYPES:
        converted: dict[str, Any] = _json_schema(schema)
        return converted
    return dict(schema)


# The schemas compiled lately, by compiler, canonical text and limits: a stream per request compiles its schema
# again otherwise (about 100 µs, more than reading a 1 KiB value). A compiled schema is immutable.
_COMPILED: dict[tuple[object, str, int, int], SchemaCheck] = {}
_COMPILED_SIZE: Final = 32


def compiled_schema(compile: CompileSchema, schema: dict[str, Any], limits: Limits) -> SchemaCheck:
    """``compile(schema, ...)`` for ``limits``, the one made before for the same schema when there is one."""
    key = (compile, canonical(schema), limits.max_depth, limits.max_validation_steps)
    check = _COMPILED.get(key)
    if check is None:
        check = compile(schema, limits.max_depth, limits.max_validation_steps)
        while len(_COMPILED) >= _COMPILED_SIZE:
            _COMPILED.pop(next(iter(_COMPILED)), None)
        _COMPILED[key] = check
    return check


def _json_schema(node: Any) -> Any:
    """A Gemini ``Schema`` (OpenAPI's subset) as the JSON Schema it means.

    Types are lowercase, ``nullable`` is a ``null`` type, and ``propertyOrdering`` (an order for the model to write
    in) is left out.
    """
    if not isinstance(node, Mapping):
        return node
    converted: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("propertyOrdering", "nullable"):
            continue
        if key == "type" and isinstance(value, str):
            converted[key] = value.lower()
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            converted[key] = {name: _json_schema(each) for name, each in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            converted[key] = [_json_schema(each) for each in value]
        elif key == "items":
            converted[key] = _json_schema(value)
        else:
            converted[key] = value
    if node.get("nullable") is True and isinstance(converted.get("type"), str):
        converted["type"] = [converted["type"], "null"]
    return converted


# What the reading is at: before the value (whitespace, and with recovery a code fence or prose), in it, after it,
# stopped by text that is no JSON value, or broken by text that is not JSON.
_BEFORE: Final = "before"
_FENCE: Final = "fence"
_PROSE: Final = "prose"
_VALUE: Final = "value"
_AFTER: Final = "after"
_STOPPED: Final = "stopped"
_BROKEN: Final = "broken"


class ValueReading:
    """The text of one structured output read piece by piece: what to show after each piece, and the result."""

    def __init__(
        self,
        reader: ValueReaderLike,
        check: SchemaCheck,
        *,
        recover: bool,
        elements: str | None | Literal[True],
        check_element: SchemaCheck | None,
        max_text_bytes: int,
    ) -> None:
        """Read with ``reader``, check the whole value with ``check`` and each element with ``check_element``."""
        self._reader = reader
        self._check = check
        self._recover = recover
        self._elements = elements
        self._check_element = check_element
        self._max_text_bytes = max_text_bytes
        self._phase = _BEFORE
        self._pieces: list[str] = []
        self._size = 0
        self._characters = 0
        self._too_large = 0
        self._skipped = 0  # characters before the value: a fence, prose
        self._wrapped_at: int | None = None
        self._fence = ""
        self._value = bytearray()
        self._after: list[str] = []
        self._verdict: tuple[str, int | None, str | None] = ("incomplete", None, None)
        self._emitted = 0

    def read(self, text: str) -> Iterator[ObjectEvent]:
        """Read the next piece of the text; the snapshot (and the elements) it completes."""
        if not text:
            return
        data = text.encode("utf-8", "surrogatepass")
        if self._too_large or self._size + len(data) > self._max_text_bytes:
            self._too_large += len(data)
            return
        self._size += len(data)
        self._pieces.append(text)
        offset = self._characters
        self._characters += len(text)
        if self._phase == _VALUE:  # the common case: the whole piece is the value's
            yield from self._feed(data)
            return
        at = self._before_value(text, offset) if self._phase in (_BEFORE, _FENCE, _PROSE) else 0
        if self._phase == _VALUE:
            yield from self._feed(text[at:].encode("utf-8", "surrogatepass"))
        elif self._phase == _AFTER:
            self._after.append(text[at:])

    def _before_value(self, text: str, offset: int) -> int:
        """Read ``text`` up to where the value starts (the phase is then ``_VALUE``); where it starts, or the end.

        Without recovery, the first character that can start no JSON value stops the reading. With it, a code fence's
        opening (three backticks and a language name) and prose are passed over, up to the first ``{`` or ``[``.
        """
        position = 0
        while position < len(text):
            character = text[position]
            if self._phase == _FENCE:
                if len(self._fence) < 3 and character != "`":
                    self._phase = _PROSE  # not a fence: what came is prose, and so is this character
                    continue
                if len(self._fence) < 3 or character.isalnum() or character in "_+-.":
                    self._fence += character
                    self._skipped += 1
                    position += 1
                    continue
                self._phase = _BEFORE  # the fence is open: the value may start after whitespace
                continue
            if self._phase == _PROSE:
                if character in "{[":
                    self._phase = _VALUE
                    return position
                self._skipped += 1
                position += 1
                continue
            if character in _WHITESPACE:
                position += 1
                continue
            if character in "{[" or character in _SCALAR_STARTS:
                self._phase = _VALUE
                return position
            if not self._recover:
                self._phase = _STOPPED
                self._wrapped_at = offset + position
                return len(text)
            self._phase = _FENCE if character == "`" and not self._fence else _PROSE
        return len(text)

    def _feed(self, data: bytes) -> Iterator[ObjectEvent]:
        before = len(self._value)
        state, at, _kind = self._verdict = self._reader.feed(data)
        own = len(data)
        if state == "complete" and at is not None:
            own = at - before
            self._phase = _AFTER
            self._after.append(data[own:].decode("utf-8", "surrogatepass"))
        elif state == "invalid":
            own = max(0, (at or 0) - before)
            self._phase = _BROKEN
        own_data = data if own == len(data) else data[:own]
        self._value += own_data
        # (Whitespace outside strings is JSON's four; any other space byte breaks the value, so `isspace` decides.)
        if own_data and not own_data.isspace():
            snapshot = self._reader.snapshot()
            yield ObjectSnapshot(snapshot)
            if self._elements is not None:
                yield from self._new_elements(snapshot)

    def _new_elements(self, snapshot: Any) -> Iterator[ObjectElement]:
        array = (
            snapshot if self._elements is True else snapshot.get(self._elements) if isinstance(snapshot, dict) else None
        )
        if not isinstance(array, list) or len(array) <= self._emitted:
            return
        whole = len(array)
        last = array[-1]
        if isinstance(last, Pending) or any(last is value for value in self._reader.open_values()):
            whole -= 1
        for index in range(self._emitted, whole):
            element = array[index]
            found: tuple[Violation, ...] = ()
            if self._check_element is not None:
                text = json.dumps(element, ensure_ascii=False, allow_nan=False)
                found = tuple(self._check_element(text))
            yield ObjectElement(index, element, found)
        self._emitted = max(self._emitted, whole)

    def end(self, stream: StreamResult | None, *, missing: str = "") -> ObjectResult:
        """The result once the text ended."""
        text = "".join(self._pieces)
        found: list[Violation] = list(stream.violations) if stream is not None else []
        finish_reason = stream.finish_reason if stream is not None else None
        if self._too_large:
            found.append(
                violation(
                    ViolationCode.TEXT_TOO_LARGE,
                    f"the text passed Limits.max_text_bytes ({self._max_text_bytes}); {self._too_large} bytes not read",
                    data={"limit": self._max_text_bytes, "bytes": self._too_large},
                )
            )
        if finish_reason == "refusal":  # Anthropic's: the text is what the model said instead
            return ObjectResult(None, tuple(found), text, text, finish_reason, stream)
        refusal = _refusal_of_first_choice(stream)
        if refusal is not None:  # OpenAI's: said in `refusal` deltas, apart from the text
            return ObjectResult(None, tuple(found), text, refusal, finish_reason, stream)
        value = self._value_found(found, missing)
        return ObjectResult(value, tuple(found), text, None, finish_reason, stream)

    def _value_found(self, found: list[Violation], missing: str) -> Any:
        """The value read (None when none was), with the text's and the schema's violations added to ``found``."""
        if self._phase == _STOPPED:
            start = "".join(self._pieces)[self._wrapped_at or 0 :][:40]
            found.append(
                violation(
                    ViolationCode.WRAPPED_OUTPUT,
                    f"the text opens with {json.dumps(start, ensure_ascii=False)}, not a JSON value; pass recover=True "
                    "to read the value inside prose or a code fence",
                    offset=self._wrapped_at,
                )
            )
            return None
        if self._phase in (_BEFORE, _FENCE, _PROSE):
            found.append(violation(ViolationCode.MISSING_OUTPUT, missing or "the stream carried no JSON value"))
            return None
        if self._phase == _VALUE:
            self._verdict = self._reader.finish()
            if self._verdict[0] == "complete":
                self._phase = _AFTER
        state, at, kind = self._verdict
        if state == "invalid":
            code = ViolationCode.TOO_DEEP if kind == "too_deep" else ViolationCode.INVALID_JSON
            found.append(violation(code, f"the value is not JSON: {kind} at byte {at} of it", offset=at))
            return None
        if state == "incomplete":
            found.append(violation(ViolationCode.TRUNCATED, "the text ended before the JSON value did"))
            return None
        found.extend(
            violation(
                ViolationCode.DUPLICATE_KEY, f"a key given twice (the last is kept) at {path}", path=path, offset=at
            )
            for path, at in self._reader.take_duplicate_keys()
        )
        found.extend(self._around())
        value_text = self._value.decode("utf-8", "surrogatepass")
        try:
            value = json.loads(value_text)
        except (ValueError, RecursionError) as error:
            found.append(violation(ViolationCode.INVALID_JSON, f"the value has no Python form: {error}"))
            return None
        found.extend(self._check(value_text))
        return value

    def _around(self) -> list[Violation]:
        """Text around the value: recovered (``REPAIRED``) when asked, else text after it is ``TRAILING_DATA``."""
        after = "".join(self._after).strip()
        if self._recover and (self._skipped or after):
            what = "inside a code fence" if self._fence else "inside prose"
            return [
                violation(
                    ViolationCode.REPAIRED,
                    f"the value was read from {what}: {self._skipped} characters before it and {len(after)} after it",
                    data={"before": self._skipped, "after": len(after)},
                )
            ]
        if after:
            return [
                violation(
                    ViolationCode.TRAILING_DATA,
                    f"text after the JSON value: {json.dumps(after[:40], ensure_ascii=False)}; pass recover=True to "
                    "accept it",
                    offset=len(self._value),
                )
            ]
        return []


def _refusal_of_first_choice(stream: StreamResult | None) -> str | None:
    """What choice 0, the one whose text is read, said in ``refusal`` deltas (None when nothing)."""
    if stream is None:
        return None
    return next((choice.refusal for choice in stream.choices if choice.choice == 0), None)


class _Route:
    """Which pieces of a stream's events are the value's: the first choice's text, or its call to ``tool``'s arguments.

    The stream's end ends the reading.
    """

    def __init__(self, reading: ValueReading, tool: str | None, outcome: list[ObjectResult]) -> None:
        self.reading = reading
        self.tool = tool
        self.outcome = outcome
        self.seq: int | None = None

    def piece(self, event: object) -> str:
        """The piece of the value ``event`` carries ("" for none)."""
        if isinstance(event, TextDelta):
            return event.text if self.tool is None and event.choice == 0 else ""
        if isinstance(event, ArgumentsDelta):
            return event.fragment if event.seq == self.seq else ""
        if isinstance(event, ToolCallStarted):
            if self.tool is not None and self.seq is None and event.choice == 0 and event.name == self.tool:
                self.seq = event.seq
        elif isinstance(event, Finished):
            missing = (
                f"the stream carried no call to {self.tool!r}" if self.tool is not None and self.seq is None else ""
            )
            self.outcome.append(self.reading.end(event.result, missing=missing))
        return ""


def read_events(
    events: EventStream, reading: ValueReading, tool: str | None, outcome: list[ObjectResult]
) -> Iterator[ObjectEvent]:
    """The value in a stream's events: the first choice's text, or the arguments of its call to ``tool``."""
    route = _Route(reading, tool, outcome)
    try:
        for event in events:
            yield from reading.read(route.piece(event))
    finally:
        events.close()


def read_texts(texts: Iterable[object], reading: ValueReading, outcome: list[ObjectResult]) -> Iterator[ObjectEvent]:
    """The value in plain text deltas."""
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"text deltas must be str; item {position} is {type(text).__name__}")
        yield from reading.read(text)
    outcome.append(reading.end(None))


async def aread_events(
    events: AsyncEventStream, reading: ValueReading, tool: str | None, outcome: list[ObjectResult]
) -> AsyncIterator[ObjectEvent]:
    """``read_events`` over an async stream."""
    route = _Route(reading, tool, outcome)
    try:
        async for event in events:
            for found in reading.read(route.piece(event)):
                yield found
    finally:
        await events.aclose()


async def aread_texts(texts: Any, reading: ValueReading, outcome: list[ObjectResult]) -> AsyncIterator[ObjectEvent]:
    """``read_texts`` over an async iterable of text deltas."""
    position = 0
    async for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"text deltas must be str; item {position} is {type(text).__name__}")
        position += 1
        for found in reading.read(text):
            yield found
    outcome.append(reading.end(None))


class ObjectStream(ClosingBlock, Iterator[ObjectEvent]):
    """The snapshots (and elements) of one structured output as it arrives; ``result`` once it ended.

    The source is closed at the end, on an error, and when this is closed (``with`` closes it).
    """

    def __init__(self, events: Iterator[ObjectEvent], outcome: list[ObjectResult]) -> None:
        """Wrap the reading of a source (use ``toolwire.stream_object`` rather than this)."""
        self._events = events
        self._outcome = outcome

    def __iter__(self) -> ObjectStream:
        """Return self."""
        return self

    def __next__(self) -> ObjectEvent:
        """The next snapshot or element."""
        return next(self._events)

    @property
    def result(self) -> ObjectResult:
        """The value and its violations; the rest of the stream is read first when iteration has not ended.

        Raises:
            ValueError: The stream was closed before its end.
        """
        for _ in self._events:
            pass
        if not self._outcome:
            raise ValueError("the stream was closed before its end: it has no result")
        return self._outcome[0]

    def close(self) -> None:
        """Stop reading and close the source (idempotent)."""
        close = getattr(self._events, "close", None)
        if close is not None:
            close()


class AsyncObjectStream(AcloseBlock, AsyncIterator[ObjectEvent]):
    """The async twin of ``ObjectStream``: ``async for snapshot in ...``; ``await stream.aresult()`` at the end."""

    def __init__(self, events: AsyncIterator[ObjectEvent], outcome: list[ObjectResult]) -> None:
        """Wrap the reading of an async source (use ``toolwire.astream_object`` rather than this)."""
        self._events = events
        self._outcome = outcome

    def __aiter__(self) -> AsyncObjectStream:
        """Return self."""
        return self

    async def __anext__(self) -> ObjectEvent:
        """The next snapshot or element."""
        return await self._events.__anext__()

    @property
    def result(self) -> ObjectResult:
        """The value and its violations once iteration has ended.

        Raises:
            ValueError: Iteration has not reached the end.
        """
        if not self._outcome:
            raise ValueError("iterate the stream to its end first (or await aresult())")
        return self._outcome[0]

    async def aresult(self) -> ObjectResult:
        """The result, reading the rest of the stream first."""
        async for _ in self._events:
            pass
        return self.result

    async def aclose(self) -> None:
        """Stop reading and close the source (idempotent)."""
        close = getattr(self._events, "aclose", None)
        if close is not None:
            await close()


def element_schema(schema: Mapping[str, Any], elements: str | Literal[True]) -> dict[str, Any]:
    """The schema of the items of the array ``elements`` names, with the root's definitions its references need.

    Raises:
        ValueError: The schema names no such array (``items`` of the root, or of the root's member ``elements``).
    """
    node: Any = schema
    where = "the schema"
    if elements is not True:
        properties = schema.get("properties")
        node = properties.get(elements) if isinstance(properties, Mapping) else None
        where = f"the schema's member {elements!r}"
    node = _local(node, schema)
    items = node.get("items") if isinstance(node, Mapping) else None
    if not isinstance(items, Mapping):
        raise ValueError(
            f"elements={elements!r}: {where} has no 'items' schema to check each element with; elements=True reads a "
            "top-level array, elements='name' the array member 'name' of a top-level object"
        )
    carried = {key: schema[key] for key in ("$schema", "$defs", "definitions") if key in schema}
    return {**carried, **_local(items, schema)}


def _local(node: Any, root: Mapping[str, Any]) -> Any:
    """``node``, or what its local reference (``#/$defs/Name``, ``#/definitions/Name``) names in ``root``."""
    reference = node.get("$ref") if isinstance(node, Mapping) else None
    if not isinstance(reference, str) or not reference.startswith("#/"):
        return node
    target: Any = root
    for token in reference[2:].split("/"):
        target = target.get(token.replace("~1", "/").replace("~0", "~")) if isinstance(target, Mapping) else None
    return target if isinstance(target, Mapping) else node
