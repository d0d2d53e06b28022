"""``Change``: one typed difference between two versions of a tool, with its checks and verdict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from toolwire._common._json import unescape_token
from toolwire.schema.diff._rubric import CHANGE_KINDS, Checks, Verdict, fold

__all__ = ["ABSENT", "Change", "instance_path", "jsonable", "place"]


class _Absent:
    """The value of a side a change has nothing on (``None`` is JSON ``null``, a value of its own)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        """The one instance."""
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        """``ABSENT``."""
        return "ABSENT"

    def __bool__(self) -> bool:
        """False, like an absent value."""
        return False


#: ``Change.old``/``Change.new`` when that side has nothing (a parameter added has no old schema).
ABSENT: Final = _Absent()


@dataclass(frozen=True)
class Change:
    """One difference between OLD and NEW, classified by the rubric.

    Attributes:
        tool: The tool's name (NEW's name for a rename).
        path: The JSON pointer inside the (normalised, references resolved) parameters schema; ``""`` for the tool.
        kind: The change kind, a key of ``CHANGE_KINDS``.
        old: The value on OLD's side (a schema, a list of enum values, a bound, a description), or ``ABSENT``.
        new: The value on NEW's side, or ``ABSENT``.
        message: What changed, in words, with the consequence.
        detail: Specifics (the keyword of a bound, the enum values removed, the lint target...), JSON-ready.
        checks: The four checks; by default the kind's.
        verdict: The verdict; by default the fold of ``checks``. A policy override may set it directly.
        origin: Where NEW's (else OLD's) definition is.
        waiver: The waiver that covers it (``reason``, ``expires``, ``source``), or None.
        evidence: The recorded calls that bear on it (counts, the calls that fail), or None.
        reasons: Why the verdict differs from the kind's default (evidence, handler, policy), in order.
    """

    tool: str
    path: str
    kind: str
    old: Any = ABSENT
    new: Any = ABSENT
    message: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    checks: Checks | None = None
    verdict: Verdict | None = None
    origin: str | None = None
    waiver: Mapping[str, Any] | None = None
    evidence: Mapping[str, Any] | None = None
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Fill the checks and verdict from the kind.

        Raises:
            ValueError: An unknown kind.
        """
        spec = CHANGE_KINDS.get(self.kind)
        if spec is None:
            raise ValueError(f"unknown change kind {self.kind!r}; known: {', '.join(CHANGE_KINDS)}")
        if self.checks is None:
            object.__setattr__(self, "checks", spec.checks)
        if self.verdict is None:
            object.__setattr__(self, "verdict", fold(self.checks or spec.checks))

    @property
    def waived(self) -> bool:
        """Whether a (live) waiver covers it."""
        return self.waiver is not None

    def with_checks(self, reason: str, **checks: str) -> Change:
        """The change with some checks replaced, its verdict folded again, and the reason recorded."""
        updated = replace(self.checks or Checks(), **checks)
        return replace(self, checks=updated, verdict=fold(updated), reasons=(*self.reasons, reason))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready data; an absent side is left out."""
        out: dict[str, Any] = {"tool": self.tool, "path": self.path, "kind": self.kind, "verdict": self.verdict}
        if self.old is not ABSENT:
            out["old"] = jsonable(self.old)
        if self.new is not ABSENT:
            out["new"] = jsonable(self.new)
        out["message"] = self.message
        out["checks"] = (self.checks or Checks()).as_dict()
        if self.detail:
            out["detail"] = jsonable(self.detail)
        if self.origin:
            out["origin"] = self.origin
        out["waived"] = dict(self.waiver) if self.waiver is not None else False
        if self.evidence is not None:
            out["evidence"] = jsonable(self.evidence)
        if self.reasons:
            out["reasons"] = list(self.reasons)
        return out


def jsonable(value: Any) -> Any:
    """``value`` with tuples as lists, mappings as dicts and ``ABSENT`` as None."""
    if value is ABSENT:
        return None
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


def instance_path(pointer: str) -> list[str]:
    """The instance path a schema pointer constrains, as segments (``*`` for any key or index).

    ``/properties/a/items/properties/b`` -> ``["a", "*", "b"]``; branches of ``anyOf``/``allOf``... constrain the
    same instance as their node.
    """
    parts = pointer.split("/")[1:] if pointer else []
    segments: list[str] = []
    position = 0
    while position < len(parts):
        keyword = parts[position]
        if keyword in ("properties", "prefixItems") and position + 1 < len(parts):
            segments.append(unescape_token(parts[position + 1]))
            position += 2
        elif keyword in ("patternProperties",) and position + 1 < len(parts):
            segments.append("*")
            position += 2
        elif keyword in ("anyOf", "oneOf", "allOf", "dependentSchemas") and position + 1 < len(parts):
            position += 2
        elif keyword in ("items", "additionalProperties", "contains", "unevaluatedItems", "unevaluatedProperties"):
            segments.append("*")
            position += 1
        else:  # not, if, then, else, propertyNames: the same instance (or its keys)
            position += 1
    return segments


def place(pointer: str) -> str:
    """A pointer as people read an argument's place: ``/properties/a/items/properties/b`` -> ``a[].b``."""
    out = ""
    for segment in instance_path(pointer):
        if segment == "*":
            out += "[]"
        elif segment.isdigit():
            out += f"[{segment}]"
        else:
            out += f".{segment}" if out else segment
    return out or "(arguments)"
