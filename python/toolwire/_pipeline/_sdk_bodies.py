"""The official SDKs' streams read from their HTTP response's bytes (the fast path), not from the SDK's objects.

``reassemble(client.chat.completions.create(..., stream=True))`` used to pay for the SDK's own decoding (its
server-sent-event decoder, ``json.loads`` and a pydantic model per event: over 99% of the time) before toolwire read
each object. When the source is an official SDK stream that nothing has read yet, toolwire reads the bytes of its
``httpx`` response itself, as it reads ``response.iter_bytes()``, and closes the SDK stream as it always did.

Covered (``SdkSource.of`` / ``AsyncSdkSource.of``): openai ``Stream``/``AsyncStream`` (Chat Completions, Responses,
legacy completions, told apart by the SDK's own cast type), the ``chat.completions.stream(...)`` and
``responses.stream(...)`` managers, anthropic ``Stream``/``AsyncStream`` (``messages.create(stream=True)``) and the
``messages.stream(...)`` manager, sync and async; the helper streams the managers' ``__enter__`` returns are
recognized (their format, their closing; the chat helper's chunks read from its ``chunk`` events). Every SDK
internal the bypass relies on is checked when reading starts (``_body``, ``_helper_body``); if any does not hold,
the SDK's objects are read as before (the object path), never bytes read wrongly:

- the SDK's version is within ``SUPPORTED`` (the range the tests ran);
- the stream is exactly the SDK's class (a subclass may read differently) and its cast type is one known here;
- the SDK's iterator (``_iterator``, and a helper stream's own) has not started: a generator not yet run, or, for
  anthropic's lazily made one, not made;
- its decoder (``_decoder``) is exactly the SDK's ``SSEDecoder`` (Bedrock's and Vertex's clients decode another
  framing), its request options (``_options``) ask for the default legacy stream mode without synthesized events;
- ``response`` is the ``Response`` of the HTTP library the SDK's streaming module imports (``httpx2`` or ``httpx``),
  its body either buffered whole (``_content``, which ``iter_bytes`` replays: a mock transport's) or neither closed
  nor consumed, with no anthropic stream observer (tracing sees each object, so it keeps the object path);
- a Responses helper was opened without ``starting_after`` (which hides events).

A helper stream the caller holds (``with client.messages.stream(...) as stream``) keeps the object path: its own
state (``get_final_message()``, ``get_final_completion()``, its snapshots) is the caller's to read afterwards. A
manager given as the source is entered here, and its helper stream, which nobody else sees, is read from its bytes.

What changes with the bypass: the SDK raises on an error event (``APIError``); toolwire reads it as its raw path
does, a ``PROVIDER_ERROR`` violation (``docs/semantics.md``, "Official SDK streams"). A chat stream's ``usage`` is
made the SDK's ``CompletionUsage`` (``SdkEngine``), as the object path keeps it. The object path is forced by reading
one event first.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from toolwire._model import StreamResult, replaced
from toolwire._pipeline._protocol import DelegatingEngine, Engine
from toolwire._pipeline._sources import AsyncSource, Source
from toolwire.formats import WireFormat

if TYPE_CHECKING:
    from typing_extensions import Self  # typing's from Python 3.11

    from toolwire._pipeline._options import Options

__all__ = [
    "SUPPORTED",
    "AsyncSdkSource",
    "SdkEngine",
    "SdkSource",
    "agreed_format",
    "async_sdk_source",
    "sdk_engine",
    "sdk_source",
]

SUPPORTED: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "openai": ((1, 40), (4, 0)),
    "anthropic": ((0, 40), (3, 0)),
}
"""Per SDK, the versions whose internals the bypass was tested on: from the first (included) to the second
(excluded). Any other version takes the object path."""

_SDK_PACKAGES = ("openai", "anthropic")  # where every class recognized here lives (`openai.Stream` says `openai`)
_BYPASS = True  # tests only: False forces the object path on every SDK stream


def agreed_format(found: WireFormat, given: WireFormat | None) -> WireFormat:
    """The wire format of an SDK stream, which ``format=``, when given, must name.

    Raises:
        TypeError: ``format=`` names another format than the SDK stream's.
    """
    if given is not None and given != found:
        raise TypeError(f"format={given!r}, but the source is an SDK stream of {found!r}: leave format= out or name it")
    return found


# --- the SDKs, as imported by the user (never imported here) -------------------------------------------------------


def _module(name: str) -> ModuleType | None:
    """An already imported module (a source of an SDK's class means its SDK is imported)."""
    return sys.modules.get(name)


def _package(kind: type) -> str:
    return kind.__module__.partition(".")[0]


def _supported(package: str) -> bool:
    """Whether the installed ``package``'s version is within the range the bypass was tested on."""
    module = _module(package)
    version = getattr(module, "__version__", None)
    if package not in SUPPORTED or not isinstance(version, str):
        return False
    try:
        found = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return False
    low, high = SUPPORTED[package]
    return low <= found < high


def _attribute(module_name: str, *path: str) -> Any:
    """``module_name.path...`` if the module is imported and has it, else None."""
    value: Any = _module(module_name)
    for name in path:
        value = getattr(value, name, None)
    return value


def _cast_formats(package: str) -> list[tuple[Any, WireFormat]]:
    """The cast types of ``package``'s streams toolwire reads, each with its wire format."""
    if package == "openai":
        return [
            (_attribute("openai.types.chat", "ChatCompletionChunk"), "openai-chat"),
            (_attribute("openai.types.responses", "ResponseStreamEvent"), "openai-responses"),
            (_attribute("openai.types", "Completion"), "openai-completions"),
        ]
    return [(_attribute("anthropic.types", "RawMessageStreamEvent"), "anthropic-messages")]


def _raw_stream_format(source: object, is_async: bool) -> WireFormat | None:
    """The wire format of an SDK ``Stream``/``AsyncStream`` (exactly the SDK's class), from its cast type."""
    kind = type(source)
    package = _package(kind)
    if package not in SUPPORTED:
        return None
    streaming = _module(f"{package}._streaming")
    if kind is not getattr(streaming, "AsyncStream" if is_async else "Stream", None):
        return None
    cast_to = vars(source).get("_cast_to")
    for known, wire_format in _cast_formats(package):
        if known is not None and cast_to is known:
            return wire_format
    return None


# Helper streams and managers: (module, class name) → the format and the attribute holding the raw stream.
_HELPERS: dict[tuple[str, str], WireFormat] = {
    ("openai.lib.streaming.chat._completions", "ChatCompletionStream"): "openai-chat",
    ("openai.lib.streaming.chat._completions", "AsyncChatCompletionStream"): "openai-chat",
    ("openai.lib.streaming.responses._responses", "ResponseStream"): "openai-responses",
    ("openai.lib.streaming.responses._responses", "AsyncResponseStream"): "openai-responses",
    ("anthropic.lib.streaming._messages", "MessageStream"): "anthropic-messages",
    ("anthropic.lib.streaming._messages", "AsyncMessageStream"): "anthropic-messages",
}
_MANAGERS: dict[tuple[str, str], WireFormat] = {
    ("openai.lib.streaming.chat._completions", "ChatCompletionStreamManager"): "openai-chat",
    ("openai.lib.streaming.chat._completions", "AsyncChatCompletionStreamManager"): "openai-chat",
    ("openai.lib.streaming.responses._responses", "ResponseStreamManager"): "openai-responses",
    ("openai.lib.streaming.responses._responses", "AsyncResponseStreamManager"): "openai-responses",
    ("anthropic.lib.streaming._messages", "MessageStreamManager"): "anthropic-messages",
    ("anthropic.lib.streaming._messages", "AsyncMessageStreamManager"): "anthropic-messages",
}


def _known(table: dict[tuple[str, str], WireFormat], source: object, is_async: bool) -> WireFormat | None:
    """The format of ``source`` if it is exactly one of ``table``'s SDK classes (of the right flavour)."""
    kind = type(source)
    wire_format = table.get((kind.__module__, kind.__name__))
    if wire_format is None or kind.__name__.startswith("Async") != is_async:
        return None
    if getattr(_module(kind.__module__), kind.__name__, None) is not kind:
        return None
    return wire_format


# --- the checks: nothing read yet, and every internal as expected --------------------------------------------------


def _not_started(value: object, is_async: bool) -> bool:
    """Whether ``value`` is a generator (async generator) that has not run yet."""
    if is_async:
        if not inspect.isasyncgen(value):
            return False
        state = getattr(inspect, "getasyncgenstate", None)
        if state is not None:  # Python 3.12+
            return bool(state(value) == "AGEN_CREATED")
        frame = value.ag_frame  # Python 3.10 and 3.11: a created frame has run no instruction
        return frame is not None and not value.ag_running and frame.f_lasti <= 0
    return inspect.isgenerator(value) and inspect.getgeneratorstate(value) == inspect.GEN_CREATED


def _iterator_untouched(stream: object, is_async: bool) -> bool:
    """Whether the SDK stream's ``_iterator`` has not started.

    A generator not run yet, or (anthropic's, made on first use by a ``cached_property``) not made at all.
    """
    made = vars(stream).get("_iterator")
    if made is None:
        return isinstance(inspect.getattr_static(type(stream), "_iterator", None), _cached_property_types())
    return _not_started(made, is_async)


def _cached_property_types() -> tuple[type, ...]:
    from functools import cached_property

    compat = _attribute("anthropic._compat", "cached_property")
    return (cached_property, compat) if isinstance(compat, type) else (cached_property,)


def _response_unread(stream: object, package: str, is_async: bool) -> Any:
    """The stream's HTTP response if its body is there to read (and nothing else watches it), else None."""
    streaming = _module(f"{package}._streaming")
    http = getattr(streaming, "httpx2", None) or getattr(streaming, "httpx", None)  # the SDK's HTTP library
    response: Any = vars(stream).get("response")
    response_type = getattr(http, "Response", None)
    if not isinstance(response_type, type) or not isinstance(response, response_type):
        return None
    buffered = isinstance(vars(response).get("_content"), bytes)  # read whole already: ``iter_bytes`` replays it
    closed, consumed = getattr(response, "is_closed", None), getattr(response, "is_stream_consumed", None)
    if not buffered and (closed is not False or consumed is not False):
        return None  # closed, or read by someone else: the SDK's own error is raised on the object path
    if not callable(getattr(response, "aiter_bytes" if is_async else "iter_bytes", None)):
        return None
    if getattr(getattr(response, "stream", None), "stream_observer", None) is not None:
        return None  # anthropic's tracing observes each object
    return response


def _options_default(stream: object) -> bool:
    """The request asked for the SDK's default stream reading (legacy mode, no synthesized event/data pairs)."""
    options = vars(stream).get("_options", getattr(type(stream), "_options", None))
    if options is None:
        return True
    return getattr(options, "stream_mode", "legacy") == "legacy" and not getattr(
        options, "synthesize_event_and_data", None
    )


def _body(stream: object, is_async: bool) -> Any:
    """The response of an untouched SDK ``Stream``/``AsyncStream`` whose every internal holds, else None."""
    package = _package(type(stream))
    if not _BYPASS or not _supported(package) or _raw_stream_format(stream, is_async) is None:
        return None
    decoder = vars(stream).get("_decoder")
    if type(decoder) is not _attribute(f"{package}._streaming", "SSEDecoder"):
        return None  # a client with its own framing (anthropic's Bedrock and Vertex clients)
    if not _iterator_untouched(stream, is_async) or not _options_default(stream):
        return None
    return _response_unread(stream, package, is_async)


def _helper_body(helper: object, is_async: bool) -> Any:
    """The response under an untouched helper stream, else None.

    The helpers: ``ChatCompletionStream``, ``ResponseStream``, ``MessageStream`` and their async twins.
    """
    if not _BYPASS or _known(_HELPERS, helper, is_async) is None:
        return None
    state = vars(helper)
    if not _not_started(state.get("_iterator"), is_async):
        return None
    text_stream = state.get("text_stream", None)
    if "text_stream" in state and not _not_started(text_stream, is_async):
        return None  # anthropic's text_stream iterates the helper
    if state.get("_starting_after", None) is not None:
        return None  # a Responses helper that hides the events before a sequence number
    return _body(state.get("_raw_stream"), is_async)


def _chat_helper_chunks(events: Iterator[Any]) -> Iterator[Any]:
    """The object path of openai's ``ChatCompletionStream``: the SDK's chunk of each of its ``chunk`` events."""
    for event in events:
        if getattr(event, "type", None) == "chunk":
            yield event.chunk


async def _achat_helper_chunks(events: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for event in events:
        if getattr(event, "type", None) == "chunk":
            yield event.chunk


def _openai_errors(package: str) -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]] | None:
    """The transport errors openai's own iteration raises as its own, or None where the SDK lets them through.

    openai 3 raises ``APITimeoutError`` and ``APIConnectionError`` for them; openai 1 and anthropic do not.
    """
    helpers = _module(f"{package}._httpx2")
    timeouts, requests = getattr(helpers, "timeout_exceptions", None), getattr(helpers, "request_exceptions", None)
    if package != "openai" or not callable(timeouts) or not callable(requests):
        return None
    return tuple(timeouts()), tuple(requests())


