"""toolwire.registry: loading every tool shape into one canonical form with stable fingerprints."""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from tests.support.paths import CORPORA
from toolwire.registry import ServerTool, Tool, ToolRegistry

WEATHER_PARAMS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["°C", "°F"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def weather_in(shape: str, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """The same get_weather tool written in each provider's shape."""
    params = copy.deepcopy(WEATHER_PARAMS if parameters is None else parameters)
    return {
        "openai-chat": {
            "type": "function",
            "function": {"name": "get_weather", "description": "Get the weather", "parameters": params, "strict": True},
        },
        "openai-responses": {
            "type": "function",
            "name": "get_weather",
            "description": "Get the weather",
            "parameters": params,
            "strict": True,
        },
        "anthropic-messages": {"name": "get_weather", "description": "Get the weather", "input_schema": params},
        "mcp": {"name": "get_weather", "title": "Weather", "description": "Get the weather", "inputSchema": params},
        "bare": {"name": "get_weather", "description": "Get the weather", "parameters": params},
    }[shape]


SHAPES = ["openai-chat", "openai-responses", "anthropic-messages", "mcp"]


def by_hand(name: str, parameters: dict[str, Any]) -> str:
    """The documented fingerprint: sha256 of the canonical JSON of {"name", "parameters"}."""
    canonical = json.dumps(
        {"name": name, "parameters": parameters}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------- shapes


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_loads(shape: str) -> None:
    registry = ToolRegistry([weather_in(shape)])
    tool = registry["get_weather"]
    assert tool.source == shape
    assert tool.name == "get_weather"
    assert tool.description == "Get the weather"
    assert tool.parameters == WEATHER_PARAMS
    assert list(tool.parameters) == list(WEATHER_PARAMS)  # declared key order kept
    assert tool.strict is (True if shape.startswith("openai") else None)


def test_bare_function_definition_is_openai_chat() -> None:
    tool = ToolRegistry([weather_in("bare")])["get_weather"]
    assert tool.source == "openai-chat"
    assert tool.parameters == WEATHER_PARAMS


def test_the_same_tool_in_every_shape_has_one_fingerprint() -> None:
    tools = [ToolRegistry.load([weather_in(shape)])["get_weather"] for shape in [*SHAPES, "bare"]]
    assert {tool.fingerprint for tool in tools} == {by_hand("get_weather", WEATHER_PARAMS)}
    assert len({tool.source for tool in tools}) == 4


def test_mixed_list_detects_each_item() -> None:
    items = [
        {"type": "function", "function": {"name": "a"}},
        {"type": "function", "name": "b", "parameters": None, "strict": False},
        {"name": "c", "input_schema": {"type": "object"}, "type": "custom"},
        {"name": "d", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "e"},
    ]
    registry = ToolRegistry(items)
    assert registry.names == ("a", "b", "c", "d", "e")
    assert [tool.source for tool in registry] == [
        "openai-chat",
        "openai-responses",
        "anthropic-messages",
        "mcp",
        "openai-chat",
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"model": "gpt-4.1", "messages": [], "tools": [weather_in("openai-chat")], "tool_choice": "auto"},
        {"model": "gpt-4.1", "input": "hi", "tools": [weather_in("openai-responses")]},
        {"model": "claude", "max_tokens": 10, "messages": [], "tools": [weather_in("anthropic-messages")]},
        {"tools": [weather_in("mcp")], "nextCursor": None},  # MCP tools/list result
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [weather_in("mcp")]}},  # its JSON-RPC envelope
        {"model": "gpt-3.5", "functions": [weather_in("bare")]},  # legacy Chat Completions functions=
    ],
    ids=["openai-chat-body", "responses-body", "anthropic-body", "mcp-list", "mcp-jsonrpc", "legacy-functions"],
)
def test_request_bodies_load(body: dict[str, Any]) -> None:
    registry = ToolRegistry.load(body)
    assert registry.names == ("get_weather",)
    assert registry["get_weather"].fingerprint == by_hand("get_weather", WEATHER_PARAMS)


