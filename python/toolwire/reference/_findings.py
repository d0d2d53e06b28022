"""Violations of a tool call's arguments, as the reference's validator and error search build them.

The words and the data mirror the core's (``rust/core/src/validator.rs``); only (code, severity, path, data) are
compared between the two, never the message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from toolwire import _model as model
from toolwire._common._json import json_type
from toolwire._model import Violation, ViolationCode

__all__ = [
    "LIMITED",
    "SHOWN_VALUE_BYTES",
    "child",
    "constraint",
    "escape",
    "json_type",
    "pointer_of",
    "quoted",
    "render",
    "shorten",
    "sorted_unique",
    "type_message",
    "violation",
]

#: Longest rendering of a schema value (an enum's options, a ``not`` schema) kept in a message, in UTF-8 bytes.
SHOWN_VALUE_BYTES = 300

#: Keywords whose value is the limit a ``CONSTRAINT_VIOLATION`` reports in ``data["limit"]``.
LIMITED = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
        "pattern",
    }
)


def violation(code: ViolationCode, path: str | None, message: str, data: Any = None) -> Violation:
    """A violation at ``path`` with the code's severity and recoverability."""
    return model.violation(code, message, path=path, data=data)


def constraint(path: str, message: str, keyword: str, limit: Any = None) -> Violation:
    """A ``CONSTRAINT_VIOLATION`` naming its keyword, and its limit for the keywords that have one."""
    data: dict[str, Any] = {"keyword": keyword}
    if keyword in LIMITED:
        data["limit"] = limit
    return violation(ViolationCode.CONSTRAINT_VIOLATION, path, message, data)


def sorted_unique(violations: Iterable[Violation]) -> list[Violation]:
    """Sorted by (path, code, message); of violations equal in those, the first is kept."""
    unique: dict[tuple[str, str, str], Violation] = {}
    for each in violations:
        unique.setdefault((each.path or "", each.code.value, each.message), each)
    return [unique[key] for key in sorted(unique)]


def escape(segment: str) -> str:
    """One RFC 6901 reference token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return segment.replace("~", "~0").replace("/", "~1")


def child(at: str, member: str) -> str:
    """The pointer of ``member`` (a name or an index) of the value at ``at``."""
    return f"{at}/{escape(member)}"


def pointer_of(segments: Iterable[str | int]) -> str:
    """The pointer made of ``segments``."""
    return "".join(f"/{escape(str(segment))}" for segment in segments)


def render(value: Any) -> str:
    """``value`` as compact JSON, as the core's messages show schema values."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def quoted(text: str) -> str:
    """``text`` as a JSON string, so names with quotes or control characters stay readable and unambiguous."""
    return json.dumps(text, ensure_ascii=False)


def shorten(text: str) -> str:
    """``text`` cut to :data:`SHOWN_VALUE_BYTES` UTF-8 bytes at a character boundary, with an ellipsis if cut."""
    if len(text.encode("utf-8", "surrogatepass")) <= SHOWN_VALUE_BYTES:
        return text
    size = 0
    for end, character in enumerate(text):
        size += len(character.encode("utf-8", "surrogatepass"))
        if size > SHOWN_VALUE_BYTES:
            return text[:end] + "…"
    return text


def type_message(names: list[str], value: Any) -> str:
    """``expected integer or null, got string``."""
    expected = names[-1] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return f"expected {expected}, got {json_type(value)}"
