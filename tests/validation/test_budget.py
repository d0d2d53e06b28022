"""The search for an invalid call's problems has a budget (``Limits.max_validation_steps``), counted alike in both.

Issue 15: a 648-byte argument against a recursive union (``Node = anyOf[{kind: folder, children: [Node]},
{kind: group, children: [Node]}]``) took minutes and gigabytes, and aborted the process. Validity is decided first
(cheaply); the errors are searched for only when the count made beforehand fits the budget; otherwise the call is
invalid with one ``VALIDATION_BUDGET_EXCEEDED``. The search judges each (subschema, value) pair once and follows a
failed union into the branch the value singles out, so the tree's count grows with its depth and a bad leaf is
found where it is; the crate's (and ``jsonschema``'s) own search, which multiplies branches, is left for schemas the
walk does not model (``unevaluatedProperties`` here). Hostile cases run in a capped child process
(``tests/support/bounded.py``).
"""

from __future__ import annotations

import itertools
import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
import toolwire.reference
from tests.support.bounded import run_bounded
from tests.support.strategies_schema import near_object, tool_schemas
from toolwire import Limits, ToolRegistry


def branch(kind: str, *, children_first: bool = False, unmodelled: bool = False) -> dict[str, Any]:
    members = {"kind": {"const": kind}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
    if children_first:
        members = dict(reversed(members.items()))
    return {
        "type": "object",
        "properties": members,
        "required": ["kind", "children"],
        # The same meaning; `unevaluatedProperties` is searched by the libraries themselves.
        "unevaluatedProperties" if unmodelled else "additionalProperties": False,
    }


def tree_schema(*, children_first: bool = False, unmodelled: bool = False) -> dict[str, Any]:
    kinds = [branch(kind, children_first=children_first, unmodelled=unmodelled) for kind in ("folder", "group")]
    return {
        "type": "object",
        "$defs": {"Node": {"anyOf": kinds}},
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
    }


def tree(depth: int, leaf: str) -> str:
    """A tree ``depth`` levels deep under ``root`` (kinds alternating), its one leaf of kind ``leaf``."""
    node: dict[str, Any] = {"kind": leaf, "children": []}
    for level in range(depth):
        node = {"kind": "group" if level % 2 == 0 else "folder", "children": [node]}
    return json.dumps({"root": node})


def leaf(depth: int) -> str:
    """The pointer of the leaf of ``tree(depth, ...)``."""
    return "/root" + "/children/0" * depth


TOOLS = ToolRegistry({"t": tree_schema()})
UNMODELLED = ToolRegistry({"t": tree_schema(unmodelled=True)})
BUDGET = Limits().max_validation_steps


def codes(violations: Any) -> list[tuple[str, str | None]]:
    return [(v.code.value, v.path) for v in violations]


def test_a_deep_bad_leaf_under_a_recursive_union_is_found_where_it_is(implementation: ModuleType) -> None:
    # 62 levels nest 127 deep, within the default `max_depth`.
    for depth in (3, 13, 18, 24, 40, 62):
        (violation,) = implementation.validate("t", tree(depth, "file"), TOOLS)
        assert (violation.code.value, violation.path, violation.data) == (
            "CONSTRAINT_VIOLATION",
            leaf(depth),
            {"keyword": "anyOf"},
        )
        assert violation.message == "anyOf: matches none of the 2 alternatives"
    # Valid trees are decided without a search, however deep (up to Limits.max_depth).
    assert implementation.validate("t", tree(60, "folder"), TOOLS) == []
    # Where the libraries search themselves, a deep leaf is still over the budget.
    (violation,) = implementation.validate("t", tree(24, "file"), UNMODELLED)
    assert (violation.code.value, violation.path, violation.data) == (
        "VALIDATION_BUDGET_EXCEEDED",
        "",
        {"limit": BUDGET},
    )
    assert violation.severity is toolwire.Severity.ERROR
    assert not violation.recoverable
    assert "100000 steps (Limits.max_validation_steps)" in violation.message
    assert codes(implementation.validate("t", tree(3, "file"), UNMODELLED)) == [("CONSTRAINT_VIOLATION", "/root")]
    # The budget is the caller's.
    assert codes(implementation.validate("t", tree(24, "file"), TOOLS, limits=Limits(max_validation_steps=50))) == [
        ("VALIDATION_BUDGET_EXCEEDED", "")
    ]
    roomy = Limits(max_validation_steps=10**9)
    assert codes(implementation.validate("t", tree(8, "file"), UNMODELLED, limits=roomy)) == [
        ("CONSTRAINT_VIOLATION", "/root")
    ]
    tight = Limits(max_validation_steps=3)
    strings = ToolRegistry({"s": {"properties": {"a": {"items": {"type": "string"}}}}})
    assert codes(implementation.validate("s", '{"a": [1]}', strings, limits=tight)) == [("TYPE_MISMATCH", "/a/0")]
    assert codes(implementation.validate("s", '{"a": [1, 2]}', strings, limits=tight)) == [
        ("VALIDATION_BUDGET_EXCEEDED", "")
    ]


def test_validate_many_and_streams_apply_the_same_budget(implementation: ModuleType) -> None:
    deep, shallow = tree(20, "file"), tree(2, "file")
    found = implementation.validate_many([("t", deep), ("t", shallow), ("t", tree(20, "folder"))], TOOLS)
    assert [codes(each) for each in found] == [
        [("CONSTRAINT_VIOLATION", leaf(20))],
        [("CONSTRAINT_VIOLATION", leaf(2))],
        [],
    ]
    assert [codes(each) for each in implementation.validate_many([("t", deep)], UNMODELLED)] == [
        [("VALIDATION_BUDGET_EXCEEDED", "")]
    ]
    call = {"index": 0, "id": "c", "type": "function", "function": {"name": "t", "arguments": deep}}
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    (invalid,) = implementation.reassemble(chunks, tools=TOOLS, on_invalid="yield")
    assert codes(invalid.errors) == [("CONSTRAINT_VIOLATION", leaf(20))]
    assert invalid.tool_fingerprint == TOOLS["t"].fingerprint
    (invalid,) = implementation.reassemble(chunks, tools=UNMODELLED, on_invalid="yield")
    assert codes(invalid.errors) == [("VALIDATION_BUDGET_EXCEEDED", "")]
    # A stream's limits are the search's too.
    call["function"]["arguments"] = shallow
    (invalid,) = implementation.reassemble(
        chunks, tools=TOOLS, on_invalid="yield", limits=Limits(max_validation_steps=5)
    )
    assert codes(invalid.errors) == [("VALIDATION_BUDGET_EXCEEDED", "")]
    (invalid,) = implementation.reassemble(chunks, tools=TOOLS, on_invalid="yield")
    assert codes(invalid.errors) == [("CONSTRAINT_VIOLATION", leaf(2))]


def least_budget(impl: ModuleType, schema: Any, arguments: str) -> int:
    """The least ``max_validation_steps`` under which ``impl`` searches ``arguments`` (found by bisection)."""
    registry = ToolRegistry({"t": schema})

    def fits(budget: int) -> bool:
        found = impl.validate("t", arguments, registry, limits=Limits(max_validation_steps=budget))
        return all(v.code.value != "VALIDATION_BUDGET_EXCEEDED" for v in found)

    low, high = 1, 1 << 20
    assert fits(high), "the search needs more than 2**20 steps"
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle + 1, high)
    return low


