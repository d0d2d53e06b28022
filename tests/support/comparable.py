"""``strict``: the comparable form of a value that keeps what ``==`` forgets, for the tests that compare outputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def strict(x: Any, other: Callable[[Any], Any] = repr) -> Any:
    """A comparable form that keeps what ``==`` forgets: bool vs int vs float, -0.0, key order, exact types.

    A value of any other type is compared by ``other(x)``: its ``repr`` by default, its ``id`` where only the very
    same object may match.
    """
    t = type(x)
    if x is None or t is bool or t is str:
        return (t.__name__, x)
    if t is int:
        return ("int", x)
    if t is float:
        return ("float", repr(x))
    if t is list or t is tuple:
        return (t.__name__, tuple(strict(i, other) for i in x))
    if t is dict:
        return ("dict", tuple((strict(k, other), strict(v, other)) for k, v in x.items()))
    return ("object", t.__name__, other(x))
