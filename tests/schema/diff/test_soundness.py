"""The walk against an independent oracle: no call that OLD accepts and NEW refuses goes unexplained.

Hypothesis draws an OLD schema and a NEW one (an edit of OLD, or another schema altogether) and argument objects
near both. ``jsonschema`` (not toolwire) says which instances each accepts. Whenever some instance is valid under
OLD and invalid under NEW, the diff must contain a change whose replay check can fail (``fail``, ``unknown`` or
``caution``): a diff that calls such a pair COMPATIBLE or only RISKY by its checks would let a breaking change
through. And whenever the two accept different instances at all, the diff must not be empty. A second draw covers
the whole vocabulary the inclusion proofs read, where a change cleared by a proof must never hide a break.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies_schema import NAMES, leaf_schemas, near, schema_versions, small_values, tool_schemas
from toolwire.schema.diff._normalize import normalise
from toolwire.schema.diff._walk import walk_parameters

CAN_FAIL = {"fail", "unknown", "caution"}


def _nodes(schema: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(schema, dict):
        found.append(schema)
        for sub in (schema.get("properties") or {}).values():
            _nodes(sub, found)
        _nodes(schema.get("items"), found)
    return found


@st.composite
def edited(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with one to three edits at random nodes."""
    new = copy.deepcopy(schema)
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from(_nodes(new, [])))
        edit = draw(st.sampled_from(["replace", "bound", "required", "open", "property", "drop", "enum"]))
        if edit == "replace":
            replacement = draw(leaf_schemas())
            node.clear()
            node.update(replacement)
        elif edit == "bound":
            node[draw(st.sampled_from(["maximum", "minimum", "maxLength", "minLength", "maxItems"]))] = draw(
                st.integers(0, 5)
            )
        elif edit == "required" and node.get("properties"):
            node["required"] = draw(st.lists(st.sampled_from(sorted(node["properties"])), unique=True))
        elif edit == "open" and node.get("type") == "object":
            node["additionalProperties"] = draw(st.sampled_from([True, False, {"type": "integer"}]))
        elif edit == "property" and node.get("type") == "object":
            node.setdefault("properties", {})[draw(st.sampled_from(NAMES))] = draw(leaf_schemas())
        elif edit == "drop" and node.get("properties"):
            del node["properties"][draw(st.sampled_from(sorted(node["properties"])))]
            node["required"] = [name for name in node.get("required", []) if name in node["properties"]]
        elif edit == "enum":
            node["enum"] = draw(st.lists(st.sampled_from([0, 1, "a", "b", None, True]), min_size=1, max_size=3))
    return new


def valid(schema: Any, instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


@given(st.data())
def test_a_call_old_accepts_and_new_refuses_is_always_explained(data: st.DataObject) -> None:
    old = data.draw(tool_schemas())
    new = data.draw(st.one_of(edited(old), tool_schemas()))
    changes = walk_parameters("t", normalise(old), normalise(new))
    instances = data.draw(st.lists(st.one_of(near(old), near(new)), min_size=1, max_size=8))
    broken = [x for x in instances if isinstance(x, dict) and valid(old, x) and not valid(new, x)]
    differ = [x for x in instances if isinstance(x, dict) and valid(old, x) != valid(new, x)]
    if broken:
        replays = {change.kind: change.checks.replay for change in changes if change.checks}
        assert CAN_FAIL & set(replays.values()), (old, new, broken[0], replays)
    if differ:
        assert changes, (old, new, differ[0])


def parameter(schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": schema}, "required": ["v"], "additionalProperties": False}


@given(schema_versions(), st.lists(small_values, min_size=10, max_size=30))
def test_over_the_whole_vocabulary_no_break_is_cleared_or_missed(pair: tuple[Any, Any], values: list[Any]) -> None:
    # Unions, not, if, extra keys under patterns, tuples, unevaluated keywords: the changes a proof clears, and the
    # oneOf exclusivity the walk adds, must still leave every break explained.
    old, new = parameter(pair[0]), parameter(pair[1])
    broken = [value for value in values if valid(old, {"v": value}) and not valid(new, {"v": value})]
    if broken:
        changes = walk_parameters("t", normalise(old), normalise(new))
        replays = {(change.kind, change.path): change.checks.replay for change in changes if change.checks}
        assert CAN_FAIL & set(replays.values()), (pair, broken[0], replays)


def test_removing_a_zero_min_contains_beside_contains_is_a_tightened_bound() -> None:
    # Found by the test above: beside contains an absent minContains is 1, so dropping minContains: 0 refuses [].
    old = parameter({"type": "array", "contains": True, "minContains": 0})
    new = parameter({"type": "array", "contains": True})
    assert valid(old, {"v": []}) and not valid(new, {"v": []})
    changes = walk_parameters("t", normalise(old), normalise(new))
    assert [(change.kind, change.path) for change in changes] == [("bound-tightened", "/properties/v")]
    assert all(change.checks.replay in CAN_FAIL for change in changes if change.checks)
