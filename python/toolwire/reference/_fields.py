"""Typed field access on one decoded JSON event, for every decoder.

An event is a ``dict`` (the engine turns SDK objects into the JSON they serialize to first; the Chat Completions
reader, which reads an SDK chunk as it is, widens ``get`` to attributes). A null field is an absent one; a field of
the wrong JSON type is a ``MalformedChunkError`` naming the event number, the field's path and the Python type found.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolwire.errors import MalformedChunkError

_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
NOT_A_MAPPING = "expected a mapping or an object with attributes, got"


class Fields:
    """Reads the fields of one event, numbered ``number`` in its stream."""

    def __init__(self, number: int) -> None:
        """Name the event the errors will be about."""
        self.number = number

    def fail(self, path: str, problem: str) -> MalformedChunkError:
        """The error for a field at ``path``."""
        return MalformedChunkError(self.number, path, problem)

    @staticmethod
    def get(container: Any, key: str) -> Any:
        """A field of a JSON object, or None."""
        return container.get(key)

    def record(self, value: Any, path: str) -> dict[str, Any]:
        """``value`` itself, which must be a JSON object (a list element, say)."""
        if not isinstance(value, dict):
            raise self.fail(path, f"{NOT_A_MAPPING} {type(value).__name__}")
        return value

    def mapping(self, container: dict[str, Any], key: str, path: str) -> dict[str, Any] | None:
        """An object field, or None."""
        value = self.get(container, key)
        return None if value is None else self.record(value, path)

    def sequence(self, container: dict[str, Any], key: str, path: str) -> Sequence[Any]:
        """A list field; absent is empty."""
        value = self.get(container, key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {type(value).__name__}")
        return value

    def string(self, container: dict[str, Any], key: str, path: str) -> str | None:
        """A string field, kept exactly as sent, or None."""
        value = self.get(container, key)
        if value is not None and not isinstance(value, str):
            raise self.fail(path, f"expected a string or null, got {type(value).__name__}")
        return value

    def integer(self, container: dict[str, Any], key: str, path: str) -> int | None:
        """A 64-bit integer field (a bool is not one), or None."""
        value = self.get(container, key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer or null, got {type(value).__name__}")
        if not _I64_MIN <= value <= _I64_MAX:
            raise self.fail(path, f"integer {value} is out of the 64-bit range")
        return int(value)

    def key(self, container: dict[str, Any], key: str, path: str) -> int:
        """A call's key (a block or output index): an integer that must be there."""
        value = self.integer(container, key, path)
        if value is None:
            raise self.fail(path, "expected an integer, got nothing")
        return value

    def boolean(self, container: dict[str, Any], key: str, path: str) -> bool | None:
        """A boolean field, or None."""
        value = self.get(container, key)
        if value is not None and not isinstance(value, bool):
            raise self.fail(path, f"expected a boolean or null, got {type(value).__name__}")
        return value

    def event_type(self, event: dict[str, Any], name: str | None) -> str | None:
        """The event's ``type``, or else the name of the server-sent event that carried it.

        Anthropic and Responses servers name each SSE event after its type; a proxy that strips ``type`` from the data
        still leaves the name.
        """
        kind = self.string(event, "type", "type")
        return name if kind is None else kind

    def arguments(self, container: dict[str, Any], key: str, path: str) -> str | None:
        """Arguments sent as a JSON value (where the format promises one), as their canonical text; None if absent."""
        value = self.get(container, key)
        return None if value is None else self.canonical(value, path)

    def canonical(self, value: Any, path: str) -> str:
        """The canonical text of arguments sent as a JSON value."""
        try:
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise self.fail(path, f"arguments sent as a value that is not JSON: {exc}") from exc
