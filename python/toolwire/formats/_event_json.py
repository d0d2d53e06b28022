"""Python objects read as the JSON they serialize to.

An event of a format other than Chat Completions given as a Python object reaches its decoder as its JSON text, and a
buffered response given as an SDK object is read as the JSON its SDK would send. An object that is neither a mapping
nor an SDK's model is read by its attributes (``vars``), as the chat reader reads such chunks: a ``SimpleNamespace`` or
a plain object built by a client library is an event like its dict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__all__ = ["event_json"]


def event_json(event: Any) -> bytes:
    r"""The JSON text of one event given as a Python object.

    A mapping, an SDK's pydantic model (its fields as set from the wire, by alias) or an object with attributes (its
    ``vars``), nested alike. Strings holding lone surrogates come out as ``\u`` escapes, which the decoders keep as
    they keep them in raw bytes.

    Raises:
        TypeError: An object that is neither (its type named), or a value JSON cannot hold.
    """
    dump = getattr(event, "model_dump", None)
    if callable(dump) and not isinstance(event, Mapping):
        event = dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    try:
        return json.dumps(event, separators=(",", ":"), allow_nan=False, default=_object_value).encode()
    except (TypeError, ValueError, RecursionError) as error:
        raise TypeError(f"the event is not JSON: {error}") from error


def _object_value(value: Any) -> Any:
    """An object JSON has no form for: an SDK's model as its JSON-ready dict, another object as its attributes."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    # A class or a module has a __dict__ too, but it is no event's value.
    if not isinstance(value, (type, ModuleType)) and hasattr(value, "__dict__"):
        return vars(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
