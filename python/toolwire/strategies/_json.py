"""JSON values, their texts, and the ways a model's text is cut into stream fragments.

These are the building blocks of the stream renderers (``_chat``, ``_formats``): the text of a call's arguments in
the styles real servers write it, cut anywhere, and arbitrary JSON for the content around the calls (text blocks,
server tool inputs, unknown block payloads). The project's own property tests draw their arguments from
``arguments_objects``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

__all__ = [
    "arguments_objects",
    "canonical",
    "deep_values",
    "json_floats",
    "json_ints",
    "json_scalars",
    "json_strings",
    "json_values",
    "merge",
    "render_styles",
    "split_text",
]

_T = TypeVar("_T")

_SPECIAL = list('"\\/\b\f\n\r\t\x00\x01\x1f\x7f\x80\u00e9\u2028\u2029\ufeff\uffff\U0001f600\U0010ffff~ ab')


def json_strings(max_size: int = 10) -> st.SearchStrategy[str]:
    """Text with no lone surrogates (those cannot be JSON-dumped to UTF-8): astral, control chars, quotes..."""
    return st.one_of(
        st.text(st.characters(exclude_categories=["Cs"]), max_size=max_size),
        st.text(st.sampled_from(_SPECIAL), max_size=max_size),
    )


json_ints: st.SearchStrategy[int] = st.one_of(
    st.integers(-1000, 1000),
    st.integers(),
    st.integers(min_value=2**64, max_value=2**300),
    st.integers(min_value=-(2**300), max_value=-(2**64)),
    st.sampled_from([0, -1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30]),
)
json_floats: st.SearchStrategy[float] = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1e16, 1.5e-300, 5e-324, 1.7976931348623157e308, 0.1, 1e22, 123456789.123456789]),
)
json_scalars: st.SearchStrategy[Any] = st.one_of(st.none(), st.booleans(), json_ints, json_floats, json_strings())
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(json_strings(8), children, max_size=4)),
    max_leaves=10,
)


@st.composite
def deep_values(draw: st.DrawFn) -> Any:
    """A value nested 9 to 40 levels deep."""
    shape = draw(st.lists(st.booleans(), min_size=9, max_size=40))
    value = draw(json_scalars)
    for as_list in shape:
        value = [value] if as_list else {draw(st.sampled_from(["", "k", "é", "a/b"])): value}
    return value


@st.composite
def arguments_objects(draw: st.DrawFn) -> dict[str, Any]:
    """An arguments object: usually small and moderately nested, sometimes deep."""
    if draw(st.integers(0, 9)) == 0:
        return {draw(json_strings(4)): draw(deep_values())}
    value: dict[str, Any] = draw(st.dictionaries(json_strings(10), json_values, max_size=5))
    return value


@st.composite
def render_styles(draw: st.DrawFn) -> dict[str, Any]:
    """Keyword arguments of ``json.dumps``: ASCII or not, compact or spaced, indented or not."""
    return {
        "ensure_ascii": draw(st.booleans()),
        "separators": draw(st.sampled_from([None, (",", ":"), (", ", ": "), (",", ": "), (" ,", " : ")])),
        "indent": draw(st.sampled_from([None, None, 0, 2, "\t", " \r\n"])),
    }


@st.composite
def split_text(draw: st.DrawFn, text: str) -> list[str]:
    """Non-empty pieces whose concatenation is ``text``: whole, every character, or cut at random places."""
    n = len(text)
    if n <= 1:
        return [text]
    mode = draw(st.integers(0, 3))
    if mode == 0:
        return [text]
    if mode == 1 and n <= 300:
        return list(text)
    cuts = sorted(draw(st.lists(st.integers(1, n - 1), max_size=min(n - 1, 30), unique=True)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, n], strict=True)]


def canonical(value: Any) -> str:
    """The canonical text of arguments sent as a JSON value (docs/semantics.md)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def merge(rng: random.Random, sequences: Sequence[Sequence[_T]], *, open_in_order: bool = False) -> list[_T]:
    """A random interleaving of the sequences that keeps each one's order.

    With ``open_in_order``, sequence ``k`` starts only after sequence ``k - 1`` has started (the calls of one choice
    then open in the order given, while their later fragments still interleave).
    """
    positions = [0] * len(sequences)
    out: list[_T] = []
    live = [i for i, s in enumerate(sequences) if s]
    unopened = list(live)
    while live:
        eligible = [i for i in live if positions[i] or not open_in_order or i == unopened[0]]
        i = rng.choice(eligible)
        if not positions[i]:
            unopened.remove(i)
        out.append(sequences[i][positions[i]])
        positions[i] += 1
        if positions[i] == len(sequences[i]):
            live.remove(i)
    return out