def _reads(response: Any, package: str) -> Iterator[bytes]:
    """The response's decoded reads, transport errors raised as the SDK's own iteration raises them."""
    errors = _openai_errors(package)
    if errors is None:
        yield from response.iter_bytes()
        return
    sdk = _module(package)
    try:
        yield from response.iter_bytes()
    except errors[0] as error:
        raise sdk.APITimeoutError(request=response.request) from error  # type: ignore[union-attr]
    except errors[1] as error:
        raise sdk.APIConnectionError(request=response.request) from error  # type: ignore[union-attr]


async def _areads(response: Any, package: str) -> AsyncIterator[bytes]:
    errors = _openai_errors(package)
    sdk = _module(package)
    try:
        async for read in response.aiter_bytes():
            yield read
    except BaseException as error:
        if errors is not None and isinstance(error, errors[0]):
            raise sdk.APITimeoutError(request=response.request) from error  # type: ignore[union-attr]
        if errors is not None and isinstance(error, errors[1]):
            raise sdk.APIConnectionError(request=response.request) from error  # type: ignore[union-attr]
        raise


# --- the sources the pipeline reads --------------------------------------------------------------------------------


class _Source:
    """What a sync and an async SDK source share: the stream or manager, and how one is recognised."""

    __slots__ = ("_items", "_manager", "_stream", "bypassed", "format")
    _ASYNC: ClassVar[bool]

    def __init__(self, source: object, wire_format: WireFormat, manager: bool) -> None:
        self.format: WireFormat = wire_format
        self.bypassed = False  # whether the bytes were read (else the SDK's objects)
        self._manager: Any = source if manager else None
        self._stream: Any = None if manager else source
        self._items: Any = None

    @classmethod
    def of(cls, source: object) -> Self | None:
        """``source`` as such an SDK source if it is an official SDK stream or manager of the class's kind, else None."""
        if not type(source).__module__.startswith(_SDK_PACKAGES):
            return None  # every other source, told in ~0.1 µs
        if (found := _raw_stream_format(source, cls._ASYNC)) is not None or (
            found := _known(_HELPERS, source, cls._ASYNC)
        ) is not None:
            return cls(source, found, manager=False)
        if (found := _known(_MANAGERS, source, cls._ASYNC)) is not None:
            return cls(source, found, manager=True)
        return None


