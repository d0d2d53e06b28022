"""Agents tested offline: the official SDKs talk to the local endpoint, quirk by quirk and turn by turn.

The shape checks must see through the SDKs' own objects exactly what they see in the raw bytes (each quirk fails
its check and nothing else), and an agent loop must get back on track when an invalid call's tool result goes back
to the scripted model.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import openai
import pytest

import toolwire
from toolwire.contract import ContractReport, check_stream
from toolwire.server import LocalEndpoint

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["city"],
    "additionalProperties": False,
}
TOOLS = toolwire.ToolRegistry({"get_weather": {"description": "Current weather for a city.", "parameters": WEATHER}})
PARALLEL = "What is the weather in Paris and in Tokyo? Call get_weather once for each city."

# One streamed request with tool_choice "required" and two calls due: what each quirk breaks there.
CHAT_QUIRKS: dict[str, tuple[set[str], set[str]]] = {
    "arguments_object": ({"arguments_string"}, set()),
    "finish_stop": ({"finish_reason"}, set()),
    "no_finish": ({"finish_reason"}, set()),
    "missing_index": ({"index_present"}, set()),
    "index_reused": ({"one_call_per_index"}, set()),
    "repeat_id": ({"id_once"}, set()),
    "repeat_name": ({"name_once"}, set()),
    "interleave": (set(), {"calls_contiguous"}),
    "prose_when_forced": ({"forced_tool"}, set()),
    # Under "required" any call honours the choice; the name is what breaks.
    "hallucinated_name": ({"tool_names"}, set()),
    "trailing_data": ({"arguments_json"}, set()),
    "truncate": ({"arguments_json", "finish_reason"}, set()),
    "empty_choices": (set(), set()),
    "calls_in_content": ({"forced_tool"}, set()),
}
# The same request through the Anthropic SDK, for the quirks that exist in that format.
ANTHROPIC_QUIRKS: dict[str, tuple[set[str], set[str]]] = {
    "no_finish": ({"finish_reason"}, set()),
    "prose_when_forced": ({"forced_tool"}, set()),
    "hallucinated_name": ({"tool_names"}, set()),
    "trailing_data": ({"arguments_json"}, set()),
    "calls_in_content": ({"forced_tool"}, set()),
    # The cut also leaves the last block open and no message_stop.
    "truncate": ({"arguments_json", "finish_reason", "block_lifecycle"}, set()),
}

AGENT_SCRIPT: dict[str, Any] = {
    "models": {
        "agent": {
            "rules": [
                # The model's second try, once it read what was wrong.
                {
                    "when": {"last_message_contains": "invalid_tool_call"},
                    "reply": {"calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]},
                },
                {"when": {"last_message_contains": "temperature"}, "reply": {"text": "It is 18 °C in Paris."}},
                # The first try: a unit the schema does not allow.
                {
                    "when": {"user_contains": "weather"},
                    "reply": {"calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "kelvin"}}]},
                },
            ]
        }
    }
}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint() as running:
        yield running


def failed(report: ContractReport) -> tuple[set[str], set[str]]:
    return (
        {check.id for check in report.failed if check.severity == "error"},
        {check.id for check in report.failed if check.severity == "warning"},
    )


@pytest.mark.parametrize("quirk", sorted(CHAT_QUIRKS))
def test_openai_sdk_stream_fails_exactly_the_quirks_checks(endpoint: LocalEndpoint, quirk: str) -> None:
    with (
        openai.OpenAI(base_url=endpoint.url, api_key="test", max_retries=0) as client,
        client.chat.completions.create(
            model=f"quirk/{quirk}",
            messages=[{"role": "user", "content": PARALLEL}],
            tools=TOOLS.to_openai(),  # type: ignore[arg-type]
            tool_choice="required",
            stream=True,
        ) as stream,
    ):
        report = check_stream(stream, TOOLS, forced="required")
    assert failed(report) == CHAT_QUIRKS[quirk], report.to_text()


def test_the_clean_model_keeps_the_contract_through_the_sdk(endpoint: LocalEndpoint) -> None:
    with openai.OpenAI(base_url=endpoint.url, api_key="test", max_retries=0) as client:
        stream = client.chat.completions.create(
            model="clean",
            messages=[{"role": "user", "content": PARALLEL}],
            tools=TOOLS.to_openai(),  # type: ignore[arg-type]
            tool_choice="required",
            stream=True,
        )
        report = check_stream(stream, TOOLS, forced="required")
    assert report.ok and not report.failed, report.to_text()


@pytest.mark.parametrize("quirk", ["repeat_name", "index_reused", "truncate"])
def test_async_openai_sdk_stream_sees_the_same(endpoint: LocalEndpoint, quirk: str) -> None:
    async def collect() -> list[Any]:
        client = openai.AsyncOpenAI(base_url=endpoint.url, api_key="test", max_retries=0)
        stream = await client.chat.completions.create(
            model=f"quirk/{quirk}",
            messages=[{"role": "user", "content": PARALLEL}],
            tools=TOOLS.to_openai(),  # type: ignore[arg-type]
            tool_choice="required",
            stream=True,
        )
        chunks = [chunk async for chunk in stream]
        await client.close()
        return chunks

    report = check_stream(asyncio.run(collect()), TOOLS, forced="required")
    assert failed(report) == CHAT_QUIRKS[quirk], report.to_text()


@pytest.mark.parametrize("quirk", sorted(ANTHROPIC_QUIRKS))
def test_anthropic_sdk_stream_fails_exactly_the_quirks_checks(endpoint: LocalEndpoint, quirk: str) -> None:
    with anthropic.Anthropic(base_url=endpoint.url.removesuffix("/v1"), api_key="test", max_retries=0) as client:
        stream = client.messages.create(
            model=f"quirk/{quirk}",
            max_tokens=256,
            messages=[{"role": "user", "content": PARALLEL}],
            tools=TOOLS.to_anthropic(),  # type: ignore[arg-type]
            tool_choice={"type": "any"},
            stream=True,
        )
        report = check_stream(stream, TOOLS, forced="any")
    assert failed(report) == ANTHROPIC_QUIRKS[quirk], report.to_text()


def run_weather(arguments: dict[str, Any]) -> str:
    return json.dumps({"city": arguments["city"], "temperature": 18, "unit": arguments.get("unit", "celsius")})


Ask = Callable[[list[Any]], tuple[list[Any], toolwire.StreamResult]]


def agent_loop(
    fmt: str, ask: Ask, answer: Callable[[Any], dict[str, Any]], reply: Callable[[list[Any]], list[Any]]
) -> tuple[list[list[str]], toolwire.StreamResult]:
    """An agent until a turn has no call, five turns at most: each turn's verdicts, and the last turn's result.

    ``ask`` sends the conversation and reassembles the answer, ``answer`` runs a valid call and ``reply`` wraps the
    tool results as the SDK's next messages; an invalid call is answered with its own ``to_tool_result``.
    """
    messages: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    turns: list[list[str]] = []
    for _ in range(5):
        calls, result = ask(messages)
        answers = [answer(call) if call.ok else call.to_tool_result(fmt) for call in calls]
        turns.append(["ok" if call.ok else "invalid" for call in result.calls + result.invalid_calls])
        if not answers:
            break
        messages.append(result.to_history(fmt))
        messages.extend(reply(answers))
    return turns, result


def test_an_openai_agent_loop_recovers_from_an_invalid_call() -> None:
    with (
        LocalEndpoint(AGENT_SCRIPT) as endpoint,
        openai.OpenAI(base_url=endpoint.url, api_key="test", max_retries=0) as client,
    ):

        def ask(messages: list[Any]) -> tuple[list[Any], toolwire.StreamResult]:
            stream = client.chat.completions.create(
                model="agent",
                messages=messages,
                tools=TOOLS.to_openai(),  # type: ignore[arg-type]
                stream=True,
            )
            calls = toolwire.reassemble(stream, tools=TOOLS, on_invalid="yield")
            return list(calls), calls.result

        turns, result = agent_loop(
            "openai-chat",
            ask,
            lambda call: {"role": "tool", "tool_call_id": call.id, "content": run_weather(call.arguments)},
            lambda answers: answers,
        )
        assert turns == [["invalid"], ["ok"], []]
        assert result.text == "It is 18 °C in Paris."
        # The invalid call's id was answered, exactly as it was sent.
        first = endpoint.requests[1].body
        assert first is not None
        sent_id = first["messages"][1]["tool_calls"][0]["id"]
        assert first["messages"][2]["tool_call_id"] == sent_id
        assert "ENUM_OUT_OF_RANGE" in first["messages"][2]["content"]


def test_an_anthropic_agent_loop_recovers_from_an_invalid_call() -> None:
    with (
        LocalEndpoint(AGENT_SCRIPT) as endpoint,
        anthropic.Anthropic(base_url=endpoint.url.removesuffix("/v1"), api_key="test", max_retries=0) as client,
    ):

        def ask(messages: list[Any]) -> tuple[list[Any], toolwire.StreamResult]:
            with client.messages.stream(
                model="agent",
                max_tokens=256,
                messages=messages,
                tools=TOOLS.to_anthropic(),  # type: ignore[arg-type]
            ) as stream:
                calls = toolwire.reassemble(stream, tools=TOOLS, on_invalid="yield")
                return list(calls), calls.result

        turns, result = agent_loop(
            "anthropic-messages",
            ask,
            lambda call: {"type": "tool_result", "tool_use_id": call.id, "content": run_weather(call.arguments)},
            lambda results: [{"role": "user", "content": results}],
        )
        assert turns == [["invalid"], ["ok"], []]
        assert result.text == "It is 18 °C in Paris."
