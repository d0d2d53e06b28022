"""Arguments made up from a tool's JSON Schema, for the calls an ``auto`` model makes without a scripted answer.

The value is the plainest one the schema allows: required properties only; ``const`` or the first ``enum`` value; a
string is ``"example"`` (or a sample of its ``format``) padded to ``minLength`` and cut to ``maxLength``; an integer
or number is its minimum (just above an exclusive one) or 1, kept under its maximum; a boolean is true; an array has
``minItems`` items; an object is built recursively; ``anyOf``/``oneOf`` take their first branch, ``allOf`` is merged,
local ``$ref`` s are followed. The result is then checked with ``toolwire.validate``: what the plain value does not
satisfy (a ``pattern``, ``uniqueItems``, a ``not``) makes the tool *not synthesizable*, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from toolwire._common._json import lookup, pointer_token, pointer_tokens
from toolwire._model import Severity
from toolwire._pipeline._bound import core
from toolwire.errors import SchemaError
from toolwire.registry import ToolRegistry

__all__ = ["NotSynthesizableError", "synthesize"]

_FORMAT_SAMPLES: Final = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
_MAX_DEPTH: Final = 32


class NotSynthesizableError(ValueError):
    """A tool's schema asks for something the plain value cannot give; the message says what and where."""


# What a ``$ref`` that leads nowhere reaches (a subschema may itself be null).
_NOWHERE: Final = object()


def _pointer_get(root: Any, reference: str, where: str) -> Any:
    """The subschema a local ``$ref`` (``#/...``) points to."""
    if not reference.startswith("#"):
        raise NotSynthesizableError(f"{where}: only local $ref ('#/...') are followed, got {reference!r}")
    node = lookup(root, pointer_tokens(reference[1:]), _NOWHERE)
    if node is _NOWHERE:
        raise NotSynthesizableError(f"{where}: $ref {reference!r} points nowhere")
    return node


