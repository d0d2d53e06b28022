"""The value classes built in Rust behave as their pure-Python fallbacks do: the dataclass protocol users rely on."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

import toolwire
import toolwire.reference
from toolwire import _model
from toolwire._model import Severity, ViolationCode, _Violation, replaced
from toolwire._pipeline import _extension, _progress

pytestmark = pytest.mark.skipif(not _extension.available(), reason="needs the compiled extension")

FIELDS: list[dict[str, Any]] = [
    {"code": ViolationCode.TRUNCATED, "message": "cut", "severity": Severity.ERROR},
    {
        "code": ViolationCode.TYPE_MISMATCH,
        "message": "expected integer",
        "severity": Severity.ERROR,
        "choice": 0,
        "seq": 3,
        "index": 7,
        "path": "/items/0",
        "offset": 12,
        "recoverable": True,
        "data": ("expected", ("integer",)),
    },
    {"code": ViolationCode.PROVIDER_ERROR, "message": "", "severity": Severity.WARNING, "data": {"error": [1]}},
]


def test_a_violation_the_core_finds_is_of_the_class_toolwire_exports() -> None:
    found = toolwire.validate("f", "{", {"f": {"type": "object"}})
    assert found and all(type(violation) is toolwire.Violation for violation in found)
    assert toolwire.Violation is not _Violation


@pytest.mark.parametrize("fields", FIELDS)
def test_a_violation_has_the_dataclass_s_fields_repr_key_and_match_args(fields: dict[str, Any]) -> None:
    built, fallback = toolwire.Violation(**fields), _Violation(**fields)
    assert toolwire.Violation.__match_args__ == _Violation.__match_args__
    assert [getattr(built, name) for name in built.__match_args__] == [
        getattr(fallback, name) for name in fallback.__match_args__
    ]
    assert repr(built) == repr(fallback)
    assert built.key() == fallback.key()
    match built:
        case toolwire.Violation(code, message, severity):
            assert (code, message, severity) == (fields["code"], fields["message"], fields["severity"])
        case _:
            pytest.fail("a violation matches its class pattern by position")


@pytest.mark.parametrize("cls", [toolwire.Violation, _Violation], ids=["rust", "dataclass"])
def test_a_violation_reads_as_one_line_naming_its_code_and_pointer(cls: type[Any]) -> None:
    at_pointer = cls(ViolationCode.TYPE_MISMATCH, "expected boolean", Severity.ERROR, seq=2, path="/celsius")
    assert str(at_pointer) == "TYPE_MISMATCH at /celsius: expected boolean"
    stream_wide = cls(ViolationCode.PROVIDER_ERROR, "overloaded:\r\nretry\rlater\n", Severity.ERROR)
    assert str(stream_wide) == "PROVIDER_ERROR: overloaded: retry later ", "a provider's line breaks are spaces"
    assert str(cls(ViolationCode.TRUNCATED, "", Severity.ERROR, path="")) == "TRUNCATED at : ", "the root pointer"


def test_a_violation_found_reads_the_same_from_both_implementations_and_the_fallback() -> None:
    schema = {"f": {"type": "object", "properties": {"celsius": {"type": "boolean"}}}}
    core = toolwire.validate("f", '{"celsius": 3}', schema)
    reference = toolwire.reference.validate("f", '{"celsius": 3}', schema)
    lines = [str(violation) for violation in core]
    assert (
        lines
        == [str(violation) for violation in reference]
        == ["TYPE_MISMATCH at /celsius: expected boolean, got integer"]
    )
    fallbacks = [_Violation(**{name: getattr(found, name) for name in found.__match_args__}) for found in core]
    assert [str(fallback) for fallback in fallbacks] == lines


@pytest.mark.parametrize("fields", FIELDS)
def test_violations_compare_and_hash_by_their_fields(fields: dict[str, Any]) -> None:
    built, again = toolwire.Violation(**fields), toolwire.Violation(**fields)
    assert built == again and not built != again
    if not isinstance(fields.get("data"), dict):
        assert hash(built) == hash(again) == hash(_Violation(**fields))
    other = replaced(built, message=built.message + "!")
    assert other != built and other.message == built.message + "!"
    # Another class is never equal, as a dataclass is not to another class with the same fields.
    assert built != _Violation(**fields)
    assert (built == object()) is False


def test_a_violation_with_an_unhashable_payload_is_unhashable_as_the_dataclass_is() -> None:
    fields = FIELDS[2]
    with pytest.raises(TypeError):
        hash(_Violation(**fields))
    with pytest.raises(TypeError):
        hash(toolwire.Violation(**fields))


def test_a_violation_is_immutable_and_replaced_only_by_known_fields() -> None:
    built = toolwire.Violation(**FIELDS[1])
    with pytest.raises(AttributeError):
        built.seq = 4  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'sequence'"):
        replaced(built, sequence=4)
    assert replaced(built, seq=4).seq == 4 and built.seq == 3


@pytest.mark.parametrize("fields", FIELDS)
def test_a_violation_pickles_and_copies(fields: dict[str, Any]) -> None:
    built = toolwire.Violation(**fields)
    assert pickle.loads(pickle.dumps(built)) == built
    assert copy.copy(built) == built
    deep = copy.deepcopy(built)
    assert deep == built and (not isinstance(fields.get("data"), dict) or deep.data is not built.data)


def test_a_violation_has_the_dataclass_s_defaults() -> None:
    built = toolwire.Violation(ViolationCode.MISSING_ID, "no id", Severity.WARNING)
    assert (built.choice, built.seq, built.index, built.path, built.offset, built.recoverable, built.data) == (
        None,
        None,
        None,
        None,
        None,
        False,
        None,
    )


RESULT_VALUES: list[tuple[type[Any], type[Any], dict[str, Any]]] = [
    (toolwire.ChoiceResult, _model._ChoiceResult, {"choice": 1, "text": "hi", "finish_reason": "stop"}),
    (toolwire.OutputItem, _model._OutputItem, {"after_calls": 2, "value": {"type": "thinking", "thinking": "so"}}),
    (toolwire.StreamResult, _model._StreamResult, {}),
    (toolwire.Pending, _model._Pending, {"kind": "number", "text": "12"}),
    (
        toolwire.ToolCall,
        _model._ToolCall,
        {
            "id": "c1",
            "name": "f",
            "arguments": {"a": 1},
            "arguments_json": '{"a":1}',
            "seq": 0,
            "index": 0,
            "choice": 0,
        },
    ),
    (
        toolwire.InvalidToolCall,
        _model._InvalidToolCall,
        {
            "id": "c2",
            "name": None,
            "arguments": None,
            "arguments_json": "{",
            "seq": 1,
            "index": None,
            "choice": 0,
            "errors": (toolwire.Violation(**FIELDS[0]),),
            "extra": {"item_id": "fc_1"},
        },
    ),
    (
        toolwire.StreamResult,
        _model._StreamResult,
        {
            "finish_reason": "tool_calls",
            "text": "On it.",
            "violations": (toolwire.Violation(**FIELDS[0]),),
            "format": "openai-chat",
        },
    ),
]


@pytest.mark.parametrize(("built_class", "fallback_class", "fields"), RESULT_VALUES)
def test_a_result_value_behaves_as_its_dataclass(
    built_class: type[Any], fallback_class: type[Any], fields: dict[str, Any]
) -> None:
    built, fallback = built_class(**fields), fallback_class(**fields)
    assert built_class.__match_args__ == fallback_class.__match_args__
    assert repr(built) == repr(fallback)
    assert built == built_class(**fields) and built != fallback
    assert pickle.loads(pickle.dumps(built)) == built == copy.deepcopy(built)
    first = built_class.__match_args__[0]
    assert getattr(replaced(built, **{first: getattr(fallback, first)}), first) == getattr(fallback, first)
    with pytest.raises(AttributeError):
        setattr(built, first, None)


def test_a_result_s_computed_members_agree_with_the_dataclass_s() -> None:
    server_call = toolwire.OutputItem(0, {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}})
    error = toolwire.Violation(ViolationCode.STREAM_CUT, "cut", Severity.ERROR)
    warning = toolwire.Violation(ViolationCode.NO_FINISH_REASON, "no finish reason", Severity.WARNING)
    invalid = toolwire.InvalidToolCall("c1", "f", None, "{", 0, 0, 0, errors=(error,))
    cases = (
        ((), (), (), True),
        ((server_call,), (), (), True),
        ((server_call,), (warning,), (), True),
        ((server_call,), (warning, error), (), False),
        ((), (), (invalid,), False),
    )
    for output, violations, invalid_calls, ok in cases:
        fields = {"output": output, "violations": violations, "invalid_calls": invalid_calls, "text": "hi"}
        built = toolwire.StreamResult(**fields, format="anthropic-messages")
        fallback = _model._StreamResult(**fields, format="anthropic-messages")
        assert built.ok is fallback.ok is ok
        assert built.server_calls == fallback.server_calls == tuple(item.value for item in output)
        assert built.to_history("anthropic-messages") == fallback.to_history("anthropic-messages")
    assert toolwire.StreamResult().text == "" and toolwire.StreamResult().calls == ()


def test_the_core_s_result_is_of_the_classes_toolwire_exports() -> None:
    stream = toolwire.reassemble(
        [b'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n']
    )
    assert list(stream) == []
    result = stream.result
    assert type(result) is toolwire.StreamResult and result.text == "hi" and result.finish_reason == "stop"
    assert [type(choice) for choice in result.choices] == [toolwire.ChoiceResult]


def test_a_call_s_members_agree_with_the_dataclass_s() -> None:
    fields = {"id": "c1", "name": "f", "arguments": {"a": 1}, "arguments_json": '{"a":1}', "seq": 0, "index": 0}
    built, fallback = toolwire.ToolCall(**fields, choice=0), _model._ToolCall(**fields, choice=0)
    assert built.ok is True and built.extra is fallback.extra and not built.extra
    for format in ("openai-chat", "anthropic-messages", "gemini"):
        assert built.to_history(format) == fallback.to_history(format)
    error = toolwire.Violation(ViolationCode.UNKNOWN_TOOL, "no tool f", Severity.ERROR, recoverable=True)
    invalid = toolwire.InvalidToolCall(**fields, choice=0, errors=(error,))
    invalid_fallback = _model._InvalidToolCall(**fields, choice=0, errors=(error,))
    assert invalid.ok is False
    for format in ("openai-chat", "openai-responses", "bedrock-converse"):
        assert invalid.to_tool_result(format) == invalid_fallback.to_tool_result(format)
        assert invalid.to_history(format) == invalid_fallback.to_history(format)


def test_the_core_hands_over_calls_of_the_classes_toolwire_exports() -> None:
    chunk = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
        b'"function":{"name":"f","arguments":"{}"}},{"index":1,"id":"c2","type":"function",'
        b'"function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\n'
    )
    calls = list(toolwire.reassemble([chunk], tools={"f": {"type": "object"}}, on_invalid="yield"))
    assert [type(call) for call in calls] == [toolwire.ToolCall, toolwire.InvalidToolCall]
    assert [call.name for call in calls] == ["f", "g"] and calls[0].extra is _model._NO_EXTRA


def test_a_snapshot_s_pending_value_is_of_the_class_toolwire_exports() -> None:
    chunk = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
        b'"function":{"name":"f","arguments":"{\\"n\\": 12"}}]}}]}\n\n'
    )
    snapshots = [event.snapshot() for event in toolwire.events([chunk]) if isinstance(event, toolwire.ArgumentsDelta)]
    assert snapshots == [{"n": toolwire.Pending("number", "12")}]
    assert type(snapshots[0]["n"]) is toolwire.Pending


def _snapshots(seq: int) -> tuple[str, int]:
    """A picklable stand-in for the engine's ``snapshot``."""
    return ("snapshot of", seq)


