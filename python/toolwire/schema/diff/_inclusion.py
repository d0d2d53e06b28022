"""Inclusion between normalised schemas: a proof that every instance one schema accepts, another accepts too.

``includes(narrow, wide)`` is True only with a proof; False means "not proven" (some instance may be valid under
``narrow`` and invalid under ``wide``, or the rules below cannot tell). The differ clears a change that looks like a
narrowing when OLD's schema at its place is proven included in NEW's (a union regrouped, a removed property still
admitted by ``additionalProperties``, ``not`` of a narrower type, a subschema that accepts nothing), so every rule is
an implication, and whatever is not understood counts against the proof.

Instances are split by kind: null, boolean, integer, fraction (a number that is not an integer), string, array and
object. ``narrow`` is read as a conjunction of nodes (``allOf`` flattened; ``anyOf`` and ``oneOf`` split into cases,
a ``oneOf`` read as the ``anyOf`` that contains it); a keyword of ``narrow`` that is not understood is left out,
which can only make it wider. For each kind, every keyword of ``wide`` must then be implied:

- null and booleans, and any ``narrow`` with an ``enum``, value by value (``member``);
- numbers by their intervals (exact; integers rounded), a union of intervals covering one, and ``multipleOf`` by
  integer ratios (floating-point validators disagree on fractional steps, so those are not proven);
- strings by their length; ``pattern`` and ``format`` only where ``narrow`` has the very same;
- arrays by length and position by position, as far as ``narrow``'s arrays reach;
- objects key by key (a key's value must satisfy its property, every ``patternProperties`` that matches it, else
  ``additionalProperties``), the keys neither side declares by which patterns they match, then required keys,
  counts, ``propertyNames`` and dependencies;
- ``anyOf`` by one branch (or intervals), ``oneOf`` by one branch disjoint from all the others, ``not`` by the
  emptiness of ``narrow`` and what it negates, ``if``/``then``/``else`` case by case.

Emptiness (``accepts_nothing``) finds contradictions: a kind no node admits, bounds that cross, a required key or an
array position no value fits, an enum none of whose values survive, a ``not`` of what the rest implies. References
kept as written and recursion markers are understood only as the very same reference on both sides.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any, Final, TypeAlias

from toolwire._common._json import json_type
from toolwire.schema.diff._normalize import ANNOTATIONS, json_key, same

__all__ = ["KINDS", "Inclusion", "accepts_nothing", "includes", "key_schemas", "kind_of", "matches", "member"]

#: The kinds instances are split into; ``fraction`` is a number that is not an integer.
KINDS: Final = ("null", "boolean", "integer", "fraction", "string", "array", "object")
_FINITE: Final[Mapping[str, tuple[Any, ...]]] = {"null": (None,), "boolean": (False, True)}
_NUMBERS: Final = ("integer", "fraction")
_TYPE_KINDS: Final[Mapping[str, tuple[str, ...]]] = {
    "null": ("null",),
    "boolean": ("boolean",),
    "integer": ("integer",),
    "number": ("integer", "fraction"),
    "string": ("string",),
    "array": ("array",),
    "object": ("object",),
}
# Keywords that say nothing about validity (besides the annotations), and the ones understood; any other keyword
# starting with "$" is a reference or a vocabulary the proof cannot follow.
_SILENT: Final = ANNOTATIONS | {"$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions"}
_UNIONS: Final = ("anyOf", "oneOf")
# What a branch may hold and still accept exactly an interval of numbers: keywords of other kinds leave numbers be.
_INTERVAL_ONLY: Final = _SILENT | {
    *("type", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"),
    *("minLength", "maxLength", "pattern", "format"),
    *("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"),
    *("properties", "patternProperties", "additionalProperties", "required", "minProperties", "maxProperties"),
    *("propertyNames", "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties"),
}
# More patterns than this on one object make too many classes of keys to weigh (2**n): not proven.
_MOST_PATTERNS: Final = 6
# Past this many steps a proof is abandoned (not proven): schemas with many unions multiply their cases.
_BUDGET: Final = 50_000
_INFINITY: Final = float("inf")

#: Numbers between a low and a high bound: (low, low open, high, high open); the bounds exact, or infinite.
_Span: TypeAlias = tuple[Any, bool, Any, bool]


class _OutOfBudget(Exception):
    """The proof took more steps than ``_BUDGET``."""


def kind_of(value: Any) -> str:
    """The kind of a JSON value (``1.0`` is an integer, as JSON Schema reads it; other numbers are fractions)."""
    if isinstance(value, float):
        return "integer" if value.is_integer() else "fraction"
    return json_type(value)


def _exact(value: Any) -> Fraction | None:
    """A JSON number as an exact fraction (floats by their shortest decimal), or None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return Fraction(value) if isinstance(value, int) else Fraction(repr(value))


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# -- patterns ----------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def matches(pattern: str, text: str) -> bool | None:
    r"""Whether an ECMA-262 ``pattern`` finds a match in ``text``; None when that cannot be told for sure.

    Python's ``re`` and ECMA-262 read ``\d``, ``\w``, ``\s``, ``\b``, ``.`` and ``$`` alike on printable ASCII
    text (they differ on other digits, letters and spaces, and around line breaks): other text is not decided, nor a
    pattern ``re`` cannot compile.
    """
    compiled = _compiled(pattern)
    if compiled is None or not all(" " <= char <= "~" for char in text):
        return None
    return compiled.search(text) is not None


