"""``qwen3_coder``'s rules where an earlier reference broke them: the same events whatever the split, and no call's
text kept past the limit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.dialects.helpers import codes, fed_both_ways
from tests.dialects.test_core_twin import _RAW_TOOLS, _split, _tag_call
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Finding, Text, merged, parse


def test_what_stands_where_a_tag_belongs_is_quoted_the_same_whatever_the_split() -> None:
    text = "<tool_call><function=f>junk and more than twenty characters</function></tool_call>"
    found = fed_both_ways("qwen3_coder", text)
    message = '"junk and more than t" where a parameter or </function> belongs'
    assert found[0] == Finding("MALFORMED_CALL", message, 0)
    # At the end of the stream, what arrived is all there is to quote.
    found = fed_both_ways("qwen3_coder", "<tool_call><function=f>ju")
    assert found[0] == Finding("MALFORMED_CALL", '"ju" where a parameter or </function> belongs', 0)
    assert codes(found) == ["MALFORMED_CALL", "CUT"]


def test_a_broken_call_past_the_limit_is_too_large_and_keeps_nothing_whatever_the_split() -> None:
    limits = Limits(max_argument_bytes=48)
    text = "<tool_call><function=f>" + "x" * 40 + "</function></tool_call> after"
    found = fed_both_ways("qwen3_coder", text, limits=limits)
    assert codes(found) == ["MALFORMED_CALL", "TOO_LARGE"]
    assert found[2] == Call(0, "f", "", None, whole=True, valid=False)
    # Within the limit, the broken call's text is all of it.
    found = fed_both_ways("qwen3_coder", text, limits=Limits(max_argument_bytes=80))
    assert found[1] == Call(0, "f", "<tool_call><function=f>" + "x" * 40 + "</function>", None, True, False)


def test_a_call_whose_values_pass_the_limit_keeps_nothing_of_its_text() -> None:
    text = '<minimax:tool_call><invoke name="f"><parameter name="s">' + "x" * 100 + "</parameter></invoke>"
    found = fed_both_ways("minimax_m2", text, limits=Limits(max_argument_bytes=64))
    assert found[1] == Call(0, "f", "", None, whole=True, valid=False)


def test_a_value_past_the_limit_is_read_to_its_end_whatever_the_split() -> None:
    # Fed a character at a time, the limit is passed inside the value: the `</function>` the value holds is the value's.
    text = "<tool_call><function=f><parameter=a>" + "x" * 30 + "</function>y</parameter></function></tool_call> ok"
    found = fed_both_ways("qwen3_coder", text, limits=Limits(max_argument_bytes=24))
    too_large = Finding("TOO_LARGE", "the call's values passed the limit on a call's bytes", 0)
    assert found == [too_large, Call(0, "f", "", None, whole=True, valid=False), Text(" ok")]
    # A value past the limit that runs into the next parameter ends there, as one within it does.
    text = "<function=f><parameter=a>" + "x" * 30 + "\n<parameter=b>1</parameter></function>"
    found = fed_both_ways("qwen3_coder", text, limits=Limits(max_argument_bytes=24))
    assert codes(found) == ["MISSING_START_MARKER", "TOO_LARGE", "MISSING_END_MARKER"]


def test_a_value_within_the_limit_is_not_too_large_while_its_end_tag_arrives() -> None:
    # 17 bytes of value, and a part of its end tag would pass 24: only the value counts.
    text = "<tool_call><function=f><parameter=a>é </parameter> x</parameter></function></tool_call>"
    found = fed_both_ways("qwen3_coder", text, limits=Limits(max_argument_bytes=24))
    assert found[-1] == Call(0, "f", '{"a":"é </parameter> x"}', None, whole=True, valid=True)


@pytest.mark.parametrize("dialect", ["qwen3_coder", "seed_oss", "minimax_m2"])
@settings(max_examples=200, deadline=None)
@given(data=st.data(), limit=st.sampled_from([8 * 1024 * 1024, 60, 24]))
def test_generated_calls_give_the_same_events_whatever_the_split(dialect: str, data: st.DataObject, limit: int) -> None:
    text = "".join(data.draw(st.lists(st.one_of(_tag_call(dialect), st.sampled_from(["Hi ", "\n", "é"])), max_size=4)))
    deltas = list(text) if data.draw(st.booleans()) else _split(text, data.draw(st.lists(st.integers(0, 10_000))))
    tools = data.draw(st.sampled_from([None, _RAW_TOOLS]))
    limits = Limits(max_argument_bytes=limit)
    assert merged(parse(dialect, deltas, tools, limits=limits)) == merged(parse(dialect, [text], tools, limits=limits))
