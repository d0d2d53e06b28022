"""The calls a stream renderer is given: checked once, in one shape."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire._common._json import plain_json

__all__ = ["CallSpec", "call_specs"]


@dataclass(frozen=True)
class CallSpec:
    """One call to render.

    Attributes:
        name: The tool name.
        arguments: The arguments object (plain JSON: dicts, lists, str, int, finite float, bool, None).
        text: JSON text to stream exactly as given, or ``None`` to render ``arguments`` in a drawn style.
        id: The call id to send, or ``None``: a generated one where the format requires an id, none where it is
            optional (Gemini, Ollama).
        choice: The choice (OpenAI Chat Completions) or candidate (Gemini) the call belongs to.
    """

    name: str
    arguments: dict[str, Any]
    text: str | None = None
    id: str | None = None
    choice: int = 0


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _spec(name: object, arguments: object, call_id: object, choice: object, where: str) -> CallSpec:
    if not isinstance(name, str) or not name:
        raise TypeError(f"{where}: the tool name must be a non-empty str; got {name!r:.40}")
    if call_id is not None and (not isinstance(call_id, str) or not call_id):
        raise TypeError(f"{where}: the id must be a non-empty str or None; got {call_id!r:.40}")
    if isinstance(choice, bool) or not isinstance(choice, int) or choice < 0:
        raise ValueError(f"{where}: choice must be an int >= 0; got {choice!r}")
    text: str | None = None
    if isinstance(arguments, (bytes, bytearray)):
        arguments = bytes(arguments).decode("utf-8")
    if isinstance(arguments, str):
        text = arguments
        try:
            arguments = json.loads(text, parse_constant=_reject_constant)
        except ValueError as error:
            raise ValueError(f"{where}: the arguments text is not JSON ({error}): {text!r:.60}") from None
    value = plain_json(arguments, f"{where}: arguments")
    if not isinstance(value, dict):
        raise ValueError(f"{where}: the arguments must be a JSON object (a dict or its text); got {value!r:.60}")
    return CallSpec(name, value, text, call_id, choice)


def call_specs(calls: Iterable[object]) -> list[CallSpec]:
    """Read ``(name, arguments)``/``(name, arguments, id)`` pairs, mappings, or call objects into ``CallSpec``.

    Raises:
        TypeError: An item has no recognizable name and arguments, or a value is not JSON.
        ValueError: An arguments text is not a JSON object.
    """
    if isinstance(calls, (str, bytes, Mapping)):
        raise TypeError(f"calls must be a sequence of calls; got {type(calls).__name__}")
    specs = []
    for position, given in enumerate(calls):
        item: Any = given
        where = f"calls[{position}]"
        if isinstance(item, CallSpec):
            specs.append(item)
        elif isinstance(item, tuple) and len(item) in (2, 3):
            specs.append(_spec(item[0], item[1], item[2] if len(item) == 3 else None, 0, where))
        elif isinstance(item, Mapping):
            body: Mapping[str, Any] = item
            if isinstance(item.get("function"), Mapping):
                body = item["function"]
            if "name" not in body:
                raise TypeError(
                    f"{where}: a call mapping needs 'name' and 'arguments' (or 'input'); got {sorted(item)}"
                )
            arguments = body.get("arguments", body.get("input", {}))
            specs.append(_spec(body["name"], arguments, item.get("id"), item.get("choice", 0), where))
        elif hasattr(item, "name") and (hasattr(item, "arguments") or hasattr(item, "arguments_json")):
            text = getattr(item, "arguments_json", None)
            arguments = text if isinstance(text, str) and text.strip() else getattr(item, "arguments", None)
            specs.append(
                _spec(
                    item.name,
                    {} if arguments is None else arguments,
                    getattr(item, "id", None),
                    getattr(item, "choice", None) or 0,
                    where,
                )
            )
        elif hasattr(item, "function") and hasattr(item.function, "name"):
            specs.append(_spec(item.function.name, item.function.arguments, getattr(item, "id", None), 0, where))
        else:
            raise TypeError(
                f"{where}: expected a (name, arguments) or (name, arguments, id) tuple, a mapping with 'name' and "
                f"'arguments', or a call object (ToolCall, an SDK tool call); got {type(item).__name__}"
            )
    return specs
