"""Handler drift: `check_handler`, `tool_from_function` and `toolwire drift`."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import json
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal, NewType, Optional, Union
from xml.etree import ElementTree

import attrs
import pydantic
import pytest
import yaml
from typing_extensions import NotRequired, Required, TypedDict

import toolwire
from toolwire.cli import build_parser
from toolwire.cli._drift import run
from toolwire.schema import OUTPUT_FORMATS, FindingReport, load_tools, render
from toolwire.schema.drift._drift import DRIFT_RULES, check_handler, tool_from_function

# -- handlers of every kind, module-level so that their (string) annotations resolve -------------------------------


class Currency(enum.Enum):
    USD = "USD"
    EUR = "EUR"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class RefundArgs(pydantic.BaseModel):
    """The issue's example: a pydantic model the handler builds with RefundArgs(**args)."""

    order_id: str
    amount: float = pydantic.Field(gt=0)
    reason: Literal["damaged", "late", "other"]
    currency: Currency = Currency.USD


REFUND_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string"},
        "amount": {"type": "number"},
        "reason": {"type": "string", "enum": ["damaged", "late", "other"]},
        "currency": {"type": "string", "enum": ["USD", "EUR"], "default": "USD"},
    },
    "required": ["order_id", "amount", "reason"],
}
REFUND_TOOL = {"name": "refund", "description": "Refund an order.", "parameters": REFUND_SCHEMA}
# The same without the currency's default, which a TypedDict cannot apply (test_defaults has that finding).
PLAIN_REFUND = {
    "refund": dict(
        REFUND_SCHEMA, properties=dict(REFUND_SCHEMA["properties"], currency={"type": "string", "enum": ["USD", "EUR"]})
    )
}


def refund(
    order_id: str, amount: float, reason: Literal["damaged", "late", "other"], currency: Currency = Currency.USD
):
    """Refund an order."""


@dataclasses.dataclass
class RefundData:
    order_id: str
    amount: float
    reason: Literal["damaged", "late", "other"]
    currency: Currency = Currency.USD

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError("amount must be positive")


class RefundDict(TypedDict):
    order_id: str
    amount: float
    reason: Literal["damaged", "late", "other"]
    currency: NotRequired[Currency]


class RefundPartial(TypedDict, total=False):
    order_id: Required[str]
    amount: Required[float]
    reason: Required[Literal["damaged", "late", "other"]]
    currency: Currency


@attrs.define
class RefundAttrs:
    order_id: str
    amount: float = attrs.field(validator=attrs.validators.gt(0))
    reason: Literal["damaged", "late", "other"] = "other"
    currency: Currency = Currency.USD


KINDS = {
    "function": refund,
    "dataclass": RefundData,
    "pydantic": RefundArgs,
    "typeddict": RefundDict,
    "attrs": RefundAttrs,
}


def rules(report: FindingReport) -> set[str]:
    return {finding.rule for finding in report.findings}


def by_rule(report: FindingReport, rule: str) -> list[Any]:
    return [finding for finding in report.findings if finding.rule == rule]


def tool(properties: dict[str, Any], required: list[str] | None = None, name: str = "t") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return {"name": name, "parameters": schema}


# -- every rule: one failing and one passing case -----------------------------------------------------------------


def needs_b(a: str, b: int) -> None: ...
def b_has_default(a: str, b: int = 0) -> None: ...
def takes_a(a: str) -> None: ...
def takes_a_and_rest(a: str, **rest: Any) -> None: ...
def takes_int(n: int) -> None: ...
def takes_float(n: float) -> None: ...
def fast_only(mode: Literal["fast"]) -> None: ...
def fast_or_slow(mode: Literal["fast", "slow"]) -> None: ...
def five(n: int = 5) -> None: ...
def three(n: int = 3) -> None: ...


class Positive(pydantic.BaseModel):
    amount: float = pydantic.Field(gt=0)


