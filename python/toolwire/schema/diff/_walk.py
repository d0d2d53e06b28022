"""The walk: two normalised parameters schemas of one tool, compared node by node into typed ``Change`` records.

Both sides are normalised first (``_normalize``), so a spelling never shows as a change. The walk goes down
both trees at once: annotations, types (null apart from the rest; an enum without a type has the types of its
values), enums, bounds, patterns and formats, then objects (properties matched by name, a removal and an addition
with the same schema and a similar name read as a rename; required-ness; openness; how the object holds a key it
does not declare - closed, open, or under ``additionalProperties``/``patternProperties`` - decides what an added or
removed key does), arrays (``items``, ``prefixItems`` position by position against the other side's ``items``, up
to OLD's ``maxItems``), and unions (branches matched by equal schema, then by the same type, the rest added or
removed; a ``oneOf`` whose branches only widened is a change of its own, as a value may now match two). A node that
is a bare union on one side only is read as a union of one branch on the other, so ``string`` -> ``anyOf [string,
integer]`` is a branch added, not a type removed. Pointers are those of the normalised NEW schema (OLD's for what
NEW lacks).

Each node compared is then weighed as a whole: when OLD's node is proven included in NEW's (``_inclusion``),
the changes found below it that could fail old calls cannot, and their replay check passes.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from toolwire._common._json import pointer_token
from toolwire.schema._similarity import words
from toolwire.schema.diff._change import ABSENT, Change, place
from toolwire.schema.diff._inclusion import Inclusion, key_schemas, kind_of
from toolwire.schema.diff._normalize import ANNOTATIONS, is_nullable, json_key, same
from toolwire.schema.diff._rubric import Checks

__all__ = ["walk_parameters"]

_UPPER: Final = ("maxLength", "maxItems", "maxProperties", "maxContains")
_LOWER: Final = ("minLength", "minItems", "minProperties", "minContains")
# Keywords holding one subschema, compared as a child: an object's, then an array's.
_OBJECT_CHILDREN: Final = ("propertyNames", "unevaluatedProperties")
_ARRAY_CHILDREN: Final = ("contains", "unevaluatedItems")
_OPAQUE: Final = ("not", "if", "then", "else", "$ref")
_UNIONS: Final = ("anyOf", "oneOf")
_KNOWN: Final = frozenset(
    {
        "type", "enum", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "uniqueItems",
        "pattern", "format", "properties", "required", "additionalProperties", "patternProperties",
        "dependentRequired", "dependentSchemas", "items", "prefixItems", "allOf", "$recursive", "$depth",
        *_UPPER, *_LOWER, *_OBJECT_CHILDREN, *_ARRAY_CHILDREN, *_OPAQUE, *_UNIONS, *ANNOTATIONS,
    }
)  # fmt: skip
_NAME_SIMILARITY: Final = 0.5
# The replay checks that say an old call may fail.
_CAN_FAIL: Final = frozenset({"fail", "unknown", "caution"})
# Past this many nodes compared (references expanded), the walk stops and says so rather than run on.
_VISIT_BUDGET: Final = 20_000


def _key(value: Any) -> str:
    """``json_key``, with ``ABSENT`` apart from every JSON value."""
    return "\u0000absent" if value is ABSENT else json_key(value)


def _eq(first: Any, second: Any) -> bool:
    if first is ABSENT or second is ABSENT:
        return first is second
    return same(first, second)


def _short(value: Any, limit: int = 60) -> str:
    """A value as compact JSON, cut at ``limit`` characters (written only that far: a schema may be large)."""
    if value is ABSENT:
        return "(none)"
    parts: list[str] = []
    _preview(value, parts, limit + 1)
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _preview(value: Any, parts: list[str], budget: int) -> int:
    """Append compact JSON of ``value`` to ``parts`` until ``budget`` characters are written; returns what is left."""
    if budget <= 0:
        return 0
    if isinstance(value, Mapping):
        parts.append("{")
        budget -= 1
        for position, (key, item) in enumerate(value.items()):
            if budget <= 0:
                break
            parts.append(("," if position else "") + json_key(str(key)) + ":")
            budget = _preview(item, parts, budget - len(parts[-1]))
        parts.append("}")
        return budget - 1
    if isinstance(value, list):
        parts.append("[")
        budget -= 1
        for position, item in enumerate(value):
            if budget <= 0:
                break
            if position:
                parts.append(",")
                budget -= 1
            budget = _preview(item, parts, budget)
        parts.append("]")
        return budget - 1
    text = json_key(value)
    parts.append(text)
    return budget - len(text)


def _body(node: Any) -> Any:
    """A node without its annotations: what it validates."""
    if not isinstance(node, Mapping):
        return node
    return {key: value for key, value in node.items() if key not in ANNOTATIONS}


def _types(node: Mapping[str, Any]) -> set[str] | None:
    declared = node.get("type")
    return {name for name in declared if isinstance(name, str)} if isinstance(declared, list) else None


def _types_or_values(node: Mapping[str, Any]) -> set[str] | None:
    """The declared types, else those of the enum's values (an integer and a fraction make ``number``)."""
    declared = _types(node)
    enum = node.get("enum")
    if declared is not None or not isinstance(enum, list):
        return declared
    found = {"number" if kind == "fraction" else kind for kind in map(kind_of, enum)}
    return found - {"integer"} if "number" in found else found


