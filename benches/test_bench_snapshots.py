"""Honest snapshots after every fragment, against jiter's partial mode (issue 4 item 6).

A UI that shows arguments as they stream asks for a snapshot after each fragment. toolwire builds the partial value
as bytes arrive (``Reassembler(snapshots=True).snapshot(seq)``: each snapshot costs what changed); the common
alternative re-parses the whole buffer each time with ``jiter.from_json(buffer, partial_mode="trailing-strings")``,
which is quadratic in the argument size (and shows ``{"n": 12`` as final ``12``). Seeded arguments of 1, 8 and 64 KiB,
cut into 16-byte fragments, as a model streams them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import jiter
import pytest

import toolwire
import toolwire.reference

FRAGMENT = 16
SIZES = {"1KiB": 1 << 10, "8KiB": 8 << 10, "64KiB": 64 << 10}


def arguments(size: int, seed: int = 4) -> dict[str, Any]:
    """A seeded arguments object of about ``size`` bytes of JSON: strings, numbers, nested records."""
    rng = random.Random(seed)
    value: dict[str, Any] = {}
    while len(json.dumps(value)) < size:
        key = f"field_{len(value)}"
        kind = rng.random()
        if kind < 0.4:
            value[key] = " ".join(rng.choice(["alpha", "beta", "gamma", "delta", "épsilon"]) for _ in range(8))
        elif kind < 0.7:
            value[key] = rng.randint(-(10**9), 10**9) if rng.random() < 0.5 else rng.random() * 1000
        else:
            value[key] = [{"id": rng.randint(0, 999), "ok": rng.random() < 0.5, "note": None} for _ in range(3)]
    return value


def fragments(size: int) -> list[str]:
    text = json.dumps(arguments(size))
    return [text[start : start + FRAGMENT] for start in range(0, len(text), FRAGMENT)]


def chunks(pieces: list[str]) -> list[dict[str, Any]]:
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "render", "arguments": ""}}
    first = {"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}
    return [first] + [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}
        for piece in pieces
    ]


def with_snapshots(module: Any) -> Callable[[list[dict[str, Any]]], Any]:
    def run(stream: list[dict[str, Any]]) -> Any:
        reassembler = module.Reassembler(snapshots=True, on_invalid="yield")
        reassembler.feed(stream[0])
        shown = None
        for chunk in stream[1:]:
            reassembler.feed(chunk)
            shown = reassembler.snapshot(0)
        return shown

    return run


def jiter_partial(pieces: list[str]) -> Any:
    buffer = b""
    shown = None
    for piece in pieces:
        buffer += piece.encode()
        shown = jiter.from_json(buffer, partial_mode="trailing-strings")
    return shown


IMPLEMENTATIONS: dict[str, Callable[[list[str]], Any]] = {
    "core": lambda pieces: with_snapshots(toolwire)(chunks(pieces)),
    "reference": lambda pieces: with_snapshots(toolwire.reference)(chunks(pieces)),
    "jiter-partial": jiter_partial,
}


@pytest.mark.parametrize(
    "size", [pytest.param(name, marks=[] if name == "1KiB" else [pytest.mark.slow]) for name in SIZES]
)
@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_snapshot_after_every_fragment(benchmark: Any, implementation: str, size: str) -> None:
    if implementation == "reference" and size == "64KiB":
        pytest.skip("the pure-Python reference is the correctness oracle, not a contender at this size")
    pieces = fragments(SIZES[size])
    final = IMPLEMENTATIONS[implementation](pieces)
    assert final == arguments(SIZES[size]), "every implementation ends on the whole arguments"
    if implementation == "core":
        stream = chunks(pieces)
        benchmark(with_snapshots(toolwire), stream)
    else:
        benchmark(IMPLEMENTATIONS[implementation], pieces)