# -- membership --------------------------------------------------------------------------------------------------


def _fold3(results: Iterator[bool | None], decisive: bool) -> bool | None:
    """Three-valued AND (``decisive`` False) or OR (``decisive`` True): the decisive value wins, then None."""
    unknown = False
    for result in results:
        if result is decisive:
            return decisive
        unknown = unknown or result is None
    return None if unknown else not decisive


def _all3(results: Iterator[bool | None]) -> bool | None:
    """Three-valued AND: False wins, then None."""
    return _fold3(results, decisive=False)


def _any3(results: Iterator[bool | None]) -> bool | None:
    """Three-valued OR: True wins, then None."""
    return _fold3(results, decisive=True)


def _not3(result: bool | None) -> bool | None:
    return None if result is None else not result


def _type_kinds(node: Mapping[str, Any], *, narrow: bool) -> frozenset[str] | None:
    """The kinds a node's ``type`` admits (None: no ``type``).

    A name JSON Schema does not define leaves the node admitting every kind on the narrow side (wider) and none on
    the wide side (a proof must then find it empty).
    """
    declared = node.get("type")
    if declared is None:
        return None
    names = declared if isinstance(declared, list) else [declared]
    if any(not isinstance(name, str) or name not in _TYPE_KINDS for name in names):
        return None if narrow else frozenset()
    return frozenset(kind for name in names for kind in _TYPE_KINDS[name])


def member(value: Any, schema: Any) -> bool | None:
    """Whether a JSON value is valid under a normalised schema: True, False, or None when that cannot be told.

    ``format``, references kept as written, recursion markers and the unevaluated keywords are not evaluated (None
    wherever they apply); ``pattern`` as ``matches`` decides it.
    """
    if schema is True or schema is False:
        return schema
    if not isinstance(schema, Mapping):
        return None
    kind = kind_of(value)
    return _all3(_member_checks(value, kind, schema))


def _member_checks(value: Any, kind: str, node: Mapping[str, Any]) -> Iterator[bool | None]:
    yield from _member_any(value, kind, node)
    if kind in _NUMBERS:
        yield from _member_number(value, node)
    elif kind == "string":
        yield from _member_string(value, node)
    elif kind == "array":
        yield from _member_array(value, node)
    elif kind == "object":
        yield from _member_object(value, node)
    yield from _member_composition(value, node)


def _member_any(value: Any, kind: str, node: Mapping[str, Any]) -> Iterator[bool | None]:
    """The keywords that apply to every kind, besides composition."""
    if "type" in node:
        wide, narrow = _type_kinds(node, narrow=False), _type_kinds(node, narrow=True)
        yield None if wide != narrow else kind in (wide or ())  # a type name JSON Schema does not define
    if "enum" in node:
        enum = node["enum"]
        yield isinstance(enum, list) and json_key(value) in {json_key(item) for item in enum}
    if any(key.startswith("$") and key not in _SILENT for key in node):
        yield None  # a reference kept as written, a recursion marker
    if kind == "object" and "unevaluatedProperties" in node:
        yield None
    if kind == "array" and "unevaluatedItems" in node:
        yield None


