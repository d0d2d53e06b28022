"""The raw chat fast path (``rust/core/src/template.rs``) against the reference: a template vouches only for what it
checked.

After one plain argument chunk, the core reads the chunks that differ from it only in their argument text and their
``obfuscation`` padding without indexing them again. Whatever those two strings hold, the outcome must be the one
the full reading gives, which the reference states: the same calls, or the same ``MalformedChunkError``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import toolwire
import toolwire.reference as reference
from tests.support.implementations import IMPLEMENTATIONS
from toolwire import MalformedChunkError

OPEN = json.dumps(
    {
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "f"}}]},
            }
        ]
    },
    separators=(",", ":"),
)
# A chunk as OpenAI sends it, its two varying strings written in raw (any bytes between the quotes).
PIECE = (
    '{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"%s"}}]},'
    '"finish_reason":null}],"obfuscation":"%s"}'
)
FINISH = '{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}'

# The inside of a JSON string as a server might write it: plain text and JSON's escapes, and what JSON does not allow
# (unknown escapes, short or non-hex \u escapes, a raw control character, a lone backslash at the end).
_GOOD = st.sampled_from(["a", "Zq9", " ", "é", r"\"", r"\\", r"\/", r"\n", r"\t", r"\u00e9", r"\ud800", r"\uDC00"])
_BAD = st.sampled_from([r"\q", r"\u12zz", r"\u00", r"\x41", "\x01", r"\U0041", "\\"])
texts = st.lists(st.one_of(_GOOD, _GOOD, _GOOD, _BAD), max_size=6).map("".join)
paddings = st.lists(st.one_of(_GOOD, _BAD), max_size=4).map("".join)


def outcome(module: Any, events: list[str]) -> Any:
    data = b"".join(b"data: " + event.encode("utf-8") + b"\n\n" for event in events)
    try:
        calls = list(module.reassemble(data, on_invalid="yield"))
    except MalformedChunkError as error:
        return ("MalformedChunkError", error.chunk_number, error.path)
    return [(call.ok, call.arguments_json, [v.code.value for v in getattr(call, "errors", ())]) for call in calls]


@given(st.lists(st.tuples(texts, paddings), min_size=1, max_size=4))
def test_argument_chunks_after_a_template_read_as_the_reference_reads_them(pieces: list[tuple[str, str]]) -> None:
    # The first piece is plain, so the next ones meet a template.
    events = [OPEN, PIECE % ('{\\"k\\": \\"', "pad")]
    events += [PIECE % (text, padding) for text, padding in pieces]
    events.append(FINISH)
    assert outcome(toolwire, events) == outcome(reference, events)


def test_a_bad_escape_in_the_padding_is_malformed_after_a_template_too() -> None:
    events = [OPEN, PIECE % ('{\\"k\\": 1', "pad"), PIECE % ("}", r"\u12zz"), FINISH]
    for module in IMPLEMENTATIONS.values():
        assert outcome(module, events) == ("MalformedChunkError", 2, ""), module.__name__
