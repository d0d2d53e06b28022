"""toolwire itself: the compiled core and, through the same API, the pure-Python reference.

Each returns what a user holds at the end: every ``ToolCall`` the stream yields (consumed into a list), or every
call's violations. The reference runs the same calls on ``toolwire.reference``, so that the two differ in nothing
but the implementation.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import toolwire
import toolwire.reference
from benches.inputs import sse, validation
from benches.inputs.formats import FormatStream
from benches.inputs.grid import Stream

# --- chunk dicts and SDK objects (the grid) ----------------------------------------------------------------------


def chunks(stream: Stream) -> list[toolwire.ToolCall]:
    return list(toolwire.reassemble(stream.feed()))


def sdk_chunks(stream: Stream) -> list[toolwire.ToolCall]:
    return list(toolwire.reassemble(stream.sdk_feed()))


def reference_chunks(stream: Stream) -> list[Any]:
    return list(toolwire.reference.reassemble(stream.feed()))


def chunks_with_tools(stream: Stream) -> list[toolwire.ToolCall]:
    """``chunks`` with every call validated against the grid's schemas (``tools=``), invalid ones yielded too."""
    return list(toolwire.reassemble(stream.feed(), tools=validation.grid_registry(), on_invalid="yield"))


def dropping(feed: Iterator[Any]) -> list[int]:
    """Each call's arguments size, the call dropped as soon as it is handed over (dispatch and forget: memory)."""
    sizes = []
    for call in toolwire.reassemble(feed):
        sizes.append(len(call.arguments_json))
        del call
    return sizes


# --- raw event-stream bytes ---------------------------------------------------------------------------------------


def sse_bytes(stream: Stream) -> list[toolwire.ToolCall]:
    return list(toolwire.reassemble(iter(sse.sse(stream).reads)))


def reference_sse_bytes(stream: Stream) -> list[Any]:
    return list(toolwire.reference.reassemble(iter(sse.sse(stream).reads)))


def format_bytes(fs: FormatStream) -> list[toolwire.ToolCall]:
    return list(toolwire.reassemble(iter(fs.reads), format=fs.format))


def reference_format_bytes(fs: FormatStream) -> list[Any]:
    return list(toolwire.reference.reassemble(iter(fs.reads), format=fs.format))


# --- the openai client's stream (the README's SDK example) --------------------------------------------------------


def sdk_client(stream: Stream) -> list[toolwire.ToolCall]:
    """``toolwire.reassemble(client.chat.completions.create(..., stream=True))``: the bypass reads the bytes."""
    from benches.contenders import sdks

    return list(toolwire.reassemble(sdks.create(stream)))


def sdk_client_objects(stream: Stream) -> list[toolwire.ToolCall]:
    """The same with the bypass switched off: the SDK's chunk objects, as before issue 18."""
    from benches.contenders import sdks
    from toolwire._pipeline import _sdk_bodies

    _sdk_bodies._BYPASS = False
    try:
        return list(toolwire.reassemble(sdks.create(stream)))
    finally:
        _sdk_bodies._BYPASS = True


def sdk_client_bytes(stream: Stream) -> list[toolwire.ToolCall]:
    """``toolwire.reassemble(response.iter_bytes())`` of the same response, asked through the client's raw response."""
    from benches.contenders import sdks

    sdks.serve(sdks.sse_reads(stream))
    response = sdks.served_openai().chat.completions.with_streaming_response.create(
        model="gpt-4o", messages=[{"role": "user", "content": "go"}], stream=True
    )
    with response as raw:
        return list(toolwire.reassemble(raw.http_response.iter_bytes()))


# --- validation of calls given as JSON text -----------------------------------------------------------------------


@cache
def registry() -> toolwire.ToolRegistry:
    """Every tool of the validation workload, its schemas compiled (cached on the registry) before any timing."""
    compiled = toolwire.ToolRegistry(list(validation.tools()))
    toolwire.validate_many([], compiled)
    return compiled


def validate_many(calls: validation.Calls) -> list[list[Any]]:
    """``toolwire.validate_many`` over the whole batch (the GIL released around it)."""
    return toolwire.validate_many(calls, registry())


def validate_loop(calls: validation.Calls) -> list[list[Any]]:
    """``toolwire.validate`` once per call, with the registry."""
    validate = toolwire.validate
    tools = registry()
    return [validate(name, text, tools) for name, text in calls]


@cache
def union_registry() -> toolwire.ToolRegistry:
    return toolwire.ToolRegistry(validation.RECURSIVE_TOOLS)


def union(arguments: str) -> list[Any]:
    """The violations of one ``tree`` call (the recursive union of issue 15)."""
    return toolwire.validate("tree", arguments, union_registry())


def reference_union(arguments: str) -> list[Any]:
    return toolwire.reference.validate("tree", arguments, union_registry())
