"""Reading a buffered (non-streamed) response, whatever it was given as: what every format's module shares.

Each format's module turns its complete response into the events its streaming API would have sent for it, so that
``normalize`` applies every stream rule and a call comes out the same way whichever way it was received. A response
comes as a dict or as its SDK's object; these read either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolwire.formats._event_json import event_json

__all__ = ["ShapeError", "as_dict", "as_list", "field"]


class ShapeError(ValueError):
    """A buffered response's field does not have its format's shape (``normalize`` raises it as ``MalformedChunkError``).

    The formats sit below the values and their errors, so a format module names the field and the problem and the
    pipeline, which knows the error classes, reports them.

    Attributes:
        where: The field's path in the response (``choices[0].message.tool_calls``).
        problem: What is wrong there.
    """

    def __init__(self, where: str, problem: str) -> None:
        """Name the field and what is wrong with it."""
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}")


def field(value: Any, key: str) -> Any:
    """A field of a dict, a mapping or an SDK object; None when absent."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def as_list(value: Any, where: str) -> list[Any]:
    """A list field (None: empty), or ``ShapeError`` naming ``where``."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ShapeError(where, f"expected a list, got {type(value).__name__}")


def as_dict(response: Any) -> dict[str, Any]:
    """The response as plain JSON data (an SDK object through its own serialization)."""
    if isinstance(response, dict):
        return response
    return json.loads(event_json(response))  # type: ignore[no-any-return]
