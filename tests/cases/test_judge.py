"""The judge of toolwire.cases: every failure code from a real answer, the contract before the expectation, the
closest alternative, the diffs, reading answers into turns and writing the next request; end to end against the local
endpoint with two scripted models, through the official SDKs, in three wire formats, streamed and buffered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

import toolwire.reference as reference
from tests.cases.helpers import (
    anthropic_events,
    anthropic_sse,
    chat_chunks,
    chat_completion,
    make_case,
    split,
    sse,
    turn,
)
from toolwire.cases import (
    EXAMPLES,
    FAILURE_CODES,
    Case,
    CaseResult,
    Turn,
    judge,
    load_cases,
    next_messages,
    portable_finish_reason,
    tool_choice_for,
    turn_from_response,
)
from toolwire.dialects import STYLES, render
from toolwire.server import LocalEndpoint

MODELS_SCRIPT = Path(__file__).with_name("support_models.yaml")
SUPPORT = load_cases(EXAMPLES / "support.yaml")

PARIS = ("get_weather", {"city": "Paris"})
TOKYO = ("get_weather", {"city": "Tokyo"})
LOOKUP = ("lookup_subscription", {"email": "ann@example.com"})
CANCEL = ("cancel_subscription", {"subscription_id": "sub_42"})


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def only(result: CaseResult) -> str:
    """The one failure code of a result (the test fails when there are more or none)."""
    assert len(result.failures) == 1, [failure.message for failure in result.failures]
    return result.failures[0].code


# -- every failure code, each from a real answer ----------------------------------------------------------------------

WEATHER_IN_PARIS: dict[str, Any] = {"calls": [call("get_weather", city="Paris")]}


def test_wrong_name(tmp_path: Path) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([LOOKUP])])
    assert only(result) == "wrong_name"
    failure = result.failures[0]
    assert (failure.turn, failure.call) == (0, 0)
    assert "expected a call to get_weather, received lookup_subscription" in failure.message
    assert '-   "name": "get_weather"' in failure.diff.splitlines()
    assert '+   "name": "lookup_subscription"' in failure.diff.splitlines()


def test_wrong_name_when_a_forced_tool_is_not_the_one_called(tmp_path: Path) -> None:
    case = make_case(tmp_path, WEATHER_IN_PARIS, tool_choice={"name": "get_weather"})
    result = judge(case, [turn([LOOKUP], tool_choice=case.tool_choice)])
    assert only(result) == "wrong_name"
    assert "forced_tool" in result.failures[0].message


def test_unknown_tool(tmp_path: Path) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([("get_wether", {"city": "Paris"})])])
    assert only(result) == "unknown_tool"
    assert "UNKNOWN_TOOL" in result.failures[0].message
    assert result.failures[0].diff.splitlines()[-1] == "+ name: get_wether"


@pytest.mark.parametrize("arguments", ['{"city": "Par', '{"city": "Paris"} {"city": "Lyon"}', '["Paris"]', "Paris"])
def test_args_not_json(tmp_path: Path, arguments: str) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([("get_weather", arguments)])])
    assert set(result.codes) == {"args_not_json"}
    assert result.failures[0].diff.splitlines() == [
        "- arguments: one complete JSON object",
        f"+ arguments: {arguments}",
    ]


def test_schema_violation(tmp_path: Path) -> None:
    case = SUPPORT["urgent ticket"]
    answer = turn([("create_ticket", {"subject": "Locked out", "priority": "critical"})], tool_choice="required")
    result = judge(case, [answer])
    assert only(result) == "schema_violation"
    assert result.failures[0].diff.splitlines() == [
        '- /priority: one of "low", "normal", "high", "urgent"',
        '+ /priority: "critical"',
    ]


def test_missing_required_by_the_schema(tmp_path: Path) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([("get_weather", {"unit": "celsius"})])])
    assert only(result) == "missing_required"
    assert "MISSING_REQUIRED_ARGUMENT at /city" in result.failures[0].message


def test_missing_required_by_the_case(tmp_path: Path) -> None:
    # unit is optional in the schema; the case pins it, so leaving it out fails the expectation.
    case = make_case(tmp_path, {"calls": [call("get_weather", city="Paris", unit="celsius")]})
    result = judge(case, [turn([PARIS])])
    assert only(result) == "missing_required"
    assert result.failures[0].diff.splitlines() == ["  {", '    "city": "Paris",', '-   "unit": "celsius"', "  }"]


def test_unexpected_arg_by_the_schema(tmp_path: Path) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([("get_weather", {"city": "Paris", "days": 3})])])
    assert only(result) == "unexpected_arg"
    assert result.failures[0].diff.splitlines() == ["- /days: (not allowed)", "+ /days: 3"]


def test_unexpected_arg_under_strict_args(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"strict_args": True, **WEATHER_IN_PARIS})
    result = judge(case, [turn([("get_weather", {"city": "Paris", "unit": "celsius"})])])
    assert only(result) == "unexpected_arg"
    assert result.failures[0].diff.splitlines() == ["  {", '    "city": "Paris",', '+   "unit": "celsius"', "  }"]
    loose = judge(
        make_case(tmp_path, WEATHER_IN_PARIS), [turn([("get_weather", {"city": "Paris", "unit": "celsius"})])]
    )
    assert loose.passed


def test_value_mismatch_marks_only_the_differing_member(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"calls": [call("get_weather", city="Paris", unit="celsius")]})
    result = judge(case, [turn([("get_weather", {"city": "Lyon", "unit": "celsius"})])])
    assert only(result) == "value_mismatch"
    assert result.failures[0].diff.splitlines() == [
        "  {",
        '-   "city": "Paris",',
        '+   "city": "Lyon",',
        '    "unit": "celsius"',
        "  }",
    ]
    assert 'argument \'city\' is "Lyon"; the case pins "Paris"' in result.failures[0].message


def test_wrong_count(tmp_path: Path) -> None:
    case = SUPPORT["weather in two cities"]
    result = judge(case, [turn([PARIS])])
    assert only(result) == "wrong_count"
    assert result.failures[0].message == "expected 2 calls to get_weather, received 1"
    assert result.failures[0].diff.splitlines() == [
        '  get_weather {"city": "Paris"}',
        '- get_weather {"city": "Tokyo"}',
    ]


def test_order_mismatch(tmp_path: Path) -> None:
    case = SUPPORT["cancel subscription"]
    result = judge(case, [turn([CANCEL]), turn([LOOKUP]), turn(text="Done.")])
    assert only(result) == "order_mismatch"
    marks = [(line[:2], line[2:].split()[0]) for line in result.failures[0].diff.splitlines()]
    assert marks == [("+ ", "cancel_subscription"), ("  ", "lookup_subscription"), ("- ", "cancel_subscription")]


def test_unexpected_call(tmp_path: Path) -> None:
    result = judge(SUPPORT["opening hours"], [turn([("create_ticket", {"subject": "Hours", "priority": "low"})])])
    assert only(result) == "unexpected_call"
    assert result.failures[0].diff.splitlines() == [
        "- (no tool call)",
        '+ create_ticket {"priority": "low", "subject": "Hours"}',
    ]


def test_no_call(tmp_path: Path) -> None:
    result = judge(SUPPORT["weather in two cities"], [turn(text="It is sunny everywhere.")])
    assert only(result) == "no_call"
    assert result.failures[0].diff.splitlines()[-1] == "+ (no call)"


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        'Calling: {"name": "get_weather", "arguments": {"city": "Paris"}}',
        'get_weather(city="Paris")',
        '[TOOL_CALLS] [{"name": "get_weather"}]',
    ],
)
def test_malformed_call_is_not_no_call(tmp_path: Path, text: str) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn(text=text)])
    assert only(result) == "malformed_call"
    # Where no call is expected, call-looking text is the regression too.
    assert only(judge(SUPPORT["opening hours"], [turn(text=text)])) == "malformed_call"


def test_plain_text_is_no_malformed_call() -> None:
    answer = turn(text="We are open Monday to Friday, 9:00 to 17:00 (the weather tool is for forecasts).")
    assert judge(SUPPORT["opening hours"], [answer]).passed


def test_malformed_call_names_the_dialect_a_parser_reads_it_in(tmp_path: Path) -> None:
    text = render([PARIS], "hermes", text_before="Let me check.\n")
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn(text=text)])
    assert only(result) == "malformed_call"
    assert result.failures[0].message == (
        "turn 0: no call was made, but the answer's text holds 1 call(s) written in the hermes dialect "
        "(get_weather); expected get_weather"
    )
    assert result.failures[0].diff.splitlines() == [
        '- get_weather {"city": "Paris"}',
        '+ (text, hermes) get_weather {"city": "Paris"}',
    ]
    # Where no call is expected, the calls read are named the same way, an invalid one too.
    text = render([PARIS, ("get_forecast", {"days": 2})], "hermes")
    failure = judge(SUPPORT["opening hours"], [turn(text=text)]).failures[0]
    assert failure.message == (
        "turn 0: no tool call is expected, and the answer's text holds 2 call(s) written in the hermes dialect "
        "(get_weather, get_forecast; 1 valid)"
    )
    assert failure.diff.splitlines() == [
        "- (an answer without a tool call)",
        '+ (text, hermes) get_weather {"city": "Paris"}',
        '+ (text, hermes) get_forecast {"days": 2}',
    ]


@pytest.mark.parametrize("dialect", list(STYLES))
def test_malformed_call_in_any_dialect_the_core_reads_is_named(tmp_path: Path, dialect: str) -> None:
    # GLM-4.5's parser reads GLM-4.7's calls whole and comes first in the table (tests/contract/test_calls_in_text.py).
    named = {"glm47": "glm45"}.get(dialect, dialect)
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn(text=render([PARIS], dialect))])
    assert only(result) == "malformed_call"
    assert f"holds 1 call(s) written in the {named} dialect (get_weather)" in result.failures[0].message


def test_malformed_call_no_parser_reads_is_still_found_by_its_look(tmp_path: Path) -> None:
    # An Anthropic-style block written as text, a format no dialect parser reads: its marker still gives it away.
    text = '<tool_use>{"name": "get_weather", "input": {"city": "Paris"}}</tool_use>'
    assert not any(list(reference.reassemble([text], dialect=d, on_invalid="yield")) for d in reference.DIALECTS)
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn(text=text)])
    assert only(result) == "malformed_call"
    assert 'but the answer\'s text looks like one: <tool_use>{"name": "get_weather"' in result.failures[0].message
    assert result.failures[0].diff.splitlines()[-1].startswith("+ (text) <tool_use>")


def test_malformed_call_from_the_contract(tmp_path: Path) -> None:
    # A call whose name never arrived.
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([(None, {"city": "Paris"})])])
    assert "malformed_call" in result.codes
    assert all(code in ("malformed_call", "unknown_tool") for code in result.codes), result.codes


def test_finish_reason_mismatch_from_the_expectation(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"finish_reason": "length"})
    result = judge(case, [turn(text="Done.")])
    assert only(result) == "finish_reason_mismatch"
    assert result.failures[0].diff.splitlines() == ["- finish_reason: 'length'", "+ finish_reason: 'stop'"]


def test_finish_reason_mismatch_from_the_contract(tmp_path: Path) -> None:
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [turn([PARIS], finish="stop")])
    assert only(result) == "finish_reason_mismatch"
    assert "contract check finish_reason" in result.failures[0].message


def test_every_failure_code_is_produced_by_a_test_above() -> None:
    produced = {
        "wrong_name",
        "unknown_tool",
        "args_not_json",
        "schema_violation",
        "missing_required",
        "unexpected_arg",
        "value_mismatch",
        "wrong_count",
        "order_mismatch",
        "unexpected_call",
        "no_call",
        "malformed_call",
        "finish_reason_mismatch",
    }
    names = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert produced == set(FAILURE_CODES)
    assert all(any(name.startswith(code) for name in names) for code in produced)


# -- the contract first, alternatives, results ------------------------------------------------------------------------


def test_the_contract_is_judged_before_the_expectation(tmp_path: Path) -> None:
    # The wrong tool AND a broken schema: only the contract failure is reported, the expectation is not judged.
    case = make_case(tmp_path, WEATHER_IN_PARIS)
    result = judge(case, [turn([("create_ticket", {"subject": "x", "priority": "critical"})])])
    assert result.codes == ("schema_violation",)


def test_the_portable_finish_reason_reads_every_format(tmp_path: Path) -> None:
    case = make_case(tmp_path, {"finish_reason": "tool_calls", **WEATHER_IN_PARIS})
    streamed = turn_from_response(
        anthropic_sse(anthropic_events([PARIS])), format="anthropic-messages", tools=case.tools, stream=True
    )
    assert streamed.finish_reason == "tool_use"
    assert portable_finish_reason(streamed) == "tool_calls"
    assert judge(case, [streamed]).passed
    assert judge(make_case(tmp_path, {"finish_reason": ["tool_use"], **WEATHER_IN_PARIS}), [streamed]).passed


def test_one_of_reports_the_closest_alternative(tmp_path: Path) -> None:
    case = make_case(
        tmp_path,
        {
            "one_of": [
                [
                    call("lookup_subscription", email="ann@example.com"),
                    call("cancel_subscription", subscription_id="sub_42"),
                ],
                {"mode": "unordered", "calls": [call("get_weather", city="Paris"), call("get_weather", city="Tokyo")]},
            ]
        },
        max_turns=2,
    )
    result = judge(case, [turn([PARIS, ("get_weather", {"city": "Lyon"})])])
    assert not result.passed
    assert result.alternative == 1
    assert result.codes == ("value_mismatch",)
    assert result.failures[0].message.startswith("one_of #1 (closest of 2): ")
    passing = judge(case, [turn([TOKYO, PARIS])])
    assert passing.passed and passing.alternative == 1


def test_a_result_is_plain_json(tmp_path: Path) -> None:
    result = judge(SUPPORT["weather in two cities"], [turn([PARIS])])
    data = json.loads(json.dumps(result.as_dict()))
    assert data["failures"][0]["code"] == "wrong_count"
    assert data["turns"][0]["calls"][0]["name"] == "get_weather"
    assert data["turns"][0]["contract"]["ok"] is True


def test_judge_needs_a_turn() -> None:
    with pytest.raises(ValueError, match="at least one turn"):
        judge(SUPPORT["opening hours"], [])


# -- reading answers, writing the next request -----------------------------------------------------------------------


def test_every_way_of_receiving_an_answer_gives_the_same_turn() -> None:
    tools = SUPPORT["weather in two cities"].tools
    chunks = chat_chunks([PARIS, TOKYO], text="Checking.")
    body = sse(chunks)
    turns = [
        turn_from_response(chunks, format="openai-chat", tools=tools, stream=True),
        turn_from_response(body, format="openai-chat", tools=tools, stream=True),
        turn_from_response(body.decode(), format="openai-chat", tools=tools, stream=True),
        turn_from_response(split(body, [7, 80, 81, 300]), format="openai-chat", tools=tools, stream=True),
        turn_from_response(iter(split(body, [33])), format="openai-chat", tools=tools, stream=True),
        turn_from_response(
            chat_completion([PARIS, TOKYO], "Checking."), format="openai-chat", tools=tools, stream=False
        ),
        turn_from_response(
            json.dumps(chat_completion([PARIS, TOKYO], "Checking.")).encode(),
            format="openai-chat",
            tools=tools,
            stream=False,
        ),
    ]
    for each in turns:
        assert [(c.name, c.arguments) for c in each.calls] == [PARIS, TOKYO]
        assert each.text == "Checking."
        assert each.finish_reason == "tool_calls"
        assert each.contract.ok, each.contract.to_text()


def test_a_malformed_stream_still_gives_a_turn_and_a_contract_failure(tmp_path: Path) -> None:
    chunks: list[Any] = chat_chunks([PARIS])
    chunks.insert(2, {"object": "chat.completion.chunk", "choices": "not a list"})
    answer = turn_from_response(chunks, format="openai-chat", tools=SUPPORT["weather in two cities"].tools, stream=True)
    assert not answer.contract.ok
    result = judge(make_case(tmp_path, WEATHER_IN_PARIS), [answer])
    assert "malformed_call" in result.codes


def test_tool_choice_in_each_format() -> None:
    assert tool_choice_for("required", "anthropic-messages") == {"type": "any"}
    assert tool_choice_for("required", "openai-chat") == "required"
    assert tool_choice_for({"name": "get_weather"}, "openai-chat") == {
        "type": "function",
        "function": {"name": "get_weather"},
    }
    assert tool_choice_for({"name": "get_weather"}, "openai-responses") == {"type": "function", "name": "get_weather"}
    assert tool_choice_for({"name": "get_weather"}, "anthropic-messages") == {"type": "tool", "name": "get_weather"}
    assert tool_choice_for("none", "anthropic-messages") == {"type": "none"}
    with pytest.raises(ValueError, match="format must be one of"):
        tool_choice_for("auto", "gemini")


def test_next_messages_answers_each_call_in_each_format() -> None:
    case = SUPPORT["cancel subscription"]
    chat = turn([LOOKUP, ("cancel_subscription", {"subscription_id": "nope"})], text="One moment.")
    messages = next_messages(case, [{"role": "user", "content": "Cancel."}], chat, "openai-chat")
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["call_0", "call_1"]
    assert json.loads(messages[2]["content"]) == {"subscription_id": "sub_42", "plan": "pro", "status": "active"}
    # The invalid call (its id breaks the schema's pattern) is told what was wrong.
    assert messages[3]["tool_call_id"] == "call_1"
    assert json.loads(messages[3]["content"])["error"] == "invalid_tool_call"

    answer = turn_from_response(
        anthropic_sse(anthropic_events([LOOKUP], text="Looking.")),
        format="anthropic-messages",
        tools=case.tools,
        stream=True,
    )
    messages = next_messages(case, [{"role": "user", "content": "Cancel."}], answer, "anthropic-messages")
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [block["type"] for block in messages[1]["content"]] == ["text", "tool_use"]
    assert messages[2]["content"][0]["tool_use_id"] == "toolu_0"

    items = next_messages(case, [{"role": "user", "content": "Cancel."}], chat, "openai-responses")
    assert [item.get("type", item.get("role")) for item in items] == [
        "user",
        "assistant",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]


def test_a_call_without_a_canned_result_is_answered_with_an_error(tmp_path: Path) -> None:
    case = make_case(tmp_path, WEATHER_IN_PARIS, max_turns=2)
    messages = next_messages(case, [], turn([PARIS]), "anthropic-messages")
    block = messages[-1]["content"][0]
    assert block["is_error"] is True
    assert "no tool_results entry for 'get_weather'" in json.loads(block["content"])["error"]


# -- end to end: two scripted models on the local endpoint, through the SDKs ------------------------------------------


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(MODELS_SCRIPT) as running:
        yield running


def _request(endpoint: LocalEndpoint, fmt: str, model: str, case: Case, messages: list[Any], stream: bool) -> Any:
    choice = tool_choice_for(case.tool_choice, fmt)
    extra: dict[str, Any] = {} if choice is None else {"tool_choice": choice}
    if fmt == "anthropic-messages":
        system = "\n".join(m["content"] for m in case.messages if m["role"] == "system")
        if system:
            extra["system"] = system
        with anthropic.Anthropic(base_url=endpoint.url.removesuffix("/v1"), api_key="test", max_retries=0) as client:
            response = client.messages.create(
                model=model, max_tokens=256, messages=messages, tools=case.tools.to_anthropic(), stream=stream, **extra
            )
            return list(response) if stream else response
    with openai.OpenAI(base_url=endpoint.url, api_key="test", max_retries=0) as client:
        if fmt == "openai-chat":
            answer: Any = client.chat.completions.create(
                model=model, messages=messages, tools=case.tools.to_openai(), stream=stream, **extra
            )
        else:
            answer = client.responses.create(
                model=model, input=messages, tools=case.tools.to_openai_responses(), stream=stream, **extra
            )
        return list(answer) if stream else answer


def run_case(endpoint: LocalEndpoint, fmt: str, model: str, case: Case, stream: bool) -> CaseResult:
    """A minimal agent loop: ask, read the answer into a turn, answer its calls, ask again while the case wants."""
    messages: list[Any] = [dict(m) for m in case.messages]
    if fmt == "anthropic-messages":
        messages = [m for m in messages if m["role"] != "system"]
    turns: list[Turn] = []
    while True:
        response = _request(endpoint, fmt, model, case, messages, stream)
        turns.append(
            turn_from_response(response, format=fmt, tools=case.tools, stream=stream, tool_choice=case.tool_choice)
        )
        if not case.wants_next_turn(turns):
            return judge(case, turns)
        messages = next_messages(case, messages, turns[-1], fmt)


HASTY = {
    "opening hours": ("unexpected_call",),
    "cancel subscription": ("value_mismatch", "wrong_count"),
    "weather in two cities": ("wrong_count",),
    "urgent ticket": ("schema_violation",),
}


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "buffered"])
@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_two_models_on_the_example_cases(endpoint: LocalEndpoint, fmt: str, stream: bool) -> None:
    for case in SUPPORT.cases:
        careful = run_case(endpoint, fmt, "careful", case, stream)
        assert careful.passed, (case.name, [failure.message for failure in careful.failures])
        hasty = run_case(endpoint, fmt, "hasty", case, stream)
        assert hasty.codes == HASTY[case.name], (case.name, [failure.message for failure in hasty.failures])
    # The careful model's cancellation took three requests: lookup, cancel with the id the lookup returned, the end.
    cancel = run_case(endpoint, fmt, "careful", SUPPORT["cancel subscription"], stream)
    assert [[c.name for c in t.calls] for t in cancel.turns] == [["lookup_subscription"], ["cancel_subscription"], []]


def test_calls_read_before_a_malformed_chunk_are_kept() -> None:
    chunks: list[Any] = chat_chunks([PARIS, TOKYO])
    # Paris is handed over once Tokyo opens; Tokyo would be at the finish, which the broken chunk comes before.
    chunks.insert(5, {"object": "chat.completion.chunk", "choices": "not a list"})
    answer = turn_from_response(chunks, format="openai-chat", tools=SUPPORT["weather in two cities"].tools, stream=True)
    assert [c.arguments for c in answer.calls] == [{"city": "Paris"}]
    assert "well_formed" in {check.id for check in answer.contract.failed}