def _member_composition(value: Any, node: Mapping[str, Any]) -> Iterator[bool | None]:
    for member_schema in node.get("allOf") or ():
        yield member(value, member_schema)
    if "anyOf" in node:
        yield _any3(member(value, branch) for branch in node["anyOf"])
    if "oneOf" in node:
        results = [member(value, branch) for branch in node["oneOf"]]
        valid = results.count(True)
        yield False if valid > 1 else None if None in results else valid == 1
    if "not" in node:
        yield _not3(member(value, node["not"]))
    if "if" in node:
        condition = member(value, node["if"])
        then, otherwise = member(value, node.get("then", True)), member(value, node.get("else", True))
        yield then if condition is True else otherwise if condition is False else (then if then == otherwise else None)


def _member_number(value: Any, node: Mapping[str, Any]) -> Iterator[bool | None]:
    number = _exact(value)
    for keyword, holds in (
        ("maximum", operator.le),
        ("minimum", operator.ge),
        ("exclusiveMaximum", operator.lt),
        ("exclusiveMinimum", operator.gt),
    ):
        bound = _exact(node.get(keyword))
        if bound is not None and number is not None:
            yield bool(holds(number, bound))
        elif keyword in node:
            yield None
    if "multipleOf" in node:
        step = _exact(node["multipleOf"])
        # Floating-point validators disagree with exact arithmetic on fractional steps (0.3 / 0.1): only whole ones.
        if step is None or number is None or step.denominator != 1 or number.denominator != 1 or step <= 0:
            yield None
        else:
            yield number % step == 0


def _member_string(value: str, node: Mapping[str, Any]) -> Iterator[bool | None]:
    if _is_count(node.get("minLength")):
        yield len(value) >= node["minLength"]
    if _is_count(node.get("maxLength")):
        yield len(value) <= node["maxLength"]
    if "pattern" in node:
        yield matches(node["pattern"], value) if isinstance(node["pattern"], str) else None
    if "format" in node:
        yield None


def _member_array(value: list[Any], node: Mapping[str, Any]) -> Iterator[bool | None]:
    if _is_count(node.get("minItems")):
        yield len(value) >= node["minItems"]
    if _is_count(node.get("maxItems")):
        yield len(value) <= node["maxItems"]
    if node.get("uniqueItems") is True:
        yield len({json_key(item) for item in value}) == len(value)
    prefix = node.get("prefixItems") or []
    for index, item in enumerate(value):
        yield member(item, prefix[index] if index < len(prefix) else node.get("items", True))
    if "contains" in node:
        found = [member(item, node["contains"]) for item in value]
        least = node.get("minContains", 1)
        most = node.get("maxContains")
        if not _is_count(least) or (most is not None and not _is_count(most)):
            yield None
        elif None in found:
            sure, maybe = found.count(True), found.count(True) + found.count(None)
            yield False if maybe < least or (most is not None and sure > most) else None
        else:
            yield found.count(True) >= least and (most is None or found.count(True) <= most)


def _member_object(value: Mapping[str, Any], node: Mapping[str, Any]) -> Iterator[bool | None]:
    required = node.get("required") or []
    yield all(name in value for name in required)
    if _is_count(node.get("minProperties")):
        yield len(value) >= node["minProperties"]
    if _is_count(node.get("maxProperties")):
        yield len(value) <= node["maxProperties"]
    for key, item in value.items():
        schemas = key_schemas(node, key)
        yield None if schemas is None else _all3(member(item, schema) for schema in schemas)
        if "propertyNames" in node:
            yield member(key, node["propertyNames"])
        if key in (node.get("dependentRequired") or {}):
            yield all(name in value for name in node["dependentRequired"][key])
        if key in (node.get("dependentSchemas") or {}):
            yield member(value, node["dependentSchemas"][key])


def key_schemas(node: Any, key: str) -> list[Any] | None:
    """The schemas an object node holds a key's value to.

    Its property's and every matching ``patternProperties``', else ``additionalProperties``. None when a pattern
    cannot be evaluated on the key, or when ``unevaluatedProperties`` decides (what it sees depends on the
    subschemas that evaluate the key).
    """
    if not isinstance(node, Mapping):
        return [node]
    properties = _mapping(node, "properties")
    patterns = _mapping(node, "patternProperties")
    found = [properties[key]] if key in properties else []
    for pattern, schema in patterns.items():
        matched = matches(pattern, key)
        if matched is None:
            return None
        if matched:
            found.append(schema)
    if found:
        return found
    if "additionalProperties" not in node and "unevaluatedProperties" in node:
        return None
    return [node.get("additionalProperties", True)]


