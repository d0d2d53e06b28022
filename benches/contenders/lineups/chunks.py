"""The grid's chunk dicts and the openai SDK's objects: who reassembles them, timed whole on one ``grid.Stream``.

Each returns what a user would hold at the end, the reassembled calls with parsed arguments, except the floors,
which only read the fields and return the last values they read (enough to check they read them). ``normalize``
turns any result into ``[(id, name, arguments)]`` for the correctness assertions (untimed).

Conversions a competitor needs that a real stream would pay elsewhere happen outside the timed function (``prepare``):
the SDK's ``ChatCompletionChunk`` objects are built once per pool (``Stream.sdk_feed``); LangChain's
``AIMessageChunk`` objects are built once per stream (``langchain.messages``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benches.contenders import core, floors, langchain, loops, sdks
from benches.inputs.grid import Cell, Stream, size_label

Result = Any


@dataclass(frozen=True)
class Contender:
    """A competitor. ``max_bytes``: the largest total of argument bytes it runs on (quadratic ones only)."""

    name: str
    run: Callable[[Stream], Result]
    prepare: Callable[[Stream], object] | None = None
    max_bytes: dict[str, int] | None = None

    def skip_reason(self, cell: Cell) -> str | None:
        """Why this competitor does not run on ``cell``, or None when it does."""
        if self.max_bytes is None:
            return None
        total = cell.calls * cell.size
        if total <= self.max_bytes[cell.mode]:
            return None
        return (
            f"{self.name} is quadratic: one run on {cell.id} ({size_label(total)} of arguments) takes over ~2 s; "
            f"it runs up to {size_label(self.max_bytes[cell.mode])} {cell.mode}"
        )


def _prepare_sdk(stream: Stream) -> object:
    return next(stream.sdk_feed())


# Where the quadratic competitors stop (one run under ~2 s), from single runs on the development machine
# (2-core Xeon VM): openai-sdk 0.60 s on 4x4KiB, 2.8-3.3 s on 16x4KiB, 2.3 s on 1x64KiB; langchain 1.6 s on
# 4x4KiB-seq but 4.7 s on 4x4KiB-int (every call still open, so every addition re-parses all of them with
# its partial-JSON parser), 0.65 s on 16x256B-int, 13 s on 16x4KiB-seq.
OPENAI_SDK_MAX = {"sequential": 16 * 1024, "interleaved": 16 * 1024}
_LANGCHAIN_MAX = {"sequential": 16 * 1024, "interleaved": 4 * 1024}

CONTENDERS: dict[str, Contender] = {
    contender.name: contender
    for contender in (
        Contender("core", core.chunks),
        Contender("core-sdk", core.sdk_chunks, prepare=_prepare_sdk),
        Contender("reference", core.reference_chunks),
        Contender("join-loop", loops.chunks),
        Contender("floor", floors.chunks),
        Contender("floor-sdk", floors.sdk_chunks, prepare=_prepare_sdk),
        Contender("openai-sdk", sdks.chat, prepare=_prepare_sdk, max_bytes=OPENAI_SDK_MAX),
        Contender("langchain", langchain.chunks, prepare=langchain.messages, max_bytes=_LANGCHAIN_MAX),
    )
}
_TOOLWIRE = ("core", "core-sdk", "reference")


def normalize(name: str, result: Result) -> list[tuple[str | None, str | None, Any]]:
    """``[(id, name, arguments)]`` of any contender's result (not for the floors)."""
    if name in _TOOLWIRE:
        return [(call.id, call.name, call.arguments) for call in result]
    if name == "langchain":
        return [(call["id"], call["name"], call["args"]) for call in result]
    return list(result)


def check(name: str, stream: Stream, result: Result) -> None:
    """Assert that ``result`` is the stream's ground truth (the floors: that they read its last fragment)."""
    if name in ("floor", "floor-sdk"):
        index = len(stream.calls) - 1
        text = stream.calls[index].text
        expected = (index, None, None, text[(len(text) - 1) // 4 * 4 :])
        assert tuple(result) == expected, f"{name} read {result!r}, expected {expected!r}"
        return
    got = normalize(name, result)
    expected = stream.expected()
    assert len(got) == len(expected), f"{name}: {len(got)} calls, expected {len(expected)}"
    for position, (have, want) in enumerate(zip(got, expected, strict=True)):
        assert have[0] == want[0], f"{name}: call {position} has id {have[0]!r}, expected {want[0]!r}"
        assert have[1] == want[1], f"{name}: call {position} has name {have[1]!r}, expected {want[1]!r}"
        assert have[2] == want[2], f"{name}: call {position} has wrong arguments"
    if name in _TOOLWIRE:
        for call, truth in zip(result, stream.calls, strict=True):
            assert call.arguments_json == truth.text, f"{name}: arguments_json differs from the text streamed"
            assert not call.violations, f"{name}: unexpected violations {call.violations}"
