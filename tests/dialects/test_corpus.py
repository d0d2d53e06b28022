"""The servers' own parser tests (``../shared/corpora/text-calls``) through the reference's dialect parsers.

Each case is fed whole, in the source's deltas (where it has them), at random split points (seeded, several splits)
and one character at a time: the valid calls (name, arguments as JSON values, id where pinned), the invalid ones,
the content and the reasoning (where the case pins them) must be the expected ones, and every feeding must give the
events feeding it whole gives (text merged). ``DEVIATIONS`` lists the cases whose expectation follows a rule we chose
otherwise, with the reason.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import cache
from itertools import pairwise
from typing import Any

import pytest

from tests.support.paths import corpus
from toolwire.reference.dialects import DIALECTS, Call, Event, Reasoning, Text, merged, parse

#: Cases whose expectation we do not meet on purpose, with the rule that decides otherwise.
DEVIATIONS: dict[str, str] = {
    "vllm-q3c-type-conversion": (
        "the schema says 'type': 'float', which JSON Schema has not: an unknown type types nothing, so '3.14' stays "
        "a string and the call is invalid (UNTYPED_VALUE) rather than guessed a number"
    ),
    "vllm-mistral-pre11-junk-before-array": (
        "'[TOOL_CALLS]  junk [' is a marker followed by a name that neither [ARGS] nor an object follows: the marker "
        "is text (MARKER_IN_TEXT) and so is the array after it, rather than a call searched for past the junk"
    ),
    **dict.fromkeys(
        ("sglang-glm45-unknown-tool", "sglang-glm47-unknown-tool"),
        "a dialect parser reads calls, it does not judge them: the call to a tool tools= lacks is handed over with "
        "NO_SCHEMA on its values, and the pipeline's validation against the ToolRegistry makes it UNKNOWN_TOOL (vLLM's "
        "GLM cases call tools their schema list lacks and pin those calls as parsed)",
    ),
    "vllm-glm45-untyped-values-deserialized": (
        "with no schema for the tool, '42', '3.14' and 'true' are kept strings with NO_SCHEMA (docs/semantics.md, Raw "
        "values), as for qwen3_coder and minimax_m2, rather than guessed JSON as vLLM's GLM parser does"
    ),
    **dict.fromkeys(
        ("vllm-glm45-think-then-call", "vllm-xlam-think-then-array"),
        "the parser reads reasoning too: '<think>…</think>' the model writes is reasoning, not content, where the "
        "case pins vLLM's tool parser run without its reasoning parser",
    ),
    "sglang-glm45-array-value-escaped": (
        "a call written JSON-escaped ('\\n' for its newlines, '\\\"' for its quotes) has not the dialect's shape: "
        "its name 'todo_write\\n' runs into <arg_key> and its value is not JSON, so the call is MALFORMED_CALL "
        "(invalid, its text kept), not recovered by guessing which escapes the model meant"
    ),
    "vllm-fgemma-stream-three-keys": (
        "'<escape>10<escape>' is a quoted string: FunctionGemma's template quotes strings and only strings (a number "
        "is written bare), and a quoted value is typed by how it is written, never guessed from its text, so it stays "
        "the string '10' (a schema that wants an integer then finds TYPE_MISMATCH) rather than vLLM's number 10"
    ),
    "llamacpp-ling3-spelled-end-token": (
        "'<|role_end|>' after the call is Ling's end-of-turn token spelled out by a server that keeps special tokens: "
        "text outside calls is text, never dropped, so it stays content rather than being removed as llama.cpp's "
        "template-aware parser does"
    ),
}

FEEDINGS = ("whole", "source_deltas", "random_splits", "characters")
SPLITS_PER_CASE = 5


@cache
def _cases() -> tuple[dict[str, Any], ...]:
    folder = corpus("text-calls")
    lines = [
        *(folder / "cases.jsonl").read_text(encoding="utf-8").splitlines(),
        *(folder / "known_failures.jsonl").read_text(encoding="utf-8").splitlines(),
    ]
    return tuple(case for case in map(json.loads, lines) if case["dialect"] in DIALECTS)


def _case_ids() -> Iterator[str]:
    try:
        yield from (case["case_id"] for case in _cases())
    except pytest.skip.Exception:
        return


def _case(case_id: str) -> dict[str, Any]:
    return next(case for case in _cases() if case["case_id"] == case_id)


def feedings(case: dict[str, Any], feeding: str) -> list[list[str]]:
    """The ways ``feeding`` splits the case's text (none when the case has no source deltas)."""
    text: str = case["model_output"]
    if feeding == "whole":
        return [[text]]
    if feeding == "source_deltas":
        return [case["deltas"]] if case.get("deltas") else []
    if feeding == "characters":
        return [list(text)]
    rng = random.Random(case["case_id"])
    splits = []
    for _ in range(SPLITS_PER_CASE):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 8)))) if len(text) > 1 else []
        bounds = [0, *cuts, len(text)]
        splits.append([text[a:b] for a, b in pairwise(bounds)])
    return splits