NUMBER = tool({"amount": {"type": "number"}}, ["amount"])
MODES = tool({"mode": {"type": "string", "enum": ["fast", "slow"]}}, ["mode"])
DEFAULT_3 = tool({"n": {"type": "integer", "default": 3}})

FAILING: dict[str, tuple[Any, Any, list[Any]]] = {
    "handler-requires-unknown": (tool({"a": {"type": "string"}}, ["a"]), needs_b, []),
    "handler-requires-optional": (tool({"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"]), needs_b, []),
    "schema-property-ignored": (tool({"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"]), takes_a, []),
    "type-mismatch": (tool({"n": {"type": "number"}}, ["n"]), takes_int, []),
    "enum-mismatch": (MODES, fast_only, []),
    "default-mismatch": (DEFAULT_3, five, []),
    "example-refused": (NUMBER, Positive, [{"amount": -1}]),
}
PASSING: dict[str, tuple[Any, Any, list[Any]]] = {
    "handler-requires-unknown": (tool({"a": {"type": "string"}}, ["a"]), b_has_default, []),
    "handler-requires-optional": (tool({"a": {"type": "string"}, "b": {"type": "integer"}}, ["a", "b"]), needs_b, []),
    "schema-property-ignored": (tool({"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"]), takes_a_and_rest, []),
    "type-mismatch": (tool({"n": {"type": "number"}}, ["n"]), takes_float, []),
    "enum-mismatch": (MODES, fast_or_slow, []),
    "default-mismatch": (DEFAULT_3, three, []),
    "example-refused": (NUMBER, Positive, [{"amount": 5}]),
}


def test_every_rule_has_a_failing_and_a_passing_case():
    ids = [rule.id for rule in DRIFT_RULES]
    assert len(ids) == len(set(ids))
    assert set(FAILING) == set(PASSING) == set(ids)
    for rule in DRIFT_RULES:
        assert rule.level in ("error", "warning", "info")
        assert rule.summary.endswith(".")


@pytest.mark.parametrize("rule", [rule.id for rule in DRIFT_RULES])
def test_rule_fails_and_passes(rule):
    definition, handler, examples = FAILING[rule]
    failing = check_handler(definition, handler, examples=examples)
    assert rule in rules(failing)
    level = next(r.level for r in DRIFT_RULES if r.id == rule)
    assert all(f.level == level for f in by_rule(failing, rule))
    definition, handler, examples = PASSING[rule]
    assert rule not in rules(check_handler(definition, handler, examples=examples))


def test_rule_messages_name_the_field_and_pointer():
    report = check_handler(*FAILING["handler-requires-unknown"][:2])
    (finding,) = by_rule(report, "handler-requires-unknown")
    assert finding.pointer == "/properties/b"
    assert finding.tool == "t"
    assert finding.data["field"] == "needs_b.b"
    assert "'b'" in finding.message and "default" in finding.message
    (optional,) = by_rule(check_handler(*FAILING["handler-requires-optional"][:2]), "handler-requires-optional")
    assert optional.pointer == "/properties/b" and "required" in optional.message
    # Required in the schema but optional in the handler is fine: never the reverse.
    assert not check_handler(tool({"a": {"type": "string"}}, ["a"]), lambda a="x": None).findings


# -- the issue's example, through every kind of handler -----------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_of_handler_agrees_with_its_schema(kind):
    examples = [
        {"order_id": "A1", "amount": 12.5, "reason": "late"},
        {"order_id": "A2", "amount": 3, "reason": "other", "currency": "EUR"},
    ]
    report = check_handler(PLAIN_REFUND, KINDS[kind], examples=examples)
    assert report.findings == ()
    (summary,) = report.extra["handlers"]
    assert summary["kind"] == kind
    assert summary["examples_built"] == 2


