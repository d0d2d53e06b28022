"""Who watches streams: the instrumentation a program turns on (``toolwire.otel``) sees each stream start and end.

Nothing watches by default, and a stream then pays one empty-list check. A watcher is told a stream started when the
stream is made, and once, when it ended, what it came to: its result (or the result so far) and the exception that
stopped it, if one did (``GeneratorExit`` when the consumer closed it before its end).
"""

from __future__ import annotations

from typing import Literal, Protocol

from toolwire._model import StreamResult

__all__ = ["StreamKind", "StreamObserver", "StreamWatch", "Watches", "add_observer", "remove_observer", "watch_stream"]

#: What made the stream: ``reassemble``/``areassemble`` (calls) or ``events``/``aevents`` (progress events).
StreamKind = Literal["reassemble", "events"]


class StreamWatch(Protocol):
    """One stream's watcher."""

    def ended(self, result: StreamResult | None, error: BaseException | None) -> None:
        """The stream ended, with its ``result`` and the exception that stopped it (None: it ran to its end).

        ``result`` is the result so far when an exception stopped the stream, None when not even that could be built.
        """


class StreamObserver(Protocol):
    """What instrumentation registers: asked for a watcher each time a stream is made."""

    def stream_started(self, kind: StreamKind) -> StreamWatch | None:
        """A watcher for the stream being made, or None to leave it unwatched."""


_OBSERVERS: list[StreamObserver] = []


def add_observer(observer: StreamObserver) -> None:
    """Watch every stream made from now on (a second add of the same observer is ignored)."""
    if observer not in _OBSERVERS:
        _OBSERVERS.append(observer)


def remove_observer(observer: StreamObserver) -> None:
    """Stop watching the streams made from now on (those already watched still report their end)."""
    if observer in _OBSERVERS:
        _OBSERVERS.remove(observer)


class Watches:
    """The watchers of one stream, told of its end once."""

    __slots__ = ("_watches",)

    def __init__(self, watches: list[StreamWatch]) -> None:
        self._watches: list[StreamWatch] | None = watches

    def ended(self, result: StreamResult | None, error: BaseException | None) -> None:
        watches, self._watches = self._watches, None
        for watch in watches or ():
            watch.ended(result, error)


def watch_stream(kind: StreamKind) -> Watches | None:
    """The watchers of a stream being made; None when nothing observes (the common case, and the fast one)."""
    if not _OBSERVERS:
        return None
    watches = [watch for observer in _OBSERVERS if (watch := observer.stream_started(kind)) is not None]
    return Watches(watches) if watches else None
