"""The provider lint's rules: one versioned YAML data file per target (``lint/rules/<target>.yaml``), checked at load.

A file::

    target: openai-strict
    version: "2026-11-30"          # when the file was last reviewed against its sources
    description: OpenAI function calling with strict true (Structured Outputs).
    rules:
      - id: openai-strict/one-of    # <target>/<kebab-case>; stable, configurable in [tool.toolwire.rules]
        effect: reject              # reject | ignored | weakened | deviation
        match: {keyword: oneOf}     # the construct (vocabulary below)
        message: ...                # what happens and the fix; placeholders below
        source: https://...         # a URL or a reference into the research note
        as_of: "2026-08-22"         # the date of the source snapshot the rule was read from
    unverified:                     # constructs the research marks unknown ('?'): never enforced
      - id: openai-strict/nullable
        construct: nullable (OpenAPI)
        match: {keyword: nullable}
        why: what is unknown and why
        source: ...
        as_of: ...

``match`` holds exactly one kind key and that kind's qualifiers:

- ``keyword: K`` or ``[K, ...]``: the keyword is present in a schema (one finding per keyword, pointing at it).
  Qualifiers: ``at: root|nested``; ``types: [...]`` (the schema's declared ``type`` includes one of them);
  ``not_types: [...]`` (it includes none of them); ``siblings: true`` (the schema has any other keyword);
  ``with: [K, {K: test}, ...]`` (another keyword is present, optionally passing a value test); ``value: test``.
- value tests (a name, or ``{name: argument}``): ``not-false``, ``not-true``, ``list``, ``schema`` (a mapping),
  ``non-string-item``, ``complex-item`` (an object or array among the values), ``branch-has-ref``,
  ``branches-share-first-key`` (two object branches whose first property is the same), ``unanchored`` (not
  ``^...$``), ``{more-than: N}`` (a number, or a list or mapping size), ``{not-in: [...]}``,
  ``{regex-feature: [lookaround|lookahead|backreference|word-boundary|anchor|bounded-quantifier]}``,
  ``{large-string-enum: {values: N, chars: M}}`` (more than N string values totalling more than M characters).
- ``unknown-keyword: {allowed: [...], skip: [...]}``: every keyword of a schema outside ``allowed``; ``skip`` names
  the keywords other entries of the same file report (checked at load).
- ``object: C``: object schemas (``type`` object, or no ``type`` and ``properties``/``additionalProperties``/
  ``patternProperties``) where C holds: ``additional-properties-absent``, ``no-required``, ``optional-property``
  (one finding per property not in ``required``), ``optional-before-required``, ``properties-unordered`` (two or
  more properties and no ``propertyOrdering``), ``{property-name-not: REGEX}`` (one finding per property name).
- ``ref: C``: ``$ref`` keywords that are ``cycle`` (part of a reference cycle: recursion), ``external`` (not a
  local ``#...`` reference) or ``in-definition`` (inside a ``$defs``/``definitions`` entry: a nested reference).
- ``root: not-object``: the parameters schema is not ``type: object``.
- ``budget: MEASURE, max: N[, scope: tool|request]``: a total above N. Per tool: ``enum-values``,
  ``string-chars`` (property names, definition names, enum and const values), ``properties``, ``depth`` (object
  nesting, following local ``$ref`` and stopping at cycles). Per request (the tools linted together):
  ``optional-properties``, ``union-parameters`` (schemas with ``anyOf`` or a ``type`` list), ``properties``,
  ``tools``.
- ``tool: C``: ``{name-not: REGEX}``, ``{description-longer-than: N}``, ``description-empty``, ``strict-unset``.

Message placeholders: ``{keyword}``, ``{value}``, ``{property}``, ``{count}``, ``{limit}``, ``{name}``,
``{length}``. An ``ignored`` or ``weakened`` rule's message must tell the handler to re-validate (it names the
handler), since the provider will not.
"""

from __future__ import annotations

import datetime
import importlib
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire.schema._findings import Level

__all__ = [
    "EFFECTS",
    "EFFECT_LEVELS",
    "REGEX_FEATURES",
    "LintRule",
    "Match",
    "SiblingTest",
    "TargetRules",
    "Unverified",
    "ValueTest",
    "parse_rules_yaml",
    "read_target_rules",
]

#: What a target does with a construct.
EFFECTS: tuple[str, ...] = ("reject", "ignored", "weakened", "deviation")

#: The level of a finding by effect (``unverified`` is the effect of ``--show-unverified`` findings).
EFFECT_LEVELS: Mapping[str, Level] = {
    "reject": "error",
    "ignored": "warning",
    "weakened": "warning",
    "deviation": "info",
    "unverified": "info",
}

