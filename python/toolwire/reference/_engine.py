"""The reference engine: a wire format's decoder in front of the accumulator, one chunk or event at a time.

Chat Completions chunks (dicts or the openai SDK's objects) are read as they are; an event of any other format is
read as the JSON it serializes to. The format is ``format=`` or the first event that identifies one
(``docs/semantics.md``, "Every wire format").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolwire._model import InvalidToolCall, Limits, StreamResult, TextDialect, ToolCall, Violation, replaced
from toolwire._pipeline._choice import ToolChoice
from toolwire._pipeline._sources import raw_bytes
from toolwire.errors import MalformedChunkError
from toolwire.formats import check_format, event_json
from toolwire.formats.openai_completions import OBJECT as COMPLETIONS_OBJECT
from toolwire.reference._accumulator import Accumulator, Emit
from toolwire.reference._framing import Event, Framer, FramingError
from toolwire.reference._json import loads
from toolwire.reference._snapshot import Partial
from toolwire.reference._text_calls import TextCalls
from toolwire.reference.decode import Decoder, decoder_for, detect, error_object, is_error
from toolwire.reference.decode.openai_chat import read_chunk
from toolwire.reference.decode.openai_completions import undecided

if TYPE_CHECKING:
    from toolwire.registry import CompiledTools


class Engine:
    """Reads chunks into an ``Accumulator`` (the ``Engine`` interface of ``toolwire._pipeline._protocol``)."""

    def __init__(
        self,
        *,
        tool_choice: ToolChoice,
        emit: Emit,
        limits: Limits,
        on_violation: Callable[[Violation], object] | None,
        validators: CompiledTools | None = None,
        format: str | None = None,
        progress: bool = False,
        dialect: TextDialect | None = None,
    ) -> None:
        """Start one stream; with ``validators``, calls are checked against the declared tools.

        ``format`` names the wire format (one of ``WIRE_FORMATS``); None detects it from the stream. With
        ``progress``, the stream's steps are kept for ``take_progress`` and each call's partial arguments for
        ``snapshot``. With ``dialect``, the calls a model wrote into the text are read in it (raw values typed by the declared
        tools' schemas), and a chunk that is a ``str`` is a delta of the model's text (a
        source of text deltas), not a chunk.
        """
        self._dialect = dialect
        self._logs_progress = progress
        tools = None if validators is None else validators.parameters()
        self.text_deltas = dialect is not None and format is None
        self._accumulator = Accumulator(
            emit=emit,
            limits=limits,
            tool_choice=tool_choice,
            log_violations=on_violation is not None,
            validators=validators,
            log_steps=progress,
            text_calls=None if dialect is None else TextCalls(dialect, tools, limits),
        )
        self._progress: list[tuple[Any, ...]] = []
        self._partials: dict[int, Partial] = {}
        self._on_violation = on_violation
        self._chunks_read = 0
        # ``end`` has begun (no more input), and its decoder step is done: a second ``end`` after an exception resumes it.
        self._ended = False
        self._decoder_ended = False
        self._format = check_format(format)
        self._named = self._format is not None
        self._decoder: Decoder | None = None
        if self._format is not None and self._format != "openai-chat":
            self._decoder = decoder_for(self._format, self._accumulator)
        self._framer: Framer | None = None
        self._max_event_bytes = limits.max_event_bytes
        # Events read, and whether one was the format's own (or an error): a stream with none is not understood.
        self._events = 0
        self._recognised = False
        # A chunk that decides nothing between completions and chat came before the format was known (see
        # ``undecided``): a stream of nothing else is a chat stream, as it was before completions.
        self._undecided = False
        # A read's malformed event, held back while the calls its earlier events made ready are handed over: raised
        # by the next call, as a chunk source raises at the chunk after handing over the calls before it.
        self._deferred: MalformedChunkError | None = None
        # Whether calls were waiting when the event being read began: a malformed event that came when none was is
        # raised at once, as a malformed chunk is (the calls it made ready itself wait for the next step, as its do).
        self._ready_before_event = False

    def feed(self, chunk: Any) -> list[ToolCall | InvalidToolCall]:
        """Read one chunk; return the calls it made ready."""
        if self._ended:
            raise ValueError("the stream has ended; no more chunks can be fed")
        self._read(chunk)
        return self._accumulator.take_ready()

    def _read(self, chunk: Any, *, decoded: bool = False, name: str | None = None) -> None:
        """Read one chunk: a Python object, or (``decoded``) the JSON value of a raw event named ``name``."""
        number = self._chunks_read
        self._chunks_read += 1
        try:
            self._dispatch(chunk, number, decoded=decoded, name=name)
        finally:
            # What the chunk did before a malformed field still happened: it is reported either way.
            self._notify()
        self._events += 1  # counted once read: a malformed event raises, it is never a stream's only news

    def _dispatch(self, chunk: Any, number: int, *, decoded: bool, name: str | None) -> None:
        if isinstance(chunk, str) and self.text_deltas and not decoded:
            self._text_delta(chunk)
            return
        if self._format == "openai-chat" or (self._format is None and not decoded and _chat_decides(chunk)):
            self._format = "openai-chat"
            read_chunk(self._accumulator, chunk, number)
            if not self._recognised:
                self._recognised = _chat_recognised(chunk) if not decoded else _recognised(chunk, name, self._format)
            return
        event = chunk if decoded else _as_json(chunk, number)
        if not isinstance(event, dict):
            raise MalformedChunkError(
                number, "", f"expected a mapping or an object with attributes, got {type(event).__name__}"
            )
        if self._decoder is None:
            if undecided(event):
                self._undecided = True
                self._recognised = self._recognised or is_error(event)
                _read_undecided(self._accumulator, event)
                return
            detected = detect(event, name)
            if detected is None:
                self._recognised = self._recognised or is_error(event)
                _unidentified(self._accumulator, event)
                return
            self._format = detected
            self._recognised = True
            if detected == "openai-chat":
                read_chunk(self._accumulator, event, number)
                return
            self._decoder = decoder_for(detected, self._accumulator)
        if not self._recognised:
            self._recognised = _recognised(event, name, self._format)
        self._decoder.read(event, number, name)

    def _text_delta(self, delta: str) -> None:
        """A delta of the model's text: a source of text deltas is that and nothing else, from its first chunk on."""
        if self._events == 0:
            self._accumulator.text_source()
            self._recognised = True
        elif not self._accumulator.is_text_source:
            raise MalformedChunkError(
                self._chunks_read - 1, "", "a text delta (str) in a stream of chunks: a source is one or the other"
            )
        self._accumulator.generated_text(0, delta)

    def pull(self, chunks: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """Read chunks until at least one call is ready; None once ``chunks`` is exhausted."""
        for chunk in chunks:
            ready = self.feed(chunk)
            if ready:
                return ready
        return None

    def feed_bytes(self, data: Any) -> list[ToolCall | InvalidToolCall]:
        """Read a raw body's next bytes (any split); return the calls they made ready."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"raw stream chunks must be bytes, bytearray or memoryview; got {type(data).__name__}")
        return self._frame(bytes(data), item=False)

    def feed_item(self, item: Any) -> list[ToolCall | InvalidToolCall] | None:
        """Read one item of a raw source (bytes or text: a read or a line, as the stream tells); return the calls.

        None when it made none ready, as the core's engine returns; an engine made with ``progress`` returns a list
        every time, as the core's does.
        """
        ready = self._frame(raw_bytes(item), item=True)
        return ready if ready or self._logs_progress else None

    def _frame(self, data: bytes, *, item: bool) -> list[ToolCall | InvalidToolCall]:
        if self._ended:
            raise ValueError("the stream has ended; no more bytes can be fed")
        self._raise_deferred()
        if self._framer is None:
            self._framer = Framer(self._max_event_bytes)
        try:
            if item:
                self._framer.feed_item(data, self._read_event)
            else:
                self._framer.feed(data, self._read_event)
        except FramingError as error:
            self._defer(MalformedChunkError(self._chunks_read, "", str(error)), self._accumulator.has_ready())
        except MalformedChunkError as error:
            self._defer(error, self._ready_before_event)
        return self._accumulator.take_ready()

    def _defer(self, error: MalformedChunkError, ready_before: bool) -> None:
        """Hold a read's malformed event back while calls its earlier events made ready wait to be returned."""
        if not ready_before:
            raise error
        self._deferred = error

    def _raise_deferred(self) -> None:
        if self._deferred is not None:
            error, self._deferred = self._deferred, None
            raise error

    def pull_items(self, items: Iterator[Any]) -> list[ToolCall | InvalidToolCall] | None:
        """``pull`` over the items of a raw source (bytes or text: reads or lines, as the stream tells)."""
        self._raise_deferred()
        for item in items:
            ready = self.feed_item(item)
            if ready:
                return ready
        return None

    def _read_event(self, event: Event) -> None:
        """One event's data (a server-sent event's, a JSON element, an AWS message's event): a chunk's JSON, or nothing.

        Nothing: ``[DONE]``, or a keep-alive with empty data.
        """
        data = event.data.strip(b" \t\n\r\x0c")  # ASCII whitespace, as the core trims it
        if not data or data == b"[DONE]":
            return
        number = self._chunks_read
        self._ready_before_event = self._accumulator.has_ready()
        try:
            chunk = loads(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            self._chunks_read += 1  # an event with data is a chunk, readable or not
            raise MalformedChunkError(number, "", f"the chunk is not UTF-8: {error}") from None
        except ValueError as error:
            self._chunks_read += 1
            raise MalformedChunkError(number, "", f"not JSON: {error}") from None
        name = None if event.kind in (b"", b"message") else event.kind.decode("utf-8", "replace")
        self._read(chunk, decoded=True, name=name)

    def end(self) -> list[ToolCall | InvalidToolCall]:
        """End the stream; return the calls only the end made ready.

        After an exception, calling it again finishes what is left of the end and returns the calls no step returned.
        """
        self._raise_deferred()
        self._ended = True
        if self._framer is not None:
            try:
                self._framer.finish(self._read_event)
            except FramingError as error:
                # The framer is kept: a body that failed to frame fails again at a second end, never ends clean.
                raise MalformedChunkError(self._chunks_read, "", str(error)) from None
            self._framer = None
        if not self._decoder_ended:
            self._decoder_ended = True
            if self._format is None and self._undecided:
                # Only chunks of empty ``choices`` came: an OpenAI stream, chat's by the table's rows (as it always was).
                self._format = "openai-chat"
                self._recognised = True
            try:
                if self._decoder is not None:
                    self._decoder.end()
                if not self._recognised:
                    _unrecognized(self._accumulator, self._events, self._format if self._named else None)
            finally:
                self._notify()  # what the end did before a malformed held event still happened
        self._accumulator.end()
        self._notify()
        return self._accumulator.take_ready()

    def _notify(self) -> None:
        """``on_violation`` sees a chunk's violations once the chunk has been applied, in the order found."""
        if self._on_violation is not None:
            for violation in self._accumulator.take_log():
                self._on_violation(violation)

    def result(self) -> StreamResult:
        """The result so far, with the turn's other pieces (``StreamResult.output``) and the format it was read as."""
        result = self._accumulator.result(output=() if self._decoder is None else self._decoder.output())
        usage = None if self._decoder is None else self._decoder.usage()
        if usage is not None:
            result = replaced(result, usage=usage)
        return replaced(result, format=self._format)

    def has_stream_errors(self) -> bool:
        """Whether a stream-level finding of error severity was made (see ``toolwire._core.Engine``)."""
        return self._accumulator.has_stream_errors()

    def take_progress(self) -> list[tuple[Any, ...]]:
        """The stream's progress since the last take, in order (see ``toolwire._core.Engine.take_progress``)."""
        self._record_progress()
        progress, self._progress = self._progress, []
        return progress

    def snapshot(self, seq: int) -> Any:
        """The arguments of call ``seq`` as they stand (see ``toolwire.Pending``); None before any arrived."""
        self._record_progress()
        partial = self._partials.get(seq)
        return None if partial is None else partial.snapshot()

    def _record_progress(self) -> None:
        for step in self._accumulator.take_steps():
            if step[0] == "arguments":
                _, seq, choice, data = step
                self._partials.setdefault(seq, Partial()).feed(data)
                step = ("arguments", seq, choice, data.decode("utf-8", "replace"))
            self._progress.append(step)

    def amend(self, call: ToolCall | InvalidToolCall) -> None:
        """Replace the handed-over call with the same (choice, seq) by ``call`` (a repaired one)."""
        self._accumulator.amend(call)


def _chat_like(chunk: Any) -> bool:
    """A Chat Completions chunk: non-null ``choices``, by key or attribute, unless it is a legacy completions chunk.

    Null is absent, as the detection of the same chunk's bytes has it; the completions hint is asked first there too.
    """
    choices = _member(chunk, "choices")
    return choices is not None and not _completions_like(chunk, choices)


def _chat_decides(chunk: Any) -> bool:
    """A chunk, before the format is known, that makes the stream Chat Completions: a chat chunk that decides.

    One of empty ``choices`` and no ``object`` naming chat decides nothing between chat and completions (``undecided``):
    it is read as the JSON it serializes to, which is held undecided.
    """
    if not _chat_like(chunk):
        return False
    choices = _member(chunk, "choices")
    if not isinstance(choices, (list, tuple)) or choices:
        return True
    kind = _member(chunk, "object")
    return isinstance(kind, str) and kind.startswith("chat.completion")


def _read_undecided(accumulator: Accumulator, event: dict[str, Any]) -> None:
    """A chunk that decides nothing between completions and chat, read as both read it: its error, else its usage."""
    error = event.get("error")
    if error is not None:
        accumulator.provider_error(error)
    elif event.get("usage") is not None:
        accumulator.usage(event["usage"])


def _completions_like(chunk: Any, choices: Any) -> bool:
    """A completions chunk object (the openai SDK's ``Completion``, or its dict), by the completions format's hint.

    A ``text_completion`` object, or a first choice with ``text`` and no ``delta``, read by key or attribute.
    """
    if _member(chunk, "object") == COMPLETIONS_OBJECT:
        return True
    if not isinstance(choices, (list, tuple)) or not choices:
        return False
    return _member(choices[0], "text") is not None and _member(choices[0], "delta") is None


def _member(chunk: Any, key: str) -> Any:
    """A mapping's member by key, any other object's by attribute (a string, bytes or a sequence has none)."""
    if isinstance(chunk, Mapping):
        return chunk.get(key)
    if isinstance(chunk, (str, bytes, bytearray, list, tuple)):
        return None
    return getattr(chunk, key, None)


def _as_json(chunk: Any, number: int) -> Any:
    """An event given as a Python object (a dict, an SDK's pydantic event), as the JSON value it serializes to."""
    try:
        return json.loads(event_json(chunk))
    except TypeError as error:
        raise MalformedChunkError(number, "", str(error)) from None


def _chat_recognised(chunk: Any) -> bool:
    """A Chat Completions chunk object of the format's own (``choices``, a ``chat.completion`` object) or an error."""
    if _chat_like(chunk):
        return True
    kind = _member(chunk, "object")
    return _member(chunk, "error") is not None or (isinstance(kind, str) and kind.startswith("chat.completion"))


def _recognised(event: dict[str, Any], name: str | None, format: str | None) -> bool:
    """Whether an event is of the stream's format (the detection table says so) or an error."""
    return is_error(event) or detect(event, name) == format


def _unrecognized(accumulator: Accumulator, events: int, named: str | None) -> None:
    """``UNRECOGNIZED_STREAM``: no event of the stream was understood (``docs/semantics.md``, "Raw bodies")."""
    if events == 0:
        message = "the stream held no event: an empty body or source is no response of any format"
    elif named is not None:
        message = f"none of the stream's {events} event(s) is a {named} event (is the stream of another format?)"
    else:
        message = (
            f"none of the stream's {events} event(s) identifies a wire format (docs/semantics.md, \"Every wire "
            'format"); name it with format= if it is one'
        )
    accumulator.unrecognized(message, {"events": events, "format": named})


def _unidentified(accumulator: Accumulator, event: dict[str, Any]) -> None:
    """An event before the format is known that identifies none: an error event, or nothing."""
    error = event.get("error")
    if error is not None:
        accumulator.provider_error(error)
    elif event.get("type") == "error" or error_object(event):
        accumulator.provider_error(event)