# -- the proof ---------------------------------------------------------------------------------------------------


def _mapping(node: Mapping[str, Any], keyword: str) -> Mapping[str, Any]:
    value = node.get(keyword)
    return value if isinstance(value, Mapping) else {}


def _flatten(schemas: Sequence[Any]) -> list[Mapping[str, Any]] | None:
    """A conjunction as plain nodes (``allOf`` spliced, ``true`` dropped); None when it holds ``false``."""
    nodes: list[Mapping[str, Any]] = []
    pending = list(schemas)
    while pending:
        schema = pending.pop()
        if schema is False:
            return None
        if not isinstance(schema, Mapping):
            continue  # true, or not a schema: nothing to add
        members = schema.get("allOf")
        if isinstance(members, list):
            pending.extend(members)
            schema = {key: value for key, value in schema.items() if key != "allOf"}
        if any(key not in _SILENT for key in schema):
            nodes.append(schema)
    return nodes


def _first_union(nodes: Sequence[Mapping[str, Any]]) -> tuple[int, str] | None:
    for index, node in enumerate(nodes):
        for keyword in _UNIONS:
            if isinstance(node.get(keyword), list):
                return index, keyword
    return None


def _interval(nodes: Sequence[Mapping[str, Any]], kind: str) -> _Span:
    """The numbers of ``kind`` all nodes' bounds admit: (low, low open, high, high open); integers closed."""
    low: Any = -_INFINITY
    high: Any = _INFINITY
    low_open = high_open = False
    for node in nodes:
        for keyword, is_high, is_open in (
            ("maximum", True, False),
            ("exclusiveMaximum", True, True),
            ("minimum", False, False),
            ("exclusiveMinimum", False, True),
        ):
            bound = _exact(node.get(keyword))
            if bound is None:
                continue
            if is_high and (bound < high or (bound == high and is_open)):
                high, high_open = bound, is_open
            elif not is_high and (bound > low or (bound == low and is_open)):
                low, low_open = bound, is_open
    if kind == "integer":
        return _integers(low, low_open, high, high_open)
    return low, low_open, high, high_open


def _integers(low: Any, low_open: bool, high: Any, high_open: bool) -> _Span:
    """The closed integer interval inside a real one."""
    if low != -_INFINITY:
        low = math.floor(low) + 1 if low_open and low.denominator == 1 else math.ceil(low)
    if high != _INFINITY:
        high = math.ceil(high) - 1 if high_open and high.denominator == 1 else math.floor(high)
    return low, False, high, False


def _span(branch: Any, kind: str) -> _Span | None:
    """The numbers of ``kind`` a branch accepts, when they are exactly an interval.

    That is a type and bounds, besides keywords of other kinds.
    """
    nodes = _flatten([branch])
    if nodes is None or any((kinds := _type_kinds(n, narrow=False)) is not None and kind not in kinds for n in nodes):
        return None
    if any(key not in _INTERVAL_ONLY for node in nodes for key in node):
        return None
    return _interval(nodes, kind)


def _crossed(low: Any, high: Any, low_open: bool = False, high_open: bool = False) -> bool:
    return bool(low > high or (low == high and (low_open or high_open)))


def _within(inner: _Span, outer: _Span) -> bool:
    low, low_open, high, high_open = inner
    out_low, out_low_open, out_high, out_high_open = outer
    above = low > out_low or (low == out_low and (low_open or not out_low_open))
    below = high < out_high or (high == out_high and (high_open or not out_high_open))
    return bool(above and below)


def _covered(span: _Span, parts: Sequence[_Span], kind: str) -> bool:
    """Whether the union of ``parts`` covers ``span`` (integers: every integer in it)."""
    low, low_open, high, high_open = span
    # Everything below ``reach`` is covered, and ``reach`` itself when ``held``.
    reach, held = low, low_open
    for part_low, part_low_open, part_high, part_high_open in sorted(parts, key=lambda part: (part[0], part[1])):
        if kind == "integer":
            if part_low > reach:
                break
            reach, held = max(reach, part_high + 1), False
            continue
        if part_low > reach or (part_low == reach and part_low_open and not held):
            break
        if part_high > reach:
            reach, held = part_high, not part_high_open
        elif part_high == reach:
            held = held or not part_high_open
    if kind == "integer":
        return bool(reach > high or reach == _INFINITY)
    return bool(reach > high or (reach == high and (held or high_open)))