def test_typeddict_totality_and_markers():
    # RefundDict is total with a NotRequired key; RefundPartial is total=False with Required keys. Under
    # `from __future__ import annotations` (this module) the markers are strings when the class is made.
    assert RefundDict.__required_keys__ >= {"order_id"}
    assert not check_handler(PLAIN_REFUND, RefundPartial).findings
    loose = tool({"order_id": {"type": "string"}, "amount": {"type": "number"}, "reason": {"type": "string"}}, [])
    report = check_handler(loose, RefundDict)
    assert {f.data["field"] for f in by_rule(report, "handler-requires-optional")} == {
        "RefundDict.order_id",
        "RefundDict.amount",
        "RefundDict.reason",
    }


def test_refund_args_drift_is_reported_field_by_field():
    drifted = {
        "name": "refund",
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "integer"},
                "amount": {"type": "number"},
                "reason": {"type": "string", "enum": ["damaged", "late", "lost"]},
                "currency": {"type": "string", "enum": ["USD", "EUR"], "default": "EUR"},
                "notify": {"type": "boolean"},
            },
            "required": ["order_id", "amount"],
        },
    }
    report = check_handler(drifted, RefundArgs, examples=[{"order_id": 7, "amount": -2}])
    found = {(f.rule, f.pointer) for f in report.findings}
    assert found == {
        ("type-mismatch", "/properties/order_id"),
        ("handler-requires-optional", "/properties/reason"),
        ("enum-mismatch", "/properties/reason"),
        ("default-mismatch", "/properties/currency"),
        ("schema-property-ignored", "/properties/notify"),
        ("example-refused", "/properties/order_id"),
    }
    (enum_finding,) = by_rule(report, "enum-mismatch")
    assert "'lost'" in enum_finding.message and "'other'" in enum_finding.message
    assert enum_finding.data["only_schema"] == ["lost"] and enum_finding.data["only_handler"] == ["other"]
    (refused,) = by_rule(report, "example-refused")
    assert "order_id" in refused.message and "amount" in refused.message
    assert [e["loc"] for e in refused.data["errors"]] == ["order_id", "amount", "reason"]
    assert report.failed("error")


def test_examples_come_from_the_tool_source(tmp_path):
    path = tmp_path / "tools.yaml"
    definition = dict(
        REFUND_TOOL, examples={"valid": [{"order_id": "A", "amount": -1, "reason": "late"}, {"order_id": 1}]}
    )
    path.write_text(yaml.safe_dump([definition]))
    (source,) = load_tools([path])
    report = check_handler(source, RefundArgs)
    (refused,) = by_rule(report, "example-refused")
    assert refused.origin == f"{path}:1#0"  # a YAML list of one definition opens on line 1
    assert refused.pointer == "/properties/amount"
    assert "greater than 0" in refused.message
    # The second example is one the schema refuses: `check` reports it, drift skips it.
    assert report.extra["handlers"][0]["examples_skipped"] == 1
    # The `examples` keyword inside the parameters counts too, for a plain Tool.
    keyword = dict(REFUND_SCHEMA, examples=[{"order_id": "A", "amount": 0, "reason": "late"}])
    assert "example-refused" in rules(check_handler({"refund": keyword}, RefundArgs))


@pytest.mark.parametrize(
    ("handler", "needle"),
    [
        (RefundData, "ValueError: amount must be positive"),
        (RefundAttrs, "'amount' must be > 0"),
        (RefundArgs, "greater than 0"),
    ],
)
def test_the_handlers_own_validation_refuses_examples(handler, needle):
    report = check_handler(REFUND_TOOL, handler, examples=[{"order_id": "A", "amount": -5, "reason": "late"}])
    (refused,) = by_rule(report, "example-refused")
    assert needle in refused.message


def test_examples_are_checked_strictly_against_plain_annotations():
    # A plain function or TypedDict gets the JSON value as it is: no coercion happens on the way in.
    schema = tool({"count": {"type": "number"}, "when": {"type": "string"}}, ["count"])

    def handler(count: int, when: datetime.date | None = None) -> None: ...

    handler.__annotations__ = {"count": int, "when": datetime.date | None}
    report = check_handler(
        schema,
        handler,
        examples=[{"count": 2.5}, {"count": 2, "when": "not a date"}, {"count": 3, "when": "2024-05-01"}],
    )
    refused = by_rule(report, "example-refused")
    assert [f.data["example"] for f in refused] == [0, 1]
    assert "valid integer" in refused[0].message and "when" in refused[1].message


