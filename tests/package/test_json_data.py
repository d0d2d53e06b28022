"""``json_fields``: the kits' reports written as JSON data from their field names."""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass

import pytest

from toolwire._common._json_data import json_fields, json_value


class Colour(enum.Enum):
    RED = "red"


@dataclass(frozen=True)
class Inner:
    n: int

    def as_dict(self) -> dict[str, int]:
        return {"n": self.n}


@dataclass(frozen=True)
class Outer:
    name: str
    tags: tuple[str, ...]
    inner: Inner | None
    inners: tuple[Inner, ...]
    colour: Colour
    options: dict[str, object]
    seconds: float


OUTER = Outer("x", ("a", "b"), Inner(1), (Inner(2), Inner(3)), Colour.RED, {"k": (1, 2)}, 1.23456)


def test_fields_in_the_order_named_with_values_made_json() -> None:
    data = json_fields(OUTER, "seconds name tags inner inners colour options")
    assert list(data) == ["seconds", "name", "tags", "inner", "inners", "colour", "options"]
    assert data == {
        "seconds": 1.23456,
        "name": "x",
        "tags": ["a", "b"],
        "inner": {"n": 1},
        "inners": [{"n": 2}, {"n": 3}],
        "colour": "red",
        "options": {"k": (1, 2)},  # a mapping's items are JSON data already: copied, not converted
    }
    assert data["options"] is not OUTER.options


def test_a_given_value_takes_its_place_among_the_keys() -> None:
    data = json_fields(OUTER, "name rounded inner", rounded=round(OUTER.seconds, 2), inner=None)
    assert list(data.items()) == [("name", "x"), ("rounded", 1.23), ("inner", None)]


def test_a_value_given_for_no_key_is_refused() -> None:
    with pytest.raises(TypeError, match="keys not named: extra"):
        json_fields(OUTER, "name", extra=1)


def test_other_values_are_returned_as_they_are() -> None:
    day = datetime.date(2026, 1, 2)
    assert json_value(day) is day
    assert json_value(None) is None
