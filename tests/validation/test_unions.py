"""Below a failed ``anyOf``/``oneOf``: the findings of the branch the value singles out, or one violation (issue 15).

The rule (docs/semantics.md, "Checking calls against the declared tools"): the branches are ranked by their own
findings (the value's type accepted, then its tags, then its required members, then the depth of the shallowest
finding); when one branch ranks first alone and the value has its type and its tags, that branch's findings are
reported in the union's place, at their own pointers; otherwise the union is one violation at the value. Every
expectation here is derived from that rule by hand, and holds in the core and in the reference alike.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from toolwire import ToolRegistry, Violation

PET = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer", "maximum": 9}},
            "required": ["kind", "lives"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"kind": {"const": "dog"}, "barks": {"type": "boolean"}},
            "required": ["kind", "barks"],
            "additionalProperties": False,
        },
    ]
}
ADDRESS = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
    "required": ["street", "zip"],
}
# pydantic's `Optional[Address]` and a list of either kind of pet.
OWNER = {
    "type": "object",
    "$defs": {"Address": ADDRESS, "Pet": PET},
    "properties": {
        "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]},
        "pets": {"type": "array", "items": {"$ref": "#/$defs/Pet"}},
        "nickname": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}]},
    },
}
# A nested task list: a task's subtasks are tasks, or a note.
TASKS = {
    "type": "object",
    "$defs": {
        "Task": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "subtasks": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/Task"}, {"$ref": "#/$defs/Note"}]}},
            },
            "required": ["title"],
            "additionalProperties": False,
        },
        "Note": {
            "type": "object",
            "properties": {"note": {"type": "string"}},
            "required": ["note"],
            "additionalProperties": False,
        },
    },
    "properties": {"task": {"$ref": "#/$defs/Task"}},
    "required": ["task"],
}
REGISTRY = ToolRegistry({"owner": OWNER, "pet": {"type": "object", "properties": {"pet": PET}}, "tasks": TASKS})


def findings(violations: list[Violation]) -> list[tuple[str, str | None, Any]]:
    return [(v.code.value, v.path, v.data) for v in violations]


# The branch the value singles out is reported in the union's place.
SINGLED_OUT = [
    pytest.param(
        "owner",
        {"address": {"street": "Main"}},
        [("MISSING_REQUIRED_ARGUMENT", "/address/zip", None)],
        id="optional-model-missing-member",
    ),
    pytest.param(
        "owner",
        {"address": {"street": "Main", "zip": "123"}},
        [("CONSTRAINT_VIOLATION", "/address/zip", {"keyword": "pattern", "limit": "^[0-9]{5}$"})],
        id="optional-model-bad-member",
    ),
    pytest.param(
        "owner",
        {"pets": [{"kind": "dog", "barks": "yes"}, {"kind": "cat", "lives": 12}]},
        [
            ("TYPE_MISMATCH", "/pets/0/barks", {"expected": ["boolean"]}),
            ("CONSTRAINT_VIOLATION", "/pets/1/lives", {"keyword": "maximum", "limit": 9}),
        ],
        id="tagged-union-takes-the-tag",
    ),
    pytest.param(
        "owner",
        {"pets": [{"kind": "cat", "lives": 3, "barks": True}]},
        # The dog branch refuses the tag; the cat branch only the extra member.
        [("UNEXPECTED_ARGUMENT", "/pets/0/barks", None)],
        id="tagged-union-extra-member",
    ),
    pytest.param(
        "owner",
        {"nickname": -1},
        # The string branch refuses the type.
        [("CONSTRAINT_VIOLATION", "/nickname", {"keyword": "minimum", "limit": 0})],
        id="scalar-union-by-type",
    ),
    pytest.param(
        "tasks",
        {"task": {"title": "a", "subtasks": [{"title": "b", "subtasks": [{"title": ""}]}]}},
        # A task, not a note: the note branch misses `note` and refuses `title`; the task branch fails deeper.
        [("CONSTRAINT_VIOLATION", "/task/subtasks/0/subtasks/0/title", {"keyword": "minLength", "limit": 1})],
        id="recursive-task-list",
    ),
    pytest.param(
        "tasks",
        {"task": {"title": "a", "subtasks": [{"note": 3}]}},
        # A note: the task branch misses `title` and refuses `note`, the note branch only types it wrong.
        [("TYPE_MISMATCH", "/task/subtasks/0/note", {"expected": ["string"]})],
        id="recursive-task-list-note",
    ),
]


# A union no branch is singled out by is one violation.
ONE_VIOLATION = [
    pytest.param(
        "owner",
        {"address": "Main street"},
        [("TYPE_MISMATCH", "/address", {"expected": ["object", "null"]})],
        id="every-branch-refuses-the-type",
    ),
    pytest.param(
        "owner",
        {"pets": [{"kind": "cow"}]},
        [("CONSTRAINT_VIOLATION", "/pets/0", {"keyword": "oneOf"})],
        id="every-branch-refuses-the-tag",
    ),
    pytest.param(
        "pet",
        {"pet": {"lives": 1}},
        # No tag: each branch misses members, one level below; neither ranks first alone.
        [("CONSTRAINT_VIOLATION", "/pet", {"keyword": "oneOf"})],
        id="no-tag-and-members-missing-in-both",
    ),
    pytest.param(
        "tasks",
        {"task": {"title": "a", "subtasks": [{}]}},
        # Both branches miss a member, at the same depth: neither is singled out.
        [("CONSTRAINT_VIOLATION", "/task/subtasks/0", {"keyword": "anyOf"})],
        id="two-branches-as-close",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), [*SINGLED_OUT, *ONE_VIOLATION])
def test_a_union_reports_the_branch_the_value_singles_out_or_else_one_violation(
    implementation: ModuleType, tool: str, arguments: Any, expected: list[Any]
) -> None:
    assert findings(implementation.validate(tool, json.dumps(arguments), REGISTRY)) == expected


def test_a_one_of_that_several_branches_match_is_one_violation(implementation: ModuleType) -> None:
    union = {"oneOf": [{"type": "number"}, {"type": "integer"}, {"minimum": 0}]}
    registry = ToolRegistry({"t": {"properties": {"n": union}}})
    (violation,) = implementation.validate("t", '{"n": 1}', registry)
    assert findings([violation]) == [("CONSTRAINT_VIOLATION", "/n", {"keyword": "oneOf"})]
    assert violation.message == "oneOf: matches 3 of the 3 alternatives; exactly one is allowed"


def test_findings_reported_in_a_unions_place_keep_their_own_severity_and_recoverability(
    implementation: ModuleType,
) -> None:
    (violation,) = implementation.validate("owner", '{"address": {"street": 1, "zip": "12345"}}', REGISTRY)
    assert (violation.code.value, violation.path, violation.message) == (
        "TYPE_MISMATCH",
        "/address/street",
        "expected string, got integer",
    )
    assert violation.severity is toolwire.Severity.ERROR
    assert violation.recoverable


def test_streams_report_the_closest_branch_as_validate_does(implementation: ModuleType) -> None:
    arguments = json.dumps({"pets": [{"kind": "dog", "barks": "yes"}]})
    call = {"index": 0, "id": "c", "type": "function", "function": {"name": "owner", "arguments": arguments}}
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    (invalid,) = implementation.reassemble(chunks, tools=REGISTRY, on_invalid="yield")
    assert findings(list(invalid.errors)) == [("TYPE_MISMATCH", "/pets/0/barks", {"expected": ["boolean"]})]
