"""Whether received calls satisfy an expected sequence, by maximum bipartite matching.

Several expected calls can fit the same received call (two ``get_weather`` calls, one pinned to ``Paris`` and one to
any string). Taking, for each expected call in turn, the first received call that fits (greedy first-fit, as
agentevals and BFCL's parallel checker do) can then use up the only call that fits a later expectation and report a
mismatch where a one-to-one pairing exists. Here the pairing is a maximum matching of the bipartite graph "expected
call fits received call", found with augmenting paths (Kuhn's algorithm): every call set in a case is small, so its
O(V·E) cost is nothing, and it finds a perfect matching whenever one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolwire._model import ToolCall
from toolwire.cases._model import Alternative, ExpectedCall, Step
from toolwire.cases._values import argument_problems

__all__ = ["Received", "fits", "max_matching", "pair", "passes"]


@dataclass(frozen=True)
class Received:
    """A valid received call and where it is.

    Attributes:
        turn: The turn it came in (0-based).
        position: Its position among that turn's calls (0-based).
        call: The call.
    """

    turn: int
    position: int
    call: ToolCall


def max_matching(adjacency: Sequence[Sequence[int]], right_size: int) -> list[int | None]:
    """A maximum matching of a bipartite graph, by augmenting paths.

    Args:
        adjacency: For each left vertex, the right vertices it may be paired with, in order of preference (a
            vertex tries its preferred partners first, which the judge uses to pair calls by fewest differences).
        right_size: The number of right vertices.

    Returns:
        For each left vertex, its right partner, or None when it is left unmatched.
    """
    partner_of_right: list[int | None] = [None] * right_size

    def augment(left: int, seen: set[int]) -> bool:
        # Depth is bounded by the number of left vertices: the expected calls a case lists.
        for right in adjacency[left]:
            if right in seen:
                continue
            seen.add(right)
            holder = partner_of_right[right]
            if holder is None or augment(holder, seen):
                partner_of_right[right] = left
                return True
        return False

    for left in range(len(adjacency)):
        augment(left, set())
    partner_of_left: list[int | None] = [None] * len(adjacency)
    for right, left_vertex in enumerate(partner_of_right):
        if left_vertex is not None:
            partner_of_left[left_vertex] = right
    return partner_of_left


def fits(expected: ExpectedCall, received: Received) -> bool:
    """Whether a received call satisfies an expected call: same name, pinned arguments as pinned."""
    return expected.name == received.call.name and not argument_problems(expected, received.call.arguments)


def pair(
    expected: Sequence[ExpectedCall],
    received: Sequence[Received],
    edge: Callable[[ExpectedCall, Received], bool] = fits,
) -> list[int | None]:
    """The maximum matching of expected calls to received calls along ``edge``: each expected call's partner."""
    adjacency = [[index for index, call in enumerate(received) if edge(wanted, call)] for wanted in expected]
    return max_matching(adjacency, len(received))


def _matched(expected: Sequence[ExpectedCall], received: Sequence[Received]) -> int:
    return sum(partner is not None for partner in pair(expected, received))


def _step_in_turn(step: Step, turn: Sequence[Received], *, whole: bool) -> bool:
    """Whether a turn holds every call of a step (and, with ``whole``, nothing else)."""
    if len(step) > len(turn) or (whole and len(step) != len(turn)):
        return False
    return _matched(step, turn) == len(step)


def _in_order(steps: Sequence[Step], turns: Sequence[Sequence[Received]]) -> bool:
    # Each step takes the earliest turn after the previous step's that holds it: taking an earlier turn never
    # leaves later steps fewer turns to choose from, so this finds an in-order placement whenever one exists.
    start = 0
    for step in steps:
        found = next((t for t in range(start, len(turns)) if _step_in_turn(step, turns[t], whole=False)), None)
        if found is None:
            return False
        start = found + 1
    return True


def passes(alternative: Alternative, turns: Sequence[Sequence[Received]]) -> bool:
    """Whether the received calls, turn by turn, satisfy one alternative in its mode (see ``MODES``)."""
    with_calls = [turn for turn in turns if turn]
    mode = alternative.mode
    if mode == "exact":
        return len(with_calls) == len(alternative.steps) and all(
            _step_in_turn(step, turn, whole=True) for step, turn in zip(alternative.steps, with_calls, strict=True)
        )
    if mode == "in_order":
        return _in_order(alternative.steps, with_calls)
    expected = alternative.calls
    received = [call for turn in with_calls for call in turn]
    matched = _matched(expected, received)
    if mode == "unordered":
        return matched == len(expected) == len(received)
    if mode == "superset":
        return matched == len(expected)
    return matched == len(received)  # subset: every received call is one of the expected ones