COUNTED = [
    pytest.param(schema, tree(depth, "file"), id=f"{name}-{depth}")
    for name, schema in (("tree", tree_schema()), ("unmodelled-tree", tree_schema(unmodelled=True)))
    for depth in (0, 1, 4, 9)
] + [
    pytest.param(
        {
            "$defs": {"a b": {"type": "array", "items": {"$ref": "#/$defs/a%20b"}}},
            "properties": {"v": {"$ref": "#/$defs/a%20b"}},
        },
        '{"v": [[[1]]]}',
        id="percent-escaped-pointer",
    ),
    pytest.param(
        {
            "$defs": {"x": {"$anchor": "x", "items": {"$ref": "#x"}}, "y": {"$id": "y.json", "items": {}}},
            "properties": {"p": {"$ref": "#x"}, "q": {"$dynamicRef": "#/$defs/x"}},
            "minProperties": 3,
        },
        '{"p": [[1]], "q": [2]}',
        id="anchors-ids-and-dynamic-references",
    ),
    pytest.param(
        {
            "$defs": {
                "a": {"$dynamicAnchor": "n", "items": {"$dynamicRef": "#n"}},
                "b": {"$id": "b", "$dynamicAnchor": "n", "items": {"items": {}}},
            },
            "properties": {"q": {"$dynamicRef": "#n"}, "r": {"$ref": "b"}},
            "required": ["z"],
        },
        '{"q": [[1, [2]]], "r": [[3]]}',
        id="dynamic-anchors",
    ),
    pytest.param(
        {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": True,
            "properties": {"r": {"$recursiveRef": "#"}, "s": {"type": "string"}},
        },
        '{"r": {"r": {"r": {"s": 1}}}}',
        id="recursive-references",
    ),
    pytest.param(
        {
            "$defs": {"inner": {"$id": "inner", "$defs": {"b": {"items": {}}}, "$ref": "#/$defs/b"}},
            "properties": {
                "v": {
                    "allOf": [{"$ref": "#/$defs/inner"}, {"not": {"type": "array"}}],
                    "if": {"minItems": 1},
                    "then": {"prefixItems": [{}, {}], "contains": {}},
                    "else": {"unevaluatedItems": {}},
                }
            },
        },
        '{"v": [1, 2, 3]}',
        id="in-place-applicators-and-items",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "definitions": {
                "a": {"id": "a.json", "definitions": {"b": {}}, "allOf": [{"$ref": "#/definitions/b"}]},
                "b": {"$ref": "#/definitions/a", "id": "#b", "items": {}},
            },
            "properties": {"p": {"$ref": "#/definitions/a"}, "qq": {"$ref": "#/definitions/b"}},
            "patternProperties": {"^p": {}, "^q": {}},
            "dependencies": {"p": {"required": ["z"]}, "qq": {"minProperties": 1}},
            "propertyNames": {"maxLength": 1},
            "additionalProperties": {"type": "string"},
        },
        '{"p": 1, "qq": 2}',
        id="draft-4-members-and-names",
    ),
]