class SdkSource(_Source):
    """An official SDK stream (or a manager of one) as a source.

    Its items are its body's reads when the bypass holds, else its objects, as the object path reads them; ``close``
    closes it as the object path does (a manager is entered when reading starts and exited on close).
    """

    __slots__ = ()
    _ASYNC = False

    def __iter__(self) -> Iterator[Any]:
        self._items = items = self._read()
        return items

    def _read(self) -> Iterator[Any]:
        if self._manager is not None:
            self._stream = self._manager.__enter__()  # the request is sent when reading starts
        stream = self._stream
        # A helper stream the caller holds keeps its object path: its own state (``get_final_message()``...) is
        # the caller's to read afterwards. One entered here from its manager is seen by nobody else.
        response = _body(stream, False) or (_helper_body(stream, False) if self._manager is not None else None)
        if response is not None:
            self.bypassed = True
            yield from _reads(response, _package(type(stream)))
        elif _known(_HELPERS, stream, False) == "openai-chat":
            yield from _chat_helper_chunks(iter(stream))
        else:
            yield from stream

    def close(self) -> None:
        """Stop reading and close the SDK stream (its manager's ``__exit__`` for a manager)."""
        if self._items is not None:
            self._items.close()
        if self._manager is not None:
            if self._stream is not None:
                self._manager.__exit__(None, None, None)
        elif callable(close := getattr(self._stream, "close", None)):
            close()