_PLAIN_TESTS = frozenset(
    {
        "not-false",
        "not-true",
        "list",
        "schema",
        "non-string-item",
        "complex-item",
        "branch-has-ref",
        "branches-share-first-key",
        "unanchored",
    }
)
_ARGUMENT_TESTS = frozenset({"more-than", "not-in", "regex-feature", "large-string-enum"})
#: What ``regex-feature`` can look for in a ``pattern``.
REGEX_FEATURES = frozenset(
    {"lookaround", "lookahead", "backreference", "word-boundary", "anchor", "bounded-quantifier"}
)
_OBJECT_CONDITIONS = frozenset(
    {
        "additional-properties-absent",
        "no-required",
        "optional-property",
        "optional-before-required",
        "properties-unordered",
    }
)
_REF_CONDITIONS = frozenset({"cycle", "external", "in-definition"})
_BUDGETS = {
    "tool": frozenset({"enum-values", "string-chars", "properties", "depth"}),
    "request": frozenset({"optional-properties", "union-parameters", "properties", "tools"}),
}
_TOOL_CONDITIONS = frozenset({"description-empty", "strict-unset"})
_KINDS = ("keyword", "unknown-keyword", "object", "ref", "root", "budget", "tool")
_KEYWORD_QUALIFIERS = frozenset({"keyword", "at", "types", "not_types", "siblings", "with", "value"})
_PLACEHOLDERS = frozenset({"keyword", "value", "property", "count", "limit", "name", "length"})
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class ValueTest:
    """A test on a keyword's value (see the module docstring for the names)."""

    name: str
    argument: Any = None


@dataclass(frozen=True)
class SiblingTest:
    """Another keyword of the same schema, present and (when ``value`` is set) passing a value test."""

    keyword: str
    value: ValueTest | None = None


@dataclass(frozen=True)
class Match:
    """What construct an entry matches, parsed from its ``match`` mapping.

    Attributes:
        kind: ``keyword``, ``unknown-keyword``, ``object``, ``ref``, ``root``, ``budget`` or ``tool``.
        keywords: ``keyword``: the keywords matched.
        at: ``keyword``: ``any``, ``root`` or ``nested``.
        types: ``keyword``: the schema's declared type must include one of these.
        not_types: ``keyword``: the schema's declared type must include none of these.
        siblings: ``keyword``: the schema must hold another keyword.
        with_any: ``keyword``: one of these other keywords must be present.
        value: ``keyword``: the value test.
        allowed: ``unknown-keyword``: the keywords the target knows.
        skip: ``unknown-keyword``: keywords reported by other entries of the file.
        condition: ``object``/``ref``/``root``/``tool``: the condition; ``budget``: the measure.
        argument: The condition's argument (a compiled regex or a number), when it takes one.
        scope: ``budget``: ``tool`` or ``request``.
    """

    kind: str
    keywords: tuple[str, ...] = ()
    at: str = "any"
    types: frozenset[str] = frozenset()
    not_types: frozenset[str] = frozenset()
    siblings: bool = False
    with_any: tuple[SiblingTest, ...] = ()
    value: ValueTest | None = None
    allowed: frozenset[str] = frozenset()
    skip: frozenset[str] = frozenset()
    condition: str = ""
    argument: Any = None
    scope: str = "tool"


@dataclass(frozen=True)
class LintRule:
    """One enforced rule of a target.

    Attributes:
        id: ``<target>/<name>``, stable.
        target: The target it belongs to.
        effect: ``reject``, ``ignored``, ``weakened`` or ``deviation``.
        match: The construct.
        message: What happens and the fix (a template over the placeholders).
        source: The URL or research reference it rests on.
        as_of: The date of that source.
    """

    id: str
    target: str
    effect: str
    match: Match
    message: str
    source: str
    as_of: str

    @property
    def level(self) -> Level:
        """The finding level its effect gives."""
        return EFFECT_LEVELS[self.effect]


@dataclass(frozen=True)
class Unverified:
    """A construct the research marks unknown for a target: listed with ``--show-unverified``, never enforced.

    Attributes:
        id: ``<target>/<name>``.
        target: The target.
        construct: What it is, in words.
        match: Where it occurs.
        why: What is unknown, and why.
        source: Where the question stands.
        as_of: The date of that source.
    """

    id: str
    target: str
    construct: str
    match: Match
    why: str
    source: str
    as_of: str


