"""Calls written as a model of each dialect's family writes them: the inverse of the dialect parsers.

Each dialect's text comes from its rules (``docs/dialects.md``) and its models' chat templates, never from a parser:
it is the ground truth the parsers are tested against. A dialect is one function from the calls, the gaps between
them and a style to the text of the calls; ``render`` puts reasoning and text around it. A value the dialect cannot
carry faithfully (a raw value holding its own closing tag, a pythonic key that is no identifier) is a ``ValueError``
naming the dialect, the call and the key, never a text that would parse as something else.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Final

from toolwire._common._json import plain_json

__all__ = ["REASONING_DIALECTS", "STYLES", "render"]

#: Every dialect ``render`` writes, with its styles (the first is the default): the variants its models really write.
STYLES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "hermes": ("qwen", "compact", "arguments_first", "hermes2pro"),
        "qwen3_coder": ("newlines", "inline", "python_scalars"),
        "seed_oss": ("inline", "newlines"),
        "llama3_json": ("bare", "python_tag", "arguments", "newline"),
        "mistral": ("v11", "v11_call_id", "v11_stripped", "pre_v11"),
        "pythonic": ("bare", "llama4", "lfm2"),
        "minimax_m2": ("template",),
        "deepseek_v3": ("template", "tight_fence"),
        "deepseek_v31": ("template",),
        "deepseek_dsml": ("v32", "v4"),
        "kimi_k2": ("template",),
        "harmony": ("commentary", "recipient_first"),
        "glm45": ("template",),
        "glm47": ("template",),
        "gemma4": ("template",),
        "functiongemma": ("template",),
        "granite": ("token", "text", "arguments_first"),
        "phi4_mini": ("template",),
        "xlam": ("bare", "fence", "tool_calls", "tool_call"),
        "apriel": ("template",),
        "cohere_command": ("template",),
    }
)

# Names a marker-delimited dialect writes bare (a tag's attribute, a header's word): Mistral v11's name grammar, which
# every other markup also reads whole.
_MARKUP_NAME: Final = re.compile(r"[A-Za-z0-9_.-]+")
_MISTRAL_ID: Final = re.compile(r"[A-Za-z0-9]{9}")
_THINK: Final = ("<think>", "</think>")


@dataclass(frozen=True, slots=True)
class _Call:
    """One call to write: its name, its arguments object, the id it carries (None: none given) and its position."""

    name: str
    arguments: dict[str, Any]
    id: str | None
    index: int


@dataclass(frozen=True)
class _Context:
    """The dialect and style being written, which every refusal names."""

    dialect: str
    style: str

    def fail(self, call: _Call, what: str, key: str | None = None) -> ValueError:
        where = f"calls[{call.index}] ({call.name!r})" + ("" if key is None else f", key {key!r}")
        return ValueError(f"{self.dialect} ({self.style}): {where}: {what}")


def _json(value: Any, compact: bool = False) -> str:
    """JSON as chat templates' ``tojson`` writes it (``, `` and ``: `` unless compact), characters unescaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None, allow_nan=False)


# ------------------------------------------------------------------------------------------------ the calls given