_CALL = toolwire.ToolCall("c1", "f", {"a": 1}, '{"a":1}', 0, 0, choice=0)
_INVALID = toolwire.InvalidToolCall(
    "c2", "g", None, "{", 1, 1, 0, errors=(toolwire.Violation(ViolationCode.TRUNCATED, "cut", Severity.ERROR),)
)


def _hash_or_refusal(value: object) -> int | type[TypeError]:
    try:
        return hash(value)
    except TypeError:
        return TypeError


EVENTS: list[tuple[type[Any], type[Any], tuple[Any, ...]]] = [
    (toolwire.TextDelta, _progress._TextDelta, (0, "On it.")),
    (toolwire.ToolCallStarted, _progress._ToolCallStarted, (0, 0, 3, "c1", None)),
    (toolwire.ArgumentsDelta, _progress._ArgumentsDelta, (2, 0, '{"a": ', _snapshots)),
    (toolwire.ToolCallReady, _progress._ToolCallReady, (_CALL,)),
    (toolwire.ToolCallInvalid, _progress._ToolCallInvalid, (_INVALID,)),
    (toolwire.Finished, _progress._Finished, (toolwire.StreamResult(calls=(_CALL,)),)),
]


@pytest.mark.parametrize(("built_class", "fallback_class", "fields"), EVENTS)
def test_an_event_behaves_as_its_dataclass(
    built_class: type[Any], fallback_class: type[Any], fields: tuple[Any, ...]
) -> None:
    built, fallback = built_class(*fields), fallback_class(*fields)
    assert built_class is not fallback_class and built_class.__name__ == fallback_class.__name__
    assert built_class.__match_args__ == fallback_class.__match_args__
    assert repr(built) == repr(fallback)
    assert built == built_class(*fields) and built != fallback
    assert pickle.loads(pickle.dumps(built)) == built == copy.deepcopy(built)
    with pytest.raises(AttributeError):
        setattr(built, built_class.__match_args__[0], None)
    assert _hash_or_refusal(built) == _hash_or_refusal(built_class(*fields))
    # Hashable where the dataclass is: a call's arguments are a dict, so an event holding one is not.
    assert (_hash_or_refusal(built) is TypeError) == (_hash_or_refusal(fallback) is TypeError)
    if hasattr(fallback, "seq"):
        assert built.seq == fallback.seq


def test_an_arguments_delta_compares_by_its_fields_and_snapshots_through_its_engine() -> None:
    delta = toolwire.ArgumentsDelta(2, 0, '{"a": ', _snapshots)
    assert delta.snapshot() == _progress._ArgumentsDelta(2, 0, '{"a": ', _snapshots).snapshot() == ("snapshot of", 2)
    # The engine is not part of the value: deltas of two streams with the same fields are equal, as the dataclass's.
    other = toolwire.ArgumentsDelta(2, 0, '{"a": ', lambda seq: None)
    assert other == delta and hash(other) == hash(delta)
    moved = replaced(delta, seq=5)
    assert moved.seq == 5 and moved.snapshot() == ("snapshot of", 5)


def test_the_events_a_stream_gives_are_of_the_classes_toolwire_exports() -> None:
    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"On it."}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
        b'"function":{"name":"f","arguments":"{\\"a\\":"}}]}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    )
    kinds = [type(event) for event in toolwire.events([body])]
    assert kinds == [
        toolwire.TextDelta,
        toolwire.ToolCallStarted,
        toolwire.ArgumentsDelta,
        toolwire.ArgumentsDelta,
        toolwire.ToolCallReady,
        toolwire.Finished,
    ]
