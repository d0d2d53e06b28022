"""The core's dialect parsers (``toolwire._core.DialectParser``) against the reference's: the same events, exactly.

Every dialect in the core's table is held to its reference twin on every corpus case in every feeding, on texts
spliced and cut from the corpus at random, and, for ``hermes``, ``harmony``, ``pythonic``, ``glm45``, ``glm47``, ``gemma4``, ``functiongemma``, the dialects of raw values and the DeepSeek family (soups of its markers), on generated calls; events are compared as they
come (not merged), messages included. A dialect added to the core's table is tested here with no change.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.dialects.test_corpus import FEEDINGS, _cases, feedings
from tests.dialects.test_literal_cases import _literals
from toolwire import _core
from toolwire._model import Limits
from toolwire.reference.dialects import DIALECTS, FINDINGS, Call, Event, Finding, Reasoning, Text, kimi_k2
from toolwire.reference.dialects._deepseek import BAR, CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, SEP

CORE_DIALECTS = _core.DIALECT_NAMES


def core_events(events: list[Any]) -> list[Event]:
    """The core's event tuples (``_core.DialectParser``'s) as the reference's events."""
    out: list[Event] = []
    for event in events:
        match event:
            case ("text", text):
                out.append(Text(text))
            case ("reasoning", text):
                out.append(Reasoning(text))
            case ("call", index, name, arguments, call_id, whole, valid):
                out.append(Call(index, name, arguments, call_id, whole, valid))
            case ("finding", code, message, call):
                out.append(Finding(code, message, call))
    return out


def both(
    dialect: str,
    deltas: list[str],
    tools: dict[str, Any] | None = None,
    *,
    reasoning: bool = False,
    limits: Limits | None = None,
) -> tuple[list[Event], list[Event]]:
    """The events of ``deltas`` from the core's parser and the reference's, each feed's and the finish's in order."""
    limits = limits or Limits()
    core = _core.DialectParser(
        dialect,
        tools,
        reasoning=reasoning,
        max_argument_bytes=limits.max_argument_bytes,
        max_depth=limits.max_depth,
    )
    reference = DIALECTS[dialect](tools, reasoning=reasoning, limits=limits)
    got: list[Event] = []
    want: list[Event] = []
    for delta in deltas:
        got += core_events(core.feed(delta))
        want += reference.feed(delta)
    return got + core_events(core.finish()), want + reference.finish()


def _tools(case: dict[str, Any]) -> dict[str, Any] | None:
    if case["tools"] is None:
        return None
    return {tool["function"]["name"]: tool["function"].get("parameters", {}) for tool in case["tools"]}


def _core_cases() -> list[Any]:
    return [pytest.param(case, id=case["case_id"]) for case in _cases() if case["dialect"] in CORE_DIALECTS]


def test_the_tables_are_the_reference_s() -> None:
    assert list(CORE_DIALECTS) == list(DIALECTS)
    assert _core.dialect_findings() == [(code, *meaning) for code, meaning in FINDINGS.items()]


def test_a_dialect_is_named_and_the_parser_refuses_text_after_finish() -> None:
    with pytest.raises(ValueError, match=f'unknown dialect "nope"; the dialects are {", ".join(CORE_DIALECTS)}'):
        _core.DialectParser("nope")
    parser = _core.DialectParser(CORE_DIALECTS[0])
    parser.finish()
    with pytest.raises(ValueError, match="the parser was finished"):
        parser.feed("x")
    with pytest.raises(ValueError, match="the parser was finished"):
        parser.finish()


@pytest.mark.parametrize("feeding", FEEDINGS)
@pytest.mark.parametrize("case", _core_cases())
def test_corpus_case(case: dict[str, Any], feeding: str) -> None:
    splits = feedings(case, feeding)
    if not splits:
        pytest.skip("the source streams this case in no deltas of its own")
    for deltas in splits:
        got, want = both(case["dialect"], deltas, _tools(case), reasoning="think_prefilled" in case["flags"])
        assert got == want, deltas


