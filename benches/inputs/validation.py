"""The validation workload: calls given as JSON text, checked against the real BFCL schemas.

The schemas are ``../shared/corpora/tool-schemas/bfcl_v4_jsonschema.jsonl`` (BFCL v4's function definitions with
their types mapped to JSON Schema; every line passes Draft 2020-12 ``check_schema``). Names repeat across lines (a
function redefined by another question, 542 names), and a registry takes each name once. The tools are every
distinct (name, parameters) pair of the file, in file order (3462 of the 3519 lines; the others differ from an
earlier line in their description only), the second and later schemas of a name renamed ``name__v2``,
``name__v3``... so that every real schema is in the one registry (taking only the first of each name would leave
1410 schemas out, among them every ``additionalProperties`` of the corpus). ``skip_if_absent`` skips cleanly when
the corpora are not beside the repository, as the tests do.

A workload of ``n`` calls is ``(name, json_text)`` pairs drawn with a seeded ``random.Random``: a tool chosen
uniformly, then arguments generated from its schema by ``arguments`` (every required property and each optional
one with probability 1/2; strings of a few words or an ``enum`` member; integers and numbers within
``minimum``/``maximum``; booleans; arrays of 0-3 items, within ``minItems``/``maxItems``; objects recursively, to a
bounded depth; a branch of ``anyOf``/``oneOf``; a string for anything untyped), written by ``json.dumps`` as a
model would send them. About ``INVALID_SHARE`` of the calls are then broken in one of the ways models break
calls (``KINDS``):

- ``number-as-string``: an integer or number property (at any depth) sent as a string, ``"42"`` for ``42``;
- ``missing-required``: a required top-level property left out;
- ``enum-out-of-range``: a value outside its ``enum`` (a near miss such as ``"Celsius"`` for ``"celsius"``);
- ``unexpected-property``: a property the schema rejects: a new name where ``additionalProperties`` is ``false``,
  or a value breaking an ``additionalProperties`` schema. (No BFCL schema says ``additionalProperties: false``; the
  ``cookies``/``headers`` of 11 ``requests.get`` variants say ``{"type": "string"}``, so in this corpus the kind is
  a non-string value there.)

An invalid call draws its kind uniformly, then a tool whose schema allows that kind (``breakable``), then arguments
until they do (an optional number left out cannot be sent as a string). ``Workload.valid`` is what each call is by
construction; ``test_bench_validation.py::test_workload_is_what_it_says`` confirms it with Python's ``jsonschema``
(each broken call failing on the keyword its kind means). The schemas of the reassembly
grid's calls (``grid_registry``) live here too; who validates is ``contenders.lineups.VALIDATION``.

The recursive union of issue 15 (``RECURSIVE_TOOLS``, ``tree``): ``Node = anyOf[{kind: folder, children: [Node]},
{kind: group, children: [Node]}]``, and a tree of it with one bad leaf. A search that lists every branch's errors
(``jsonschema``, ``jsonschema-rs``) visits 2**depth pairs; ``toolwire`` judges each (subschema, value) pair once and
follows the branch each node's tag names, so it finds the leaf in time linear in the depth (``leaf`` is its pointer).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
CORPORA = REPOSITORY.parent / "shared" / "corpora"
SCHEMAS = CORPORA / "tool-schemas" / "bfcl_v4_jsonschema.jsonl"

SEED = 20_250_301
CALLS = 100_000
SMALL = 2_000
INVALID_SHARE = 0.1
MAX_DEPTH = 4  # object nesting generated below the arguments object; deeper objects get their required members only
KINDS = ("number-as-string", "missing-required", "enum-out-of-range", "unexpected-property")

_WORDS = (
    "alpha beta gamma delta report quarter revenue growth user account paris london tokyo berlin river north "
    "south blue green red apple orange data model stock price weather sales order ticket shipping express"
).split()

Json = Any
Definition = dict[str, Any]


# --- the schemas ---------------------------------------------------------------------------------------------------


def available() -> bool:
    return SCHEMAS.is_file()


def skip_if_absent() -> None:
    """Skip the calling test cleanly when the shared corpora are not beside the repository."""
    if not available():
        import pytest

        pytest.skip(f"{SCHEMAS} is absent (the shared corpora live beside the repository in ../shared)")


@cache
def tools() -> tuple[Definition, ...]:
    """Every distinct (name, parameters) of the file, in file order, each name made unique (see the module doc)."""
    seen: set[tuple[str, str]] = set()
    versions: dict[str, int] = {}
    found: list[Definition] = []
    for line in SCHEMAS.read_text(encoding="utf-8").splitlines():
        definition = json.loads(line)
        name = definition["name"]
        key = (name, json.dumps(definition["parameters"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        versions[name] = versions.get(name, 0) + 1
        if versions[name] > 1:
            definition = {**definition, "name": f"{name}__v{versions[name]}"}
        found.append(definition)
    return tuple(found)


# --- arguments from a schema ---------------------------------------------------------------------------------------


def _words(rng: random.Random, low: int = 1, high: int = 4) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _type_of(schema: dict[str, Any], rng: random.Random) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        return rng.choice(kind) if kind else None
    return kind


def _bounds(schema: dict[str, Any], width: float) -> tuple[float, float]:
    """The closed range a generated number keeps to (exclusive bounds moved in by 1)."""
    low = schema.get("minimum", schema["exclusiveMinimum"] + 1 if "exclusiveMinimum" in schema else None)
    high = schema.get("maximum", schema["exclusiveMaximum"] - 1 if "exclusiveMaximum" in schema else None)
    if low is None:
        low = 0 if high is None or high >= width else high - width
    if high is None:
        high = low + width
    return low, high


def _integer(schema: dict[str, Any], rng: random.Random) -> int:
    low, high = _bounds(schema, 100)
    return rng.randint(math.ceil(low), math.floor(high))


def _number(schema: dict[str, Any], rng: random.Random) -> float | int:
    low, high = _bounds(schema, 1000)
    if rng.random() < 0.3 and math.ceil(low) <= math.floor(high):  # models often send a whole number
        return rng.randint(math.ceil(low), math.floor(high))
    return min(max(round(rng.uniform(low, high), 2), low), high)


class Unsatisfiable(ValueError):
    """No value fits the schema: an ``enum`` none of whose members has the declared ``type``.

    (31 properties of these schemas: ``{"type": "boolean", "enum": ["True", "False"]}`` (18),
    ``{"type": "integer", "enum": ["1", "2"]}`` (9), ``{"type": "array", "enum": ["temperature", ...]}`` (4).
    Such an optional property is left out; the 3 tools where one is required are never used.)
    """


_JSON_TYPES: dict[str, Callable[[Json], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _has_type(value: Json, schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind is None:
        return True
    kinds = kind if isinstance(kind, list) else [kind]
    return any(_JSON_TYPES.get(name, lambda _: True)(value) for name in kinds)


def arguments(schema: Json, rng: random.Random, depth: int = 0) -> Json:
    """A value valid under ``schema`` (for the keywords BFCL uses; see the module docstring).

    Raises:
        Unsatisfiable: A required part of ``schema`` admits no value.
    """
    if not isinstance(schema, dict):
        return _words(rng)
    if "enum" in schema:
        options = [option for option in schema["enum"] if _has_type(option, schema)]
        if not options:
            raise Unsatisfiable(schema)
        return json.loads(json.dumps(rng.choice(options)))
    if "const" in schema:
        return json.loads(json.dumps(schema["const"]))
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return arguments(rng.choice(schema[combinator]), rng, depth)
    kind = _type_of(schema, rng)
    if kind == "object" or (kind is None and "properties" in schema):
        return _object(schema, rng, depth)
    if kind == "array":
        low = schema.get("minItems", 0)
        high = schema.get("maxItems", max(low, 3))
        return [
            arguments(schema.get("items", {"type": "string"}), rng, depth + 1) for _ in range(rng.randint(low, high))
        ]
    if kind == "integer":
        return _integer(schema, rng)
    if kind == "number":
        return _number(schema, rng)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if schema.get("format") == "date":
        return f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return _words(rng)


def _object(schema: dict[str, Any], rng: random.Random, depth: int) -> dict[str, Json]:
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    value: dict[str, Json] = {}
    for key, subschema in properties.items():
        if key in required:
            value[key] = arguments(subschema, rng, depth + 1)
        elif depth < MAX_DEPTH and rng.random() < 0.5:
            try:
                value[key] = arguments(subschema, rng, depth + 1)
            except Unsatisfiable:
                pass
    for key in required - value.keys():  # required but not described: anything goes
        value[key] = _words(rng)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and depth < MAX_DEPTH:
        for _ in range(rng.randint(0 if properties else 1, 2)):
            value.setdefault(rng.choice(_WORDS) + "_" + rng.choice(_WORDS), arguments(extra, rng, depth + 1))
    elif not properties and extra is None and depth < MAX_DEPTH and rng.random() < 0.5:
        value[rng.choice(_WORDS)] = _words(rng)  # an open object: a free-form member
    return value


# --- breaking a call -----------------------------------------------------------------------------------------------

Site = tuple[dict[str, Json] | list[Json], str | int, dict[str, Any]]
"""(container, key, schema of the value at key): a place in generated arguments that a mutation can change."""


def _sites(schema: Json, value: Json, out: list[Site]) -> None:
    """Every member and item of ``value`` with the (plain, non-combinator) schema it was generated from."""
    if not isinstance(schema, dict) or "anyOf" in schema or "oneOf" in schema:
        return
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, item in value.items():
            subschema = properties.get(key)
            if isinstance(subschema, dict):
                out.append((value, key, subschema))
                _sites(subschema, item, out)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            out.append((value, index, schema["items"]))
            _sites(schema["items"], item, out)


def _only(schema: dict[str, Any], *kinds: str) -> bool:
    kind = schema.get("type")
    names = kind if isinstance(kind, list) else [kind]
    return bool(names) and all(name in kinds for name in names)


def _near_miss(value: Json, options: list[Json]) -> Json:
    """A value outside ``options``, close to ``value`` (``Celsius`` for ``celsius``, ``fast`` + ``er``)."""
    if isinstance(value, str):
        for candidate in (value.capitalize(), value.upper(), value.lower(), value + "s", value + "_other"):
            if candidate not in options:
                return candidate
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return max(o for o in options if isinstance(o, (int, float)) and not isinstance(o, bool)) + 1
    return "other"


Mutation = Callable[[], None]


def _mutations(schema: dict[str, Any], value: dict[str, Json], rng: random.Random) -> dict[str, Mutation]:
    """The ways this call can be broken, each a closure that breaks ``value`` in place."""
    sites: list[Site] = []
    _sites(schema, value, sites)
    found: dict[str, Mutation] = {}

    numbers = [
        s for s in sites if "enum" not in s[2] and _only(s[2], "integer", "number") and not isinstance(s[0][s[1]], bool)
    ]
    if numbers:
        container, key, _ = rng.choice(numbers)

        def number_as_string(container: Any = container, key: Any = key) -> None:
            container[key] = json.dumps(container[key])

        found["number-as-string"] = number_as_string

    present = [key for key in schema.get("required") or () if key in value]
    if present:
        key = rng.choice(present)
        found["missing-required"] = lambda key=key: value.pop(key)

    enums = [s for s in sites if isinstance(s[2].get("enum"), list) and _has_type(s[0][s[1]], s[2])]
    if enums:
        container, key, subschema = rng.choice(enums)

        def enum_out_of_range(container: Any = container, key: Any = key, options: Any = subschema["enum"]) -> None:
            container[key] = _near_miss(container[key], options)

        found["enum-out-of-range"] = enum_out_of_range

    objects: list[tuple[dict[str, Json], dict[str, Any]]] = [(value, schema)]
    objects += [(s[0][s[1]], s[2]) for s in sites if isinstance(s[0][s[1]], dict)]
    closed = [(o, s) for o, s in objects if s.get("additionalProperties") is False]
    typed = [(o, s) for o, s in objects if _only(s.get("additionalProperties") or {}, "string")]
    if closed or typed:
        target, subschema = rng.choice(closed or typed)
        unknown = "extra_" + rng.choice(_WORDS)

        def unexpected_property(target: Any = target, closed: bool = bool(closed)) -> None:
            target[unknown] = _words(rng) if closed else rng.randint(1, 99)

        found["unexpected-property"] = unexpected_property
    return found


# --- the workload --------------------------------------------------------------------------------------------------


Calls = list[tuple[str, str]]
"""A batch as the contenders take it: (tool name, arguments as JSON text) per call."""


@dataclass(frozen=True)
class Workload:
    """``n`` calls as (name, JSON text), what each is by construction (``"valid"`` or a kind of ``KINDS``)."""

    calls: Calls
    kinds: list[str]

    @property
    def valid(self) -> list[bool]:
        return [kind == "valid" for kind in self.kinds]

    @property
    def names(self) -> set[str]:
        return {name for name, _ in self.calls}

    @property
    def text_bytes(self) -> int:
        return sum(len(text) for _, text in self.calls)

    def subset(
        self, valid: bool | None = None, where: Callable[[str, str], bool] | None = None
    ) -> list[tuple[str, str]]:
        """The calls that are (in)valid by construction and satisfy ``where(name, text)``."""
        return [
            call
            for call, kind in zip(self.calls, self.kinds, strict=True)
            if (valid is None or (kind == "valid") == valid) and (where is None or where(*call))
        ]


def _schemas(schema: Json) -> list[dict[str, Any]]:
    """``schema`` and every schema below it through ``properties`` and ``items`` (where mutations look)."""
    if not isinstance(schema, dict) or "anyOf" in schema or "oneOf" in schema:
        return []
    found = [schema]
    for subschema in (schema.get("properties") or {}).values():
        found += _schemas(subschema)
    found += _schemas(schema.get("items"))
    return found


def breakable(schema: Json) -> set[str]:
    """The kinds of ``KINDS`` that arguments generated from ``schema`` may allow (when optional parts are present)."""
    schemas = _schemas(schema)
    kinds = set()
    if any("enum" not in s and _only(s, "integer", "number") for s in schemas[1:]):
        kinds.add("number-as-string")
    if isinstance(schema, dict) and schema.get("required"):
        kinds.add("missing-required")
    if any(isinstance(s.get("enum"), list) and any(_has_type(o, s) for o in s["enum"]) for s in schemas[1:]):
        kinds.add("enum-out-of-range")
    extra = [s.get("additionalProperties") for s in schemas]
    if any(e is False or (isinstance(e, dict) and _only(e, "string")) for e in extra):
        kinds.add("unexpected-property")
    return kinds


def make_workload(n: int = CALLS, seed: int = SEED) -> Workload:
    """``n`` calls over ``tools()`` (deterministic for a given ``n`` and ``seed``).

    A valid call's tool is drawn from every tool; an invalid call first draws its kind (uniformly over ``KINDS``),
    then a tool whose schema allows it, regenerating the arguments until they do (an optional number, say).
    """
    rng = random.Random(f"{seed}:{n}")
    definitions = tools()
    able = {kind: [d for d in definitions if kind in breakable(d["parameters"])] for kind in KINDS}
    calls: list[tuple[str, str]] = []
    kinds: list[str] = []
    while len(calls) < n:
        if rng.random() >= INVALID_SHARE:
            definition = rng.choice(definitions)
            try:
                value = arguments(definition["parameters"], rng)
            except Unsatisfiable:
                continue
            calls.append((definition["name"], json.dumps(value)))
            kinds.append("valid")
            continue
        kind = rng.choice(KINDS)
        while True:
            definition = rng.choice(able[kind])
            try:
                value = arguments(definition["parameters"], rng)
            except Unsatisfiable:
                continue
            mutation = _mutations(definition["parameters"], value, rng).get(kind)
            if mutation is not None:
                break
        mutation()
        calls.append((definition["name"], json.dumps(value)))
        kinds.append(kind)
    return Workload(calls, kinds)


@cache
def workload(n: int) -> Workload:
    """The (cached) workload of ``n`` calls."""
    return make_workload(n)


# --- the recursive union (issue 15) -------------------------------------------------------------------------------


def _node_branch(kind: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"kind": {"const": kind}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        "required": ["kind", "children"],
        "additionalProperties": False,
    }


RECURSIVE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "$defs": {"Node": {"anyOf": [_node_branch("folder"), _node_branch("group")]}},
    "properties": {"root": {"$ref": "#/$defs/Node"}},
    "required": ["root"],
}
RECURSIVE_TOOLS = {"tree": RECURSIVE_PARAMETERS}


def tree(depth: int, leaf: str) -> str:
    """Arguments for ``tree``: nodes ``depth`` levels deep (kinds alternating), the one leaf of kind ``leaf``."""
    node: dict[str, Any] = {"kind": leaf, "children": []}
    for level in range(depth):
        node = {"kind": "group" if level % 2 == 0 else "folder", "children": [node]}
    return json.dumps({"root": node})


def leaf(depth: int) -> str:
    """The JSON pointer of the leaf of ``tree(depth, ...)``."""
    return "/root" + "/children/0" * depth


# --- schemas for the reassembly grid's calls ---------------------------------------------------------------------

_RECORD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "title": {"type": "string"},
        "score": {"type": "number", "minimum": -1, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string"}},
        "dims": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "active": {"type": ["boolean", "null"]},
        "note": {"type": "string"},
        "comment": {"type": "string"},
    },
    "required": ["id"],
    "additionalProperties": False,
}
GRID_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "request_id": {"type": "string", "pattern": "^req_[0-9a-f]{12}$"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 1000},
        "filters": {
            "type": "object",
            "properties": {
                "lang": {"type": "string", "enum": ["en", "de", "fr", "ja"]},
                "min_score": {"type": "number", "minimum": 0, "maximum": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        },
        "query": {"type": "string"},
        "records": {"type": "array", "items": _RECORD},
        "total": {"type": "integer", "minimum": 0},
        "cursor": {"type": ["string", "null"]},
        "more": {"type": "boolean"},
        "comment": {"type": "string"},
    },
    "required": ["request_id", "limit", "query", "records"],
    "additionalProperties": False,
}
"""The parameters of every tool the grid's streams call (``grid.make_call`` writes the same shape for each name):
the types, bounds and enums of each field, records closed with ``additionalProperties: false``, so that
validation walks every value of the arguments."""


@cache
def grid_registry() -> Any:
    """A registry declaring the grid's tool names with ``GRID_PARAMETERS``."""
    import toolwire
    from benches.inputs import grid

    return toolwire.ToolRegistry(
        [{"name": name, "description": f"grid tool {name}", "parameters": GRID_PARAMETERS} for name in grid.TOOLS]
    )
