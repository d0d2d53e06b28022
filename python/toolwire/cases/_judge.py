"""The judge: a case's turns against its contract first, then against its expectation.

1. The contract, turn by turn: every invalid call (``InvalidToolCall``: unknown tool, arguments that are not JSON or
   break the schema, no name) and every failed error-severity check of the turn's ``ContractReport`` (the shape of
   the response) is a failure. A contract failure is a hard failure, and the expectation is then not judged: a call
   that breaks its schema is never compared with what the case pins.
2. The expectation: ``no_tool_call`` (no call, and no call-looking text), the call sequence (each alternative of
   ``one_of`` in its mode; the first that passes wins, else the closest, with the fewest failures, is reported), and
   the finish reason of the last turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from toolwire._common._json import lookup, pointer_tokens
from toolwire._model import InvalidToolCall, ToolCall, Violation
from toolwire.cases._diagnose import Context, diagnose
from toolwire.cases._diff import compact, diff_lines
from toolwire.cases._match import Received, passes
from toolwire.cases._model import Case, CaseResult, Expectation, Failure, Turn
from toolwire.cases._text import CallLikeText, call_like_text
from toolwire.contract import Check
from toolwire.registry import ToolRegistry

__all__ = ["PORTABLE_FINISH_REASONS", "judge", "portable_finish_reason"]

#: Each provider's finish reason, read in OpenAI Chat's vocabulary so that one case file reads every format.
PORTABLE_FINISH_REASONS: Final = {
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "length": "length",
    "max_tokens": "length",
    "incomplete": "length",
    "content_filter": "content_filter",
    "refusal": "content_filter",
}

# Invalid-call violation codes and the failure each one is.
_VIOLATION_CODES: Final = {
    "UNKNOWN_TOOL": "unknown_tool",
    "INVALID_JSON": "args_not_json",
    "TRAILING_DATA": "args_not_json",
    "TRUNCATED": "args_not_json",
    "ARGUMENTS_NOT_OBJECT": "args_not_json",
    "ARGUMENTS_TOO_LARGE": "args_not_json",
    "TOO_DEEP": "args_not_json",
    "MISSING_REQUIRED_ARGUMENT": "missing_required",
    "UNEXPECTED_ARGUMENT": "unexpected_arg",
    "TYPE_MISMATCH": "schema_violation",
    "ENUM_OUT_OF_RANGE": "schema_violation",
    "CONSTRAINT_VIOLATION": "schema_violation",
}
# Contract checks and the failure each one is; any other check is about the shape of a call: malformed_call.
_CHECK_CODES: Final = {
    "finish_reason": "finish_reason_mismatch",
    "tool_names": "unknown_tool",
    "arguments_string": "args_not_json",
    "arguments_json": "args_not_json",
    "arguments_valid": "schema_violation",
}
# Checks whose findings are the invalid calls' own, reported call by call with their pointers.
_COVERED_BY_CALLS: Final = frozenset({"tool_names", "arguments_json", "arguments_valid"})


def portable_finish_reason(turn: Turn) -> str | None:
    """The turn's finish reason in OpenAI Chat's words: ``tool_calls``, ``stop``, ``length``, ``content_filter``.

    A Responses answer finishes ``completed`` whether it called a tool or not; that reads as ``tool_calls`` when the
    turn has calls, else ``stop``. A reason no table knows is returned as it is.
    """
    reason = turn.finish_reason
    if reason == "completed":
        return "tool_calls" if turn.calls else "stop"
    return None if reason is None else PORTABLE_FINISH_REASONS.get(reason, reason)


def _value_at(arguments: object, pointer: str | None) -> object:
    return lookup(arguments, pointer_tokens(pointer or ""))


def _allowed(violation: Violation) -> str:
    data = violation.data if isinstance(violation.data, dict) else {}
    if "allowed" in data:
        return "one of " + ", ".join(compact(value) for value in data["allowed"])
    if "expected" in data:
        return "of type " + " or ".join(map(str, data["expected"]))
    if "keyword" in data:
        return f"within {data['keyword']} {compact(data.get('limit'))}"
    return "what the schema allows"


def _violation_diff(call: InvalidToolCall, violation: Violation, code: str) -> str:
    at = violation.path or "/"
    if code == "unknown_tool":
        available = violation.data.get("available", []) if isinstance(violation.data, dict) else []
        return diff_lines([f"name: one of {', '.join(available)}"], [f"name: {call.name}"])
    if code == "args_not_json":
        return diff_lines(["arguments: one complete JSON object"], [f"arguments: {(call.arguments_json or '')[:200]}"])
    if code == "missing_required":
        return diff_lines([f"{at}: (required)"], [f"{at}: (absent)"])
    if code == "unexpected_arg":
        return diff_lines([f"{at}: (not allowed)"], [f"{at}: {compact(_value_at(call.arguments, at))}"])
    if code == "schema_violation":
        return diff_lines([f"{at}: {_allowed(violation)}"], [f"{at}: {compact(_value_at(call.arguments, at))}"])
    return diff_lines(["a call with a name and JSON arguments"], [f"{call.name} {(call.arguments_json or '')[:200]}"])


def _invalid_call_failures(turn: int, position: int, call: InvalidToolCall) -> list[Failure]:
    failures = []
    for violation in call.errors:
        code = _VIOLATION_CODES.get(violation.code.value, "malformed_call")
        at = f" at {violation.path}" if violation.path else ""
        failures.append(
            Failure(
                code,
                f"turn {turn}, call {position} ({call.name or 'no name'}): {violation.code.value}{at}: "
                f"{violation.message}",
                _violation_diff(call, violation, code),
                turn,
                position,
            )
        )
    return failures


def _check_code(check: Check, turn: Turn, tools: ToolRegistry) -> str:
    if check.id != "forced_tool":
        return _CHECK_CODES.get(check.id, "malformed_call")
    # A forced tool not called: another tool instead, nothing, or a call written as text.
    if turn.calls:
        return "wrong_name"
    return "malformed_call" if call_like_text(turn.text, tools) else "no_call"


def _contract_failures(case: Case, turns: Sequence[Turn]) -> list[Failure]:
    failures: list[Failure] = []
    for index, turn in enumerate(turns):
        invalid = [(position, call) for position, call in enumerate(turn.calls) if isinstance(call, InvalidToolCall)]
        for position, call in invalid:
            failures += _invalid_call_failures(index, position, call)
        for check in turn.contract.checks:
            if not check.blocking or (invalid and check.id in _COVERED_BY_CALLS):
                continue
            evidence = check.evidence.splitlines() or [check.evidence]
            failures.append(
                Failure(
                    _check_code(check, turn, case.tools),
                    f"turn {index}: contract check {check.id} failed: {evidence[0]}",
                    diff_lines([check.title], evidence),
                    index,
                )
            )
    return failures


def _call_like(case: Case, turns: Sequence[Turn]) -> tuple[int, CallLikeText] | None:
    """The first turn without a call whose text looks like one, and what it holds."""
    for index, turn in enumerate(turns):
        if turn.calls:
            continue
        found = call_like_text(turn.text, case.tools)
        if found is not None:
            return index, found
    return None


def _no_tool_call_failures(case: Case, turns: Sequence[Turn]) -> list[Failure]:
    failures = []
    for index, turn in enumerate(turns):
        for position, call in enumerate(turn.calls):
            failures.append(
                Failure(
                    "unexpected_call",
                    f"turn {index}, call {position}: a call to {call.name} where no tool call is expected",
                    diff_lines(["(no tool call)"], [f"{call.name} {compact(call.arguments)}"]),
                    index,
                    position,
                )
            )
    like = _call_like(case, turns)
    if like is not None:
        index, found = like
        failures.append(
            Failure(
                "malformed_call",
                f"turn {index}: no tool call is expected, and the answer's text {found.said}",
                diff_lines(["(an answer without a tool call)"], list(found.shown)),
                index,
            )
        )
    return failures


def _finish_failures(expect: Expectation, turns: Sequence[Turn]) -> list[Failure]:
    if expect.finish_reason is None:
        return []
    last = turns[-1]
    if last.finish_reason in expect.finish_reason or portable_finish_reason(last) in expect.finish_reason:
        return []
    wanted = " or ".join(map(repr, expect.finish_reason))
    portable = portable_finish_reason(last)
    read_as = f" (read as {portable!r})" if portable != last.finish_reason else ""
    return [
        Failure(
            "finish_reason_mismatch",
            f"turn {len(turns) - 1}: finish reason {last.finish_reason!r}{read_as}; expected {wanted}",
            diff_lines([f"finish_reason: {wanted}"], [f"finish_reason: {last.finish_reason!r}{read_as}"]),
            len(turns) - 1,
        )
    ]


def _sequence_failures(case: Case, turns: Sequence[Turn]) -> tuple[list[Failure], int | None]:
    alternatives = case.expect.alternatives
    if not alternatives:
        return [], None
    received = [
        [Received(index, position, call) for position, call in enumerate(turn.calls) if isinstance(call, ToolCall)]
        for index, turn in enumerate(turns)
    ]
    several = len(alternatives) > 1
    verdicts: list[list[Failure]] = []
    like: tuple[int, CallLikeText] | None = None
    for number, alternative in enumerate(alternatives):
        if passes(alternative, received):
            return [], number if several else None
        if not verdicts:  # each dialect's parser reads the text once, for every alternative that fails
            like = _call_like(case, turns)
        label = f"one_of #{number} (closest of {len(alternatives)}): " if several else ""
        context = Context(label, like)
        verdicts.append(diagnose(alternative, received, context))
    closest = min(range(len(verdicts)), key=lambda number: len(verdicts[number]))
    return verdicts[closest], closest if several else None


def judge(case: Case, turns: Sequence[Turn]) -> CaseResult:
    """Judge the turns of one run of a case: the contract first, then the expectation.

    Args:
        case: The case.
        turns: The model's answers, one per request, in order (one for a single-turn case).

    Returns:
        The result: passed when nothing failed; failures in report order (contract, then ``no_tool_call``, the call
        sequence, the finish reason).

    Raises:
        ValueError: No turn was given.
    """
    turns = tuple(turns)
    if not turns:
        raise ValueError(f"case {case.name!r} ({case.origin}): judge needs at least one turn, got none")
    contract = _contract_failures(case, turns)
    if contract:
        return CaseResult(case.name, False, tuple(contract), turns)
    failures = _no_tool_call_failures(case, turns) if case.expect.no_tool_call else []
    sequence, alternative = _sequence_failures(case, turns)
    failures += sequence
    failures += _finish_failures(case.expect, turns)
    return CaseResult(case.name, not failures, tuple(failures), turns, alternative)