@dataclass(frozen=True)
class TargetRules:
    """One target's data file, checked.

    Attributes:
        target: The target name.
        version: The date the file was last reviewed.
        description: The provider and mode it describes.
        rules: The enforced rules.
        unverified: The constructs no source settles.
        origin: The file it came from.
        entries: The rules, then the unverified constructs (for the matcher).
    """

    target: str
    version: str
    description: str
    rules: tuple[LintRule, ...]
    unverified: tuple[Unverified, ...] = ()
    origin: str = ""
    entries: tuple[LintRule | Unverified, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        """Keep rules and unverified entries in one sequence for the matcher."""
        object.__setattr__(self, "entries", (*self.rules, *self.unverified))


class _Where:
    """A place in a data file, for error messages."""

    def __init__(self, origin: str, entry: str = "") -> None:
        self.origin = origin
        self.entry = entry

    def error(self, what: str) -> ValueError:
        where = f"{self.origin}: {self.entry}" if self.entry else self.origin
        return ValueError(f"{where}: {what}")


def _text(data: Mapping[str, Any], key: str, where: _Where) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise where.error(f"{key!r} must be a non-empty string; got {value!r}")
    return value


def _date(data: Mapping[str, Any], key: str, where: _Where) -> str:
    value = data.get(key)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str) or not _DATE.match(value):
        raise where.error(f"{key!r} must be a date written YYYY-MM-DD; got {value!r}")
    return value


def _strings(value: object, what: str, where: _Where) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(item, str) and item for item in items):
        raise where.error(f"{what} must be a string or a non-empty list of strings; got {value!r}")
    return tuple(items)


def _regex(value: object, what: str, where: _Where) -> re.Pattern[str]:
    if not isinstance(value, str):
        raise where.error(f"{what} must be a regular expression string; got {value!r}")
    try:
        return re.compile(value)
    except re.error as error:
        raise where.error(f"{what} is not a valid regular expression ({error})") from None


def _count(value: object, what: str, where: _Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise where.error(f"{what} must be a whole number >= 0; got {value!r}")
    return value


def _named(value: object, what: str, where: _Where) -> tuple[str, Any]:
    """A bare name, or a one-key mapping ``{name: argument}``."""
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping) and len(value) == 1:
        name, argument = next(iter(value.items()))
        return str(name), argument
    raise where.error(f"{what} must be a name or a one-key mapping {{name: argument}}; got {value!r}")


def _value_test(value: object, where: _Where) -> ValueTest:
    name, argument = _named(value, "value", where)
    if name in _PLAIN_TESTS:
        if argument is not None:
            raise where.error(f"value test {name!r} takes no argument")
        return ValueTest(name)
    if name not in _ARGUMENT_TESTS:
        known = ", ".join(sorted(_PLAIN_TESTS | _ARGUMENT_TESTS))
        raise where.error(f"unknown value test {name!r}; known: {known}")
    if name == "more-than":
        return ValueTest(name, _count(argument, "more-than", where))
    if name == "not-in":
        return ValueTest(name, frozenset(_strings(argument, "not-in", where)))
    if name == "regex-feature":
        features = frozenset(_strings(argument, "regex-feature", where))
        if not features <= REGEX_FEATURES:
            raise where.error(
                f"regex-feature: unknown {sorted(features - REGEX_FEATURES)}; known: "
                f"{', '.join(sorted(REGEX_FEATURES))}"
            )
        return ValueTest(name, features)
    if not isinstance(argument, Mapping) or set(argument) != {"values", "chars"}:
        raise where.error(f"large-string-enum takes {{values: N, chars: M}}; got {argument!r}")
    return ValueTest(name, (_count(argument["values"], "values", where), _count(argument["chars"], "chars", where)))


def _sibling(value: object, where: _Where) -> SiblingTest:
    name, argument = _named(value, "with", where)
    return SiblingTest(name, None if argument is None else _value_test(argument, where))


def _keyword_match(data: Mapping[str, Any], where: _Where) -> Match:
    unknown = sorted(set(data) - _KEYWORD_QUALIFIERS)
    if unknown:
        raise where.error(f"match: unknown qualifier(s) {unknown}; known: {', '.join(sorted(_KEYWORD_QUALIFIERS))}")
    at = data.get("at", "any")
    if at not in ("any", "root", "nested"):
        raise where.error(f"match.at must be root or nested; got {at!r}")
    siblings = data.get("siblings", False)
    if not isinstance(siblings, bool):
        raise where.error(f"match.siblings must be true or false; got {siblings!r}")
    with_any = data.get("with", [])
    if not isinstance(with_any, list):
        raise where.error(f"match.with must be a list; got {with_any!r}")
    return Match(
        "keyword",
        keywords=_strings(data["keyword"], "match.keyword", where),
        at=at,
        types=frozenset(_strings(data["types"], "match.types", where)) if "types" in data else frozenset(),
        not_types=frozenset(_strings(data["not_types"], "match.not_types", where))
        if "not_types" in data
        else frozenset(),
        siblings=siblings,
        with_any=tuple(_sibling(item, where) for item in with_any),
        value=_value_test(data["value"], where) if "value" in data else None,
    )


