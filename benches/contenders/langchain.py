"""LangChain's documented way to gather a streamed tool call: ``gathered = gathered + chunk``, then ``tool_calls``.

langchain-openai builds one ``AIMessageChunk`` per chunk before the caller adds them up; here they are built once per
stream (``messages``), outside the timed region, as a real stream would pay for them elsewhere.
"""

from __future__ import annotations

from typing import Any

from benches.inputs.grid import Stream, feed_segments


def to_message(chunk: dict[str, Any]) -> Any:
    """An ``AIMessageChunk`` as langchain-openai's ``_convert_delta_to_message_chunk`` makes it from a chunk.

    (langchain-openai is not installed; this mirrors its code: ``tool_call_chunk(name=, args=, id=, index=)``
    for each raw tool call of the delta, then ``AIMessageChunk(content=, additional_kwargs=, id=,
    tool_call_chunks=)``; ``finish_reason`` and the model name go to ``response_metadata``.)
    """
    from langchain_core.messages import AIMessageChunk
    from langchain_core.messages.tool import tool_call_chunk

    choice = chunk["choices"][0]
    delta = choice["delta"]
    tool_call_chunks = [
        tool_call_chunk(
            name=rtc["function"].get("name"),
            args=rtc["function"].get("arguments"),
            id=rtc.get("id"),
            index=rtc["index"],
        )
        for rtc in delta.get("tool_calls") or ()
    ]
    metadata: dict[str, Any] = {"model_provider": "openai"}
    if choice.get("finish_reason"):
        metadata["finish_reason"] = choice["finish_reason"]
        metadata["model_name"] = chunk["model"]
    return AIMessageChunk(
        content=delta.get("content") or "",
        additional_kwargs={},
        id=chunk["id"],
        tool_call_chunks=tool_call_chunks,
        response_metadata=metadata,
    )


def messages(stream: Stream) -> list[Any]:
    """The stream as langchain-openai's ``AIMessageChunk`` objects (built once, outside the timed region)."""
    if "langchain" not in stream.cache:
        stream.cache["langchain"] = [to_message(chunk) for chunk in stream.feed()]
    built: list[Any] = stream.cache["langchain"]
    return built


def chunks(stream: Stream) -> Any:
    """``gathered = gathered + chunk`` over the stream's messages, then the merged message's ``tool_calls``."""
    gathered = None
    for message in feed_segments([(messages(stream), 1)]):
        gathered = message if gathered is None else gathered + message
    assert gathered is not None
    return gathered.tool_calls