def test_single_definition_loads() -> None:
    assert ToolRegistry(weather_in("anthropic-messages")).names == ("get_weather",)
    namespace = {"type": "namespace", "name": "crm", "description": "CRM", "tools": [weather_in("openai-responses")]}
    assert ToolRegistry(namespace).is_server_tool("crm")  # its "tools" list does not make it a request body


def test_plain_mapping_of_name_to_schema() -> None:
    registry = ToolRegistry(
        {
            "get_weather": WEATHER_PARAMS,
            "ping": None,
            "search": {"description": "Search", "parameters": {"type": "object", "properties": {"q": {}}}},
        }
    )
    assert registry.names == ("get_weather", "ping", "search")
    assert {tool.source for tool in registry} == {"mapping"}
    assert registry["get_weather"].fingerprint == by_hand("get_weather", WEATHER_PARAMS)
    assert registry["ping"].parameters == {"type": "object", "properties": {}}
    assert registry["search"].description == "Search"


def test_mapping_entry_name_must_match_key() -> None:
    with pytest.raises(ValueError, match=r"tools\['a'\].*'b' differs from its key 'a'"):
        ToolRegistry({"a": {"name": "b", "parameters": {}}})
    with pytest.raises(ValueError, match=r"tools\['a'\]: .*found 'cache_control'. For provider-specific keys"):
        ToolRegistry({"a": {"parameters": {}, "cache_control": {}}})
    with pytest.raises(ValueError, match=r"found 'parameters', 'input_schema'"):
        ToolRegistry({"a": {"parameters": {}, "input_schema": {}}})


@pytest.mark.parametrize("empty", [None, {}, {"type": "object"}, {"type": "object", "properties": {}}])
def test_no_parameters_spellings_are_one_canonical_form(empty: dict[str, Any] | None) -> None:
    definitions = [
        {"type": "function", "function": {"name": "ping"}} if empty is None else weather_like("ping", empty),
        {"name": "ping", "inputSchema": empty},
    ]
    for definition in definitions:
        tool = ToolRegistry([definition])["ping"]
        assert tool.parameters == {"type": "object", "properties": {}}
        assert tool.fingerprint == by_hand("ping", {"type": "object", "properties": {}})