def test_unknown_keys_a_handler_refuses_or_drops():
    class Forbidding(pydantic.BaseModel, extra="forbid"):
        a: str

    class Allowing(pydantic.BaseModel, extra="allow"):
        a: str

    definition = tool({"a": {"type": "string"}, "b": {"type": "string"}}, ["a"])
    (forbid,) = by_rule(check_handler(definition, Forbidding), "schema-property-ignored")
    assert "fails" in forbid.message
    (ignore,) = by_rule(check_handler(definition, RefundDictLike), "schema-property-ignored")
    assert "dropped" in ignore.message
    assert not check_handler(definition, Allowing).findings
    refused = check_handler(definition, Forbidding, examples=[{"a": "x", "b": "y"}])
    assert "example-refused" in rules(refused)


class RefundDictLike(TypedDict):
    a: str


# -- the type mapping ---------------------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(pydantic.BaseModel):
    x: int
    y: int


UserId = NewType("UserId", int)

TYPE_CASES = [
    (str, {"type": "string"}, False),
    (int, {"type": "integer"}, False),
    (int, {"type": "number"}, True),
    (float, {"type": "integer"}, False),
    (float, {"type": "number"}, False),
    (bool, {"type": "integer"}, True),
    (int, {"type": "boolean"}, True),
    (bool, {"type": "boolean"}, False),
    (str, {"type": "integer"}, True),
    (decimal.Decimal, {"type": "string"}, False),
    (decimal.Decimal, {"type": "number"}, False),
    (datetime.datetime, {"type": "string", "format": "date-time"}, False),
    (uuid.UUID, {"type": "string"}, False),
    (Path, {"type": "string"}, False),
    (bytes, {"type": "string"}, False),
    (list[int], {"type": "array"}, False),
    (tuple[int, ...], {"type": "array"}, False),
    (set[str], {"type": "array"}, False),
    (list[int], {"type": "object"}, True),
    (dict[str, int], {"type": "object"}, False),
    (Point, {"type": "object"}, False),
    (Point, {"type": "string"}, True),
    (RefundDictLike, {"type": "object"}, False),
    (Optional[int], {"type": ["integer", "null"]}, False),  # noqa: UP045 - typing's spelling is read too
    (int | None, {"type": ["integer", "null"]}, False),
    (int, {"type": ["integer", "null"]}, True),
    (int, {"type": "integer", "nullable": True}, True),
    (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}, False),  # noqa: UP007
    (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}, False),
    (int, {"anyOf": [{"type": "integer"}, {"type": "string"}]}, True),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}, False),
    (Literal[1, 2], {"type": "string"}, True),
    (Color, {"type": "string", "enum": ["red", "blue"]}, False),
    (Priority, {"type": "integer", "enum": [1, 2]}, False),
    (Annotated[int, "meta"], {"type": "integer"}, False),
    (UserId, {"type": "integer"}, False),
    (Any, {"type": "string"}, False),
    (Any, {}, False),
    (int, {}, True),
    (int, {"enum": [1, 2]}, False),
    (int, {"const": "x"}, True),
    (int, {"allOf": [{"type": "number"}, {"type": "integer"}]}, False),
]


@pytest.mark.parametrize(("annotation", "schema", "mismatch"), TYPE_CASES)
def test_type_mapping(annotation, schema, mismatch):
    def handler(x): ...

    handler.__annotations__ = {"x": annotation}
    report = check_handler(tool({"x": schema}, ["x"]), handler)
    assert ("type-mismatch" in rules(report)) is mismatch, report.findings
    if mismatch:
        (finding,) = by_rule(report, "type-mismatch")
        assert finding.pointer == "/properties/x"


