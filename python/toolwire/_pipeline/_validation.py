"""Tool-argument validation: a registry's compiled form, and calls given outside a stream read into its terms.

The Rust core (``toolwire._core.ToolValidators``) and the reference (``toolwire.reference._validator``) each
compile a ``ToolRegistry`` into an object of the ``CompiledTools`` shape; the public ``validate`` and
``validate_many`` (``toolwire._pipeline._api``) judge a call with it exactly as a stream judges it once whole: the same codes,
pointers and order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeAlias

from toolwire._model import Limits

__all__ = [
    "ArgumentsLike",
    "CallLike",
    "NamedCall",
    "arguments_text",
    "call_pair",
    "tool_name",
    "validation_bounds",
]

_DEFAULT_DEPTH = Limits().max_depth
_DEFAULT_STEPS = Limits().max_validation_steps


ArgumentsLike: TypeAlias = str | bytes | bytearray | memoryview | Mapping[str, object] | Sequence[object] | float | None
"""A call's arguments: JSON text exactly as received, or a value already parsed from it (``None`` and ``""`` are no
arguments). A parsed value is checked as the JSON it serializes to: a mapping (the arguments object), or, found
invalid as ``ARGUMENTS_NOT_OBJECT``, a list, string, number or boolean."""


class NamedCall(Protocol):
    """A call object: ``ToolCall``, ``InvalidToolCall``, or an SDK's function call (openai's ``tool_call.function``)."""

    @property
    def name(self) -> object:
        """The tool name (a ``str``; anything else is refused with ``TypeError``)."""
        ...

    @property
    def arguments(self) -> object:
        """The arguments (``ArgumentsLike``)."""
        ...


CallLike: TypeAlias = tuple[str, ArgumentsLike] | Mapping[str, Any] | NamedCall
"""One call of ``validate_many``: a ``(name, arguments)`` pair, a mapping with ``name`` and ``arguments`` (an OpenAI
``tool_calls`` entry with ``function`` too, or an Anthropic ``tool_use`` block with ``input``), or a call object."""


def arguments_text(arguments: object, where: str) -> str | bytes:
    """The arguments as JSON text; ``None`` is ``""``: no arguments, which the call carries as ``{}``.

    Raises:
        TypeError: A value JSON cannot hold, naming ``where`` the call is.
    """
    if arguments is None:
        return ""
    if isinstance(arguments, (str, bytes)):
        return arguments
    if isinstance(arguments, (bytearray, memoryview)):
        return bytes(arguments)
    try:
        return json.dumps(arguments, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{where}: arguments must be JSON text (str or bytes) or a JSON-compatible value (dict, list, str, int, "
            f"float, bool, None); {error}"
        ) from None


def validation_bounds(limits: Limits | None) -> tuple[int, int]:
    """``max_depth`` and ``max_validation_steps`` of ``limits``."""
    # Not ``(limits or Limits())``: building the frozen default costs more than validating a small call.
    return (_DEFAULT_DEPTH, _DEFAULT_STEPS) if limits is None else (limits.max_depth, limits.max_validation_steps)


def tool_name(name: object, where: str) -> str:
    """``name`` itself: a call's tool name must be a string.

    Raises:
        TypeError: It is not, naming ``where`` the call is.
    """
    if not isinstance(name, str):
        raise TypeError(f"{where}: the tool name must be a str; got {type(name).__name__}")
    return name


def call_pair(item: object, position: int) -> tuple[str, object]:
    """``(name, arguments)`` of one item of a batch: a pair, a mapping, or a call object.

    Raises:
        TypeError: The item is none of these, or its name is not a string.
        ValueError: A mapping without ``name``.
    """
    where = f"calls[{position}]"
    if isinstance(item, tuple) and len(item) == 2:
        return tool_name(item[0], where), item[1]
    if isinstance(item, Mapping):
        if "function" in item and isinstance(item["function"], Mapping):
            item = item["function"]
        if "name" not in item:
            raise ValueError(f"{where}: a call mapping needs 'name' and 'arguments' (or 'input'); got {sorted(item)}")
        arguments = item.get("arguments", item.get("input"))
        return tool_name(item["name"], where), arguments
    if hasattr(item, "name") and hasattr(item, "arguments"):
        return tool_name(item.name, where), item.arguments
    raise TypeError(
        f"{where}: expected a (name, arguments) pair, a mapping with 'name' and 'arguments', or a call object "
        f"(ToolCall, an SDK tool call); got {type(item).__name__}"
    )
