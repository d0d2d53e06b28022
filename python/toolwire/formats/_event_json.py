"""Python objects read as the JSON they serialize to.

An event of a format other than Chat Completions given as a Python object reaches its decoder as its JSON text, and a
buffered response given as an SDK object is read as the JSON its SDK would send.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["event_json"]


def event_json(event: Any) -> bytes:
    r"""The JSON text of one event given as a Python object.

    A mapping, or an SDK's pydantic model (its fields as set from the wire, by alias). Strings holding lone
    surrogates come out as ``\u`` escapes, which the decoders keep as they keep them in raw bytes.

    Raises:
        TypeError: An object that is neither (its type named), or a value JSON cannot hold.
    """
    dump = getattr(event, "model_dump", None)
    if callable(dump) and not isinstance(event, Mapping):
        event = dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    try:
        return json.dumps(event, separators=(",", ":"), allow_nan=False, default=_pydantic_value).encode()
    except (TypeError, ValueError, RecursionError) as error:
        raise TypeError(f"the event is not JSON: {error}") from error


def _pydantic_value(value: Any) -> Any:
    """A nested SDK object inside a mapping, as its JSON-ready dict."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    raise TypeError(f"{type(value).__name__} is not JSON")