def test_enums_both_directions_and_unconstrained_schemas():
    def mode(m: Literal["a", "b"]) -> None: ...

    (extra,) = by_rule(
        check_handler(tool({"m": {"type": "string", "enum": ["a", "b", "c"]}}, ["m"]), mode), "enum-mismatch"
    )
    assert extra.data["only_schema"] == ["c"] and "refuses" in extra.message
    (fewer,) = by_rule(check_handler(tool({"m": {"type": "string", "enum": ["a"]}}, ["m"]), mode), "enum-mismatch")
    assert fewer.data["only_handler"] == ["b"] and "never offers" in fewer.message
    (free,) = by_rule(check_handler(tool({"m": {"type": "string"}}, ["m"]), mode), "enum-mismatch")
    assert "any string" in free.message and "'a', 'b'" in free.message

    def color(c: Color) -> None: ...

    assert not check_handler(tool({"c": {"enum": ["red", "blue"]}}, ["c"]), color).findings
    assert "enum-mismatch" in rules(check_handler(tool({"c": {"enum": ["red", "green"]}}, ["c"]), color))

    def optional(m: Literal["a", "b"] | None = None) -> None: ...

    optional.__annotations__ = {"m": Literal["a", "b"] | None}
    # null is optionality, not an enum value.
    assert not check_handler(tool({"m": {"type": ["string", "null"], "enum": ["a", "b", None]}}), optional).findings
    # A schema plain str under a handler str: any value is fine; a schema enum under a plain str too.
    assert not check_handler(tool({"a": {"type": "string", "enum": ["x"]}}, ["a"]), takes_a).findings


def test_defaults():
    def color(c: Color = Color.BLUE, tags: tuple[str, ...] = ("a",), limit: int = 10) -> None: ...

    color.__annotations__ = {"c": Color, "tags": tuple[str, ...], "limit": int}
    schema = tool(
        {
            "c": {"type": "string", "enum": ["red", "blue"], "default": "blue"},
            "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
            "limit": {"type": "integer", "default": 10.0},
        }
    )
    assert not check_handler(schema, color).findings
    schema["parameters"]["properties"]["c"]["default"] = "red"
    (finding,) = check_handler(schema, color).findings
    assert finding.rule == "default-mismatch" and finding.data == {
        "handler": finding.data["handler"],
        "field": "color.c",
        "schema_default": "red",
        "handler_default": "blue",
    }
    # A TypedDict key the schema gives a default: the handler gets the key absent.
    (absent,) = check_handler({"name": "t", "parameters": REFUND_SCHEMA}, RefundDict).findings
    assert absent.rule == "default-mismatch" and "absent" in absent.message
    # Defaults made by factories are compared too.

    @dataclasses.dataclass
    class WithFactory:
        tags: list[str] = dataclasses.field(default_factory=lambda: ["x"])

    assert "default-mismatch" in rules(check_handler(tool({"tags": {"type": "array", "default": []}}), WithFactory))
    assert not check_handler(tool({"tags": {"type": "array", "default": ["x"]}}), WithFactory).findings


# -- nested models, items, mappings -------------------------------------------------------------------------------


class Item(pydantic.BaseModel):
    sku: str
    qty: int


class Address(pydantic.BaseModel):
    city: str
    zip: str | None = None


class Order(pydantic.BaseModel):
    items: list[Item]
    ship_to: Address | None = None
    meta: dict[str, int] = {}


def test_nested_models_through_refs_items_and_mappings():
    schema = {
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "number"}},
                "required": ["sku"],
            }
        },
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "ship_to": {
                "anyOf": [
                    {"type": "object", "properties": {"city": {"type": "string"}, "street": {"type": "string"}}},
                    {"type": "null"},
                ]
            },
            "meta": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["items"],
    }
    report = check_handler({"order": schema}, Order)
    found = {(f.rule, f.pointer, f.data["field"]) for f in report.findings}
    assert found == {
        ("type-mismatch", "/$defs/Item/properties/qty", "Order.items[].qty"),
        ("handler-requires-optional", "/$defs/Item/properties/qty", "Order.items[].qty"),
        ("handler-requires-optional", "/properties/ship_to/anyOf/0/properties/city", "Order.ship_to.city"),
        ("schema-property-ignored", "/properties/ship_to/anyOf/0/properties/street", "Order.ship_to.street"),
        ("type-mismatch", "/properties/meta/additionalProperties", "Order.meta{}"),
    }