def _split(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[a:b] for a, b in pairwise(bounds)] or [""]


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    dialect=st.sampled_from(CORE_DIALECTS),
    reasoning=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 64, 16]),
    depth=st.sampled_from([128, 2]),
)
def test_spliced_and_cut_corpus_texts(
    data: st.DataObject, dialect: str, reasoning: bool, limit: int, depth: int
) -> None:
    texts = [case["model_output"] for case in _cases() if case["dialect"] == dialect]
    pieces = data.draw(st.lists(st.sampled_from(texts), min_size=1, max_size=3))
    spliced = ""
    for piece in pieces:
        start = data.draw(st.integers(0, len(piece)))
        end = data.draw(st.integers(start, len(piece)))
        spliced += data.draw(st.sampled_from(["", " ", "\n", "é"])) + piece[start:end]
    by_char = data.draw(st.booleans())
    deltas = list(spliced) if by_char else _split(spliced, data.draw(st.lists(st.integers(0, 10_000), max_size=8)))
    limits = Limits(max_argument_bytes=limit, max_depth=depth)
    got, want = both(dialect, deltas, reasoning=reasoning, limits=limits)
    assert got == want, deltas


_NUMBERS = st.sampled_from(["1.50", "1e16", "-0", "0.1E-2", "1e999", "12345678901234567890123", "-3", "9" * 5000])
_STRINGS = st.sampled_from(['"a"', '"\\u00e9\\n"', '"é \\" }"', '"</tool_call>"', '"\\ud83d\\ude00"', '"\\ud800"'])
_SPACE = st.sampled_from(["", " ", "\n  ", "\t"])


