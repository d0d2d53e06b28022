"""A model's text in a dialect, as a server streams it: prose and calls, cut into token-sized deltas.

The calls are written by ``toolwire.dialects.render`` (the chat templates' rules), so the text is what the dialect's
models write; the same seeded calls and prose make every size, so that a larger text is more of the same.
"""

from __future__ import annotations

import random
from typing import Any

from toolwire import Limits
from toolwire.dialects import render

#: Characters per delta: about one token of English text or JSON.
DELTA = 4
SIZES = {"4KiB": 4 << 10, "64KiB": 64 << 10, "1MiB": 1 << 20}
TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
        "required": ["city"],
    },
    "search": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}, "tags": {"type": "array"}},
        "required": ["query"],
    },
}
#: A megabyte of text holds thousands of calls: more than a stream's default ``max_calls``.
LIMITS = Limits(max_calls=1 << 20)
_WORDS = ("the", "forecast", "for", "Paris", "looks", "mild", "and", "a", "search", "may", "help", "with", "that")


def _turn(rng: random.Random, dialect: str, number: int) -> str:
    """One stretch of text: a sentence of prose, then two calls (with prose between them)."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_weather", {"city": rng.choice(["Paris", "Oslo", "Lima"]), "days": rng.randint(1, 9), "metric": True}),
        ("search", {"query": " ".join(rng.choices(_WORDS, k=6)), "limit": 5, "tags": ["news", f"n{number}"]}),
    ]
    prose = " ".join(rng.choices(_WORDS, k=12)) + ". "
    return render(calls, dialect, text_before=prose, text_between=(" Then: ",), text_after=" ")


def _turns(dialect: str, size: int, seed: int = 17) -> list[str]:
    """Turns until they hold about ``size`` characters."""
    rng = random.Random(seed)
    turns: list[str] = []
    length = 0
    while length < size:
        turns.append(_turn(rng, dialect, len(turns)))
        length += len(turns[-1])
    return turns


def text(dialect: str, size: int) -> str:
    """About ``size`` characters of a model's text in ``dialect``, turn after turn."""
    return "".join(_turns(dialect, size))


def deltas(dialect: str, size: int) -> list[str]:
    """The text of ``text(dialect, size)`` as a server streams it: ``DELTA`` characters at a time."""
    whole = text(dialect, size)
    return [whole[start : start + DELTA] for start in range(0, len(whole), DELTA)]


def calls_in(dialect: str, size: int) -> int:
    """How many calls ``text(dialect, size)`` holds (two per turn)."""
    return 2 * len(_turns(dialect, size))