class AsyncSdkSource(_Source):
    """The async twin of ``SdkSource``: an SDK ``AsyncStream``, async helper stream or async manager."""

    __slots__ = ()
    _ASYNC = True

    def __aiter__(self) -> AsyncIterator[Any]:
        self._items = items = self._read()
        return items

    async def _read(self) -> AsyncIterator[Any]:
        if self._manager is not None:
            self._stream = await self._manager.__aenter__()
        stream = self._stream
        response = _body(stream, True) or (_helper_body(stream, True) if self._manager is not None else None)
        items: AsyncIterator[Any]
        if response is not None:
            self.bypassed = True
            items = _areads(response, _package(type(stream)))
        elif _known(_HELPERS, stream, True) == "openai-chat":
            items = _achat_helper_chunks(stream.__aiter__())
        else:
            items = stream.__aiter__()
        try:
            async for item in items:
                yield item
        finally:
            if (aclose := getattr(items, "aclose", None)) is not None:
                await aclose()

    async def aclose(self) -> None:
        """Stop reading and close the SDK stream (its manager's ``__aexit__`` for a manager)."""
        if self._items is not None:
            await self._items.aclose()
        if self._manager is not None:
            if self._stream is not None:
                await self._manager.__aexit__(None, None, None)
            return
        close = getattr(self._stream, "aclose", None) or getattr(self._stream, "close", None)
        if callable(close):
            outcome = close()
            if inspect.isawaitable(outcome):
                await outcome


