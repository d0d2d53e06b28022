"""Calls the provider ran itself are kept in ``output`` and counted by ``server_calls``, never handed over.

Bedrock's ``toolUse`` blocks of type ``server_tool_use`` (Nova's built-in tools) and their ``toolResult`` blocks, and
Gemini's built-in tool parts (``executableCode``, ``toolCall``), through the core and the reference, streamed and
buffered (docs/semantics.md, "Every wire format", "bedrock-converse", "gemini").
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from tests.support.paths import CORPORA

EXT = CORPORA / "provider-streams-ext"
needs_corpus = pytest.mark.skipif(not EXT.is_dir(), reason="the shared provider-streams-ext corpus is not present")


def run(implementation: ModuleType, source: Any, **options: Any) -> toolwire.StreamResult:
    stream = implementation.reassemble(source, on_invalid="yield", **options)
    list(stream)
    return stream.result  # type: ignore[no-any-return]


def nova_events() -> list[dict[str, Any]]:
    path = EXT / "streams" / "bedrock__nova2-lite-server-tool-then-final-result.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@needs_corpus
def test_a_bedrock_server_tool_is_no_client_call(implementation: ModuleType) -> None:
    result = run(implementation, nova_events())
    assert [(call.name, call.index, call.arguments) for call in result.calls] == [
        ("final_result", 2, {"result": 7006652.0})
    ]
    assert not result.invalid_calls
    assert result.ok
    assert [call["toolUse"]["name"] for call in result.server_calls] == ["nova_code_interpreter"]
    assert [next(iter(item.value)) for item in result.output] == ["toolUse", "toolResult"]
    server_use, server_result = (item.value for item in result.output)
    assert server_use["toolUse"]["input"] == {"snippet": "1234 * 5678"}
    assert server_result["toolResult"]["content"] == [
        {"json": {"stdOut": "7006652", "stdErr": "", "exitCode": 0, "isError": False}}
    ]


@needs_corpus
def test_a_bedrock_server_tool_is_replayed_in_place_and_never_answered(implementation: ModuleType) -> None:
    result = run(implementation, nova_events(), tools=[{"name": "final_result", "input_schema": {"type": "object"}}])
    turn = result.to_history("bedrock-converse")
    assert [next(iter(block)) for block in turn["content"]] == ["toolUse", "toolResult", "toolUse"]
    assert [block["toolUse"]["name"] for block in turn["content"] if "toolUse" in block] == [
        "nova_code_interpreter",
        "final_result",
    ]
    # Only the client call has an id the application answers; the server call's is Bedrock's own.
    assert [call.id for call in result.calls] == ["tooluse_ptgCcZ0uQu-UUMz0abqoWw"]


@needs_corpus
def test_a_buffered_converse_response_with_a_server_tool(implementation: ModuleType) -> None:
    response = json.loads((EXT / "buffered" / "bedrock__nova-code-interpreter-then-final.json").read_text())
    result = implementation.normalize(response)
    assert [(call.name, call.arguments) for call in result.calls] == [("final_result", {"result": 7006652.0})]
    assert [call["toolUse"]["name"] for call in result.server_calls] == ["nova_code_interpreter"]
    assert result.output[1].value["toolResult"]["status"] == "success"


def test_a_bedrock_server_tool_input_that_is_no_json_is_kept_as_text(implementation: ModuleType) -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 0,
                "start": {"toolUse": {"name": "s", "toolUseId": "t", "type": "server_tool_use"}},
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"a": '}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "not text"}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    result = run(implementation, events)
    assert not result.calls and not result.invalid_calls
    assert result.text == ""
    assert [item.value for item in result.output] == [
        {"toolUse": {"name": "s", "toolUseId": "t", "type": "server_tool_use", "input": '{"a": '}}
    ]


@needs_corpus
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gemini__g3flash-code-execution.sse", ["executableCode"]),
        ("gemini__g3flash-google-search-server-toolcall.sse", ["toolCall"]),
        ("gemini__g3flash-file-search-server-toolcall.sse", ["toolCall"]),
    ],
)
def test_gemini_built_in_tool_parts_are_server_calls(
    name: str, expected: list[str], implementation: ModuleType
) -> None:
    result = run(implementation, (EXT / "streams" / name).read_bytes())
    assert not result.calls and not result.invalid_calls
    assert [next(key for key in call if key in ("executableCode", "toolCall")) for call in result.server_calls] == (
        expected
    )
    results = [
        item.value for item in result.output if "codeExecutionResult" in item.value or "toolResponse" in item.value
    ]
    assert results, "the results are kept in output, and are no calls"
    assert not [value for value in results if value in result.server_calls]
