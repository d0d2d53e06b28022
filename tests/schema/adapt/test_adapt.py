"""``adapt_tools`` and ``toolwire adapt``: schemas rewritten into a target's subset, every change reported, led by
the lint's own rule files; the originals keep judging the calls."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Final, Literal

import jsonschema
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


class Pickup(BaseModel):
    kind: Literal["pickup"]
    store: str = Field(pattern="^s-[0-9]+$")


class Delivery(BaseModel):
    kind: Literal["delivery"]
    address: Address


class Shipment(BaseModel):
    order: Order
    method: Pickup | Delivery = Field(discriminator="kind")
    note: str = Field("", max_length=20)


def _openapi_as_json_schema(schema: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` in JSON Schema's words: null joins the type and the enum."""
    if isinstance(schema, list):
        return [_openapi_as_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    written = {key: _openapi_as_json_schema(value) for key, value in schema.items() if key != "nullable"}
    if schema.get("nullable") is True:
        written["type"] = [schema["type"], "null"]
        if "enum" in written:
            written["enum"] = [*written["enum"], None]
    return written


def _shipment(**changes: Any) -> dict[str, Any]:
    """A valid call's arguments, with the values at ``changes``' dotted paths replaced (``...`` removes one)."""
    arguments: dict[str, Any] = {
        "order": {"customer": "c-1", "items": [{"sku": "A", "quantity": 2}], "address": {"street": "Main 1"}},
        "method": {"kind": "pickup", "store": "s-12"},
    }
    for path, value in changes.items():
        *parents, last = path.split("__")
        node: Any = arguments
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is ...:
            del node[last]
        else:
            node[last] = value
    return arguments


# Each call: the original's verdict, ours, pydantic-ai's, and for a call only ours takes, the weakening that explains
# it (the pointer of the constraint lifted into the description). Derived from the models by hand.
_GEMINI_CALLS: Final = [
    ("valid pickup", _shipment(), True, True, True, None),
    ("nulls where allowed", _shipment(order__channel=None, order__address__zip=None), True, True, True, None),
    ("valid delivery", _shipment(method={"kind": "delivery", "address": {"street": "Elm 2"}}), True, True, True, None),
    ("a channel", _shipment(order__channel="web", note="ring twice"), True, True, True, None),
    (
        "quantity 0",
        _shipment(order__items__0__quantity=0),
        False,
        True,
        False,
        "/$defs/Item/properties/quantity/minimum",
    ),
    (
        "store off pattern",
        _shipment(method__store="north"),
        False,
        True,
        False,
        "/$defs/Pickup/properties/store/pattern",
    ),
    ("note too long", _shipment(note="x" * 21), False, True, False, "/properties/note/maxLength"),
    ("unknown kind", _shipment(method__kind="drone"), False, False, False, None),
    ("unknown channel", _shipment(order__channel="fax"), False, False, False, None),
    ("no customer", _shipment(order__customer=...), False, False, False, None),
    ("gift not a boolean", _shipment(order__gift="yes"), False, False, False, None),
    ("zip not a string", _shipment(order__address__zip=5), False, False, False, None),
    ("pickup without store", _shipment(method__store=...), False, False, False, None),
]


@pytest.mark.parametrize(
    ("call", "original", "ours", "theirs", "weakened"),
    [case[1:] for case in _GEMINI_CALLS],
    ids=[case[0] for case in _GEMINI_CALLS],
)
def test_gemini_takes_what_pydantic_ais_profile_takes_but_for_the_constraints_it_only_guides(
    call: dict[str, Any], original: bool, ours: bool, theirs: bool, weakened: str | None
) -> None:
    """Ours and pydantic-ai's ``GoogleOpenAPISchemaTransformer`` (the same OpenAPI subset) judged on the same calls.

    Neither narrows the original. They differ only where they read Gemini differently: pydantic-ai keeps
    ``minimum``, ``pattern`` and ``maxLength``, which VALIDATED mode enforces, while the rule file reads AUTO mode,
    where they only guide the model, so ours lifts them into the description and reports each as a weakening. Both
    outputs are schemas Gemini takes by the rule file; ours keeps the root ``$defs`` the Schema proto has, theirs
    writes every reference out.
    """
    from pydantic_ai.profiles.google import GoogleOpenAPISchemaTransformer

    schema = Shipment.model_json_schema()
    theirs_schema = GoogleOpenAPISchemaTransformer(copy.deepcopy(schema)).walk()
    tool = adapted("gemini", copy.deepcopy(schema))
    for definition in (tool.definition, {"name": "ship", "description": DESCRIPTION, "parameters": theirs_schema}):
        assert rejects(definition, "gemini") == []
    verdicts = [
        jsonschema.Draft202012Validator(judge).is_valid(call)
        for judge in (schema, tool.definition["parameters"], _openapi_as_json_schema(theirs_schema))
    ]
    assert verdicts == [original, ours, theirs]
    lifted = {change.pointer for change in tool.adaptations if change.weakening}
    assert weakened is None or weakened in lifted
    assert "discriminator" not in json.dumps(tool.definition["parameters"])  # it only documents: removed quietly


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
