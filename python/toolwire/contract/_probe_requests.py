"""The live probes' requests, written once and rendered into each wire format.

A probe is a provider-neutral request (one user message, tools, a tool choice, streamed or not); this module turns
it into the body, path and headers of the format's endpoint. Nothing here talks to the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from toolwire.formats import MAX_TOKENS_FIELD, REQUEST_PATHS, request_headers, request_tools, spell_tool_choice
from toolwire.registry import Tool, ToolRegistry

__all__ = ["PROBE_FORMATS", "PROBE_TOOLS", "Choice", "ProbeRequest", "render_request", "standard_probes"]

#: The formats the probe speaks: the ones a local OpenAI- or Anthropic-compatible server exposes.
PROBE_FORMATS: tuple[str, ...] = tuple(REQUEST_PATHS)

#: What a probe forces: a tool by name, any tool, no tool, or the model's own choice.
Choice = Literal["auto", "none", "required"] | str

_GET_WEATHER = Tool(
    "get_weather",
    "Current weather for a city.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
)
_LOOKUP_ORDER = Tool(
    "lookup_order",
    "Look an order up by its id.",
    {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "pattern": "^ORD-[0-9]+$"},
            "include_items": {"type": "boolean"},
        },
        "required": ["order_id", "include_items"],
        "additionalProperties": False,
    },
    strict=True,
)
_GET_TIME = Tool("get_time", "The current time in UTC.", {"type": "object", "properties": {}})

#: The tools the standard probes send, by name.
PROBE_TOOLS: dict[str, Tool] = {tool.name: tool for tool in (_GET_WEATHER, _LOOKUP_ORDER, _GET_TIME)}

# Enough room for a call's arguments; a probe never needs prose.
_MAX_TOKENS = 256
# The smallest answer every target accepts (the Responses API refuses max_output_tokens below 16).
_ONE_TOKEN = {"openai-chat": 1, "anthropic-messages": 1, "openai-responses": 16}


@dataclass(frozen=True)
class ProbeRequest:
    """One probe: what it sends and what it checks beyond the shape.

    Attributes:
        name: The probe's stable id (``forced_streamed``, ...).
        description: One line for the report.
        prompt: The user message.
        tools: The tools offered.
        choice: ``"auto"``, ``"none"``, ``"required"`` or the name of the one tool forced.
        stream: Streamed (SSE) or buffered.
        min_calls: Calls the answer should hold for the ``parallel_calls`` check (0: not checked).
        expect_no_call: The ``no_tool_call`` check applies.
        acceptance_only: Only the HTTP status matters (the team's own tools, one token).
    """

    name: str
    description: str
    prompt: str
    tools: ToolRegistry
    choice: Choice
    stream: bool
    min_calls: int = 0
    expect_no_call: bool = False
    acceptance_only: bool = False

    @property
    def forced(self) -> str | None:
        """The tool choice the shape checks hold the answer to (None when nothing is forced)."""
        return None if self.choice in ("auto", "none") else self.choice


def _tools(*names: str) -> ToolRegistry:
    return ToolRegistry([PROBE_TOOLS[name] for name in names])


def standard_probes(own_tools: ToolRegistry | None = None) -> list[ProbeRequest]:
    """The live contract suite, in the order it runs.

    Args:
        own_tools: The team's tool definitions; adds the ``tools_accepted`` probe.

    Returns:
        The probes.
    """
    weather = "What is the weather in Paris?"
    probes = [
        ProbeRequest(
            "forced_buffered", "named tool forced, buffered", weather, _tools("get_weather"), "get_weather", False
        ),
        ProbeRequest(
            "forced_streamed", "named tool forced, streamed", weather, _tools("get_weather"), "get_weather", True
        ),
        ProbeRequest(
            "parallel_required",
            "tool_choice required, two cities asked for, streamed",
            "What is the weather in Paris and in Tokyo? Call get_weather once for each city.",
            _tools("get_weather"),
            "required",
            True,
            min_calls=2,
        ),
        ProbeRequest(
            "choice_none",
            "tool_choice none: no call",
            weather,
            _tools("get_weather"),
            "none",
            True,
            expect_no_call=True,
        ),
        ProbeRequest(
            "strict_schema",
            "strict tool (additionalProperties false) forced, streamed",
            "Look up order ORD-1234 with its items.",
            _tools("lookup_order"),
            "lookup_order",
            True,
        ),
        ProbeRequest(
            "no_parameters",
            "tool without parameters forced, streamed",
            "What time is it?",
            _tools("get_time"),
            "get_time",
            True,
        ),
    ]
    if own_tools is not None:
        probes.append(
            ProbeRequest(
                "tools_accepted",
                f"your {len(own_tools.names)} tool definitions accepted (one-token request)",
                "Reply with OK.",
                own_tools,
                "auto",
                False,
                acceptance_only=True,
            )
        )
    return probes


def render_request(
    probe: ProbeRequest, fmt: str, model: str, api_key: str | None
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """The path (below the base URL), JSON body and headers of a probe in one wire format.

    Args:
        probe: The probe.
        fmt: One of ``PROBE_FORMATS``.
        model: The model to ask.
        api_key: Sent as the format's credential header when given.

    Returns:
        ``(path, body, headers)``.

    Raises:
        ValueError: ``fmt`` is not a probe format.
    """
    if fmt not in REQUEST_PATHS:
        raise ValueError(f"format must be one of {', '.join(PROBE_FORMATS)}; got {fmt!r}")
    max_tokens = _ONE_TOKEN[fmt] if probe.acceptance_only and fmt in _ONE_TOKEN else _MAX_TOKENS
    message = {"role": "user", "content": probe.prompt}
    choice = probe.choice if probe.choice in ("auto", "none", "required") else {"name": probe.choice}
    body: dict[str, Any] = {
        "model": model,
        **({"input": probe.prompt} if fmt == "openai-responses" else {"messages": [message]}),
        "tools": request_tools(probe.tools, fmt),
        "tool_choice": spell_tool_choice(choice, fmt),
        MAX_TOKENS_FIELD[fmt]: max_tokens,
        "stream": probe.stream,
    }
    return REQUEST_PATHS[fmt], body, request_headers(fmt, api_key, probe.stream)