def _admits(node: Mapping[str, Any], kind: str) -> bool:
    types = _types(node)
    return types is None or kind in types or (kind == "number" and "integer" in types)


def _covers(wide: set[str], narrow: set[str]) -> bool:
    """Whether every value of the types ``narrow`` is of the types ``wide`` (integers are numbers)."""
    return all(name in wide or (name == "integer" and "number" in wide) for name in narrow)


def _similar_names(first: str, second: str) -> bool:
    if first.lower() in second.lower() or second.lower() in first.lower():
        return True
    if set(words(first)) & set(words(second)):
        return True
    return difflib.SequenceMatcher(None, first.lower(), second.lower()).ratio() >= _NAME_SIMILARITY


def _signature(node: Any) -> str:
    """What pairs two union branches that are not equal: the same types (and a const/enum discriminator)."""
    if not isinstance(node, Mapping):
        return _key(node)
    return _key(sorted(_types(node) or ["any"]))


def _is_open(additional: Any) -> bool:
    return additional is True or additional == {}


class _Walk:
    """One tool's walk; changes accumulate in ``changes``."""

    def __init__(self, tool: str, origin: str | None) -> None:
        self.tool = tool
        self.origin = origin
        self.changes: list[Change] = []
        self.visits = 0
        self.stopped = False
        # (id(old), id(new)) -> (path, first change, end, old, new): the nodes are kept so ids are not reused.
        self.walked: dict[tuple[int, int], tuple[str, int, int, Any, Any]] = {}
        # Node comparisons already made: both schemas stay alive during the walk, so their ids are stable.
        self.known: dict[tuple[int, int], bool] = {}
        self.inclusion = Inclusion()

    def too_large(self, old: Any, new: Any, path: str) -> None:
        if not self.stopped:
            self.stopped = True
            self.add(
                "constraint-changed",
                path,
                ABSENT,
                ABSENT,
                f"{place(path)}: the schemas differ in more than {_VISIT_BUDGET} places once references are "
                "expanded; the rest is not compared (recorded calls decide)",
            )

    def add(self, kind: str, path: str, old: Any, new: Any, message: str, **detail: Any) -> None:
        self.changes.append(Change(self.tool, path, kind, old, new, message, detail, origin=self.origin))

    # -- one node ------------------------------------------------------------------------------------------------

    def compare(self, old: Any, new: Any, path: str) -> None:
        """Every change between two normalised nodes at ``path``."""
        if same(old, new, ordered=True, known=self.known):
            return
        self.visits += 1
        if self.visits > _VISIT_BUDGET:
            self.too_large(old, new, path)
            return
        pair = (id(old), id(new))
        if pair in self.walked:
            self.again(pair, path)
            return
        start = len(self.changes)
        self.node(old, new, path)
        self.settle(old, new, path, start)
        self.walked[pair] = (path, start, len(self.changes), old, new)

    def settle(self, old: Any, new: Any, path: str, start: int) -> None:
        """Clear the changes found below ``path`` that could fail old calls, when none can.

        None can when OLD's node is proven included in NEW's (``_inclusion``): their replay check passes, and the
        handler sees something new unless the two nodes are proven equivalent. A node inside a ``oneOf`` branch is not
        judged alone: widening a branch can make a call match two branches.
        """
        failing = [index for index in range(start, len(self.changes)) if _replay(self.changes[index]) in _CAN_FAIL]
        if not failing or _inside_one_of(path) or not self.inclusion.proves_included(old, new):
            return
        widened = not self.inclusion.proves_included(new, old)
        reason = f"proven: NEW admits every value OLD admits at {place(path)}"
        for index in failing:
            change = self.changes[index]
            handler = (change.checks or Checks()).handler
            handler = "review" if widened and handler == "n/a" else handler
            self.changes[index] = change.with_checks(reason, replay="pass", handler=handler)

    def again(self, pair: tuple[int, int], path: str) -> None:
        """A pair of nodes walked before at another place (a shared ``$ref`` target): its changes, moved here."""
        first, start, end, _, _ = self.walked[pair]
        for change in self.changes[start:end]:
            self.visits += 1
            if self.visits > _VISIT_BUDGET:
                self.too_large(None, None, path)
                return
            moved = path + change.path[len(first) :]
            message = change.message.replace(place(first), place(path), 1) if first else change.message
            self.changes.append(replace(change, path=moved, message=message))

    def node(self, old: Any, new: Any, path: str) -> None:
        """Every change between two nodes not compared before."""
        if not isinstance(old, Mapping) or not isinstance(new, Mapping):
            self.booleans(old, new, path)
            return
        self.annotations(old, new, path)
        if "$recursive" in old or "$recursive" in new:
            self.recursion(old, new, path)
            return
        lifted = self.lifted_union(old, new, path)
        if lifted:
            return
        nullability = self.types(old, new, path)
        self.enums(old, new, path, skip_null=nullability)
        self.bounds(old, new, path)
        self.strings(old, new, path)
        if _admits(old, "object") and _admits(new, "object"):
            self.objects(old, new, path)
        if _admits(old, "array") and _admits(new, "array"):
            self.arrays(old, new, path)
        for keyword in _UNIONS:
            self.unions(old, new, path, keyword)
        self.all_of(old, new, path)
        self.opaque(old, new, path)
        self.unknown(old, new, path)

    def booleans(self, old: Any, new: Any, path: str) -> None:
        """``true``/``false`` schemas (``{}`` is ``true``)."""
        old = {} if old is True else old
        new = {} if new is True else new
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            self.compare(old, new, path)
        elif new is False:
            self.add("constraint-added", path, old, new, f"{place(path)}: the schema became false: nothing is valid")
        elif old is False:
            self.add("constraint-removed", path, old, new, f"{place(path)}: the schema was false, now {_short(new)}")
        else:
            self.add("constraint-changed", path, old, new, f"{place(path)}: {_short(old)} -> {_short(new)}")

    def recursion(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        # Markers are compared by target (their depth), never by the name the definitions have.
        if old.get("$depth") != new.get("$depth") or ("$recursive" in old) != ("$recursive" in new):
            self.add(
                "constraint-changed",
                path,
                _body(old),
                _body(new),
                f"{place(path)}: the recursive structure changed ({_short(_body(old))} -> {_short(_body(new))})",
            )

    # -- annotations ---------------------------------------------------------------------------------------------

    def annotations(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        where = place(path)
        o, n = old.get("description", ABSENT), new.get("description", ABSENT)
        if _key(o) != _key(n):
            self.add("param-description-changed", path, o, n, f"{where}: description {_short(o)} -> {_short(n)}")
        for key, kind in (("title", "title-changed"), ("examples", "examples-changed")):
            o, n = old.get(key, ABSENT), new.get(key, ABSENT)
            if _key(o) != _key(n):
                self.add(kind, path, o, n, f"{where}: {key} {_short(o)} -> {_short(n)}")
        self.default(old, new, path)
        o, n = old.get("deprecated", False), new.get("deprecated", False)
        if n is True and o is not True:
            self.add("param-deprecated", path, o, n, f"{where} is marked deprecated")
        elif _key(o) != _key(n):
            self.add("annotation-changed", path, o, n, f"{where}: deprecated {_short(o)} -> {_short(n)}")
        for key in ("readOnly", "writeOnly", "$comment"):
            o, n = old.get(key, ABSENT), new.get(key, ABSENT)
            if _key(o) != _key(n):
                self.add("annotation-changed", path, o, n, f"{where}: {key} {_short(o)} -> {_short(n)}", keyword=key)

    def default(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        o, n = old.get("default", ABSENT), new.get("default", ABSENT)
        if _key(o) == _key(n):
            return
        kind = "default-added" if o is ABSENT else "default-removed" if n is ABSENT else "default-changed"
        self.add(kind, path, o, n, f"{place(path)}: default {_short(o)} -> {_short(n)}")

    # -- types and values ----------------------------------------------------------------------------------------

    def types(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> bool:
        """Type changes, null apart from the rest; returns whether null's admission changed."""
        o, n = _types(old), _types(new)
        if (o is None) != (n is None):  # an enum without a type admits the types of its values, not any type
            o, n = _types_or_values(old), _types_or_values(new)
        if o == n:
            return False
        where = place(path)
        shown = (sorted(o) if o is not None else "any", sorted(n) if n is not None else "any")
        if o is None or n is None:
            kind = "type-narrowed" if o is None else "type-widened"
            self.add(kind, path, shown[0], shown[1], f"{where}: type {shown[0]} -> {shown[1]}")
            return False
        nullability = ("null" in o) != ("null" in n)
        if nullability:
            kind = "became-nullable" if "null" in n else "became-non-nullable"
            self.add(kind, path, shown[0], shown[1], f"{where}: null {'allowed' if 'null' in n else 'refused'} now")
        o, n = o - {"null"}, n - {"null"}
        if o != n:
            kind = "type-widened" if _covers(n, o) else "type-narrowed" if _covers(o, n) else "type-changed"
            self.add(kind, path, sorted(o), sorted(n), f"{where}: type {sorted(o)} -> {sorted(n)}")
        return nullability

    def enums(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, *, skip_null: bool) -> None:
        o, n = old.get("enum"), new.get("enum")
        where = place(path)
        if o is None and n is None:
            return
        if o is None or n is None:
            kind = "enum-added" if o is None else "enum-removed"
            text = f"now one of {_short(n)}" if o is None else f"no longer limited to {_short(o)}"
            self.add(kind, path, o if o is not None else ABSENT, n if n is not None else ABSENT, f"{where}: {text}")
            return
        old_keys, new_keys = {_key(v) for v in o}, {_key(v) for v in n}
        removed = [v for v in o if _key(v) not in new_keys and not (skip_null and v is None)]
        added = [v for v in n if _key(v) not in old_keys and not (skip_null and v is None)]
        if removed:
            self.add("enum-value-removed", path, o, n, f"{where}: {_short(removed)} no longer allowed", values=removed)
        if added:
            self.add("enum-value-added", path, o, n, f"{where}: {_short(added)} now allowed", values=added)
        if (
            not removed
            and not added
            and [_key(v) for v in o if _key(v) in new_keys] != [_key(v) for v in n if _key(v) in old_keys]
        ):
            self.add("enum-reordered", path, o, n, f"{where}: enum order {_short(o)} -> {_short(n)}")

    def bounds(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        self.numeric(old, new, path, "maximum", "exclusiveMaximum", upper=True)
        self.numeric(old, new, path, "minimum", "exclusiveMinimum", upper=False)
        for keyword in (*_UPPER, *_LOWER):
            o, n = old.get(keyword), new.get(keyword)
            if keyword == "minContains" and "contains" in old and "contains" in new:
                # Beside contains, an absent minContains is 1, not no bound: removing minContains: 0 raises it to 1.
                o, n = (1 if o is None else o), (1 if n is None else n)
            if o != n:
                self.bound(
                    path, keyword, o, n, tighter=o is not None and n is not None and (n < o) == (keyword in _UPPER)
                )
        self.multiple(old, new, path)
        o, n = old.get("uniqueItems") is True, new.get("uniqueItems") is True
        if o != n:
            kind = "bound-tightened" if n else "bound-removed"
            self.add(kind, path, o, n, f"{place(path)}: uniqueItems {o} -> {n}", keyword="uniqueItems")

    def numeric(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, inclusive: str, exclusive: str, *,
                upper: bool) -> None:  # fmt: skip
        o = (old.get(inclusive), False) if inclusive in old else (old.get(exclusive), True)
        n = (new.get(inclusive), False) if inclusive in new else (new.get(exclusive), True)
        if o == n or (o[0] is None and n[0] is None):
            return
        keyword = (inclusive, exclusive)[n[1] if n[0] is not None else o[1]]
        tighter = False
        if o[0] is not None and n[0] is not None:
            value_tighter = n[0] < o[0] if upper else n[0] > o[0]
            tighter = value_tighter or (n[0] == o[0] and n[1] and not o[1])
        old_value = {(inclusive, exclusive)[o[1]]: o[0]} if o[0] is not None else None
        new_value = {(inclusive, exclusive)[n[1]]: n[0]} if n[0] is not None else None
        self.bound(path, keyword, old_value, new_value, tighter=tighter)

    def bound(self, path: str, keyword: str, old: Any, new: Any, *, tighter: bool) -> None:
        if old is None:
            kind = "bound-added"
        elif new is None:
            kind = "bound-removed"
        else:
            kind = "bound-tightened" if tighter else "bound-relaxed"
        shown_old, shown_new = _bound_text(keyword, old), _bound_text(keyword, new)
        self.add(
            kind,
            path,
            ABSENT if old is None else old,
            ABSENT if new is None else new,
            f"{place(path)}: {shown_old} -> {shown_new}",
            keyword=keyword,
        )

    def multiple(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        o, n = old.get("multipleOf"), new.get("multipleOf")
        if o == n:
            return
        # Every multiple of n is a multiple of o when n is a multiple of o: then NEW refuses more (tighter).
        divides = o is not None and n is not None and _ratio(n, o) is not None
        relaxes = o is not None and n is not None and _ratio(o, n) is not None
        tighter = (o is not None and n is not None) and (divides or not relaxes)
        self.bound(path, "multipleOf", o, n, tighter=tighter)

    def strings(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        for keyword in ("pattern", "format"):
            o, n = old.get(keyword), new.get(keyword)
            if o == n:
                continue
            kind = f"{keyword}-added" if o is None else f"{keyword}-removed" if n is None else f"{keyword}-changed"
            self.add(
                kind,
                path,
                ABSENT if o is None else o,
                ABSENT if n is None else n,
                f"{place(path)}: {keyword} {_short(o) if o is not None else 'none'} -> "
                f"{_short(n) if n is not None else 'none'}",
                keyword=keyword,
            )

    # -- objects -------------------------------------------------------------------------------------------------

    def objects(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        old_props, new_props = _mapping(old, "properties"), _mapping(new, "properties")
        old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
        removed = [name for name in old_props if name not in new_props]
        added = [name for name in new_props if name not in old_props]
        renamed = self.renames(old_props, new_props, old_required, new_required, removed, added)
        for old_name, new_name in renamed:
            removed.remove(old_name)
            added.remove(new_name)
            self.add(
                "param-renamed",
                f"{path}/properties/{pointer_token(new_name)}",
                old_name,
                new_name,
                f"{_child(path, old_name)} renamed to {new_name!r}: old calls send {old_name!r}",
            )
        new_open = _is_open(new.get("additionalProperties", True)) and "patternProperties" not in new
        for name in removed:
            self.removed(path, name, old_props[name], name in old_required, held=self.extra(new, name))
        for name in added:
            held = self.extra(old, name)
            self.added(path, name, new_props[name], name in new_required, held=held, new_open=new_open)
        for name in (name for name in new_props if name in old_props):
            self.compare(old_props[name], new_props[name], f"{path}/properties/{pointer_token(name)}")
        self.required(path, old_props, new_props, old_required, new_required)
        self.order(path, old_props, new_props)
        self.additional(old, new, path)
        self.keyed(old, new, path, "patternProperties")
        self.keyed(old, new, path, "dependentSchemas")
        self.dependent_required(old, new, path)
        for keyword in _OBJECT_CHILDREN:
            self.child(old, new, path, keyword)

    def renames(
        self,
        old_props: Mapping[str, Any],
        new_props: Mapping[str, Any],
        old_required: set[str],
        new_required: set[str],
        removed: Sequence[str],
        added: Sequence[str],
    ) -> list[tuple[str, str]]:
        """Removed and added names that are one parameter renamed.

        Same schema and required-ness, a similar name, and no other candidate on either side.
        """

        def alike(old_name: str, new_name: str) -> bool:
            return (
                same(_body(old_props[old_name]), _body(new_props[new_name]))
                and (old_name in old_required) == (new_name in new_required)
                and _similar_names(old_name, new_name)
            )

        pairs = []
        for new_name in added:
            candidates = [old_name for old_name in removed if alike(old_name, new_name)]
            if len(candidates) == 1 and [n for n in added if alike(candidates[0], n)] == [new_name]:
                pairs.append((candidates[0], new_name))
        return pairs

    def extra(self, node: Mapping[str, Any], name: str) -> tuple[str, Any]:
        """How an object holds a key it does not declare, and under which schema.

        ``closed`` (no value fits), ``open`` (any value does) or ``schema`` (``additionalProperties`` or the matching
        ``patternProperties`` decide; the schema is ``ABSENT`` when a pattern cannot be evaluated on the key, or
        ``unevaluatedProperties`` decides).
        """
        schemas = key_schemas(node, name)
        if schemas is None:  # a pattern that cannot be evaluated, or unevaluatedProperties
            return "schema", ABSENT
        held = schemas[0] if len(schemas) == 1 else {"allOf": schemas}
        if all(_is_open(schema) for schema in schemas):
            return "open", held
        if any(schema is False for schema in schemas) or self.inclusion.proves_empty(held):
            return "closed", held
        return "schema", held

    def removed(self, path: str, name: str, schema: Any, was_required: bool, *, held: tuple[str, Any]) -> None:
        where = f"{path}/properties/{pointer_token(name)}"
        param = f"{'required ' if was_required else ''}parameter {_child(path, name)}"
        how, extra = held
        if how == "open":
            kind, text = "param-removed-open", "removed from an open object: sent values are ignored"
        elif how == "closed":
            kind, text = "param-removed-closed", "removed from a closed object: calls sending it fail"
        else:
            kind = "param-removed-partly-open"
            text = f"removed; NEW admits it only as an extra key{_under(extra)}: old calls whose value it refuses fail"
        self.add(kind, where, schema, ABSENT, f"{param} {text}", name=name, was_required=was_required)

    def added(
        self, path: str, name: str, schema: Any, required: bool, *, held: tuple[str, Any], new_open: bool
    ) -> None:
        where = f"{path}/properties/{pointer_token(name)}"
        param = _child(path, name)
        how, extra = held
        if required and is_nullable(schema) and not new_open:
            kind, text = "param-optional-added-strict-style", "added as required and nullable (OpenAI-strict optional)"
        elif required and isinstance(schema, Mapping) and "default" in schema:
            kind, text = "param-required-added-with-default", f"added as required (default {_short(schema['default'])})"
        elif required:
            kind, text = "param-required-added", "added as required"
        elif how == "open":
            kind, text = "param-optional-added-open", "added as optional to an open object"
        elif how == "closed":
            kind, text = "param-optional-added-closed", "added as optional to a closed object"
        else:
            kind = "param-optional-added-partly-open"
            text = (
                f"added as optional where old calls could send it as an extra key{_under(extra)}: those whose value "
                "the new schema refuses fail"
            )
        self.add(kind, where, ABSENT, schema, f"parameter {param} {text}", name=name)

    def required(
        self,
        path: str,
        old_props: Mapping[str, Any],
        new_props: Mapping[str, Any],
        old_required: set[str],
        new_required: set[str],
    ) -> None:
        for name in sorted(old_required ^ new_required):
            in_both = name in old_props and name in new_props
            undeclared = name not in old_props and name not in new_props
            if not (in_both or undeclared):
                continue  # an added or removed property: reported with it
            where = f"{path}/properties/{pointer_token(name)}"
            if name in new_required:
                self.add("param-became-required", where, False, True, f"{_child(path, name)} is now required")
            else:
                self.add("param-became-optional", where, True, False, f"{_child(path, name)} is now optional")

    def order(self, path: str, old_props: Mapping[str, Any], new_props: Mapping[str, Any]) -> None:
        old_order = [name for name in old_props if name in new_props]
        new_order = [name for name in new_props if name in old_props]
        if old_order != new_order:
            self.add(
                "property-order-changed",
                path,
                old_order,
                new_order,
                f"{place(path)}: property order {', '.join(old_order)} -> {', '.join(new_order)}",
            )

    def additional(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        o, n = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if same(o, n, ordered=True):
            return
        if isinstance(o, Mapping) and isinstance(n, Mapping):
            self.compare(o, n, f"{path}/additionalProperties")
            return
        opened = n is True or (o is False and isinstance(n, Mapping))
        kind = "additional-properties-opened" if opened else "additional-properties-closed"
        text = "opened: unknown keys are accepted" if opened else "closed: keys beyond its properties are refused"
        self.add(kind, path, o, n, f"{place(path)}: additionalProperties {_short(o)} -> {_short(n)} ({text})")

    def keyed(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, keyword: str) -> None:
        o, n = _mapping(old, keyword), _mapping(new, keyword)
        for key in [*n, *(k for k in o if k not in n)]:
            where = f"{path}/{keyword}/{pointer_token(key)}"
            if key in o and key in n:
                self.compare(o[key], n[key], where)
            else:
                self.presence(where, f"{keyword} {key!r}", o.get(key, ABSENT), n.get(key, ABSENT))

    def presence(self, where: str, what: str, old: Any, new: Any) -> None:
        """A constraint present on one side only."""
        if old is ABSENT:
            self.add("constraint-added", where, old, new, f"{place(where)}: {what} added ({_short(new)})")
        else:
            self.add("constraint-removed", where, old, new, f"{place(where)}: {what} removed")

    def dependent_required(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        o, n = _mapping(old, "dependentRequired"), _mapping(new, "dependentRequired")
        for key in sorted(set(o) | set(n)):
            before, after = set(o.get(key) or ()), set(n.get(key) or ())
            if before == after:
                continue
            where = f"{path}/dependentRequired/{pointer_token(key)}"
            kind = (
                "constraint-added"
                if after > before
                else "constraint-removed"
                if after < before
                else "constraint-changed"
            )
            self.add(
                kind,
                where,
                sorted(before),
                sorted(after),
                f"{place(path)}: with {key!r}, required {sorted(before)} -> {sorted(after)}",
            )

    # -- arrays --------------------------------------------------------------------------------------------------

    def arrays(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        o_items, n_items = old.get("items", True), new.get("items", True)
        o_prefix, n_prefix = old.get("prefixItems") or [], new.get("prefixItems") or []
        # Positions past OLD's maxItems hold nothing an old call sent: what NEW admits there is its maxItems relaxed.
        most = old.get("maxItems")
        reach = most if isinstance(most, int) and not isinstance(most, bool) else None
        prefix = max(len(o_prefix), len(n_prefix))
        for index in range(prefix if reach is None else min(prefix, reach)):
            # A position outside a tuple's prefix is governed by items: compare against that.
            o = o_prefix[index] if index < len(o_prefix) else o_items
            n = n_prefix[index] if index < len(n_prefix) else n_items
            self.compare(o, n, f"{path}/prefixItems/{index}")
        if not same(o_items, n_items, ordered=True) and (reach is None or reach > prefix):
            self.compare(o_items, n_items, f"{path}/items")
        for keyword in _ARRAY_CHILDREN:
            self.child(old, new, path, keyword)

    def child(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, keyword: str) -> None:
        o, n = old.get(keyword, ABSENT), new.get(keyword, ABSENT)
        if o is ABSENT and n is ABSENT:
            return
        if o is ABSENT or n is ABSENT:
            self.presence(f"{path}/{keyword}", keyword, o, n)
        else:
            self.compare(o, n, f"{path}/{keyword}")

    # -- composition ---------------------------------------------------------------------------------------------

    def lifted_union(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> bool:
        """A bare union on one side only: the other side is a union of one branch. Returns whether it applied."""
        for keyword in _UNIONS:
            old_bare, new_bare = _bare_union(old, keyword), _bare_union(new, keyword)
            if old_bare == new_bare or (keyword in old and keyword in new):
                continue
            if (not old_bare and keyword in old) or (not new_bare and keyword in new):
                continue
            old_branches = old[keyword] if old_bare else [_body(old)]
            new_branches = new[keyword] if new_bare else [_body(new)]
            start = len(self.changes)
            self.branches(old_branches, new_branches, path, keyword)
            self.exclusive(old, new, path, keyword, start)
            return True
        return False

    def unions(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, keyword: str) -> None:
        o, n = old.get(keyword), new.get(keyword)
        if o is None and n is None:
            return
        if o is None or n is None:
            self.presence(f"{path}/{keyword}", keyword, o if o is not None else ABSENT, n if n is not None else ABSENT)
            return
        start = len(self.changes)
        self.branches(o, n, path, keyword)
        self.exclusive(old, new, path, keyword, start)

    def exclusive(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str, keyword: str, start: int) -> None:
        """``oneOf`` refuses a value that two branches accept: a branch added or widened can fail another's calls.

        The branch changes say only what each branch admits; unless one of them can already fail old calls, or OLD's
        node is proven included in NEW's, the union's exclusivity is a change of its own.
        """
        below = self.changes[start:]
        if keyword != "oneOf" or not below or any(_replay(change) in _CAN_FAIL for change in below):
            return
        if self.inclusion.proves_included(old, new):
            return
        self.add(
            "constraint-changed",
            f"{path}/oneOf",
            old.get("oneOf", ABSENT),
            new.get("oneOf", ABSENT),
            f"{place(path)}: a oneOf branch admits more: a value that matched one branch may now match two, which "
            "oneOf refuses",
            keyword="oneOf",
        )

    def branches(self, old: Sequence[Any], new: Sequence[Any], path: str, keyword: str) -> None:
        pairs, removed, added = _match(old, new)
        for old_index, new_index in pairs:
            self.compare(old[old_index], new[new_index], f"{path}/{keyword}/{new_index}")
        null = {"type": ["null"]}
        for index in removed:
            if _key(old[index]) == _key(null):
                self.add("became-non-nullable", path, old[index], ABSENT, f"{place(path)}: null refused now")
            elif keyword == "allOf":
                self.add("allof-member-removed", f"{path}/{keyword}/{index}", old[index], ABSENT,
                         f"{place(path)}: allOf member {_short(old[index])} removed")  # fmt: skip
            else:
                self.add("branch-removed", f"{path}/{keyword}/{index}", old[index], ABSENT,
                         f"{place(path)}: {keyword} branch {_short(old[index])} removed")  # fmt: skip
        for index in added:
            if _key(new[index]) == _key(null):
                self.add("became-nullable", path, ABSENT, new[index], f"{place(path)}: null allowed now")
            elif keyword == "allOf":
                self.add("allof-member-added", f"{path}/{keyword}/{index}", ABSENT, new[index],
                         f"{place(path)}: allOf member {_short(new[index])} added")  # fmt: skip
            else:
                self.add("branch-added", f"{path}/{keyword}/{index}", ABSENT, new[index],
                         f"{place(path)}: {keyword} branch {_short(new[index])} added")  # fmt: skip

    def all_of(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        o, n = old.get("allOf") or [], new.get("allOf") or []
        if o or n:
            self.branches(o, n, path, "allOf")

    def opaque(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        """``not``, ``if``/``then``/``else`` and references kept as written: inclusion is not decided here."""
        for keyword in _OPAQUE:
            o, n = old.get(keyword, ABSENT), new.get(keyword, ABSENT)
            if _eq(o, n):
                continue
            if o is ABSENT or n is ABSENT:
                self.presence(f"{path}/{keyword}", keyword, o, n)
            else:
                self.add("constraint-changed", f"{path}/{keyword}", o, n,
                         f"{place(path)}: {keyword} {_short(o)} -> {_short(n)}", keyword=keyword)  # fmt: skip

    def unknown(self, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
        for key in sorted((set(old) | set(new)) - _KNOWN):
            o, n = old.get(key, ABSENT), new.get(key, ABSENT)
            if not _eq(o, n):
                self.add(
                    "annotation-changed",
                    path,
                    o,
                    n,
                    f"{place(path)}: {key} {_short(o)} -> {_short(n)} (a keyword validators do not know: it does not "
                    "validate)",
                    keyword=key,
                )


def _replay(change: Change) -> str:
    return (change.checks or Checks()).replay


# Keywords followed by a name or an index in a schema pointer.
_NAMED: Final = frozenset({"properties", "patternProperties", "dependentSchemas", "prefixItems", *_UNIONS, "allOf"})


def _inside_one_of(path: str) -> bool:
    """Whether a schema pointer goes through a ``oneOf`` branch (a property called ``oneOf`` does not count)."""
    parts = path.split("/")[1:]
    position = 0
    while position < len(parts):
        if parts[position] == "oneOf":
            return True
        position += 2 if parts[position] in _NAMED else 1
    return False


def _mapping(node: Mapping[str, Any], keyword: str) -> Mapping[str, Any]:
    value = node.get(keyword)
    return value if isinstance(value, Mapping) else {}


def _bound_text(keyword: str, value: Any) -> str:
    if value is None:
        return f"no {keyword}"
    if isinstance(value, Mapping):  # a numeric bound: {"maximum": 5} or {"exclusiveMaximum": 5}
        return ", ".join(f"{key} {_short(item)}" for key, item in value.items())
    return f"{keyword} {_short(value)}"


def _bare_union(node: Mapping[str, Any], keyword: str) -> bool:
    return isinstance(node.get(keyword), list) and all(k == keyword or k in ANNOTATIONS for k in node)


def _ratio(value: Any, base: Any) -> int | None:
    """``value / base`` when it is a whole number, else None."""
    try:
        quotient = value / base
    except (TypeError, ZeroDivisionError):
        return None
    return int(quotient) if isinstance(quotient, float) and quotient.is_integer() else None


def _under(schema: Any) -> str:
    return "" if schema is ABSENT else f" under {_short(schema)}"


def _child(path: str, name: str) -> str:
    parent = place(path)
    return repr(name) if parent == "(arguments)" else f"{parent}.{name}"


def _match(old: Sequence[Any], new: Sequence[Any]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pairs of branches: equal ones, then equal without annotations, then of the same types, in order."""
    left, right = list(range(len(old))), list(range(len(new)))
    pairs: list[tuple[int, int]] = []
    tests: tuple[Callable[[Any, Any], bool], ...] = (
        same,
        lambda a, b: same(_body(a), _body(b)),
        lambda a, b: _signature(a) == _signature(b),
    )
    for alike in tests:
        for old_index in list(left):
            match = next((j for j in right if alike(old[old_index], new[j])), None)
            if match is not None:
                pairs.append((old_index, match))
                left.remove(old_index)
                right.remove(match)
    return pairs, left, right


def walk_parameters(tool: str, old: Any, new: Any, *, origin: str | None = None) -> list[Change]:
    """Every change between two normalised parameters schemas of one tool.

    Args:
        tool: The tool's name (put on every change).
        old: OLD's normalised parameters schema.
        new: NEW's normalised parameters schema.
        origin: Where NEW's definition is.

    Returns:
        The changes, in walk order.
    """
    walk = _Walk(tool, origin)
    walk.compare(old, new, "")
    return walk.changes
