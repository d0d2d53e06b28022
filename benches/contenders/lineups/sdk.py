"""The README's SDK example end to end (issue 18): the grid's stream served through the openai client.

Each contender asks ``client.chat.completions.create(..., stream=True)`` of an ``openai.OpenAI`` client whose
``httpx2.MockTransport`` answers with the stream's event-stream bytes in 16 KiB reads (``sdks.served_openai``), and
reads the answer to the end:

- ``toolwire-sdk``: ``toolwire.reassemble(stream)``, the SDK's ``Stream`` read from its bytes (the bypass);
- ``toolwire-sdk-objects``: the same with the bypass switched off: the SDK's chunk objects, as before issue 18;
- ``toolwire-bytes``: ``toolwire.reassemble(response.iter_bytes())`` of the same response (the raw path);
- ``sdk-iteration``: the SDK's own iteration, nothing else (each ``ChatCompletionChunk`` built and dropped);
- ``sdk-stream-state``: the chunks into ``ChatCompletionStreamState``, then ``json.loads`` of each call's
  arguments (what ``client.chat.completions.stream(...)`` does).

The targets: ``toolwire-sdk`` at least 100x faster than ``sdk-iteration`` and 300x than ``sdk-stream-state``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benches.contenders import core, sdks
from benches.contenders.lineups import chunks
from benches.inputs.grid import Cell, Stream

CELL = Cell(4, 4 * 1024, "sequential")  # the measurement: 4 calls x 4 KiB in 4-byte fragments
CONTENDERS: dict[str, Callable[[Stream], Any]] = {
    "toolwire-sdk": core.sdk_client,
    "toolwire-sdk-objects": core.sdk_client_objects,
    "toolwire-bytes": core.sdk_client_bytes,
    "sdk-iteration": sdks.client_iteration,
    "sdk-stream-state": sdks.client_stream_state,
}
TARGETS = {"sdk-iteration": 100.0, "sdk-stream-state": 300.0}  # how many times faster toolwire-sdk must be


def prepare(stream: Stream) -> None:
    """The stream's reads and the client, built before any timing."""
    sdks.sse_reads(stream)
    sdks.served_openai()
    sdks.openai_sdk()


def check(name: str, stream: Stream, result: Any) -> None:
    """Assert that ``result`` is the stream's ground truth (``sdk-iteration``: every chunk built)."""
    if name == "sdk-iteration":
        assert result == stream.chunk_count, f"{name} built {result} chunks, expected {stream.chunk_count}"
        return
    chunks.check("core" if name.startswith("toolwire") else "openai-sdk", stream, result)