@st.composite
def _json(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON text as a model might write it: numbers and escapes as written, whitespace anywhere, keys repeated."""
    if depth >= 3 or draw(st.booleans()):
        return draw(st.one_of(_NUMBERS, _STRINGS, st.sampled_from(["true", "null", "[]", "{}"])))
    if draw(st.booleans()):
        items = draw(st.lists(_json(depth + 1), max_size=3))
        return "[" + ",".join(draw(_SPACE) + item for item in items) + "]"
    keys = draw(st.lists(st.sampled_from(['"a"', '"b"', '"\\u0061"', '"é"']), max_size=3))
    members = [f"{draw(_SPACE)}{key}{draw(_SPACE)}:{draw(_SPACE)}{draw(_json(depth + 1))}" for key in keys]
    return "{" + ",".join(members) + draw(_SPACE) + "}"


@st.composite
def _hermes_call(draw: st.DrawFn) -> str:
    arguments = draw(_json())
    if draw(st.booleans()):
        arguments = json.dumps(arguments)
    name = draw(st.sampled_from(['"f"', '""', "1", '"f\\u00e9"']))
    extra = draw(st.sampled_from(["", ', "type": "function"', ', "x": 1', ', "arguments": {}']))
    body = f'{{"name":{draw(_SPACE)}{name}, "arguments": {arguments}{extra}}}'
    body = draw(st.sampled_from([body, body[: len(body) // 2], body.replace(":", "", 1)]))
    end = draw(st.sampled_from(["</tool_call>", "\n</tool_call>", " text", ""]))
    return f"<tool_call>{draw(_SPACE)}{body}{end}"


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.one_of(_hermes_call(), st.sampled_from(["Hi ", "<think>", "</think>", "<tool", "é"])), max_size=5
    ),
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    by_char=st.booleans(),
    reasoning=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 32]),
)
def test_hermes_calls_as_models_write_them(
    pieces: list[str], cuts: list[int], by_char: bool, reasoning: bool, limit: int
) -> None:
    text = "".join(pieces)
    deltas = list(text) if by_char else _split(text, cuts)
    got, want = both("hermes", deltas, reasoning=reasoning, limits=Limits(max_argument_bytes=limit))
    assert got == want, deltas


_HARMONY_MARKERS = ["<|start|>", "<|channel|>", "<|constrain|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>"]
_HARMONY_WORDS = ["assistant", "user", "to=functions.f", "to=functions.", "to=python", "to=", "commentary", "analysis"]
_HARMONY_SPACE = st.sampled_from(["", " ", "\n", "\u00a0", "\u2003", "\x1c"])


@st.composite
def _harmony_message(draw: st.DrawFn) -> str:
    """A message as gpt-oss (or llm-jp, spaced) writes one, its parts dropped, doubled or swapped at random."""
    sound = st.sampled_from([["commentary", "to=functions.f", "<|constrain|>json"], ["analysis"], ["final"]])
    words = draw(
        sound | st.lists(st.sampled_from([*_HARMONY_WORDS, "final", "json", "code", "<|constrain|>json"]), max_size=4)
    )
    header = "".join(draw(_HARMONY_SPACE) + word for word in words)
    role = draw(st.sampled_from(["", "<|start|>assistant", "<|start|>", " to=functions.f"]))
    body = draw(st.one_of(_json(), st.sampled_from(["Hi", "é <|chan", "   "])))
    end = draw(st.sampled_from(["<|call|>", "<|end|>", "<|return|>", " ", ""]))
    return f"{role}<|channel|>{header}{draw(_HARMONY_SPACE)}<|message|>{draw(_SPACE)}{body}{end}"


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.one_of(_harmony_message(), st.sampled_from([*_HARMONY_MARKERS, *_HARMONY_WORDS, " ", "é", "<|"])),
        max_size=6,
    ),
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    by_char=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 32, 8]),
)
def test_harmony_messages_as_models_write_them(pieces: list[str], cuts: list[int], by_char: bool, limit: int) -> None:
    text = "".join(pieces)
    deltas = list(text) if by_char else _split(text, cuts)
    got, want = both("harmony", deltas, limits=Limits(max_argument_bytes=limit))
    assert got == want, deltas


_PYTHON_VALUES = st.one_of(
    _literals(),
    st.sampled_from(
        [
            "b'x'",
            "f'{x}'",
            "{1, 2}",
            "1e999",
            "-0x" + "f" * 3600,
            "'\\N{BULLET}'",
            "'\\ud800'",
            "'\\x4'",
            "'x\ny'",
            "'''x\ny'''",
            "'')",
            "1 # )",
            "[1, (2,), {'k': None}]",
            "007",
            "x",
            "\u212a",
            "((((1))))",
        ]
    ),
)


@st.composite
def _pythonic_list(draw: st.DrawFn) -> str:
    """A list of calls as a model might write it, its values any literal or none, cut anywhere or not at all."""
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(["f", "get_weather", "f1", "", "1f", "f "]))
        keys = draw(st.lists(st.sampled_from(["a", "b", "a ", "**kw", "_x"]), max_size=3))
        arguments = [f"{key}={draw(_PYTHON_VALUES)}" for key in keys]
        calls.append(
            f"{name}({draw(_SPACE).join(arguments)})" if draw(st.booleans()) else f"{name}({', '.join(arguments)})"
        )
    body = "[" + ", ".join(calls) + draw(st.sampled_from(["]", ",]", " ]", "", "] x", " x"]))
    start, end = draw(
        st.sampled_from(
            [("", ""), ("<|python_start|>", "<|python_end|>"), ("<|tool_call_start|>", "\n<|tool_call_end|>")]
        )
    )
    text = f"{start}{draw(_SPACE)}{body}{end}"
    return text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.one_of(_pythonic_list(), st.sampled_from(["Hi ", "<think>", "</think>", "[", "]", "<|python", "é"])),
        max_size=5,
    ),
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    by_char=st.booleans(),
    reasoning=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 32]),
    depth=st.sampled_from([128, 3]),
)
def test_pythonic_calls_as_models_write_them(
    pieces: list[str], cuts: list[int], by_char: bool, reasoning: bool, limit: int, depth: int
) -> None:
    text = "".join(pieces)
    deltas = list(text) if by_char else _split(text, cuts)
    limits = Limits(max_argument_bytes=limit, max_depth=depth)
    got, want = both("pythonic", deltas, reasoning=reasoning, limits=limits)
    assert got == want, deltas


_GLM_TOOLS = {"f": {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}
_GLM_SPACE = st.sampled_from(["", "\n", " ", "\n  "])
_GLM_VALUES = st.sampled_from(
    ["1", " 1.50 ", "x", "</arg_value>", "a</arg_value> b", "true", '{"a": 1}', "[1", "é😀", ""]
)


@st.composite
def _glm_call(draw: st.DrawFn) -> str:
    """A GLM call as a model might write it, damaged once in four: whitespace anywhere, keys repeated, tags in values."""
    name = draw(st.sampled_from(["f", "f", "f", "get_weather", "", "f x", "f>"]))
    text = f"<tool_call>{draw(_GLM_SPACE)}{name}{draw(_GLM_SPACE)}"
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(["n", "s", "n", "s", "", "n\n"]))
        value = draw(_GLM_VALUES)
        text += f"<arg_key>{key}</arg_key>{draw(_GLM_SPACE)}<arg_value>{value}</arg_value>{draw(_GLM_SPACE)}"
    text += draw(st.sampled_from(["</tool_call>", "</tool_call>", "</tool_call>", "", " text", "</arg_key>"]))
    if draw(st.integers(0, 3)):
        return text
    return draw(
        st.sampled_from([text[: len(text) // 2], text.replace("<arg_value>", "", 1), text.replace("</arg_key>", "", 1)])
    )


@settings(max_examples=300, deadline=None)
@given(
    dialect=st.sampled_from(["glm45", "glm47"]),
    pieces=st.lists(st.one_of(_glm_call(), st.sampled_from(["Hi ", "<think>", "</think>", "<tool", "é"])), max_size=5),
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    by_char=st.booleans(),
    reasoning=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 96, 48]),
)
def test_glm_calls_as_models_write_them(
    dialect: str, pieces: list[str], cuts: list[int], by_char: bool, reasoning: bool, limit: int
) -> None:
    text = "".join(pieces)
    deltas = list(text) if by_char else _split(text, cuts)
    limits = Limits(max_argument_bytes=limit)
    got, want = both(dialect, deltas, _GLM_TOOLS, reasoning=reasoning, limits=limits)
    assert got == want, deltas


# The tags of the dialects of raw values: start, end, function tag, parameter tag, function end, quoting of names.
_TAGS = {
    "qwen3_coder": ("<tool_call>", "</tool_call>", "<function=", "<parameter=", "</function>", ""),
    "seed_oss": ("<seed:tool_call>", "</seed:tool_call>", "<function=", "<parameter=", "</function>", ""),
    "minimax_m2": (
        "<minimax:tool_call>",
        "</minimax:tool_call>",
        "<invoke name=",
        "<parameter name=",
        "</invoke>",
        '"',
    ),
}
_RAW_VALUES = st.sampled_from(
    ["1.50", "\n42\n", " true ", "False", "null", '{"a": [1, 2]}', "[1,", "é </parameter> x", "\n\n", "", "1e999"]
)
_RAW_TOOLS = {
    "f": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"anyOf": [{"type": "boolean"}, {"type": "string"}]}},
        "additionalProperties": {"type": ["integer", "null", "object"]},
    },
    "g": {"type": "object", "properties": {"a": {"type": "array"}}},
}


@st.composite
def _tag_call(draw: st.DrawFn, dialect: str) -> str:
    start, end, function, parameter, function_end, quote = _TAGS[dialect]
    name = draw(st.sampled_from(["f", "g", "h", "", 'f"', "f\n"]))
    body = f"{function}{quote}{name}{quote}>"
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(["a", "b", "c", "a<"]))
        close = draw(st.sampled_from(["</parameter>", "</parameter>\n", "\n", " </parameter> x"]))
        body += f"{draw(_SPACE)}{parameter}{quote}{key}{quote}>{draw(_RAW_VALUES)}{close}"
    body += draw(st.sampled_from([function_end, "\n" + function_end, "", "junk" + function_end]))
    body = draw(st.sampled_from([body, body[: len(body) // 2]]))
    opened = draw(st.sampled_from([start + draw(_SPACE), "", start + " x"]))
    return opened + body + draw(st.sampled_from([end, "\n" + end, " text", "", body]))


@pytest.mark.parametrize("dialect", [name for name in _TAGS if name in CORE_DIALECTS])
@settings(max_examples=200, deadline=None)
@given(data=st.data(), by_char=st.booleans(), reasoning=st.booleans(), limit=st.sampled_from([8 * 1024 * 1024, 24]))
def test_raw_value_calls_as_models_write_them(
    dialect: str, data: st.DataObject, by_char: bool, reasoning: bool, limit: int
) -> None:
    prose = st.sampled_from(["Hi ", "<think>", "</think>", "<seed:think>", "</seed:think>", "<tool", "é", "\n"])
    text = "".join(data.draw(st.lists(st.one_of(_tag_call(dialect), prose), max_size=4)))
    deltas = list(text) if by_char else _split(text, data.draw(st.lists(st.integers(0, 10_000), max_size=10)))
    tools = data.draw(st.sampled_from([None, _RAW_TOOLS]))
    got, want = both(dialect, deltas, tools, reasoning=reasoning, limits=Limits(max_argument_bytes=limit))
    assert got == want, deltas


_DSML = f"{BAR}DSML{BAR}"
# Each DeepSeek-family dialect's markers, cut markers and the text around them, in any order: hostile soups.
_SOUPS = {
    "deepseek_v3": [CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP, "function", "fn", "f\n", "```json", "```"],
    "deepseek_v31": [CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP, " f ", "a b", "1 "],
    "deepseek_dsml": [
        *(f"<{_DSML}{block}>" for block in ("function_calls", "tool_calls")),
        *(f"</{_DSML}{block}>" for block in ("function_calls", "tool_calls")),
        f"<{_DSML}invoke",
        ' name="f">',
        f"<{_DSML}parameter",
        ' name="a" string="true">',
        ' name="a" string="false">',
        ' name="b" string="x">',
        f"</{_DSML}parameter>",
        f"</{_DSML}invoke>",
        'name="g"',
        ">",
        "1.50",
    ],
    "kimi_k2": [
        kimi_k2.SECTION_BEGIN,
        kimi_k2.SECTION_BEGIN_SINGULAR,
        kimi_k2.SECTION_END,
        kimi_k2.CALL_BEGIN,
        kimi_k2.ARGUMENT_BEGIN,
        kimi_k2.CALL_END,
        "functions.f:0",
        "g:1",
        "functions.a b:2",
        "<|",
    ],
}
_SOUP = ['{"a": 1}', "{x", "}", " ", "\n", "<think>", "</think>", "é", "<", f"<{BAR}", '"s"']


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    dialect=st.sampled_from(sorted(_SOUPS)),
    by_char=st.booleans(),
    reasoning=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 64, 16]),
)
def test_deepseek_family_marker_soups(
    data: st.DataObject, dialect: str, by_char: bool, reasoning: bool, limit: int
) -> None:
    text = "".join(data.draw(st.lists(st.sampled_from(_SOUPS[dialect] + _SOUP), max_size=25)))
    deltas = list(text) if by_char else _split(text, data.draw(st.lists(st.integers(0, 10_000), max_size=8)))
    got, want = both(dialect, deltas, reasoning=reasoning, limits=Limits(max_argument_bytes=limit))
    assert got == want, deltas


# Each Gemma dialect's start marker, end marker and quote token.
_GEMMA = {
    "gemma4": ("<|tool_call>", "<tool_call|>", '<|"|>'),
    "functiongemma": ("<start_function_call>", "<end_function_call>", "<escape>"),
}


@st.composite
def _gemma_value(draw: st.DrawFn, quote: str, depth: int = 0, top: bool = False) -> str:
    """A Gemma value as a model might write it: quoted or bare, literals that are no JSON, ',' left out, tokens cut."""
    scalars = [f"{quote}a b{quote}", f"{quote}{quote}", f"{quote}é}}]<{quote}", f"{quote}x", "1.50", "-0", "1e999"]
    scalars += ["true", "null", "hello", "+1", "9" * 30, "<", "[]", "{}", quote[:3]]
    if not top and (depth >= 3 or draw(st.booleans())):
        return draw(st.sampled_from(scalars))
    separator = draw(st.sampled_from([",", ", ", "", ",\n"]))
    if not top and draw(st.booleans()):
        items = draw(st.lists(_gemma_value(quote, depth + 1), max_size=3))
        return "[" + separator.join(items) + "]"
    keys = draw(st.lists(st.sampled_from(["a", "b", "a", "é", "a b", ""]), max_size=3))
    members = [f"{key}{draw(_SPACE)}:{draw(_SPACE)}{draw(_gemma_value(quote, depth + 1))}" for key in keys]
    return "{" + separator.join(members) + draw(_SPACE) + "}"


@st.composite
def _gemma_call(draw: st.DrawFn, dialect: str) -> str:
    start, end, quote = _GEMMA[dialect]
    name = draw(st.sampled_from(["f", "f", "get_weather", "", "f x", "f:"]))
    head = draw(st.sampled_from(["call:", "call:", "call:", "cal", " call:"]))
    text = f"{start}{head}{name}{draw(_gemma_value(quote, top=True))}"
    text += draw(st.sampled_from([end, end, " " + end, "", " text", start]))
    return text[: draw(st.integers(0, len(text)))] if draw(st.integers(0, 3)) == 0 else text


@pytest.mark.parametrize("dialect", sorted(_GEMMA))
@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    by_char=st.booleans(),
    reasoning=st.booleans(),
    limit=st.sampled_from([8 * 1024 * 1024, 48, 16]),
    depth=st.sampled_from([128, 2]),
)
def test_gemma_calls_as_models_write_them(
    dialect: str, data: st.DataObject, by_char: bool, reasoning: bool, limit: int, depth: int
) -> None:
    prose = st.sampled_from(["Hi ", "<|channel>thought\n", "<channel|>", "<|tool", "<esc", "é", "\n", "}"])
    text = "".join(data.draw(st.lists(st.one_of(_gemma_call(dialect), prose), max_size=4)))
    deltas = list(text) if by_char else _split(text, data.draw(st.lists(st.integers(0, 10_000), max_size=10)))
    limits = Limits(max_argument_bytes=limit, max_depth=depth)
    got, want = both(dialect, deltas, reasoning=reasoning, limits=limits)
    assert got == want, deltas


@pytest.mark.parametrize(("dialect", "start"), [("qwen3_coder", "<tool_call>"), ("seed_oss", "<seed:tool_call>")])
def test_a_value_cut_past_the_limit_is_measured_in_bytes_by_both(dialect: str, start: str) -> None:
    # Regression (hypothesis, in CI): a value the stream cuts, 36 bytes of which all but the last 11 (what may start
    # `</parameter>`) count, past a limit of 24 with a two-byte `é` at its end. The reference measured the held-back
    # end in characters, one byte short of the core's 25, and called the call cut where the core said TOO_LARGE.
    text = f"{start}<function=f><parameter=a>1.50\n <parameter=a textHi </think>é"
    for deltas in ([text], list(text)):
        got, want = both(dialect, deltas, None, limits=Limits(max_argument_bytes=24))
        assert got == want
        assert [event.code for event in got if isinstance(event, Finding)] == ["TOO_LARGE", "CUT"]