@pytest.mark.parametrize(("schema", "arguments"), COUNTED)
def test_the_core_and_the_reference_count_the_same_steps(schema: Any, arguments: str) -> None:
    assert toolwire.validate("t", arguments, ToolRegistry({"t": schema})), "the case must be invalid"
    assert least_budget(toolwire, schema, arguments) == least_budget(toolwire.reference, schema, arguments)


def test_the_count_grows_with_the_depth_of_a_recursive_union_not_with_its_branches() -> None:
    counts = [least_budget(toolwire, tree_schema(), tree(depth, "file")) for depth in range(8)]
    assert len({later - earlier for earlier, later in itertools.pairwise(counts)}) == 1, counts
    # Where the libraries search themselves, every branch is counted again at every level.
    counts = [least_budget(toolwire, tree_schema(unmodelled=True), tree(depth, "file")) for depth in range(8)]
    assert all(later > 2 * earlier for earlier, later in itertools.pairwise(counts)), counts


@given(tool_schemas().flatmap(lambda schema: st.tuples(st.just(schema), near_object(schema))), st.integers(1, 40))
def test_generated_calls_agree_under_any_budget(case: tuple[dict[str, Any], Any], budget: int) -> None:
    schema, arguments = case
    registry = ToolRegistry({"t": schema})
    limits = Limits(max_validation_steps=budget)
    text = json.dumps(arguments)
    core = toolwire.validate("t", text, registry, limits=limits)
    reference = toolwire.reference.validate("t", text, registry, limits=limits)
    assert [(*v.key(), v.data) for v in core] == [(*v.key(), v.data) for v in reference]


