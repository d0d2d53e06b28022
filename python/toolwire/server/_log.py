"""The log of requests an endpoint received, with credentials removed before anything is kept, and bounded.

The log is what ``LocalEndpoint.requests`` shows a test: for each request its method, path, headers (the values of
the credential headers every writer of toolwire drops, ``toolwire._common._secrets.SECRET_HEADERS``, redacted) and body
(as received: the log lives in memory for the test that sent it, and is never written). It is the only thing the endpoint keeps per request, and it is bounded: at most
``log_requests`` entries and ``log_bytes`` of body bytes over all of them, the oldest entries dropped first (``dropped``
counts them); a body larger than ``log_bytes`` is logged without its bytes. A body is kept as the bytes received and
decoded when read, so that what the log holds is what it says it holds (decoded JSON can take many times its bytes).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from toolwire._common._redact import REDACTED
from toolwire._common._secrets import SECRET_HEADERS

__all__ = ["REDACTED", "RecordedRequest", "RequestLog", "record"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the endpoint received it.

    Attributes:
        method: The HTTP method.
        path: The URL path (``/v1/chat/completions``).
        headers: The headers, names lower-cased, credential values replaced with ``"[REDACTED]"``.
        raw: The body's bytes as received; empty when there was none or it was not kept (see ``size``).
        size: The body's size in bytes as received (0 for a body refused for its size or because it stalled).
    """

    method: str
    path: str
    headers: Mapping[str, str]
    raw: bytes = field(default=b"", repr=False)
    size: int = 0

    @property
    def kept(self) -> bool:
        """Whether the log holds the whole body (it does not when it was larger than ``log_bytes``)."""
        return len(self.raw) == self.size

    @property
    def body(self) -> Any:
        """The decoded JSON body; None when there was no body, it was not JSON, or it was not kept."""
        if not self.raw:
            return None
        try:
            return json.loads(self.raw)
        except (ValueError, RecursionError):
            return None

    def __repr__(self) -> str:
        """Method, path, body size and the headers (credentials redacted)."""
        kept = "" if self.kept else ", not kept"
        return f"RecordedRequest({self.method} {self.path}, {self.size} body bytes{kept}, headers={dict(self.headers)})"


def record(
    method: str, path: str, body: bytes, headers: Iterable[tuple[str, str]], *, keep: bool = True
) -> RecordedRequest:
    """A log entry for a request, its credential headers redacted.

    Args:
        method: The HTTP method.
        path: The URL path.
        body: The body's bytes as received.
        headers: The header (name, value) pairs as received.
        keep: Keep the body's bytes (False: only its size).

    Returns:
        The entry.
    """
    kept = {name.lower(): REDACTED if name.lower() in SECRET_HEADERS else value for name, value in headers}
    return RecordedRequest(method, path, kept, bytes(body) if keep else b"", len(body))


class RequestLog(Sequence[RecordedRequest]):
    """The requests an endpoint received, oldest first, bounded in entries and in body bytes (thread-safe).

    It reads as a sequence (``len``, indexing, slices, iteration over a snapshot); ``dropped`` counts the entries
    dropped to stay within the bounds.
    """

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        """An empty log keeping at most ``max_entries`` entries and ``max_bytes`` body bytes."""
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.dropped = 0
        self._entries: deque[RecordedRequest] = deque()
        self._bytes = 0
        self._lock = threading.Lock()

    def add(self, method: str, path: str, body: bytes, headers: Iterable[tuple[str, str]]) -> RecordedRequest:
        """Log a request (its body kept when it fits in ``max_bytes``), dropping the oldest entries as needed."""
        entry = record(method, path, body, headers, keep=len(body) <= self.max_bytes)
        with self._lock:
            self._entries.append(entry)
            self._bytes += len(entry.raw)
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                self._bytes -= len(self._entries.popleft().raw)
                self.dropped += 1
        return entry

    @property
    def body_bytes(self) -> int:
        """Body bytes held now."""
        return self._bytes

    def _snapshot(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._entries)

    def __len__(self) -> int:
        """Entries held now."""
        return len(self._entries)

    @overload
    def __getitem__(self, index: int) -> RecordedRequest: ...

    @overload
    def __getitem__(self, index: slice) -> list[RecordedRequest]: ...

    def __getitem__(self, index: int | slice) -> RecordedRequest | list[RecordedRequest]:
        """An entry, or a list of them for a slice."""
        return self._snapshot()[index]

    def __iter__(self) -> Iterator[RecordedRequest]:
        """The entries held when iteration starts."""
        return iter(self._snapshot())

    def clear(self) -> None:
        """Forget every entry (``dropped`` is kept)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __repr__(self) -> str:
        """The entries, with how many were dropped."""
        dropped = f", {self.dropped} dropped" if self.dropped else ""
        return f"RequestLog({self._snapshot()!r}{dropped})"
