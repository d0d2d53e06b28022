"""The public API as users install it: run on the dev build with the rest of the suite, and by ``make wheel-check``
inside a clean virtualenv holding only the release wheel and pytest (no Rust on PATH, no extras, no source tree).

This folder imports nothing but toolwire, the standard library and pytest, and has no conftest of its own, so that
it runs alone (``--confcutdir tests/smoke``). Every expectation is derived by hand from the chunks written here.
"""

from __future__ import annotations

import asyncio
import importlib.machinery
import importlib.metadata
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import toolwire

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "celsius": {"type": "boolean"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def opening(index: int, call_id: str, arguments: str) -> dict[str, Any]:
    return {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }


def more(index: int, arguments: str) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": arguments}}


# Two interleaved calls: call_a is valid, call_b sends the boolean as a string.
CHUNKS = [
    chunk({"role": "assistant"}),
    chunk({"tool_calls": [opening(0, "call_a", '{"city": ')]}),
    chunk({"tool_calls": [opening(1, "call_b", '{"city": "Oslo", ')]}),
    chunk({"tool_calls": [more(0, '"Paris"}')]}),
    chunk({"tool_calls": [more(1, '"celsius": "true"}')]}),
    chunk({}, finish="tool_calls"),
]
SSE = b"".join(b"data: " + json.dumps(item).encode() + b"\n\n" for item in CHUNKS) + b"data: [DONE]\n\n"


Summary = tuple[str, bool, Any, list[tuple[str, str]]]


def summarize(call: toolwire.ToolCall | toolwire.InvalidToolCall) -> Summary:
    errors = [] if isinstance(call, toolwire.ToolCall) else [(v.code, v.path) for v in call.errors]
    return (call.id, call.ok, call.arguments, errors)


def summary(calls: toolwire.ToolCallStream) -> list[Summary]:
    return [summarize(call) for call in calls]


EXPECTED = [
    ("call_a", True, {"city": "Paris"}, []),
    ("call_b", False, {"city": "Oslo", "celsius": "true"}, [("TYPE_MISMATCH", "/celsius")]),
]


def test_the_package_is_the_installed_distribution() -> None:
    distribution = importlib.metadata.distribution("toolwire")
    assert toolwire.__version__ == distribution.version
    assert toolwire._core.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    if "toolwire/__init__.py" in {str(file) for file in distribution.files or ()}:  # a wheel, not an editable build
        assert Path(toolwire.__file__) == distribution.locate_file("toolwire/__init__.py")


def test_chunks_reassemble_into_checked_calls() -> None:
    calls = toolwire.reassemble(CHUNKS, tools=TOOLS, on_invalid="yield")
    assert summary(calls) == EXPECTED
    assert calls.result.finish_reason == "tool_calls"
    assert not calls.result.ok


def test_invalid_calls_raise_by_default() -> None:
    calls = toolwire.reassemble(CHUNKS, tools=TOOLS)
    assert next(iter(calls)).id == "call_a"
    try:
        next(iter(calls))
    except toolwire.InvalidToolCallError as error:
        assert "/celsius" in str(error)
    else:
        raise AssertionError("call_b is invalid and on_invalid='raise' is the default")


def test_event_stream_bytes_split_anywhere() -> None:
    for size in (1, 7, 64, len(SSE)):
        pieces = [SSE[start : start + size] for start in range(0, len(SSE), size)]
        assert summary(toolwire.reassemble(pieces, tools=TOOLS, on_invalid="yield")) == EXPECTED


def test_async_reassembly() -> None:
    async def source() -> AsyncIterator[bytes]:
        for start in range(0, len(SSE), 10):
            yield SSE[start : start + 10]

    async def collect() -> list[Summary]:
        return [summarize(call) async for call in toolwire.areassemble(source(), tools=TOOLS, on_invalid="yield")]

    assert asyncio.run(collect()) == EXPECTED


def test_events_show_a_value_still_arriving_as_pending() -> None:
    seen = []
    for event in toolwire.events(CHUNKS[:3]):
        if isinstance(event, toolwire.ArgumentsDelta) and event.seq == 0:
            seen.append(dict(event.snapshot()))
    assert seen == [{"city": toolwire.Pending("value", "")}]


def test_validate_without_a_stream() -> None:
    assert toolwire.validate("get_weather", '{"city": "Rome"}', TOOLS) == []
    codes = [v.code for v in toolwire.validate("get_weather", '{"town": "Rome"}', TOOLS)]
    assert sorted(codes) == ["MISSING_REQUIRED_ARGUMENT", "UNEXPECTED_ARGUMENT"]


def test_structured_output_from_text_deltas() -> None:
    deltas = [chunk({"content": piece}) for piece in ('{"ci', 'ty": "Li', 'ma"}')] + [chunk({}, finish="stop")]
    result = toolwire.stream_object(deltas, schema=TOOLS[0]["function"]["parameters"]).result
    assert (result.ok, result.value) == (True, {"city": "Lima"})
    result = toolwire.stream_object(["{}"], format="text", schema=TOOLS[0]["function"]["parameters"]).result
    assert [v.code for v in result.violations] == ["MISSING_REQUIRED_ARGUMENT"]


def test_hostile_nesting_is_a_violation_not_a_crash() -> None:
    depth = 100_000
    hostile = chunk({"tool_calls": [opening(0, "call_x", '{"a": ' + "[" * depth + "]" * depth + "}")]})
    (call,) = toolwire.reassemble([hostile, chunk({}, finish="tool_calls")], on_invalid="yield")
    assert [v.code for v in call.errors] == ["TOO_DEEP"]


def test_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "toolwire", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "reassemble" in done.stdout
    done = subprocess.run([sys.executable, "-m", "toolwire", "demo"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "get_weather" in done.stdout
