"""The README's SDK example (issue 18): ``reassemble(client.chat.completions.create(..., stream=True))``, end to end.

4 calls x 4 KiB of arguments in 4-byte fragments (the grid's ``4x4KiB-seq`` cell), served through the openai
client over an ``httpx2.MockTransport`` in 16 KiB reads (``contenders.lineups.sdk``): toolwire reading the SDK's
stream from its bytes, against the same with the bypass off, the raw path, the SDK's own iteration and its
``ChatCompletionStreamState``. Each result is checked against the ground truth, so ``--benchmark-disable`` makes this
a correctness test. The figures of one run are in docs/benchmarks.md ("The openai client's stream").
"""

from __future__ import annotations

import pytest

from benches.contenders.lineups import sdk as lineup
from benches.inputs import grid

FAST = ("toolwire-sdk", "toolwire-bytes")  # the others take over a second a run


@pytest.mark.parametrize("contender", list(lineup.CONTENDERS))
def test_sdk_client(benchmark, contender: str) -> None:
    stream = grid.stream(lineup.CELL)
    lineup.prepare(stream)
    run = lineup.CONTENDERS[contender]
    lineup.check(contender, stream, run(stream))  # set-up: nothing wrong is ever timed
    benchmark.group = f"sdk-client-{lineup.CELL.id}"
    benchmark.extra_info.update(reads=len(lineup.sdks.sse_reads(stream)), chunks=stream.chunk_count)
    result = benchmark.pedantic(run, args=(stream,), rounds=50 if contender in FAST else 5, iterations=1)
    lineup.check(contender, stream, result)