def test_empty_arguments_are_counted_as_the_object_they_stand_for(implementation: ModuleType) -> None:
    # A short text is not counted (its pairs cannot pass the budget); `""` stands for `{}`, three pairs here.
    registry = ToolRegistry({"t": {"allOf": [{"required": ["a"]}, {"required": ["b"]}]}})
    found = [implementation.validate("t", "", registry, limits=Limits(max_validation_steps=steps)) for steps in (2, 3)]
    assert [codes(each) for each in found] == [
        [("EMPTY_ARGUMENTS", None), ("VALIDATION_BUDGET_EXCEEDED", "")],
        [("EMPTY_ARGUMENTS", None), ("MISSING_REQUIRED_ARGUMENT", "/a"), ("MISSING_REQUIRED_ARGUMENT", "/b")],
    ]


def test_limits_check_the_budget() -> None:
    assert Limits().max_validation_steps == 100_000
    with pytest.raises(ValueError, match="max_validation_steps must be at least 1"):
        Limits(max_validation_steps=0)
    with pytest.raises(ValueError, match="below 2\\*\\*64"):
        Limits(max_validation_steps=2**64)
    with pytest.raises(TypeError, match="max_validation_steps must be an int"):
        Limits(max_validation_steps=1.5)  # type: ignore[arg-type]
    assert Limits(max_validation_steps=2**64 - 1).max_validation_steps == 2**64 - 1


# ------------------------------------------------------------------------------------------------ hostile, bounded

DEPTHS = (8, 16, 24, 32, 40)
SETUP = f"""
import json
import toolwire
import toolwire.reference
from toolwire import ToolRegistry
TOOLS = ToolRegistry({{"t": {tree_schema()!r}}})
UNMODELLED = ToolRegistry({{"t": {tree_schema(unmodelled=True)!r}}})
DEEP = {{{", ".join(f"{depth}: {tree(depth, 'file')!r}" for depth in DEPTHS)}}}
"""


def test_a_bad_leaf_8_to_40_levels_deep_is_found_in_bounded_time_and_memory(implementation: ModuleType) -> None:
    snippet = f"""
outcome = [[(v.code.value, v.path) for v in {implementation.__name__}.validate("t", DEEP[depth], TOOLS)] for depth in {DEPTHS!r}]
"""
    ran = run_bounded(snippet, setup=SETUP, memory_mib=1024, timeout_s=60)
    assert ran.outcome == [[["CONSTRAINT_VIOLATION", leaf(depth)]] for depth in DEPTHS]
    # Measured on the shared 2-core machine, the five trees together, the schema compiled on the first: core 1-5 ms
    # and 0.25 MiB, reference 130-200 ms and 9.4 MiB (the walk's memory is one outcome per pair it judges).
    assert ran.seconds < 1.0, ran.seconds
    assert ran.peak_growth_mib < 32, ran.peak_growth_mib


def test_a_long_array_of_failed_unions_is_judged_in_time_linear_in_its_length(implementation: ModuleType) -> None:
    items = 32_000 if implementation is toolwire else 4_000
    # Each item fails both branches on its type alone: one TYPE_MISMATCH per item, each union listing its branches'
    # types. 32 000 items are 96 001 pairs, within the budget; the reference, ~100 times slower, judges fewer.
    setup = f"""
import json
import {implementation.__name__}
from toolwire import ToolRegistry
TOOLS = ToolRegistry({{"t": {{"properties": {{"a": {{"items": {{"anyOf": [{{"type": "string"}}, {{"type": "integer"}}]}}}}}}}}}})
TEXT = json.dumps({{"a": [1.5] * {items}}})
"""
    snippet = f"""
found = {implementation.__name__}.validate("t", TEXT, TOOLS)
outcome = [len(found), sorted({{(v.code.value, str(v.data)) for v in found}})]
"""
    ran = run_bounded(snippet, setup=setup, memory_mib=1024, timeout_s=60)
    assert ran.outcome == [items, [["TYPE_MISMATCH", "{'expected': ['string', 'integer']}"]]]
    # Measured on the shared 2-core machine (dev build): core 0.65 s and 167 MiB, reference 0.36 s and 20 MiB, most of
    # it the violations themselves; a union that marked every outcome of the walk to list its branches' types took
    # the core 7.7 s.
    assert ran.seconds < 1.5, ran.seconds
    assert ran.peak_growth_mib < 256, ran.peak_growth_mib


