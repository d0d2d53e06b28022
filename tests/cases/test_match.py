"""The matcher of toolwire.cases: argument values, matchers, bipartite matching and the five modes."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cases.helpers import (
    anthropic_events,
    anthropic_sse,
    chat_chunks,
    chat_completion,
    make_case,
    split,
    sse,
    turn,
    write_case_file,
)
from toolwire.cases import ExpectedCall, judge, load_cases, max_matching, turn_from_response
from toolwire.cases._match import Received, fits, pair, passes
from toolwire.cases._values import argument_problems, matches, same_value

# -- argument values -------------------------------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


def pinned(tmp_path: Path, arguments: dict[str, Any], *, strict: bool = False) -> ExpectedCall:
    """The expected call a case file pins, read by the loader (over a tool that accepts any arguments)."""
    call: dict[str, Any] = {"name": "echo", "arguments": arguments}
    if strict:
        call["strict_args"] = True
    data = {"tools": {"echo": {"type": "object"}}, "cases": [{"name": "c", "prompt": "p", "expect": {"calls": [call]}}]}
    return load_cases(write_case_file(tmp_path, data)).cases[0].expect.alternatives[0].steps[0][0]


def problems(call: ExpectedCall, received: dict[str, Any]) -> list[tuple[str, str]]:
    return [(problem.code, problem.key) for problem in argument_problems(call, received)]


@given(json_values)
def test_a_value_is_the_same_as_itself(value: Any) -> None:
    assert same_value(value, value)


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_numbers_compare_by_value(number: int) -> None:
    assert same_value(number, float(number))
    assert same_value([{"n": number}], [{"n": float(number)}])


@given(st.booleans(), st.sampled_from([0, 1, 0.0, 1.0]))
def test_true_and_false_are_never_numbers(flag: bool, number: float) -> None:
    assert not same_value(flag, number)
    assert not same_value(number, flag)
    assert not same_value({"a": [flag]}, {"a": [number]})


@given(st.integers())
def test_strings_are_never_numbers(number: int) -> None:
    assert not same_value(str(number), number)
    assert not same_value(number, str(number))


def test_literal_pins_compare_as_json_values_at_every_depth(tmp_path: Path) -> None:
    call = pinned(tmp_path, {"qty": 1, "flag": True, "code": "5", "items": [{"n": 2, "ok": False}]})
    assert problems(call, {"qty": 1.0, "flag": True, "code": "5", "items": [{"n": 2.0, "ok": False}]}) == []
    assert problems(call, {"qty": True, "flag": 1, "code": 5, "items": [{"n": 2, "ok": 0}]}) == [
        ("value_mismatch", "qty"),
        ("value_mismatch", "flag"),
        ("value_mismatch", "code"),
        ("value_mismatch", "items"),
    ]
    # A pinned object or array pins all of it: a member more or less is a mismatch.
    assert problems(call, {"qty": 1, "flag": True, "code": "5", "items": [{"n": 2, "ok": False, "x": 1}]}) == [
        ("value_mismatch", "items")
    ]


@pytest.mark.parametrize(
    ("matcher", "value", "expected"),
    [
        ("any_string", "Paris", True),
        ("any_string", 5, False),
        ("any_integer", 3, True),
        ("any_integer", 3.0, True),  # JSON Schema counts 1.0 as an integer
        ("any_integer", 3.5, False),
        ("any_integer", True, False),
        ("any_number", 2.5, True),
        ("any_number", False, False),
        ("any_number", "2.5", False),
        ("any_boolean", False, True),
        ("any_boolean", 0, False),
        ("any_object", {}, True),
        ("any_object", [], False),
        ("any_array", [1], True),
        ("any_array", "[1]", False),
        ("any", None, True),
    ],
)
def test_type_only_matchers(tmp_path: Path, matcher: str, value: Any, expected: bool) -> None:
    call = pinned(tmp_path, {"x": {"is": matcher}})
    assert (problems(call, {"x": value}) == []) is expected
    assert problems(call, {}) == [("missing_required", "x")]


def test_one_of_regex_and_optional(tmp_path: Path) -> None:
    call = pinned(
        tmp_path,
        {
            "unit": {"one_of": ["celsius", "fahrenheit"], "optional": True},
            "city": {"regex": "Par.*"},
            "code": {"regex": "[0-9]+"},
            "note": {"optional": True},
        },
    )
    assert problems(call, {"city": "Paris", "code": "75"}) == []
    assert problems(call, {"city": "Paris", "code": "75", "unit": "celsius", "note": [1, 2]}) == []
    # The regex must match the whole string, and never reads a number.
    assert problems(call, {"city": "Lyon Paris", "code": 75, "unit": "kelvin"}) == [
        ("value_mismatch", "unit"),
        ("value_mismatch", "city"),
        ("value_mismatch", "code"),
    ]
    assert problems(call, {"unit": "celsius"}) == [("missing_required", "city"), ("missing_required", "code")]


def test_matchers_inside_a_literal_and_the_exact_escape(tmp_path: Path) -> None:
    call = pinned(
        tmp_path,
        {
            "address": {"city": {"one_of": ["Paris", "Lyon"]}, "zip": {"is": "any_string", "optional": True}},
            "raw": {"exact": {"one_of": [1]}},
        },
    )
    assert problems(call, {"address": {"city": "Lyon"}, "raw": {"one_of": [1.0]}}) == []
    assert problems(call, {"address": {"city": "Lyon", "zip": "69001"}, "raw": {"one_of": [1]}}) == []
    assert problems(call, {"address": {"city": "Nice"}, "raw": {"one_of": [1]}}) == [("value_mismatch", "address")]
    assert problems(call, {"address": {"city": "Lyon", "zip": 69001}, "raw": 1}) == [
        ("value_mismatch", "address"),
        ("value_mismatch", "raw"),
    ]


def test_unpinned_arguments_are_free_unless_strict_args(tmp_path: Path) -> None:
    loose = pinned(tmp_path, {"city": "Paris"})
    strict = pinned(tmp_path, {"city": "Paris"}, strict=True)
    received = {"city": "Paris", "unit": "celsius", "days": 3}
    assert problems(loose, received) == []
    assert problems(strict, received) == [("unexpected_arg", "unit"), ("unexpected_arg", "days")]


@given(json_values)
def test_a_literal_pin_matches_the_value_itself(value: Any) -> None:
    from toolwire.cases import Matcher

    assert matches(Matcher("literal", value), value)


# -- bipartite matching ----------------------------------------------------------------------------------------------


@st.composite
def bipartite_graphs(draw: st.DrawFn) -> tuple[list[list[int]], int]:
    # Up to 5 x 5: the brute force below tries up to 10!/5! = 30,240 assignments per graph.
    left = draw(st.integers(0, 5))
    right = draw(st.integers(0, 5))
    adjacency = [sorted(draw(st.sets(st.integers(0, right - 1), max_size=right))) if right else [] for _ in range(left)]
    return adjacency, right


def brute_force(adjacency: list[list[int]], right: int) -> int:
    """The size of a maximum matching, trying every assignment of left vertices to distinct right ones (or none)."""
    best = 0
    slots = [*range(right), *([None] * len(adjacency))]
    for assignment in itertools.permutations(slots, len(adjacency)):
        if all(r is None or r in adjacency[left] for left, r in enumerate(assignment)):
            best = max(best, sum(r is not None for r in assignment))
    return best


@given(bipartite_graphs())
def test_the_matching_is_maximum_and_valid(graph: tuple[list[list[int]], int]) -> None:
    adjacency, right = graph
    partners = max_matching(adjacency, right)
    chosen = [r for r in partners if r is not None]
    assert len(chosen) == len(set(chosen))  # one-to-one
    assert all(r is None or r in adjacency[left] for left, r in enumerate(partners))  # along edges
    assert len(chosen) == brute_force(adjacency, right)


def greedy_first_fit(expected: list[ExpectedCall], received: list[Received]) -> bool:
    """agentevals' matching: each expected call takes the first unused received call that fits."""
    used: set[int] = set()
    for wanted in expected:
        found = next((i for i, call in enumerate(received) if i not in used and fits(wanted, call)), None)
        if found is None:
            return False
        used.add(found)
    return True


