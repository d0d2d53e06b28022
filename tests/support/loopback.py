"""Real HTTP servers on the loopback interface, for clients that must read from a socket."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["loopback", "replay_handler"]


@contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 serving ``handler`` on a free port, stopped on exit; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def replay_handler(served: dict[str, bytes], write: int) -> type[BaseHTTPRequestHandler]:
    """A handler that answers any GET or POST with ``served["body"]`` (as ``served.get("type")``, event-stream by
    default) in writes of ``write`` bytes, so that clients see events split across reads as on a real connection."""

    class Replay(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.do_GET()

        def do_GET(self) -> None:
            body = served["body"]
            self.send_response(200)
            self.send_header("Content-Type", served.get("type", b"text/event-stream").decode())
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for start in range(0, len(body), write):
                    self.wfile.write(body[start : start + write])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                # A client that stops reading early (a test of `break`) hangs up: what such a test holds, not an error
                # for the server to print a traceback of.
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Replay
