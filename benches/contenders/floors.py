"""What merely looking at the input costs, the bar the targets are relative to; and the output every reassembler builds.

A floor reads what a reassembler must read and does nothing else; it returns the last values it read, enough to
check that it read them. ``data_lines`` and ``orjson_events`` are the bytes floor's own framing, which the
hand-written loops over bytes (``loops``) share, and the parts the report times apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, repeat
from typing import Any

import orjson

from benches.inputs.grid import Call, Stream

# --- chunk dicts and SDK objects -----------------------------------------------------------------------------------


def fields(chunks: Iterator[dict[str, Any]]) -> tuple[Any, ...]:
    """Reads each chunk's tool-call fields and does nothing else: the cost of merely looking at the stream."""
    index = call_id = name = arguments = None
    for chunk in chunks:
        tool_calls = chunk["choices"][0]["delta"].get("tool_calls")
        if tool_calls:
            for tool_call in tool_calls:
                index = tool_call["index"]
                call_id = tool_call.get("id")
                function = tool_call.get("function")
                if function:
                    name = function.get("name")
                    arguments = function.get("arguments")
    return index, call_id, name, arguments


def chunks(stream: Stream) -> tuple[Any, ...]:
    return fields(stream.feed())


def sdk_fields(chunks: Iterator[Any]) -> tuple[Any, ...]:
    """``fields`` on the SDK's objects, reading attributes."""
    index = call_id = name = arguments = None
    for chunk in chunks:
        tool_calls = chunk.choices[0].delta.tool_calls
        if tool_calls:
            for tool_call in tool_calls:
                index = tool_call.index
                call_id = tool_call.id
                function = tool_call.function
                if function:
                    name = function.name
                    arguments = function.arguments
    return index, call_id, name, arguments


def sdk_chunks(stream: Stream) -> tuple[Any, ...]:
    return sdk_fields(stream.sdk_feed())


# --- raw event-stream bytes ----------------------------------------------------------------------------------------


def split_lines(reads: tuple[bytes, ...]) -> Iterator[list[bytes]]:
    """The whole lines each read completes (a line cut by a read's end waits for the next read)."""
    rest = b""
    for read in reads:
        lines = (rest + read).split(b"\n")
        rest = lines.pop()
        yield lines


def data_lines(reads: tuple[bytes, ...]) -> Iterator[bytes]:
    """The JSON of each ``data: {...}`` line (``[DONE]`` and ``event:`` lines left out)."""
    for lines in split_lines(reads):
        for line in lines:
            if line.startswith(b"data: {"):
                yield line[6:]


def orjson_lines(reads: tuple[bytes, ...]) -> tuple[int, Any]:
    """Split into lines, ``orjson.loads`` each data line but ``[DONE]``, nothing else: the floor."""
    loads = orjson.loads
    count = 0
    last = None
    for lines in split_lines(reads):  # one step a read, not a line: the loop below stays the floor's own
        for line in lines:
            if line.startswith(b"data: {"):
                last = loads(line[6:])
                count += 1
    return count, last


def orjson_events(reads: tuple[bytes, ...]) -> Iterator[dict[str, Any]]:
    """The floor's framing and decoding, event by event (what the hand-written loops over bytes start from)."""
    return map(orjson.loads, data_lines(reads))


def splitting(reads: tuple[bytes, ...]) -> int:
    """The floor's line splitting alone; the number of whole lines."""
    return sum(len(lines) for lines in split_lines(reads))


def loads_each(lines: list[bytes]) -> None:
    """The floor's ``orjson.loads`` alone, of lines split beforehand."""
    loads = orjson.loads
    for line in lines:
        loads(line)


# --- the output every reassembler builds (memory) -------------------------------------------------------------------


def _text(call: Call) -> str:
    return "".join(chain((call.head,), repeat(call.block, call.repeats), (call.tail,)))


def outputs(stream: Stream, keep: bool) -> list[int]:
    """The output alone (no feed, no reassembly): each call's text and parsed value, built where the core hands calls
    over (one by one when calls follow each other, all at the end when they interleave), kept to the end if ``keep``.
    """
    import jiter

    sizes = []
    kept = []
    batches = [[call] for call in stream.calls] if stream.cell.mode == "sequential" else [list(stream.calls)]
    for batch in batches:
        built = []
        for call in batch:
            text = _text(call)
            built.append((text, jiter.from_json(text.encode(), allow_inf_nan=False, cache_mode="keys")))
            del text
        sizes.extend(len(text) for text, _ in built)
        if keep:
            kept.extend(built)
        del built
    return sizes
