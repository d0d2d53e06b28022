"""Gemini streamed function-call arguments (Vertex ``streamFunctionCallArguments``), through the core and the reference.

A part ``{"functionCall": {"name", "willContinue": true}}`` opens a call that later parts' ``partialArgs`` fill, value
by value at their JSON path, until a part without ``willContinue`` closes it (docs/semantics.md, "gemini"). Before
this, the opening part was a valid call with ``{}`` and every fragment a nameless call of its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from tests.support.bounded import run_bounded
from tests.support.paths import CORPORA

EXT = CORPORA / "provider-streams-ext"
PARTIAL_ARGS = [
    "vertex-gemini__partial-args-two-calls",
    "vertex-gemini__partial-args-array-no-terminal",
    "vertex-gemini__partial-args-no-args-call-first",
    "vertex-gemini__partial-args-nested",
]


def manifest_entry(name: str) -> dict[str, Any]:
    for line in (EXT / "MANIFEST.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["file"] == f"streams/{name}.jsonl":
            return entry  # type: ignore[no-any-return]
    raise LookupError(name)


def corpus_events(name: str) -> list[dict[str, Any]]:
    path = EXT / "streams" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def as_sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\r\n\r\n" for event in events)


def run(implementation: ModuleType, source: Any, **options: Any) -> toolwire.StreamResult:
    stream = implementation.reassemble(source, on_invalid="yield", **options)
    list(stream)
    return stream.result  # type: ignore[no-any-return]


def describe(call: Any) -> Any:
    if call is None:
        return None
    return (
        call.id,
        call.name,
        call.arguments,
        call.arguments_json,
        [v.key() for v in call.violations],
        dict(call.extra),
    )


def chunk(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


def opening(name: str = "f") -> dict[str, Any]:
    return {"functionCall": {"name": name, "willContinue": True}}


def entries(*values: dict[str, Any], more: bool = True) -> dict[str, Any]:
    call: dict[str, Any] = {"partialArgs": list(values)}
    if more:
        call["willContinue"] = True
    return {"functionCall": call}


END = {"functionCall": {}}


@pytest.mark.skipif(not EXT.is_dir(), reason="the shared provider-streams-ext corpus is not next to the repository")
@pytest.mark.parametrize("name", PARTIAL_ARGS)
@pytest.mark.parametrize("shape", ["event dicts", "sse bytes whole", "sse bytes one by one"])
def test_corpus_partial_args_streams_give_their_expected_calls(
    name: str, implementation: ModuleType, shape: str
) -> None:
    events = corpus_events(name)
    source: Any = events
    if shape == "sse bytes whole":
        source = as_sse(events)
    elif shape == "sse bytes one by one":
        source = [bytes([byte]) for byte in as_sse(events)]
    result = run(implementation, source)
    entry = manifest_entry(name)
    assert not result.invalid_calls
    assert [(call.name, call.arguments) for call in result.calls] == [
        (call["name"], call["arguments"]) for call in entry["expected_calls"]
    ]
    assert [call.index for call in result.calls] == [None] * len(result.calls)
    assert [("thought_signature" in call.extra) for call in result.calls] == [
        bool(call.get("thought_signature")) for call in entry["expected_calls"]
    ]
    assert result.finish_reason == entry["expected_finish"]
    assert result.ok
    for call in result.calls:
        # A whole call without args has the text "" (EMPTY_ARGUMENTS); a streamed one the object's text.
        assert call.arguments_json is not None and json.loads(call.arguments_json or "{}") == call.arguments


@pytest.mark.skipif(not EXT.is_dir(), reason="the shared provider-streams-ext corpus is not next to the repository")
@pytest.mark.parametrize("name", PARTIAL_ARGS)
def test_core_and_reference_give_the_same_events_and_fragments(name: str) -> None:
    events = corpus_events(name)

    def seen(module: Any) -> list[tuple[str, Any]]:
        # Calls compared as the differential tests compare them: violation messages are not part of it.
        return [
            (type(event).__name__, getattr(event, "fragment", None) or describe(getattr(event, "call", None)))
            for event in module.events(events)
            if not isinstance(event, module.Finished)
        ]

    core, reference = seen(toolwire), seen(toolwire.reference)
    assert core == reference
    result = run(toolwire, events)
    for call in result.calls:
        fragments = [event.fragment for event in toolwire.events(events) if isinstance(event, toolwire.ArgumentsDelta)]
        assert call.arguments_json is not None and call.arguments_json in "".join(fragments)


def test_a_snapshot_shows_the_string_still_arriving(implementation: ModuleType) -> None:
    events = [
        chunk(opening("get_weather")),
        chunk(entries({"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True})),
        chunk(entries({"jsonPath": "$.location", "stringValue": "ton"})),
        chunk(entries({"jsonPath": "$.days", "numberValue": 3}, more=False)),
    ]
    snapshots = []
    ready = []
    for event in implementation.events(events):
        if isinstance(event, implementation.ArgumentsDelta):
            snapshots.append(json.dumps(event.snapshot(), default=repr))
        elif isinstance(event, implementation.ToolCallReady):
            ready.append(event.call)
    assert snapshots == [
        "{}",
        json.dumps({"location": repr(toolwire.Pending("string", "Bos"))}),
        json.dumps({"location": "Boston"}),
        json.dumps({"location": "Boston", "days": 3}),
    ]
    assert [call.arguments_json for call in ready] == ['{"location":"Boston","days":3}']


def test_values_of_every_kind_are_written_as_their_canonical_text(implementation: ModuleType) -> None:
    events = [
        chunk(opening()),
        chunk(
            entries(
                {"jsonPath": "$.text", "stringValue": 'a "q"\n\b\x01é'},
                {"jsonPath": "$['odd key'].n", "numberValue": 1e2},
                {"jsonPath": '$["odd key"].i', "numberValue": 7},
                {"jsonPath": "$.flags[0]", "boolValue": False},
                {"jsonPath": "$.flags[1]", "nullValue": None},
                {"jsonPath": "$.flags[2]", "nullValue": "NULL_VALUE"},
            )
        ),
        chunk(END),
    ]
    for source in (events, as_sse(events)):
        result = run(implementation, source)
        (call,) = result.calls
        assert call.arguments == {
            "text": 'a "q"\n\b\x01é',
            "odd key": {"n": 100.0, "i": 7},
            "flags": [False, None, None],
        }
        assert call.arguments_json == (
            '{"text":"a \\"q\\"\\n\\b\\u0001é","odd key":{"n":100.0,"i":7},"flags":[false,null,null]}'
        )


BAD_ENTRIES = {
    "a key written twice": ([{"jsonPath": "$.a", "numberValue": 1}, {"jsonPath": "$.a", "numberValue": 2}], "/a"),
    "a string continued after it ended": (
        [{"jsonPath": "$.a", "stringValue": "x"}, {"jsonPath": "$.a", "stringValue": "y"}],
        "/a",
    ),
    "back into a container left": (
        [
            {"jsonPath": "$.a.x", "numberValue": 1},
            {"jsonPath": "$.b", "numberValue": 2},
            {"jsonPath": "$.a.y", "numberValue": 3},
        ],
        "/a",
    ),
    "an earlier array position": (
        [
            {"jsonPath": "$.a[0]", "numberValue": 1},
            {"jsonPath": "$.a[1]", "numberValue": 2},
            {"jsonPath": "$.a[0]", "numberValue": 3},
        ],
        "/a/0",
    ),
    "an array position skipped": (
        [{"jsonPath": "$.a[0]", "numberValue": 1}, {"jsonPath": "$.a[2]", "numberValue": 2}],
        "/a/2",
    ),
    "a new array not starting at 0": ([{"jsonPath": "$.a[1]", "numberValue": 1}], "/a/1"),
    "an index into an object": (
        [{"jsonPath": "$.a.b", "numberValue": 1}, {"jsonPath": "$.a[0]", "numberValue": 2}],
        None,
    ),
    "a key into an array": (
        [{"jsonPath": "$.a[0]", "numberValue": 1}, {"jsonPath": "$.a.b", "numberValue": 2}],
        None,
    ),
    "an index into the arguments object": ([{"jsonPath": "$[0]", "numberValue": 1}], None),
    "a value at a path that holds an object": (
        [{"jsonPath": "$.a.b", "numberValue": 1}, {"jsonPath": "$.a", "numberValue": 2}],
        "/a",
    ),
    "the arguments object itself": ([{"jsonPath": "$", "numberValue": 1}], ""),
    "no value": ([{"jsonPath": "$.a"}], "/a"),
    "two values": ([{"jsonPath": "$.a", "stringValue": "x", "numberValue": 1}], "/a"),
    "no jsonPath": ([{"stringValue": "x"}], None),
    "descendant segment": ([{"jsonPath": "$..a", "numberValue": 1}], None),
    "wildcard": ([{"jsonPath": "$.a[*]", "numberValue": 1}], None),
    "negative index": ([{"jsonPath": "$.a[-1]", "numberValue": 1}], None),
    "leading zero": ([{"jsonPath": "$.a[01]", "numberValue": 1}], None),
    "no dollar": ([{"jsonPath": "a.b", "numberValue": 1}], None),
    "an index of 64 bits": ([{"jsonPath": "$.a[18446744073709551616]", "numberValue": 1}], None),
    "a string's continuation that never came": (
        [{"jsonPath": "$.a", "stringValue": "x", "willContinue": True}, {"jsonPath": "$.b", "numberValue": 1}],
        "/a",
    ),
}


@pytest.mark.parametrize("case", BAD_ENTRIES)
def test_an_entry_that_cannot_be_placed_makes_its_call_invalid(case: str, implementation: ModuleType) -> None:
    bad, pointer = BAD_ENTRIES[case]
    events = [
        chunk(opening()),
        *[chunk(entries(entry)) for entry in bad],
        chunk(entries({"jsonPath": "$.z", "numberValue": 9})),
        chunk(END),
    ]
    result = run(implementation, events)
    assert not result.calls
    (call,) = result.invalid_calls
    assert [(error.code.value, error.path) for error in call.errors] == [("INVALID_ARGUMENT_PATH", pointer)]
    assert call.name == "f"
    # Nothing is placed after the first finding (the last entry, $.z, is not in the text); the text is closed.
    assert call.arguments_json is not None and "z" not in call.arguments_json
    assert call.arguments == json.loads(call.arguments_json)


def test_a_string_awaiting_its_next_piece_when_the_call_closes_is_a_path_finding(implementation: ModuleType) -> None:
    events = [
        chunk(opening()),
        chunk(entries({"jsonPath": "$.a", "stringValue": "x", "willContinue": True})),
        chunk(END),
    ]
    (call,) = run(implementation, events).invalid_calls
    assert [(error.code.value, error.path) for error in call.errors] == [("INVALID_ARGUMENT_PATH", "/a")]
    assert call.arguments == {"a": "x"}


@pytest.mark.parametrize(
    ("after", "valid"),
    [
        pytest.param([chunk(finish="STOP")], [], id="the candidate's finish"),
        pytest.param([], [], id="the end of the stream"),
        pytest.param([chunk({"functionCall": {"name": "g", "args": {"x": 1}}})], ["g"], id="a new call"),
        pytest.param([chunk(finish="MAX_TOKENS")], [], id="a cutting finish"),
    ],
)
def test_a_call_still_open_is_truncated_never_whole(
    after: list[dict[str, Any]], valid: list[str], implementation: ModuleType
) -> None:
    events = [chunk(opening()), chunk(entries({"jsonPath": "$.a", "numberValue": 1})), *after]
    result = run(implementation, events)
    truncated = [call for call in result.invalid_calls if call.name == "f"]
    assert [call.arguments_json for call in truncated] == ['{"a":1']
    assert "TRUNCATED" in {error.code.value for error in truncated[0].errors}
    assert truncated[0].arguments is None
    assert [call.name for call in result.calls] == valid


def test_nothing_of_a_streamed_call_is_handed_over_before_it_closes(implementation: ModuleType) -> None:
    events = [
        chunk(opening()),
        chunk(entries({"jsonPath": "$.a", "numberValue": 1})),
        chunk({"functionCall": {"willContinue": True}}),
        chunk({"text": "meanwhile"}),
        chunk(END),
    ]
    for emit in ("complete", "call_end"):
        reassembler = implementation.Reassembler(emit=emit, on_invalid="yield")
        counts = [len(reassembler.feed(event)) for event in events]
        assert counts == [0, 0, 0, 0, 1]
        reassembler.finish()


def test_an_empty_function_call_with_no_call_open_ends_nothing(implementation: ModuleType) -> None:
    result = run(implementation, [chunk(END), chunk(END, finish="STOP")])
    assert not result.calls and not result.invalid_calls
    # A nameless continuation with no call open is a call without its name.
    orphan = run(implementation, [chunk(entries({"jsonPath": "$.a", "numberValue": 1}, more=False))])
    assert [(call.arguments, [e.code.value for e in call.errors]) for call in orphan.invalid_calls] == [
        ({"a": 1}, ["MISSING_NAME"])
    ]


def test_whole_args_on_a_streamed_call_are_not_merged(implementation: ModuleType) -> None:
    events = [chunk({"functionCall": {"name": "f", "willContinue": True, "args": {"x": 1}}}), chunk(END)]
    (call,) = run(implementation, events).invalid_calls
    assert [error.code.value for error in call.errors] == ["INVALID_ARGUMENT_PATH"]
    assert call.arguments == {}


@pytest.mark.parametrize(
    ("part", "path", "problem"),
    [
        ({"functionCall": {"partialArgs": {"jsonPath": "$.a"}}}, "partialArgs", "expected a list, got dict"),
        ({"functionCall": {"partialArgs": ["x"]}}, "partialArgs[0]", "got str"),
        ({"functionCall": {"partialArgs": [{"jsonPath": 1}]}}, "partialArgs[0].jsonPath", "got int"),
        (
            {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": 1}]}},
            "partialArgs[0].stringValue",
            "got int",
        ),
        (
            {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": "1"}]}},
            "partialArgs[0].numberValue",
            "got str",
        ),
        (
            {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": True}]}},
            "partialArgs[0].numberValue",
            "got bool",
        ),
        (
            {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "nullValue": 0}]}},
            "partialArgs[0].nullValue",
            "got int",
        ),
        ({"functionCall": {"name": "f", "willContinue": "yes"}}, "willContinue", "got str"),
    ],
)
def test_a_field_of_the_wrong_type_names_its_path(
    part: dict[str, Any], path: str, problem: str, implementation: ModuleType
) -> None:
    with pytest.raises(toolwire.MalformedChunkError) as raised:
        run(implementation, [chunk(opening()), chunk(part)])
    assert raised.value.path == f"candidates[0].content.parts[0].functionCall.{path}"
    assert problem in raised.value.problem


def test_memory_stays_bounded_for_a_hostile_streamed_call() -> None:
    # 100 000 distinct keys of one object past a 64 KiB limit: the writer keeps no state past the limit.
    bounded = run_bounded(
        """
        parts = [{"jsonPath": f"$.k{n}", "numberValue": n} for n in range(100_000)]
        events = [
            {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]},
            {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": parts}}]}}]},
        ]
        stream = toolwire.reassemble(events, on_invalid="yield", limits=toolwire.Limits(max_argument_bytes=65536))
        list(stream)
        outcome = [e.code.value for e in stream.result.invalid_calls[0].errors]
        """,
        memory_mib=1024,
        timeout_s=120,
    )
    assert bounded.outcome == ["ARGUMENTS_TOO_LARGE"]
    # The events themselves (100 000 dicts, and their JSON for the core) are the cost (measured: ~110 MiB under
    # load); the call keeps 64 KiB. Past the limit nothing grows with the keys.
    assert bounded.peak_growth_mib < 250
    assert bounded.seconds < 60


def test_a_repeated_path_in_a_hostile_stream_is_one_finding(implementation: ModuleType) -> None:
    events = [
        chunk(opening()),
        *[chunk(entries({"jsonPath": "$.a", "numberValue": n})) for n in range(2000)],
        chunk(END),
    ]
    (call,) = run(implementation, events).invalid_calls
    assert [error.code.value for error in call.errors] == ["INVALID_ARGUMENT_PATH"]
    assert call.arguments == {"a": 0}


def test_the_corpus_entries_are_where_the_tests_look() -> None:
    if not EXT.is_dir():
        pytest.skip("the shared provider-streams-ext corpus is not next to the repository")
    for name in PARTIAL_ARGS:
        assert Path(EXT / "streams" / f"{name}.jsonl").is_file(), name