def _merge_all_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``allOf`` folded into one schema: properties and required lists united, other keys from the last branch."""
    merged = {key: value for key, value in schema.items() if key != "allOf"}
    for branch in schema["allOf"]:
        if not isinstance(branch, Mapping):
            continue
        for key, value in branch.items():
            if key == "properties" and isinstance(value, Mapping):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


class _Synthesizer:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root

    def value(self, schema: Any, where: str, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise NotSynthesizableError(f"{where or '/'}: nested (or recursive) deeper than {_MAX_DEPTH} levels")
        if schema is True or schema is None:
            return "example"
        if schema is False:
            raise NotSynthesizableError(f"{where or '/'}: the schema 'false' allows no value")
        if not isinstance(schema, Mapping):
            raise NotSynthesizableError(f"{where or '/'}: a schema must be an object, got {schema!r:.40}")
        if "$ref" in schema:
            return self.value(_pointer_get(self.root, schema["$ref"], where or "/"), where, depth + 1)
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        return self.composed(schema, where, depth)

    def composed(self, schema: Mapping[str, Any], where: str, depth: int) -> Any:
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                return self.value(branches[0], where, depth + 1)
        if isinstance(schema.get("allOf"), list):
            return self.value(_merge_all_of(schema), where, depth + 1)
        return self.typed(schema, _type_of(schema), where, depth)

    def typed(self, schema: Mapping[str, Any], kind: str, where: str, depth: int) -> Any:
        if kind == "object":
            return self.object(schema, where, depth)
        if kind == "array":
            return self.array(schema, where, depth)
        if kind in ("integer", "number"):
            return _number(schema, integer=kind == "integer")
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return _string(schema)

    def object(self, schema: Mapping[str, Any], where: str, depth: int) -> dict[str, Any]:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        extra = schema.get("additionalProperties", True)
        required = schema.get("required")
        built: dict[str, Any] = {}
        for name in required if isinstance(required, list) else []:
            if not isinstance(name, str) or name in built:
                continue
            subschema = properties.get(name, extra if isinstance(extra, Mapping) else True)
            built[name] = self.value(subschema, f"{where}/{pointer_token(name)}", depth + 1)
        return built

    def array(self, schema: Mapping[str, Any], where: str, depth: int) -> list[Any]:
        count = schema.get("minItems", 0)
        count = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0
        prefix = schema.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        items = schema.get("items", True)
        if isinstance(items, list):  # draft 4-7 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        built = []
        for position in range(count):
            subschema = prefix[position] if position < len(prefix) else items
            built.append(self.value(subschema, f"{where}/{position}", depth + 1))
        return built


def _type_of(schema: Mapping[str, Any]) -> str:
    """The JSON type to build: the declared one (the first non-null of a list), else what the keywords suggest."""
    declared = schema.get("type")
    if isinstance(declared, list):
        named = [kind for kind in declared if isinstance(kind, str)]
        declared = next((kind for kind in named if kind != "null"), named[0] if named else None)
    if isinstance(declared, str):
        return declared
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema or "minItems" in schema:
        return "array"
    if "minimum" in schema or "maximum" in schema or "exclusiveMinimum" in schema:
        return "number"
    return "string"


def _string(schema: Mapping[str, Any]) -> str:
    sample = _FORMAT_SAMPLES.get(str(schema.get("format")), "example")
    minimum, maximum = schema.get("minLength"), schema.get("maxLength")
    if isinstance(minimum, int) and len(sample) < minimum:
        sample += "x" * (minimum - len(sample))
    if isinstance(maximum, int) and maximum >= 0 and len(sample) > maximum:
        sample = sample[:maximum]
    return sample


def _number(schema: Mapping[str, Any], *, integer: bool) -> int | float:
    minimum, above = _bound(schema, "minimum"), _bound(schema, "exclusiveMinimum")
    value: int | float = 1 if minimum is None else minimum
    if above is not None:
        value = math.floor(above) + 1 if minimum is None else max(value, math.floor(above) + 1)
    elif schema.get("exclusiveMinimum") is True and minimum is not None:  # draft 4's boolean form
        value = math.floor(minimum) + 1
    maximum, below = _bound(schema, "maximum"), _bound(schema, "exclusiveMaximum")
    if maximum is not None and value > maximum:
        value = maximum
    if below is not None and value >= below:
        value = math.ceil(below) - 1 if integer else below - 1
    step = _bound(schema, "multipleOf")
    if step is not None and step > 0:
        value = math.ceil(value / step) * step
    return math.ceil(value) if integer else value


def _bound(schema: Mapping[str, Any], key: str) -> int | float | None:
    """A numeric keyword's value, or None when it is absent or not a finite number."""
    value = schema.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def synthesize(name: str, tools: ToolRegistry) -> dict[str, Any]:
    """Valid arguments for one tool, made up from its schema.

    Args:
        name: The tool.
        tools: The registry that declares it (its compiled validators are reused).

    Returns:
        The arguments object, validated against the tool's schema.

    Raises:
        KeyError: ``name`` is not declared.
        NotSynthesizableError: The plain value does not satisfy the schema (the message gives the JSON pointer and
            the validator's finding) or the schema cannot be read.
    """
    tool = tools[name]
    arguments = _Synthesizer(tool.parameters).value(tool.parameters, "")
    if not isinstance(arguments, dict):
        raise NotSynthesizableError(f"tool {name!r}: its parameters do not describe an object")
    try:
        found = core.validate(name, arguments, tools)
    except SchemaError as error:
        raise NotSynthesizableError(f"tool {name!r}: {error}") from None
    errors = [violation for violation in found if violation.severity is Severity.ERROR]
    if errors:
        reasons = "; ".join(f"{v.path or '/'}: {v.code.value} ({v.message})" for v in errors)
        raise NotSynthesizableError(f"tool {name!r}: the plain arguments {arguments} are not valid: {reasons}")
    return arguments
