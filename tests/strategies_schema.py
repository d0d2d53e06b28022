"""Hypothesis strategies for tool schemas and for arguments near them (valid often, invalid in every agreed way).

The schemas use the keywords on which issue 3 requires the core and the reference to agree on (code, pointer):
``type`` (single and lists), ``required``, ``enum``/``const``, ``additionalProperties: false``, numeric bounds
and string/array lengths, plus ``anyOf`` of type-only branches (reported as one ``TYPE_MISMATCH``) and, for issue
15, ``anyOf``/``oneOf`` of object branches tagged by a ``kind`` constant (reported through the branch the value
singles out, or as one violation). Numbers are integers and binary fractions (halves, quarters), which Python's
``float`` holds exactly, so the Rust core's exact decimals and the reference's floats cannot disagree.
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
