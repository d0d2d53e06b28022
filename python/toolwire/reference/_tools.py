"""A ``ToolRegistry`` compiled by the reference (Python ``jsonschema``), in the shape ``toolwire._pipeline._validation`` uses.

The twin of the core's ``ToolValidators`` class: fingerprints by name, and a call's arguments judged as the core's
``validate_arguments`` judges them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from toolwire._model import Limits, Violation, ViolationCode, violation
from toolwire._pipeline._protocol import OUTPUT, SchemaCheck
from toolwire.registry import ToolRegistry

if TYPE_CHECKING:
    from toolwire.reference._validator import Validators

__all__ = ["ReferenceTools", "reference_schema", "reference_validators"]


class ReferenceTools:
    """The registry's function tools compiled once, their fingerprints, and its server tools' names."""

    def __init__(self, registry: ToolRegistry, max_depth: int, max_steps: int) -> None:
        """Compile every schema of ``registry``; a schema that fails raises ``SchemaError``."""
        self._module = _validator_module()
        self._validators: Validators = self._module.Validators(
            ((tool.name, tool.parameters) for tool in registry), registry._server_names(), max_depth, max_steps
        )
        self._fingerprints = {tool.name: tool.fingerprint for tool in registry}
        self._parameters = MappingProxyType({tool.name: tool.parameters for tool in registry})
        self._max_depth = max_depth

    @property
    def names(self) -> tuple[str, ...]:
        """The function tools' names, in declaration order."""
        return self._validators.names

    def parameters(self) -> Mapping[str, Any]:
        """Each function tool's parameters schema, by name: what types the raw values a text dialect writes."""
        return self._parameters

    def fingerprint(self, name: str) -> str | None:
        """The fingerprint of the function tool ``name``, or None."""
        return self._fingerprints.get(name)

    def unknown_tool(self, name: str) -> Violation | None:
        """``UNKNOWN_TOOL`` when ``name`` is neither a function tool nor a server tool."""
        return self._validators.unknown_tool(name)

    def validate(self, name: str, arguments: str | bytes, *, call: bool = True) -> list[Violation]:
        """Every problem of ``arguments`` for ``name``; with ``call``, judged as a stream judges a whole call.

        In the stream's order: what is wrong with the text (``EMPTY_ARGUMENTS``, then checked as ``{}``;
        ``INVALID_JSON``; ``TOO_DEEP``; ``ARGUMENTS_NOT_OBJECT``), then ``UNKNOWN_TOOL``, then the schema's findings.
        A server tool's call is not checked.
        """
        if not call:
            return self._validators.validate(name, arguments)
        unknown = self.unknown_tool(name)
        if unknown is None and name not in self._fingerprints:
            return []
        text = arguments.encode("utf-8", "surrogatepass") if isinstance(arguments, str) else bytes(arguments)
        found: list[Violation] = []
        checked: bytes | None = text
        parsed = True  # whether the text is one JSON value
        if not text.strip(b" \t\n\r"):  # JSON's whitespace: a text of nothing else is no value
            found.append(violation(ViolationCode.EMPTY_ARGUMENTS, "the call came without arguments"))
            checked = b"{}"
        elif self._module._too_deep(text, self._max_depth):
            found.append(self._module._too_deep_violation(self._max_depth))
            checked, parsed = None, False
        elif (problem := self._module._scan(text, self._max_depth)) is not None:
            found.append(problem)
            checked, parsed = None, False
        elif not text.lstrip().startswith(b"{"):
            # Every integer read as 0: the kind of the value is all that is wanted here.
            kind = _json_kind(json.loads(text.decode("utf-8"), parse_int=lambda _: 0))
            found.append(
                violation(ViolationCode.ARGUMENTS_NOT_OBJECT, f"the arguments are a JSON {kind}, not an object")
            )
            checked = None
        if unknown is None and checked is not None:
            return [*found, *self._validators.validate(name, checked)]
        if unknown is not None:
            found.append(unknown)
        # A value Python cannot hold is found where a stream finds it: when the call's value is built, last.
        if parsed and not _convertible(self._module, text):
            found.append(self._module.number_too_long())
        return found

    def validate_many(self, calls: list[object]) -> list[list[Violation]] | None:
        """``validate`` for each ``(name, text)`` pair; None when an item is not such a pair."""
        pairs = []
        for item in calls:
            if not (
                isinstance(item, tuple)
                and len(item) == 2
                and isinstance(item[0], str)
                and isinstance(item[1], (str, bytes))
            ):
                return None
            pairs.append((item[0], item[1]))
        return [self.validate(name, arguments) for name, arguments in pairs]


def _validator_module() -> ModuleType:
    """The reference validator, imported on first use: it needs the optional ``jsonschema`` package."""
    try:
        from toolwire.reference import _validator
    except ImportError as error:
        raise ImportError(
            "toolwire.reference validates tool calls with the jsonschema and google-re2 packages: "
            "pip install 'toolwire[reference]'"
        ) from error
    return _validator


def _convertible(module: ModuleType, text: bytes) -> bool:
    """Whether the JSON ``text`` (or ``{}`` for none) is a value Python can hold."""
    try:
        module.loads_arguments(text if text.strip(b" \t\n\r") else b"{}")
    except ValueError:
        return False
    return True


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def reference_validators(
    registry: ToolRegistry, max_depth: int = Limits().max_depth, max_steps: int = Limits().max_validation_steps
) -> ReferenceTools:
    """The registry compiled by the reference, once per pair of limits."""
    return registry._compiled(ReferenceTools, max_depth, max_steps)


def reference_schema(schema: dict[str, Any], max_depth: int, max_steps: int) -> SchemaCheck:
    """A structured output's schema compiled by the reference's validator of arguments, checking any value."""
    validators = _validator_module().Validators([(OUTPUT, schema)], (), max_depth, max_steps)
    return partial(validators.validate, OUTPUT)
