"""``streams``: given calls rendered as the quirky streams providers send."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from toolwire.dialects import STYLES
from toolwire.formats import FORMATS
from toolwire.strategies._calls import call_specs
from toolwire.strategies._chat import chat_cases
from toolwire.strategies._dialects import DIALECT_FORMATS, dialect_streams, usable_styles
from toolwire.strategies._formats import FORMAT_CASES

__all__ = ["DIALECT_FORMATS", "STREAM_FORMATS", "streams"]

#: The wire formats ``streams`` renders calls in (the format names of ``toolwire.reassemble(format=...)`` whose events
#: carry calls).
STREAM_FORMATS = tuple(entry.name for entry in FORMATS.values() if entry.calls)
_MULTI_CHOICE = tuple(entry.name for entry in FORMATS.values() if entry.choices)


def streams(
    calls: Iterable[object],
    *,
    format: str | None = None,
    dialect: str | None = None,
    noise: bool = True,
    extras: bool = True,
    finish: bool | None = None,
    hostile: bool = False,
) -> st.SearchStrategy[list[Any]]:
    """Streams of ``format`` that reassemble into exactly ``calls``, as providers really send them.

    Each stream is a list of chunk (event) dicts, as an SDK yields them once parsed: feed it to your own stream
    handling, or to ``toolwire.reassemble``. What varies, as it varies between providers and runs:

    * the arguments text: as given (JSON text), or the dict rendered compact, spaced, indented, ASCII-escaped or not;
      cut into fragments anywhere (whole, every character, random cuts), empty fragments included;
    * parallel calls: interleaved by ``index`` (Chat Completions; indices from 0, from 1, sparse, or all 0 with one
      call after the other) or by ``output_index`` (Responses); blocks one after another (Anthropic, Bedrock); whole
      calls in batches (Ollama) or parts (Gemini, with candidates interleaved when calls name several choices; a call
      without empty objects or arrays may stream its arguments as Vertex does, ``partialArgs`` by JSON path);
    * placeholders and quirks (``noise``): ``id: ""``, ``"null"`` or ``None`` and ``type``/``name`` placeholders on
      later fragments, the name arriving on a later fragment, fragments without ``index``, chunks with empty
      ``choices``, usage-only chunks, Azure's content-filter chunk, pings, keep-alives and unknown event types;
    * content around the calls (``extras``): text, thinking/reasoning blocks, server tool blocks, built-in tool
      items, Gemini code parts;
    * the finish: ``finish=True`` always sends the one that fits (``tool_calls``, ``tool_use``, ``STOP``...),
      ``None`` draws it as real streams end (sometimes none, sometimes ``end_turn`` after calls), ``False`` never
      sends one.

    With ``dialect`` (a name of ``toolwire.dialects.STYLES``), the calls are instead written into the model's text
    as that dialect's models write them (``toolwire.dialects.render``, in a drawn style the calls fit), with text
    before, between and after them and reasoning (``extras``), and the text is streamed as ``format`` carries it
    (one of ``DIALECT_FORMATS``, default ``"text"``): ``"text"``, a list of ``str`` deltas; ``"openai-completions"``,
    legacy completions chunks (``choices[].text``); ``"ollama"``, ``/api/generate`` lines (``response``);
    ``"openai-chat"``, chunks whose ``delta.content`` carries the calls (a server that did not parse them). The text
    is split whole, one character at a time, at random places or in token-sized (~4 character) pieces. Prose never
    holds marker-like text, so the text reads back as exactly the calls, their ids where the dialect carries them
    (Kimi's ``functions.NAME:IDX``, IDX the call's position, when none is given; Mistral's 9-character ids), the
    text and the reasoning. ``hostile=True`` applies one mutation to each text: a marker of the dialect inserted
    into the prose, a marker duplicated, or the text cut anywhere; what must still hold is that no call is handed
    over valid that is not one of ``calls`` (prose and duplicated markers open no call; a cut call is never valid)
    and that every split of one text gives the same result.

    Calls come out of the stream in the order given (per choice). A call given without an id is sent with a
    generated one (``call_<n>``, ``toolu_<n>``, ``tooluse_<n>``) where the format requires ids, and without one where
    they are optional (Gemini, Ollama: the reassembled call then carries ``ts_<choice>_<seq>``). Formats that carry
    arguments as a value (Gemini, Ollama, an Anthropic input sent whole) give the canonical text as
    ``arguments_json``; the others give the text as streamed. Some formats attach provider metadata to a call
    (``extra``: Responses ``item_id``, an Anthropic ``caller``, a Gemini ``thought_signature``).

    Args:
        calls: ``(name, arguments)`` or ``(name, arguments, id)`` tuples, mappings with ``name`` and ``arguments``
            (or an OpenAI ``tool_calls`` entry), or call objects (``toolwire.ToolCall``, SDK tool calls).
            ``arguments`` is a dict or its JSON text (streamed exactly as given). A call object's ``choice`` picks
            its choice (Chat Completions) or candidate (Gemini).
        format: One of ``STREAM_FORMATS`` (default ``"openai-chat"``), or with ``dialect`` one of
            ``DIALECT_FORMATS`` (default ``"text"``).
        dialect: Write the calls into the text in this dialect instead of the format's own call fields.
        noise: Whether streams may carry the quirks and noise chunks listed above.
        extras: Whether streams may carry content other than the calls.
        finish: Whether a finish reason is sent: always (True), drawn (None), or never (False).
        hostile: With ``dialect``, mutate each text as described above.

    Returns:
        A strategy for lists of chunk dicts (fresh copies: mutate them freely).

    Raises:
        ValueError: An unknown format or dialect, an arguments text that is not a JSON object, a choice other than 0
            in a format with one choice, ``hostile`` without ``dialect``, or calls no style of ``dialect`` can write
            (the refusal names the call and key).
        TypeError: A call of no recognizable shape, or arguments that are not JSON.

    Example:
        >>> from hypothesis import given
        >>> import toolwire
        >>> from toolwire.strategies import streams
        >>> @given(streams([("get_weather", {"city": "Paris"})], format="anthropic-messages"))
        ... def test_stream_handling(chunks):
        ...     calls = list(toolwire.reassemble(chunks))
        ...     assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})]
        >>> test_stream_handling()
    """
    if dialect is not None:
        return _dialect_streams(calls, dialect, format or "text", extras=extras, finish=finish, hostile=hostile)
    if hostile:
        raise ValueError("hostile=True mutates a dialect's text: pass dialect= too")
    format = format or "openai-chat"
    if format not in STREAM_FORMATS:
        raise ValueError(f"format must be one of {', '.join(STREAM_FORMATS)}; got {format!r}")
    specs = call_specs(calls)
    if format not in _MULTI_CHOICE:
        for position, spec in enumerate(specs):
            if spec.choice:
                raise ValueError(
                    f"calls[{position}]: choice {spec.choice}, but {format} streams have one choice; only "
                    f"{' and '.join(_MULTI_CHOICE)} have several"
                )
    if format == "openai-chat":
        cases = chat_cases(specs, noise=noise, content=extras, finish=finish, open_in_order=True)
        return cases.map(lambda case: copy.deepcopy(case.chunks))
    options: dict[str, Any] = {"noise": noise, "extras": extras, "finish": finish}
    if format == "openai-responses":
        options["open_in_order"] = True
    return FORMAT_CASES[format](specs, **options).map(lambda case: copy.deepcopy(case.events))


def _dialect_streams(
    calls: Iterable[object], dialect: str, format: str, *, extras: bool, finish: bool | None, hostile: bool
) -> st.SearchStrategy[list[Any]]:
    if dialect not in STYLES:
        raise ValueError(f"dialect must be one of {', '.join(STYLES)}; got {dialect!r}")
    if format not in DIALECT_FORMATS:
        raise ValueError(f"with a dialect, format must be one of {', '.join(DIALECT_FORMATS)}; got {format!r}")
    specs = call_specs(calls)
    styles = usable_styles(specs, dialect)
    return dialect_streams(specs, dialect, styles, format=format, extras=extras, finish=finish, hostile=hostile)
