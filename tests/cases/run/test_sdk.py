"""The same cases driven through the official SDKs instead of the matrix's own httpx client: the openai client
(Chat Completions and Responses) and the anthropic client send the bodies the runner renders, ``turn_from_response``
reads what the SDK hands back (its stream objects, or its parsed completion), and the verdicts equal the matrix's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.cases.matrix_helpers import MODELS_SCRIPT, SUPPORT, VERDICTS
from toolwire.cases import Case, CaseResult, judge, load_cases, next_messages, turn_from_response
from toolwire.cases._spec import parse_spec
from toolwire.cases.run._http import render_request
from toolwire.cases.run._run import run_matrix
from toolwire.server import LocalEndpoint

CASES = load_cases(SUPPORT).cases


@pytest.fixture(scope="module")
def endpoint() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(MODELS_SCRIPT) as running:
        yield running


def sdk_client(fmt: str, url: str) -> Any:
    if fmt == "anthropic-messages":
        return anthropic.Anthropic(base_url=url.removesuffix("/v1"), api_key="test", max_retries=0)
    return openai.OpenAI(base_url=url, api_key="test", max_retries=0)


def sdk_call(client: Any, fmt: str, body: dict[str, Any]) -> Any:
    """Send a rendered body through the format's SDK; returns what the SDK hands back (a stream or a response)."""
    if fmt == "anthropic-messages":
        return client.messages.create(**body)
    if fmt == "openai-responses":
        return client.responses.create(**body)
    return client.chat.completions.create(**body)


def run_with_sdk(client: Any, case: Case, fmt: str, url: str, model: str, stream: bool) -> CaseResult:
    """The runner's agent loop, with the SDK as the client."""
    spec = parse_spec(f"{fmt}:{model}@{url}")
    messages = [dict(message) for message in case.messages]
    turns = []
    while True:
        _, body = render_request(spec, messages, case.tools, case.tool_choice, stream)
        answer = sdk_call(client, fmt, body)
        turns.append(
            turn_from_response(answer, format=fmt, tools=case.tools, stream=stream, tool_choice=case.tool_choice)
        )
        if not case.wants_next_turn(turns):
            return judge(case, turns)
        messages = next_messages(case, messages, turns[-1], fmt)


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "buffered"])
@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_the_sdks_as_clients_give_the_matrix_verdicts(endpoint: LocalEndpoint, fmt: str, stream: bool) -> None:
    models = [parse_spec(f"{fmt}:{model}@{endpoint.url},label={model}") for model in ("steady", "eager")]
    matrix = run_matrix(CASES, models, stream=stream)
    with sdk_client(fmt, endpoint.url) as client:
        results = {
            (case.name, model): run_with_sdk(client, case, fmt, endpoint.url, model, stream)
            for case in CASES
            for model in ("steady", "eager")
        }
    for case in CASES:
        for model in ("steady", "eager"):
            through_sdk = results[(case.name, model)]
            cell = matrix.cell(case.name, model)
            assert set(through_sdk.codes) == set(cell.codes) == VERDICTS[(case.name, model)]
            assert through_sdk.passed is (cell.passed == 1)
            via_runner = cell.runs[0].result
            assert via_runner is not None
            assert [failure.as_dict() for failure in through_sdk.failures] == [
                failure.as_dict() for failure in via_runner.failures
            ]
            assert [[(c.name, c.arguments) for c in turn.calls] for turn in through_sdk.turns] == [
                [(c.name, c.arguments) for c in turn.calls] for turn in via_runner.turns
            ]
