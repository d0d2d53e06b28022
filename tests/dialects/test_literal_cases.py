"""Raw values and Python literals as JSON text: the shared table of cases, and the literal reader against Python.

``data/literal_cases.json`` holds hand-written expectations that the core's twins (``rust/core/src/dialects/``) read
too, so both implementations are held to the same texts and messages. The reader of Python literals is also held to
Python itself: what ``ast.literal_eval`` makes of a generated literal, written as JSON, is what the reader writes.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire._model import Limits
from toolwire.reference.dialects._python_literals import Malformed, NoJsonForm, read_call
from toolwire.reference.dialects._raw_values import typed, typed_arguments
from toolwire.reference.dialects._shared import FindingCode

CASES: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "literal_cases.json").read_text("utf-8"))
DEPTH = Limits().max_depth


@pytest.mark.parametrize("case", CASES["typed"], ids=lambda case: f"{case['raw']!r}-{case['schema']}")
def test_a_raw_value_is_the_json_text_its_schema_reads(case: dict[str, Any]) -> None:
    text, problem = typed(case["raw"], case["schema"], case.get("root", {}), case.get("max_depth", DEPTH))
    if "problem" in case:
        assert (text, problem) == (json.dumps(case["raw"], ensure_ascii=False), case["problem"])
    else:
        assert (text, problem) == (case["text"], None)


@pytest.mark.parametrize("case", CASES["typed_arguments"])
def test_raw_arguments_are_a_json_object_in_order_and_what_is_not_typed_is_said(case: dict[str, Any]) -> None:
    findings: list[tuple[FindingCode, str]] = []
    pairs = [(key, raw) for key, raw in case["pairs"]]
    assert typed_arguments(pairs, case["parameters"], findings, DEPTH) == case["text"]
    assert findings == [(code, message) for code, message in case["findings"]]


@pytest.mark.parametrize("case", CASES["read_call"], ids=lambda case: case["call"][:60])
def test_a_python_call_is_read_as_json_text_or_refused_with_its_reason(case: dict[str, Any]) -> None:
    if "malformed" in case:
        with pytest.raises(Malformed) as refused:
            read_call(case["call"], DEPTH)
        assert str(refused.value) == case["malformed"]
    elif "no_json_form" in case:
        with pytest.raises(NoJsonForm) as broken:
            read_call(case["call"], DEPTH)
        assert str(broken.value) == case["no_json_form"]
    else:
        assert read_call(case["call"], DEPTH) == (case["name"], case["arguments"])


def test_nesting_is_bounded_in_raw_values_and_in_calls() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert typed(deep, {"type": "array"}, {}, DEPTH)[1] is not None
    assert typed("[" * (DEPTH - 1) + "]" * (DEPTH - 1), {"type": "array"}, {}, DEPTH)[1] is None
    with pytest.raises(NoJsonForm, match="nested past"):
        read_call(f"f(a={deep})", DEPTH)
    assert read_call(f"f(a={'(' * (DEPTH - 1)}1{')' * (DEPTH - 1)})", DEPTH) == ("f", '{"a":1}')


def test_huge_numbers_are_refused_or_kept_as_written_without_reading_them_whole() -> None:
    digits = "9" * 4300
    assert read_call(f"f(a={digits})", DEPTH) == ("f", f'{{"a":{digits}}}')
    with pytest.raises(NoJsonForm, match="more than 4300"):
        read_call(f"f(a={digits}9)", DEPTH)
    with pytest.raises(NoJsonForm, match="more than 4300"):
        read_call(f"f(a=0x{'f' * 1_000_000})", DEPTH)
    assert typed("1" * 100_000, {"type": "integer"}, {}, DEPTH) == ("1" * 100_000, None)
    assert typed("1e" + "9" * 100_000, {"type": "number"}, {}, DEPTH)[1] is not None


# Python literals and the JSON value each stands for (a tuple is an array).
_SCALARS = (
    st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
    | st.booleans()
    | st.none()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4)
    | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


def _spelled(value: Any, draw: st.DrawFn) -> str:
    """``value`` written as Python source, in one of the ways Python writes it."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        sign = "-" if value < 0 else draw(st.sampled_from(["", "+"]))
        form = draw(st.sampled_from(["{:d}", "{:_d}", "0x{:x}", "0X{:_X}", "0o{:o}", "0b{:b}"]))
        return sign + form.format(abs(value))
    if isinstance(value, float):
        form = draw(st.sampled_from(["{!r}", "{:.17e}", "{:.17E}", "{:.20f}"]))
        return form.format(value)
    if isinstance(value, str):
        quote = draw(st.sampled_from(["'", '"', "'''", '"""']))
        body = "".join(_escaped(char, quote[0], draw) for char in value)
        return f"{quote}{body}{quote}" if quote[0] != body[-1:] else f"{quote[0]}{body}{quote[0]}"
    if isinstance(value, tuple):
        inside = ", ".join(_spelled(item, draw) for item in value)
        return f"({inside},)" if len(value) == 1 else f"({inside})"
    if isinstance(value, list):
        return "[" + ", ".join(_spelled(item, draw) for item in value) + "]"
    return "{" + ", ".join(f"{_spelled(key, draw)}: {_spelled(item, draw)}" for key, item in value.items()) + "}"


def _escaped(char: str, quote: str, draw: st.DrawFn) -> str:
    """``char`` as it may stand in a string literal quoted by ``quote``."""
    if char in (quote, "\\"):
        return "\\" + char
    if char.isprintable() and not draw(st.booleans()):
        return char
    forms = ["\\x{:02x}", "\\{:03o}", "\\u{:04x}", "\\U{:08x}"] if ord(char) < 0x100 else ["\\u{:04x}", "\\U{:08x}"]
    return draw(st.sampled_from(forms if ord(char) < 0x10000 else forms[-1:])).format(ord(char))


@st.composite
def _literals(draw: st.DrawFn) -> str:
    return _spelled(draw(_VALUES), draw)


@given(_literals())
def test_the_literal_reader_writes_what_python_reads_as_json(literal: str) -> None:
    expected = json.dumps(ast.literal_eval(literal), ensure_ascii=False)
    try:
        expected.encode("utf-8")
    except UnicodeEncodeError:  # a surrogate, which has no JSON form
        with pytest.raises(NoJsonForm):
            read_call(f"f(a={literal})", DEPTH)
        return
    name, arguments = read_call(f"f(a={literal})", DEPTH)
    assert name == "f"
    assert _same(json.loads(arguments)["a"], json.loads(expected))


def _same(got: Any, expected: Any) -> bool:
    """JSON values equal, a float to the same double (and -0.0 to -0.0), an int to the same int."""
    if isinstance(expected, float):
        return isinstance(got, float) and got == expected and math.copysign(1, got) == math.copysign(1, expected)
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(map(_same, got, expected))
    if isinstance(expected, dict):
        return isinstance(got, dict) and got.keys() == expected.keys() and all(_same(got[k], expected[k]) for k in got)
    return type(got) is type(expected) and got == expected
