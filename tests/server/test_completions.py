"""The completions endpoint and the ``calls_in_content`` quirk: calls written into the text in a model's dialect.

The expected texts are written by hand from the dialects' templates (``docs/dialects.md``); the reference's parser
reads the calls back out of what the endpoint sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

import toolwire
from tests.support.server import events
from toolwire.reference.dialects import Call, Text, merged, parse
from toolwire.server import LocalEndpoint, load_script

WEATHER = {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}
RULES = [{"when": {"user_contains": "weather"}, "reply": {"text": "Let me check.\n", "calls": [WEATHER]}}]
SCRIPT = {
    "defaults": {"rules": RULES, "chunking": {"max_fragment": 5, "seed": 3}},
    "models": {
        "qwen": {"dialect": "qwen3_coder"},
        "kimi": {"dialect": "kimi_k2"},
        "plain": {},
        "cut": {"dialect": "hermes", "quirks": {"truncate": True}},
        "leaky": {"quirks": {"calls_in_content": "hermes"}},
    },
}
QWEN = (
    "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n"
    "</parameter>\n</function>\n</tool_call>"
)
KIMI = (
    "Let me check.\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    '{"city": "Paris", "days": 2}<|tool_call_end|><|tool_calls_section_end|>'
)
HERMES = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
TOOLS = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with LocalEndpoint(SCRIPT) as endpoint:
        yield endpoint.url


def post(url: str, path: str, body: dict[str, Any]) -> httpx.Response:
    with httpx.Client() as http:
        return http.post(url + path, json=body)


@pytest.mark.parametrize(("model", "dialect", "expected"), [("qwen", "qwen3_coder", QWEN), ("kimi", "kimi_k2", KIMI)])
def test_a_buffered_completion_is_the_text_with_the_calls_in_the_models_dialect(
    url: str, model: str, dialect: str, expected: str
) -> None:
    answer = post(url, "/completions", {"model": model, "prompt": "What is the weather in Paris?"})
    assert answer.status_code == 200, answer.text
    completion = answer.json()
    assert completion["object"] == "text_completion" and completion["id"].startswith("cmpl-")
    assert completion["choices"] == [{"index": 0, "text": expected, "logprobs": None, "finish_reason": "stop"}]
    found = merged(parse(dialect, [completion["choices"][0]["text"]], TOOLS))
    assert found[0] == Text("Let me check.\n")
    assert [(c.name, json.loads(c.arguments), c.valid) for c in found if isinstance(c, Call)] == [
        ("get_weather", {"city": "Paris", "days": 2}, True)
    ]


def test_a_streamed_completion_sends_the_same_text_in_chunks(url: str) -> None:
    body = {"model": "qwen", "prompt": "weather?", "stream": True, "stream_options": {"include_usage": True}}
    answer = post(url, "/completions", body)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
    sent = [data for _, data in events(answer.content)]
    assert sent[-1] == "[DONE]"
    chunks = sent[:-1]
    assert {chunk["object"] for chunk in chunks} == {"text_completion"}
    texts = [choice["text"] for chunk in chunks for choice in chunk["choices"]]
    assert "".join(texts) == QWEN and len(texts) > 20  # fragments of at most 5 characters, then the finish's ""
    assert chunks[-2]["choices"] == [{"index": 0, "text": "", "logprobs": None, "finish_reason": "stop"}]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] > 0
    # The core reads the completions format; its text is the model's, calls and all (no dialect parser yet).
    result = toolwire.reassemble(chunks, format="openai-completions")
    assert list(result) == [] and result.result.text == QWEN


def test_the_openai_sdk_reads_the_endpoint(url: str) -> None:
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        completion = client.completions.create(model="kimi", prompt="weather in Paris")
        assert completion.choices[0].text == KIMI
        stream = client.completions.create(model="kimi", prompt="weather in Paris", stream=True)
        assert "".join(chunk.choices[0].text for chunk in stream if chunk.choices) == KIMI


def test_a_cut_completion_ends_inside_the_call(url: str) -> None:
    buffered = post(url, "/completions", {"model": "cut", "prompt": "weather"}).json()
    assert buffered["choices"][0] == {
        "index": 0,
        "text": HERMES[: len(HERMES) // 2],
        "logprobs": None,
        "finish_reason": "length",
    }
    streamed = events(post(url, "/completions", {"model": "cut", "prompt": "weather", "stream": True}).content)
    assert "".join(data["choices"][0]["text"] for _, data in streamed) == HERMES[: len(HERMES) // 2]
    assert all(data["choices"][0]["finish_reason"] is None for _, data in streamed)  # no finish, no [DONE]


def test_text_only_needs_no_dialect_and_calls_do(url: str) -> None:
    answer = post(url, "/completions", {"model": "plain", "prompt": "Hello"})
    assert answer.json()["choices"][0]["text"] == "This is a scripted answer from the toolwire local endpoint."
    refused = post(url, "/completions", {"model": "plain", "prompt": "weather"})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "no_dialect"
    assert "give the model a dialect in the script" in refused.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": "qwen"}, "prompt: expected a string (or an array of one string); it is missing"),
        ({"model": "qwen", "prompt": ["a", "b"]}, "prompt: expected one prompt; got 2"),
        ({"model": "qwen", "prompt": "x", "tools": []}, "tools: a completions request has no tools"),
    ],
)
def test_a_malformed_completions_request_is_a_400(url: str, body: dict[str, Any], message: str) -> None:
    answer = post(url, "/completions", body)
    assert answer.status_code == 400 and answer.json()["error"]["message"].startswith(message)


def test_calls_in_content_writes_the_calls_into_chat_content(url: str) -> None:
    body = {"model": "leaky", "messages": [{"role": "user", "content": "weather?"}]}
    buffered = post(url, "/chat/completions", body).json()["choices"][0]
    assert buffered["message"]["content"] == HERMES and "tool_calls" not in buffered["message"]
    assert buffered["finish_reason"] == "stop"
    streamed = [data for _, data in events(post(url, "/chat/completions", {**body, "stream": True}).content)]
    deltas = [c["choices"][0]["delta"] for c in streamed if c != "[DONE]" and c["choices"]]
    assert "".join(delta.get("content") or "" for delta in deltas) == HERMES
    assert not any("tool_calls" in delta for delta in deltas)
    found = merged(parse("hermes", ["".join(delta.get("content") or "" for delta in deltas)], TOOLS))
    assert [event.name for event in found if isinstance(event, Call)] == ["get_weather"]


def test_calls_in_content_reaches_the_other_formats(url: str) -> None:
    messages = [{"role": "user", "content": "weather?"}]
    responses = post(url, "/responses", {"model": "leaky", "input": "weather?"}).json()
    assert [item["type"] for item in responses["output"]] == ["message"]
    assert responses["output"][0]["content"][0]["text"] == HERMES
    anthropic = post(url, "/messages", {"model": "leaky", "max_tokens": 64, "messages": messages}).json()
    assert anthropic["content"] == [{"type": "text", "text": HERMES}] and anthropic["stop_reason"] == "end_turn"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"models": {"m": {"dialect": "nope"}}}, "models.m.dialect: expected a dialect name"),
        (
            {"models": {"m": {"quirks": {"calls_in_content": True}}}},
            "models.m.quirks.calls_in_content: expected a dialect",
        ),
    ],
)
def test_a_dialect_is_one_the_renderer_knows(document: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_script(document)
