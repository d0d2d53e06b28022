"""``streams``: given calls rendered as the quirky streams providers send."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from toolwire.formats import FORMATS
from toolwire.strategies._calls import call_specs
from toolwire.strategies._chat import chat_cases
from toolwire.strategies._formats import FORMAT_CASES

__all__ = ["STREAM_FORMATS", "streams"]

#: The wire formats ``streams`` renders calls in (the format names of ``toolwire.reassemble(format=...)`` whose events
#: carry calls).
STREAM_FORMATS = tuple(entry.name for entry in FORMATS.values() if entry.calls)
_MULTI_CHOICE = tuple(entry.name for entry in FORMATS.values() if entry.choices)


def streams(
    calls: Iterable[object],
    *,
    format: str = "openai-chat",
    noise: bool = True,
    extras: bool = True,
    finish: bool | None = None,
) -> st.SearchStrategy[list[dict[str, Any]]]:
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
        format: One of ``STREAM_FORMATS``.
        noise: Whether streams may carry the quirks and noise chunks listed above.
        extras: Whether streams may carry content other than the calls.
        finish: Whether a finish reason is sent: always (True), drawn (None), or never (False).

    Returns:
        A strategy for lists of chunk dicts (fresh copies: mutate them freely).

    Raises:
        ValueError: An unknown format, an arguments text that is not a JSON object, or a choice other than 0 in a
            format with one choice.
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
