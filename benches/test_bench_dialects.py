"""Calls written into a model's text, read as the text streams (issue 17 item 7).

A self-hosted model's text arrives in token-sized deltas (4 characters here). toolwire reads each delta once:
``toolwire.reassemble(deltas, dialect=...)``. The floor is iterating the deltas and doing nothing; the way servers'
parsers work is to parse the accumulated text again on every delta (here with the pure-Python reference's parser,
``toolwire.reference.dialects.parse``), which is quadratic in the text's length. Seeded texts of prose and calls
(``benches/inputs/dialects.py``) of 4 KiB, 64 KiB and 1 MiB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import toolwire
from benches.inputs import dialects as inputs
from toolwire.reference.dialects import Call, parse


def core(dialect: str) -> Callable[[list[str]], int]:
    def run(deltas: list[str]) -> int:
        return len(
            list(
                toolwire.reassemble(
                    deltas, dialect=dialect, tools=inputs.TOOLS, limits=inputs.LIMITS, on_invalid="yield"
                )
            )
        )

    return run


def iterate(deltas: list[str]) -> int:
    count = 0
    for _ in deltas:
        count += 1
    return count


def reparse_every_delta(dialect: str) -> Callable[[list[str]], int]:
    """The servers' way: the accumulated text parsed again after every delta (the last parse's calls counted)."""

    def run(deltas: list[str]) -> int:
        text = ""
        calls = 0
        for delta in deltas:
            text += delta
            calls = sum(isinstance(event, Call) for event in parse(dialect, [text], inputs.TOOLS))
        return calls

    return run


def _size(name: str) -> Any:
    return pytest.param(name, marks=[] if name == "4KiB" else [pytest.mark.slow])


@pytest.mark.parametrize("size", [_size(name) for name in inputs.SIZES])
@pytest.mark.parametrize("dialect", toolwire.DIALECTS)
def test_core_reads_text_deltas(benchmark: Any, dialect: str, size: str) -> None:
    deltas = inputs.deltas(dialect, inputs.SIZES[size])
    assert core(dialect)(deltas) == inputs.calls_in(dialect, inputs.SIZES[size])
    benchmark(core(dialect), deltas)


@pytest.mark.parametrize("size", [_size(name) for name in inputs.SIZES])
def test_iterating_the_deltas(benchmark: Any, size: str) -> None:
    deltas = inputs.deltas("hermes", inputs.SIZES[size])
    benchmark(iterate, deltas)


@pytest.mark.slow  # quadratic: half a minute per dialect even at 4 KiB
@pytest.mark.parametrize("dialect", toolwire.DIALECTS)
def test_reparsing_on_every_delta(benchmark: Any, dialect: str) -> None:
    deltas = inputs.deltas(dialect, inputs.SIZES["4KiB"])
    assert reparse_every_delta(dialect)(deltas) == inputs.calls_in(dialect, inputs.SIZES["4KiB"])
    benchmark.pedantic(reparse_every_delta(dialect), args=(deltas,), rounds=1, iterations=1)
