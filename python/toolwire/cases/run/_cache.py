"""The response cache of ``toolwire matrix --cache DIR``: one JSON file per request, so a rerun is reproducible.

An entry is keyed by the canonical request: the wire format, the base URL, the request body (model, messages,
tools, sampling, ``stream`` included) and the repeat number, serialized with sorted keys, then hashed with SHA-256.
The API key is never part of the key nor of the entry (a rotated key keeps the cache; a shared cache leaks no
credential), and neither are other headers. The repeat number is part of the key so that ``--repeat 5`` makes five
independent requests (and five entries) rather than reading one answer five times.

Entries live at ``DIR/<first two hex digits>/<hash>.json``. Each is written to a temporary file in the same folder,
then renamed over the final name (``os.replace``), so that a reader never sees half an entry and concurrent writers
of the same entry leave one whole file. Only HTTP 200 answers are stored: a refusal or a rate limit is not an
answer worth replaying.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolwire._common._json import canonical

__all__ = ["CacheEntry", "CacheMissError", "ResponseCache", "request_key"]

_VERSION: Final = 1


class CacheMissError(LookupError):
    """``--offline`` and no cached answer for a request; the message names the case, the model and the fix."""


def _canonical(value: Any) -> str:
    return canonical(value)


def request_key(fmt: str, base_url: str, body: Mapping[str, Any], repeat: int) -> str:
    """The cache key of one request: the SHA-256 hex digest of its canonical form.

    Args:
        fmt: The wire format.
        base_url: The API root the request goes to.
        body: The JSON body (the model is in it).
        repeat: The repeat number, from 1.

    Returns:
        64 hex digits.
    """
    canonical = _canonical({"format": fmt, "base_url": base_url.rstrip("/"), "body": body, "repeat": repeat})
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """One stored answer.

    Attributes:
        body: The response body as received (the SSE text of a streamed answer, the JSON of a buffered one).
        stream: Whether it was a streamed answer.
        request: What was asked (format, base URL, body, repeat), kept for people reading the cache.
    """

    body: bytes
    stream: bool
    request: Mapping[str, Any]


class ResponseCache:
    """A folder of cached answers (see the module docstring)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        """Use ``folder`` (created on the first write).

        Raises:
            NotADirectoryError: ``folder`` exists and is not a directory.
        """
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise NotADirectoryError(f"--cache {self.folder}: exists and is not a directory")

    def path(self, key: str) -> Path:
        """The file of an entry."""
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> CacheEntry | None:
        """The entry for ``key``, or None when there is none.

        Raises:
            ValueError: The entry exists but is not a cache entry (the message names the file and says to delete it).
        """
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            document = json.loads(text)
            if document.get("version") != _VERSION:
                raise ValueError(f"version {document.get('version')!r}, expected {_VERSION}")
            body = (
                base64.b64decode(document["body_base64"])
                if "body_base64" in document
                else document["body"].encode("utf-8")
            )
            return CacheEntry(body, bool(document["stream"]), document.get("request", {}))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{path}: not a toolwire matrix cache entry ({error}); delete the file") from None

    def put(self, key: str, entry: CacheEntry) -> Path:
        """Store an entry atomically (temporary file, then rename).

        Returns:
            The entry's file.
        """
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        document: dict[str, Any] = {"version": _VERSION, "stream": entry.stream, "request": dict(entry.request)}
        try:
            document["body"] = entry.body.decode("utf-8")
        except UnicodeDecodeError:
            document["body_base64"] = base64.b64encode(entry.body).decode("ascii")
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(document, file, ensure_ascii=False, indent=1)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path

    def __len__(self) -> int:
        """How many entries the folder holds."""
        return sum(1 for _ in self.folder.glob("??/*.json")) if self.folder.is_dir() else 0
