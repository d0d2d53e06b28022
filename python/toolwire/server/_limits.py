"""What one client may cost the endpoint: body size and nesting, the time to send a request, connections, the log.

The endpoint is for tests and offline agents, but it listens on a real socket, and a test that feeds it hostile input
(or a client that stalls) must not take it down: every resource a request or a connection can hold is bounded here,
with defaults that no well-behaved client reaches. ``toolwire serve`` has a flag for each; docs/contract.md lists
them with what happens when one is passed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Final

__all__ = ["EndpointLimits"]

# File descriptors the server process keeps for everything but client connections (the listening socket, recordings
# being read, the interpreter's own files).
_SPARE_DESCRIPTORS: Final = 64
# uvicorn's default backlog, and the least worth having.
_UVICORN_BACKLOG: Final = 2048
_MIN_BACKLOG: Final = 16


@dataclass(frozen=True)
class EndpointLimits:
    """The endpoint's resource limits (``LocalEndpoint(limits=...)``, ``serve(limits=...)``, ``toolwire serve``).

    Attributes:
        max_body_bytes: The largest request body, in bytes: beyond it the answer is HTTP 413 in the route's error
            shape, sent as soon as the ``Content-Length`` says so or the body read so far passes it (never buffered
            past it), and the connection is closed.
        max_json_depth: The deepest nesting of arrays and objects a body may have: beyond it, HTTP 400.
        header_timeout: Seconds a connection has to send a whole request head (request line and headers), counted
            from its opening or from the end of the previous answer: past it the connection is closed unanswered.
        body_timeout: Seconds the endpoint waits for each next piece of a request body: past it the answer is HTTP
            408 in the route's error shape and the connection is closed.
        keep_alive_timeout: Seconds an idle keep-alive connection (nothing sent since the last answer) stays open.
        max_header_bytes: The most bytes of an unfinished request head the endpoint holds (uvicorn's
            ``h11_max_incomplete_event_size``): a head still unfinished past it is answered HTTP 400 by uvicorn (plain
            text: there is no request to answer in an API's shape) and its connection closed. A head that arrives
            whole in one read is bounded by that read's size instead.
        max_connections: Connections open at once. A connection beyond it closes the one that has waited longest
            for a request head (half-sent or idle) to make room; when every connection is busy with a request, the
            new one is closed at once. Never more than half the process's open-file limit, so that the endpoint
            always has descriptors to accept with (``connection_limit``).
        log_requests: Requests kept in ``LocalEndpoint.requests``, the oldest dropped first.
        log_bytes: Body bytes kept in the log, over all its entries: the oldest entries are dropped to stay under
            it, and a body larger than it is logged without its body (``RecordedRequest.size`` says how large).
    """

    max_body_bytes: int = 32 * 1024 * 1024
    max_json_depth: int = 128
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive_timeout: float = 5.0
    max_header_bytes: int = 16 * 1024
    max_connections: int = 512
    log_requests: int = 1000
    log_bytes: int = 16 * 1024 * 1024

    def __post_init__(self) -> None:
        """Check every limit.

        Raises:
            TypeError: A limit of the wrong type.
            ValueError: A limit that is not positive (or not finite).
        """
        for field in fields(self):
            value = getattr(self, field.name)
            if field.type == "int":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError(f"EndpointLimits.{field.name} must be an integer, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"EndpointLimits.{field.name} must be a number of seconds, got {value!r}")
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"EndpointLimits.{field.name} must be positive, got {value!r}")

    def connection_limit(self) -> int:
        """``max_connections``, lowered to half the process's open-file limit.

        The other half is for the connections accepted in one go before the limit closes others (``accept_batch``)
        and for the process's own files, so that accepting never fails for want of a descriptor: asyncio would then
        stop accepting for a whole second.
        """
        files = _open_file_limit()
        return self.max_connections if files is None else max(1, min(self.max_connections, files // 2))

    def accept_batch(self) -> int:
        """Connections accepted at most in one go (uvicorn's ``backlog``, also the listening queue's length)."""
        files = _open_file_limit()
        if files is None:
            return _UVICORN_BACKLOG
        return max(_MIN_BACKLOG, min(_UVICORN_BACKLOG, files - self.connection_limit() - _SPARE_DESCRIPTORS))


def _open_file_limit() -> int | None:
    """The process's soft limit on open files, or None when there is none (or no such thing, on Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft
