"""Scripts of ``toolwire.server``: loading and its errors, rule matching over the three request shapes, and the
arguments ``otherwise: auto`` synthesizes from a schema (against the real tool schemas of the shared corpus)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolwire
from tests.support.paths import corpus
from tests.support.server import request
from toolwire.registry import ToolRegistry
from toolwire.server import Model, Quirks, Reply, Script, ScriptedCall, default_script, load_script
from toolwire.server._match import AUTO_TEXT, Turn, answer
from toolwire.server._request import PARSERS, ParsedRequest
from toolwire.server._synth import NotSynthesizableError, synthesize

# --- Loading ---------------------------------------------------------------------------------------------------------

SCRIPT_YAML = """
defaults:
  quirks: {delay: 0.5}
  chunking: {max_fragment: 3, seed: 4}
  rules:
    - when: {user_contains: paris}
      reply: {text: "Paris!"}
models:
  plain: {}
  repeated:
    quirks: {repeat_id: true}
  own-rules:
    quirks: {delay: 0}
    rules:
      - when: {tools_offered: [f, g], tool_choice: named}
        reply: {calls: [{name: f, arguments: {a: [1, {b: null}]}}], text: "Calling f."}
    otherwise: {error: {status: 503, message: "down"}}
"""


def test_a_yaml_script_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(SCRIPT_YAML, encoding="utf-8")
    script = load_script(path)
    assert script.source == str(path)
    assert list(script.models) == ["plain", "repeated", "own-rules"]
    plain, repeated, own = (script.models[name] for name in script.models)
    assert plain.quirks == Quirks(delay=0.5) and plain.chunking.max_fragment == 3 and plain.chunking.seed == 4
    assert repeated.quirks == Quirks(delay=0.5, repeat_id=True)  # quirks merge over the defaults
    assert repeated.rules == plain.rules and plain.rules[0].reply == Reply(text="Paris!")
    assert own.quirks.delay == 0.5  # 0 is the default: it does not switch the default's delay off
    assert own.rules[0].reply.calls == (ScriptedCall("f", {"a": [1, {"b": None}]}),)
    assert own.rules[0].reply.text == "Calling f."
    assert own.otherwise is not None and own.otherwise.error is not None and own.otherwise.error.status == 503
    assert plain.otherwise is None  # auto


def test_json_files_mappings_and_scripts(tmp_path: Path) -> None:
    document = {"models": {"m": {"otherwise": {"text": "hi"}}}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    from_file, from_mapping = load_script(str(path)), load_script(document)
    assert from_file.models == from_mapping.models
    assert from_mapping.source == "<mapping>"
    assert load_script(from_file) is from_file
    assert isinstance(default_script(), Script) and default_script() is default_script()


BAD_SCRIPTS = [
    (
        {"models": {"clean": {"rules": [{"when": {"user_contains": 3}, "reply": {"text": "x"}}]}}},
        "models.clean.rules[0].when.user_contains: expected a string, got int 3",
    ),
    (
        {
            "models": {
                "a": {},
                "b": {
                    "rules": [
                        {"reply": {"text": "x"}},
                        {"reply": {"text": "y"}},
                        {"when": {"user_contains": ["x"]}, "reply": {"text": "z"}},
                    ]
                },
            }
        },
        "models.b.rules[2].when.user_contains: expected a string",
    ),
    ({"modles": {}}, "(top level).modles: unknown key; expected one of models, defaults"),
    ({"defaults": {}}, "models: missing"),
    ({"models": {}}, "models: empty"),
    ({"models": []}, "models: expected a mapping, got list"),
    (
        {"models": {"m": {"rule": []}}},
        "models.m.rule: unknown key; expected one of quirks, chunking, dialect, rules, otherwise",
    ),
    ({"models": {"m": {"rules": {}}}}, "models.m.rules: expected a list of rules"),
    ({"models": {"m": {"rules": [{"when": {}}]}}}, "models.m.rules[0]: missing 'reply'"),
    (
        {"models": {"m": {"rules": [{"when": {"user_has": "x"}, "reply": {"text": "x"}}]}}},
        "models.m.rules[0].when.user_has: unknown key",
    ),
    (
        {"models": {"m": {"rules": [{"when": {"user_matches": "("}, "reply": {"text": "x"}}]}}},
        "models.m.rules[0].when.user_matches: not a regular expression",
    ),
    (
        {"models": {"m": {"rules": [{"when": {"last_role": "bot"}, "reply": {"text": "x"}}]}}},
        "models.m.rules[0].when.last_role: expected one of user, assistant, tool, system",
    ),
    (
        {"models": {"m": {"rules": [{"when": {"tools_offered": "f"}, "reply": {"text": "x"}}]}}},
        "models.m.rules[0].when.tools_offered: expected a list of tool names",
    ),
    (
        {"models": {"m": {"rules": [{"when": {"tools_offered": ["f", 2]}, "reply": {"text": "x"}}]}}},
        "models.m.rules[0].when.tools_offered[1]: expected a string",
    ),
    (
        {"models": {"m": {"quirks": {"repeat_ids": True}}}},
        "models.m.quirks.repeat_ids: unknown quirk; known quirks: arguments_object",
    ),
    ({"models": {"m": {"quirks": {"repeat_id": "yes"}}}}, "models.m.quirks.repeat_id: expected true or false"),
    ({"models": {"m": {"quirks": {"delay": -1}}}}, "models.m.quirks.delay: expected a number of seconds"),
    ({"models": {"m": {"quirks": {"delay": True}}}}, "models.m.quirks.delay: expected a number of seconds"),
    ({"models": {"m": {"quirks": {"reject_keywords": "anyOf"}}}}, "models.m.quirks.reject_keywords: expected a list"),
    (
        {"models": {"m": {"chunking": {"max_fragment": 0}}}},
        "models.m.chunking.max_fragment: expected an integer of at least 1, got int 0",
    ),
    ({"models": {"m": {"chunking": {"seed": -1}}}}, "models.m.chunking.seed: expected an integer of at least 0"),
    ({"models": {"m": {"chunking": {"size": 3}}}}, "models.m.chunking.size: unknown key"),
    ({"models": {"m": {"otherwise": "sometimes"}}}, "models.m.otherwise: expected auto or a reply"),
    ({"models": {"m": {"otherwise": {}}}}, "models.m.otherwise: empty; expected one of text, calls, recording, error"),
    (
        {"models": {"m": {"otherwise": {"recording": "a/b", "text": "x"}}}},
        "models.m.otherwise: 'recording' cannot be combined with text",
    ),
    (
        {"models": {"m": {"otherwise": {"recording": "nope"}}}},
        "models.m.otherwise.recording: expected '<format>/<name>'",
    ),
    (
        {"models": {"m": {"otherwise": {"error": {"status": 200, "message": "x"}}}}},
        "models.m.otherwise.error.status: expected an integer of at least 400",
    ),
    (
        {"models": {"m": {"otherwise": {"error": {"status": 700, "message": "x"}}}}},
        "models.m.otherwise.error.status: expected an HTTP error status",
    ),
    ({"models": {"m": {"otherwise": {"error": {"status": 500}}}}}, "models.m.otherwise.error: missing 'message'"),
    ({"models": {"m": {"otherwise": {"calls": []}}}}, "models.m.otherwise.calls: expected a non-empty list of calls"),
    ({"models": {"m": {"otherwise": {"calls": [{"arguments": {}}]}}}}, "models.m.otherwise.calls[0]: missing 'name'"),
    (
        {"models": {"m": {"otherwise": {"calls": [{"name": "f", "arguments": [1]}]}}}},
        "models.m.otherwise.calls[0].arguments: expected a mapping, got list",
    ),
    (
        {"models": {"m": {"otherwise": {"calls": [{"name": "f", "arguments": {"x": float("nan")}}]}}}},
        "models.m.otherwise.calls[0].arguments: not JSON-compatible",
    ),
    ({"models": {"quirk/x": {"chunking": {"seed": "a"}}}}, "models['quirk/x'].chunking.seed: expected an integer"),
    (
        {"models": {"recording:openai-chat/x": {}}},
        "models['recording:openai-chat/x']: names starting with 'recording:' are reserved",
    ),
    (
        {"defaults": {"rules": [{"reply": {"txt": "x"}}]}, "models": {"m": {}}},
        "defaults.rules[0].reply.txt: unknown key",
    ),
]


@pytest.mark.parametrize(("document", "message"), BAD_SCRIPTS)
def test_script_errors_name_the_field(document: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        load_script(document)
    assert str(caught.value).startswith("<mapping>: ")
    assert message in str(caught.value)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "models:\n  clean:\n    rules:\n      - when: {user_contains: 3}\n        reply: {text: x}\n", encoding="utf-8"
    )
    with pytest.raises(
        ValueError, match=rf"^{path}: models\.clean\.rules\[0\]\.when\.user_contains: expected a string, got int 3$"
    ):
        load_script(path)
    broken = tmp_path / "broken.yaml"
    broken.write_text("models: [unclosed", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{broken}: invalid YAML"):
        load_script(broken)
    not_json = tmp_path / "s.json"
    not_json.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"s\.json: invalid JSON"):
        load_script(not_json)
    with pytest.raises(ValueError, match=r"a script is a \.yaml, \.yml or \.json file"):
        load_script(tmp_path / "s.toml")
    with pytest.raises(FileNotFoundError):
        load_script(tmp_path / "missing.yaml")
    with pytest.raises(TypeError, match="got int"):
        load_script(3)  # type: ignore[arg-type]


# --- Matching ---------------------------------------------------------------------------------------------------------

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TWO = ToolRegistry({"get_weather": WEATHER, "get_time": {"type": "object", "properties": {}}})


def parsed(fmt: str, **options: Any) -> ParsedRequest:
    _, body = request(fmt, tools=options.pop("tools", TWO), **options)
    return PARSERS[fmt](body)  # type: ignore[index]


def rules(*whens: dict[str, Any]) -> Model:
    document = {"models": {"m": {"rules": [{"when": when, "reply": {"text": str(n)}} for n, when in enumerate(whens)]}}}
    return load_script(document).models["m"]


def said(model: Model, request: ParsedRequest) -> str:
    turn = answer(model, request)
    assert isinstance(turn, Turn)
    return turn.text


FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_when_key(fmt: str) -> None:
    cases = [
        ({"user_contains": "PARIS"}, {"prompt": "weather in paris?"}, True),
        ({"user_contains": "Oslo"}, {"prompt": "weather in paris?"}, False),
        ({"user_matches": r"in (Paris|Oslo)\b"}, {"prompt": "weather in Oslo"}, True),
        ({"user_matches": r"^Oslo"}, {"prompt": "weather in Oslo"}, False),
        ({"last_message_contains": "paris"}, {"prompt": "in paris"}, True),
        ({"last_message_contains": "PARIS"}, {"prompt": "in paris"}, False),
        ({"tool_choice": "auto"}, {}, True),
        ({"tool_choice": "auto"}, {"choice": "auto"}, True),
        ({"tool_choice": "none"}, {"choice": "none"}, True),
        ({"tool_choice": "none"}, {"choice": "auto"}, False),
        ({"tool_choice": "required"}, {"choice": "required"}, True),
        ({"tool_choice": "named"}, {"choice": "get_time"}, True),
        ({"tool_choice": "get_time"}, {"choice": "get_time"}, True),
        ({"tool_choice": "get_weather"}, {"choice": "get_time"}, False),
        ({"tools_offered": ["get_weather", "get_time"]}, {}, True),
        ({"tools_offered": ["get_weather", "lookup"]}, {}, False),
        ({"tools_offered": ["get_weather"]}, {"tools": None}, False),
        ({"last_role": "user"}, {}, True),
        ({"last_role": "tool"}, {}, False),
        ({"user_contains": "paris", "tool_choice": "none"}, {"prompt": "paris", "choice": "required"}, False),
        ({}, {}, True),
    ]
    for when, options, holds in cases:
        assert (said(rules(when), parsed(fmt, **options)) == "0") is holds, (when, options)


def test_the_first_matching_rule_wins() -> None:
    model = rules({"user_contains": "x"}, {"user_contains": "paris"}, {})
    assert said(model, parsed("openai-chat", prompt="paris")) == "1"
    assert said(model, parsed("openai-chat", prompt="oslo")) == "2"
    assert said(model, parsed("openai-chat", prompt="x paris")) == "0"


# The same conversation in each format: a question, the assistant's call, the tool's result.
AFTER_TOOLS = {
    "openai-chat": [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"error": "no such city"}'},
    ],
    "openai-responses": [
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": '{"error": "no such city"}'},
    ],
    "anthropic-messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "get_weather", "input": {}}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "c1",
                    "content": [{"type": "text", "text": '{"error": "no such city"}'}],
                }
            ],
        },
    ],
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_tool_results_in_every_shape(fmt: str) -> None:
    _, body = request(fmt, tools=TWO)
    body["input" if fmt == "openai-responses" else "messages"] = AFTER_TOOLS[fmt]
    seen = PARSERS[fmt](body)  # type: ignore[index]
    assert seen.user_text == "Weather in Paris?"
    assert seen.last_text == '{"error": "no such city"}'
    assert seen.last_role == "tool"
    model = rules({"last_message_contains": '"error"'}, {"user_contains": "paris"})
    assert said(model, seen) == "0"


@pytest.mark.parametrize("fmt", FORMATS)
def test_otherwise_auto(fmt: str) -> None:
    model = load_script({"models": {"m": {}}}).models["m"]
    assert answer(model, parsed(fmt)) == Turn(AUTO_TEXT)
    assert answer(model, parsed(fmt, tools=None)) == Turn(AUTO_TEXT)
    assert answer(model, parsed(fmt, choice="none")) == Turn(AUTO_TEXT)
    named = answer(model, parsed(fmt, choice="get_time"))
    assert isinstance(named, Turn) and [(c.name, c.arguments) for c in named.calls] == [("get_time", {})]
    required = answer(model, parsed(fmt, choice="required"))
    assert isinstance(required, Turn) and [(c.name, c.arguments_json) for c in required.calls] == [
        ("get_weather", '{"city":"example"}')
    ]
    replied = load_script({"models": {"m": {"otherwise": {"text": "no"}}}}).models["m"]
    assert answer(replied, parsed(fmt, choice="required")) == Turn("no")


def test_the_default_script_answers_the_probe() -> None:
    clean = default_script().models["clean"]
    weather = ToolRegistry({"get_weather": WEATHER})
    for fmt in FORMATS:
        parallel = answer(clean, parsed(fmt, tools=weather, choice="required"))
        assert isinstance(parallel, Turn) and [c.arguments["city"] for c in parallel.calls] == ["Paris", "Tokyo"]
        assert answer(clean, parsed(fmt, tools=weather, choice="none")) == Turn(
            "I will answer this without calling a tool."
        )


# --- Synthesis --------------------------------------------------------------------------------------------------------

SCHEMAS = [
    ({"type": "object", "properties": {}}, {}),
    (
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]},
        {"a": "example"},
    ),
    (
        {
            "type": "object",
            "properties": {"u": {"type": "string", "enum": ["c", "f"]}, "k": {"const": 3}},
            "required": ["u", "k"],
        },
        {"u": "c", "k": 3},
    ),
    (
        {
            "type": "object",
            "properties": {"s": {"type": "string", "minLength": 10, "maxLength": 12}},
            "required": ["s"],
        },
        {"s": "examplexxx"},
    ),
    ({"type": "object", "properties": {"s": {"type": "string", "maxLength": 3}}, "required": ["s"]}, {"s": "exa"}),
    (
        {
            "type": "object",
            "properties": {"d": {"type": "string", "format": "date"}, "e": {"type": "string", "format": "email"}},
            "required": ["d", "e"],
        },
        {"d": "2024-01-01", "e": "user@example.com"},
    ),
    (
        {
            "type": "object",
            "properties": {
                "i": {"type": "integer", "minimum": 5},
                "n": {"type": "number"},
                "x": {"type": "integer", "exclusiveMinimum": 5},
            },
            "required": ["i", "n", "x"],
        },
        {"i": 5, "n": 1, "x": 6},
    ),
    (
        {
            "type": "object",
            "properties": {"i": {"type": "integer", "maximum": 0}, "m": {"type": "integer", "multipleOf": 5}},
            "required": ["i", "m"],
        },
        {"i": 0, "m": 5},
    ),
    ({"type": "object", "properties": {"i": {"type": "integer", "exclusiveMaximum": 1}}, "required": ["i"]}, {"i": 0}),
    (
        {"type": "object", "properties": {"b": {"type": "boolean"}, "z": {"type": "null"}}, "required": ["b", "z"]},
        {"b": True, "z": None},
    ),
    ({"type": "object", "properties": {"t": {"type": ["null", "integer"]}}, "required": ["t"]}, {"t": 1}),
    (
        {
            "type": "object",
            "properties": {"l": {"type": "array", "items": {"type": "integer"}, "minItems": 2}, "e": {"type": "array"}},
            "required": ["l", "e"],
        },
        {"l": [1, 1], "e": []},
    ),
    (
        {
            "type": "object",
            "properties": {
                "p": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "minItems": 2}
            },
            "required": ["p"],
        },
        {"p": ["example", True]},
    ),
    (
        {
            "type": "object",
            "properties": {"o": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
            "required": ["o"],
        },
        {"o": {"q": "example"}},
    ),
    (
        {
            "type": "object",
            "properties": {
                "o": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "p": {"oneOf": [{"type": "boolean"}]},
            },
            "required": ["o", "p"],
        },
        {"o": 1, "p": True},
    ),
    (
        {
            "type": "object",
            "properties": {
                "o": {
                    "allOf": [
                        {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                        {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
                    ]
                }
            },
            "required": ["o"],
        },
        {"o": {"a": "example", "b": 1}},
    ),
    (
        {
            "type": "object",
            "properties": {"r": {"$ref": "#/$defs/R"}},
            "required": ["r"],
            "$defs": {"R": {"type": "object", "properties": {"v": {"enum": ["x"]}}, "required": ["v"]}},
        },
        {"r": {"v": "x"}},
    ),
    (
        {
            "type": "object",
            "properties": {"r": {"$ref": "#/definitions/R"}},
            "required": ["r"],
            "definitions": {"R": {"type": "integer", "minimum": 3}},
        },
        {"r": 3},
    ),
    ({"type": "object", "required": ["free"], "additionalProperties": {"type": "integer"}}, {"free": 1}),
    ({"type": "object", "properties": {"any": {}}, "required": ["any"]}, {"any": "example"}),
]


@pytest.mark.parametrize(("schema", "expected"), SCHEMAS)
def test_synthesized_arguments(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    tools = ToolRegistry({"t": schema})
    arguments = synthesize("t", tools)
    assert arguments == expected
    assert toolwire.validate("t", arguments, tools) == []


UNSYNTHESIZABLE = [
    (
        {"type": "object", "properties": {"id": {"type": "string", "pattern": "^ORD-[0-9]+$"}}, "required": ["id"]},
        "/id: CONSTRAINT_VIOLATION",
    ),
    (
        {
            "type": "object",
            "properties": {"l": {"type": "array", "minItems": 2, "uniqueItems": True}},
            "required": ["l"],
        },
        "/l: CONSTRAINT_VIOLATION",
    ),
    ({"type": "object", "properties": {"n": {"not": {"type": "string"}}}, "required": ["n"]}, "/n"),
    (
        {
            "type": "object",
            "properties": {"r": {"$ref": "#/$defs/R"}},
            "required": ["r"],
            "$defs": {"R": {"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}}, "required": ["r"]}},
        },
        "recursive",
    ),
    ({"type": "object", "properties": {"f": False}, "required": ["f"]}, "allows no value"),
]


@pytest.mark.parametrize(("schema", "reason"), UNSYNTHESIZABLE)
def test_unsynthesizable_schemas_say_why(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(NotSynthesizableError) as caught:
        synthesize("t", ToolRegistry({"t": schema}))
    assert reason in str(caught.value)


def test_synthesis_over_the_real_tool_schemas() -> None:
    """Every loadable definition of the shared corpus: valid arguments, or a reason naming the failing pointer."""
    folder = corpus("tool-schemas")
    made = refused = unloadable = 0
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            definition = json.loads(line)
            try:
                tools = ToolRegistry([definition])
            except (TypeError, ValueError):
                unloadable += 1  # BFCL's own dialect ("type": "dict"): refused by the endpoint with HTTP 400 too
                continue
            try:
                arguments = synthesize(definition["name"], tools)
            except NotSynthesizableError as error:
                refused += 1
                assert "are not valid: /" in str(error) or "$ref" in str(error), str(error)
                continue
            made += 1
            assert [
                v for v in toolwire.validate(definition["name"], arguments, tools) if v.severity.value == "error"
            ] == []
    assert made + refused + unloadable == 7270
    assert made >= 3700 and refused <= 20
