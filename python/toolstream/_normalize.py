"""Buffered (non-streamed) responses read into the same ``StreamResult`` a stream gives (``normalize``).

A buffered OpenAI chat completion is the stream it stands for, in one chunk: each choice's ``message`` read as its
``delta``, each call at its position as its ``index`` (buffered responses carry none). The engine then applies every
rule of a stream, so a call comes out the same way whichever way it was received.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolstream._model import Limits, StreamResult
from toolstream.errors import MalformedChunkError

__all__ = ["make_normalize"]

_FORMATS = ("openai-chat",)


def _get(value: Any, key: str) -> Any:
    """A field of a dict, a mapping or an SDK object; None when absent."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _as_list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    raise MalformedChunkError(0, where, f"expected a list, got {type(value).__name__}")


def _chat_chunk(response: Any) -> dict[str, Any]:
    """The one chunk a buffered chat completion stands for."""
    if isinstance(response, (str, bytes, bytearray, list, tuple)) or response is None:
        raise TypeError(
            "response must be a chat completion: a dict or the openai SDK's ChatCompletion; "
            f"got {type(response).__name__}"
        )
    choices = []
    for position, choice in enumerate(_as_list(_get(response, "choices"), "choices")):
        message = _get(choice, "message")
        delta: dict[str, Any] | Any = message
        if message is not None:
            calls = _as_list(_get(message, "tool_calls"), f"choices[{position}].message.tool_calls")
            delta = {
                "content": _get(message, "content"),
                "tool_calls": [
                    {
                        "index": _get(call, "index") if _get(call, "index") is not None else at,
                        "id": _get(call, "id"),
                        "type": _get(call, "type"),
                        "function": _get(call, "function"),
                    }
                    for at, call in enumerate(calls)
                ],
            }
        choices.append({"index": _get(choice, "index"), "delta": delta, "finish_reason": _get(choice, "finish_reason")})
    return {"choices": choices, "usage": _get(response, "usage"), "error": _get(response, "error")}


def make_normalize(reassemble: Callable[..., Any]) -> Callable[..., StreamResult]:
    """Build ``normalize`` over one implementation's ``reassemble``."""

    def normalize(
        response: Any,
        *,
        tools: Any = None,
        tool_choice: Any = None,
        format: str | None = None,
        limits: Limits | None = None,
    ) -> StreamResult:
        """The calls of a buffered response, checked as a stream's are, in the ``StreamResult`` a stream gives.

        Args:
            response: A buffered OpenAI chat completion (a dict or the openai SDK's ``ChatCompletion``). The other
                wire formats come with their stream decoders.
            tools: As for ``reassemble``: every call is checked against them.
            tool_choice: As for ``reassemble``.
            format: ``"openai-chat"`` (the default, and the only buffered format read so far).
            limits: As for ``reassemble``.

        Returns:
            The result: ``calls`` and ``invalid_calls`` (nothing is raised for them), ``finish_reason``, ``text``,
            ``usage`` and the findings. ``arguments`` is always a dict and ``arguments_json`` a string, whatever the
            provider sent (an object where a string is promised is ``ARGUMENTS_NOT_STRING``).

        Raises:
            MalformedChunkError: The response does not have the shape of its format (the path names the field).
            TypeError: ``response`` is not a response object.
        """
        if format is not None and format not in _FORMATS:
            raise ValueError(f"format must be one of {', '.join(map(repr, _FORMATS))} (or None); got {format!r}")
        chunk = _chat_chunk(response)
        stream = reassemble([chunk], tools=tools, tool_choice=tool_choice, on_invalid="yield", limits=limits)
        try:
            for _ in stream:
                pass
        except MalformedChunkError as error:
            # The chunk stands for the response: its paths name the response's own fields.
            path = error.path.replace(".delta", ".message")
            raise MalformedChunkError(error.chunk_number, path, error.problem) from None
        return stream.result  # type: ignore[no-any-return]

    return normalize