def _usage_model(package: str, wire_format: WireFormat) -> Any:
    """The SDK's model of a chunk's ``usage`` where the object path keeps the SDK's object (openai chat), else None."""
    if package != "openai" or wire_format != "openai-chat":
        return None
    construct = _attribute("openai._models", "construct_type")
    usage = _attribute("openai.types", "CompletionUsage")
    if not callable(construct) or not isinstance(usage, type):
        return None
    return lambda value: construct(type_=usage, value=value)


class SdkEngine(DelegatingEngine):
    """An engine over an SDK source, its result as the object path gives it.

    When the bypass read the bytes, a chat stream's ``usage`` is made the SDK's ``CompletionUsage``, as the object path
    keeps the chunk's; every other step is the engine's own.
    """

    __slots__ = ("_source",)

    def __init__(self, engine: Engine, source: SdkSource | AsyncSdkSource) -> None:
        super().__init__(engine)
        self._source = source

    def result(self) -> StreamResult:
        result = self._engine.result()
        source = self._source
        if not source.bypassed or not isinstance(result.usage, dict):
            return result
        model = _usage_model(_package(type(source._stream)), source.format)
        return result if model is None else replaced(result, usage=model(result.usage))


def sdk_engine(source: object, engine: Engine) -> Engine:
    """``engine``, wrapped in an ``SdkEngine`` when ``source`` is an SDK source."""
    return SdkEngine(engine, source) if isinstance(source, (SdkSource, AsyncSdkSource)) else engine


def sdk_source(source: Source, options: Options) -> Source:
    """``source``, or the ``SdkSource`` it is (its wire format then ``options.format``, checked against the given one).

    Raises:
        TypeError: ``format=`` names another format than the SDK stream's.
    """
    found = SdkSource.of(source)
    if found is None:
        return source
    options.format = agreed_format(found.format, options.format)
    return found


def async_sdk_source(source: AsyncSource, options: Options) -> AsyncSource:
    """The async twin of ``sdk_source``."""
    found = AsyncSdkSource.of(source)
    if found is None:
        return source
    options.format = agreed_format(found.format, options.format)
    return found
