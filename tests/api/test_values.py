"""The value classes built in Rust behave as their pure-Python fallbacks do: the dataclass protocol users rely on."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

import toolwire
from toolwire._model import Severity, ViolationCode, _Violation, replaced
from toolwire._pipeline import _extension

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
