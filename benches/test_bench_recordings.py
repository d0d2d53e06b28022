"""Replaying every stream in ``recordings/`` (real streams and their quirks) through the core and the reference.

Only toolwire's implementations run here: the alternatives are not made for quirky streams (an index that is
null, arguments sent as an object, a second call glued on the same index...). Each benchmark replays every
recording once per round and asserts every result is the one its manifest expects.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolwire
import toolwire.reference
from toolwire.recordings import describe_call, iter_recordings

RECORDINGS = [(recording, recording.chunks()) for recording in iter_recordings()]
MODULES = {"core": toolwire, "reference": toolwire.reference}


def replay(module: Any) -> list[Any]:
    results = []
    for recording, chunks in RECORDINGS:
        stream = module.reassemble(iter(chunks), **recording.reassemble_options(), on_invalid="yield")
        for _ in stream:
            pass
        results.append(stream.result)
    return results


@pytest.mark.parametrize("implementation", list(MODULES))
def test_replay_recordings(benchmark, implementation: str) -> None:
    benchmark.group = f"recordings: all {len(RECORDINGS)} streams"
    benchmark.extra_info["chunks"] = sum(len(chunks) for _, chunks in RECORDINGS)
    results = benchmark(replay, MODULES[implementation])
    for (recording, _), result in zip(RECORDINGS, results, strict=True):
        every_call = sorted([*result.calls, *result.invalid_calls], key=lambda call: (call.choice, call.seq))
        assert [describe_call(call) for call in every_call] == recording.expected["calls"], recording.name
        assert result.finish_reason == recording.expected["finish_reason"], recording.name
