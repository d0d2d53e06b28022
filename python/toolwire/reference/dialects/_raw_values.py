"""Raw parameter values (``<parameter=K>V</parameter>``) typed by the tool's JSON Schema, as JSON text.

The schema's types are tried in its order (``type``, a type list, the branches of ``anyOf``/``oneOf``/``allOf``, a
local ``$ref``; an ``enum`` or ``const`` without ``type`` has its values' types), except that ``string`` is tried
last: raw text is always a string, so a string branch first would make every other branch unreachable (the servers'
rule too: vLLM, SGLang and llama.cpp type ``42`` for ``["string", "integer"]`` and keep ``2 dollars`` a string). A
schema that names no type takes the text as a string.

A value is its JSON text exactly as written, less the whitespace outside strings: ``1.50`` stays ``1.50``, escapes
stay as written. The text read as JSON is one strict RFC 8259 value (the scanner's grammar: no lone surrogates),
nested no deeper than the call's ``Limits.max_depth`` allows inside its arguments object, with finite numbers and no
key repeated in one object. An ``integer`` is a number of integer value (``1.0`` is one, kept as ``1.0``); a
``boolean`` is ``true``/``false`` or ``True``/``False`` (as Qwen models write them), written ``true``/``false``; a
``string`` is the raw text as a JSON string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolwire._common._json import json_type, lookup, pointer_tokens
from toolwire.reference._scanner import COMPLETE, Scanner
from toolwire.reference.dialects._shared import FindingCode, quoted

__all__ = ["parameter_schema", "typed", "typed_arguments"]

_BOOLEANS: Final = {"true": "true", "false": "false", "True": "true", "False": "false"}
# JSON's whitespace, the only whitespace trimmed around a raw value of any type.
_WHITESPACE: Final = " \t\r\n"
# `$ref` chains and nested unions are followed this deep at most, so that a schema referring to itself ends.
_MAX_NESTING: Final = 32
# The tokens of JSON text the scanner accepted: a string, a number (its fraction and exponent), or whitespace.
_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?P<float>\.\d+)?(?P<exponent>[eE][-+]?\d+)?|[ \t\r\n]+', re.ASCII)
_JSON_TYPES: Final = {"{": "object", "[": "array", '"': "string", "t": "boolean", "f": "boolean", "n": "null"}


def parameter_schema(parameters: Mapping[str, Any] | None, key: str) -> Any:
    """The schema of the parameter ``key`` of a tool's ``parameters``, or None when nothing describes it."""
    if parameters is None:
        return None
    properties = parameters.get("properties")
    if isinstance(properties, Mapping) and key in properties:
        return properties[key]
    extra = parameters.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


def typed(raw: str, schema: Any, root: Mapping[str, Any], max_depth: int) -> tuple[str, str | None]:
    """The JSON text ``raw`` is under ``schema`` (a local ``$ref`` read in ``root``), or ``raw``'s and why it is not.

    ``max_depth`` is the call's ``Limits.max_depth``: the arguments object holding the value counts as 1.
    """
    names = _types(schema, root, 0)
    if not names:
        return quoted(raw), None
    read = _read(raw, max(max_depth - 1, 0))
    for name in (*(name for name in names if name != "string"), *(name for name in names if name == "string")):
        text = _as(raw, name, read)
        if text is not None:
            return text, None
    return quoted(raw), f"{quoted(raw)} is not {' or '.join(names)}"


def typed_arguments(
    pairs: Iterable[tuple[str, str]],
    parameters: Mapping[str, Any] | None,
    findings: list[tuple[FindingCode, str]],
    max_depth: int,
) -> str:
    """The compact JSON text of the arguments object of a call's raw ``(key, value)`` pairs, typed in order.

    ``parameters`` is the tool's (None: no such tool); a key given twice is the caller's to refuse. Each value no type reads adds ``UNTYPED_VALUE`` to ``findings``, each value with no schema ``NO_SCHEMA``; both
    keep the string.
    """
    members: list[str] = []
    for key, raw in pairs:
        schema = parameter_schema(parameters, key)
        if schema is None:
            known = "the tool" if parameters is None else "the parameter"
            findings.append(("NO_SCHEMA", f"{known} of {quoted(key)} has no schema; its value is kept as a string"))
            members.append(f"{quoted(key)}:{quoted(raw)}")
            continue
        text, problem = typed(raw, schema, parameters or {}, max_depth)
        if problem is not None:
            findings.append(("UNTYPED_VALUE", f"the parameter {quoted(key)}: {problem}; kept as a string"))
        members.append(f"{quoted(key)}:{text}")
    return "{" + ",".join(members) + "}"


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


def _as(raw: str, name: str, read: tuple[str, str] | None) -> str | None:
    """The JSON text of ``raw`` as a value of the JSON type ``name`` (``read``: its JSON type and text), or None."""
    if name == "string":
        return quoted(raw)
    if name == "boolean":
        return _BOOLEANS.get(raw.strip(_WHITESPACE))
    if read is None:
        return None
    kind, text = read
    return text if kind == name or (name == "number" and kind == "integer") else None


def _read(raw: str, max_depth: int) -> tuple[str, str] | None:
    """The JSON type and compact text of ``raw`` read as one JSON value, or None when it is none.

    ``integer`` is the type of a number of integer value however written (``1.0``, ``1e2``), as JSON Schema has it.
    """
    scanner = Scanner(max_depth)
    scanner.feed(raw.encode("utf-8", "surrogatepass"))
    if scanner.finish() != COMPLETE or scanner.has_duplicate_keys:
        return None
    parts: list[str] = []
    at = 0
    for token in _TOKEN.finditer(raw):
        parts.append(raw[at : token.start()])
        at = token.end()
        written = token[0]
        if written[0] in _WHITESPACE:
            continue
        if written[0] != '"' and (token["float"] or token["exponent"]) and not math.isfinite(float(written)):
            return None
        parts.append(written)
    parts.append(raw[at:])
    text = "".join(parts)
    kind = _JSON_TYPES.get(text[0])
    if kind is None:
        integral = not any(char in text for char in ".eE") or float(text).is_integer()
        kind = "integer" if integral else "number"
    return kind, text
