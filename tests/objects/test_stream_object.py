"""``stream_object``: streamed structured outputs (issue 19, part 1), on the core and the reference alike.

Real streams are the ``recordings/`` whose request gave a structured output (``request.structured_output``), with
expectations derived by hand; the property tests feed generated values split anywhere and compare both
implementations with each other and with the ground truth, the value the whole text parses to.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
import toolwire.reference
from toolwire import ObjectElement, ObjectSnapshot, Pending, SchemaError
from toolwire.recordings import Recording, iter_recordings


def structured_output(recording: Recording) -> dict[str, Any] | None:
    """What the recorded request asked for as a structured output (``via``, ``schema``), or None."""
    found: dict[str, Any] | None = (recording.manifest.get("request") or {}).get("structured_output")
    return found


STRUCTURED = [recording for recording in iter_recordings() if structured_output(recording) is not None]


def codes(violations: tuple[toolwire.Violation, ...]) -> list[str]:
    return sorted(violation.code.value for violation in violations)


def test_there_is_a_structured_output_recording_of_each_provider_that_has_one() -> None:
    formats = {recording.format for recording in STRUCTURED}
    assert formats >= {"openai-chat", "openai-responses", "anthropic-messages", "gemini"}


@pytest.mark.parametrize("recording", STRUCTURED, ids=[recording.name for recording in STRUCTURED])
def test_a_recorded_structured_output_reads_to_its_expected_value(
    recording: Recording, implementation: ModuleType
) -> None:
    schema = structured_output(recording)["schema"] or {}  # type: ignore[index]
    expected = recording.expected["object"]
    stream = implementation.stream_object(recording.chunks(), schema=schema)
    snapshots = [event.value for event in stream if isinstance(event, ObjectSnapshot)]
    result = stream.result
    assert (result.value, codes(result.violations), result.refusal) == (
        expected["value"],
        expected["violations"],
        expected["refusal"],
    )
    assert result.text == recording.expected["text"]
    assert result.finish_reason == recording.expected["finish_reason"]
    assert result.ok == (not expected["violations"] and expected["refusal"] is None)
    if expected["value"] is not None and recording.expected["text"].strip().startswith("{"):
        assert snapshots, "a value that arrived shows snapshots"
        assert snapshots[-1] == expected["value"]
    recovered = expected.get("recovered")
    if recovered is not None:
        again = implementation.stream_object(recording.chunks(), schema=schema, recover=True).result
        assert (again.value, codes(again.violations)) == (recovered["value"], recovered["violations"])


def test_a_forced_tool_call_is_the_value_when_tool_names_it(implementation: ModuleType) -> None:
    recording = next(r for r in iter_recordings() if r.name == "openai-chat/q12-forced-tool-finish-stop")
    schema = recording.request["tools"][0]["parameters"]  # type: ignore[index]
    stream = implementation.stream_object(recording.chunks(), schema=schema, tool="return_quote")
    snapshots = [copy.deepcopy(event.value) for event in stream]
    assert stream.result.value == {"quote": "I am Iron Man.", "character": "Tony Stark"}
    assert stream.result.ok and snapshots[-1] == stream.result.value
    assert any(isinstance(value.get("quote"), Pending) for value in snapshots), "the quote was shown arriving"
    absent = implementation.stream_object(recording.chunks(), schema=schema, tool="other").result
    # The stream's own findings (this quirk's finish_reason "stop" after a call) come first, then the text's.
    assert codes(absent.violations) == sorted([*recording.expected["violations"], "MISSING_OUTPUT"])
    assert "no call to 'other'" in absent.violations[-1].message


# ---------------------------------------------------------------------------------------------------------------
# generated values, split anywhere

KEYS = st.sampled_from(["a", "b", "name", "é", "x y", ""])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=8)
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=16
)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=5)


@st.composite
def split_texts(draw: st.DrawFn, values: st.SearchStrategy[Any] = OBJECTS) -> tuple[Any, str, list[str]]:
    value = draw(values)
    indent = draw(st.sampled_from([None, 1]))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=indent)
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=12)))
    pieces = [text[start:end] for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return value, text, pieces


def honest(snapshot: Any, final: Any) -> bool:
    """Whether a snapshot shows nothing the final value does not hold (a ``Pending`` stands for what is arriving)."""
    if isinstance(snapshot, Pending):
        return snapshot.kind != "string" or (isinstance(final, str) and final.startswith(snapshot.text))
    if isinstance(snapshot, dict):
        return isinstance(final, dict) and all(key in final and honest(v, final[key]) for key, v in snapshot.items())
    if isinstance(snapshot, list):
        return (
            isinstance(final, list)
            and len(snapshot) <= len(final)
            and all(honest(item, final[index]) for index, item in enumerate(snapshot))
        )
    return bool(snapshot == final)


@settings(max_examples=150, deadline=None)
@given(split_texts())
def test_snapshots_are_honest_and_the_value_is_the_texts_under_every_split(case: tuple[Any, str, list[str]]) -> None:
    value, text, pieces = case
    seen = {}
    for api in (toolwire, toolwire.reference):
        stream = api.stream_object(pieces, schema={"type": "object"})
        shown = [copy.deepcopy(event.value) for event in stream]
        assert all(honest(snapshot, value) for snapshot in shown)
        result = stream.result
        assert result.ok and result.value == value and result.text == text
        seen[api.__name__] = [repr(snapshot) for snapshot in shown]
    assert seen["toolwire"] == seen["toolwire.reference"]


ARRAYS = st.lists(st.fixed_dictionaries({"n": st.integers(-5, 5)}, optional={"tag": st.text(max_size=4)}), max_size=6)


@settings(max_examples=100, deadline=None)
@given(split_texts(ARRAYS), st.booleans())
def test_each_element_is_handed_over_once_whole_and_checked(case: tuple[Any, str, list[str]], member: bool) -> None:
    value, _, pieces = case
    items = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}
    schema: dict[str, Any] = {"type": "array", "items": items}
    if member:  # the same array as the member "results" of an object
        wrapped = json.dumps({"results": value})
        pieces = [wrapped[: len('{"results": ')], *pieces, "}"]
        schema = {"type": "object", "properties": {"results": schema}}
    for api in (toolwire, toolwire.reference):
        stream = api.stream_object(pieces, schema=schema, elements="results" if member else True)
        elements = [event for event in stream if isinstance(event, ObjectElement)]
        assert [element.index for element in elements] == list(range(len(value)))
        assert [element.value for element in elements] == value
        assert [element.ok for element in elements] == [item["n"] >= 0 for item in value]
        assert stream.result.ok == all(item["n"] >= 0 for item in value)


def test_an_element_is_handed_over_before_the_array_closes() -> None:
    pieces = ['[{"n": 1}', ', {"n"', ": 2}", ", 3", "]"]
    for api in (toolwire, toolwire.reference):
        stream = api.stream_object(pieces, schema={"type": "array", "items": {}}, elements=True)
        handed = []
        for event in stream:
            if isinstance(event, ObjectElement):
                handed.append((event.index, event.value))
        assert handed == [(0, {"n": 1}), (1, {"n": 2}), (2, 3)]


# ---------------------------------------------------------------------------------------------------------------
# text around the value, cut and broken values


@pytest.mark.parametrize(
    ("text", "plain", "recovered"),
    [
        ('  {"a": 1}\n', [], []),
        ('```json\n{"a": 1}\n```', ["WRAPPED_OUTPUT"], ["REPAIRED"]),
        ('Here it is: {"a": 1}', ["WRAPPED_OUTPUT"], ["REPAIRED"]),
        ('{"a": 1} Hope this helps', ["TRAILING_DATA"], ["REPAIRED"]),
        ('{"a": 1', ["TRUNCATED"], ["TRUNCATED"]),
        ('{"a": 1,}', ["INVALID_JSON"], ["INVALID_JSON"]),
        ('{"a": 1, "a": 2}', ["DUPLICATE_KEY"], ["DUPLICATE_KEY"]),
        ("", ["MISSING_OUTPUT"], ["MISSING_OUTPUT"]),
        ("No JSON here", ["WRAPPED_OUTPUT"], ["MISSING_OUTPUT"]),
        # A first character that can start a JSON value starts it (here `null`): prose is told by its first letter.
        ("nothing here", ["INVALID_JSON"], ["INVALID_JSON"]),
    ],
)
def test_text_around_the_value_is_a_violation_recovered_only_when_asked(
    implementation: ModuleType, text: str, plain: list[str], recovered: list[str]
) -> None:
    for recover, expected in ((False, plain), (True, recovered)):
        for pieces in ([text], list(text)):  # whole, and one character at a time
            result = implementation.stream_object(
                pieces, schema={"type": "object"}, format="text", recover=recover
            ).result
            assert codes(result.violations) == expected, (recover, pieces)
            readable = not {"WRAPPED_OUTPUT", "TRUNCATED", "INVALID_JSON", "MISSING_OUTPUT"} & set(expected)
            assert (result.value is not None) == readable


def test_the_schema_is_checked_with_the_validator_of_arguments(implementation: ModuleType) -> None:
    schema = {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t", "u"]}
    result = implementation.stream_object(['{"t": "w', 'arm"}'], schema=schema).result
    assert [(v.code.value, v.path) for v in result.violations] == [
        ("TYPE_MISMATCH", "/t"),
        ("MISSING_REQUIRED_ARGUMENT", "/u"),
    ]
    payload = result.retry_payload()
    assert payload["error"] == "invalid_output"
    assert payload["problems"][0] == {
        "code": "TYPE_MISMATCH",
        "path": "/t",
        "message": "expected number, got string",
        "expected": ["number"],
    }
    assert payload["instruction"] == "Answer again with a JSON value that fixes every problem listed."


def test_schemas_as_requests_give_them(implementation: ModuleType) -> None:
    inner = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    chat = {"type": "json_schema", "json_schema": {"name": "n", "schema": inner, "strict": True}}
    responses = {"type": "json_schema", "name": "n", "schema": inner}
    gemini = {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "nullable": True}}, "propertyOrdering": ["n"]}
    for schema in (inner, chat, responses):
        assert codes(implementation.stream_object(['{"n": "1"}'], schema=schema).result.violations) == ["TYPE_MISMATCH"]
    assert implementation.stream_object(['{"n": null}'], schema=gemini).result.ok
    assert codes(implementation.stream_object(['{"n": 1.5}'], schema=gemini).result.violations) == ["TYPE_MISMATCH"]
    pydantic = pytest.importorskip("pydantic")

    class Forecast(pydantic.BaseModel):
        celsius: float

    assert implementation.stream_object(['{"celsius": 3}'], schema=Forecast).result.ok


def test_what_cannot_be_read_is_refused_where_the_stream_is_made(implementation: ModuleType) -> None:
    with pytest.raises(SchemaError) as raised:
        implementation.stream_object(["{}"], schema={"type": "object", "properties": {"s": {"pattern": "(?=a)"}}})
    assert raised.value.schema == "output" and str(raised.value).startswith("the output schema is invalid at")
    with pytest.raises(ValueError, match="has no 'items' schema"):
        implementation.stream_object(["[]"], schema={"type": "array"}, elements=True)
    with pytest.raises(TypeError, match="elements must be"):
        implementation.stream_object(["[]"], schema={}, elements=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="schema must be a JSON Schema"):
        implementation.stream_object(["[]"], schema=[])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text deltas must be str; item 1 is bytes"):
        _ = implementation.stream_object(["{", b"}"], schema={}, format="text").result


def test_limits_bound_the_value(implementation: ModuleType) -> None:
    deep = "[" * 40 + "]" * 40
    result = implementation.stream_object([deep], schema={}, limits=toolwire.Limits(max_depth=16)).result
    assert codes(result.violations) == ["TOO_DEEP"]
    big = ['{"a": "', "x" * 5000, '"}']
    capped = implementation.stream_object(big, schema={}, limits=toolwire.Limits(max_text_bytes=1000)).result
    assert codes(capped.violations) == ["TEXT_TOO_LARGE", "TRUNCATED"]


def test_a_stream_closed_early_has_no_result(implementation: ModuleType) -> None:
    stream = implementation.stream_object(['{"a": ', "1}"], schema={})
    next(stream)
    stream.close()
    with pytest.raises(ValueError, match="closed before its end"):
        _ = stream.result


def test_async_streams_read_alike(implementation: ModuleType) -> None:
    recording = next(r for r in STRUCTURED if r.name == "openai-chat/structured-gpt4o-location-json-schema")

    async def chunks() -> AsyncIterator[Any]:
        for chunk in recording.chunks():
            yield chunk

    async def texts() -> AsyncIterator[str]:
        for piece in ['{"a"', ": [1, 2]}"]:
            yield piece

    async def main() -> tuple[Any, Any, int]:
        schema = structured_output(recording)["schema"]  # type: ignore[index]
        stream = implementation.astream_object(chunks(), schema=schema)
        shown = [event async for event in stream]
        plain = await implementation.astream_object(texts(), schema={}, format="text").aresult()
        return stream.result, plain, len(shown)

    result, plain, shown = asyncio.run(main())
    assert result.ok and result.value == recording.expected["object"]["value"] and shown > 1
    assert plain.value == {"a": [1, 2]}


def test_an_ollama_format_stream_reads_alike(implementation: ModuleType) -> None:
    # No public recording of a real Ollama `format` stream was found (see the closing note of issue 19): this body
    # is written from the NDJSON grammar of docs/semantics.md's "ollama".
    pieces = ['{"ci', 'ty": "Os', 'lo", "days": [1', ", 2]}"]
    lines: list[dict[str, Any]] = [
        {"model": "m", "message": {"role": "assistant", "content": piece}, "done": False} for piece in pieces
    ]
    lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    body = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    schema = {"type": "object", "properties": {"days": {"type": "array", "items": {"type": "integer"}}}}
    stream = implementation.stream_object(body, schema=schema, elements="days")
    events = list(stream)
    assert [event.value for event in events if isinstance(event, ObjectElement)] == [1, 2]
    assert stream.result.ok and stream.result.value == {"city": "Oslo", "days": [1, 2]}
    assert stream.result.finish_reason == "stop"
