"""The Rust scanner (``toolwire._core.scan``) agrees with the reference scanner byte for byte.

Same verdict, offset, error kind, root kind and duplicate keys, on JSONTestSuite fed whole and split, and on
hypothesis-generated and mutated text split at random points. (Each is held to a strict parser on its own:
``rust/core/tests/scanner_corpus.rs`` against serde_json, ``tests/reference/test_scanner.py`` against a strict
``json.loads``.)
"""

from __future__ import annotations

import json
import random
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import corpus
from toolwire._core import scan
from toolwire.reference._scanner import COMPLETE, INVALID, Scanner


def reference_scan(fragments: list[bytes], max_depth: int = 128) -> tuple[Any, ...]:
    scanner = Scanner(max_depth)
    duplicates: list[tuple[str, int]] = []
    for fragment in fragments:
        scanner.feed(fragment)
        duplicates += [(key.path, key.offset) for key in scanner.take_duplicate_keys()]
    state = scanner.finish()
    position = scanner.end if state == COMPLETE else scanner.error.offset if state == INVALID else None
    kind = scanner.error.kind if state == INVALID else None
    return (state, position, kind, scanner.root_kind, duplicates)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(min(cut, len(data)) for cut in cuts), len(data)]
    return [data[start:end] for start, end in pairwise(bounds)]


def agree(fragments: list[bytes], max_depth: int = 128) -> None:
    assert scan(fragments, max_depth=max_depth) == reference_scan(fragments, max_depth)


def test_json_test_suite_whole_and_split() -> None:
    folder = corpus("json-test-suite")
    rng = random.Random(20261129)
    for path in sorted(folder.glob("*.json")):
        data = path.read_bytes()
        agree([data])
        cuts = range(len(data) + 1) if len(data) < 300 else rng.sample(range(len(data) + 1), 40)
        for cut in cuts:
            agree([data[:cut], data[cut:]])
        agree(split(data, [rng.randrange(len(data) + 1) for _ in range(8)]))


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=30,
)


@given(values, st.booleans(), st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_rendered_values(value: Any, ascii_only: bool, cuts: list[int]) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    agree(split(data, cuts))


@given(st.binary(max_size=60), st.lists(st.integers(min_value=0, max_value=60), max_size=6))
def test_arbitrary_bytes(data: bytes, cuts: list[int]) -> None:
    agree(split(data, cuts))


@given(values, st.data())
def test_mutated_text_and_duplicate_keys(value: Any, data: st.DataObject) -> None:
    rendered = json.dumps(value)
    text = bytearray(f'{{"k": {rendered}, "a": [{rendered}, {{"a": 1, "a": 2}}]}}'.encode())
    for _ in range(data.draw(st.integers(min_value=0, max_value=3))):
        position = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
        text[position] = data.draw(st.sampled_from(b'{}[],:"\\ 0-etu\x80\xed\xa0'))
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=6))
    agree(split(bytes(text), cuts), max_depth=data.draw(st.integers(min_value=1, max_value=6)))


@pytest.mark.parametrize("text", [b'{"a": 1, "\\u0061": 2}', b'[{"x": {"~/": 1, "~/": 2}}]', b'{"a": "\\ud800"}'])
def test_examples(text: bytes) -> None:
    agree([text])
    agree([bytes([byte]) for byte in text])
