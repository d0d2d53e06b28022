"""Requests and expectations shared by the tests of ``toolwire.server``."""

from __future__ import annotations

import json
from typing import Any

import toolwire
from toolwire.contract._probe_requests import PROBE_TOOLS
from toolwire.registry import ToolRegistry

# The endpoint is tested with the probe's own weather tool, the one a user's first probe sends it.
WEATHER_SCHEMA: dict[str, Any] = PROBE_TOOLS["get_weather"].parameters
TOOLS = ToolRegistry([PROBE_TOOLS["get_weather"]])
PARALLEL = "What is the weather in Paris and in Tokyo? Call get_weather once for each city."
SCRIPTED = [
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("get_weather", {"city": "Tokyo", "unit": "celsius"}),
]
FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")
PATHS = {"openai-chat": "/chat/completions", "openai-responses": "/responses", "anthropic-messages": "/messages"}


def tools_for(fmt: str, tools: ToolRegistry = TOOLS) -> list[dict[str, Any]]:
    if fmt == "openai-chat":
        return tools.to_openai()
    if fmt == "openai-responses":
        return tools.to_openai_responses()
    return tools.to_anthropic()


def choice_for(fmt: str, choice: str | None) -> Any:
    """A tool choice (auto, none, required or a tool name) in a format's own shape."""
    if choice is None:
        return None
    if fmt == "anthropic-messages":
        if choice == "required":
            return {"type": "any"}
        return {"type": choice} if choice in ("auto", "none") else {"type": "tool", "name": choice}
    if choice in ("auto", "none", "required"):
        return choice
    return (
        {"type": "function", "function": {"name": choice}}
        if fmt == "openai-chat"
        else {"type": "function", "name": choice}
    )


def request(
    fmt: str,
    model: str = "clean",
    prompt: str = PARALLEL,
    *,
    stream: bool = True,
    choice: str | None = None,
    tools: ToolRegistry | None = TOOLS,
    **extra: Any,
) -> tuple[str, dict[str, Any]]:
    """The path (below the base URL) and body of a one-message request in a format."""
    body: dict[str, Any] = {"model": model, "stream": stream}
    if fmt == "openai-responses":
        body["input"] = prompt
    else:
        body["messages"] = [{"role": "user", "content": prompt}]
    if fmt == "anthropic-messages":
        body["max_tokens"] = 256
    if tools is not None:
        body["tools"] = tools_for(fmt, tools)
    if choice is not None:
        body["tool_choice"] = choice_for(fmt, choice)
    body.update(extra)
    return PATHS[fmt], body


def named(calls: Any) -> list[tuple[str | None, Any]]:
    return [(call.name, call.arguments) for call in calls]


def events(data: bytes) -> list[tuple[str | None, Any]]:
    """The (event name, decoded data) pairs of an SSE body; ``[DONE]`` kept as the string."""
    found = []
    for block in data.decode().split("\n\n"):
        if not block.strip():
            continue
        name, payload = None, []
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                payload.append(value)
        text = "\n".join(payload)
        found.append((name, text if text == "[DONE]" else json.loads(text)))
    return found


def codes(violations: Any) -> list[str]:
    return sorted(violation.code.value for violation in violations)


def reassembled(source: Any, **options: Any) -> tuple[list[Any], toolwire.StreamResult]:
    stream = toolwire.reassemble(source, on_invalid="yield", **options)
    calls = list(stream)
    return calls, stream.result