class Node(pydantic.BaseModel):
    name: str
    children: list[Node] = []


def test_recursive_models_terminate():
    generated = tool_from_function(Node)
    assert not check_handler(generated, Node).findings
    broken = json.loads(json.dumps(generated.parameters).replace('"name"', '"label"'))
    report = check_handler({"Node": broken}, Node)
    assert "handler-requires-unknown" in rules(report)


# -- tool_from_function: the single source ------------------------------------------------------------------------


class Filters(pydantic.BaseModel):
    status: Literal["open", "closed"] = "open"
    since: datetime.date | None = None


class Mode(str, enum.Enum):
    FAST = "fast"
    SAFE = "safe"


@dataclasses.dataclass
class Window:
    start: int
    end: int = 10


class Budget(TypedDict):
    limit: float
    hard: NotRequired[bool]


def refund_order(
    order_id: str,
    amount: float,
    reason: Literal["damaged", "late"] = "late",
    currency: Currency = Currency.USD,
    note: str | None = None,
) -> None:
    """Refund an order.

    Args:
        order_id: The order, e.g. A-1.
        amount: How much to give back,
            in the order's currency.
    """


def search(
    query: str,
    filters: Filters | None = None,
    limit: Annotated[int, pydantic.Field(ge=1, le=100)] = 10,
    tags: tuple[str, ...] = (),
    weights: dict[str, float] | None = None,
    mode: Mode = Mode.FAST,
) -> list[str]:
    """Search the catalogue."""
    return []


def schedule(
    when: datetime.datetime,
    window: Window,
    ids: set[int],
    point: tuple[float, float],
    priority: Priority = Priority.LOW,
    level: Literal[1, 2, 3] | None = None,
    budget: Budget | None = None,
    tree: Node | None = None,
    extra: Any = None,
    dry_run: bool = False,
    **labels: str,
) -> None:
    """Schedule a job."""


AGREEMENT = [
    (
        refund_order,
        [
            {"order_id": "A-1", "amount": 5},
            {"order_id": "A", "amount": 1.5, "reason": "damaged", "currency": "EUR", "note": None},
        ],
    ),
    (
        search,
        [
            {"query": "x"},
            {
                "query": "x",
                "filters": {"status": "closed", "since": "2024-01-02"},
                "limit": 5,
                "tags": ["a"],
                "weights": {"a": 1},
                "mode": "safe",
            },
        ],
    ),
    (
        schedule,
        [
            {"when": "2024-01-02T03:04:05Z", "window": {"start": 1}, "ids": [1, 2], "point": [1, 2.5]},
            {
                "when": "2024-01-02T03:04:05Z",
                "window": {"start": 1, "end": 3},
                "ids": [],
                "point": [0, 0],
                "priority": 2,
                "level": 3,
                "budget": {"limit": 3, "hard": True},
                "tree": {"name": "root", "children": [{"name": "leaf"}]},
                "extra": {"anything": [1]},
                "dry_run": True,
                "team": "core",
            },
        ],
    ),
    (Order, [{"items": [{"sku": "a", "qty": 1}], "ship_to": {"city": "Oslo"}, "meta": {"k": 1}}]),
    (Filters, [{}, {"status": "open", "since": None}]),
]


@pytest.mark.parametrize(("function", "examples"), AGREEMENT, ids=lambda value: getattr(value, "__name__", ""))
def test_a_generated_tool_never_drifts_from_its_function(function, examples):
    generated = tool_from_function(function)
    for example in examples:  # the examples really are valid for the generated schema
        assert toolwire.validate(generated.name, example, [generated]) == []
    report = check_handler(generated, function, examples=examples)
    assert report.findings == ()
    assert report.extra["handlers"][0]["examples_built"] == len(examples)


