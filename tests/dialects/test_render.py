"""``toolwire.dialects.render``: each dialect's text written by hand from its models' chat templates and rules."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.dialects import STYLES, render

W = ("get_weather", {"city": "Paris", "days": 3})
T = ("get_time", {"tz": "UTC"})
DS = {"b": "<｜tool▁calls▁begin｜>", "e": "<｜tool▁calls▁end｜>", "cb": "<｜tool▁call▁begin｜>"}
DS |= {"ce": "<｜tool▁call▁end｜>", "s": "<｜tool▁sep｜>", "D": "｜DSML｜"}

CASES = [
    # Qwen2.5/Qwen3's template: a newline inside each tag, tojson's spacing, a newline between blocks.
    (
        "hermes",
        "qwen",
        [W, T],
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call>',
    ),
    ("hermes", "compact", [T], '<tool_call>{"name":"get_time","arguments":{"tz":"UTC"}}</tool_call>'),
    ("hermes", "arguments_first", [T], '<tool_call>\n{"arguments": {"tz": "UTC"}, "name": "get_time"}\n</tool_call>'),
    (
        "qwen3_coder",
        "newlines",
        [("run", {"cmd": "ls -l", "n": 2, "flag": True, "opts": {"a": [1]}})],
        "<tool_call>\n<function=run>\n<parameter=cmd>\nls -l\n</parameter>\n<parameter=n>\n2\n</parameter>\n"
        '<parameter=flag>\ntrue\n</parameter>\n<parameter=opts>\n{"a": [1]}\n</parameter>\n</function>\n</tool_call>',
    ),
    (
        "qwen3_coder",
        "python_scalars",
        [("run", {"flag": False})],
        "<tool_call>\n<function=run>\n<parameter=flag>\nFalse\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "qwen3_coder",
        "inline",
        [T],
        "<tool_call>\n<function=get_time>\n<parameter=tz>UTC</parameter>\n</function>\n</tool_call>",
    ),
    (
        "seed_oss",
        "inline",
        [T],
        "<seed:tool_call>\n<function=get_time>\n<parameter=tz>UTC</parameter>\n</function>\n</seed:tool_call>",
    ),
    (
        "seed_oss",
        "newlines",
        [T],
        "<seed:tool_call>\n<function=get_time>\n<parameter=tz>\nUTC\n</parameter>\n</function>\n</seed:tool_call>",
    ),
    (
        "llama3_json",
        "bare",
        [W, T],
        '{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}; '
        '{"name": "get_time", "parameters": {"tz": "UTC"}}',
    ),
    (
        "llama3_json",
        "python_tag",
        [T, T],
        '<|python_tag|>{"name": "get_time", "parameters": {"tz": "UTC"}}'
        '<|python_tag|>{"name": "get_time", "parameters": {"tz": "UTC"}}',
    ),
    ("llama3_json", "arguments", [T], '{"name": "get_time", "arguments": {"tz": "UTC"}}'),
    (
        "llama3_json",
        "newline",
        [T, T],
        '{"name": "get_time", "parameters": {"tz": "UTC"}}\n{"name": "get_time", "parameters": {"tz": "UTC"}}',
    ),
    ("hermes", "hermes2pro", [T], '<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}</tool_call>'),
    (
        "mistral",
        "v11",
        [W, T],
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}',
    ),
    ("mistral", "v11_call_id", [(*T, "a1B2c3D4e")], '[TOOL_CALLS]get_time[CALL_ID]a1B2c3D4e[ARGS]{"tz": "UTC"}'),
    ("mistral", "v11_stripped", [T], '[TOOL_CALLS]get_time{"tz": "UTC"}'),
    (
        "mistral",
        "pre_v11",
        [W, (*T, "a1B2c3D4e")],
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, '
        '{"name": "get_time", "arguments": {"tz": "UTC"}, "id": "a1B2c3D4e"}]',
    ),
    (
        "pythonic",
        "bare",
        [W, ("f", {"x": [True, None], "s": "it's"})],
        "[get_weather(city='Paris', days=3), f(x=[True, None], s=\"it's\")]",
    ),
    ("pythonic", "llama4", [T], "<|python_start|>[get_time(tz='UTC')]<|python_end|>"),
    ("pythonic", "lfm2", [("f", {"d": {"k": "v"}})], '<|tool_call_start|>[f(d={"k": "v"})]<|tool_call_end|>'),
    (
        "minimax_m2",
        "template",
        [W, T],
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
        '<parameter name="days">3</parameter>\n</invoke>\n<invoke name="get_time">\n'
        '<parameter name="tz">UTC</parameter>\n</invoke>\n</minimax:tool_call>',
    ),
    (
        "deepseek_v3",
        "template",
        [T, T],
        f'{DS["b"]}{DS["cb"]}function{DS["s"]}get_time\n```json\n{{"tz": "UTC"}}\n```{DS["ce"]}\n'
        f'{DS["cb"]}function{DS["s"]}get_time\n```json\n{{"tz": "UTC"}}\n```{DS["ce"]}{DS["e"]}',
    ),
    (
        "deepseek_v3",
        "tight_fence",
        [T],
        f'{DS["b"]}{DS["cb"]}function{DS["s"]}get_time\n```json\n{{"tz": "UTC"}}```{DS["ce"]}{DS["e"]}',
    ),
    (
        "deepseek_v31",
        "template",
        [T, T],
        f'{DS["b"]}{DS["cb"]}get_time{DS["s"]}{{"tz": "UTC"}}{DS["ce"]}{DS["cb"]}get_time{DS["s"]}{{"tz": "UTC"}}'
        f"{DS['ce']}{DS['e']}",
    ),
    (
        "deepseek_dsml",
        "v32",
        [W],
        f'<{DS["D"]}function_calls>\n<{DS["D"]}invoke name="get_weather">\n'
        f'<{DS["D"]}parameter name="city" string="true">Paris</{DS["D"]}parameter>\n'
        f'<{DS["D"]}parameter name="days" string="false">3</{DS["D"]}parameter>\n'
        f"</{DS['D']}invoke>\n</{DS['D']}function_calls>",
    ),
    (
        "deepseek_dsml",
        "v4",
        [("f", {})],
        f'<{DS["D"]}tool_calls>\n<{DS["D"]}invoke name="f">\n</{DS["D"]}invoke>\n</{DS["D"]}tool_calls>',
    ),
    (
        "kimi_k2",
        "template",
        [T, (*T, "get_time:7")],
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>"
        '{"tz": "UTC"}<|tool_call_end|><|tool_call_begin|>get_time:7<|tool_call_argument_begin|>{"tz": "UTC"}'
        "<|tool_call_end|><|tool_calls_section_end|>",
    ),
    (
        "harmony",
        "commentary",
        [T],
        '<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"tz": "UTC"}<|call|>',
    ),
    (
        "harmony",
        "recipient_first",
        [T],
        ' to=functions.get_time<|channel|>commentary json<|message|>{"tz": "UTC"}<|call|>',
    ),
    (
        "glm45",
        "template",
        [W, ("f", {})],
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
        "<arg_value>3</arg_value>\n</tool_call>\n<tool_call>f\n</tool_call>",
    ),
    (
        "glm47",
        "template",
        [W],
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key>"
        "<arg_value>3</arg_value></tool_call>",
    ),
    # Gemma's format_argument: bare keys, strings between the quote token, other values bare, no spaces.
    (
        "gemma4",
        "template",
        [("set", {"s": "a b", "n": -1.5, "ok": True, "x": None, "o": {"k": ["v", 2]}}), T],
        '<|tool_call>call:set{s:<|"|>a b<|"|>,n:-1.5,ok:true,x:null,o:{k:[<|"|>v<|"|>,2]}}<tool_call|>'
        '<|tool_call>call:get_time{tz:<|"|>UTC<|"|>}<tool_call|>',
    ),
    (
        "functiongemma",
        "template",
        [W],
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>",
    ),
    # The "marker + JSON array" dialects: one array per group of calls, tojson's spacing.
    (
        "granite",
        "token",
        [W, T],
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, '
        '{"name": "get_time", "arguments": {"tz": "UTC"}}]',
    ),
    ("granite", "text", [T], '<tool_call> [{"name": "get_time", "arguments": {"tz": "UTC"}}]'),
    ("granite", "arguments_first", [T], '<|tool_call|>[{"arguments": {"tz": "UTC"}, "name": "get_time"}]'),
    ("phi4_mini", "template", [T], 'functools[{"name": "get_time", "arguments": {"tz": "UTC"}}]'),
    ("xlam", "bare", [T], '[{"name": "get_time", "arguments": {"tz": "UTC"}}]'),
    ("xlam", "fence", [T], '```json\n[{"name": "get_time", "arguments": {"tz": "UTC"}}]\n```'),
    ("xlam", "tool_calls", [T], '[TOOL_CALLS][{"name": "get_time", "arguments": {"tz": "UTC"}}]'),
    ("xlam", "tool_call", [T], '<tool_call>[{"name": "get_time", "arguments": {"tz": "UTC"}}]</tool_call>'),
    ("apriel", "template", [T], '<tool_calls>[{"name": "get_time", "arguments": {"tz": "UTC"}}]</tool_calls>'),
    # Command R7B's template: one element a line, indented four spaces; ids count the turn's calls from 0.
    (
        "cohere_command",
        "template",
        [W, (*T, "7")],
        '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris", '
        '"days": 3}},\n    {"tool_call_id": "7", "tool_name": "get_time", "parameters": {"tz": "UTC"}}\n]<|END_ACTION|>',
    ),
]


def test_every_dialect_and_style_has_a_hand_written_case() -> None:
    assert {(dialect, style) for dialect, style, _, _ in CASES} == {
        (d, s) for d, styles in STYLES.items() for s in styles
    }


@pytest.mark.parametrize(("dialect", "style", "calls", "expected"), CASES, ids=[f"{d}-{s}" for d, s, _, _ in CASES])
def test_calls_are_written_as_the_template_writes_them(
    dialect: str, style: str, calls: list[tuple[Any, ...]], expected: str
) -> None:
    assert render(calls, dialect, style=style) == expected


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("hermes", '<think>hm</think>A<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call>B'),
        (
            "seed_oss",
            "<seed:think>hm</seed:think>A<seed:tool_call>\n<function=get_time>\n<parameter=tz>UTC</parameter>\n"
            "</function>\n</seed:tool_call>B",
        ),
        ("mistral", '[THINK]hm[/THINK]A[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}B'),
        ("gemma4", '<|channel>thought\nhm<channel|>A<|tool_call>call:get_time{tz:<|"|>UTC<|"|>}<tool_call|>B'),
        (
            "harmony",
            "<|channel|>analysis<|message|>hm<|end|><|start|>assistant<|channel|>commentary<|message|>A<|end|>"
            '<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"tz": "UTC"}'
            "<|call|><|start|>assistant<|channel|>final<|message|>B<|return|>",
        ),
    ],
)
def test_reasoning_and_text_around_the_calls(dialect: str, expected: str) -> None:
    assert render([T], dialect, reasoning="hm", text_before="A", text_after="B") == expected


def test_a_prompt_that_opened_reasoning_leaves_only_its_close() -> None:
    assert render([], "qwen3_coder", reasoning="hm", reasoning_opened=True, text_after="A") == "hm</think>A"
    assert render([], "mistral", reasoning_opened=True) == "[/THINK]"
    with pytest.raises(ValueError, match="harmony's prompt opens a message"):
        render([T], "harmony", reasoning_opened=True)


def test_text_between_calls_closes_a_group_and_opens_another() -> None:
    assert render([T, T], "pythonic", text_between=["and "]) == "[get_time(tz='UTC')]and [get_time(tz='UTC')]"
    kimi = render([T, T], "kimi_k2", text_between=["x"])
    assert (
        kimi.count("<|tool_calls_section_begin|>") == 2
        and "<|tool_calls_section_end|>x<|tool_calls_section_begin|>" in kimi
    )
    assert render([T, T], "glm47", text_between=["x"]).count("</tool_call>x<tool_call>") == 1
    assert render([T, T, T], "harmony", text_between=["", "y"]).count("<|channel|>commentary<|message|>y<|end|>") == 1


@pytest.mark.parametrize(
    ("dialect", "style", "call", "message"),
    [
        (
            "qwen3_coder",
            "newlines",
            ("f", {"v": "a</parameter>\n</function>"}),
            "key 'v': the value holds </parameter>",
        ),
        ("qwen3_coder", "newlines", ("f", {"v": "a\n<parameter=b>"}), "<parameter= at a line's start"),
        ("qwen3_coder", "inline", ("f", {"v": "\nx"}), "cannot start with a newline"),
        ("qwen3_coder", "newlines", ("f", {"a>b": 1}), "key 'a>b'"),
        ("minimax_m2", "template", ("f", {"v": "</parameter></invoke>"}), "holds </parameter>"),
        ("minimax_m2", "template", ("f", {'a"': 1}), "key 'a\"'"),
        ("glm45", "template", ("f", {"v": {"s": "</arg_value><arg_key>"}}), "holds </arg_value>"),
        ("glm47", "template", ("f", {"a\nb": 1}), "key 'a\\nb'"),
        ("deepseek_dsml", "v32", ("f", {"v": "</｜DSML｜invoke>"}), "holds </｜DSML｜parameter>"),
        ("pythonic", "bare", ("f", {"not-an-id": 1}), "key 'not-an-id'"),
        ("pythonic", "bare", ("f", {"class": 1}), "key 'class'"),
        ("pythonic", "bare", ("my-tool", {}), "Python identifier"),
        ("mistral", "v11", ("a b", {}), "letters, digits"),
        ("mistral", "v11_call_id", ("f", {}), "9 letters or digits; got None"),
        ("mistral", "pre_v11", ("f", {}, "call_123456"), "got 'call_123456'"),
        ("kimi_k2", "template", ("f", {}, "functions.g:0"), "functions.f:IDX"),
        ("kimi_k2", "template", ("f", {}, "ts_0_0"), "got 'ts_0_0'"),
        ("gemma4", "template", ("f", {"v": 'a<|"|>b'}), "key 'v': the string holds <|\"|>"),
        ("functiongemma", "template", ("f", {"v": {"a b": 1}}), "key 'a b': a key this dialect writes bare"),
        ("gemma4", "template", ("f", {"": 1}), "key '': a key this dialect writes bare"),
        ("hermes", "qwen", ("f", {"v": "\ud800"}), "lone surrogate"),
        ("hermes", "qwen", ("f", {"v": float("inf")}), "inf is not a JSON number"),
        ("hermes", "qwen", ("f", {"\udfff": 1}), "key '\\udfff': a lone surrogate"),
    ],
)
def test_what_a_dialect_cannot_carry_is_refused(dialect: str, style: str, call: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{dialect} \\({style}\\): calls\\[0\\]") as refused:
        render([call], dialect, style=style)
    assert message in str(refused.value)


def test_misuse_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown dialect 'nope'"):
        render([T], "nope")
    with pytest.raises(ValueError, match="hermes has no style 'v11'"):
        render([T], "hermes", style="v11")
    with pytest.raises(ValueError, match="llama3_json has no reasoning"):
        render([T], "llama3_json", reasoning="x")
    with pytest.raises(ValueError, match="llama3_json has no reasoning"):
        render([T], "llama3_json", reasoning_opened=True)
    with pytest.raises(ValueError, match="1 texts for 2 gaps"):
        render([T, T, T], "hermes", text_between=["x"])
    with pytest.raises(TypeError, match="not a str"):
        render([T, T], "hermes", text_between="x")
    with pytest.raises(TypeError, match=r"calls\[0\]: expected a \(name, arguments\)"):
        render([["f", {}]], "hermes")


def test_a_tool_call_object_renders() -> None:
    import toolwire

    call = toolwire.ToolCall("a1B2c3D4e", "get_time", {"tz": "UTC"}, '{"tz": "UTC"}', seq=0, index=0, choice=0)
    assert render([call], "mistral", style="v11_call_id") == '[TOOL_CALLS]get_time[CALL_ID]a1B2c3D4e[ARGS]{"tz": "UTC"}'