def _utf8(text: str) -> bool:
    """Whether ``text`` can be a model's text: no lone surrogate, which UTF-8 cannot hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_calls(calls: Iterable[object], prefix: str) -> list[_Call]:
    if isinstance(calls, (str, bytes, Mapping)):
        raise TypeError(f"calls must be a sequence of calls; got {type(calls).__name__}")
    read = []
    for index, item in enumerate(calls):
        where = f"{prefix}calls[{index}]"
        given: Any = item
        if isinstance(given, tuple) and len(given) in (2, 3):
            name, arguments, call_id = given[0], given[1], given[2] if len(given) == 3 else None
        elif hasattr(given, "name") and hasattr(given, "arguments"):
            name, arguments, call_id = given.name, given.arguments, getattr(given, "id", None)
        else:
            raise TypeError(
                f"{where}: expected a (name, arguments) or (name, arguments, id) tuple or a call object "
                f"(toolwire.ToolCall); got {type(given).__name__}"
            )
        if not isinstance(name, str) or not name:
            raise TypeError(f"{where}: the name must be a non-empty str; got {name!r:.40}")
        if call_id is not None and not isinstance(call_id, str):
            raise TypeError(f"{where}: the id must be a str or None; got {call_id!r:.40}")
        value = plain_json(arguments, f"{where}: arguments")
        if not isinstance(value, dict):
            raise TypeError(f"{where}: the arguments must be a dict; got {type(arguments).__name__}")
        texts = [("the name", name), *((f"key {key!r}", key + _json(item)) for key, item in value.items())]
        for place, text in texts:
            if not _utf8(text):
                raise ValueError(f"{where} ({name!r}), {place}: a lone surrogate cannot be written as UTF-8 text")
        read.append(_Call(name, value, call_id, index))
    return read


def _gaps(text_between: Sequence[str], calls: int) -> list[str]:
    if isinstance(text_between, str):
        raise TypeError("text_between is one text per gap between calls (a sequence of str), not a str")
    gaps = list(text_between)
    if gaps and len(gaps) != max(calls - 1, 0):
        raise ValueError(f"text_between holds {len(gaps)} texts for {max(calls - 1, 0)} gaps between {calls} calls")
    if not all(isinstance(gap, str) for gap in gaps):
        raise TypeError("text_between holds str only")
    return gaps or [""] * max(calls - 1, 0)


def _joined(blocks: list[str], gaps: list[str], separator: str) -> str:
    """One block per call, each gap's text between two (the dialect's ``separator`` where a gap has none)."""
    return "".join(
        block + (gaps[position] or separator if position < len(gaps) else "") for position, block in enumerate(blocks)
    )


def _grouped(calls: list[_Call], gaps: list[str], write: Callable[[list[_Call]], str]) -> str:
    """The calls in groups (a section, a block, a list) that text between two calls closes: each written, then the text."""
    out: list[str] = []
    run: list[_Call] = []
    for position, call in enumerate(calls):
        run.append(call)
        gap = gaps[position] if position < len(gaps) else ""
        if gap or position == len(calls) - 1:
            out.append(write(run) + gap)
            run = []
    return "".join(out)


def _name(ctx: _Context, call: _Call) -> str:
    if not _MARKUP_NAME.fullmatch(call.name):
        raise ctx.fail(call, "a name this dialect writes bare holds only letters, digits, '_', '-' and '.'")
    return call.name


# ------------------------------------------------------------------------------------------ raw-value dialects


@dataclass(frozen=True)
class _Markup:
    """A dialect whose values are raw text between tags: what it cannot carry, and how it writes a non-string."""

    close: str  # the value's closing tag
    boundary: re.Pattern[str]  # the closing tag followed by what makes it the value's end
    line_start: str | None = None  # a tag that ends a value when it opens one of its lines
    python_scalars: bool = False  # booleans and null as the template's ``|string`` writes them
    key_refused: str = "<>\r\n"


def _raw(ctx: _Context, call: _Call, key: str, value: Any, markup: _Markup) -> str:
    if not key or any(character in markup.key_refused for character in key):
        raise ctx.fail(
            call, f"a key this dialect writes in its tag must be non-empty without {markup.key_refused!r}", key
        )
    if isinstance(value, str):
        text = value
    elif markup.python_scalars and (value is None or isinstance(value, bool)):
        text = str(value)
    else:
        text = _json(value)
    if markup.boundary.search(text):
        raise ctx.fail(call, f"the value holds {markup.close} where it would end the value", key)
    if markup.line_start is not None and re.search(f"(?:^|\n){re.escape(markup.line_start)}", text):
        raise ctx.fail(
            call, f"the value holds {markup.line_start} at a line's start, where it would end the value", key
        )
    return text


_QWEN_MARKUP: Final = _Markup(
    "</parameter>", re.compile(r"</parameter>\s*(?:<parameter=|</function>)"), line_start="<parameter="
)


def _qwen3_coder(ctx: _Context, calls: list[_Call], gaps: list[str], seed: bool) -> str:
    start, end = ("<seed:tool_call>", "</seed:tool_call>") if seed else ("<tool_call>", "</tool_call>")
    inline = ctx.style == "inline"
    markup = replace(_QWEN_MARKUP, python_scalars=ctx.style == "python_scalars")
    blocks = []
    for call in calls:
        lines = [start, f"<function={_name(ctx, call)}>"]
        for key, value in call.arguments.items():
            text = _raw(ctx, call, key, value, markup)
            if inline:
                # Inline, one newline after the tag would be read as the delimiter the newline layout writes.
                if text.startswith("\n"):
                    raise ctx.fail(call, "an inline value cannot start with a newline (read as a delimiter)", key)
                lines.append(f"<parameter={key}>{text}</parameter>")
            else:
                lines.append(f"<parameter={key}>\n{text}\n</parameter>")
        blocks.append("\n".join([*lines, "</function>", end]))
    return _joined(blocks, gaps, "\n")


_MINIMAX_MARKUP: Final = _Markup(
    "</parameter>",
    re.compile(r"</parameter>\s*(?:<parameter name=|</invoke>)"),
    line_start="<parameter name=",
    key_refused='"<>\r\n',
)


def _minimax_m2(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    def block(group: list[_Call]) -> str:
        lines = ["<minimax:tool_call>"]
        for call in group:
            lines.append(f'<invoke name="{_name(ctx, call)}">')
            for key, value in call.arguments.items():
                lines.append(f'<parameter name="{key}">{_raw(ctx, call, key, value, _MINIMAX_MARKUP)}</parameter>')
            lines.append("</invoke>")
        return "\n".join([*lines, "</minimax:tool_call>"])

    return _grouped(calls, gaps, block)


_GLM_MARKUP: Final = _Markup("</arg_value>", re.compile(r"</arg_value>\s*(?:<arg_key>|</tool_call>)"))


def _glm(ctx: _Context, calls: list[_Call], gaps: list[str], spaced: bool) -> str:
    separator = "\n" if spaced else ""
    blocks = []
    for call in calls:
        parts = [f"<tool_call>{_name(ctx, call)}"]
        for key, value in call.arguments.items():
            text = _raw(ctx, call, key, value, _GLM_MARKUP)
            parts += [f"<arg_key>{key}</arg_key>", f"<arg_value>{text}</arg_value>"]
        blocks.append(separator.join([*parts, "</tool_call>"]))
    return _joined(blocks, gaps, separator)


_DSML: Final = "｜DSML｜"
_DSML_MARKUP: Final = _Markup(
    f"</{_DSML}parameter>", re.compile(f"</{_DSML}(?:parameter|invoke)>"), key_refused='"<>\r\n'
)


def _deepseek_dsml(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    tag = "tool_calls" if ctx.style == "v4" else "function_calls"

    def block(group: list[_Call]) -> str:
        lines = [f"<{_DSML}{tag}>"]
        for call in group:
            lines.append(f'<{_DSML}invoke name="{_name(ctx, call)}">')
            for key, value in call.arguments.items():
                text = _raw(ctx, call, key, value, _DSML_MARKUP)
                kind = "true" if isinstance(value, str) else "false"
                lines.append(f'<{_DSML}parameter name="{key}" string="{kind}">{text}</{_DSML}parameter>')
            lines.append(f"</{_DSML}invoke>")
        return "\n".join([*lines, f"</{_DSML}{tag}>"])

    return _grouped(calls, gaps, block)


# ----------------------------------------------------------------------------------------------- Gemma dialects

# Each Gemma dialect's start marker, end marker and string quote token.
_GEMMA: Final = {
    "gemma4": ("<|tool_call>", "<tool_call|>", '<|"|>'),
    "functiongemma": ("<start_function_call>", "<end_function_call>", "<escape>"),
}
# What a bare key cannot hold: JSON's whitespace and the grammar's punctuation (and `<`, a quote token's start).
_GEMMA_KEY_REFUSED: Final = " \t\r\n:,{}[]<"


def _gemma_value(ctx: _Context, call: _Call, key: str, value: Any, quote: str) -> str:
    """A value as the templates' ``format_argument`` writes it: strings quoted by the token, bare keys, JSON else."""
    if isinstance(value, str):
        if quote in value:
            raise ctx.fail(call, f"the string holds {quote}, which would end it", key)
        return quote + value + quote
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(ctx, call, key, item, quote) for item in value) + "]"
    if isinstance(value, dict):
        return _gemma_object(ctx, call, value, quote)
    return _json(value)  # numbers, true, false, null: bare, as JSON writes them