def weather_like(name: str, parameters: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def test_schema_without_top_level_type_is_kept_as_declared() -> None:
    params = {"properties": {"x": {"type": "integer"}}, "required": ["x"]}
    assert ToolRegistry([weather_like("f", params)])["f"].parameters == params


def test_sdk_model_instances_are_dumped_first() -> None:
    class McpTool(BaseModel):  # the shape of mcp.types.Tool
        name: str
        description: str | None = None
        input_schema: dict[str, Any] = Field(alias="inputSchema")

    class ListToolsResult(BaseModel):
        tools: list[McpTool]

    listed = ListToolsResult(tools=[McpTool(name="get_weather", inputSchema=WEATHER_PARAMS)])
    assert ToolRegistry(listed)["get_weather"].source == "mcp"
    assert ToolRegistry(listed.tools)["get_weather"].fingerprint == by_hand("get_weather", WEATHER_PARAMS)


def test_tools_and_registries_nest() -> None:
    inner = ToolRegistry([weather_in("mcp"), {"type": "web_search"}])
    extra = Tool("ping")
    outer = ToolRegistry([inner, extra])
    assert outer.names == ("get_weather", "ping")
    assert len(outer.server_tools) == 1
    assert ToolRegistry(inner) == inner
    assert ToolRegistry.load(inner) is inner


# ---------------------------------------------------------------------------------------------- fingerprints


def test_fingerprint_pinned_by_hand() -> None:
    # The canonical JSON written out by hand: keys sorted at every level, no spaces, non-ASCII kept as is.
    canonical = (
        '{"name":"get_weather","parameters":{"additionalProperties":false,'
        '"properties":{"city":{"description":"City name","type":"string"},'
        '"unit":{"enum":["°C","°F"],"type":"string"}},'
        '"required":["city"],"type":"object"}}'
    )
    expected = "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert ToolRegistry([weather_in("openai-chat")])["get_weather"].fingerprint == expected
    assert Tool("get_weather", None, WEATHER_PARAMS).fingerprint == expected


@pytest.mark.parametrize(
    "change",
    [
        lambda p: p["properties"]["city"].update(type="integer"),
        lambda p: p["properties"]["unit"]["enum"].append("K"),
        lambda p: p["required"].append("unit"),
        lambda p: p["properties"].update(days={"type": "integer"}),
        lambda p: p.update(additionalProperties=True),
        lambda p: p["properties"]["city"].update(description="The city"),
    ],
    ids=["type", "enum", "required", "new-property", "openness", "property-description"],
)
def test_fingerprint_changes_with_any_parameter(change: Any) -> None:
    changed = copy.deepcopy(WEATHER_PARAMS)
    change(changed)
    before = ToolRegistry([weather_in("mcp")])["get_weather"].fingerprint
    after = ToolRegistry([weather_in("mcp", changed)])["get_weather"].fingerprint
    assert before != after
    assert after == by_hand("get_weather", changed)


def test_fingerprint_ignores_description_strict_order_and_shape() -> None:
    reordered = dict(reversed(list(copy.deepcopy(WEATHER_PARAMS).items())))
    a = Tool("get_weather", "one", WEATHER_PARAMS, True, "openai-chat")
    b = Tool("get_weather", "two", reordered, None, "mcp")
    assert a.fingerprint == b.fingerprint
    assert a != b
    assert Tool("get_weather2", "one", WEATHER_PARAMS).fingerprint != a.fingerprint


def test_registry_fingerprint() -> None:
    tools = [weather_in("openai-chat"), {"name": "ping"}, {"type": "web_search_20250305", "name": "web_search"}]
    registry = ToolRegistry(tools)
    expected_input = {
        "server_tools": [["web_search_20250305", "web_search"]],
        "tools": sorted(tool.fingerprint for tool in registry),
    }
    assert registry.fingerprint == by_hand_json(expected_input)
    # Independent of order and of the shapes the tools came in.
    same = ToolRegistry([tools[2], {"name": "ping", "inputSchema": None}, weather_in("anthropic-messages")])
    assert same.fingerprint == registry.fingerprint
    assert same != registry
    assert ToolRegistry(tools[:2]).fingerprint != registry.fingerprint
    assert ToolRegistry([*tools, {"type": "code_interpreter"}]).fingerprint != registry.fingerprint
    assert hash(registry) == hash(ToolRegistry(tools))


def by_hand_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------- server tools

SERVER_TOOLS = [
    ({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}, "anthropic-messages", "web_search"),
    ({"type": "code_execution_20250825", "name": "code_execution"}, "anthropic-messages", "code_execution"),
    (
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        "anthropic-messages",
        "tool_search_tool_regex",
    ),
    ({"type": "bash_20250124", "name": "bash"}, "anthropic-messages", "bash"),
    (
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
        "anthropic-messages",
        "str_replace_based_edit_tool",
    ),
    ({"type": "mcp_toolset", "mcp_server_name": "crm"}, "anthropic-messages", None),
    ({"type": "web_search"}, "openai-responses", None),
    ({"type": "web_search_preview_2025_03_11"}, "openai-responses", None),
    ({"type": "file_search", "vector_store_ids": ["vs_1"]}, "openai-responses", None),
    ({"type": "code_interpreter", "container": {"type": "auto"}}, "openai-responses", None),
    ({"type": "image_generation"}, "openai-responses", None),
    ({"type": "mcp", "server_label": "crm", "server_url": "https://x"}, "openai-responses", None),
    ({"type": "computer_use_preview", "display_width": 1, "display_height": 1}, "openai-responses", None),
    ({"type": "tool_search", "description": None, "parameters": None}, "openai-responses", None),
    ({"type": "namespace", "name": "crm", "description": "CRM", "tools": []}, "openai-responses", "crm"),
    ({"type": "custom", "name": "sql", "format": {"type": "text"}}, "openai-responses", "sql"),
    ({"type": "custom", "custom": {"name": "patch", "description": "Apply"}}, "openai-chat", "patch"),
]


@pytest.mark.parametrize(("definition", "wire", "name"), SERVER_TOOLS, ids=[d["type"] for d, _, _ in SERVER_TOOLS])
def test_server_tools_are_kept_apart(definition: dict[str, Any], wire: str, name: str | None) -> None:
    registry = ToolRegistry([weather_in("openai-responses"), definition])
    assert registry.names == ("get_weather",)
    assert len(registry) == 1
    (server,) = registry.server_tools
    assert server == ServerTool(definition["type"], name, definition, wire)  # type: ignore[arg-type]
    if name is not None:
        assert registry.is_server_tool(name)
        assert name not in registry
        with pytest.raises(KeyError, match="server tool"):
            registry[name]
    assert not registry.is_server_tool("get_weather")


def test_server_tools_render_only_where_understood() -> None:
    anthropic_search = {"type": "web_search_20250305", "name": "web_search"}
    openai_search = {"type": "web_search"}
    chat_custom = {"type": "custom", "custom": {"name": "patch", "format": {"type": "text"}}}
    registry = ToolRegistry([anthropic_search, weather_in("mcp"), openai_search, chat_custom])
    assert registry.to_anthropic()[0] == anthropic_search
    assert [t.get("type") for t in registry.to_anthropic()] == ["web_search_20250305", None]
    assert [t["type"] for t in registry.to_openai_responses()] == ["function", "web_search", "custom"]
    assert registry.to_openai_responses()[2] == {"type": "custom", "name": "patch", "format": {"type": "text"}}
    assert [t["type"] for t in registry.to_openai()] == ["function", "custom"]
    assert registry.to_openai()[1] == chat_custom
    assert [t["name"] for t in registry.to_mcp()] == ["get_weather"]
    # And back: the rendered lists load into the same tools.
    assert ToolRegistry(registry.to_openai_responses()).is_server_tool("patch")


def test_server_tool_names_clash_with_function_names() -> None:
    with pytest.raises(
        ValueError, match=r"tools\[1\]: duplicate tool name 'web_search', already declared at tools\[0\]"
    ):
        ToolRegistry([{"name": "web_search", "parameters": {}}, {"type": "web_search_20250305", "name": "web_search"}])


def test_unnamed_server_tools_may_repeat() -> None:
    registry = ToolRegistry([{"type": "mcp", "server_label": "a"}, {"type": "mcp", "server_label": "b"}])
    assert [tool.raw["server_label"] for tool in registry.server_tools] == ["a", "b"]


def test_anthropic_builtin_without_name_says_which_name() -> None:
    with pytest.raises(ValueError, match=r'tools\[0\]: name is missing.*"name": "str_replace_based_edit_tool"'):
        ToolRegistry([{"type": "text_editor_20250728"}])


# ---------------------------------------------------------------------------------------------- errors


def test_duplicate_names_name_both_positions() -> None:
    with pytest.raises(
        ValueError, match=r"tools\[2\]: duplicate tool name 'get_weather', already declared at tools\[0\]"
    ):
        ToolRegistry([weather_in("openai-chat"), {"name": "other"}, weather_in("anthropic-messages")])


@pytest.mark.parametrize(
    ("definition", "error", "pattern"),
    [
        ({"type": "function", "function": {"description": "x"}}, ValueError, r"tools\[0\]: function\.name is missing"),
        ({"type": "function", "function": {"name": ""}}, ValueError, r"function\.name is empty"),
        ({"name": 7, "input_schema": {}}, TypeError, r"tools\[0\]: name must be a string; got int"),
        ({"description": "nameless", "parameters": {}}, ValueError, r"tools\[0\]: name is missing"),
        (
            {"name": "f", "parameters": {"type": "array", "items": {}}},
            ValueError,
            r"tools\[0\] \('f'\): parameters has the top-level type 'array'.*OpenAI and Anthropic.*Wrap the value",
        ),
        (
            {"name": "f", "input_schema": {"type": "dict", "properties": {}}},
            ValueError,
            r"input_schema has the top-level type 'dict', which is BFCL's dialect.*use 'object'",
        ),
        (
            {"type": "function", "function": {"name": "f", "parameters": "{}"}},
            TypeError,
            r"function\.parameters must be a JSON Schema object \(a mapping\)",
        ),
        ({"nothing": "here"}, ValueError, r"not a tool definition \(keys: 'nothing'\); accepted shapes: OpenAI Chat"),
        ({"type": "object", "properties": {}}, ValueError, r"looks like a bare JSON Schema"),
        ({"type": "Function!"}, ValueError, r"unknown tool type 'Function!'; accepted shapes"),
        ({"name": "f", "parameters": {}, "input_schema": {}}, ValueError, r"both 'parameters' and 'input_schema'"),
        ({"type": "function", "name": "f", "inputSchema": {}}, ValueError, r"'inputSchema' key does not go with type"),
        ({"name": "f", "description": 3}, TypeError, r"tools\[0\] \('f'\): description must be a string"),
        ({"name": "f", "strict": "yes"}, TypeError, r"strict must be true, false or absent"),
        (
            {"name": "f", "parameters": {"type": "object", "properties": {"x": {"maximum": float("nan")}}}},
            ValueError,
            r"parameters at /properties/x/maximum is nan; JSON has no NaN",
        ),
        (
            {"name": "f", "parameters": {"type": "object", "properties": {"x": {"enum": [{1, 2}]}}}},
            TypeError,
            r"parameters at /properties/x/enum/0 holds a set",
        ),
    ],
)
def test_malformed_items_name_item_field_and_fix(definition: Any, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        ToolRegistry([definition])


def test_errors_name_the_position_in_a_list() -> None:
    with pytest.raises(ValueError, match=r"^tools\[3\]"):
        ToolRegistry([{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d", "parameters": {"type": "string"}}])


@pytest.mark.parametrize(
    ("obj", "pattern"),
    [
        ("tools.yaml", r"got str; for a file pass a pathlib\.Path"),
        (42, r"cannot load a int"),
        (None, r"cannot load a NoneType"),
        ([42], r"tools\[0\]: a int is not a tool definition"),
        ({"f": 42}, r"tools\['f'\]: a \{name: value\} mapping takes a JSON Schema"),
    ],
)
def test_wrong_types_are_type_errors(obj: Any, pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        ToolRegistry.load(obj)


def test_tool_checks_direct_construction() -> None:
    with pytest.raises(ValueError, match="name is empty"):
        Tool("")
    with pytest.raises(ValueError, match="top-level type 'array'"):
        Tool("f", None, {"type": "array"})
    with pytest.raises(ValueError, match="source must be one of"):
        Tool("f", source="gemini")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- Python tools


def get_weather(city: str, unit: Literal["c", "f"] = "c", days: Annotated[int, Field(ge=1)] = 1) -> str:
    """Get the weather for a city.

    Longer text that is not the description.

    Args:
        city: The city,
            e.g. Paris.
        unit: Celsius or Fahrenheit.
        days (int): How many days.

    Returns:
        The forecast.
    """
    return city


def test_callable_schema_from_signature_and_docstring() -> None:
    tool = ToolRegistry([get_weather])["get_weather"]
    assert tool.source == "python"
    assert tool.description == "Get the weather for a city."
    assert tool.parameters == {
        "additionalProperties": False,
        "properties": {
            "city": {"title": "City", "type": "string", "description": "The city, e.g. Paris."},
            "unit": {
                "default": "c",
                "enum": ["c", "f"],
                "title": "Unit",
                "type": "string",
                "description": "Celsius or Fahrenheit.",
            },
            "days": {"default": 1, "minimum": 1, "title": "Days", "type": "integer", "description": "How many days."},
        },
        "required": ["city"],
        "type": "object",
    }


def test_callable_variants() -> None:
    def with_kwargs(a: int, **rest: Any) -> None:
        """Open for more."""

    class Service:
        def lookup(self, key: str) -> str:
            return key

    registry = ToolRegistry([with_kwargs, Service().lookup])
    assert "additionalProperties" not in registry["with_kwargs"].parameters  # **kwargs: open object
    assert registry["lookup"].parameters["properties"] == {"key": {"title": "Key", "type": "string"}}
    assert registry["lookup"].description is None
    named = ToolRegistry({"named": lambda q: q})["named"]
    assert named.parameters["required"] == ["q"]


def positional_only(a: int, /) -> None: ...


def star_args(*rest: int) -> None: ...


class Opaque:
    pass


def takes_a_function(handle: Opaque) -> None: ...


@pytest.mark.parametrize(
    ("func", "pattern"),
    [
        (lambda x: x, r"has no usable name; give it one with a mapping"),
        (positional_only, r"parameter 'a' is positional-only or \*args.*keyword-only parameter"),
        (star_args, r"parameter 'rest' is positional-only or \*args"),
        (takes_a_function, r"pydantic cannot build a JSON Schema from the signature"),
        (dict, r"the class dict is not a pydantic BaseModel"),
    ],
)
def test_callables_that_cannot_be_tools(func: Any, pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        ToolRegistry([func])


class Forecast(BaseModel):
    """Ask for a forecast.

    More detail.
    """

    city: str
    days: int = 1


def test_pydantic_model_class() -> None:
    tool = ToolRegistry([Forecast])["Forecast"]
    assert tool.source == "python"
    assert tool.description == "Ask for a forecast."
    assert tool.parameters == Forecast.model_json_schema()
    assert ToolRegistry({"forecast": Forecast})["forecast"].parameters == Forecast.model_json_schema()


def test_missing_pydantic_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic", None)
    with pytest.raises(ImportError, match=r"needs pydantic \(pip install pydantic\)"):
        ToolRegistry([get_weather])


# ---------------------------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("method", ["to_openai", "to_openai_responses", "to_anthropic", "to_mcp"])
def test_round_trip_preserves_names_parameters_fingerprints(method: str) -> None:
    registry = ToolRegistry(
        [
            weather_in("openai-chat"),
            {"name": "ping"},
            ToolRegistry({"py_weather": get_weather}),
            Forecast,
            weather_like("x", {"type": "object"}),
        ]
    )
    again = ToolRegistry.load(getattr(registry, method)())
    assert again.names == registry.names
    assert [t.parameters for t in again] == [t.parameters for t in registry]
    assert [t.fingerprint for t in again] == [t.fingerprint for t in registry]
    assert again.fingerprint == registry.fingerprint
    assert [t.description for t in again] == [t.description for t in registry]
    if method != "to_mcp":  # MCP has no strict flag
        assert [t.strict for t in again] == [t.strict for t in registry]


def test_rendered_shapes() -> None:
    tool = Tool("f", None, None, None, "mapping")  # type: ignore[arg-type]
    empty = {"type": "object", "properties": {}}
    assert tool.to_openai() == {"type": "function", "function": {"name": "f", "parameters": empty}}
    assert tool.to_openai_responses() == {"type": "function", "name": "f", "parameters": empty, "strict": None}
    assert tool.to_anthropic() == {"name": "f", "input_schema": empty}
    assert tool.to_mcp() == {"name": "f", "inputSchema": empty}


def test_extra_keys_go_back_only_to_their_own_shape() -> None:
    anthropic = {**weather_in("anthropic-messages"), "cache_control": {"type": "ephemeral"}, "defer_loading": True}
    registry = ToolRegistry([anthropic, weather_like("g", None)])
    assert registry.to_anthropic()[0] == anthropic
    assert "cache_control" not in registry.to_openai_responses()[0]
    mcp = weather_in("mcp")
    assert ToolRegistry([mcp]).to_mcp() == [mcp]
    assert "title" not in ToolRegistry([mcp]).to_anthropic()[0]


def test_outputs_and_inputs_are_copies() -> None:
    params = copy.deepcopy(WEATHER_PARAMS)
    registry = ToolRegistry({"get_weather": params})
    params["properties"]["city"]["type"] = "integer"
    registry.to_openai()[0]["function"]["parameters"]["required"].append("unit")
    assert registry["get_weather"].parameters == WEATHER_PARAMS
    with pytest.raises(AttributeError, match="immutable"):
        registry._tools = ()  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        registry["get_weather"].name = "x"  # type: ignore[misc]


def test_registry_access() -> None:
    registry = ToolRegistry([weather_in("openai-chat"), {"name": "get_time"}])
    assert "get_weather" in registry and "nope" not in registry and 3 not in registry
    assert [tool.name for tool in registry] == ["get_weather", "get_time"]
    assert registry.get("nope") is None
    assert registry.get("get_time") is registry["get_time"]
    with pytest.raises(KeyError, match="did you mean 'get_weather'"):
        registry["get_wether"]
    assert "get_weather" in repr(registry)
    assert len(ToolRegistry()) == 0
    assert {registry["get_time"]} == {Tool("get_time", source="openai-chat")}


# ---------------------------------------------------------------------------------------------- files


def test_from_file_json_yaml_jsonl(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps({"model": "m", "tools": [weather_in("openai-chat")]}))
    (tmp_path / "tools.yaml").write_text(
        "get_weather:\n"
        "  description: Get the weather\n"
        "  parameters:\n"
        "    type: object\n"
        "    properties:\n"
        "      city: {type: string, description: City name}\n"
        "      unit: {type: string, enum: ['°C', '°F']}\n"
        "    required: [city]\n"
        "    additionalProperties: false\n",
        encoding="utf-8",
    )
    (tmp_path / "tools.jsonl").write_text(
        json.dumps(weather_in("anthropic-messages")) + "\n\n" + json.dumps({"type": "web_search"}) + "\n"
    )
    loaded = [ToolRegistry.from_file(tmp_path / name) for name in ("tools.json", "tools.yaml", "tools.jsonl")]
    assert {r["get_weather"].fingerprint for r in loaded} == {by_hand("get_weather", WEATHER_PARAMS)}
    assert loaded[2].server_tools[0].type == "web_search"
    assert ToolRegistry.load(tmp_path / "tools.yaml") == loaded[1]  # a Path goes through from_file
    assert ToolRegistry.from_file(str(tmp_path / "tools.json")) == loaded[0]


def test_yaml_list_of_any_shape(tmp_path: Path) -> None:
    path = tmp_path / "tools.yml"
    path.write_text(
        "- type: function\n  function: {name: a}\n- name: b\n  input_schema: {type: object}\n- type: web_search\n"
    )
    registry = ToolRegistry.from_file(path)
    assert registry.names == ("a", "b")
    assert registry.server_tools[0].type == "web_search"


@pytest.mark.parametrize(
    ("name", "text", "error", "pattern"),
    [
        ("t.jsonl", '{"name": "a"}\n{"name": "b"}\n{"name": "a"}\n', ValueError, r"t\.jsonl:3: duplicate.*t\.jsonl:1"),
        ("t.jsonl", '{"name": "a"}\n{"name": \n', ValueError, r"t\.jsonl:2: invalid JSON at line 1 column"),
        ("t.jsonl", '{"name": "a", "parameters": {"type": "array"}}\n', ValueError, r"t\.jsonl:1 \('a'\): parameters"),
        ("t.json", '[{"name": "a"},\n {"name": "b", "parameters": 3}]', TypeError, r"t\.json: tools\[1\] \('b'\)"),
        ("t.json", '[{"name": "a"},\n oops]', ValueError, r"t\.json: invalid JSON at line 2 column 2"),
        ("t.yaml", "a:\n  type: object\n b: [", ValueError, r"t\.yaml: invalid YAML at line \d+ column \d+"),
        ("t.yaml", "a:\n  type: object\n  properties: {x: {default: 2024-01-01}}\n", TypeError, r"holds a date"),
        ("t.yaml", "a:\n  type: object\n  properties: {yes: {}}\n", TypeError, r"has the key True.*quote keys"),
        ("t.yaml", "", ValueError, r"t\.yaml: the file is empty"),
        ("t.toml", "", ValueError, r"t\.toml: unknown tool file type '\.toml'; use \.json, \.jsonl, \.yaml or \.yml"),
    ],
)
def test_file_errors_name_file_and_position(
    tmp_path: Path, name: str, text: str, error: type[Exception], pattern: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(error, match=pattern):
        ToolRegistry.from_file(path)


def test_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ToolRegistry.from_file(tmp_path / "absent.json")


def test_missing_pyyaml_is_a_clear_import_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("a: {type: object}\n")
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(ImportError, match=r"needs PyYAML \(pip install pyyaml\)"):
        ToolRegistry.from_file(path)


# ---------------------------------------------------------------------------------------------- properties

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
schemas = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])}),
    lambda inner: st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=3)}
    )
    | st.fixed_dictionaries({"type": st.just("array"), "items": inner})
    | st.fixed_dictionaries({"enum": st.lists(json_scalars, min_size=1, max_size=3)}),
    max_leaves=8,
)
object_schemas = st.builds(
    lambda props, required: {"type": "object", "properties": props, "required": sorted(props)[:required]},
    st.dictionaries(st.text(min_size=1, max_size=6), schemas, min_size=1, max_size=4),
    st.integers(0, 4),
)


