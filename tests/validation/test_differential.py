"""Generated schemas and arguments: the core's and the reference's validators agree, in ``validate`` and in streams.

Issue 3's agreement rule: verdicts agree on every case; (code, pointer) pairs agree for type, required, enum,
additionalProperties and numeric/length bounds. The strategies (tests/support/strategies_schema.py) only use those
keywords, so here the whole sorted list of (code, severity, path) must be equal, and so must the data that says
what is allowed (expected types, allowed values, keyword and limit). Issue 15 adds unions of tagged objects: below a
failed one, both report the branch the value singles out, or the one violation, alike.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import toolwire
import toolwire.reference as reference
from tests.support.strategies_schema import near_object, scalars, tool_schemas
from toolwire import ToolRegistry, Violation


def keys(violations: list[Violation] | tuple[Violation, ...]) -> list[tuple[Any, ...]]:
    return [(*v.key(), json.dumps(v.data, sort_keys=True)) for v in violations]


@st.composite
def cases(draw: st.DrawFn, *, unions: bool = False) -> tuple[dict[str, Any], str]:
    schema = draw(tool_schemas(unions=unions))
    # Mostly objects, as arguments are; a few other values keep ARGUMENTS_NOT_OBJECT in the comparison.
    arguments = draw(scalars) if draw(st.integers(0, 9)) == 7 else draw(near_object(schema))
    return schema, json.dumps(arguments, ensure_ascii=draw(st.booleans()))


@given(cases())
def test_validate_agrees(case: tuple[dict[str, Any], str]) -> None:
    schema, text = case
    registry = ToolRegistry({"t": schema})
    core = toolwire.validate("t", text, registry)
    ref = reference.validate("t", text, registry)
    assert keys(core) == keys(ref), (schema, text)


@given(cases(unions=True))
def test_validate_agrees_below_unions(case: tuple[dict[str, Any], str]) -> None:
    schema, text = case
    registry = ToolRegistry({"t": schema})
    assert keys(toolwire.validate("t", text, registry)) == keys(reference.validate("t", text, registry)), (
        schema,
        text,
    )


@given(cases(unions=True), st.lists(st.integers(min_value=1, max_value=12), max_size=3))
def test_streams_agree_and_judge_as_validate(case: tuple[dict[str, Any], str], cuts: list[int]) -> None:
    schema, text = case
    registry = ToolRegistry({"t": schema, "u": {"type": "object"}})
    pieces, rest = [], text
    for cut in cuts:
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    head = {"index": 0, "id": "c", "type": "function", "function": {"name": "t", "arguments": pieces[0]}}
    chunks: list[dict[str, Any]] = [{"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}]
    for piece in pieces[1:]:
        delta = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        chunks.append({"choices": [{"index": 0, "delta": delta}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})

    (core,) = toolwire.reassemble(chunks, tools=registry, on_invalid="yield")
    (ref,) = reference.reassemble(chunks, tools=registry, on_invalid="yield")
    assert core == ref
    found = core.violations if core.ok else (*core.errors, *core.violations)
    expected = toolwire.validate("t", text, registry)
    # The stream places the call (choice, seq, index) and orders errors before warnings; validate does neither.
    assert sorted(keys([v for v in expected])) == sorted(
        (code, severity, None, None, path, data) for code, severity, _, _, path, data in keys(found)
    )
    assert core.tool_fingerprint == registry["t"].fingerprint
