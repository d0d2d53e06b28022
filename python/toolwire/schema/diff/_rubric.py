"""The breaking-change rubric: every change kind, its three checks, and the verdict they fold into.

The rubric is the research note's Part B.3 (``docs/research/provider-schema-rules.md``). Each change is judged
by separate checks, then folded into one verdict, the most serious wins (``BREAKING`` > ``RISKY`` > ``COMPATIBLE``):

- **replay** (model -> handler, must hold): is every call valid under OLD still valid under NEW? ``pass``;
  ``fail`` (BREAKING); ``unknown`` (BREAKING until the recorded calls decide: ``corpus-passes`` makes it RISKY,
  ``corpus-fails`` keeps it BREAKING); ``caution`` (holds unless old calls carried the key with another value:
  RISKY); ``retired`` (the calls fail, but the removal was announced and its sunset has passed: COMPATIBLE).
- **handler** (schema -> handler): does what NEW admits reach a handler that takes it? ``n/a``; ``review`` (RISKY:
  no handler to check against); with a handler configured, ``ok``, ``warns`` (RISKY) or ``refuses`` (BREAKING).
- **behaviour** (the schema is prompt text): ``none``; ``note`` (worth knowing, COMPATIBLE); ``risky`` (RISKY: it
  changes what the model emits or when it picks the tool).
- **provider** (side check, the provider lint per target): ``n/a``; ``weakened`` (RISKY: accepted but not enforced
  or ignored); ``reject`` (BREAKING for that target).

Kinds marked *extension* have no row of their own in B.3; their row names the one they follow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "CHANGE_KINDS",
    "CHECK_VALUES",
    "EVIDENCE_KINDS",
    "VERDICTS",
    "VERDICT_LEVELS",
    "Checks",
    "KindSpec",
    "Verdict",
    "fold",
    "worst",
]

#: What a change does to a project, from the least to the most serious.
Verdict = Literal["COMPATIBLE", "RISKY", "BREAKING"]
VERDICTS: Final[tuple[Verdict, ...]] = ("COMPATIBLE", "RISKY", "BREAKING")

#: The finding level each verdict is reported at.
VERDICT_LEVELS: Final[Mapping[str, str]] = {"BREAKING": "error", "RISKY": "warning", "COMPATIBLE": "info"}

#: Every value each check takes, and the verdict it alone leads to.
CHECK_VALUES: Final[Mapping[str, Mapping[str, Verdict]]] = {
    "replay": {
        "pass": "COMPATIBLE",
        "fail": "BREAKING",
        "unknown": "BREAKING",
        "corpus-passes": "RISKY",
        "corpus-fails": "BREAKING",
        "caution": "RISKY",
        "retired": "COMPATIBLE",
    },
    "handler": {"n/a": "COMPATIBLE", "review": "RISKY", "ok": "COMPATIBLE", "warns": "RISKY", "refuses": "BREAKING"},
    "behaviour": {"none": "COMPATIBLE", "note": "COMPATIBLE", "risky": "RISKY"},
    "provider": {"n/a": "COMPATIBLE", "weakened": "RISKY", "reject": "BREAKING"},
}


def worst(verdicts: Iterable[str]) -> Verdict:
    """The most serious of some verdicts (``COMPATIBLE`` for none).

    Raises:
        ValueError: Something that is not a verdict.
    """
    found = [VERDICTS.index(verdict) for verdict in verdicts]
    return VERDICTS[max(found, default=0)]


@dataclass(frozen=True)
class Checks:
    """The four checks of one change (see the module docstring for the values)."""

    replay: str = "pass"
    handler: str = "n/a"
    behaviour: str = "none"
    provider: str = "n/a"

    def __post_init__(self) -> None:
        """Refuse a value no check takes."""
        for check, values in CHECK_VALUES.items():
            value = getattr(self, check)
            if value not in values:
                raise ValueError(f"check {check!r}: one of {', '.join(values)}; got {value!r}")

    def as_dict(self) -> dict[str, str]:
        """The checks as JSON-ready data."""
        return {check: getattr(self, check) for check in CHECK_VALUES}


def fold(checks: Checks) -> Verdict:
    """The verdict of a change: the most serious its checks lead to."""
    return worst([CHECK_VALUES[check][getattr(checks, check)] for check in CHECK_VALUES])


@dataclass(frozen=True)
class KindSpec:
    """One change kind of the rubric.

    Attributes:
        kind: The stable id (``diff/<kind>`` is the rule id of its findings).
        checks: The default checks.
        summary: One line: what changed and what it does.
        row: The row of the research note's B.3 table it implements.
    """

    kind: str
    checks: Checks
    summary: str
    row: str

    @property
    def verdict(self) -> Verdict:
        """The default verdict: the fold of the default checks."""
        return fold(self.checks)

    @property
    def evidence(self) -> bool:
        """Whether recorded calls decide the replay check."""
        return self.checks.replay == "unknown"


_FAIL = Checks(replay="fail")
_REVIEW = Checks(handler="review")
_RISKY_TEXT = Checks(behaviour="risky")
_NOTE = Checks(behaviour="note")
_UNKNOWN = Checks(replay="unknown")
_WIDEN_AND_ADVISE = Checks(handler="review", behaviour="risky")

_TABLE: Final[tuple[tuple[str, Checks, str, str], ...]] = (
    # -- tools
    (
        "tool-removed",
        _FAIL,
        "A tool is gone: recorded calls and conversations in flight that call it fail.",
        "tool removed",
    ),
    (
        "tool-removed-after-sunset",
        Checks(replay="retired"),
        "A deprecated tool whose sunset date has passed is gone, as announced.",
        "tool removed (INFO if deprecated and sunset passed)",
    ),
    (
        "tool-renamed",
        _FAIL,
        "A tool reappears under another name (same schema, similar description): calls under the old name fail; "
        "keep the old name as an alias for a while.",
        "tool renamed",
    ),
    ("tool-added", _NOTE, "A new tool: the model's choice among the tools shifts a little.", "tool added"),
    (
        "tool-added-overlapping",
        _RISKY_TEXT,
        "A new tool reads like an existing one: the model may pick either for the same request.",
        "tool added (RISKY if the description overlaps)",
    ),
    (
        "tool-description-changed",
        _RISKY_TEXT,
        "The tool's description is prompt text: routing to it changes.",
        "tool description changed",
    ),
    (
        "strict-disabled",
        _REVIEW,
        "strict is off: the provider no longer guarantees the shape; the handler must validate.",
        "`strict` on→off",
    ),
    (
        "strict-enabled",
        _RISKY_TEXT,
        "strict is on: emission is constrained (run --target to see what a provider refuses).",
        "`strict` off→on",
    ),
    ("tool-deprecated", _NOTE, "The tool is marked deprecated: the removal clock starts.", "`deprecated` added"),
    # -- parameters
    (
        "param-required-added",
        _FAIL,
        "A required parameter is added: every recorded call without it fails.",
        "required param added (no default)",
    ),
    (
        "param-required-added-with-default",
        _FAIL,
        "A required parameter with a default is added: the contract still refuses calls without it.",
        "required param added with default",
    ),
    (
        "param-optional-added-closed",
        _WIDEN_AND_ADVISE,
        "An optional parameter is added to a closed object: the handler must take the new key, and the model starts "
        "filling it.",
        "optional param added, closed object",
    ),
    (
        "param-optional-added-open",
        Checks(replay="caution", handler="review", behaviour="risky"),
        "An optional parameter is added to an open object: old calls that sent the same key with another value fail.",
        "optional param added, open object",
    ),
    (
        "param-optional-added-partly-open",
        Checks(replay="unknown", handler="review", behaviour="risky"),
        "An optional parameter is added where old calls could send the key as an extra one, under "
        "additionalProperties or patternProperties: those whose value the new schema refuses fail; recorded calls "
        "decide.",
        "extension, as optional param added, open object (BREAKING: the extra keys had a schema of their own)",
    ),
    (
        "param-optional-added-strict-style",
        _FAIL,
        "A parameter is added as OpenAI-strict spells optional (required and nullable): old calls lack the key and "
        "fail, unless the validator reads missing as null (strict_optional_semantics).",
        '"optional" added under OpenAI-strict style (required + nullable)',
    ),
    (
        "param-removed-closed",
        _FAIL,
        "A parameter is removed from a closed object: old calls that send it fail.",
        "param removed, closed object",
    ),
    (
        "param-removed-partly-open",
        Checks(replay="unknown", handler="review"),
        "A parameter is removed where NEW admits the key only as an extra one, under additionalProperties or "
        "patternProperties: old calls whose value that refuses fail; recorded calls decide.",
        "extension, as param removed, closed object",
    ),
    (
        "param-removed-open",
        _REVIEW,
        "A parameter is removed from an open object: its value is silently ignored.",
        "param removed, open object",
    ),
    ("param-renamed", _FAIL, "A parameter is renamed: old calls send the old name; reserve it.", "param renamed"),
    (
        "param-became-required",
        _FAIL,
        "An optional parameter became required: calls that left it out fail.",
        "optional→required",
    ),
    (
        "param-became-optional",
        _WIDEN_AND_ADVISE,
        "A required parameter became optional: the handler must handle its absence, and the model may omit it.",
        "required→optional",
    ),
    ("param-deprecated", _NOTE, "A parameter is marked deprecated: the model may avoid it.", "`deprecated` added"),
    (
        "param-description-changed",
        _RISKY_TEXT,
        "A parameter description is prompt text: the model's choice of argument changes.",
        "param description changed",
    ),
    # -- types
    (
        "type-widened",
        _REVIEW,
        "The type is widened: values of the new type reach the handler.",
        "type widened (int→number, +type in list)",
    ),
    ("type-narrowed", _FAIL, "The type is narrowed: old calls with the dropped type fail.", "type narrowed / changed"),
    ("type-changed", _FAIL, "The type is changed: old calls with the old type fail.", "type narrowed / changed"),
    ("became-nullable", _REVIEW, "null is now allowed: None reaches the handler.", "became nullable"),
    ("became-non-nullable", _FAIL, "null is no longer allowed: old calls with null fail.", "became non-nullable"),
    # -- enums
    (
        "enum-value-added",
        Checks(handler="review", behaviour="note"),
        "An enum value is added: the handler must handle it (no fall-through), and the model may pick it.",
        "enum value added",
    ),
    (
        "enum-value-removed",
        _FAIL,
        "An enum value is removed (or renamed): old calls with it fail.",
        "enum value removed / renamed (incl. case)",
    ),
    (
        "enum-reordered",
        _NOTE,
        "The enum's order changed: the same values, but models favour the first options.",
        "enum reordered",
    ),
    (
        "enum-added",
        _FAIL,
        "A free value became an enum (or a const was added or changed): old values outside it fail.",
        "free value → enum, const added/changed",
    ),
    (
        "enum-removed",
        _REVIEW,
        "An enum or const is removed: arbitrary values reach the handler.",
        "const/enum removed (→ free value)",
    ),
    # -- bounds, patterns, formats
    (
        "bound-tightened",
        _FAIL,
        "A bound is tightened (maximum down, minimum up, lengths, items, multipleOf, "
        "uniqueItems added): old calls outside it fail.",
        "bound tightened",
    ),
    (
        "bound-added",
        _UNKNOWN,
        "A bound is newly set: old calls outside it fail; recorded calls decide.",
        "bound newly added",
    ),
    ("bound-relaxed", _REVIEW, "A bound is relaxed: the handler may rely on the old one.", "bound relaxed / removed"),
    ("bound-removed", _REVIEW, "A bound is removed: the handler may rely on it.", "bound relaxed / removed"),
    (
        "pattern-added",
        _UNKNOWN,
        "A pattern is added: old values that do not match fail; recorded calls decide.",
        "pattern added / format added",
    ),
    (
        "pattern-changed",
        _UNKNOWN,
        "The pattern changed: inclusion is not provable in general; recorded calls decide.",
        "pattern changed",
    ),
    ("pattern-removed", _REVIEW, "The pattern is removed: the handler may rely on it.", "pattern/format removed"),
    (
        "format-added",
        _FAIL,
        "A format is added: values that do not match it fail where it is enforced (toolwire's "
        "validator does not assert formats, so recorded calls cannot decide).",
        "pattern added / format added",
    ),
    (
        "format-changed",
        _FAIL,
        "The format changed: values of the old format fail where it is enforced.",
        "pattern added / format added (a new format is added)",
    ),
    ("format-removed", _REVIEW, "The format is removed: the handler may rely on it.", "pattern/format removed"),
    # -- content model and composition
    (
        "additional-properties-opened",
        _REVIEW,
        "The object is opened: unknown keys reach the handler (and OpenAI/"
        "Anthropic strict refuse open objects: run --target).",
        "additionalProperties false→true/schema",
    ),
    (
        "additional-properties-closed",
        _FAIL,
        "The object is closed (or its extra keys narrowed): old calls with extra keys fail.",
        "additionalProperties true→false / schema narrowed",
    ),
    ("branch-added", _REVIEW, "A union branch is added: a new shape reaches the handler.", "anyOf/oneOf branch added"),
    (
        "branch-removed",
        _FAIL,
        "A union branch is removed: old calls of that shape fail.",
        "anyOf/oneOf branch removed; allOf member added",
    ),
    (
        "allof-member-added",
        _FAIL,
        "An allOf member is added: old calls must now also match it.",
        "anyOf/oneOf branch removed; allOf member added",
    ),
    (
        "allof-member-removed",
        _REVIEW,
        "An allOf member is removed: shapes it refused reach the handler.",
        "extension, as anyOf/oneOf branch added (a widening)",
    ),
    (
        "constraint-added",
        _UNKNOWN,
        "A constraint keyword is added (not, if/then/else, patternProperties, "
        "propertyNames, dependencies, a false schema...): old calls may fail; recorded calls decide.",
        "extension, as bound newly added",
    ),
    (
        "constraint-removed",
        _REVIEW,
        "A constraint keyword is removed: what it refused reaches the handler.",
        "extension, as bound relaxed / removed",
    ),
    (
        "constraint-changed",
        _UNKNOWN,
        "A constraint keyword changed in a way inclusion cannot be decided for: recorded calls decide.",
        "extension, as pattern changed",
    ),
    # -- annotations
    (
        "default-added",
        _WIDEN_AND_ADVISE,
        "A default is added: behaviour for an omitted key changes, and the model is advised differently.",
        "`default` added/changed/removed",
    ),
    (
        "default-changed",
        _WIDEN_AND_ADVISE,
        "The default changed: behaviour for an omitted key changes.",
        "`default` added/changed/removed",
    ),
    (
        "default-removed",
        _WIDEN_AND_ADVISE,
        "The default is removed: behaviour for an omitted key changes.",
        "`default` added/changed/removed",
    ),
    ("title-changed", _NOTE, "A title changed (prompt text where a provider renders it).", "title / examples changed"),
    (
        "examples-changed",
        _NOTE,
        "Examples changed (prompt text where rendered, e.g. Anthropic input_examples).",
        "title / examples changed",
    ),
    (
        "annotation-changed",
        Checks(),
        "Another annotation or a keyword validators ignore changed.",
        "extension, as title / examples changed",
    ),
    (
        "property-order-changed",
        _NOTE,
        "Properties are in another order: OpenAI, xgrammar and llama.cpp emit keys in "
        "schema order, which streaming consumers see.",
        "property order changed",
    ),
    (
        "ref-refactored",
        Checks(),
        "The $ref/$defs layout changed; compared after resolution (provider lint may "
        "still differ: recursion, $ref siblings).",
        "`$ref`/`$defs` refactor, validation-equivalent",
    ),
    # -- provider regressions
    (
        "provider-rejects",
        Checks(provider="reject"),
        "NEW has a construct a target rejects that OLD did not: the request fails there.",
        "size/nesting/enum growth (provider regression, reject)",
    ),
    (
        "provider-weakens",
        Checks(provider="weakened"),
        "NEW has a construct a target ignores or weakens that OLD did not: the handler must re-validate it.",
        "size/nesting/enum growth (provider regression, ignored/weakened)",
    ),
)

#: Every change kind: kind -> its spec (default checks and verdict, summary, rubric row).
CHANGE_KINDS: Final[Mapping[str, KindSpec]] = {
    kind: KindSpec(kind, checks, summary, row) for kind, checks, summary, row in _TABLE
}

#: The kinds whose replay check recorded calls decide.
EVIDENCE_KINDS: Final = frozenset(kind for kind, spec in CHANGE_KINDS.items() if spec.evidence)
