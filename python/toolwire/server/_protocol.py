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
  to ``backlog`` connections in one go before any of them is seen here, so uvicorn's backlog is
  ``EndpointLimits.accept_batch()``: the limit plus one batch stays under the open-file limit, and accepting never
  fails for want of a descriptor (asyncio would then stop accepting for a second).

Body timeouts are the application's (``_body``): it reads the body and knows which error shape to answer in.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from toolwire.server._limits import EndpointLimits

__all__ = ["guarded_protocol"]


class _GuardedH11Protocol(H11Protocol):
    limits: ClassVar[EndpointLimits]

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
            if other is not self and isinstance(other, _GuardedH11Protocol) and other.waiting_since is not None
        ]
        victim = min(waiting, key=lambda other: other.waiting_since or 0.0, default=self)
        victim.transport.close()

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
        self._stop_waiting()
        super().connection_lost(exc)


def guarded_protocol(limits: EndpointLimits) -> type[asyncio.Protocol]:
    """The protocol class uvicorn is given (``Config(http=...)``) for an endpoint with these limits."""
    return type("GuardedH11Protocol", (_GuardedH11Protocol,), {"limits": limits})
