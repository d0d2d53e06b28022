"""Hypothesis strategies for tool schemas and for arguments near them (valid often, invalid in every agreed way).

The schemas use the keywords on which issue 3 requires the core and the reference to agree on (code, pointer):
``type`` (single and lists), ``required``, ``enum``/``const``, ``additionalProperties: false``, numeric bounds
and string/array lengths, plus ``anyOf`` of type-only branches (reported as one ``TYPE_MISMATCH``) and, for issue
15, ``anyOf``/``oneOf`` of object branches tagged by a ``kind`` constant (reported through the branch the value
singles out, or as one violation). Numbers are integers and binary fractions (halves, quarters), which Python's
``float`` holds exactly, so the Rust core's exact decimals and the reference's floats cannot disagree.

A second family (``vocabulary_schemas``, ``schema_versions``, ``small_values``) covers every keyword the diff's
inclusion proofs read: unions, ``not``, ``if``, pattern and extra keys, tuples, ``contains``, dependencies and the
unevaluated keywords.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SCALAR_TYPES = ("string", "integer", "number", "boolean", "null")
NAMES = ("a", "b", "c", "d~1", "e/f")  # "~" and "/" exercise JSON pointer escaping

small_ints = st.integers(min_value=-20, max_value=20)
exact_floats = st.integers(min_value=-80, max_value=80).map(lambda quarters: quarters / 4)
numbers = st.one_of(small_ints, exact_floats)
short_text = st.text(alphabet="abcxyz \u00e9\U0001f600", max_size=6)
scalars = st.one_of(st.none(), st.booleans(), numbers, short_text)


@st.composite
def _bounded_number(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": kind}
    bound = small_ints if kind == "integer" else numbers
    for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if draw(st.integers(0, 3)) == 0:
            schema[keyword] = draw(bound)
    if kind == "integer" and draw(st.integers(0, 4)) == 0:
        schema["multipleOf"] = draw(st.integers(min_value=2, max_value=5))
    return schema


@st.composite
def _bounded_string(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if draw(st.booleans()):
        schema["minLength"] = draw(st.integers(0, 4))
    if draw(st.booleans()):
        schema["maxLength"] = draw(st.integers(0, 4))
    return schema


def leaf_schemas() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        _bounded_number("integer"),
        _bounded_number("number"),
        _bounded_string(),
        st.just({"type": "boolean"}),
        st.just({"type": "null"}),
        st.lists(st.sampled_from(SCALAR_TYPES), min_size=1, max_size=3, unique=True).map(lambda t: {"type": t}),
        st.lists(scalars, min_size=1, max_size=4).map(lambda values: {"enum": values}),
        scalars.map(lambda value: {"const": value}),
        st.lists(st.sampled_from(SCALAR_TYPES), min_size=2, max_size=3, unique=True).map(
            lambda types: {"anyOf": [{"type": t} for t in types]}
        ),
        st.just({}),
    )


@st.composite
def _object_schema(draw: st.DrawFn, children: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    properties = draw(st.dictionaries(st.sampled_from(NAMES), children, max_size=4))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if properties:
        schema["required"] = draw(st.lists(st.sampled_from(sorted(properties)), unique=True, max_size=len(properties)))
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


@st.composite
def _array_schema(draw: st.DrawFn, children: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": draw(children)}
    if draw(st.booleans()):
        schema["minItems"] = draw(st.integers(0, 3))
    if draw(st.booleans()):
        schema["maxItems"] = draw(st.integers(0, 3))
    return schema


@st.composite
def _union_schema(draw: st.DrawFn, children: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """Object branches, each tagged by its own ``kind`` (required or not), under ``anyOf`` or ``oneOf``."""
    branches = []
    for tag in draw(st.lists(st.sampled_from(TAGS), min_size=2, max_size=3, unique=True)):
        branch = draw(_object_schema(children))
        branch["properties"] = {"kind": {"const": tag}, **branch["properties"]}
        if draw(st.booleans()):
            branch["required"] = ["kind", *branch.get("required", [])]
        branches.append(branch)
    return {draw(st.sampled_from(("anyOf", "oneOf"))): branches}


TAGS = ("cat", "dog", "cow")


def subschemas(*, unions: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Leaves, objects and arrays of them; with ``unions``, tagged unions of objects too."""

    def extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        shapes = [_object_schema(children), _array_schema(children)]
        return st.one_of(*shapes, _union_schema(children)) if unions else st.one_of(*shapes)

    return st.recursive(leaf_schemas(), extend, max_leaves=8)