def test_tool_from_function_names_and_descriptions():
    generated = tool_from_function(refund_order)
    assert generated.name == "refund_order"
    assert generated.description == "Refund an order."
    properties = generated.parameters["properties"]
    assert properties["amount"]["description"] == "How much to give back, in the order's currency."
    assert generated.parameters["required"] == ["order_id", "amount"]
    named = tool_from_function(refund_order, name="refund", description="Give money back.")
    assert (named.name, named.description) == ("refund", "Give money back.")
    assert named.parameters == generated.parameters
    with pytest.raises(TypeError, match="positional-only"):
        tool_from_function(lambda_free_positional)


def lambda_free_positional(a: int, /) -> None: ...


def test_a_changed_function_drifts_from_the_tool_made_before():
    generated = tool_from_function(refund_order)

    def refund_order_v2(
        order_id: int, amount: float, reason: Literal["damaged", "late", "lost"] = "late", force: bool = True
    ) -> None: ...

    refund_order_v2.__annotations__ = {
        "order_id": int,
        "amount": float,
        "reason": Literal["damaged", "late", "lost"],
        "force": bool,
    }
    report = check_handler(generated, refund_order_v2)
    assert rules(report) == {"type-mismatch", "enum-mismatch", "schema-property-ignored"}


# -- handler kinds and misuse -------------------------------------------------------------------------------------


class Service:
    def refund(
        self,
        order_id: str,
        amount: float,
        reason: Literal["damaged", "late", "other"],
        currency: Currency = Currency.USD,
    ) -> None: ...

    def __call__(
        self,
        order_id: str,
        amount: float,
        reason: Literal["damaged", "late", "other"],
        currency: Currency = Currency.USD,
    ) -> None: ...


def with_context(
    context: object,
    /,
    order_id: str,
    amount: float,
    reason: Literal["damaged", "late", "other"],
    currency: Currency = Currency.USD,
) -> None: ...


@pytest.mark.parametrize(
    "handler",
    [Service().refund, Service(), functools.partial(with_context, object())],
    ids=["method", "callable", "partial"],
)
def test_other_callables(handler):
    examples = [{"order_id": "A", "amount": 1, "reason": "late"}]
    assert check_handler(REFUND_TOOL, handler, examples=examples).findings == ()


def test_dataclass_initvar_and_attrs_alias():
    @dataclasses.dataclass
    class WithInit:
        a: str
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            pass

    assert not check_handler(
        tool({"a": {"type": "string"}, "scale": {"type": "integer", "default": 1}}, ["a"]), WithInit
    ).findings

    @attrs.define
    class Private:
        _token: str

    assert not check_handler(
        tool({"token": {"type": "string"}}, ["token"]), Private, examples=[{"token": "x"}]
    ).findings


def test_misuse_raises():
    with pytest.raises(TypeError, match="a handler is a function"):
        check_handler(REFUND_TOOL, 42)
    with pytest.raises(TypeError, match="positional-only"):
        check_handler(REFUND_TOOL, with_context)
    with pytest.raises(ValueError, match="one tool; got 2"):
        check_handler([REFUND_TOOL, tool({}, name="other")], refund)

    def unresolved(a: Missing) -> None: ...  # noqa: F821

    with pytest.raises(TypeError, match="cannot resolve"):
        check_handler(tool({"a": {}}), unresolved)


def test_a_tool_source_that_does_not_load(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "bad", "parameters": {"type": "string"}}]))
    (source,) = load_tools([path])
    with pytest.raises(ValueError, match="does not load"):
        check_handler(source, refund)


# -- output -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_every_output_format(fmt):
    report = check_handler(*FAILING["handler-requires-unknown"][:2])
    text = render(report, fmt)
    if fmt == "json":
        document = json.loads(text)
        assert document["command"] == "drift" and document["findings"][0]["pointer"] == "/properties/b"
        assert document["handlers"][0]["kind"] == "function"
    elif fmt == "junit":
        root = ElementTree.fromstring(text.split("\n", 1)[1])
        assert root.find("testsuite").get("failures") == "1"
    elif fmt == "github":
        assert text.startswith("::error title=handler-requires-unknown::")
    elif fmt == "markdown":
        assert "| error | `handler-requires-unknown` |" in text
    else:
        assert "handler-requires-unknown" in text and "/properties/b" in text


