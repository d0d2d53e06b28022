"""The differ's normaliser in isolation: each rule, recursion, the real corpus, and validation kept intact.

Three oracles besides the examples: (1) every schema of ``../shared/corpora/tool-schemas`` normalises without error
and idempotently; (2) generated schemas accept and refuse exactly the same instances before and after (checked with
``jsonschema``, an independent validator); (3) generated schemas respelled in equivalent ways (``anyOf`` with null,
``nullable``, ``const``, ``number`` + ``multipleOf: 1``, ``allOf`` of one, ``$ref`` into ``$defs``) normalise to
schemas the walk finds no change between.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import corpus
from tests.support.strategies_schema import near, tool_schemas
from toolwire.schema.diff._normalize import is_nullable, json_key, normalise, normalise_with_notes, same
from toolwire.schema.diff._walk import walk_parameters


def n(schema: Any, **options: Any) -> Any:
    return normalise(schema, **options)


# -- each rule ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [
        {"type": ["string", "null"]},
        {"type": ["null", "string"]},
        {"type": "string", "nullable": True},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"oneOf": [{"type": "null"}, {"type": "string"}]},
        {"anyOf": [{"type": "string"}, {"type": "null", "description": "none"}]},
        {"anyOf": [{"anyOf": [{"type": "string"}]}, {"type": "null"}]},
    ],
)
def test_null_is_spelled_one_way(spelling: dict[str, Any]) -> None:
    assert n(spelling) == {"type": ["null", "string"]}


def test_nullable_adds_null_to_an_enum_too() -> None:
    assert n({"type": "string", "enum": ["a"], "nullable": True}) == {"type": ["null", "string"], "enum": ["a", None]}
    assert n({"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]}) == {"enum": ["a", "b", None]}
    assert is_nullable(n({"anyOf": [{"enum": ["a"]}, {"type": "null"}]}))
    assert not is_nullable(n({"type": ["string", "null"], "enum": ["a"]}))  # null is not among the values


def test_a_union_that_cannot_absorb_null_keeps_one_null_branch_last() -> None:
    union = {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 2}, {"type": "integer", "minimum": 0}]}
    assert n(union) == {
        "anyOf": [{"type": ["string"], "maxLength": 2}, {"type": ["integer"], "minimum": 0}, {"type": ["null"]}]
    }


@pytest.mark.parametrize(
    ("spelling", "normalised"),
    [
        # The node refuses null by its type or enum: the null branch adds nothing.
        ({"type": "integer", "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
         {"type": ["integer"], "minimum": 1}),
        ({"enum": ["a", "bbb"], "anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]},
         {"enum": ["a", "bbb"], "type": ["string"], "maxLength": 2}),
        # Something else of the node decides: the union stays.
        ({"not": {"const": "a"}, "anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]},
         {"not": {"enum": ["a"]}, "anyOf": [{"type": ["string"], "maxLength": 2}, {"type": ["null"]}]}),
        # Under oneOf, null joins only branches that refuse it: a value two branches accept fails.
        ({"oneOf": [{"enum": [None, "a"]}, {"type": "null"}]}, {"oneOf": [{"enum": [None, "a"]}, {"type": ["null"]}]}),
        ({"oneOf": [{"type": ["string", "null"]}, {"type": "null"}]},
         {"oneOf": [{"type": ["null", "string"]}, {"type": ["null"]}]}),
        ({"oneOf": [{"type": "null"}, {"type": "null"}]}, {"oneOf": [{"type": ["null"]}, {"type": ["null"]}]}),
        ({"oneOf": [True, {"type": "null"}]}, {"oneOf": [True, {"type": ["null"]}]}),
        ({"oneOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]}, {"type": ["null", "string"], "maxLength": 2}),
        # The node admits null: it joins the branch's type.
        ({"maxLength": 3, "anyOf": [{"type": "string"}, {"type": "null"}]}, {"maxLength": 3, "type": ["null", "string"]}),
    ],
)  # fmt: skip
def test_a_null_branch_joins_only_a_node_that_admits_null(spelling: dict[str, Any], normalised: dict[str, Any]) -> None:
    assert n(spelling) == normalised
    for instance in (None, "a", "bbb", 1, 2.5, 0):
        assert _validates(spelling, instance) == _validates(normalised, instance), instance


def test_const_is_a_one_value_enum() -> None:
    assert n({"const": "x"}) == {"enum": ["x"]}
    assert n({"const": "x", "enum": ["x", "y"]}) == {"enum": ["x"]}
    assert n({"const": "z", "enum": ["x", "y"]}) == {"enum": []}  # nothing valid, as written


@pytest.mark.parametrize(
    "spelling",
    [
        {"type": "integer"},
        {"type": "number", "multipleOf": 1},
        {"type": "number", "multipleOf": 1.0},
        {"type": "integer", "multipleOf": 1},
        {"anyOf": [{"type": "number", "multipleOf": 1}]},
    ],
)
def test_integer_and_number_with_multiple_of_one_are_alike(spelling: dict[str, Any]) -> None:
    assert n(spelling) == {"type": ["integer"]}


def test_number_covers_integer_in_a_type_list() -> None:
    assert n({"type": ["integer", "number", "string"]}) == {"type": ["number", "string"]}
    assert n({"type": "number", "multipleOf": 2}) == {"type": ["integer"], "multipleOf": 2}


def test_bounds_are_written_one_way() -> None:
    assert n({"type": "number", "maximum": 5, "exclusiveMaximum": True}) == {"type": ["number"], "exclusiveMaximum": 5}
    assert n({"type": "number", "maximum": 5, "exclusiveMaximum": 5}) == {"type": ["number"], "exclusiveMaximum": 5}
    assert n({"type": "number", "maximum": 4, "exclusiveMaximum": 5}) == {"type": ["number"], "maximum": 4}
    assert n({"type": "integer", "exclusiveMaximum": 10, "exclusiveMinimum": 0.5}) == {
        "type": ["integer"],
        "maximum": 9,
        "minimum": 1,
    }
    assert n({"type": "string", "minLength": 0, "maxLength": 3.0}) == {"type": ["string"], "maxLength": 3}
    assert n({"type": "array", "uniqueItems": False, "minItems": 0}) == {"type": ["array"]}


def test_openness_is_made_explicit_and_noted() -> None:
    result = normalise_with_notes({"type": "object", "properties": {"a": {"type": "object"}}})
    assert result.schema == {
        "type": ["object"],
        "properties": {"a": {"type": ["object"], "additionalProperties": True}},
        "additionalProperties": True,
    }
    assert [(note.pointer, note.kind) for note in result.notes] == [
        ("/properties/a", "implicit-open"),
        ("", "implicit-open"),
    ]
    assert n({"type": "object", "additionalProperties": False}) == {"type": ["object"], "additionalProperties": False}
    assert n({"type": "string"}) == {"type": ["string"]}  # not an object: nothing to open


def same_meaning(spelling: Any, normalised: Any, instances: list[Any]) -> bool:
    """Whether both accept the same instances (a draft-4 tuple ``items: [...]`` read as draft-07 reads it)."""
    draft = jsonschema.Draft7Validator if isinstance(spelling.get("items"), list) else jsonschema.Draft202012Validator
    return all(draft(spelling).is_valid(instance) == _validates(normalised, instance) for instance in instances)


ARRAYS = [[], [1], ["a"], [1, 2], [1, "a"], ["a", 1], [1, 2, 3], [1, "a", True], [None, None, None, None]]


@pytest.mark.parametrize(
    ("spelling", "normalised"),
    [
        ({"type": "array", "items": False}, {"type": ["array"], "maxItems": 0}),
        ({"type": "array", "maxItems": 0}, {"type": ["array"], "maxItems": 0}),
        ({"type": "array", "maxItems": 0, "items": {"type": "string"}}, {"type": ["array"], "maxItems": 0}),
        (
            {"type": "array", "prefixItems": [{"type": "integer"}], "items": False},
            {"type": ["array"], "prefixItems": [{"type": ["integer"]}], "maxItems": 1},
        ),
        (
            {"type": "array", "items": [{"type": "integer"}, False], "additionalItems": False},
            {"type": ["array"], "prefixItems": [{"type": ["integer"]}], "maxItems": 1},
        ),
        (
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "maxItems": 1, "items": False},
            {"type": ["array"], "prefixItems": [{"type": ["integer"]}, {"type": ["string"]}], "maxItems": 1},
        ),
    ],
)
def test_where_an_array_ends_is_said_by_max_items(spelling: dict[str, Any], normalised: dict[str, Any]) -> None:
    assert n(spelling) == normalised
    assert same_meaning(spelling, normalised, ARRAYS)


OBJECTS = [{}, {"a": "x"}, {"a": 1}, {"b": "x"}, {"b": 1}, {"a": "x", "b": 1}, {"c": None}]


@pytest.mark.parametrize(
    ("spelling", "normalised"),
    [
        # Nothing else evaluates keys: unevaluatedProperties is additionalProperties.
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": {"type": "string"}},
            {"type": ["object"], "properties": {"a": {"type": ["string"]}}, "additionalProperties": {"type": ["string"]}},
        ),
        # Beside additionalProperties nothing is left unevaluated.
        (
            {"type": "object", "additionalProperties": {"type": "integer"}, "unevaluatedProperties": False},
            {"type": ["object"], "additionalProperties": {"type": ["integer"]}},
        ),
        # An applicator's keys count as evaluated: unevaluatedProperties stays, and no additionalProperties is made up.
        (
            {"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}, {"required": ["b"]}],
             "unevaluatedProperties": False},
            {"type": ["object"], "unevaluatedProperties": False,
             "anyOf": [{"properties": {"a": {"type": ["string"]}}}, {"required": ["b"]}]},
        ),
        # The node's unevaluatedProperties sees what its members evaluate: merged, they are the node's own.
        (
            {"type": "object", "$defs": {"A": {"properties": {"a": {"type": "string"}}}},
             "allOf": [{"$ref": "#/$defs/A"}], "properties": {"b": {}}, "unevaluatedProperties": False},
            {"type": ["object"], "properties": {"b": {}, "a": {"type": ["string"]}}, "additionalProperties": False},
        ),
        # A member that closes itself with unevaluatedProperties does not see the node's other properties.
        (
            {"properties": {"b": {}}, "allOf": [{"properties": {"a": {}}, "unevaluatedProperties": False}]},
            {"properties": {"b": {}}, "additionalProperties": True,
             "allOf": [{"properties": {"a": {}}, "additionalProperties": False}]},
        ),
    ],
)  # fmt: skip
def test_unevaluated_properties_is_additional_properties_where_nothing_else_evaluates(
    spelling: dict[str, Any], normalised: dict[str, Any]
) -> None:
    assert n(spelling) == normalised
    assert n(normalised) == normalised
    assert same_meaning(spelling, normalised, OBJECTS)


@pytest.mark.parametrize(
    ("spelling", "normalised"),
    [
        (
            {"type": "array", "prefixItems": [{"type": "integer"}], "unevaluatedItems": {"type": "string"}},
            {"type": ["array"], "prefixItems": [{"type": ["integer"]}], "items": {"type": ["string"]}},
        ),
        (
            {"type": "array", "items": {"type": "integer"}, "unevaluatedItems": False},
            {"type": ["array"], "items": {"type": ["integer"]}},
        ),
        # contains evaluates the items it matches: unevaluatedItems stays.
        (
            {"type": "array", "contains": {"type": "integer"}, "unevaluatedItems": {"type": "string"}},
            {"type": ["array"], "contains": {"type": ["integer"]}, "unevaluatedItems": {"type": ["string"]}},
        ),
    ],
)
def test_unevaluated_items_is_items_where_nothing_else_evaluates(
    spelling: dict[str, Any], normalised: dict[str, Any]
) -> None:
    assert n(spelling) == normalised
    assert same_meaning(spelling, normalised, ARRAYS)


def test_trivial_all_of_is_flattened() -> None:
    assert n({"allOf": [{"type": "string"}]}) == {"type": ["string"]}
    assert n({"allOf": [{"type": "string"}, {"maxLength": 3}], "description": "d"}) == {
        "description": "d",
        "type": ["string"],
        "maxLength": 3,
    }
    assert n({"allOf": [{"required": ["a"]}, {"required": ["b"]}]}) == {
        "required": ["a", "b"],
        "additionalProperties": True,
    }
    assert n({"allOf": [{"type": ["string", "integer"]}, {"type": "number"}]}) == {"type": ["integer"]}


def test_all_of_members_that_clash_stay() -> None:
    assert n({"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "z$"}]}) == {
        "type": ["string"],
        "pattern": "^a",
        "allOf": [{"pattern": "z$"}],
    }
    # A closed member beside another member's properties: merging would admit the other's keys.
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    kept = n({"allOf": [closed, {"properties": {"b": {}}}]})
    assert "allOf" in kept


def test_local_refs_are_resolved_and_definitions_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/Place"}, "work": {"$ref": "#/definitions/Place"}},
        "$defs": {"Place": {"type": "string", "maxLength": 9}},
        "definitions": {"Place": {"type": "string", "maxLength": 9}},
        "additionalProperties": False,
    }
    assert n(schema) == {
        "type": ["object"],
        "properties": {"home": {"type": ["string"], "maxLength": 9}, "work": {"type": ["string"], "maxLength": 9}},
        "additionalProperties": False,
    }


def test_ref_siblings_apply_with_the_target_and_describe_the_place() -> None:
    schema = {
        "properties": {"a": {"$ref": "#/$defs/A", "description": "here", "maxLength": 3}},
        "$defs": {"A": {"type": "string", "description": "there"}},
    }
    assert n(schema)["properties"]["a"] == {"description": "here", "type": ["string"], "maxLength": 3}


def test_optional_model_reference_of_pydantic_is_absorbed() -> None:
    schema = {
        "properties": {
            "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None, "title": "Where"}
        },
        "$defs": {"Address": {"type": "object", "title": "Address", "properties": {"city": {"type": "string"}}}},
    }
    address = n(schema)["properties"]["address"]
    assert address["type"] == ["null", "object"] and address["title"] == "Where" and address["default"] is None


def test_remote_and_dangling_refs_are_kept_and_noted() -> None:
    result = normalise_with_notes(
        {"properties": {"a": {"$ref": "https://example.com/a.json"}, "b": {"$ref": "#/$defs/Nope"}}}
    )
    assert result.schema["properties"] == {"a": {"$ref": "https://example.com/a.json"}, "b": {"$ref": "#/$defs/Nope"}}
    assert {note.kind for note in result.notes} >= {"remote-ref", "unresolved-ref"}


# -- recursion ---------------------------------------------------------------------------------------------------

TREE = {
    "type": "object",
    "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
}


def test_a_recursive_ref_stays_a_marker_by_depth() -> None:
    result = normalise_with_notes(TREE)
    assert result.schema["properties"]["children"]["items"] == {"$recursive": "#", "$depth": 1}
    assert [note.kind for note in result.notes if note.kind == "recursive-ref"] == ["recursive-ref"]


def test_recursion_through_renamed_definitions_compares_equal() -> None:
    node = {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}}
    renamed = json.loads(json.dumps(node).replace("Node", "Link"))
    old = {"type": "object", "properties": {"head": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}}
    new = {"type": "object", "properties": {"head": {"$ref": "#/$defs/Link"}}, "$defs": {"Link": renamed}}
    assert walk_parameters("t", n(old), n(new)) == []
    deeper = json.loads(json.dumps(old))
    deeper["$defs"]["Node"]["properties"]["next"] = {"anyOf": [{"$ref": "#"}, {"type": "null"}]}
    assert [change.kind for change in walk_parameters("t", n(old), n(deeper))] == ["constraint-changed"]


def test_mutual_recursion_ends() -> None:
    schema = {
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "again": {"$ref": "#/$defs/B"}}},
        },
        "type": "object",
        "properties": {"first": {"$ref": "#/$defs/A"}, "second": {"$ref": "#/$defs/B"}},
    }
    once = n(schema)
    assert n(once) == once
    assert once["properties"]["first"]["properties"]["b"]["properties"]["a"] == {"$recursive": "#/$defs/A", "$depth": 2}


def test_a_wide_dag_of_refs_expands_once_per_target() -> None:
    # 2**40 paths if each reference were expanded anew; memoised, it is 40 expansions, shared.
    defs = {f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"},
                                                        "y": {"$ref": f"#/$defs/d{i + 1}"}}} for i in range(40)}  # fmt: skip
    defs["d40"] = {"type": "string"}
    result = n({"$defs": defs, "$ref": "#/$defs/d0"})
    assert result["properties"]["x"] is result["properties"]["y"]
    assert same(n(result), result)  # comparing shared subtrees costs their stored size
    changed = {**defs, "d40": {"type": "integer"}}
    changes = walk_parameters("t", result, n({"$defs": changed, "$ref": "#/$defs/d0"}))
    # The unfolded trees differ in 2**40 leaves: the walk stops at its budget and says so.
    assert [change.kind for change in changes][-1] == "constraint-changed"
    assert "not compared" in changes[-1].message


def test_normalise_never_changes_its_input() -> None:
    schema = {"type": "integer", "nullable": True, "properties": {"a": {"const": 1}}, "$defs": {"X": {}}}
    before = json.dumps(schema, sort_keys=True)
    n(schema, strict_optional=True)
    assert json.dumps(schema, sort_keys=True) == before


def test_strict_optional_reads_required_nullable_as_optional() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": ["string", "null"]}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert n(schema)["required"] == ["a", "b"]
    assert n(schema, strict_optional=True)["required"] == ["a"]


# -- the real corpus ---------------------------------------------------------------------------------------------


def corpus_schemas() -> list[tuple[str, Any]]:
    folder = corpus("tool-schemas")
    found = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                found.append((f"{path.name}:{number}", json.loads(line).get("parameters")))
    return found


def test_every_corpus_schema_normalises_idempotently() -> None:
    schemas = corpus_schemas()
    assert len(schemas) == 7270
    for origin, schema in schemas:
        once = n(schema)
        twice = n(once)
        assert twice == once, origin
        assert json.dumps(twice) == json.dumps(once), origin  # key order too: property order is reported
        assert walk_parameters("t", once, n(schema)) == [], origin
        assert "$ref" not in json.dumps(once) or "$ref" in json.dumps(schema), origin


# -- generated schemas: validation kept, spellings equal -----------------------------------------------------------


def _validates(schema: Any, instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


@given(st.data())
def test_normalising_keeps_what_is_valid(data: st.DataObject) -> None:
    schema = data.draw(tool_schemas())
    normalised = n(schema)
    for instance in data.draw(st.lists(near(schema), min_size=1, max_size=6)):
        assert _validates(schema, instance) == _validates(normalised, instance), (schema, normalised, instance)


@st.composite
def respelled(draw: st.DrawFn, schema: Any, defs: dict[str, Any]) -> Any:
    """An equivalent spelling of ``schema``: each node maybe rewritten, maybe moved into ``$defs``."""
    if not isinstance(schema, dict):
        return schema
    node = dict(schema)
    for key in ("properties",):
        if isinstance(node.get(key), dict):
            node[key] = {name: draw(respelled(sub, defs)) for name, sub in node[key].items()}
    if isinstance(node.get("items"), dict):
        node["items"] = draw(respelled(node["items"], defs))
    node = draw(st.sampled_from(_rewrites(node)))
    if draw(st.integers(0, 4)) == 0:
        name = f"d{len(defs)}"
        defs[name] = node
        return {"$ref": f"#/$defs/{name}"}
    return node


def _rewrites(node: dict[str, Any]) -> list[dict[str, Any]]:
    options = [node, {"allOf": [node]}]
    types = node.get("type")
    if isinstance(types, list) and "null" in types and len(types) > 1 and set(node) == {"type"}:
        options.append({"anyOf": [{"type": [t for t in types if t != "null"]}, {"type": "null"}]})
        options.append({"type": [t for t in types if t != "null"], "nullable": True})
    if "const" in node and "enum" not in node:
        options.append({**{k: v for k, v in node.items() if k != "const"}, "enum": [node["const"]]})
    if types == "integer" and "multipleOf" not in node:
        options.append({**node, "type": "number", "multipleOf": 1})
    if node.get("type") == "object" and "additionalProperties" not in node:
        options.append({**node, "additionalProperties": True})
    return options


@given(st.data())
def test_equivalent_spellings_show_no_change(data: st.DataObject) -> None:
    schema = data.draw(tool_schemas())
    defs: dict[str, Any] = {}
    other = data.draw(respelled(schema, defs))
    if "$ref" in other:  # the root itself moved into $defs
        other = {"allOf": [other]}
    other = {**other, "$defs": defs} if defs else other
    assert walk_parameters("t", n(schema), n(other)) == [], (schema, other)
    assert json_key(n(schema)) == json_key(n(other))
    for instance in data.draw(st.lists(near(schema), min_size=1, max_size=4)):
        assert _validates(schema, instance) == _validates(n(other), instance)
