"""Structured outputs streamed as text, with the value shown after every delta (issue 19, part 1).

``toolwire.stream_object`` builds the value as its text arrives: each delta is scanned once and built into the
snapshot once, so a snapshot after every delta keeps the stream linear. The alternatives re-parse the accumulated text
on every delta: jiter's partial mode (``trailing-strings``, as the official SDKs show partial values) and
``partial-json-parser`` (the JSON completer UIs and structured-output libraries reach for); both are quadratic in the
value's size, and both show ``{"n": 12`` as a final ``12``. Seeded values of 1, 8 and 64 KiB, cut into 16-character
deltas.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import partial_json_parser
import pytest

import toolwire
import toolwire.reference
from benches.test_bench_snapshots import FRAGMENT, SIZES, arguments, jiter_partial

#: The schema the value is checked against at the end: its type, so that the check costs what a real one costs least.
SCHEMA = {"type": "object"}


def deltas(size: int) -> list[str]:
    text = json.dumps(arguments(size))
    return [text[start : start + FRAGMENT] for start in range(0, len(text), FRAGMENT)]


def streamed(module: Any) -> Callable[[list[str]], Any]:
    def run(pieces: list[str]) -> Any:
        stream = module.stream_object(pieces, schema=SCHEMA, format="text")
        shown = None
        for snapshot in stream:
            shown = snapshot.value
        assert shown is not None
        return stream.result.value

    return run


def partial_json(pieces: list[str]) -> Any:
    buffer = ""
    shown = None
    for piece in pieces:
        buffer += piece
        shown = partial_json_parser.loads(buffer)
    return shown


IMPLEMENTATIONS: dict[str, Callable[[list[str]], Any]] = {
    "core": streamed(toolwire),
    "reference": streamed(toolwire.reference),
    "jiter-partial": jiter_partial,
    "partial-json-parser": partial_json,
}


@pytest.mark.parametrize(
    "size", [pytest.param(name, marks=[] if name == "1KiB" else [pytest.mark.slow]) for name in SIZES]
)
@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_value_shown_after_every_delta(benchmark: Any, implementation: str, size: str) -> None:
    if implementation in ("reference", "partial-json-parser") and size == "64KiB":
        pytest.skip("pure Python at 64 KiB: measured at 1 and 8 KiB, where its growth already shows")
    pieces = deltas(SIZES[size])
    assert IMPLEMENTATIONS[implementation](pieces) == arguments(SIZES[size]), "each ends on the whole value"
    benchmark(IMPLEMENTATIONS[implementation], pieces)
