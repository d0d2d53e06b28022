"""Each quirk of ``toolwire.server.QUIRKS``, as it shows on the wire and in what toolwire makes of it.

The request is the probe's parallel one (two ``get_weather`` calls, ``tool_choice: required``) sent to
``quirk/<id>`` of the bundled script; the raw SSE events are inspected, then reassembled (``on_invalid="yield"``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

import toolwire
from tests.support.server import FORMATS, SCRIPTED, TOOLS, codes, events, named, reassembled, request
from toolwire.server import QUIRKS, LocalEndpoint
from toolwire.server._quirks import PROSE

PARIS, TOKYO = '{"city":"Paris","unit":"celsius"}', '{"city":"Tokyo","unit":"celsius"}'


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with LocalEndpoint() as endpoint:
        yield endpoint.url


def wire(url: str, quirk: str, fmt: str = "openai-chat", *, stream: bool = True, choice: str = "required") -> bytes:
    path, body = request(fmt, f"quirk/{quirk}", choice=choice, stream=stream)
    with httpx.Client() as http:
        response = http.post(url + path, json=body)
    assert response.status_code == 200, response.text
    return response.content


def chunks(raw: bytes) -> list[dict[str, Any]]:
    """The chat chunks of a raw body ([DONE] left out)."""
    return [data for _, data in events(raw) if data != "[DONE]"]


def fragments(raw: bytes) -> list[dict[str, Any]]:
    """Every tool-call fragment of a raw chat body, in order."""
    return [
        entry
        for chunk in chunks(raw)
        if chunk["choices"]
        for entry in chunk["choices"][0]["delta"].get("tool_calls", [])
    ]


def finishes(raw: bytes) -> list[Any]:
    return [
        chunk["choices"][0]["finish_reason"]
        for chunk in chunks(raw)
        if chunk["choices"] and chunk["choices"][0]["finish_reason"]
    ]


def test_every_quirk_has_its_model_and_a_description() -> None:
    script = toolwire.server.default_script()
    assert set(script.models) == {"clean", *(f"quirk/{quirk}" for quirk in QUIRKS)}
    for quirk in QUIRKS:
        assert script.models[f"quirk/{quirk}"].quirks.enabled == (quirk,)
        assert QUIRKS[quirk]
    assert script.models["clean"].quirks.enabled == ()
    assert script.models["quirk/delay"].quirks.delay == 0.01
    assert script.models["quirk/reject_keywords"].quirks.reject_keywords == ("anyOf", "oneOf")
    assert set(QUIRKS) == set(toolwire.server.Quirks.__dataclass_fields__)


def test_clean_chat_stream_shape(url: str) -> None:
    """The baseline every quirk departs from: header fragment then argument fragments, index and id once."""
    raw = wire(url, "delay")
    sent = fragments(raw)
    headers = [entry for entry in sent if "id" in entry]
    assert [(h["index"], h["type"], h["function"]) for h in headers] == [
        (0, "function", {"name": "get_weather", "arguments": ""}),
        (1, "function", {"name": "get_weather", "arguments": ""}),
    ]
    assert all(
        set(entry) == {"index", "function"} and set(entry["function"]) == {"arguments"}
        for entry in sent
        if "id" not in entry
    )
    assert finishes(raw) == ["tool_calls"]
    assert raw.endswith(b"data: [DONE]\n\n")


def test_arguments_object(url: str) -> None:
    raw = wire(url, "arguments_object")
    sent = fragments(raw)
    assert [entry["function"]["arguments"] for entry in sent] == [SCRIPTED[0][1], SCRIPTED[1][1]]  # whole objects
    calls, _ = reassembled(raw, tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert [codes(call.violations) for call in calls] == [["ARGUMENTS_NOT_STRING"]] * 2
    buffered = toolwire.normalize(
        httpx.post(
            url + "/chat/completions", json=request("openai-chat", "quirk/arguments_object", stream=False)[1]
        ).json(),
        tools=TOOLS,
    )
    assert [codes(call.violations) for call in buffered.calls] == [["ARGUMENTS_NOT_STRING"]] * 2


def test_finish_stop(url: str) -> None:
    raw = wire(url, "finish_stop")
    assert finishes(raw) == ["stop"]
    calls, result = reassembled(raw, tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert codes(result.violations) == ["FINISH_REASON_MISMATCH"]


def test_no_finish(url: str) -> None:
    raw = wire(url, "no_finish")
    assert finishes(raw) == []
    assert raw.endswith(b"data: [DONE]\n\n")
    _, result = reassembled(raw, tools=TOOLS)
    assert result.finish_reason is None and codes(result.violations) == ["NO_FINISH_REASON"]
    buffered = httpx.post(
        url + "/chat/completions", json=request("openai-chat", "quirk/no_finish", stream=False)[1]
    ).json()
    assert buffered["choices"][0]["finish_reason"] is None


def test_missing_index(url: str) -> None:
    sent = fragments(wire(url, "missing_index"))
    assert sent and all("index" not in entry for entry in sent)
    calls, _ = reassembled(wire(url, "missing_index"), tools=TOOLS)
    assert named(calls) == SCRIPTED  # told apart by their ids
    assert [codes(call.violations) for call in calls] == [["MISSING_INDEX"]] * 2


def test_index_reused(url: str) -> None:
    sent = fragments(wire(url, "index_reused"))
    headers = [entry for entry in sent if "id" in entry]
    assert [entry["index"] for entry in sent] == [0] * len(sent)
    assert len({entry["id"] for entry in headers}) == 2 and all(h["function"]["name"] == "get_weather" for h in headers)
    calls, _ = reassembled(wire(url, "index_reused"), tools=TOOLS)
    assert named(calls) == SCRIPTED
    assert [codes(call.violations) for call in calls] == [[], ["INDEX_REUSED"]]


def test_repeat_id(url: str) -> None:
    sent = fragments(wire(url, "repeat_id"))
    assert all("id" in entry for entry in sent)
    assert len({entry["id"] for entry in sent}) == 2
    calls, result = reassembled(wire(url, "repeat_id"), tools=TOOLS)
    assert named(calls) == SCRIPTED and result.violations == ()  # a repeated id is the same call, not a new one


def test_repeat_name(url: str) -> None:
    sent = fragments(wire(url, "repeat_name"))
    assert all(entry["function"].get("name") == "get_weather" for entry in sent)
    calls, result = reassembled(wire(url, "repeat_name"), tools=TOOLS)
    # The name is taken once: never "get_weatherget_weather...".
    assert named(calls) == SCRIPTED and result.violations == ()
    # ... which is what the openai SDK's own accumulator makes of it.
    with openai.OpenAI(base_url=url, api_key="test", max_retries=0) as client:
        body = request("openai-chat", "quirk/repeat_name")[1]
        with client.chat.completions.stream(
            model=body["model"], messages=body["messages"], tools=body["tools"]
        ) as stream:
            for _ in stream:
                pass
            glued = stream.get_final_completion().choices[0].message.tool_calls
    assert glued is not None and all(call.function.name.startswith("get_weatherget_weather") for call in glued)


def test_interleave(url: str) -> None:
    sent = fragments(wire(url, "interleave"))
    order = [entry["index"] for entry in sent]
    assert order[:4] == [0, 1, 0, 1]  # both headers first, then one argument fragment each in turn
    assert "".join(e["function"]["arguments"] for e in sent if e["index"] == 0) == PARIS
    assert "".join(e["function"]["arguments"] for e in sent if e["index"] == 1) == TOKYO
    calls, result = reassembled(wire(url, "interleave"), tools=TOOLS)
    assert named(calls) == SCRIPTED and result.violations == ()


@pytest.mark.parametrize("fmt", FORMATS)
def test_prose_when_forced(url: str, fmt: str) -> None:
    for choice in ("required", "get_weather"):
        calls, result = reassembled(wire(url, "prose_when_forced", fmt, choice=choice), tools=TOOLS, tool_choice=None)
        assert calls == [] and result.text == PROSE
        assert result.finish_reason in ("stop", "completed", "end_turn")
    path, body = request(fmt, "quirk/prose_when_forced", choice="required")
    forced = toolwire.reassemble(
        httpx.post(url + path, json=body).content, tool_choice=body["tool_choice"], on_invalid="yield"
    )
    assert list(forced) == [] and codes(forced.result.violations) == ["TOOL_CHOICE_IGNORED"]
    # Not forced: the calls as scripted.
    calls, _ = reassembled(wire(url, "prose_when_forced", fmt, choice="auto"), tools=TOOLS)
    assert named(calls) == SCRIPTED


@pytest.mark.parametrize("fmt", FORMATS)
def test_hallucinated_name(url: str, fmt: str) -> None:
    calls, _ = reassembled(wire(url, "hallucinated_name", fmt), tools=TOOLS)
    assert [call.name for call in calls] == ["get_weather_v2"] * 2
    assert all(not call.ok and codes(call.errors) == ["UNKNOWN_TOOL"] for call in calls)


@pytest.mark.parametrize("fmt", FORMATS)
def test_trailing_data(url: str, fmt: str) -> None:
    raw = wire(url, "trailing_data", fmt)
    calls, _ = reassembled(raw, tools=TOOLS)
    assert [call.arguments_json for call in calls] == [PARIS + "}", TOKYO + "}"]
    assert all(codes(call.errors) == ["TRAILING_DATA"] for call in calls)
    if fmt == "openai-chat":
        sent = fragments(raw)
        assert [e["function"]["arguments"] for e in sent if e["index"] == 0][-1] == "}"
    if fmt == "openai-responses":  # the .done text agrees with the deltas: no ARGUMENTS_MISMATCH hides it
        done = [data["arguments"] for name, data in events(raw) if name == "response.function_call_arguments.done"]
        assert done == [PARIS + "}", TOKYO + "}"]
    buffered = toolwire.normalize(
        httpx.post(url + request(fmt)[0], json=request(fmt, "quirk/trailing_data", stream=False)[1]).json(), tools=TOOLS
    )
    if fmt == "anthropic-messages":  # a buffered input is an object: nothing can trail it
        assert named(buffered.calls) == SCRIPTED
    else:
        assert [codes(call.errors) for call in buffered.invalid_calls] == [["TRAILING_DATA"]] * 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncate(url: str, fmt: str) -> None:
    raw = wire(url, "truncate", fmt)
    calls, result = reassembled(raw, tools=TOOLS)
    # The first call is whole; the second stops in the middle of its arguments, and so does the body.
    assert [call.arguments_json for call in calls] == [PARIS, TOKYO[: len(TOKYO) // 2]]
    assert calls[0].ok and codes(calls[1].errors) == ["TRUNCATED"]
    assert result.finish_reason is None and codes(result.violations) == ["NO_FINISH_REASON"]
    # The last event sent is an argument fragment: no finish, no stop events, no [DONE].
    last = events(raw)[-1][1]
    if fmt == "openai-chat":
        assert b"[DONE]" not in raw and "function" in last["choices"][0]["delta"]["tool_calls"][0]
    elif fmt == "openai-responses":
        assert last["type"] == "response.function_call_arguments.delta"
    else:
        assert last["delta"]["type"] == "input_json_delta"
    path, body = request(fmt, "quirk/truncate", stream=False)
    buffered = toolwire.normalize(httpx.post(url + path, json=body).json(), tools=TOOLS)
    assert (
        buffered.finish_reason
        == {"openai-chat": "length", "openai-responses": "incomplete", "anthropic-messages": "max_tokens"}[fmt]
    )
    assert "STREAM_CUT" in codes(buffered.violations)


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncate_a_text_answer(url: str, fmt: str) -> None:
    raw = wire(url, "truncate", fmt, choice="none")
    calls, result = reassembled(raw)
    text = "I will answer this without calling a tool."
    assert calls == [] and result.text == text[: len(text) // 2]
    assert result.finish_reason is None


def test_empty_choices(url: str) -> None:
    sent = chunks(wire(url, "empty_choices"))
    assert sent[0]["choices"] == [] and sent[1]["choices"]
    assert [bool(chunk["choices"]) for chunk in sent] == [False, True] * (len(sent) // 2)
    calls, result = reassembled(wire(url, "empty_choices"), tools=TOOLS)
    assert named(calls) == SCRIPTED and result.violations == ()


@pytest.mark.parametrize("fmt", FORMATS)
def test_delay(url: str, fmt: str) -> None:
    path, body = request(fmt, "quirk/delay")
    started = time.monotonic()
    with httpx.Client() as http:
        raw = http.post(url + path, json=body).content
    elapsed = time.monotonic() - started
    assert elapsed >= 0.01 * len(events(raw)) * 0.9
    calls, result = reassembled(raw, tools=TOOLS)
    assert named(calls) == SCRIPTED and result.violations == ()


@pytest.mark.parametrize("fmt", ["openai-responses", "anthropic-messages"])
def test_no_finish_in_the_other_formats(url: str, fmt: str) -> None:
    raw = wire(url, "no_finish", fmt)
    names = [name for name, _ in events(raw)]
    if fmt == "openai-responses":
        assert "response.completed" not in names and names[-1] == "response.output_item.done"
    else:
        delta = next(data for name, data in events(raw) if name == "message_delta")
        assert delta["delta"]["stop_reason"] is None and names[-1] == "message_stop"
    calls, result = reassembled(raw, tools=TOOLS)
    assert named(calls) == SCRIPTED and result.finish_reason is None


@pytest.mark.parametrize("fmt", ["openai-responses", "anthropic-messages"])
@pytest.mark.parametrize(
    "quirk",
    [
        "arguments_object",
        "finish_stop",
        "missing_index",
        "index_reused",
        "repeat_id",
        "repeat_name",
        "interleave",
        "empty_choices",
    ],
)
def test_chat_only_quirks_are_ignored_elsewhere(url: str, fmt: str, quirk: str) -> None:
    clean_path, clean_body = request(fmt, "clean", choice="required")
    with httpx.Client() as http:
        clean = http.post(url + clean_path, json=clean_body).content
        quirky = http.post(url + clean_path, json={**clean_body, "model": f"quirk/{quirk}"}).content
    assert [name for name, _ in events(quirky)] == [name for name, _ in events(clean)]
    calls, result = reassembled(quirky, tools=TOOLS)
    assert named(calls) == SCRIPTED and result.violations == ()