# -- the command line ---------------------------------------------------------------------------------------------


HANDLERS_MODULE = '''
from typing import Literal

def refund(order_id: str, amount: float, reason: Literal["damaged", "late", "other"], currency: str = "USD") -> None:
    """Refund."""

def strict_refund(order_id: str, amount: int, reason: Literal["damaged", "late"], currency: str = "EUR") -> None:
    """Refund."""
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    name = f"drift_handlers_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(HANDLERS_MODULE)
    (tmp_path / "tools.json").write_text(json.dumps([REFUND_TOOL]))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.chdir(tmp_path)
    yield tmp_path, name
    sys.modules.pop(name, None)


def drift(argv: list[str]) -> int:
    return run(build_parser(["drift"]).parse_args(["drift", *argv]))


def test_cli_clean_and_drifting(project, capsys):
    folder, module = project
    assert drift(["tools.json", "--handler", f"refund={module}:refund"]) == 0
    assert "drift: 1 checked" in capsys.readouterr().out
    assert drift(["tools.json", "--handler", f"refund={module}:strict_refund", "--output-format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert {f["rule"] for f in document["findings"]} == {"type-mismatch", "enum-mismatch", "default-mismatch"}
    assert document["handlers"][0]["handler"].endswith("strict_refund")
    assert drift(["tools.json", "--handler", f"refund={module}:strict_refund", "--fail-on", "never"]) == 0
    assert module not in sys.path and str(folder) not in sys.path


def test_cli_handlers_from_the_config(project, capsys):
    folder, module = project
    (folder / "pyproject.toml").write_text(
        f'[tool.toolwire]\ntools = ["tools.json"]\n[tool.toolwire.handlers]\nrefund = "{module}:strict_refund"\n'
        '[tool.toolwire.rules]\n"type-mismatch" = "off"\n"enum-mismatch" = "off"\n"default-mismatch" = "info"\n'
    )
    assert drift(["--output-format", "markdown"]) == 0
    assert "`default-mismatch`" in capsys.readouterr().out
    # The command line wins over the configuration.
    assert drift(["--handler", f"refund={module}:refund"]) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tools.json", "--handler", "nope={module}:refund"], "'nope': no tool of that name is declared"),
        (["tools.json", "--handler", "refund=no_such_module_xyz:refund"], "cannot import 'no_such_module_xyz:refund'"),
        (["tools.json", "--handler", "refund={module}:missing"], "cannot import"),
        (["tools.json", "--handler", "refund"], "write NAME=package.module:attribute"),
        (["tools.json"], "no handlers"),
        (["tools.json", "--handler", "refund={module}"], "write NAME=package.module:attribute"),
    ],
)
def test_cli_usage_errors_name_the_handler(project, argv, message):
    _, module = project
    with pytest.raises(ValueError, match=message):
        drift([arg.format(module=module) for arg in argv])


def test_only_local_pointer_refs_are_followed():
    schema = {
        "$defs": {"Point": {"$anchor": "pt", "type": "object", "properties": {"x": {"type": "integer"}}}},
        "type": "object",
        "properties": {"p": {"$ref": "#pt"}, "q": {"$ref": "#/$defs/Point"}},
        "required": ["p", "q"],
    }

    def handler(p: Point, q: Point) -> None: ...

    report = check_handler({"t": schema}, handler)
    # The anchor is not followed, so p's schema says nothing: that is reported, never resolved to the root.
    assert {(f.rule, f.pointer) for f in report.findings} == {
        ("type-mismatch", "/properties/p"),
        ("handler-requires-unknown", "/$defs/Point/properties/y"),
        ("handler-requires-optional", "/$defs/Point/properties/x"),
    }