def _lengths(nodes: Sequence[Mapping[str, Any]], least: str, most: str) -> tuple[int, Any]:
    low = max((node[least] for node in nodes if _is_count(node.get(least))), default=0)
    high = min((node[most] for node in nodes if _is_count(node.get(most))), default=_INFINITY)
    return low, high


def _position(node: Mapping[str, Any], index: int) -> Any:
    prefix = node.get("prefixItems") or []
    return prefix[index] if index < len(prefix) else node.get("items", True)


def _closed_keys(nodes: Sequence[Mapping[str, Any]]) -> set[str] | None:
    """The only keys an object can have, when some node admits no key beyond its properties."""
    for node in nodes:
        if node.get("additionalProperties") is False and not node.get("patternProperties"):
            return set(node.get("properties") or ())
    return None


class Inclusion:
    """Proofs of inclusion and emptiness that share what they settled: one per comparison of two schemas.

    The memo is keyed by the ids of the nodes asked about and keeps them alive, so the schemas may be built on the
    fly; each question has its own step budget.
    """

    def __init__(self) -> None:
        self.memo: dict[tuple[Any, ...], tuple[bool, Any]] = {}
        self.steps = 0

    def proves_included(self, narrow: Any, wide: Any) -> bool:
        """Whether every instance ``narrow`` accepts is proven to be accepted by ``wide``."""
        return self.settle(lambda: self.includes_all([narrow], wide))

    def proves_empty(self, schema: Any) -> bool:
        """Whether ``schema`` is proven to accept no instance."""
        return self.settle(lambda: self.empty_all([schema]))

    def settle(self, question: Callable[[], bool]) -> bool:
        self.steps = 0
        try:
            return question()
        except (_OutOfBudget, RecursionError):
            # Too many cases, or nesting deeper than Python's stack: not proven. What was settled on the way stays
            # settled; what was still open stays not proven.
            return False

    def step(self) -> None:
        self.steps += 1
        if self.steps > _BUDGET:
            raise _OutOfBudget

    def remembered(self, key: tuple[Any, ...]) -> bool | None:
        found = self.memo.get(key)
        return None if found is None else found[0]

    # -- every kind ----------------------------------------------------------------------------------------------

    def includes_all(self, narrow: Sequence[Any], wide: Any) -> bool:
        return all(self.includes(narrow, wide, kind) for kind in KINDS)

    def empty_all(self, schemas: Sequence[Any]) -> bool:
        return all(self.empty(schemas, kind) for kind in KINDS)

    # -- inclusion -----------------------------------------------------------------------------------------------

    def includes(self, narrow: Sequence[Any], wide: Any, kind: str) -> bool:
        """Whether every instance of ``kind`` that all of ``narrow`` accept, ``wide`` accepts."""
        self.step()
        if wide is True or wide == {}:
            return True
        key = ("includes", kind, id(wide), *map(id, narrow))
        known = self.remembered(key)
        if known is not None:
            return known
        self.memo[key] = (False, None)  # a question met again inside its own proof is not proven by it
        nodes = _flatten(narrow)
        result = nodes is None or all(self.case_included(case, wide, kind) for case in self.cases(nodes))
        self.memo[key] = (result, (narrow, wide))
        return result

    def cases(self, nodes: list[Mapping[str, Any]]) -> Iterator[list[Mapping[str, Any]]]:
        """The conjunction split at its unions: one conjunction per choice of branches."""
        found = _first_union(nodes)
        if found is None:
            yield nodes
            return
        index, keyword = found
        rest = {key: value for key, value in nodes[index].items() if key != keyword}
        for branch in nodes[index][keyword]:
            self.step()
            split = _flatten([*nodes[:index], rest, branch, *nodes[index + 1 :]])
            if split is not None:
                yield from self.cases(split)

    def case_included(self, nodes: list[Mapping[str, Any]], wide: Any, kind: str) -> bool:
        if wide is False or not isinstance(wide, Mapping):
            return self.case_empty(nodes, kind)
        kinds = _type_kinds(wide, narrow=False)
        if kinds is not None and kind not in kinds:
            return self.case_empty(nodes, kind)
        values = self.values(nodes, kind)
        if values is not None and all(member(value, wide) is True for value in values):
            return True
        return self.implied(nodes, wide, kind) or self.case_empty(nodes, kind)

    def values(self, nodes: Sequence[Mapping[str, Any]], kind: str) -> list[Any] | None:
        """Every value of ``kind`` the nodes may accept, when they are finitely many (an enum, null, booleans)."""
        candidates: Sequence[Any] | None = _FINITE.get(kind)
        for node in nodes:
            if candidates is None and isinstance(node.get("enum"), list):
                candidates = [value for value in node["enum"] if kind_of(value) == kind]
        if candidates is None:
            return None
        return [value for value in candidates if all(member(value, node) is not False for node in nodes)]

    def implied(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any], kind: str) -> bool:
        """Whether the nodes imply every keyword of ``wide`` that bears on ``kind``."""
        for keyword in wide:
            # A reference kept as written means the same on both sides only when it is the very same; a recursion
            # marker names OLD's schema on one side and NEW's on the other, and other references a dynamic scope.
            if keyword.startswith("$") and keyword not in _SILENT:
                if keyword != "$ref" or not any(node.get("$ref") == wide["$ref"] for node in nodes):
                    return False
        if "enum" in wide:
            return False  # the nodes are no enum (``values``): infinitely many values to fit in a finite set
        checks = {
            "integer": self.numbers,
            "fraction": self.numbers,
            "string": self.strings,
            "array": self.arrays,
            "object": self.objects,
        }
        if kind in checks and not checks[kind](nodes, wide, kind):
            return False
        return self.composition(nodes, wide, kind)

    def composition(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any], kind: str) -> bool:
        if not all(self.includes(nodes, schema, kind) for schema in wide.get("allOf") or ()):
            return False
        if "anyOf" in wide and not self.any_of(nodes, wide["anyOf"], kind):
            return False
        if "oneOf" in wide and not self.one_of(nodes, wide["oneOf"], kind):
            return False
        if "not" in wide and not self.empty([*nodes, wide["not"]], kind):
            return False
        if "if" in wide:
            condition, then, otherwise = wide["if"], wide.get("then", True), wide.get("else", True)
            taken = self.includes(nodes, condition, kind) and self.includes(nodes, then, kind)
            skipped = self.empty([*nodes, condition], kind) and self.includes(nodes, otherwise, kind)
            both = self.includes(nodes, then, kind) and self.includes(nodes, otherwise, kind)
            return taken or skipped or both
        return True

    def any_of(self, nodes: list[Mapping[str, Any]], branches: Sequence[Any], kind: str) -> bool:
        if any(self.includes(nodes, branch, kind) for branch in branches):
            return True
        if kind not in _NUMBERS:
            return False
        parts = [part for branch in branches if (part := _span(branch, kind)) is not None]
        return _covered(_interval(nodes, kind), parts, kind)

    def one_of(self, nodes: list[Mapping[str, Any]], branches: Sequence[Any], kind: str) -> bool:
        for index, branch in enumerate(branches):
            others = [other for position, other in enumerate(branches) if position != index]
            if self.includes(nodes, branch, kind) and all(self.empty([*nodes, other], kind) for other in others):
                return True
        return False

    # -- each kind -----------------------------------------------------------------------------------------------

    def numbers(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any], kind: str) -> bool:
        if not _within(_interval(nodes, kind), _interval([wide], kind)):
            return False
        if "multipleOf" not in wide:
            return True
        step = _exact(wide["multipleOf"])
        if any(_exact(node.get("multipleOf")) == step for node in nodes):
            return True
        if kind != "integer" or step is None or step.denominator != 1 or step <= 0:
            return False
        steps = [_exact(node.get("multipleOf")) for node in nodes]
        return any(mine is not None and mine.denominator == 1 and mine % step == 0 for mine in steps)

    def strings(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any], kind: str) -> bool:
        low, high = _lengths(nodes, "minLength", "maxLength")
        wide_low, wide_high = _lengths([wide], "minLength", "maxLength")
        if low < wide_low or high > wide_high:
            return False
        return all(
            any(node.get(keyword) == wide[keyword] for node in nodes)
            for keyword in ("pattern", "format")
            if keyword in wide
        )

    def arrays(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any], kind: str) -> bool:
        low, high = _lengths(nodes, "minItems", "maxItems")
        wide_low, wide_high = _lengths([wide], "minItems", "maxItems")
        if low < wide_low or high > wide_high or "unevaluatedItems" in wide:
            return False
        if wide.get("uniqueItems") is True and high > 1 and not any(node.get("uniqueItems") is True for node in nodes):
            return False
        prefix = max((len(node.get("prefixItems") or ()) for node in [*nodes, wide]), default=0)
        for index in range(prefix):
            if index >= high:
                break
            if not self.includes_all([_position(node, index) for node in nodes], _position(wide, index)):
                return False
        if high > prefix and not self.includes_all(
            [node.get("items", True) for node in nodes], wide.get("items", True)
        ):
            return False
        return "contains" not in wide or self.contains(nodes, wide)

    def contains(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any]) -> bool:
        least = wide.get("minContains", 1)
        if "maxContains" in wide or not _is_count(least):
            keys = ("contains", "minContains", "maxContains")
            return any(all(same(node.get(key), wide.get(key)) for key in keys) for node in nodes)
        if least == 0:
            return True
        return any(
            "contains" in node
            and _is_count(node.get("minContains", 1))
            and node.get("minContains", 1) >= least
            and self.includes_all([node["contains"]], wide["contains"])
            for node in nodes
        )

    def objects(self, nodes: list[Mapping[str, Any]], wide: Mapping[str, Any], kind: str) -> bool:
        if "unevaluatedProperties" in wide:
            return False
        required = {name for node in nodes for name in node.get("required") or ()}
        if not set(wide.get("required") or ()) <= required:
            return False
        declared = {name for node in [*nodes, wide] for name in node.get("properties") or ()}
        if not all(self.key_included(nodes, wide, name) for name in declared):
            return False
        if not self.other_keys_included(nodes, wide):
            return False
        low, high = _lengths(nodes, "minProperties", "maxProperties")
        closed = _closed_keys(nodes)
        low = max(low, len(required))
        if closed is not None:
            high = min(high, len(closed))
        wide_low, wide_high = _lengths([wide], "minProperties", "maxProperties")
        if low < wide_low or high > wide_high:
            return False
        return self.property_names(nodes, wide, closed) and self.dependencies(nodes, wide, required)

    def key_included(self, nodes: Sequence[Mapping[str, Any]], wide: Mapping[str, Any], name: str) -> bool:
        wide_schemas = key_schemas(wide, name)
        if wide_schemas is None:
            return False
        # A node whose hold on the key cannot be told is left out: the conjunction only gets wider.
        mine = [schema for node in nodes for schema in key_schemas(node, name) or [True]]
        return all(self.includes_all(mine, schema) for schema in wide_schemas)

    def other_keys_included(self, nodes: Sequence[Mapping[str, Any]], wide: Mapping[str, Any]) -> bool:
        """The keys neither side declares, class by class of the patterns they may match."""
        patterns = sorted({pattern for node in [*nodes, wide] for pattern in node.get("patternProperties") or ()})
        if len(patterns) > _MOST_PATTERNS:
            return False
        for size in range(len(patterns) + 1):
            for matched in combinations(patterns, size):
                mine = [schema for node in nodes for schema in _other_key_schemas(node, set(matched))]
                if not self.includes_all(mine, _all_of(_other_key_schemas(wide, set(matched)))):
                    return False
        return True

    def property_names(
        self, nodes: Sequence[Mapping[str, Any]], wide: Mapping[str, Any], closed: set[str] | None
    ) -> bool:
        if "propertyNames" not in wide:
            return True
        names = wide["propertyNames"]
        if any("propertyNames" in node and self.includes([node["propertyNames"]], names, "string") for node in nodes):
            return True
        return closed is not None and all(member(name, names) is True for name in closed)

    def dependencies(self, nodes: Sequence[Mapping[str, Any]], wide: Mapping[str, Any], required: set[str]) -> bool:
        for name, needed in (wide.get("dependentRequired") or {}).items():
            present = required | {
                other for node in nodes for other in (node.get("dependentRequired") or {}).get(name) or ()
            }
            if not set(needed) <= present and not self.forbidden(nodes, name):
                return False
        for name, schema in (wide.get("dependentSchemas") or {}).items():
            mine = [node["dependentSchemas"][name] for node in nodes if name in (node.get("dependentSchemas") or {})]
            if not (self.forbidden(nodes, name) or self.includes([*nodes, *mine], schema, "object")):
                return False
        return True

    def forbidden(self, nodes: Sequence[Mapping[str, Any]], name: str) -> bool:
        """Whether no object the nodes accept has the key ``name`` (no value fits it)."""
        return self.empty_all([schema for node in nodes for schema in key_schemas(node, name) or [True]])

    # -- emptiness -----------------------------------------------------------------------------------------------

    def empty(self, schemas: Sequence[Any], kind: str) -> bool:
        """Whether no instance of ``kind`` satisfies all of ``schemas``."""
        self.step()
        key = ("empty", kind, *map(id, schemas))
        known = self.remembered(key)
        if known is not None:
            return known
        self.memo[key] = (False, None)
        nodes = _flatten(schemas)
        result = nodes is None or all(self.case_empty(case, kind) for case in self.cases(nodes))
        self.memo[key] = (result, schemas)
        return result

    def case_empty(self, nodes: list[Mapping[str, Any]], kind: str) -> bool:
        if _first_union(nodes) is not None:
            return all(self.case_empty(case, kind) for case in self.cases(nodes))
        if any((kinds := _type_kinds(node, narrow=True)) is not None and kind not in kinds for node in nodes):
            return True
        values = self.values(nodes, kind)
        if values is not None:
            return not values
        return self.kind_empty(nodes, kind) or self.negation_empty(nodes, kind)

    def kind_empty(self, nodes: list[Mapping[str, Any]], kind: str) -> bool:
        """Whether the keywords of one kind contradict each other."""
        if kind in _NUMBERS:
            low, low_open, high, high_open = _interval(nodes, kind)
            return _crossed(low, high, low_open, high_open)
        if kind == "string":
            return _crossed(*_lengths(nodes, "minLength", "maxLength"))
        if kind == "array":
            return self.array_empty(nodes)
        return kind == "object" and self.object_empty(nodes)

    def array_empty(self, nodes: Sequence[Mapping[str, Any]]) -> bool:
        low, high = _lengths(nodes, "minItems", "maxItems")
        # Every array the nodes accept fills the positions below ``low``: one no value fits leaves none.
        bounded = min(low, max((len(node.get("prefixItems") or ()) for node in nodes), default=0) + 1)
        return low > high or any(
            self.empty_all([_position(node, index) for node in nodes]) for index in range(int(bounded))
        )

    def object_empty(self, nodes: Sequence[Mapping[str, Any]]) -> bool:
        required = {name for node in nodes for name in node.get("required") or ()}
        low, high = _lengths(nodes, "minProperties", "maxProperties")
        closed = _closed_keys(nodes)
        if closed is not None:
            high = min(high, len(closed))
        return max(low, len(required)) > high or any(self.forbidden(nodes, name) for name in sorted(required))

    def negation_empty(self, nodes: list[Mapping[str, Any]], kind: str) -> bool:
        """A ``not`` of what the rest of the conjunction implies leaves nothing."""
        for index, node in enumerate(nodes):
            if "not" in node:
                rest = [*nodes[:index], {k: v for k, v in node.items() if k != "not"}, *nodes[index + 1 :]]
                if self.includes(rest, node["not"], kind):
                    return True
        return False


def _other_key_schemas(node: Mapping[str, Any], matched: set[str]) -> list[Any]:
    """What a node holds a key it does not declare to, when the key matches exactly the patterns ``matched``."""
    patterns = node.get("patternProperties") or {}
    mine = [schema for pattern, schema in patterns.items() if pattern in matched]
    if mine:
        return mine
    if "additionalProperties" not in node and "unevaluatedProperties" in node:
        return [True]  # decided by what the subschemas evaluate: on the narrow side, left out (wider)
    return [node.get("additionalProperties", True)]


def _all_of(schemas: Sequence[Any]) -> Any:
    return schemas[0] if len(schemas) == 1 else {"allOf": list(schemas)}


def includes(narrow: Any, wide: Any) -> bool:
    """Whether every instance ``narrow`` accepts is proven to be accepted by ``wide`` (normalised schemas).

    False means not proven: a counterexample may exist, or the proof does not reach it.
    """
    return Inclusion().proves_included(narrow, wide)


def accepts_nothing(schema: Any) -> bool:
    """Whether a normalised schema is proven to accept no instance at all."""
    return Inclusion().proves_empty(schema)
