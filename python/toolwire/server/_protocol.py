"""The endpoint's HTTP/1.1 connections: uvicorn's h11 protocol with the two limits uvicorn does not have.

uvicorn closes a keep-alive connection that stays silent (``timeout_keep_alive``) and bounds the size of a request
head (``h11_max_incomplete_event_size``), but its keep-alive timer stops at the first byte received and is not armed
at all before a connection's first request: a connection that sends part of a request head and then nothing is kept
forever. Nor does it bound the number of connections, so 1,100 half-sent ones take every descriptor of a process
limited to 1,024 and the endpoint accepts nothing more. This protocol adds:

- a head timeout: a connection must send a whole request head within ``header_timeout`` seconds of opening or of
  the end of the previous answer, or it is closed (unanswered: there is no request to answer);
- a connection limit: a connection beyond ``EndpointLimits.connection_limit()`` closes the connection that has waited
  longest for a request head; when every connection is busy with a request, the new one is closed. asyncio accepts up
  to ``backlog`` connections in one go (uvicorn's backlog is ``EndpointLimits.accept_batch()``), but a connection is
  seen here two loop iterations after it was accepted and a closed one lets its descriptor go one iteration after
  being closed: meanwhile asyncio goes on accepting, batch after batch, and the descriptors ran out (asyncio then logs
  an error for every connection it fails to accept and stops accepting for a second; with its standard error a pipe
  nobody reads, the endpoint blocked for good once the pipe was full). So the listening socket itself
  (``guarded_listener``) accepts nothing while the limit plus one batch of accepted sockets are still open, counted
  from ``accept`` to ``connection_lost``: the connections wait in the listening queue for the loop iteration or two
  it takes those closed to make room to be gone, and accepting never fails for want of a descriptor.

Body timeouts are the application's (``_body``): it reads the body and knows which error shape to answer in.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from toolwire.server._limits import EndpointLimits

__all__ = ["guarded_listener", "guarded_protocol"]


class _OpenSockets:
    """The client sockets an endpoint holds: accepted and not yet closed."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.count = 0


class _GuardedH11Protocol(H11Protocol):
    limits: ClassVar[EndpointLimits]
    open_sockets: ClassVar[_OpenSockets]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # When this connection started waiting for a request head (loop time); None while a request is being served.
        self.waiting_since: float | None = None
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait_for_head()
        if len(self.connections) > self.limits.connection_limit():
            self._make_room()

    def _make_room(self) -> None:
        waiting = [
            other
            for other in self.connections
            if other is not self
            and isinstance(other, _GuardedH11Protocol)
            and other.waiting_since is not None
            # A connection closed to make room stays in ``connections`` until its connection_lost, an iteration later:
            # every connection of a batch beyond the limit closed that same one, and the limit held nothing back.
            and not other.transport.is_closing()
        ]
        victim = min(waiting, key=lambda other: other.waiting_since or 0.0, default=self)
        # Not close(): it keeps the socket until a client that does not read has taken what is left of an answer, and
        # the descriptor is what the limit is for.
        victim.transport.abort()

    def _wait_for_head(self) -> None:
        self._stop_waiting()
        self.waiting_since = self.loop.time()
        self._head_timer = self.loop.call_later(self.limits.header_timeout, self._head_timed_out)

    def _stop_waiting(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = None
        self.waiting_since = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.waiting_since is not None and not self.transport.is_closing():
            self.transport.close()

    def _follow_state(self) -> None:
        # h11 leaves IDLE once it has read a request's head, and goes back to it when the next cycle starts: IDLE is
        # exactly "a request head is awaited".
        if self.transport.is_closing():
            return
        awaiting = self.conn.their_state is h11.IDLE
        if awaiting and self.waiting_since is None:
            self._wait_for_head()
        elif not awaiting and self.waiting_since is not None:
            self._stop_waiting()

    def handle_events(self) -> None:
        super().handle_events()
        self._follow_state()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_state()

    def connection_lost(self, exc: Exception | None) -> None:
        # The transport closes the socket right after this returns.
        self.open_sockets.count -= 1
        self._stop_waiting()
        super().connection_lost(exc)


class _GuardedListener(socket.socket):
    open_sockets: _OpenSockets

    def accept(self) -> tuple[socket.socket, Any]:
        if self.open_sockets.count >= self.open_sockets.most:
            # What asyncio reads as an empty queue: it stops accepting until the next loop iteration, and the kernel
            # holds the connections (up to ``backlog``, then the clients retry) until closed sockets are gone.
            raise BlockingIOError(errno.EAGAIN, "every descriptor the endpoint allows is held by a connection")
        accepted = super().accept()
        self.open_sockets.count += 1
        return accepted


def guarded_protocol(limits: EndpointLimits) -> type[asyncio.Protocol]:
    """The protocol class uvicorn is given (``Config(http=...)``) for an endpoint with these limits.

    Its connections are to be accepted by one ``guarded_listener`` made with it: they share the count of open sockets.
    """
    most = limits.connection_limit() + limits.accept_batch()
    return type("GuardedH11Protocol", (_GuardedH11Protocol,), {"limits": limits, "open_sockets": _OpenSockets(most)})


def guarded_listener(listening: socket.socket, protocol: type[asyncio.Protocol]) -> socket.socket:
    """``listening`` (bound and listening) as the socket that accepts ``protocol``'s connections, which it takes over.

    It accepts nothing while the connection limit plus one accept batch of sockets are open, so that the process never
    runs out of descriptors to accept with.
    """
    if not issubclass(protocol, _GuardedH11Protocol):
        raise TypeError(f"protocol must come from guarded_protocol, got {protocol.__name__}")
    guarded = _GuardedListener(listening.family, listening.type, listening.proto, fileno=listening.detach())
    guarded.open_sockets = protocol.open_sockets
    return guarded
