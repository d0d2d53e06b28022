"""How a received argument value is compared with what a case pins.

JSON values compare by value and by JSON type: numbers by their value (``1 == 1.0``), a boolean never equals a number
(``true`` is not ``1``, although Python says so), a string never equals a number (``"5"`` is not ``5``), and the same
holds at any depth inside arrays and objects.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolwire._common._json import json_type
from toolwire.cases._model import ExpectedCall, Matcher

__all__ = ["ArgumentProblem", "argument_problems", "json_kind", "matches", "same_value"]


def json_kind(value: Any) -> str:
    """The JSON type of a Python value, an integer being a number; what JSON cannot hold (a YAML date) by its class."""
    kind = json_type(value)
    if kind == "integer":
        return "number"
    return type(value).__name__ if kind == "object" and not isinstance(value, Mapping) else kind


def same_value(expected: Any, received: Any) -> bool:
    """JSON equality: same JSON type at every depth, numbers by value."""
    kind = json_kind(expected)
    if kind != json_kind(received):
        return False
    if kind == "array":
        return len(expected) == len(received) and all(map(same_value, expected, received))
    if kind == "object":
        return expected.keys() == received.keys() and all(same_value(expected[key], received[key]) for key in expected)
    return bool(expected == received)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _of_type(type_name: str, value: Any) -> bool:
    kind = json_kind(value)
    if type_name == "any":
        return True
    if type_name == "any_integer":
        # JSON Schema (draft 6 on) counts 1.0 as an integer: a model may well spell it so.
        return kind == "number" and (isinstance(value, int) or float(value).is_integer())
    wanted = {
        "any_string": "string",
        "any_number": "number",
        "any_boolean": "boolean",
        "any_object": "object",
        "any_array": "array",
    }
    return kind == wanted.get(type_name)


def _object_matches(members: tuple[tuple[str, Matcher], ...], value: Any) -> bool:
    if json_kind(value) != "object":
        return False
    pinned = dict(members)
    if any(key not in pinned for key in value):
        return False
    return all(matches(matcher, value[key]) if key in value else matcher.optional for key, matcher in members)


def matches(matcher: Matcher, value: Any) -> bool:
    """Whether a present value satisfies ``matcher`` (whether it may be absent is ``matcher.optional``)."""
    if matcher.kind == "literal":
        return same_value(matcher.value, value)
    if matcher.kind == "object":
        return _object_matches(matcher.value, value)
    if matcher.kind == "array":
        return (
            json_kind(value) == "array"
            and len(value) == len(matcher.value)
            and all(matches(item, element) for item, element in zip(matcher.value, value, strict=True))
        )
    if matcher.kind == "one_of":
        return any(matches(option, value) for option in matcher.value)
    if matcher.kind == "regex":
        # A regex never reads a number as its digits: strings are never coerced.
        return isinstance(value, str) and _compiled(matcher.value).fullmatch(value) is not None
    return _of_type(matcher.value, value)


@dataclass(frozen=True)
class ArgumentProblem:
    """One way a received call's arguments differ from an expected call's.

    Attributes:
        code: ``missing_required`` (a pinned argument is absent), ``unexpected_arg`` (an argument not listed, under
            ``strict_args``) or ``value_mismatch`` (a pinned argument has another value).
        key: The argument's name.
    """

    code: Literal["missing_required", "unexpected_arg", "value_mismatch"]
    key: str


def argument_problems(expected: ExpectedCall, arguments: Mapping[str, Any]) -> list[ArgumentProblem]:
    """Every difference between the pinned arguments and the received ones; empty when they match.

    Pinned arguments come first in the order the case lists them, then unexpected ones in received order.
    """
    problems: list[ArgumentProblem] = []
    for key, matcher in expected.arguments.items():
        if key not in arguments:
            if not matcher.optional:
                problems.append(ArgumentProblem("missing_required", key))
        elif not matches(matcher, arguments[key]):
            problems.append(ArgumentProblem("value_mismatch", key))
    if expected.strict_args:
        problems.extend(ArgumentProblem("unexpected_arg", key) for key in arguments if key not in expected.arguments)
    return problems
