"""The servers' own parser tests (``../shared/corpora/text-calls``) through the reference's dialect parsers.

Each case is fed whole, in the source's deltas (where it has them), at random split points (seeded, several splits)
and one character at a time: the valid calls (name, arguments as JSON values, id where pinned), the invalid ones,
the content and the reasoning (where the case pins them) must be the expected ones, and every feeding must give the
events feeding it whole gives (text merged). ``ALTERNATIVES`` meets a few cases by another outcome the corpus names as
correct (its README or the case's notes, quoted); ``DEVIATIONS`` lists the cases whose expectation follows a rule we
chose otherwise, with the reason. docs/dialects.md gives the share each dialect meets, counted here.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

import pytest

import toolwire
import toolwire.reference
from tests.support.paths import REPO, corpus
from toolwire import ViolationCode
from toolwire.reference.dialects import DIALECTS, Call, Event, Finding, Reasoning, Text, merged, parse

#: Cases whose expectation we do not meet, with the rule that decides otherwise.
DEVIATIONS: dict[str, str] = {
    "vllm-q3c-type-conversion": (
        "the schema says 'type': 'float', which JSON Schema has not: an unknown type types nothing, so '3.14' stays "
        "a string and the call is invalid (UNTYPED_VALUE) rather than guessed a number"
    ),
    "vllm-mistral-pre11-junk-before-array": (
        "'[TOOL_CALLS]  junk [' is a marker followed by a name that neither [ARGS] nor an object follows: the marker "
        "is text (MARKER_IN_TEXT) and so is the array after it, rather than a call searched for past the junk"
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


@dataclass(frozen=True)
class Alternative:
    """What we hand over instead of a case's expectation, where the corpus itself names it as a correct outcome.

    ``allowed`` quotes the corpus (its README or the case's notes); ``expected`` replaces the case's ``expected_*``
    fields it names; ``findings`` are the codes of the findings, in order. Checked in every feeding, as the
    expectation it replaces would be.
    """

    allowed: str
    expected: dict[str, Any]
    findings: tuple[str, ...]


_UNKNOWN_TOOL = Alternative(
    "README, expected_invalid: 'calls that must come out invalid or as a violation'. The parser reads the call (as "
    "vLLM's GLM cases, which call tools their list lacks, pin it) with NO_SCHEMA on its values, and tools= makes it "
    "an invalid call, UNKNOWN_TOOL: test_a_call_to_a_tool_the_list_lacks_is_invalid_once_judged",
    {"expected_calls": [{"name": "invalid_func", "arguments": {"city": "Beijing"}}], "expected_invalid": []},
    ("NO_SCHEMA",),
)
_REASONING_READ = (
    "the case pins vLLM's tool parser run without a reasoning parser, which leaves the <think> block in the content "
    "(its notes say so); a reasoning parser, run first, makes it reasoning, and a dialect parser reads reasoning too"
)

#: Cases met by another outcome the corpus allows, with that outcome.
ALTERNATIVES: dict[str, Alternative] = {
    "sglang-glm45-unknown-tool": _UNKNOWN_TOOL,
    "sglang-glm47-unknown-tool": _UNKNOWN_TOOL,
    "vllm-glm45-untyped-values-deserialized": Alternative(
        "README, flags: 'untyped_guess: the source types a value without (or against) a schema; a strict library may "
        "keep the string and report it'. The tool has no schema: the values stay strings, each with NO_SCHEMA",
        {
            "expected_calls": [
                {"name": "calculate", "arguments": {"operation": "add", "a": "42", "b": "3.14", "enabled": "true"}}
            ]
        },
        ("NO_SCHEMA",) * 4,
    ),
    "vllm-glm45-think-then-call": Alternative(
        _REASONING_READ,
        {"expected_content": "I will help you get the weather.", "expected_reasoning": "I want to get the weather."},
        ("NO_SCHEMA",),  # "date" is not among get_weather's properties
    ),
    "vllm-xlam-think-then-array": Alternative(
        _REASONING_READ,
        {"expected_content": "", "expected_reasoning": "I'll help you with that."},
        (),
    ),
    "sglang-glm45-array-value-escaped": Alternative(
        "the case's notes: 'SGLang still recovers the array; a strict parser reports it'. Written JSON-escaped ('\\n' "
        "for its newlines), the call has not the dialect's shape: an invalid call, MALFORMED_CALL, its text kept",
        {"expected_calls": [], "expected_invalid": [{"name": "todo_write\\n", "why": "malformed"}]},
        ("MALFORMED_CALL",),
    ),
}

#: The dialects issue 17 requires: each must meet at least 95% of its cases.
REQUIRED = (
    "hermes", "qwen3_coder", "seed_oss", "harmony", "deepseek_v3", "deepseek_v31", "deepseek_dsml", "glm45", "glm47",
    "kimi_k2", "mistral", "llama3_json", "minimax_m2", "pythonic",
)  # fmt: skip

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


def _case_ids(flag: str | None = None) -> Iterator[str]:
    try:
        yield from (case["case_id"] for case in _cases() if flag is None or flag in case["flags"])
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


def conformance() -> dict[str, tuple[int, int]]:
    """Per dialect, the cases met (as expected or by a named alternative) and the cases."""
    counts: dict[str, tuple[int, int]] = {}
    for case in _cases():
        met, cases = counts.get(case["dialect"], (0, 0))
        counts[case["dialect"]] = (met + (case["case_id"] not in DEVIATIONS), cases + 1)
    return counts


@pytest.mark.parametrize("feeding", FEEDINGS)
@pytest.mark.parametrize("case_id", list(_case_ids()))
def test_case(case_id: str, feeding: str) -> None:
    case = _case(case_id)
    if case_id in DEVIATIONS:
        pytest.skip(DEVIATIONS[case_id])
    splits = feedings(case, feeding)
    if not splits:
        pytest.skip("the source streams this case in no deltas of its own")
    alternative = ALTERNATIVES.get(case_id)
    expected = case if alternative is None else case | alternative.expected
    whole = run(case, [case["model_output"]])
    for deltas in splits:
        events = run(case, deltas)
        assert problems(expected, events) == [], deltas
        if alternative is not None:
            assert [event.code for event in events if isinstance(event, Finding)] == list(alternative.findings)
        assert events == whole, deltas


@pytest.mark.parametrize("implementation", [toolwire, toolwire.reference], ids=["core", "reference"])
@pytest.mark.parametrize("case_id", list(_case_ids("unknown_tool")))
def test_a_call_to_a_tool_the_list_lacks_is_invalid_once_judged(implementation: Any, case_id: str) -> None:
    """What the corpus expects of a call to a tool its list lacks is what ``reassemble(..., tools=)`` hands over."""
    case = _case(case_id)
    for feeding in FEEDINGS:
        for deltas in feedings(case, feeding):
            stream = implementation.reassemble(deltas, dialect=case["dialect"], tools=case["tools"], on_invalid="yield")
            handed = list(stream)
            assert [(type(call).__name__, call.name) for call in handed] == [
                ("InvalidToolCall", want["name"]) for want in case["expected_invalid"]
            ]
            assert all(ViolationCode.UNKNOWN_TOOL in {error.code for error in call.errors} for call in handed)


def test_every_required_dialect_meets_95_percent_of_its_cases() -> None:
    shares = conformance()
    assert set(shares) == set(DIALECTS)
    assert {dialect: shares[dialect] for dialect in REQUIRED if shares[dialect][0] < 0.95 * shares[dialect][1]} == {}


def test_the_docs_give_the_conformance_measured_here() -> None:
    table = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", (REPO / "docs" / "dialects.md").read_text(), re.M)
    assert {dialect: (int(met), int(cases)) for dialect, cases, met in table} == conformance()


def test_corpus_is_read() -> None:
    assert {case["dialect"] for case in _cases()} == set(DIALECTS)
    named = {case["case_id"] for case in _cases()}
    assert all(case_id in named for case_id in [*DEVIATIONS, *ALTERNATIVES])
    assert not set(DEVIATIONS) & set(ALTERNATIVES)