@given(parameters=object_schemas, name=st.from_regex(r"[a-zA-Z0-9_-]{1,20}", fullmatch=True))
def test_fingerprint_is_shape_independent_and_survives_round_trips(parameters: dict[str, Any], name: str) -> None:
    expected = by_hand(name, parameters)
    for shape in SHAPES:
        definition = {**weather_in(shape, parameters)}
        if shape == "openai-chat":
            definition["function"]["name"] = name
        else:
            definition["name"] = name
        registry = ToolRegistry([definition])
        assert registry[name].fingerprint == expected
        for method in ("to_openai", "to_openai_responses", "to_anthropic", "to_mcp"):
            assert ToolRegistry(getattr(registry, method)())[name].fingerprint == expected


# ---------------------------------------------------------------------------------------------- real corpus

TOOL_SCHEMAS = CORPORA / "tool-schemas"
# Files whose definitions are documented (README) as not JSON Schema: BFCL's top-level "type": "dict".
DOCUMENTED_REJECTIONS = {"bfcl_v4.jsonl": "top-level type 'dict'"}


def test_real_corpus_loads() -> None:
    if not TOOL_SCHEMAS.is_dir():
        pytest.skip(f"{TOOL_SCHEMAS} is absent (the shared corpora live beside the repository in ../shared)")
    files = sorted(TOOL_SCHEMAS.glob("*.jsonl"))
    assert files
    report: dict[str, tuple[int, int]] = {}
    rejected: dict[str, list[str]] = {}
    for path in files:
        loaded = 0
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            definition = json.loads(line)
            try:
                tool = ToolRegistry.load(definition)[definition["name"]]
            except (TypeError, ValueError) as error:
                rejected.setdefault(path.name, []).append(f"{number}: {error}")
                continue
            loaded += 1
            # Every shape renders and reloads to the same fingerprint as the corpus line itself.
            reloaded = {
                ToolRegistry.load([render()])[tool.name].fingerprint
                for render in (tool.to_openai, tool.to_openai_responses, tool.to_anthropic, tool.to_mcp)
            }
            assert reloaded == {tool.fingerprint}
            if definition["parameters"] not in (None, {}, {"type": "object"}):
                assert tool.parameters == definition["parameters"], f"{path.name}:{number}"
        report[path.name] = (loaded, len(lines))
    print("\ntool-schemas corpus, loaded/lines:", report)
    for name, problems in rejected.items():
        reason = DOCUMENTED_REJECTIONS.get(name)
        assert reason is not None, f"{name}: undocumented rejections, first: {problems[0]}"
        assert all(reason in problem for problem in problems), [p for p in problems if reason not in p][:3]
    for name, (loaded, total) in report.items():
        assert loaded == (0 if name in DOCUMENTED_REJECTIONS else total), (name, loaded, total)
