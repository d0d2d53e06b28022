"""Tool-argument validation outside a stream, written once over a compiled form of a registry.

The Rust core (``toolwire._core.ToolValidators``) and the reference (``toolwire.reference._validator``) each
compile a ``ToolRegistry`` into an object of the ``CompiledTools`` shape; ``make_validators`` builds the public
``validate`` and ``validate_many`` over one of them. A call is judged exactly as a stream judges it once whole:
the same codes, pointers and order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from toolwire._model import Limits, Violation
from toolwire.registry import ToolRegistry

__all__ = ["CompileTools", "CompiledTools", "core_validators", "make_validators"]

_DEFAULT_DEPTH = Limits().max_depth
_DEFAULT_STEPS = Limits().max_validation_steps


class CompiledTools(Protocol):
    """A registry's schemas compiled once (the core's ``ToolValidators`` or the reference's ``Validators``)."""

    @property
    def names(self) -> Any:
        """The function tools' names in declaration order."""
        ...

    def fingerprint(self, name: str) -> str | None:
        """The fingerprint of the function tool ``name``."""
        ...

    def unknown_tool(self, name: str) -> Violation | None:
        """``UNKNOWN_TOOL`` when ``name`` is not declared."""
        ...

    def validate(self, name: str, arguments: str | bytes, *, call: bool = True) -> list[Violation]:
        """Every problem of ``arguments`` (JSON text) for ``name``."""
        ...

    def validate_many(self, calls: list[Any]) -> list[list[Violation]] | None:
        """``validate`` for each ``(name, text)`` pair; None when an item is not such a pair."""
        ...


CompileTools = Callable[[ToolRegistry, int, int], CompiledTools]
"""Compiles a registry for arguments nested up to a depth (``Limits.max_depth``) whose problems are searched for
within a budget (``Limits.max_validation_steps``); cached on the registry."""


def core_validators(
    registry: ToolRegistry, max_depth: int = _DEFAULT_DEPTH, max_steps: int = _DEFAULT_STEPS
) -> CompiledTools:
    """The registry compiled by the Rust core, once per pair of limits."""
    from toolwire._core import ToolValidators

    def build(tools: ToolRegistry) -> CompiledTools:
        compiled: CompiledTools = ToolValidators(tools._schema_texts(), tools._server_names(), max_depth, max_steps)
        return compiled

    return registry._compiled(("core", max_depth, max_steps), build)


def _json_text(arguments: object, where: str) -> str | bytes:
    """The arguments as JSON text; ``None`` is ``""``: no arguments, which the call carries as ``{}``."""
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


def _bounds(limits: Limits | None) -> tuple[int, int]:
    """``max_depth`` and ``max_validation_steps`` of ``limits``."""
    # Not ``(limits or Limits())``: building the frozen default costs more than validating a small call.
    return (_DEFAULT_DEPTH, _DEFAULT_STEPS) if limits is None else (limits.max_depth, limits.max_validation_steps)


def _name_of(name: object, where: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{where}: the tool name must be a str; got {type(name).__name__}")
    return name


def _pair(item: object, position: int) -> tuple[str, object]:
    """``(name, arguments)`` of one item of a batch: a pair, a mapping, or a call object."""
    where = f"calls[{position}]"
    if isinstance(item, tuple) and len(item) == 2:
        return _name_of(item[0], where), item[1]
    if isinstance(item, Mapping):
        if "function" in item and isinstance(item["function"], Mapping):
            item = item["function"]
        if "name" not in item:
            raise ValueError(f"{where}: a call mapping needs 'name' and 'arguments' (or 'input'); got {sorted(item)}")
        arguments = item.get("arguments", item.get("input"))
        return _name_of(item["name"], where), arguments
    if hasattr(item, "name") and hasattr(item, "arguments"):
        return _name_of(item.name, where), item.arguments
    raise TypeError(
        f"{where}: expected a (name, arguments) pair, a mapping with 'name' and 'arguments', or a call object "
        f"(ToolCall, an SDK tool call); got {type(item).__name__}"
    )


def make_validators(
    compile_tools: CompileTools,
) -> tuple[Callable[..., list[Violation]], Callable[..., list[list[Violation]]]]:
    """Build ``validate`` and ``validate_many`` over one implementation's compiled form."""

    def validate(name: str, arguments: object, tools: object, *, limits: Limits | None = None) -> list[Violation]:
        """Check one tool call's arguments against the declared tools, as a stream checks a whole call.

        Args:
            name: The tool name the call carries.
            arguments: JSON text (``str`` or ``bytes``, exactly as received) or an already parsed value. ``None`` and
                ``""`` mean no arguments: ``EMPTY_ARGUMENTS`` (info), checked as ``{}``.
            tools: A ``ToolRegistry`` or anything it loads. Pass a registry when validating many calls: its schemas
                are compiled once and kept.
            limits: ``max_depth`` bounds the nesting of the arguments (``TOO_DEEP`` past it), ``max_validation_steps``
                the search for the problems of invalid ones (``VALIDATION_BUDGET_EXCEEDED`` past it).

        Returns:
            Every violation, in the order a stream finds them: what is wrong with the text (``EMPTY_ARGUMENTS``,
            ``INVALID_JSON``, ``TOO_DEEP``, ``ARGUMENTS_NOT_OBJECT``), then ``UNKNOWN_TOOL``, then the schema's
            findings sorted by JSON pointer; empty when the call is valid. ``choice``, ``seq`` and ``index`` are None.

        Raises:
            TypeError: ``name`` is not a string, or ``arguments`` is neither JSON text nor a JSON-compatible value.
            toolwire.errors.SchemaError: A tool's schema cannot be compiled.
        """
        compiled = compile_tools(ToolRegistry.load(tools), *_bounds(limits))
        return compiled.validate(_name_of(name, "validate"), _json_text(arguments, "validate"))

    def validate_many(calls: Iterable[object], tools: object, *, limits: Limits | None = None) -> list[list[Violation]]:
        """``validate`` for a batch: the core checks it with the GIL released, on every core when it is large.

        Args:
            calls: ``(name, arguments)`` pairs, mappings with ``name`` and ``arguments`` (an OpenAI ``tool_calls``
                entry with ``function`` too, or an Anthropic ``tool_use`` block with ``input``), or call objects
                with ``name`` and ``arguments`` attributes (``ToolCall``, ``InvalidToolCall``).
            tools: A ``ToolRegistry`` or anything it loads.
            limits: As for ``validate``.

        Returns:
            One list of violations per call, in order.
        """
        compiled = compile_tools(ToolRegistry.load(tools), *_bounds(limits))
        batch = calls if isinstance(calls, list) else list(calls)
        # (name, text) pairs go to the compiled form as they are; anything else is read into pairs first.
        found = compiled.validate_many(batch)
        if found is None:
            pairs = []
            for position, item in enumerate(batch):
                name, arguments = _pair(item, position)
                pairs.append((name, _json_text(arguments, f"calls[{position}]")))
            found = compiled.validate_many(pairs)
        assert found is not None, "every item is a (name, text) pair now"
        return found

    return validate, validate_many
