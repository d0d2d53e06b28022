"""From a model's answer to a ``Turn``, and from a turn to the next request's messages.

``turn_from_response`` reads whatever the runner got back (SDK objects, dicts, raw SSE bytes or byte reads, a buffered
JSON body) once: the calls through ``toolwire.reassemble`` (streamed) or ``toolwire.normalize`` (buffered), checked
against the case's tools, and the shape through ``toolwire.contract.check_stream``/``check_completion``.
``next_messages`` writes the assistant turn back (``StreamResult.to_history``, every call with its id echoed) and
answers each call: a valid one with the case's canned result, an invalid one with ``InvalidToolCall.to_tool_result``,
which tells the model what was wrong.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from toolwire._common._json import compact
from toolwire._model import InvalidToolCall, StreamResult, ToolCall
from toolwire._pipeline._bound import core
from toolwire.cases._model import Case, Turn
from toolwire.contract import SUPPORTED_FORMATS, check_completion, check_stream
from toolwire.errors import MalformedChunkError
from toolwire.formats import format_of, spell_tool_choice
from toolwire.registry import ToolRegistry

__all__ = ["TURN_FORMATS", "next_messages", "tool_choice_for", "turn_from_response"]

#: The wire formats a case runs in: those the contract checks read.
TURN_FORMATS: Final = SUPPORTED_FORMATS

_RAW: Final = (bytes, bytearray, memoryview)


def _check_format(format: str) -> None:
    if format not in TURN_FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, TURN_FORMATS))}; got {format!r}")


def tool_choice_for(choice: Any, format: str) -> Any:
    """A case's ``tool_choice`` in a wire format's own spelling, the format checked first.

    The choices and what is sent for each are ``toolwire.formats.spell_tool_choice``'s.

    Raises:
        ValueError: An unknown format or choice.
    """
    _check_format(format)
    return spell_tool_choice(choice, format)


def _stream_source(response: Any) -> bytes | list[Any]:
    """The whole stream, read once, so that both the reassembly and the shape check see all of it."""
    if isinstance(response, _RAW):
        return bytes(response)
    if isinstance(response, str):
        return response.encode("utf-8")
    if isinstance(response, io.IOBase):
        data = response.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if isinstance(response, Mapping) or not isinstance(response, Iterable):
        raise TypeError(
            "a streamed response must be raw SSE bytes, byte reads, a binary file or an iterable of chunks (an SDK "
            f"stream, dicts); got {type(response).__name__} (pass stream=False for a buffered response)"
        )
    items = list(response)
    if items and all(isinstance(item, (*_RAW, str)) for item in items):
        return b"".join(item.encode("utf-8") if isinstance(item, str) else bytes(item) for item in items)
    return items


def _buffered_source(response: Any) -> Any:
    if isinstance(response, (*_RAW, str)):
        try:
            return json.loads(bytes(response) if isinstance(response, _RAW) else response)
        except ValueError as error:
            raise ValueError(f"a buffered response given as text must be JSON: {error}") from error
    return response


def _reassembled(source: bytes | list[Any], registry: ToolRegistry | None, choice: Any, format: str) -> StreamResult:
    stream = core.reassemble(
        source, tools=registry, tool_choice=choice, on_invalid="yield", format=format_of(format).name
    )
    calls: list[ToolCall | InvalidToolCall] = []
    try:
        for call in stream:
            calls.append(call)
        return stream.result
    except MalformedChunkError:
        # The shape check reports the malformed chunk (well_formed); the calls read before it are kept.
        valid = tuple(call for call in calls if isinstance(call, ToolCall))
        invalid = tuple(call for call in calls if isinstance(call, InvalidToolCall))
        return StreamResult(calls=valid, invalid_calls=invalid, format=format)


def _normalized(data: Any, registry: ToolRegistry | None, choice: Any, format: str) -> StreamResult:
    try:
        return core.normalize(data, tools=registry, tool_choice=choice, format=format_of(format).name)
    except MalformedChunkError:
        return StreamResult(format=format)  # the shape check says what is wrong with it


def _turn_calls(result: StreamResult) -> tuple[ToolCall | InvalidToolCall, ...]:
    choice = result.choices[0].choice if result.choices else 0
    every: list[ToolCall | InvalidToolCall] = [*result.calls, *result.invalid_calls]
    return tuple(sorted((call for call in every if call.choice == choice), key=lambda call: call.seq))


def turn_from_response(
    response: Any,
    *,
    format: str,
    tools: Any,
    stream: bool,
    tool_choice: Any = None,
) -> Turn:
    """Read one answer of a model into a ``Turn``: its calls, text, finish reason and contract report.

    Args:
        response: Streamed: raw SSE bytes (or text), byte reads, a binary file, an SDK stream or a list of chunk
            objects or dicts. Buffered: a dict, an SDK object, or the JSON body as bytes or text.
        format: ``"openai-chat"``, ``"openai-responses"`` or ``"anthropic-messages"``.
        tools: The tools the request declared (a ``ToolRegistry`` or anything it loads); calls are checked
            against them.
        stream: Whether the answer was streamed.
        tool_choice: The request's ``tool_choice``, as a case spells it or in the provider's shape; a forced tool is
            checked (``forced_tool``).

    Returns:
        The turn. A response that breaks its format's shape still gives a turn: the report says what is wrong.

    Raises:
        ValueError: An unknown format, or a buffered body that is not JSON.
        TypeError: A response of the wrong kind for ``stream``.
    """
    _check_format(format)
    registry = None if tools is None else ToolRegistry.load(tools)
    choice = tool_choice_for(tool_choice, format)
    if stream:
        source = _stream_source(response)
        result = _reassembled(source, registry, choice, format)
        report = check_stream(source, registry, forced=choice, format=format)
    else:
        data = _buffered_source(response)
        result = _normalized(data, registry, choice, format)
        report = check_completion(data, registry, forced=choice, format=format)
    return Turn(_turn_calls(result), result.text, result.finish_reason, report, result, format)


def _content(value: Any) -> str:
    return value if isinstance(value, str) else compact(value, allow_nan=True)


def _answer(case: Case, call: ToolCall | InvalidToolCall, format: str) -> dict[str, Any]:
    if isinstance(call, InvalidToolCall):
        return call.to_tool_result(format_of(format).name)
    missing = call.name not in case.tool_results
    content = _content(
        {"error": f"the case file gives no tool_results entry for {call.name!r} (case {case.name!r})"}
        if missing
        else case.tool_results[call.name]
    )
    if format == "openai-responses":
        return {"type": "function_call_output", "call_id": call.id, "output": content}
    if format == "anthropic-messages":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": content}
        if missing:
            block["is_error"] = True
        return block
    return {"role": "tool", "tool_call_id": call.id, "content": content}


def next_messages(case: Case, messages: Sequence[Mapping[str, Any]], turn: Turn, format: str) -> list[dict[str, Any]]:
    """The messages of the next request: ``messages``, the assistant turn, and one tool result per call.

    Args:
        case: The case (its ``tool_results`` answer the valid calls).
        messages: The messages (Responses: input items) of the request that got ``turn``, in ``format``.
        turn: The answer.
        format: The wire format of the conversation.

    Returns:
        A new list; Anthropic tool results go in one ``user`` message, the other formats' one item each.

    Raises:
        ValueError: An unknown format.
    """
    _check_format(format)
    out = [dict(message) for message in messages]
    result = turn.result
    if result is None:
        result = StreamResult(
            calls=tuple(call for call in turn.calls if isinstance(call, ToolCall)),
            invalid_calls=tuple(call for call in turn.calls if isinstance(call, InvalidToolCall)),
            finish_reason=turn.finish_reason,
            text=turn.text,
            format=format,
        )
    history = result.to_history(format_of(format).name)
    if format == "openai-responses":
        out.extend(history)
    else:
        out.append(history)
    answers = [_answer(case, call, format) for call in turn.calls]
    if answers and format == "anthropic-messages":
        out.append({"role": "user", "content": answers})
    else:
        out.extend(answers)
    return out