def run(case: dict[str, Any], deltas: list[str]) -> list[Event]:
    """The merged events of the case's text fed as ``deltas``."""
    tools = (
        {tool["function"]["name"]: tool["function"].get("parameters", {}) for tool in case["tools"]}
        if case["tools"] is not None
        else None
    )
    return merged(parse(case["dialect"], deltas, tools, reasoning="think_prefilled" in case["flags"]))


def problems(case: dict[str, Any], events: list[Event]) -> list[str]:
    """How ``events`` differ from what the case expects (empty when they do not)."""
    found: list[str] = []
    calls = [event for event in events if isinstance(event, Call)]
    valid = [call for call in calls if call.valid]
    got = [
        {"name": call.name, "arguments": json.loads(call.arguments)} | ({"id": call.id} if "id" in expected else {})
        for call, expected in zip(valid, case["expected_calls"], strict=False)
    ]
    if len(valid) != len(case["expected_calls"]) or got != case["expected_calls"]:
        found.append(f"valid calls {[(c.name, c.arguments, c.id) for c in valid]} != {case['expected_calls']}")
    invalid = [call for call in calls if not call.valid]
    expected_invalid = case.get("expected_invalid") or []
    if len(invalid) != len(expected_invalid) or any(
        want["name"] is not None and call.name != want["name"]
        for call, want in zip(invalid, expected_invalid, strict=False)
    ):
        found.append(f"invalid calls {[(c.name, c.arguments) for c in invalid]} != {expected_invalid}")
    content = "".join(event.text for event in events if isinstance(event, Text))
    if case.get("expected_content") is not None and content.strip() != case["expected_content"].strip():
        found.append(f"content {content!r} != {case['expected_content']!r}")
    reasoning = "".join(event.text for event in events if isinstance(event, Reasoning))
    if case.get("expected_reasoning") is not None and reasoning.strip() != case["expected_reasoning"].strip():
        found.append(f"reasoning {reasoning!r} != {case['expected_reasoning']!r}")
    return found


@pytest.mark.parametrize("feeding", FEEDINGS)
@pytest.mark.parametrize("case_id", list(_case_ids()))
def test_case(case_id: str, feeding: str) -> None:
    case = _case(case_id)
    if case_id in DEVIATIONS:
        pytest.skip(DEVIATIONS[case_id])
    splits = feedings(case, feeding)
    if not splits:
        pytest.skip("the source streams this case in no deltas of its own")
    whole = run(case, [case["model_output"]])
    for deltas in splits:
        events = run(case, deltas)
        assert problems(case, events) == [], deltas
        assert events == whole, deltas


def test_corpus_is_read() -> None:
    assert {case["dialect"] for case in _cases()} == set(DIALECTS)
    assert all(case_id in {case["case_id"] for case in _cases()} for case_id in DEVIATIONS)
