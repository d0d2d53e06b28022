"""The core's quick check (rust/core/src/quick_check.rs) on the corpus's real schemas: the verdict stays Python's.

Most real tool schemas use only ``type``, ``properties``, ``required``, ``additionalProperties``, ``items``, string
``enum`` and annotations; for them the core says "valid" from a walk over the text, without building a value, and
leaves everything else to the full validator. Here arguments generated for real schemas, then broken in the ways
calls break (a member dropped, a leaf of the wrong type, an undeclared member, an enum value misspelt), get the verdict
Python's ``jsonschema`` gives, with findings exactly when it finds something.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
from hypothesis import event, given, reject
from hypothesis import strategies as st

import toolwire
import toolwire.strategies as strategies
from tests.support.paths import corpus
from toolwire import ToolRegistry
from toolwire.strategies import UnsupportedSchemaError

FILES = ("bfcl_v4_jsonschema.jsonl", "pydantic-ai_cassettes.jsonl", "anthropic-sdk_snapshots.jsonl")
# Leaves of every JSON type, to put where a schema expects another (or the same).
LEAVES = (None, True, 0, -7, 2.5, 1.0, 10**30, "", "x", [], {}, ["x"], {"k": 1})


@cache
def definitions() -> tuple[dict[str, Any], ...]:
    found: dict[str, dict[str, Any]] = {}
    for name in FILES:
        for line in (corpus("tool-schemas") / name).read_text(encoding="utf-8").splitlines():
            tool = json.loads(line)
            parameters = tool.get("parameters") or tool.get("input_schema")
            if isinstance(parameters, dict) and tool.get("name") not in found:
                found[tool["name"]] = {"name": tool["name"], "parameters": parameters}
    return tuple(found[name] for name in sorted(found))


@cache
def registry() -> ToolRegistry:
    return ToolRegistry.load([{"type": "function", "function": tool} for tool in definitions()])


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside ``value`` (members and items), the root's included."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*at, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += paths(item, (*at, position))
    return found


def put(value: Any, at: tuple[Any, ...], leaf: Any) -> Any:
    if not at:
        return leaf
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[at[0]] = put(value[at[0]], at[1:], leaf)
    return copy


@st.composite
def calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    tool = draw(st.sampled_from(definitions()))
    try:
        arguments = draw(strategies.arguments({"type": "function", "function": tool}))
    except UnsupportedSchemaError:
        reject()  # a schema no value satisfies (an enum its own type refuses): nothing to call it with
    breaking = draw(st.sampled_from(("none", "leaf", "drop", "add")))
    if breaking == "leaf":
        at = draw(st.sampled_from(paths(arguments)[1:] or [()]))
        arguments = put(arguments, at, draw(st.sampled_from(LEAVES) | st.text(max_size=3)))
    elif breaking == "drop" and arguments:
        arguments = {key: item for key, item in arguments.items() if key != draw(st.sampled_from(sorted(arguments)))}
    elif breaking == "add":
        arguments = {**arguments, draw(st.text(min_size=1, max_size=4)): draw(st.sampled_from(LEAVES))}
    return tool, arguments


@given(calls())
def test_the_verdict_on_real_schemas_is_pythons(call: tuple[dict[str, Any], dict[str, Any]]) -> None:
    tool, arguments = call
    draft = jsonschema.validators.validator_for(tool["parameters"], default=jsonschema.Draft202012Validator)
    expected = draft(tool["parameters"]).is_valid(arguments)
    event(f"valid: {expected}")
    found = toolwire.validate(tool["name"], json.dumps(arguments), registry())
    assert (not found) == expected, (tool, arguments, found)