def test_bipartite_matching_succeeds_where_greedy_first_fit_fails(tmp_path: Path) -> None:
    case = make_case(
        tmp_path,
        {
            "mode": "unordered",
            "calls": [
                {"name": "get_weather", "arguments": {"city": {"is": "any_string"}}},
                {"name": "get_weather", "arguments": {"city": "Paris"}},
            ],
        },
    )
    answer = turn([("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})])
    expected = list(case.expect.alternatives[0].calls)
    received = [Received(0, i, call) for i, call in enumerate(answer.calls)]  # type: ignore[arg-type]
    # Greedy gives Paris to "any city", and then nothing is left for "Paris".
    assert not greedy_first_fit(expected, received)
    assert pair(expected, received) == [1, 0]
    result = judge(case, [answer])
    assert result.passed, result.failures


# -- the five modes, from real turns ---------------------------------------------------------------------------------

LOOKUP = ("lookup_subscription", {"email": "ann@example.com"})
CANCEL = ("cancel_subscription", {"subscription_id": "sub_42"})
TICKET = ("create_ticket", {"subject": "Help", "priority": "low"})
PARIS = ("get_weather", {"city": "Paris"})
TOKYO = ("get_weather", {"city": "Tokyo"})


def expected(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": name, "arguments": arguments} for name, arguments in calls]


@pytest.mark.parametrize(
    ("mode", "steps", "answers", "codes"),
    [
        # exact: one turn per step, in order, nothing more or less.
        ("exact", [LOOKUP, CANCEL], [[LOOKUP], [CANCEL], []], []),
        ("exact", [LOOKUP, CANCEL], [[CANCEL], [LOOKUP], []], ["order_mismatch"]),
        ("exact", [LOOKUP, CANCEL], [[LOOKUP], [CANCEL, TICKET], []], ["unexpected_call"]),
        ("exact", [[PARIS, TOKYO]], [[TOKYO, PARIS]], []),
        ("exact", [LOOKUP, CANCEL], [[LOOKUP, CANCEL], []], ["order_mismatch"]),
        # in_order: each step in a later turn than the one before; extra calls anywhere.
        ("in_order", [LOOKUP, CANCEL], [[TICKET], [LOOKUP, PARIS], [TICKET], [CANCEL]], []),
        ("in_order", [LOOKUP, CANCEL], [[CANCEL], [LOOKUP], []], ["order_mismatch"]),
        ("in_order", [LOOKUP, CANCEL], [[LOOKUP, CANCEL], []], ["order_mismatch"]),
        ("in_order", [LOOKUP, CANCEL], [[CANCEL], []], ["wrong_count"]),
        # unordered: the same calls in any order and any turns.
        ("unordered", [PARIS, TOKYO, LOOKUP], [[TOKYO], [LOOKUP, PARIS]], []),
        ("unordered", [PARIS, TOKYO], [[TOKYO, PARIS, TICKET]], ["unexpected_call"]),
        ("unordered", [PARIS, TOKYO], [[TOKYO, PARIS, PARIS]], ["wrong_count"]),
        # superset: at least the expected calls.
        ("superset", [PARIS], [[TICKET, TOKYO, PARIS]], []),
        ("superset", [PARIS, LOOKUP], [[TICKET, PARIS]], ["wrong_name"]),
        # subset: only calls from the expected ones; none at all passes.
        ("subset", [PARIS, TOKYO, LOOKUP], [[TOKYO]], []),
        ("subset", [PARIS, TOKYO], [[]], []),
        ("subset", [PARIS], [[PARIS, TICKET]], ["unexpected_call"]),
    ],
)
def test_each_mode_on_real_turns(
    tmp_path: Path, mode: str, steps: list[Any], answers: list[list[Any]], codes: list[str]
) -> None:
    sequence = [expected(*step) if isinstance(step, list) else expected(step)[0] for step in steps]
    case = make_case(tmp_path, {"mode": mode, "calls": sequence}, max_turns=max(len(answers), len(steps)))
    turns = [turn(calls) for calls in answers]
    result = judge(case, turns)
    assert list(result.codes) == codes, [failure.message for failure in result.failures]
    assert result.passed is (not codes)
    received = [[Received(t, p, c) for p, c in enumerate(answer.calls)] for t, answer in enumerate(turns)]
    assert passes(case.expect.alternatives[0], received) is (not codes)  # type: ignore[arg-type]


CITIES = ["Paris", "Tokyo", "Lima", "Oslo"]


@given(
    st.permutations(CITIES),
    st.sampled_from(["openai-chat", "anthropic-messages"]),
    st.lists(st.integers(min_value=0), max_size=12),
)
def test_a_permuted_parallel_turn_still_matches(
    tmp_path_factory: Any, order: list[str], fmt: str, cuts: list[int]
) -> None:
    folder = tmp_path_factory.mktemp("perm")
    calls = [{"name": "get_weather", "arguments": {"city": city}} for city in CITIES]
    unordered = make_case(folder, {"mode": "unordered", "calls": calls})
    one_step = make_case(folder, {"mode": "exact", "calls": [calls]})
    wanted = [("get_weather", {"city": city}) for city in order]
    # The raw bytes of the stream, read in pieces cut anywhere, as a connection delivers them.
    body = sse(chat_chunks(wanted)) if fmt == "openai-chat" else anthropic_sse(anthropic_events(wanted))
    answer = turn_from_response(split(body, cuts), format=fmt, tools=unordered.tools, stream=True)
    assert answer.contract.ok, answer.contract.to_text()
    assert [call.arguments["city"] for call in answer.calls] == list(order)
    assert judge(unordered, [answer]).passed
    assert judge(one_step, [answer]).passed


def test_a_buffered_answer_is_judged_like_a_streamed_one(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"mode": "unordered", "calls": expected(PARIS, TOKYO)})
    buffered = turn_from_response(chat_completion([TOKYO, PARIS]), format="openai-chat", tools=case.tools, stream=False)
    assert buffered.contract.mode == "buffered"
    assert judge(case, [buffered]).passed
    assert judge(case, [turn([TOKYO, PARIS], raw=True)]).passed