@pytest.mark.parametrize("through", ["validate", "validate_many", "reassemble"])
@pytest.mark.parametrize("registry", ["TOOLS", "UNMODELLED"])
def test_a_hostile_recursive_union_is_judged_in_bounded_time_and_memory(
    implementation: ModuleType, through: str, registry: str
) -> None:
    calls = {
        "validate": f"found = [{implementation.__name__}.validate('t', DEEP[24], {registry})]",
        "validate_many": f"found = {implementation.__name__}.validate_many([('t', DEEP[24])] * 3, {registry})",
        "reassemble": f"""
call = {{"index": 0, "id": "c", "type": "function", "function": {{"name": "t", "arguments": DEEP[24]}}}}
chunks = [{{"choices": [{{"index": 0, "delta": {{"tool_calls": [call]}}}}]}},
          {{"choices": [{{"index": 0, "delta": {{}}, "finish_reason": "tool_calls"}}]}}]
found = [call.errors for call in {implementation.__name__}.reassemble(chunks, tools={registry}, on_invalid="yield")]
""",
    }
    ran = run_bounded(
        calls[through] + "\noutcome = [[v.code.value for v in each] for each in found]",
        setup=SETUP,
        memory_mib=1024,
        timeout_s=60,
    )
    # The walk finds the leaf; the libraries' own search would take 2**24 steps and is not started.
    expected = "CONSTRAINT_VIOLATION" if registry == "TOOLS" else "VALIDATION_BUDGET_EXCEEDED"
    assert all(each == [expected] for each in ran.outcome), ran.outcome
    # Measured on the shared 2-core machine: core 1-8 ms and under 0.25 MiB, reference 90-320 ms and under 9.1 MiB
    # (either search, three calls at most); before issue 15, depth 24 took minutes and gigabytes.
    assert ran.seconds < 1.0, ran.seconds
    assert ran.peak_growth_mib < 32, ran.peak_growth_mib


@pytest.mark.parametrize("children_first", [False, True])
def test_the_reference_decides_validity_without_exploring_every_branch(children_first: bool) -> None:
    """``jsonschema`` alone judges a recursive ``$ref`` target again under each branch above it: 2**depth times."""
    setup = f"""
import toolwire.reference
from toolwire import ToolRegistry
TOOLS = ToolRegistry({{"t": {tree_schema(children_first=children_first)!r}}})
"""
    snippet = f"""
outcome = [
    [v.code.value for v in toolwire.reference.validate("t", {tree(40, "folder")!r}, TOOLS)],
    [v.code.value for v in toolwire.reference.validate("t", {tree(40, "file")!r}, TOOLS)],
]
"""
    ran = run_bounded(snippet, setup=setup, memory_mib=1024, timeout_s=60)
    assert ran.outcome == [[], ["CONSTRAINT_VIOLATION"]]
    assert ran.seconds < 1.0, ran.seconds
    assert ran.peak_growth_mib < 32, ran.peak_growth_mib


def test_a_schema_whose_references_cannot_be_read_fails_closed() -> None:
    """Never seen once a schema compiled, but if the count cannot be made, no search is taken to be bounded."""
    import referencing.jsonschema

    from toolwire.reference._search_cost import SearchGraph
    from toolwire.reference._validator import _OFFLINE_WITH_METASCHEMAS

    unreadable = SearchGraph(
        {"items": {"$id": "http://[x"}}, referencing.jsonschema.DRAFT202012, _OFFLINE_WITH_METASCHEMAS
    )
    assert unreadable.exceeds({}, 2**63)
    readable = SearchGraph({"items": {}}, referencing.jsonschema.DRAFT202012, _OFFLINE_WITH_METASCHEMAS)
    assert not readable.exceeds([1] * 1000, 1001)
    assert readable.exceeds([1] * 1000, 1000)
