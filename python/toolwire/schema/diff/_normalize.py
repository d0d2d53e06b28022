"""One spelling per meaning: a tool's parameters schema rewritten so that the differ compares meanings, not spellings.

``normalise(schema)`` returns a new schema (the input is never changed) in which:

- **local ``$ref`` are resolved** (``#``, ``#/$defs/X``, ``#/definitions/X``, any JSON pointer of the document) and
  ``$defs``/``definitions`` dropped. A reference met again inside its own expansion (a recursive schema) becomes the
  marker ``{"$recursive": "#/$defs/Node", "$depth": k}``: ``k`` counts the expansions between the marker and its
  target, so two markers mean the same target when their depths are equal, whatever the definitions are called (the
  differ compares ``$depth`` only). Expansions with no marker leaving them are computed once and shared. Remote
  references and pointers that resolve to nothing are kept as written and noted. Siblings of a ``$ref`` are merged
  into the target (2019-09 semantics: they apply together).
- **null is spelled one way**: ``nullable: true`` (OpenAPI), ``type: [T, "null"]`` and ``anyOf/oneOf [T, {type:
  null}]`` all become ``type: [T, "null"]`` (``null`` also added to an ``enum``); a union that cannot absorb its
  null branch keeps one ``{"type": ["null"]}`` branch, last.
- ``type`` is a sorted list; ``const`` is a one-value ``enum``; ``number`` with an integer ``multipleOf`` is
  ``integer`` (``multipleOf: 1`` dropped); ``integer`` beside ``number`` is dropped (``number`` covers it).
- **bounds**: draft-4 boolean ``exclusiveMaximum``/``exclusiveMinimum`` become numbers; of ``maximum`` and
  ``exclusiveMaximum`` only the tighter stays; on integer-only nodes exclusive bounds become inclusive ones.
- **unions of bare types** (``anyOf [{type: string}, {type: integer}]``) become one type list; a one-branch
  ``anyOf`` is its branch; nested bare ``anyOf`` are spliced.
- **trivial ``allOf``**: members that merge into the node without conflict are merged (one member, disjoint keys,
  equal values, ``required`` joined, ``type`` intersected); members that do not (conflicting keys, or a closed
  object beside another member's properties) stay in ``allOf``.
- **openness is explicit**: every object node gets ``additionalProperties`` (missing means open: ``true``, and a
  note says so, because xgrammar and llama.cpp read a missing one as closed), unless ``unevaluatedProperties`` that
  could not be rewritten governs its extra keys.
- no-op bounds (``minLength``/``minItems``/``minProperties`` 0, ``uniqueItems: false``) are dropped.
- **the array's end**: a ``false`` position ends the array, said by ``maxItems`` (``items: false`` is ``maxItems`` at
  the length of ``prefixItems``, so ``maxItems: 0`` and ``items: false`` are one spelling; a ``false`` in
  ``prefixItems`` cuts the prefix there); ``items`` past a ``maxItems`` the prefix already fills is dropped.
- **unevaluated keywords**: ``unevaluatedProperties``/``unevaluatedItems`` become ``additionalProperties``/``items``
  where nothing but the node's own keywords evaluates keys or items (no applicator, no ``contains``), and are dropped
  beside an ``additionalProperties``/``items`` of their node (which leaves nothing unevaluated).
- ``required`` is sorted and de-duplicated (dropped when empty); ``enum`` is de-duplicated (order kept: the differ
  reports a reorder); draft-4 ``items: [...]``/``additionalItems`` become ``prefixItems``/``items``; draft-7
  ``dependencies`` become ``dependentRequired``/``dependentSchemas``.
- with ``strict_optional=True``, OpenAI-strict's spelling of an optional parameter (required, but nullable) is read
  as optional: such names leave ``required``.

``normalise`` is idempotent: ``normalise(normalise(x)) == normalise(x)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final, TypeGuard
from urllib.parse import unquote

from toolwire._common._json import canonical, lookup, pointer_token, unescape_token

__all__ = [
    "ANNOTATIONS",
    "Normalised",
    "Note",
    "is_nullable",
    "json_key",
    "normalise",
    "normalise_with_notes",
    "same",
]

#: Keywords that describe and never validate.
ANNOTATIONS: Final = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
)

# Keywords holding one subschema, a mapping of them, or a list of them.
_ONE: Final = (
    *("additionalProperties", "items", "contains", "propertyNames", "not", "if", "then", "else"),
    *("unevaluatedItems", "unevaluatedProperties"),
)
_MAP: Final = ("properties", "patternProperties", "dependentSchemas")
_LIST: Final = ("prefixItems", "anyOf", "oneOf", "allOf")
_OBJECT_HINTS: Final = ("properties", "required", "patternProperties")
# What evaluates an object's keys or an array's items for unevaluatedProperties/unevaluatedItems, beside the
# applicators that pass their subschemas' evaluations up.
_EVALUATES_KEYS: Final = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties")
_EVALUATES_ITEMS: Final = ("prefixItems", "items", "contains", "unevaluatedItems")
# What a pointer into the schema reaches when it leads nowhere (None is a value a schema may hold).
_NOWHERE: Final = object()
# Keywords whose subschemas apply to the node's own instance, their evaluations counting as the node's.
_IN_PLACE: Final = ("allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies")
_APPLICATORS: Final = ("allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "$ref", "$recursive")
_NULL: Final = {"type": ["null"]}
# A DAG of references can expand exponentially; past this many expansions the rest stay references (noted).
_EXPANSION_BUDGET: Final = 20_000
_ROUNDS: Final = 4


@dataclass(frozen=True)
class Note:
    """Something the normaliser assumed or could not do, at a JSON pointer of the schema as it was read.

    Attributes:
        pointer: Where (in the schema as read, before references were resolved).
        kind: ``implicit-open``, ``remote-ref``, ``unresolved-ref``, ``recursive-ref`` or ``expansion-budget``.
        message: What it means for the diff.
    """

    pointer: str
    kind: str
    message: str


@dataclass(frozen=True)
class Normalised:
    """A normalised schema and the notes taken on the way."""

    schema: Any
    notes: tuple[Note, ...]


def json_key(value: Any) -> str:
    """A key equal for equal JSON values (``1 == 1.0``, ``true != 1``, object key order ignored)."""
    return canonical(_plain_numbers(value), allow_nan=True)


def same(first: Any, second: Any, *, ordered: bool = False, known: dict[tuple[int, int], bool] | None = None) -> bool:
    """Whether two JSON values are equal (``1 == 1.0``, ``true != 1``), optionally with the same key order.

    Pairs of containers already compared are remembered, so comparing schemas whose expansions are shared (the
    normaliser shares an expansion met twice) costs their size as stored, not as unfolded.

    Args:
        first: A JSON value.
        second: Another.
        ordered: Whether objects must also list their keys in the same order.
        known: Results of earlier comparisons to reuse (only while every value compared stays alive, as ids are
            the keys; one dict per ``ordered``).
    """
    return _same(first, second, ordered, {} if known is None else known)


def _same(first: Any, second: Any, ordered: bool, known: dict[tuple[int, int], bool]) -> bool:
    if first is second:
        return True
    kinds = (type(first), type(second))
    if kinds == (str, str):
        return bool(first == second)
    pair = (id(first), id(second))  # both stay alive for the whole comparison: ids are not reused
    if pair in known:
        return known[pair]
    if kinds == (dict, dict) or (isinstance(first, Mapping) and isinstance(second, Mapping)):
        equal = not (len(first) != len(second) or (ordered and list(first) != list(second))) and all(
            key in second and _same(value, second[key], ordered, known) for key, value in first.items()
        )
    elif isinstance(first, list) and isinstance(second, list):
        equal = len(first) == len(second) and all(
            _same(a, b, ordered, known) for a, b in zip(first, second, strict=True)
        )
    elif isinstance(first, bool) or isinstance(second, bool):
        return type(first) is type(second) and first == second
    elif isinstance(first, (int, float)) and isinstance(second, (int, float)):
        return first == second
    else:
        return type(first) is type(second) and bool(first == second)
    known[pair] = equal
    return equal


def _plain_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return int(value)
    if isinstance(value, Mapping):
        return {str(key): _plain_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain_numbers(item) for item in value]
    return value


def _untoken(part: str) -> str:
    return unescape_token(unquote(part))


def is_nullable(node: Any) -> bool:
    """Whether a normalised node explicitly admits ``null`` (by type, enum, or a null branch)."""
    if not isinstance(node, Mapping):
        return False
    types = node.get("type")
    if isinstance(types, list) and "null" in types:
        return "enum" not in node or None in node["enum"]
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        return True
    return any(_NULL in (node.get(key) or []) for key in ("anyOf", "oneOf"))


class _Normaliser:
    """One document's normalisation: the root for references, the stack of open expansions, the notes."""

    def __init__(self, root: Any, strict_optional: bool) -> None:
        self.root = root
        self.strict_optional = strict_optional
        self.notes: list[Note] = []
        self.stack: list[str] = []  # target pointers of the expansions in progress
        self.marked: list[bool] = []  # per open expansion: whether a recursion marker was written inside it
        self.memo: dict[tuple[str, bool], Any] = {}
        self.by_id: dict[tuple[int, bool], tuple[Any, Any]] = {}
        # Whether the node being normalised is applied in place under an unevaluatedProperties, whose keys it
        # evaluates: an additionalProperties made explicit there would evaluate every key and silence that keyword.
        self.evaluating = False
        self.markers = 0
        self.expansions = 0

    def note(self, pointer: str, kind: str, message: str) -> None:
        self.notes.append(Note(pointer, kind, message))

    # -- references ----------------------------------------------------------------------------------------------

    def lookup(self, target: str) -> tuple[bool, Any]:
        node = lookup(self.root, [_untoken(part) for part in target.split("/")[1:]], _NOWHERE)
        return (False, None) if node is _NOWHERE else (True, node)

    def reference(self, ref: str, pointer: str) -> Any:
        """The normalised target of a ``$ref``, a recursion marker, or None when it is kept as written."""
        if not ref.startswith("#"):
            self.note(pointer, "remote-ref", f"{ref} is not a local reference; it is compared as written")
            return None
        target = ref[1:]
        if target in self.stack:
            level = self.stack.index(target)
            self.marked = [True] * len(self.marked)
            self.markers += 1
            self.note(pointer, "recursive-ref", f"{ref} refers to itself; compared by target, not expanded again")
            return {"$recursive": ref, "$depth": len(self.stack) - level}
        if (target, self.evaluating) in self.memo:
            return self.memo[target, self.evaluating]
        found, node = self.lookup(target)
        if not found:
            self.note(pointer, "unresolved-ref", f"{ref} points to nothing in the schema; compared as written")
            return None
        self.expansions += 1
        if self.expansions > _EXPANSION_BUDGET:
            self.note(pointer, "expansion-budget", f"{ref}: too many references to expand; compared as written")
            return None
        return self.expand(target, node, pointer)

    def expand(self, target: str, node: Any, pointer: str) -> Any:
        self.stack.append(target)
        self.marked.append(False)
        try:
            result = self.node(node, target or pointer)
        finally:
            self.stack.pop()
            marked = self.marked.pop()
        # Only an expansion without markers is the same wherever it is met (a marker's depth depends on the
        # expansions around it, and a mutually recursive pair unfolds from whichever side is met first).
        if not marked:
            self.memo[target, self.evaluating] = result
        return result

    # -- nodes ---------------------------------------------------------------------------------------------------

    def node(self, node: Any, pointer: str) -> Any:
        if not isinstance(node, Mapping):
            return node
        if "$recursive" in node:
            return dict(node)
        # A subtree met again (a schema that already shares subtrees, as a normalised one does) is normalised
        # once, unless a recursion marker was written inside it (its depth depends on where it is met).
        seen = self.by_id.get((id(node), self.evaluating))
        if seen is not None and seen[0] is node:
            return seen[1]
        markers = self.markers
        result = self.fresh(node, pointer)
        if self.markers == markers:
            self.by_id[id(node), self.evaluating] = (node, result)
        return result

    @contextmanager
    def context(self, evaluating: bool) -> Iterator[None]:
        """Normalise what runs inside as applied in place under an unevaluatedProperties (or not)."""
        saved, self.evaluating = self.evaluating, evaluating
        try:
            yield
        finally:
            self.evaluating = saved

    def fresh(self, node: Mapping[str, Any], pointer: str) -> Any:
        ref = node.get("$ref")
        siblings = {key: value for key, value in node.items() if key not in ("$ref", "$defs", "definitions")}
        if isinstance(ref, str):
            with self.context(self.evaluating or "unevaluatedProperties" in siblings):
                target = self.reference(ref, f"{pointer}/$ref")
            if target is None:
                return {"$ref": ref, **self.children(siblings, pointer)} if siblings else {"$ref": ref}
            if not siblings:
                return target
            return self.merged_ref(target, self.canonical(self.children(siblings, pointer), pointer))
        return self.canonical(self.children(siblings, pointer), pointer)

    def merged_ref(self, target: Any, siblings: dict[str, Any]) -> Any:
        """A ``$ref`` with siblings: both apply; the siblings' annotations describe this place."""
        if not isinstance(target, Mapping) or "$recursive" in target:
            return {**siblings, "allOf": [target]} if _validating(siblings) else {**siblings, **_marker(target)}
        annotations = {key: value for key, value in siblings.items() if key in ANNOTATIONS}
        rest = {key: value for key, value in siblings.items() if key not in ANNOTATIONS}
        base = {key: value for key, value in target.items() if key not in annotations}
        merged = _merge(base, rest, inner_first=True) if rest else dict(base)
        if merged is None:
            return {**annotations, "allOf": [dict(base), rest]}
        return {**annotations, **merged}

    def children(self, node: Mapping[str, Any], pointer: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        in_place = self.evaluating or "unevaluatedProperties" in node
        for key, value in node.items():
            with self.context(in_place and key in _IN_PLACE):
                self.child(out, node, key, value, f"{pointer}/{pointer_token(key)}")
        return out

    def child(self, out: dict[str, Any], node: Mapping[str, Any], key: str, value: Any, where: str) -> None:
        """``node[key]`` normalised into ``out`` (draft-4 tuples and draft-7 dependencies respelled)."""
        if key in _ONE and key == "items" and isinstance(value, list):
            out["prefixItems"] = [self.node(item, f"{where}/{i}") for i, item in enumerate(value)]
        elif key == "additionalItems":
            if isinstance(node.get("items"), list):
                out["items"] = self.node(value, where)
        elif key in _ONE:
            out[key] = self.node(value, where)
        elif key in _MAP and isinstance(value, Mapping):
            out[key] = {name: self.node(item, f"{where}/{pointer_token(name)}") for name, item in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [self.node(item, f"{where}/{i}") for i, item in enumerate(value)]
        elif key == "dependencies" and isinstance(value, Mapping):
            self.dependencies(out, value, where)
        else:
            out[key] = value

    def dependencies(self, out: dict[str, Any], value: Mapping[str, Any], where: str) -> None:
        for name, item in value.items():
            if isinstance(item, list):
                out.setdefault("dependentRequired", {})[name] = item
            else:
                out.setdefault("dependentSchemas", {})[name] = self.node(item, f"{where}/{pointer_token(name)}")

    def canonical(self, node: dict[str, Any], pointer: str) -> dict[str, Any]:
        # A merge can bring keys that an earlier step rewrites (a branch's number beside the node's multipleOf):
        # the steps run until nothing changes, which is what makes normalise idempotent.
        for _ in range(_ROUNDS):
            before = node
            node = _nullable_and_const(node)
            node = _numbers(node)
            node = _unions(node)
            node = _all_of(node)
            node = _unevaluated(node)
            node = _tail(node)
            node = _required(node, self.strict_optional)
            if same(node, before, ordered=True):
                break
        return self.openness(node, pointer)

    def openness(self, node: dict[str, Any], pointer: str) -> dict[str, Any]:
        # Beside an unevaluatedProperties (its own, or one it applies under) an explicit additionalProperties would
        # evaluate every key and silence that keyword.
        if "additionalProperties" in node or "unevaluatedProperties" in node or self.evaluating:
            return node
        if not _is_object(node):
            return node
        self.note(
            pointer,
            "implicit-open",
            "additionalProperties is not set: JSON Schema reads the object as open (xgrammar and llama.cpp as "
            "closed); write it out",
        )
        return {**node, "additionalProperties": True}


def _marker(target: Any) -> dict[str, Any]:
    return dict(target) if isinstance(target, Mapping) else {"allOf": [target]}


def _validating(node: Mapping[str, Any]) -> bool:
    return any(key not in ANNOTATIONS for key in node)


def _is_object(node: Mapping[str, Any]) -> bool:
    types = node.get("type")
    if isinstance(types, list):
        return "object" in types
    return types is None and any(key in node for key in _OBJECT_HINTS)


def _types(value: Any) -> list[Any] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return sorted({item for item in value if isinstance(item, str)}) + [i for i in value if not isinstance(i, str)]
    return None


def _dedupe(values: Sequence[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for value in values:
        key = json_key(value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _nullable_and_const(node: dict[str, Any]) -> dict[str, Any]:
    node = dict(node)
    nullable = node.pop("nullable", None) is True
    if "const" in node:
        const = node.pop("const")
        enum = node.get("enum")
        node["enum"] = [const] if not isinstance(enum, list) or json_key(const) in map(json_key, enum) else []
    types = _types(node.get("type"))
    if types is not None:
        if nullable and "null" not in types:
            types = sorted([*types, "null"])
        node["type"] = types
    if isinstance(node.get("enum"), list):
        enum = _dedupe(node["enum"])
        if nullable and None not in enum:
            enum.append(None)
        node["enum"] = enum
    return node


def _integral(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()


def _number(value: Any) -> Any:
    return int(value) if _integral(value) else value


def _numbers(node: dict[str, Any]) -> dict[str, Any]:
    node = dict(node)
    types = _number_types(node)
    for bound in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf"):
        if bound in node:
            node[bound] = _number(node[bound])
    for no_op in ("minLength", "minItems", "minProperties"):
        if node.get(no_op) == 0 and not isinstance(node.get(no_op), bool):
            del node[no_op]
    if node.get("uniqueItems") is False:
        del node["uniqueItems"]
    _boolean_exclusive(node, "exclusiveMaximum", "maximum")
    _boolean_exclusive(node, "exclusiveMinimum", "minimum")
    _tighter(node, "maximum", "exclusiveMaximum", upper=True)
    _tighter(node, "minimum", "exclusiveMinimum", upper=False)
    if isinstance(types, list) and set(types) - {"null"} == {"integer"}:
        _inclusive_integers(node)
    return node


def _number_types(node: dict[str, Any]) -> list[str] | None:
    """``integer`` for ``number`` with an integer ``multipleOf`` (``1`` dropped), ``number`` covering ``integer``."""
    types = node.get("type")
    if not isinstance(types, list) or not all(isinstance(name, str) for name in types):
        return None  # no type, or not JSON Schema types: compared as written
    step: Any = node.get("multipleOf")
    whole = _integral(step)
    if "number" in types and whole and step >= 1:
        types = sorted({*types} - {"number"} | {"integer"})
    if "number" in types and "integer" in types:
        types = [name for name in types if name != "integer"]
    node["type"] = types
    if "integer" in types and whole:
        node["multipleOf"] = int(step)
        if step == 1:
            del node["multipleOf"]
    return types


def _boolean_exclusive(node: dict[str, Any], exclusive: str, inclusive: str) -> None:
    flag = node.get(exclusive)
    if isinstance(flag, bool):
        del node[exclusive]
        if flag and inclusive in node:
            node[exclusive] = node.pop(inclusive)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tighter(node: dict[str, Any], inclusive: str, exclusive: str, *, upper: bool) -> None:
    if not (_is_number(node.get(inclusive)) and _is_number(node.get(exclusive))):
        return
    closed, open_ = node[inclusive], node[exclusive]
    exclusive_wins = open_ <= closed if upper else open_ >= closed
    del node[inclusive if exclusive_wins else exclusive]


def _inclusive_integers(node: dict[str, Any]) -> None:
    if _is_number(node.get("exclusiveMaximum")):
        node["maximum"] = math.ceil(node.pop("exclusiveMaximum")) - 1
    if _is_number(node.get("exclusiveMinimum")):
        node["minimum"] = math.floor(node.pop("exclusiveMinimum")) + 1
    if _is_number(node.get("maximum")):
        node["maximum"] = math.floor(node["maximum"])
    if _is_number(node.get("minimum")):
        node["minimum"] = math.ceil(node["minimum"])


def _only_annotations(node: Any) -> bool:
    return isinstance(node, Mapping) and all(key in ANNOTATIONS for key in node)


def _is_null(node: Any) -> bool:
    if not isinstance(node, Mapping) or node.get("type") != ["null"]:
        return False
    return _only_annotations({key: value for key, value in node.items() if key != "type"})


def _bare_types(node: Any) -> list[str] | None:
    if isinstance(node, Mapping) and set(node) == {"type"} and isinstance(node["type"], list):
        return [name for name in node["type"] if isinstance(name, str)]
    return None


def _add_null(node: dict[str, Any]) -> dict[str, Any]:
    node = dict(node)
    if isinstance(node.get("type"), list) and "null" not in node["type"]:
        node["type"] = sorted([*node["type"], "null"])
    if isinstance(node.get("enum"), list) and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def _unions(node: dict[str, Any]) -> dict[str, Any]:
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list):
            node = _union(node, key, branches)
    return node


def _union(node: dict[str, Any], key: str, branches: list[Any]) -> dict[str, Any]:
    if key == "anyOf":  # nested bare anyOf: one union
        branches = [inner for b in branches for inner in (b["anyOf"] if _bare_any_of(b) else [b])]
    nulls = [b for b in branches if _is_null(b)]
    rest = [b for b in branches if not _is_null(b)]
    base = {k: v for k, v in node.items() if k != key}
    if key == "anyOf":  # a repeated branch of oneOf makes both fail; of anyOf it says nothing
        rest = _dedupe(rest)
    elif nulls and (len(nulls) > 1 or any(_admits_null(branch) is not False for branch in rest)):
        return {**base, key: rest + nulls}  # null would match two branches, which oneOf refuses: kept as written
    if nulls and not rest:
        rest, nulls = [dict(_NULL)], []
    bare = [_bare_types(b) for b in rest]
    if rest and all(types is not None for types in bare) and (key == "anyOf" or len(rest) == 1):
        union = sorted({name for types in bare for name in types or ()} | ({"null"} if nulls else set()))
        merged = _merge(base, {"type": union})
        if merged is not None:
            return merged
    if len(rest) == 1 and isinstance(rest[0], Mapping):
        merged = _absorb(base, rest[0])
        # base and (branch or null) is (base and branch) or null only where the base itself admits null.
        admits = _admits_null(base) if nulls else False
        if merged is not None and admits is not None:
            return _add_null(merged) if admits else merged
    return {**base, key: rest + ([dict(_NULL)] if nulls else [])}


def _admits_null(node: Any) -> bool | None:
    """Whether a node's own keywords admit null (None: a composite keyword decides)."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, Mapping) or any(
        key in node for key in ("allOf", "anyOf", "oneOf", "not", "if", "$ref", "$recursive")
    ):
        return None
    types, enum = node.get("type"), node.get("enum")
    return not (isinstance(types, list) and "null" not in types) and not (isinstance(enum, list) and None not in enum)


def _bare_any_of(node: Any) -> bool:
    return isinstance(node, Mapping) and set(node) == {"anyOf"} and isinstance(node["anyOf"], list)


def _absorb(base: dict[str, Any], branch: Mapping[str, Any]) -> dict[str, Any] | None:
    """The one live branch of a union taken into the node, when that says the same (no composite, no clash)."""
    if any(key in branch for key in ("anyOf", "oneOf", "allOf", "not", "if", "$recursive", "$ref")):
        return None
    if "type" not in branch and "enum" not in branch:
        return None  # nothing to add null to: keep the union as written
    return _merge(base, _outer_wins(base, branch))


def _outer_wins(base: Mapping[str, Any], inner: Mapping[str, Any]) -> dict[str, Any]:
    """``inner`` without the annotations ``base`` already has: the place's own title and description describe it."""
    return {key: value for key, value in inner.items() if not (key in ANNOTATIONS and key in base)}


def _merge(first: Mapping[str, Any], second: Mapping[str, Any], *, inner_first: bool = False) -> dict[str, Any] | None:
    """The conjunction of two schemas as one node, or None when that cannot be written without ``allOf``.

    One of them is a node, the other a subschema it applies in place (a member, a branch, a reference's target):
    ``second`` unless ``inner_first``.
    """
    inner, outer = (first, second) if inner_first else (second, first)
    if _closes_over(first, second) or _closes_over(second, first) or _sees_more(inner, outer):
        return None
    out = dict(first)
    for key, value in second.items():
        if key not in out or same(out[key], value):
            out[key] = value
            continue
        joined = _join(key, out[key], value)
        if joined is None:
            return None
        out[key] = joined
    return out


def _closes_over(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """Whether ``first`` restricts extra keys that ``second`` declares (merging would then admit them)."""
    closes = first.get("additionalProperties", True) is not True or "patternProperties" in first
    declared = set(second.get("properties") or ()) - set(first.get("properties") or ())
    return closes and bool(declared)


def _sees_more(inner: Mapping[str, Any], outer: Mapping[str, Any]) -> bool:
    """Whether an unevaluated keyword of ``inner`` would, merged, also see what ``outer`` evaluates.

    The outer node's own unevaluated keywords already see what the subschemas it applies in place evaluate.
    """
    if "unevaluatedProperties" in inner and any(key in outer for key in _EVALUATES_KEYS):
        return True
    return "unevaluatedItems" in inner and any(key in outer for key in _EVALUATES_ITEMS)


def _join(key: str, first: Any, second: Any) -> Any:
    if key == "required" and isinstance(first, list) and isinstance(second, list):
        return sorted({*first, *second})
    if key == "type" and isinstance(first, list) and isinstance(second, list):
        both = sorted(set(first) & set(second) | _integer_overlap(first, second))
        return both or None
    if key == "properties" and isinstance(first, Mapping) and isinstance(second, Mapping):
        if any(not same(first[name], second[name]) for name in set(first) & set(second)):
            return None
        return {**first, **second}
    return None


def _integer_overlap(first: list[Any], second: list[Any]) -> set[str]:
    if ("integer" in first and "number" in second) or ("number" in first and "integer" in second):
        return {"integer"}
    return set()


def _all_of(node: dict[str, Any]) -> dict[str, Any]:
    members = node.get("allOf")
    if not isinstance(members, list):
        return node
    out = {key: value for key, value in node.items() if key != "allOf"}
    kept = []
    for member in members:
        if member is True or member == {}:
            continue
        merged = _merge(out, _outer_wins(out, member)) if isinstance(member, Mapping) and _mergeable(member) else None
        if merged is None:
            kept.append(member)
        else:
            out = _unions(_numbers(merged))
    if kept:
        out["allOf"] = kept
    return out


def _mergeable(member: Mapping[str, Any]) -> bool:
    return "$recursive" not in member and "$ref" not in member


def _unevaluated(node: dict[str, Any]) -> dict[str, Any]:
    """``unevaluatedProperties``/``unevaluatedItems`` as ``additionalProperties``/``items`` where that says the same.

    Where the node itself evaluates every key (``additionalProperties``) or every item past the prefix (``items``),
    the unevaluated keyword constrains nothing. Where no applicator or ``contains`` could evaluate more than the
    node's own keywords, it applies to exactly what ``additionalProperties``/``items`` would.
    """
    applied = any(key in node for key in _APPLICATORS)
    for unevaluated, additional, others in (
        ("unevaluatedProperties", "additionalProperties", ()),
        ("unevaluatedItems", "items", ("contains",)),
    ):
        if unevaluated not in node:
            continue
        if additional in node:
            node = {key: value for key, value in node.items() if key != unevaluated}
        elif not applied and not any(key in node for key in others):
            node = {(additional if key == unevaluated else key): value for key, value in node.items()}
    return node


def _tail(node: dict[str, Any]) -> dict[str, Any]:
    """Where an array must end, said by ``maxItems`` alone.

    A ``false`` position (in ``prefixItems``, or every position past it under ``items: false``) admits no array that
    long: the prefix stops before it and ``maxItems`` says the length. ``items`` past a ``maxItems`` that the prefix
    already fills constrains nothing.
    """
    prefix = node.get("prefixItems")
    prefix = prefix if isinstance(prefix, list) else []
    end = next((index for index, item in enumerate(prefix) if item is False), None)
    if end is None and node.get("items") is False:
        end = len(prefix)
    if end is not None:
        most = node.get("maxItems")
        node = {key: value for key, value in node.items() if key not in ("items", "prefixItems", "maxItems")}
        if end:
            node["prefixItems"] = prefix[:end]
        node["maxItems"] = min(most, end) if _is_number(most) else end
        prefix = prefix[:end]
    most = node.get("maxItems")
    if "items" in node and _is_number(most) and most <= len(prefix):
        node = {key: value for key, value in node.items() if key != "items"}
    return node


def _required(node: dict[str, Any], strict_optional: bool) -> dict[str, Any]:
    required = node.get("required")
    if not isinstance(required, list):
        return node
    names = sorted({name for name in required if isinstance(name, str)})
    if strict_optional:
        properties = node.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        names = [name for name in names if not is_nullable(properties.get(name))]
    # Rewritten in place: a key moved to the end would make a second pass reorder it.
    return {key: names if key == "required" else value for key, value in node.items() if key != "required" or names}


def normalise_with_notes(schema: Any, *, strict_optional: bool = False) -> Normalised:
    """Normalise a parameters schema (see the module docstring) and say what was assumed.

    Args:
        schema: A JSON Schema (a mapping or a boolean); not changed.
        strict_optional: Read OpenAI-strict's "required but nullable" as optional.

    Returns:
        The normalised schema and the notes (implicit openness, references kept as written, recursion).
    """
    normaliser = _Normaliser(schema, strict_optional)
    result = normaliser.expand("", schema, "")
    return Normalised(result, tuple(normaliser.notes))


def normalise(schema: Any, *, strict_optional: bool = False) -> Any:
    """The normalised schema alone (see ``normalise_with_notes``)."""
    return normalise_with_notes(schema, strict_optional=strict_optional).schema
