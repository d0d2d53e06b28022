"""``adapt_tools`` and ``toolwire adapt``: schemas rewritten into a target's subset, every change reported, led by
the lint's own rule files; the originals keep judging the calls."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Literal

import pytest
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel, Field

import toolwire
from tests.support.paths import corpus
from toolwire.cli import main
from toolwire.schema import load_tools
from toolwire.schema.adapt import adapt_tools
from toolwire.schema.lint import lint_tools

DESCRIPTION = "Create an order for a customer and return its number."


def order_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "customer": {"type": "string", "pattern": "^c-[0-9]+$", "description": "The customer's id."},
            "note": {"type": "string", "maxLength": 200, "default": ""},
            "priority": {"oneOf": [{"const": "normal"}, {"const": "urgent"}]},
            "address": {"$ref": "#/$defs/Address", "description": "Where it goes."},
        },
        "required": ["customer", "address"],
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": ["string", "null"]}},
                "required": ["street"],
            }
        },
    }


def adapted(target: str, schema: dict[str, Any]) -> Any:
    (tool,) = adapt_tools([{"name": "create_order", "description": DESCRIPTION, "parameters": schema}], target).tools
    return tool


def rejects(definition: dict[str, Any], target: str) -> list[str]:
    return [f.rule for f in lint_tools([definition], target).findings if f.effect == "reject"]


def test_openai_strict_takes_the_adapted_schema_and_every_change_is_said() -> None:
    schema = order_schema()
    assert rejects({"name": "create_order", "description": DESCRIPTION, "parameters": schema}, "openai-strict")
    tool = adapted("openai-strict", schema)
    assert tool.ok and rejects(tool.definition, "openai-strict") == []
    assert tool.definition["strict"] is True
    parameters = tool.definition["parameters"]
    # Every property required, the optional ones nullable, every object closed (the root and the written-out $ref).
    assert parameters["required"] == ["customer", "address", "note", "priority"]
    assert parameters["properties"]["note"]["type"] == ["string", "null"]
    assert parameters["additionalProperties"] is False
    address = parameters["properties"]["address"]
    assert (
        "$ref" not in address
        and address["description"] == "Where it goes."
        and address["additionalProperties"] is False
    )
    assert address["required"] == ["street", "zip"]
    # oneOf -> anyOf (a weakening), and null added as a branch of its own for the optional priority.
    assert parameters["properties"]["priority"]["anyOf"][-1] == {"type": "null"}
    actions = {(change.action, change.weakening) for change in tool.adaptations}
    assert {("renamed", True), ("required-nullable", False), ("closed", False), ("inlined", False)} <= actions
    # The original is untouched.
    assert schema == order_schema()


def test_gemini_gets_its_openapi_subset_and_constraints_in_words() -> None:
    tool = adapted("gemini", order_schema())
    assert tool.ok and rejects(tool.definition, "gemini") == []
    parameters = tool.definition["parameters"]
    customer = parameters["properties"]["customer"]
    assert "pattern" not in customer
    assert customer["description"] == 'The customer\'s id. (matches the regular expression "^c-[0-9]+$")'
    lifted = [change for change in tool.adaptations if change.action == "lifted"]
    assert all(change.weakening for change in lifted if "pattern" in change.detail)


def test_a_call_the_adapted_schema_takes_is_still_judged_by_the_original() -> None:
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "maxLength": 5, "description": "A short code."}},
        "required": ["code"],
    }
    original = [
        {"name": "redeem", "description": "Redeem a voucher code for the signed-in customer.", "parameters": schema}
    ]
    tool = adapt_tools(original, "gemini").tools[0]
    assert "maxLength" not in json.dumps(tool.definition["parameters"])  # lifted: Gemini would not enforce it
    call = '{"code": "TOOLONG99"}'
    assert toolwire.validate("redeem", call, [tool.definition]) == []  # what the provider holds to
    (found,) = toolwire.validate("redeem", call, original)  # what the handler needs
    assert found.code is toolwire.ViolationCode.CONSTRAINT_VIOLATION and found.path == "/code"


class Item(BaseModel):
    sku: str
    quantity: int = Field(ge=1)


class Address(BaseModel):
    street: str
    zip: str | None = None


class Order(BaseModel):
    customer: str
    items: list[Item]
    address: Address = Field(description="Where it goes.")
    gift: bool = False
    channel: Literal["web", "phone"] | None = None


def objects(schema: Any, pointer: str = "") -> dict[str, Any]:
    """Every object schema of a schema, by pointer."""
    found: dict[str, Any] = {}
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            found[pointer] = schema
        for key, value in schema.items():
            found.update(objects(value, f"{pointer}/{key}"))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found.update(objects(value, f"{pointer}/{index}"))
    return found


def _pydantic_ai_strict(model: type[BaseModel]) -> dict[str, Any]:
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    return OpenAIJsonSchemaTransformer(copy.deepcopy(model.model_json_schema()), strict=True).walk()


@pytest.mark.parametrize("anchor", [to_strict_json_schema, _pydantic_ai_strict], ids=["openai-sdk", "pydantic-ai"])
def test_openai_strict_closes_and_requires_as_the_anchors_do(anchor: Any) -> None:
    sdk = anchor(Order)
    ours = adapted("openai-strict", copy.deepcopy(Order.model_json_schema())).definition["parameters"]
    sdk_objects, our_objects = objects(sdk), objects(ours)
    assert set(sdk_objects) <= set(our_objects)
    for pointer, expected in sdk_objects.items():
        mine = our_objects[pointer]
        assert sorted(mine["required"]) == sorted(expected["required"]), pointer
        assert mine["additionalProperties"] is expected["additionalProperties"] is False, pointer
    assert (
        rejects({"name": "order", "description": DESCRIPTION, "parameters": ours, "strict": True}, "openai-strict")
        == []
    )


def test_what_no_rewrite_answers_is_left_and_reported() -> None:
    # OpenAI's strict mode refuses objects nested more than ten deep: no rewrite keeps such a schema's meaning.
    deep: dict[str, Any] = {"type": "string"}
    for level in range(12):
        deep = {"type": "object", "properties": {f"level{level}": deep}, "required": [f"level{level}"]}
    report = adapt_tools([{"name": "nest", "description": DESCRIPTION, "parameters": deep}], "openai-strict")
    (tool,) = report.tools
    assert not tool.ok and not report.ok
    assert [(finding.rule, finding.effect) for finding in tool.left] == [("openai-strict/depth", "reject")]
    levels = [f.level for f in report.findings().findings if f.rule == "openai-strict/depth"]
    assert report.findings().command == "adapt" and levels == ["error"]
    broken = adapt_tools([{"name": "many", "description": DESCRIPTION, "parameters": {"type": "array"}}], "openai")
    (refused,) = broken.tools[0].left
    assert refused.rule == "adapt/not-loadable" and broken.tools[0].definition is None


def test_the_command_writes_the_definitions_and_reports_the_costs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "create_order", "description": DESCRIPTION, "parameters": order_schema()}]))
    out = tmp_path / "openai.json"
    assert main(["adapt", str(tools), "--target", "openai-strict", "--output", str(out), "--fail-on", "error"]) == 0
    (definition,) = json.loads(out.read_text(encoding="utf-8"))
    assert definition["name"] == "create_order" and rejects(definition, "openai-strict") == []
    printed = capsys.readouterr().out
    assert "openai-strict/one-of" in printed and "anyOf" in printed
    # Without --output the definitions go to stdout, the report to stderr.
    assert main(["adapt", str(tools), "--target", "gemini", "--output-format", "json"]) in (0, 1)
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["name"] == "create_order"
    assert json.loads(captured.err)["command"] == "adapt"
    assert main(["adapt", str(tools), "--target", "gemnii"]) == 2
    assert "did you mean 'gemini'?" in capsys.readouterr().err


def test_every_real_schema_that_loads_is_adapted_for_openai_strict_but_for_names() -> None:
    """Over the shared corpus's real definitions, no construct of a schema is left that strict mode refuses.

    A tool name no rule can fix without changing the calls (BFCL's ``math.sum``) is what is left, reported.
    """
    folder = corpus("tool-schemas")
    sources = [source for source in load_tools([folder]) if source.tool is not None]
    assert len(sources) > 3000
    report = adapt_tools(sources, "openai-strict")
    left = {finding.rule for tool in report.tools for finding in tool.left if finding.effect == "reject"}
    assert left <= {"openai-strict/name"}
    assert all(rejects(tool.definition, "openai-strict") == [] for tool in report.tools if tool.ok)


def test_definitions_a_target_refuses_are_written_out_and_dropped() -> None:
    street = {"type": "string", "description": "The street and number."}
    address = {
        "type": "object",
        "$defs": {"Street": street},  # nested definitions: Gemini refuses them
        "properties": {"street": {"$ref": "#/properties/address/$defs/Street"}},
        "required": ["street"],
    }
    schema = {"type": "object", "properties": {"address": address}, "required": ["address"]}
    tool = adapted("gemini", schema)
    assert tool.ok and rejects(tool.definition, "gemini") == []
    written = tool.definition["parameters"]["properties"]["address"]
    assert "$defs" not in written and written["properties"]["street"] == street
    assert [(change.action, change.detail) for change in tool.adaptations if change.action == "inlined"] == [
        ("inlined", "1 reference written out, $defs removed")
    ]
