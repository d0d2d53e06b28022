"""``InvalidToolCall.to_tool_result``: the message that gives the model another turn, in each wire format.

The dicts are checked with pydantic ``TypeAdapter``s over the official SDKs' own parameter types, and must come
back from them unchanged (no key dropped as unknown).
"""

from __future__ import annotations

import json
import typing
from types import ModuleType
from typing import Any

import pytest
from anthropic.types import ContentBlockParam, MessageParam, ToolResultBlockParam
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam
from openai.types.responses import ResponseInputParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

from toolwire import InvalidToolCall, Severity, Violation, ViolationCode

TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}, "days": {"maximum": 7}},
        "required": ["city"],
    },
    "get_time": {"type": "object"},
}
# Ids echo exactly, whatever they hold.
ODD_ID = "call_ü\u2028\"'\\ 01"


def invalid_calls(impl: ModuleType) -> list[InvalidToolCall]:
    calls = [
        (ODD_ID, "get_weather", '{"unit": "k", "days": 9}'),
        ("toolu_2", "get_wether", "{}"),
        ("call_3", "get_weather", '{"city": [1]'),
    ]
    chunks: list[dict[str, Any]] = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": i,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": args},
                            }
                        ]
                    },
                }
            ]
        }
        for i, (call_id, name, args) in enumerate(calls)
    ]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    stream = impl.reassemble(chunks, tools=TOOLS, on_invalid="yield")
    list(stream)
    return list(stream.result.invalid_calls)


def fields_of(typed_dict: type) -> set[str]:
    return set(typing.get_type_hints(typed_dict))


def checked(value: dict[str, Any], typed_dict: Any) -> None:
    assert TypeAdapter(typed_dict).validate_python(value) == value
    if isinstance(typed_dict, type):
        assert set(value) <= fields_of(typed_dict)


def test_each_format_is_accepted_by_its_sdk_type_with_the_id_echoed(implementation: ModuleType) -> None:
    for call in invalid_calls(implementation):
        chat = call.to_tool_result("openai-chat")
        checked(chat, ChatCompletionToolMessageParam)
        checked(chat, ChatCompletionMessageParam)
        assert chat["role"] == "tool" and chat["tool_call_id"] == call.id

        responses = call.to_tool_result("openai-responses")
        checked(responses, FunctionCallOutput)
        TypeAdapter(ResponseInputParam).validate_python([responses])
        assert responses["type"] == "function_call_output" and responses["call_id"] == call.id

        block = call.to_tool_result("anthropic-messages")
        checked(block, ToolResultBlockParam)
        # MessageParam's content is an Iterable, which pydantic validates lazily: check the list it stands for.
        assert TypeAdapter(list[ContentBlockParam]).validate_python([block]) == [block]
        TypeAdapter(MessageParam).validate_python({"role": "user", "content": [block]})
        assert block["tool_use_id"] == call.id and block["is_error"] is True

        assert chat["content"] == responses["output"] == block["content"]


def payload(call: InvalidToolCall) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(call.to_tool_result("openai-chat")["content"])
    return result


def test_the_payload_says_what_where_and_what_is_allowed(implementation: ModuleType) -> None:
    schema_errors, unknown, broken = invalid_calls(implementation)
    assert schema_errors.id == ODD_ID
    body = payload(schema_errors)
    assert body["error"] == "invalid_tool_call" and body["tool"] == "get_weather"
    assert [(p["code"], p.get("path")) for p in body["problems"]] == [
        ("MISSING_REQUIRED_ARGUMENT", "/city"),
        ("CONSTRAINT_VIOLATION", "/days"),
        ("ENUM_OUT_OF_RANGE", "/unit"),
    ]
    assert body["problems"][1]["keyword"] == "maximum" and body["problems"][1]["limit"] == 7
    assert body["problems"][2]["allowed"] == ["c", "f"]
    assert "again" in body["instruction"]

    body = payload(unknown)
    assert body["available_tools"] == ["get_weather", "get_time"]
    assert "get_weather" in body["instruction"] and "get_wether" in body["instruction"]

    body = payload(broken)
    assert [p["code"] for p in body["problems"]] == ["TRUNCATED"]
    assert "complete" in body["instruction"]


def test_the_payload_stays_compact_when_there_are_many_problems() -> None:
    error = Violation(ViolationCode.TYPE_MISMATCH, "expected integer, got string", Severity.ERROR, path="/0")
    call = InvalidToolCall("c", "t", {}, "{}", 0, 0, 0, (error,) * 50)
    body = payload(call)
    assert len(body["problems"]) == 20 and body["more_problems"] == 30
    assert len(call.to_tool_result("openai-chat")["content"]) < 4000


def test_an_unknown_format_is_refused_with_the_known_ones() -> None:
    error = Violation(ViolationCode.MISSING_NAME, "no name arrived", Severity.ERROR)
    call = InvalidToolCall("c", None, None, "", 0, 0, 0, (error,))
    with pytest.raises(ValueError, match="'openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'"):
        call.to_tool_result("palm")  # type: ignore[arg-type]
    assert "no tool name" in payload(call)["instruction"]
