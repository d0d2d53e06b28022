r"""Regular expressions as the core runs them: on a linear-time engine, refused when they need backtracking.

``pattern``, ``patternProperties`` and ``additionalProperties`` (which depends on them) are run with RE2 (the
``google-re2`` package), the automaton-based engine whose syntax Rust's ``regex`` crate, the core's engine, follows:
matching takes time linear in the string whatever the pattern, where Python's ``re`` backtracks (``(a+)+$`` took
over 10 s on 29 characters, and an unanchored ``[a-z]+x`` is quadratic). A pattern neither engine runs (lookaround,
backreferences, a repetition past the engine's bound) fails when the validators are built, at its pointer.

As in the core, ``\d`` and ``\w`` are ASCII and ``\s`` is ECMA-262's whitespace (translated here where RE2's
differs); ``.`` matches anything but a line feed and ``$`` only the end. Where the two engines still part (the
bound on counted repetition, ``\b`` around non-ASCII letters, ``\S`` inside a class), the module docstring of
``_validator`` says so.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import jsonschema.exceptions  # type: ignore[import-untyped]
import re2  # type: ignore[import-untyped]

__all__ = ["FORMAT_CHECKER", "KEYWORDS", "additional_members", "matches", "refusal"]

# ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, every Zs, BOM) and LineTerminator (LF, CR, LS, PS).
_ECMA_SPACE = r"\t-\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}"

_OPTIONS = re2.Options()
# A refused pattern is a SchemaError; RE2 need not also write it to standard error.
_OPTIONS.log_errors = False


def _translated(source: str) -> str:
    r"""``source`` with ``\s`` (and ``\S`` outside a class) spelled as ECMA-262's whitespace for RE2."""
    out: list[str] = []
    in_class = False
    escaped = False
    for character in source:
        if escaped:
            escaped = False
            if character == "s":
                out.append(_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]")
            elif character == "S" and not in_class:
                out.append(f"[^{_ECMA_SPACE}]")
            else:
                out.append("\\" + character)
            continue
        if character == "\\":
            escaped = True
            continue
        if character == "[":
            in_class = True
        elif character == "]":
            in_class = False
        out.append(character)
    if escaped:
        out.append("\\")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _compiled(source: str) -> Any:
    return re2.compile(_translated(source), _OPTIONS)


def refusal(source: str) -> str | None:
    """Why ``source`` cannot run on the linear-time engine (as the core words it), or None when it can."""
    try:
        _compiled(source)
    except re2.error:
        return (
            f"{json.dumps(source, ensure_ascii=False)} is not a regular expression that runs in linear time (lookaround and "
            "backreferences are not supported, and the compiled pattern must stay within the engine's size limit)"
        )
    return None


def matches(source: str, text: str) -> bool:
    """Whether ``source`` (a pattern that compiled) matches anywhere in ``text``, as JSON Schema's ``pattern``."""
    return _compiled(source).search(text) is not None


def _is_runnable(instance: object) -> bool:
    return not isinstance(instance, str) or refusal(instance) is None


#: The ``regex`` format as schemas are checked against their meta-schema: a pattern the engine can run.
FORMAT_CHECKER = jsonschema.FormatChecker(formats=())
FORMAT_CHECKER.checks("regex")(_is_runnable)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not matches(pattern, instance):
        yield jsonschema.exceptions.ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for name, value in instance.items():
            if matches(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def additional_members(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The members ``additionalProperties`` applies to: named by no ``properties``, matched by no pattern."""
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        member
        for member in instance
        if member not in properties and not any(matches(pattern, member) for pattern in patterns)
    ]


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras = additional_members(instance, schema)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        listed = ", ".join(repr(extra) for extra in extras)
        yield jsonschema.exceptions.ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


#: The keywords that match patterns, as ``jsonschema`` keyword functions running them on the linear-time engine.
KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}
