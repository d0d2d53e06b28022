"""``qwen3_coder``'s rules where an earlier reference broke them: the same events whatever the split, and no call's
text kept past the limit."""

from __future__ import annotations

from tests.dialects.helpers import codes, fed_both_ways
from toolwire._model import Limits
from toolwire.reference.dialects import Call, Finding


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
