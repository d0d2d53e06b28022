"""Why received calls fail an expected sequence: the failures of one alternative, each with its diff.

Only called once the alternative is known to fail (``_match.passes``). The calls are paired in three rounds:

1. a maximum matching along "fits" (same name, pinned arguments as pinned): these calls are right;
2. among the rest, a maximum matching along "same name", each expected call trying the received calls with the
   fewest argument differences first: each pair is reported argument by argument (``value_mismatch``,
   ``missing_required``, ``unexpected_arg``);
3. the calls still left are paired in order (``wrong_name``); what remains is a count problem (``wrong_count``
   when the tool is among the expected ones, ``unexpected_call`` otherwise, ``no_call`` when nothing was called).

The mode says which leftovers are failures: ``superset`` and ``in_order`` allow extra received calls, ``subset``
missing expected ones (and there a leftover received call is not read as standing "instead of" a missing one, so it
is never a ``wrong_name``). For ``exact`` and ``in_order``, when every call is accounted for but the steps are not met
turn by turn, the failure is ``order_mismatch``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from toolwire.cases._diff import compact, diff_json, diff_lines
from toolwire.cases._match import Received, max_matching, pair
from toolwire.cases._model import Alternative, ExpectedCall, Failure
from toolwire.cases._text import CallLikeText
from toolwire.cases._values import argument_problems

__all__ = ["Context", "diagnose"]


@dataclass(frozen=True)
class Context:
    """What the diagnosis needs besides the calls.

    Attributes:
        label: Prefixed to every message (``"one_of #1 (closest of 2): "``), or empty.
        call_like: Call-looking text in an answer with no call, with its turn, when there is one.
    """

    label: str = ""
    call_like: tuple[int, CallLikeText] | None = None


def _calls(count: int) -> str:
    return f"{count} call{'s' if count != 1 else ''}"


def _where(received: Received) -> str:
    return f"turn {received.turn}, call {received.position}"


def _expected_line(call: ExpectedCall) -> str:
    return f"{call.name} {compact(call.as_json()['arguments'])}"


def _received_line(call: Received) -> str:
    return f"{call.call.name} {compact(call.call.arguments)}"


class _Pairing:
    """The three rounds of pairing, and the failures they give."""

    def __init__(self, expected: Sequence[ExpectedCall], received: Sequence[Received], *, rename: bool) -> None:
        self.expected = expected
        self.received = received
        self.fitting = {index: right for index, right in enumerate(pair(expected, received)) if right is not None}
        fitted = set(self.fitting.values())
        left = [index for index in range(len(expected)) if index not in self.fitting]
        right = [index for index in range(len(received)) if index not in fitted]
        self.same_name = self._same_name(left, right)
        paired = set(self.same_name.values())
        left = [index for index in left if index not in self.same_name]
        right = [index for index in right if index not in paired]
        self.renamed = dict(zip(left, right, strict=False)) if rename else {}
        self.missing = left[len(self.renamed) :]
        self.extra = right[len(self.renamed) :]

    def _cost(self, expected: int, received: int) -> int:
        return len(argument_problems(self.expected[expected], self.received[received].call.arguments))

    def _same_name(self, left: list[int], right: list[int]) -> dict[int, int]:
        adjacency: list[list[int]] = []
        for expected in left:
            costs = {
                slot: self._cost(expected, index)
                for slot, index in enumerate(right)
                if self.received[index].call.name == self.expected[expected].name
            }
            adjacency.append(sorted(costs, key=costs.__getitem__))
        partners = max_matching(adjacency, len(right))
        return {left[i]: right[slot] for i, slot in enumerate(partners) if slot is not None}

    def shown(self, index: int) -> str:
        """A received call as a sequence line: as the expected call it fits, when it fits one."""
        for expected, received in self.fitting.items():
            if received == index:
                return _expected_line(self.expected[expected])
        return _received_line(self.received[index])


def _argument_failures(expected: ExpectedCall, received: Received, label: str) -> list[Failure]:
    failures = []
    arguments = received.call.arguments
    for problem in argument_problems(expected, arguments):
        shown_expected = dict(arguments)
        key = problem.key
        if problem.code == "unexpected_arg":
            del shown_expected[key]
            message = f"{key!r} is {compact(arguments[key])}, which the case does not list (strict_args)"
        else:
            pinned = expected.arguments[key].as_json()
            shown_expected[key] = pinned
            if problem.code == "missing_required":
                message = f"{key!r} is missing; the case pins {compact(pinned)}"
            else:
                message = f"{key!r} is {compact(arguments[key])}; the case pins {compact(pinned)}"
        failures.append(
            Failure(
                problem.code,
                f"{label}{_where(received)}: {expected.name}: argument {message}",
                diff_json(shown_expected, arguments),
                received.turn,
                received.position,
            )
        )
    return failures


def _wrong_name(expected: ExpectedCall, received: Received, label: str) -> Failure:
    return Failure(
        "wrong_name",
        f"{label}{_where(received)}: expected a call to {expected.name}, received {received.call.name}",
        diff_json(expected.as_json(), {"name": received.call.name, "arguments": received.call.arguments}, opened=2),
        received.turn,
        received.position,
    )


def _no_call(expected: Sequence[ExpectedCall], context: Context) -> Failure:
    names = ", ".join(call.name for call in expected)
    if context.call_like is not None:
        turn, found = context.call_like
        return Failure(
            "malformed_call",
            f"{context.label}turn {turn}: no call was made, but the answer's text {found.said}; expected {names}",
            diff_lines([_expected_line(call) for call in expected], list(found.shown)),
            turn,
        )
    return Failure(
        "no_call",
        f"{context.label}expected {_calls(len(expected))} ({names}); the model made no call",
        diff_lines([_expected_line(call) for call in expected], ["(no call)"]),
    )


def _count_failures(pairing: _Pairing, label: str, *, missing: bool, extra: bool) -> list[Failure]:
    expected_names = Counter(call.name for call in pairing.expected)
    received_names = Counter(call.call.name for call in pairing.received)
    failures: list[Failure] = []
    counted = {pairing.expected[index].name for index in pairing.missing} if missing else set()
    if extra:
        counted |= {name for index in pairing.extra if (name := pairing.received[index].call.name) in expected_names}
    for name in sorted(counted):
        received_indices = [i for i, call in enumerate(pairing.received) if call.call.name == name]
        first_extra = next((pairing.received[i] for i in pairing.extra if i in received_indices), None)
        failures.append(
            Failure(
                "wrong_count",
                f"{label}expected {_calls(expected_names[name])} to {name}, received {received_names[name]}",
                diff_lines(
                    [_expected_line(call) for call in pairing.expected if call.name == name],
                    [pairing.shown(i) for i in received_indices],
                ),
                None if first_extra is None else first_extra.turn,
                None if first_extra is None else first_extra.position,
            )
        )
    if extra:
        listed = ", ".join(sorted(expected_names)) or "no call"
        for index in pairing.extra:
            call = pairing.received[index]
            if call.call.name not in expected_names:
                failures.append(
                    Failure(
                        "unexpected_call",
                        f"{label}{_where(call)}: unexpected call to {call.call.name} (the expectation lists {listed})",
                        diff_lines([], [_received_line(call)]),
                        call.turn,
                        call.position,
                    )
                )
    return failures


def _call_failures(
    expected: Sequence[ExpectedCall],
    received: Sequence[Received],
    context: Context,
    *,
    allow_missing: bool,
    allow_extra: bool,
) -> tuple[list[Failure], _Pairing]:
    # Under subset a missing expected call is no failure, so a leftover received call is not "instead of" it.
    pairing = _Pairing(expected, received, rename=not allow_missing)
    if not received and expected and not allow_missing:
        return [_no_call(expected, context)], pairing
    failures: list[Failure] = []
    for expected_index, received_index in pairing.same_name.items():
        failures += _argument_failures(expected[expected_index], received[received_index], context.label)
    for expected_index, received_index in pairing.renamed.items():
        failures.append(_wrong_name(expected[expected_index], received[received_index], context.label))
    failures += _count_failures(pairing, context.label, missing=not allow_missing, extra=not allow_extra)
    return failures, pairing


def _order_mismatch(
    alternative: Alternative, turns: Sequence[Sequence[Received]], pairing: _Pairing, label: str
) -> Failure:
    flat = [(call.turn, call.position) for turn in turns for call in turn]
    expected_lines = [" & ".join(_expected_line(call) for call in step) for step in alternative.steps]
    received_lines = [
        " & ".join(pairing.shown(flat.index((call.turn, call.position))) for call in turn) for turn in turns if turn
    ]
    hint = ""
    if len(received_lines) < len(expected_lines):
        hint = (
            f"; {len(expected_lines)} steps need {len(expected_lines)} turns and the calls came in "
            f"{len(received_lines)} (calls made together in one answer are one step: write them as one list)"
        )
    return Failure(
        "order_mismatch",
        f"{label}every expected call was made, but not in the order of the steps ({alternative.mode}){hint}",
        diff_lines(expected_lines, received_lines),
    )


def diagnose(alternative: Alternative, turns: Sequence[Sequence[Received]], context: Context) -> list[Failure]:
    """The failures of one alternative that does not pass, in report order."""
    received = [call for turn in turns for call in turn]
    mode = alternative.mode
    failures, pairing = _call_failures(
        alternative.calls,
        received,
        context,
        allow_missing=mode == "subset",
        allow_extra=mode in ("superset", "in_order"),
    )
    if not failures and mode in ("exact", "in_order"):
        failures.append(_order_mismatch(alternative, turns, pairing, context.label))
    return failures
