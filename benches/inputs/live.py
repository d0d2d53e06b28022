"""The grid's event-stream bytes as a live model's stream delivers them: one event per network read (issue 18).

A benchmark's 64 KiB reads (``sse``) are what a finished response read from a buffer looks like; a model that is
still generating sends each chunk as it is made, so each read holds one event of a few hundred bytes. ``events``
cuts a stream's bytes there. ``arrivals`` is the async source of those reads a client's ``aiter_bytes()`` is: each
read awaited, handing the event loop over between reads as a socket does (``asyncio.sleep(0)``), so that many
such sources on one loop interleave read by read; ``ready`` hands them over without a turn of the loop, for timing
one stream's async path without the loop's own cost per read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from benches.inputs import sse
from benches.inputs.grid import Stream

__all__ = ["arrivals", "events", "ready"]


def events(stream: Stream) -> tuple[bytes, ...]:
    """The stream's event-stream bytes, one event (with its blank line) per read."""
    data = b"".join(sse.sse(stream).reads)
    return tuple(event + b"\n\n" for event in data.split(b"\n\n") if event)


async def arrivals(reads: Sequence[bytes]) -> AsyncIterator[bytes]:
    """The reads as a socket delivers them to one of many consumers: the loop runs others between two reads."""
    for read in reads:
        await asyncio.sleep(0)
        yield read


async def ready(reads: Sequence[bytes]) -> AsyncIterator[bytes]:
    """The reads as an async source whose every read is already there."""
    for read in reads:
        yield read
