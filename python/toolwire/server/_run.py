"""Running the endpoint: uvicorn in a daemon thread on a socket bound here, started and stopped on demand.

The socket is bound before uvicorn starts, so that port 0 gives a free port whose number is known at once and no
other process can take it in between; ``start`` returns only once uvicorn accepts connections, and ``stop`` waits for
the thread to end and closes the socket, so that nothing is left open (no ``ResourceWarning``). starlette and uvicorn
are imported by ``start``: reading scripts needs neither. The endpoint's ``EndpointLimits`` become uvicorn's options
(keep-alive timeout, request head size), its connections' protocol and the socket accepting them (``_protocol``: head
timeout, connection limit, no more sockets accepted than the descriptors allow).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

from toolwire.server._default import default_script
from toolwire.server._limits import EndpointLimits
from toolwire.server._log import RequestLog
from toolwire.server._replay import Replay, load_replays, resolve_references
from toolwire.server._script import Script, load_script

if TYPE_CHECKING:
    import uvicorn

__all__ = ["LocalEndpoint", "serve"]

ScriptSource = str | PathLike[str] | Mapping[str, Any] | Script | None

_START_TIMEOUT: Final = 10.0
# How long in-flight answers (a slow ``delay`` stream) may take to finish once a stop is asked for.
_GRACEFUL_SECONDS: Final = 2


class LocalEndpoint:
    """A real HTTP endpoint on this machine speaking OpenAI Chat, OpenAI Responses and Anthropic Messages.

    Attributes:
        script: The scripted models.
        requests: The requests received since the endpoint was created, in order (credentials redacted), up to the
            limits' ``log_requests`` and ``log_bytes`` (the oldest dropped first; ``requests.dropped`` counts them).
        host: The interface it listens on.
        limits: What a client may cost it.
    """

    def __init__(
        self,
        script: ScriptSource = None,
        *,
        recordings: str | PathLike[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        limits: EndpointLimits | None = None,
    ) -> None:
        """Load the script and the recordings; nothing listens until ``start``.

        Args:
            script: A script file (``.yaml``/``.yml``/``.json``), a mapping or a ``Script``; by default the bundled
                script (``default_script()``).
            recordings: A recordings folder: each recording of a served format becomes the model
                ``recording:<format>/<name>``.
            host: The interface to listen on.
            port: The port; 0 picks a free one.
            limits: Body size and depth, timeouts, connections and the log's size (``EndpointLimits()`` by default).

        Raises:
            FileNotFoundError: The script file or the recordings folder does not exist.
            ValueError: The script is invalid, or names a recording that cannot be found.
            TypeError: ``script``, ``port`` or ``limits`` has the wrong type.
        """
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise TypeError(f"port must be an integer from 0 to 65535, got {port!r}")
        if limits is not None and not isinstance(limits, EndpointLimits):
            raise TypeError(f"limits must be an EndpointLimits, got {type(limits).__name__}")
        self.limits = limits or EndpointLimits()
        self.script: Script = default_script() if script is None else load_script(script)
        self._replays: dict[str, Replay] = load_replays(Path(recordings)) if recordings is not None else {}
        self._references = resolve_references(
            self.script, self._replays, None if recordings is None else Path(recordings)
        )
        self.host = host
        self._port = port
        self.requests = RequestLog(self.limits.log_requests, self.limits.log_bytes)
        self._url: str | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        """The base URL, ``http://<host>:<port>/v1`` (what an OpenAI client takes as ``base_url``).

        Raises:
            RuntimeError: The endpoint is not running.
        """
        if self._url is None:
            raise RuntimeError("the endpoint is not running; call start() or use it as a context manager first")
        return self._url

    @property
    def models(self) -> tuple[str, ...]:
        """Every model a request can name: the scripted ones, then the recordings."""
        return (*self.script.models, *self._replays)

    @property
    def running(self) -> bool:
        """Whether the endpoint is listening."""
        return self._url is not None

    def _bind(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self._port))
            sock.listen(socket.SOMAXCONN)
        except BaseException:
            sock.close()
            raise
        return sock

    def start(self) -> str:
        """Start listening and return once the endpoint answers.

        Returns:
            The base URL.

        Raises:
            RuntimeError: It is already running, or uvicorn did not start.
            OSError: The address cannot be bound (the port is taken).
            ModuleNotFoundError: starlette or uvicorn is not installed (``pip install 'toolwire[server]'``).
        """
        if self._url is not None:
            raise RuntimeError(f"the endpoint is already running at {self._url}")
        import uvicorn

        from toolwire.server._app import EndpointState, build_app
        from toolwire.server._protocol import guarded_listener, guarded_protocol

        state = EndpointState(self.script, self._replays, self._references, self.requests, self.limits)
        protocol = guarded_protocol(self.limits)
        config = uvicorn.Config(
            build_app(state),
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=_GRACEFUL_SECONDS,
            http=protocol,
            # uvicorn annotates it as int; it only ever passes it to loop.call_later, which takes seconds as a float.
            timeout_keep_alive=self.limits.keep_alive_timeout,  # type: ignore[arg-type]
            h11_max_incomplete_event_size=self.limits.max_header_bytes,
            backlog=self.limits.accept_batch(),
        )
        server = uvicorn.Server(config)
        sock = guarded_listener(self._bind(), protocol)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="toolwire-endpoint", daemon=True)
        self._server, self._thread, self._socket = server, thread, sock
        thread.start()
        deadline = time.monotonic() + _START_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self._shut()
                raise RuntimeError("the endpoint did not start (uvicorn stopped before accepting connections)")
            time.sleep(0.005)
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        self._url = f"http://{shown}:{port}/v1"
        return self._url

    def _shut(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join()
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None
        self._url = None

    def stop(self) -> None:
        """Stop listening and wait until the server thread has ended; nothing happens when it is not running."""
        self._shut()

    def __enter__(self) -> LocalEndpoint:
        """Start the endpoint (see ``start``)."""
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """Stop the endpoint."""
        self.stop()

    def __repr__(self) -> str:
        """The script and where it listens."""
        where = self._url or "not running"
        return f"LocalEndpoint({self.script.source!r}, {len(self.models)} models, {where})"


@contextmanager
def serve(
    script: ScriptSource = None,
    *,
    recordings: str | PathLike[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    limits: EndpointLimits | None = None,
) -> Iterator[str]:
    """Run a ``LocalEndpoint`` for the duration of a ``with`` block.

    Args:
        script: As for ``LocalEndpoint``.
        recordings: As for ``LocalEndpoint``.
        host: As for ``LocalEndpoint``.
        port: As for ``LocalEndpoint``.
        limits: As for ``LocalEndpoint``.

    Yields:
        The base URL, ``http://<host>:<port>/v1``.
    """
    with LocalEndpoint(script, recordings=recordings, host=host, port=port, limits=limits) as endpoint:
        yield endpoint.url