def _unknown_keyword_match(data: Mapping[str, Any], where: _Where) -> Match:
    spec = data["unknown-keyword"]
    if len(data) != 1 or not isinstance(spec, Mapping) or set(spec) - {"allowed", "skip"} or "allowed" not in spec:
        raise where.error("match.unknown-keyword takes {allowed: [...], skip: [...]} and nothing beside it")
    skip = frozenset(_strings(spec["skip"], "skip", where)) if spec.get("skip") else frozenset()
    return Match("unknown-keyword", allowed=frozenset(_strings(spec["allowed"], "allowed", where)), skip=skip)


def _object_match(data: Mapping[str, Any], where: _Where) -> Match:
    name, argument = _named(data["object"], "match.object", where)
    if name == "property-name-not":
        return Match("object", condition=name, argument=_regex(argument, "property-name-not", where))
    if name not in _OBJECT_CONDITIONS or argument is not None:
        known = ", ".join(sorted({*_OBJECT_CONDITIONS, "{property-name-not: REGEX}"}))
        raise where.error(f"match.object: unknown condition {data['object']!r}; known: {known}")
    return Match("object", condition=name)


def _budget_match(data: Mapping[str, Any], where: _Where) -> Match:
    unknown = sorted(set(data) - {"budget", "max", "scope"})
    if unknown:
        raise where.error(f"match: budget takes max and scope only; got {unknown}")
    scope = data.get("scope", "tool")
    if scope not in _BUDGETS:
        raise where.error(f"match.scope must be tool or request; got {scope!r}")
    measure = data["budget"]
    if measure not in _BUDGETS[scope]:
        raise where.error(f"match.budget {measure!r} is not a {scope} measure; known: {sorted(_BUDGETS[scope])}")
    return Match("budget", condition=measure, argument=_count(data.get("max"), "match.max", where), scope=scope)


def _tool_match(data: Mapping[str, Any], where: _Where) -> Match:
    name, argument = _named(data["tool"], "match.tool", where)
    if name == "name-not":
        return Match("tool", condition=name, argument=_regex(argument, "name-not", where))
    if name == "description-longer-than":
        return Match("tool", condition=name, argument=_count(argument, name, where))
    if name not in _TOOL_CONDITIONS or argument is not None:
        raise where.error(
            f"match.tool: unknown condition {data['tool']!r}; known: name-not, "
            f"description-longer-than, {', '.join(sorted(_TOOL_CONDITIONS))}"
        )
    return Match("tool", condition=name)


def _match(value: object, where: _Where) -> Match:
    if not isinstance(value, Mapping):
        raise where.error(f"'match' must be a mapping; got {value!r}")
    kinds = [kind for kind in _KINDS if kind in value]
    if len(kinds) != 1:
        raise where.error(f"'match' needs exactly one of {', '.join(_KINDS)}; got {sorted(value)}")
    kind = kinds[0]
    if kind == "keyword":
        return _keyword_match(value, where)
    if kind == "unknown-keyword":
        return _unknown_keyword_match(value, where)
    if kind == "budget":
        return _budget_match(value, where)
    if len(value) != 1:
        raise where.error(f"match.{kind} takes no qualifiers; got {sorted(value)}")
    if kind == "object":
        return _object_match(value, where)
    if kind == "tool":
        return _tool_match(value, where)
    allowed = _REF_CONDITIONS if kind == "ref" else frozenset({"not-object"})
    if value[kind] not in allowed:
        raise where.error(f"match.{kind} must be one of {', '.join(sorted(allowed))}; got {value[kind]!r}")
    return Match(kind, condition=str(value[kind]))


def _message(text: str, effect: str, where: _Where) -> str:
    fields = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    if fields - _PLACEHOLDERS:
        raise where.error(
            f"message: unknown placeholder(s) {sorted(fields - _PLACEHOLDERS)}; "
            f"known: {', '.join(sorted(_PLACEHOLDERS))}"
        )
    if effect in ("ignored", "weakened") and "handler" not in text:
        raise where.error(f"an {effect} rule's message must say that the handler has to re-validate")
    return text