def tool_schemas(*, unions: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """A tool's parameters: always an object schema at the top (``unions``: see :func:`subschemas`)."""
    return _object_schema(subschemas(unions=unions))


def near(schema: Any) -> st.SearchStrategy[Any]:
    """Values shaped by ``schema`` (right often, wrong in type, bounds, members or length often too)."""
    if not isinstance(schema, dict):
        return scalars
    if schema.get("type") == "object":
        return st.one_of(near_object(schema), scalars)
    if schema.get("type") == "array":
        return st.one_of(st.lists(near(schema["items"]), max_size=4), scalars)
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), scalars)
    if "const" in schema:
        return st.one_of(st.just(schema["const"]), scalars)
    branches = schema.get("anyOf", schema.get("oneOf", []))
    if branches and all(branch.get("type") == "object" for branch in branches):
        return st.one_of(*(near_object(branch) for branch in branches), scalars)
    return st.one_of(scalars, st.lists(scalars, max_size=2))


def near_object(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects shaped by an object ``schema``: its members (some missing), others, values near theirs."""
    properties = schema.get("properties", {})
    if not properties:
        return st.dictionaries(st.just("zz"), scalars, max_size=1)
    keys = st.sampled_from([*properties, "zz"])
    values = st.one_of(*(near(sub) for sub in properties.values()), scalars)
    return st.one_of(
        st.dictionaries(keys, values, max_size=len(properties) + 1),
        st.fixed_dictionaries({name: near(sub) for name, sub in properties.items()}),
    )


# -- the whole vocabulary the diff's inclusion proofs read --------------------------------------------------------
# Schemas over every keyword ``_diff_inclusion`` weighs (and some it does not), with constants from small ranges,
# and values from the same ranges, so that instances often sit on a schema's edges.

SMALL_KEYS = ("a", "b", "x_1", "x_2")
SMALL_PATTERNS = ("^x_", "^a", "1$")
small_numbers = st.one_of(st.integers(-3, 6), st.integers(-6, 12).map(lambda halves: halves / 2))
small_texts = st.text(alphabet="abx_1", max_size=3)
small_scalars = st.one_of(st.none(), st.booleans(), small_numbers, small_texts)
small_values = st.recursive(
    small_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(SMALL_KEYS), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def _vocabulary_leaves(draw: st.DrawFn) -> Any:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(st.sampled_from([True, False, {}]))
    if choice == 1:
        return {"type": draw(st.lists(st.sampled_from(["null", "boolean", "integer", "number", "string", "array",
                                                        "object"]), min_size=1, max_size=3, unique=True))}  # fmt: skip
    if choice in (2, 3):
        schema: dict[str, Any] = {"type": draw(st.sampled_from(["integer", "number"]))}
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if draw(st.integers(0, 2)) == 0:
                schema[keyword] = draw(small_numbers)
        if draw(st.integers(0, 3)) == 0:
            schema["multipleOf"] = draw(st.sampled_from([2, 3, 0.5]))
        return schema
    if choice == 4:
        schema = {"type": "string"}
        for keyword in ("minLength", "maxLength"):
            if draw(st.booleans()):
                schema[keyword] = draw(st.integers(0, 3))
        if draw(st.integers(0, 2)) == 0:
            schema["pattern"] = draw(st.sampled_from(SMALL_PATTERNS))
        return schema
    if choice == 5:
        return {"enum": draw(st.lists(small_scalars, min_size=1, max_size=4))}
    if choice == 6:
        return {"const": draw(small_scalars)}
    if choice == 7:
        return {"minimum": draw(small_numbers)} if draw(st.booleans()) else {"maxLength": draw(st.integers(0, 2))}
    return {"type": draw(st.sampled_from(["null", "boolean", "integer", "number", "string"]))}


@st.composite
def _vocabulary_objects(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if draw(st.booleans()):
        schema["type"] = "object"
    properties = draw(st.dictionaries(st.sampled_from(SMALL_KEYS), children, max_size=3))
    if properties:
        schema["properties"] = properties
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(SMALL_KEYS), unique=True, max_size=2))
    if draw(st.integers(0, 2)) == 0:
        schema["patternProperties"] = draw(st.dictionaries(st.sampled_from(SMALL_PATTERNS), children, min_size=1,
                                                           max_size=2))  # fmt: skip
    if draw(st.booleans()):
        schema["additionalProperties"] = draw(st.one_of(st.booleans(), children))
    for keyword in ("minProperties", "maxProperties"):
        if draw(st.integers(0, 3)) == 0:
            schema[keyword] = draw(st.integers(0, 3))
    if draw(st.integers(0, 4)) == 0:
        schema["propertyNames"] = draw(st.sampled_from([{"maxLength": 1}, {"pattern": "^[ab]"}, {"enum": ["a"]}]))
    if draw(st.integers(0, 4)) == 0:
        schema["dependentRequired"] = {
            draw(st.sampled_from(SMALL_KEYS)): draw(st.lists(st.sampled_from(SMALL_KEYS), max_size=2))
        }
    if draw(st.integers(0, 4)) == 0:
        schema["dependentSchemas"] = {draw(st.sampled_from(SMALL_KEYS)): draw(children)}
    if draw(st.integers(0, 6)) == 0:
        schema["unevaluatedProperties"] = draw(st.one_of(st.booleans(), children))
    return schema


@st.composite
def _vocabulary_arrays(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array"}
    if draw(st.booleans()):
        schema["prefixItems"] = draw(st.lists(children, min_size=1, max_size=2))
    if draw(st.booleans()):
        schema["items"] = draw(st.one_of(st.booleans(), children))
    for keyword in ("minItems", "maxItems"):
        if draw(st.integers(0, 2)) == 0:
            schema[keyword] = draw(st.integers(0, 3))
    if draw(st.integers(0, 3)) == 0:
        schema["uniqueItems"] = True
    if draw(st.integers(0, 3)) == 0:
        schema["contains"] = draw(children)
        if draw(st.booleans()):
            schema["minContains"] = draw(st.integers(0, 2))
        if draw(st.integers(0, 2)) == 0:
            schema["maxContains"] = draw(st.integers(1, 2))
    if draw(st.integers(0, 6)) == 0:
        schema["unevaluatedItems"] = draw(st.one_of(st.booleans(), children))
    return schema


def _composed(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    branches = st.lists(children, min_size=1, max_size=3)
    return st.one_of(
        branches.map(lambda b: {"anyOf": b}),
        branches.map(lambda b: {"oneOf": b}),
        branches.map(lambda b: {"allOf": b}),
        children.map(lambda c: {"not": c}),
        st.tuples(children, children, children).map(lambda t: {"if": t[0], "then": t[1], "else": t[2]}),
    )


def vocabulary_schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        _vocabulary_leaves(),
        lambda children: st.one_of(_vocabulary_objects(children), _vocabulary_arrays(children), _composed(children)),
        max_leaves=6,
    )


@st.composite
def schema_versions(draw: st.DrawFn) -> tuple[Any, Any]:
    """Two schemas related as versions are: unrelated, one inside a union or conjunction of the other, alike."""
    first, second = draw(vocabulary_schemas()), draw(vocabulary_schemas())
    relation = draw(st.integers(0, 4))
    if relation == 1:
        return first, {"anyOf": [first, second]}
    if relation == 2:
        return {"allOf": [first, second]}, first
    if relation == 3:
        return first, first
    if relation == 4 and isinstance(first, dict) and isinstance(second, dict):
        return first, {**first, **second}
    return first, second
