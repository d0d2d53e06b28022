"""Two schemas that must both hold, as one plain schema when that is simple (``allOf``, an ``anyOf`` branch).

``merge`` folds the keywords whose conjunction is again one keyword (types intersect, bounds tighten, ``required``
unites, ``properties`` merge member by member, enums intersect, ``multipleOf`` takes the least common multiple). It
returns None when the conjunction is not that simple (two different patterns, ``additionalProperties: false`` on
one side refusing the other side's properties...): the caller then generates from one and filters by the other.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

__all__ = ["ANNOTATIONS", "Unsatisfiable", "exact", "json_key", "merge", "token"]

# Keywords that say nothing about which values are valid.
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "example",
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "$defs",
        "definitions",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "discriminator",
        "nullable",
        "strict",
        "format",
    }
)


class Unsatisfiable(Exception):
    """No value can exist at ``pointer`` (an ``anyOf`` branch or an optional property may survive it)."""

    def __init__(self, pointer: str, reason: str) -> None:
        """Name the place and the reason."""
        super().__init__(reason)
        self.pointer = pointer
        self.reason = reason


_NO_MERGE: Any = object()  # a keyword pair that is not one keyword again


def token(key: str | int) -> str:
    """A JSON pointer reference token."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _normal(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return ["#n", str(Fraction(value))]
    if isinstance(value, list):
        return [_normal(item) for item in value]
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items()}
    return repr(value)


def json_key(value: Any) -> str:
    """A key equal for JSON-equal values (``1 == 1.0``, ``true != 1``), for ``uniqueItems`` and enums."""
    return json.dumps(_normal(value), sort_keys=True)


def exact(value: Any, pointer: str) -> Fraction:
    """A schema number as an exact fraction of its decimal text."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unsatisfiable(pointer, f"expected a number; got {value!r:.40}")
    return Fraction(value) if isinstance(value, int) else Fraction(repr(value))


def _types(a: Any, b: Any, pointer: str) -> Any:
    left = [a] if isinstance(a, str) else list(a)
    right = [b] if isinstance(b, str) else list(b)
    out = [t for t in left if t in right]
    if "integer" not in out and {"number", "integer"} <= {*left, *right} and ("integer" in left or "integer" in right):
        out.append("integer")  # the integers are numbers
    if not out:
        raise Unsatisfiable(pointer, f"the branches need types {a!r} and {b!r} at once")
    return out


def _properties(a: Any, b: Any, pointer: str) -> Any:
    properties = dict(a)
    for name, sub in b.items():
        mine = properties.get(name)
        if mine is None or mine == sub:
            properties[name] = sub
        elif isinstance(mine, dict) and isinstance(sub, dict):
            inner = merge(mine, sub, f"{pointer}/properties/{token(name)}")
            properties[name] = inner if inner is not None else {"allOf": [mine, sub]}
        else:
            return _NO_MERGE
    return properties


def _enum(a: Any, b: Any, pointer: str) -> Any:
    keys = {json_key(v) for v in b}
    common = [v for v in a if json_key(v) in keys]
    if not common:
        raise Unsatisfiable(pointer, "no value is in both enum (or const) lists")
    return common


def _multiple(a: Any, b: Any, pointer: str) -> Any:
    x, y = exact(a, pointer), exact(b, pointer)
    lcm = Fraction(math.lcm(x.numerator, y.numerator), math.gcd(x.denominator, y.denominator))
    return int(lcm) if lcm.denominator == 1 else float(lcm)


def _items(a: Any, b: Any, pointer: str) -> Any:
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return _NO_MERGE
    inner = merge(a, b, f"{pointer}/items")
    return inner if inner is not None else {"allOf": [a, b]}


_MERGERS: dict[str, Callable[[Any, Any, str], Any]] = {
    "type": _types,
    "required": lambda a, b, _: list(dict.fromkeys([*a, *b])),
    "properties": _properties,
    "enum": _enum,
    "uniqueItems": lambda a, b, _: bool(a) or bool(b),
    "multipleOf": _multiple,
    "items": _items,
    **dict.fromkeys(
        ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"), lambda a, b, _: max(a, b)
    ),
    **dict.fromkeys(
        ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"), lambda a, b, _: min(a, b)
    ),
}


def _as_enum(schema: dict[str, Any]) -> dict[str, Any]:
    if "const" not in schema:
        return schema
    out = {k: v for k, v in schema.items() if k != "const"}
    out["enum"] = [v for v in out.get("enum", [schema["const"]]) if json_key(v) == json_key(schema["const"])]
    return out


def _refuses(side: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether ``side``'s additionalProperties refuse a property only ``other`` declares."""
    if side.get("additionalProperties", True) is True:
        return False
    return bool(set(other.get("properties") or {}) - set(side.get("properties") or {}))


def merge(a: dict[str, Any], b: dict[str, Any], pointer: str) -> dict[str, Any] | None:
    """Both schemas at once as one plain schema; None when that is not simple (see the module docstring).

    Raises:
        Unsatisfiable: The two cannot hold at once (types or enums with nothing in common).
    """
    if _refuses(a, b) or _refuses(b, a):
        return None
    constants = ("const" in a) + ("const" in b)
    if constants and constants + ("enum" in a) + ("enum" in b) > 1:  # const and const, or const and enum
        a, b = _as_enum(a), _as_enum(b)
    merged = dict(a)
    for key, value in b.items():
        if key not in merged or key in ANNOTATIONS:
            merged.setdefault(key, value)
        elif merged[key] != value:
            combine = _MERGERS.get(key)
            result = _NO_MERGE if combine is None else combine(merged[key], value, pointer)
            if result is _NO_MERGE:
                return None
            merged[key] = result
    return merged