def _entry(
    data: object, keys: set[str], target: str, origin: str, place: str, kind: str
) -> tuple[Mapping[str, Any], str, _Where]:
    """An entry of a rule file with only ``keys`` and a valid id: the entry, its id, and where it is (by its id)."""
    where = _Where(origin, place)
    if not isinstance(data, Mapping):
        raise where.error(f"expected a mapping; got {data!r}")
    unknown = sorted(set(data) - keys)
    if unknown:
        raise where.error(f"unknown key(s) {unknown}")
    entry_id = _text(data, "id", where)
    if not re.fullmatch(rf"{re.escape(target)}/[a-z0-9]+(-[a-z0-9]+)*", entry_id):
        raise where.error(f"id {entry_id!r} must be '{target}/' followed by a kebab-case name")
    return data, entry_id, _Where(origin, f"{kind} {entry_id}")


def _rule(entry: object, target: str, index: int, origin: str) -> LintRule:
    keys = {"id", "effect", "match", "message", "source", "as_of"}
    data, rule_id, where = _entry(entry, keys, target, origin, f"rules[{index}]", "rule")
    effect = data.get("effect")
    if effect not in EFFECTS:
        raise where.error(f"'effect' must be one of {', '.join(EFFECTS)}; got {effect!r}")
    return LintRule(
        rule_id,
        target,
        str(effect),
        _match(data.get("match"), where),
        _message(_text(data, "message", where), str(effect), where),
        _text(data, "source", where),
        _date(data, "as_of", where),
    )


def _unverified(entry: object, target: str, index: int, origin: str) -> Unverified:
    keys = {"id", "construct", "match", "why", "source", "as_of"}
    data, entry_id, where = _entry(entry, keys, target, origin, f"unverified[{index}]", "unverified")
    return Unverified(
        entry_id,
        target,
        _text(data, "construct", where),
        _match(data.get("match"), where),
        _text(data, "why", where),
        _text(data, "source", where),
        _date(data, "as_of", where),
    )


def _check_skips(rules: Sequence[LintRule], unverified: Sequence[Unverified], origin: str) -> None:
    entries: list[LintRule | Unverified] = [*rules, *unverified]
    reported = {keyword for entry in entries for keyword in entry.match.keywords}
    for rule in rules:
        missing = sorted(rule.match.skip - reported)
        if missing:
            raise _Where(origin, f"rule {rule.id}").error(
                f"skip names {missing}, which no other entry of the file matches with 'keyword'"
            )


def read_target_rules(document: object, origin: str, expected_target: str | None = None) -> TargetRules:
    """Check a decoded data file.

    Args:
        document: The decoded YAML.
        origin: The file, for error messages.
        expected_target: The target the file name promises, when known.

    Returns:
        The target's rules.

    Raises:
        ValueError: The file breaks the format (the message names the file, the rule and the field).
    """
    where = _Where(origin)
    if not isinstance(document, Mapping):
        raise where.error("expected a mapping with target, version, description and rules")
    unknown = sorted(set(document) - {"target", "version", "description", "rules", "unverified"})
    if unknown:
        raise where.error(f"unknown key(s) {unknown}")
    target = _text(document, "target", where)
    if expected_target is not None and target != expected_target:
        raise where.error(f"target is {target!r}, but the file is named for {expected_target!r}")
    rules_data, unverified_data = document.get("rules"), document.get("unverified") or []
    if not isinstance(rules_data, list) or not isinstance(unverified_data, list):
        raise where.error("'rules' and 'unverified' must be lists")
    rules = tuple(_rule(item, target, index, origin) for index, item in enumerate(rules_data))
    unverified = tuple(_unverified(item, target, index, origin) for index, item in enumerate(unverified_data))
    seen: set[str] = set()
    entries: list[LintRule | Unverified] = [*rules, *unverified]
    for entry in entries:
        if entry.id in seen:
            raise where.error(f"id {entry.id!r} is used twice")
        seen.add(entry.id)
    _check_skips(rules, unverified, origin)
    return TargetRules(
        target, _date(document, "version", where), _text(document, "description", where), rules, unverified, origin
    )


def parse_rules_yaml(text: str, origin: str, expected_target: str | None = None) -> TargetRules:
    """Read a data file's text (PyYAML, imported only now).

    Raises:
        ValueError: The text is not YAML, or breaks the format.
        ImportError: PyYAML is not installed.
    """
    try:
        yaml = importlib.import_module("yaml")
    except ImportError as error:
        raise ImportError("toolwire lint reads its rule files with PyYAML: pip install 'toolwire[yaml]'") from error
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        document = yaml.load(text, Loader=loader)
    except yaml.YAMLError as error:
        raise ValueError(f"{origin}: invalid YAML ({error})") from None
    return read_target_rules(document, origin, expected_target)