def _gemma_object(ctx: _Context, call: _Call, value: dict[str, Any], quote: str) -> str:
    members = []
    for key, item in value.items():
        if not key or any(character in _GEMMA_KEY_REFUSED for character in key):
            raise ctx.fail(
                call, f"a key this dialect writes bare must be non-empty without {_GEMMA_KEY_REFUSED!r}", key
            )
        members.append(f"{key}:{_gemma_value(ctx, call, key, item, quote)}")
    return "{" + ",".join(members) + "}"


def _gemma(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    start, end, quote = _GEMMA[ctx.dialect]
    blocks = [f"{start}call:{_name(ctx, call)}{_gemma_object(ctx, call, call.arguments, quote)}{end}" for call in calls]
    return _joined(blocks, gaps, "")


# ----------------------------------------------------------------------------------------------- JSON dialects


def _hermes(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    blocks = []
    for call in calls:
        if ctx.style == "compact":
            blocks.append(
                f"<tool_call>{_json({'name': call.name, 'arguments': call.arguments}, compact=True)}</tool_call>"
            )
        else:
            members = {"name": call.name, "arguments": call.arguments}
            if ctx.style == "arguments_first":  # Granite's order
                members = {"arguments": call.arguments, "name": call.name}
            close = "</tool_call>" if ctx.style == "hermes2pro" else "\n</tool_call>"  # Hermes 2 Pro: no newline
            blocks.append(f"<tool_call>\n{_json(members)}{close}")
    return _joined(blocks, gaps, "\n")


def _llama3_json(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    member = "arguments" if ctx.style == "arguments" else "parameters"
    tag = "<|python_tag|>" if ctx.style == "python_tag" else ""
    blocks = [tag + _json({"name": call.name, member: call.arguments}) for call in calls]
    # Bare calls are separated by "; " (Llama 3.1's parallel calls) or a newline; tagged ones by the repeated tag.
    return _joined(blocks, gaps, "" if tag else "\n" if ctx.style == "newline" else "; ")


def _mistral_id(ctx: _Context, call: _Call) -> str:
    if call.id is None or not _MISTRAL_ID.fullmatch(call.id):
        raise ctx.fail(call, f"a Mistral call id is 9 letters or digits; got {call.id!r}")
    return call.id


def _mistral(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    if ctx.style == "pre_v11":

        def array(group: list[_Call]) -> str:
            elements = []
            for call in group:
                element: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
                if call.id is not None:  # Nemo writes each call's id; 7B v0.3 none
                    element["id"] = _mistral_id(ctx, call)
                elements.append(element)
            return f"[TOOL_CALLS] {_json(elements)}"

        return _grouped(calls, gaps, array)
    blocks = []
    for call in calls:
        head = f"[TOOL_CALLS]{_name(ctx, call)}"
        if ctx.style == "v11_call_id":
            head += f"[CALL_ID]{_mistral_id(ctx, call)}[ARGS]"
        elif ctx.style == "v11":
            head += "[ARGS]"
        blocks.append(head + _json(call.arguments))
    return _joined(blocks, gaps, "")


# ------------------------------------------------------------------------------------- marker + JSON array

# What opens (and closes) each dialect's array of calls, by style.
_ARRAY_MARKERS: Final[Mapping[tuple[str, str], tuple[str, str]]] = {
    ("granite", "token"): ("<|tool_call|>", ""),
    ("granite", "text"): ("<tool_call> ", ""),  # Granite 3.1 writes no close tag
    ("granite", "arguments_first"): ("<|tool_call|>", ""),
    ("phi4_mini", "template"): ("functools", ""),
    ("xlam", "bare"): ("", ""),
    ("xlam", "fence"): ("```json\n", "\n```"),
    ("xlam", "tool_calls"): ("[TOOL_CALLS]", ""),
    ("xlam", "tool_call"): ("<tool_call>", "</tool_call>"),
    ("apriel", "template"): ("<tool_calls>", "</tool_calls>"),
}


def _json_array(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    start, end = _ARRAY_MARKERS[ctx.dialect, ctx.style]

    def element(call: _Call) -> dict[str, Any]:
        if ctx.style == "arguments_first":  # Granite 3.x's order (vLLM's granite tests)
            return {"arguments": call.arguments, "name": call.name}
        return {"name": call.name, "arguments": call.arguments}

    return _grouped(calls, gaps, lambda group: start + _json([element(call) for call in group]) + end)


def _cohere_command(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    def element(call: _Call) -> str:
        # The template numbers the calls of a turn from 0 when none carries an id of its own.
        call_id = str(call.index) if call.id is None else call.id
        return "    " + _json({"tool_call_id": call_id, "tool_name": call.name, "parameters": call.arguments})

    def action(group: list[_Call]) -> str:
        return "<|START_ACTION|>[\n" + ",\n".join(map(element, group)) + "\n]<|END_ACTION|>"

    return _grouped(calls, gaps, action)


_DEEPSEEK: Final = {
    "calls_begin": "<｜tool▁calls▁begin｜>",
    "calls_end": "<｜tool▁calls▁end｜>",
    "call_begin": "<｜tool▁call▁begin｜>",
    "call_end": "<｜tool▁call▁end｜>",
    "sep": "<｜tool▁sep｜>",
}


def _deepseek(ctx: _Context, calls: list[_Call], gaps: list[str], fenced: bool) -> str:
    marks = _DEEPSEEK

    def one(call: _Call) -> str:
        name = _name(ctx, call)
        if fenced:
            close = "```" if ctx.style == "tight_fence" else "\n```"
            body = f"function{marks['sep']}{name}\n```json\n{_json(call.arguments)}{close}"
        else:
            body = f"{name}{marks['sep']}{_json(call.arguments)}"
        return f"{marks['call_begin']}{body}{marks['call_end']}"

    def section(group: list[_Call]) -> str:
        # V3's template puts a newline between calls, V3.1's none.
        return marks["calls_begin"] + ("\n" if fenced else "").join(map(one, group)) + marks["calls_end"]

    return _grouped(calls, gaps, section)


_KIMI_ID: Final = re.compile(r"(?:functions\.)?(.+):[0-9]+")


def _kimi_k2(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    def one(call: _Call) -> str:
        name = _name(ctx, call)
        call_id = f"functions.{name}:{call.index}"  # the counter Kimi's calls carry, from 0 in the turn
        if call.id is not None:
            match = _KIMI_ID.fullmatch(call.id)
            if match is None or match.group(1) != name:
                raise ctx.fail(call, f"a Kimi call id is functions.{name}:IDX or {name}:IDX; got {call.id!r}")
            call_id = call.id
        return f"<|tool_call_begin|>{call_id}<|tool_call_argument_begin|>{_json(call.arguments)}<|tool_call_end|>"

    def section(group: list[_Call]) -> str:
        return "<|tool_calls_section_begin|>" + "".join(map(one, group)) + "<|tool_calls_section_end|>"

    return _grouped(calls, gaps, section)


# --------------------------------------------------------------------------------------------------- pythonic

_PYTHONIC_WRAPPERS: Final = {
    "bare": ("", ""),
    "llama4": ("<|python_start|>", "<|python_end|>"),
    "lfm2": ("<|tool_call_start|>", "<|tool_call_end|>"),
}


def _literal(value: Any, double_quoted: bool) -> str:
    """A JSON value as a Python literal: ``repr``'s (True/False/None), strings in double quotes for LFM2."""
    if not double_quoted:
        return repr(value)
    if isinstance(value, str):
        return _json(value)  # JSON's escapes are all Python escapes
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item, True) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json(key)}: {_literal(item, True)}" for key, item in value.items()) + "}"
    return repr(value)


def _pythonic(ctx: _Context, calls: list[_Call], gaps: list[str]) -> str:
    start, end = _PYTHONIC_WRAPPERS[ctx.style]

    def one(call: _Call) -> str:
        if not call.name.isidentifier() or keyword.iskeyword(call.name):
            raise ctx.fail(call, "a pythonic call's name is a Python identifier")
        arguments = []
        for key, value in call.arguments.items():
            if not key.isidentifier() or keyword.iskeyword(key):
                raise ctx.fail(call, "a pythonic keyword argument's name is a Python identifier", key)
            arguments.append(f"{key}={_literal(value, ctx.style == 'lfm2')}")
        return f"{call.name}({', '.join(arguments)})"

    def call_list(group: list[_Call]) -> str:
        return f"{start}[{', '.join(map(one, group))}]{end}"

    return _grouped(calls, gaps, call_list)


# ---------------------------------------------------------------------------------------------------- harmony


def _harmony(ctx: _Context, calls: list[_Call], gaps: list[str], before: str, after: str, reasoning: str | None) -> str:
    """A gpt-oss turn: messages after the prompt's ``<|start|>assistant``, reasoning and text as channels."""
    messages: list[str] = []
    if reasoning is not None:
        messages.append(f"<|channel|>analysis<|message|>{reasoning}<|end|>")
    if before:
        messages.append(f"<|channel|>commentary<|message|>{before}<|end|>")
    for position, call in enumerate(calls):
        recipient = f"to=functions.{_name(ctx, call)}"
        if ctx.style == "recipient_first":
            header = f" {recipient}<|channel|>commentary json"
        else:
            header = f"<|channel|>commentary {recipient} <|constrain|>json"
        messages.append(f"{header}<|message|>{_json(call.arguments)}<|call|>")
        if position < len(gaps) and gaps[position]:
            messages.append(f"<|channel|>commentary<|message|>{gaps[position]}<|end|>")
    if after:
        messages.append(f"<|channel|>final<|message|>{after}<|return|>")
    return "<|start|>assistant".join(messages)


# ------------------------------------------------------------------------------------------------------ render

_Writer = Callable[[_Context, list[_Call], list[str]], str]

_WRITERS: Final[Mapping[str, _Writer]] = {
    "hermes": _hermes,
    "qwen3_coder": lambda ctx, calls, gaps: _qwen3_coder(ctx, calls, gaps, seed=False),
    "seed_oss": lambda ctx, calls, gaps: _qwen3_coder(ctx, calls, gaps, seed=True),
    "llama3_json": _llama3_json,
    "mistral": _mistral,
    "pythonic": _pythonic,
    "minimax_m2": _minimax_m2,
    "deepseek_v3": lambda ctx, calls, gaps: _deepseek(ctx, calls, gaps, fenced=True),
    "deepseek_v31": lambda ctx, calls, gaps: _deepseek(ctx, calls, gaps, fenced=False),
    "deepseek_dsml": _deepseek_dsml,
    "kimi_k2": _kimi_k2,
    "glm45": lambda ctx, calls, gaps: _glm(ctx, calls, gaps, spaced=True),
    "glm47": lambda ctx, calls, gaps: _glm(ctx, calls, gaps, spaced=False),
    **dict.fromkeys(("gemma4", "functiongemma"), _gemma),
    **dict.fromkeys(("granite", "phi4_mini", "xlam", "apriel"), _json_array),
    "cohere_command": _cohere_command,
}

#: Each dialect's reasoning markers (harmony's is its analysis channel; Llama 3 has none).
_REASONING: Final[Mapping[str, tuple[str, str] | None]] = {
    **dict.fromkeys(STYLES, _THINK),
    "seed_oss": ("<seed:think>", "</seed:think>"),
    "mistral": ("[THINK]", "[/THINK]"),
    "llama3_json": None,
    "harmony": None,
    "gemma4": ("<|channel>thought\n", "<channel|>"),
    "functiongemma": None,
    **dict.fromkeys(("granite", "phi4_mini", "apriel"), None),
    "cohere_command": ("<|START_THINKING|>", "<|END_THINKING|>"),
}


#: The dialects ``render`` writes reasoning in (``reasoning=``): all but ``llama3_json``, ``functiongemma``,
#: ``granite``, ``phi4_mini`` and ``apriel``.
REASONING_DIALECTS: Final = frozenset(name for name in STYLES if name == "harmony" or _REASONING[name] is not None)


def render(
    calls: Iterable[object],
    dialect: str,
    *,
    text_before: str = "",
    text_between: Sequence[str] = (),
    text_after: str = "",
    reasoning: str | None = None,
    reasoning_opened: bool = False,
    style: str | None = None,
) -> str:
    r"""The text a model of ``dialect``'s family writes for ``calls``, as its chat template renders them.

    The text is reasoning (when given, in the dialect's markers), ``text_before``, the calls with ``text_between``
    between them, then ``text_after``; prose is written exactly as given (markers in it are the caller's choice).
    Where no text lies between two calls the dialect's own separator is written (a newline between Hermes, Qwen3-Coder
    and GLM-4.5 blocks, ``; `` between bare Llama 3 calls, ``, `` in a pythonic list, nothing for the others); where
    text lies between calls of a dialect that groups them (a DeepSeek or Kimi section, a MiniMax or DSML block, a
    pythonic list, Mistral's pre-v11 array) the group is closed before the text and a new one opened after it.

    Values: JSON dialects write the arguments as ``tojson`` does (``, `` and ``: ``, characters unescaped; Hermes'
    ``compact`` style without spaces); raw-value dialects (``qwen3_coder``, ``seed_oss``, ``minimax_m2``, ``glm45``,
    ``glm47``, DSML's ``string="true"``) write a string exactly and any other value as JSON (``qwen3_coder``'s
    ``python_scalars`` style writes booleans and null as its template's ``|string`` does: ``True``, ``None``);
    ``pythonic`` writes Python literals (``repr``; LFM2's ``lfm2`` style double-quotes strings); ``gemma4`` and
    ``functiongemma`` write keys bare and strings between their quote token (``<|"|>``, ``<escape>``), any other
    value as JSON, with no whitespace.

    Ids: ``kimi_k2`` writes each call's id, ``functions.NAME:IDX`` (IDX its position among ``calls``) when none is
    given; ``mistral`` writes a 9-character id after ``[CALL_ID]`` (style ``v11_call_id``, required) and in a pre-v11
    element (when given, as Nemo does); ``cohere_command`` writes each call's ``tool_call_id``, its position among
    ``calls`` when none is given. Every other dialect and style carries no id, and a given one is not written.

    Args:
        calls: ``(name, arguments)`` or ``(name, arguments, id)`` tuples, or call objects with ``name``,
            ``arguments`` (a dict) and ``id`` (``toolwire.ToolCall``).
        dialect: One of ``STYLES``.
        text_before: Text before the first call.
        text_between: One text per gap between calls (empty: none anywhere).
        text_after: Text after the last call.
        reasoning: Reasoning written first, in the dialect's reasoning markers (``<think>`` … ``</think>``,
            ``<seed:think>``, Mistral's ``[THINK]``, Gemma 4's thought channel, Harmony's ``analysis`` channel).
        reasoning_opened: The prompt opened reasoning (Qwen3.5's, DeepSeek R1's, Kimi-K2-Thinking's generation
            prompt ends with ``<think>``), so the text starts inside it: its opening marker is not written, its closing
            one is (after ``reasoning``, or alone). Read it with the parsers' ``reasoning=True``.
        style: One of ``STYLES[dialect]`` (default its first).

    Returns:
        The text, as the model generates it (for ``harmony``: after the prompt's ``<|start|>assistant``).

    Raises:
        ValueError: An unknown dialect or style; reasoning (or ``reasoning_opened``) for a dialect without it; ``text_between`` of the wrong
            length; or a call the dialect cannot carry faithfully (a name or key its markup cannot write, a raw value
            holding the closing tag where it would end the value, a Mistral or Kimi id of the wrong form, a value
            with no JSON form, a lone surrogate), naming the dialect, the call and the key.
        TypeError: A call of no recognizable shape, or a value that is not JSON.

    Example:
        >>> from toolwire.dialects import render
        >>> print(render([("get_weather", {"city": "Paris", "days": 3})], "qwen3_coder", text_before="Checking.\n"))
        Checking.
        <tool_call>
        <function=get_weather>
        <parameter=city>
        Paris
        </parameter>
        <parameter=days>
        3
        </parameter>
        </function>
        </tool_call>
        >>> render([("get_weather", {"city": "Paris"})], "kimi_k2")
        '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
    """
    if dialect not in STYLES:
        raise ValueError(f"unknown dialect {dialect!r}; the dialects are {', '.join(STYLES)}")
    chosen = STYLES[dialect][0] if style is None else style
    if chosen not in STYLES[dialect]:
        raise ValueError(f"{dialect} has no style {style!r}; its styles are {', '.join(STYLES[dialect])}")
    ctx = _Context(dialect, chosen)
    read = _read_calls(calls, f"{dialect} ({chosen}): ")
    gaps = _gaps(text_between, len(read))
    if dialect == "harmony":
        if reasoning_opened:  # each message names its channel: the prompt opens none
            raise ValueError("harmony's prompt opens a message, not reasoning; pass reasoning_opened=False")
        return _harmony(ctx, read, gaps, text_before, text_after, reasoning)
    markers = _REASONING[dialect]
    thought = ""
    if reasoning is not None or reasoning_opened:
        if markers is None:
            raise ValueError(f"{dialect} has no reasoning markers; pass reasoning=None and reasoning_opened=False")
        thought = ("" if reasoning_opened else markers[0]) + (reasoning or "") + markers[1]
    return thought + text_before + _WRITERS[dialect](ctx, read, gaps) + text_after
