"""Raw parameter values (``<parameter=K>V</parameter>``) typed by the tool's JSON Schema.

The schema's types are tried in its order (``type``, a type list, the branches of ``anyOf``/``oneOf``/``allOf``, a
local ``$ref``; an ``enum`` or ``const`` without ``type`` has its values' types), except that ``string`` is tried
last: raw text is always a string, so a string branch first would make every other branch unreachable (the servers'
rule too: vLLM, SGLang and llama.cpp type ``42`` for ``["string", "integer"]`` and keep ``2 dollars`` a string). A
schema that names no type takes the text as a string. ``True``/``False`` are booleans, as Qwen models write them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolwire._common._json import json_type, lookup, pointer_tokens
from toolwire.reference.dialects._shared import FindingCode, read_json

__all__ = ["parameter_schema", "typed", "typed_arguments"]

_BOOLEANS: Final = {"true": True, "false": False, "True": True, "False": False}
# `$ref` chains and nested unions are followed this deep at most, so that a schema referring to itself ends.
_MAX_NESTING: Final = 32


def parameter_schema(parameters: Mapping[str, Any] | None, key: str) -> Any:
    """The schema of the parameter ``key`` of a tool's ``parameters``, or None when nothing describes it."""
    if parameters is None:
        return None
    properties = parameters.get("properties")
    if isinstance(properties, Mapping) and key in properties:
        return properties[key]
    extra = parameters.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


def typed(raw: str, schema: Any, root: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The value ``raw`` is under ``schema`` (a local ``$ref`` read in ``root``), or ``raw`` and why it is not."""
    names = _types(schema, root, 0)
    if not names:
        return raw, None
    for name in (*(name for name in names if name != "string"), *(name for name in names if name == "string")):
        found, value = _as(raw, name)
        if found:
            return value, None
    return raw, f"{raw!r} is not {' or '.join(names)}"


def typed_arguments(
    pairs: Iterable[tuple[str, str]],
    parameters: Mapping[str, Any] | None,
    findings: list[tuple[FindingCode, str]],
) -> dict[str, object]:
    """A call's raw ``(key, value)`` pairs typed by its tool's ``parameters`` (None: no such tool), in order.

    Each value no type reads adds ``UNTYPED_VALUE`` to ``findings``, each value with no schema ``NO_SCHEMA``; both
    keep the string.
    """
    arguments: dict[str, object] = {}
    for key, raw in pairs:
        schema = parameter_schema(parameters, key)
        if schema is None:
            known = "the tool" if parameters is None else "the parameter"
            findings.append(("NO_SCHEMA", f"{known} of {key!r} has no schema; its value is kept as a string"))
            arguments[key] = raw
            continue
        value, problem = typed(raw, schema, parameters or {})
        if problem is not None:
            findings.append(("UNTYPED_VALUE", f"the parameter {key!r}: {problem}; kept as a string"))
        arguments[key] = value
    return arguments


def _types(schema: Any, root: Mapping[str, Any], depth: int) -> list[str]:
    if not isinstance(schema, Mapping) or depth > _MAX_NESTING:
        return []
    names: list[str] = []
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#"):
        names += _types(lookup(root, pointer_tokens(reference[1:])), root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, str):
        names.append(kind)
    elif isinstance(kind, list):
        names += [name for name in kind if isinstance(name, str)]
    elif "enum" in schema or "const" in schema:
        values = schema["enum"] if "enum" in schema else [schema["const"]]
        names += [json_type(value) for value in values] if isinstance(values, list) else []
    for keyword in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for branch in branches:
                names += _types(branch, root, depth + 1)
    return list(dict.fromkeys(names))


def _as(raw: str, name: str) -> tuple[bool, Any]:
    """Whether ``raw`` is a value of the JSON type ``name``, and that value."""
    if name == "string":
        return True, raw
    if name == "boolean":
        text = raw.strip()
        return (True, _BOOLEANS[text]) if text in _BOOLEANS else (False, None)
    try:
        value = read_json(raw)
    except ValueError:
        return False, None
    return (True, value) if _is(value, name) else (False, None)


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    return json_type(value) == name or (name == "number" and json_type(value) == "integer")
