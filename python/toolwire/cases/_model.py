"""The values of a case file and of a judged run: cases, expectations, matchers, turns, failures and results.

Plain frozen dataclasses; the loader (``_load``) builds the case side, ``turn_from_response`` (``_turn``) the turns, and
the judge (``_judge``) the results. Positions are 0-based everywhere (``cases.yaml#3`` is the fourth case, ``turn 0``
the first request), as ``toolwire.schema`` numbers tool definitions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

from toolwire._common._json_data import json_fields
from toolwire._model import InvalidToolCall, StreamResult, ToolCall
from toolwire.contract import ContractReport
from toolwire.registry import ToolRegistry

if TYPE_CHECKING:
    from toolwire._model import Violation

__all__ = [
    "FAILURE_CODES",
    "MATCHER_TYPES",
    "MODES",
    "Alternative",
    "Case",
    "CaseFile",
    "CaseResult",
    "Expectation",
    "ExpectedCall",
    "Failure",
    "Matcher",
    "Mode",
    "Turn",
]

Mode = Literal["exact", "in_order", "unordered", "superset", "subset"]

#: Every expectation mode, with what it demands. The direction is always "received relative to expected".
MODES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "exact": "the received turns are the expected steps, one turn per step, in order; within a step the calls are "
        "a set; no call more, none less",
        "in_order": "each expected step is found within one turn (its calls among that turn's), each step in a later "
        "turn than the step before; extra calls and extra turns anywhere are allowed",
        "unordered": "the received calls are the expected calls in any order and any turns: the same multiset, no "
        "call more, none less",
        "superset": "the received calls include every expected call (each matched by a distinct received call), in "
        "any order; extra received calls are allowed",
        "subset": "every received call is one of the expected calls (each matched by a distinct expected call); "
        "expected calls may be missing, so no call at all passes",
    }
)

#: Every failure code the judge reports, with its one-line meaning; the order is the report order of a table.
FAILURE_CODES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "wrong_name": "a call to a declared tool other than the one expected (or than the forced one)",
        "unknown_tool": "a call to a tool the request did not declare (contract)",
        "args_not_json": "a call's arguments are not one complete JSON object: invalid, truncated, trailing data, "
        "not an object, too large or too deep (contract)",
        "schema_violation": "a call's arguments break its tool's schema: wrong type, value outside an enum, a "
        "constraint (contract)",
        "missing_required": "an argument is missing that the schema requires (contract) or that the case pins without "
        "optional: true",
        "unexpected_arg": "an argument the schema forbids (contract), or one the case does not list under "
        "strict_args: true",
        "value_mismatch": "a pinned argument has another value than the case allows",
        "wrong_count": "a tool was called more or fewer times than expected",
        "order_mismatch": "the expected calls were all made, but not in the expected order or grouping into turns",
        "unexpected_call": "a call to a tool the expectation does not list, or any call where no_tool_call is expected",
        "no_call": "calls were expected and the model made none",
        "malformed_call": "something that looks like a tool call but is none: call-like text instead of a call, a "
        "call without a name, or a broken call shape (contract)",
        "finish_reason_mismatch": "the finish reason is not the expected one, or breaks the format's contract",
    }
)

#: The type-only matchers (``{is: any_string}``): which JSON values each accepts.
MATCHER_TYPES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "any": "any value (the argument must be present)",
        "any_string": "a string",
        "any_integer": "an integer (1.0 counts: JSON Schema says so), never a boolean",
        "any_number": "an integer or a float, never a boolean",
        "any_boolean": "true or false",
        "any_object": "an object",
        "any_array": "an array",
    }
)

MatcherKind = Literal["literal", "object", "array", "one_of", "regex", "type"]


@dataclass(frozen=True)
class Matcher:
    """What a pinned argument (or a value inside a pinned literal) may be.

    Attributes:
        kind: ``literal`` (``value`` is the JSON value, compared by value: ``1 == 1.0``, ``true`` never ``1``, a
            string never a number), ``object`` (a literal object with matchers inside: ``value`` is a tuple of
            ``(key, Matcher)``, and the received object must have exactly those keys but the optional ones),
            ``array`` (a literal array with matchers inside: ``value`` is a tuple of ``Matcher``), ``one_of``
            (``value`` is a tuple of ``Matcher``, any of which may match), ``regex`` (``value`` is the pattern, which
            must match the whole string) or ``type`` (``value`` is a key of ``MATCHER_TYPES``).
        optional: The argument (or object member) may be left out; when present it must match.
    """

    kind: MatcherKind
    value: Any
    optional: bool = False

    def as_json(self) -> Any:
        """The matcher as a case file spells it, for reports."""
        if self.kind == "object":
            shown: Any = {key: matcher.as_json() for key, matcher in self.value}
        elif self.kind == "array":
            shown = [matcher.as_json() for matcher in self.value]
        elif self.kind == "one_of":
            shown = {"one_of": [matcher.as_json() for matcher in self.value]}
        elif self.kind == "regex":
            shown = {"regex": self.value}
        elif self.kind == "type":
            shown = {"is": self.value}
        else:
            shown = self.value
        if not self.optional:
            return shown
        if isinstance(shown, dict) and self.kind in ("one_of", "regex", "type"):
            return {**shown, "optional": True}
        return {"exact": shown, "optional": True}


@dataclass(frozen=True)
class ExpectedCall:
    """One expected call.

    Attributes:
        name: The tool name.
        arguments: The pinned arguments by name; arguments not listed may be anything schema-valid, unless
            ``strict_args``.
        strict_args: Arguments not listed here are failures (``unexpected_arg``).
    """

    name: str
    arguments: Mapping[str, Matcher] = field(default_factory=dict)
    strict_args: bool = False

    def as_json(self) -> dict[str, Any]:
        """The call as ``{"name", "arguments"}`` with the matchers spelled as in the case file."""
        return {"name": self.name, "arguments": {key: matcher.as_json() for key, matcher in self.arguments.items()}}


#: One step of an expected sequence: the calls of one turn, a set.
Step = tuple[ExpectedCall, ...]


@dataclass(frozen=True)
class Alternative:
    """One acceptable sequence of calls.

    Attributes:
        steps: The steps in order; each step is the set of calls of one turn (one call, or several in parallel).
        mode: How the received calls are compared with the steps (``MODES``).
    """

    steps: tuple[Step, ...]
    mode: Mode = "exact"

    @property
    def calls(self) -> tuple[ExpectedCall, ...]:
        """Every expected call, step after step."""
        return tuple(call for step in self.steps for call in step)


@dataclass(frozen=True)
class Expectation:
    """What a case expects of the model's answers.

    Attributes:
        alternatives: The acceptable call sequences (``calls``, or each of ``one_of``); any one passing is enough.
            Empty when the case pins no sequence.
        no_tool_call: Calling any tool is the regression: zero calls, and no call-looking text either.
        finish_reason: The finish reasons accepted for the last turn (raw, or portable: ``tool_calls``, ``stop``,
            ``length``, ``content_filter``), or None to accept any.
    """

    alternatives: tuple[Alternative, ...] = ()
    no_tool_call: bool = False
    finish_reason: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Case:
    """One case of a case file, with its defaults applied and its tools loaded.

    Attributes:
        name: Unique within its file.
        messages: The conversation sent first, as ``{"role", "content"}`` messages (a ``prompt`` is one user
            message). Roles are ``system``, ``developer``, ``user`` and ``assistant``; the runner puts a system
            message where the wire format wants it.
        tools: The tools offered with every request of the case.
        tool_choice: ``"auto"``, ``"none"``, ``"required"``, ``{"name": ...}`` or None (not sent); see
            ``tool_choice_for`` for each wire format's spelling.
        expect: The expectation.
        tool_results: The canned result of each tool by name, sent back for every call to it when the case runs
            more than one turn (a string as it is, anything else as JSON text).
        max_turns: 1: one request. More: the agent loop, answering each call with its canned result and asking
            again, until a turn brings no call or ``max_turns`` requests were made.
        min_pass_rate: The share of repeats that must pass for the (case, model) cell to pass.
        origin: ``"cases.yaml#3"``: the file and the case's position, for messages.
        repeat: How many times the case is run against each model.
    """

    name: str
    messages: tuple[Mapping[str, Any], ...]
    tools: ToolRegistry
    tool_choice: Any | None
    expect: Expectation
    tool_results: Mapping[str, Any]
    max_turns: int
    min_pass_rate: float
    origin: str
    repeat: int = 1

    def wants_next_turn(self, turns: Sequence[Turn]) -> bool:
        """Whether the agent loop asks again after ``turns``: the last one brought a call and turns are left."""
        return 0 < len(turns) < self.max_turns and bool(turns[-1].calls)


@dataclass(frozen=True)
class CaseFile:
    """A loaded case file.

    Attributes:
        path: The file.
        cases: Its cases, in file order.
        defaults: Its ``defaults:`` as written (empty when absent).
        tools: The file-level tools (or those given to ``load_cases``), or None when each case names its own.
    """

    path: Path
    cases: tuple[Case, ...]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    tools: ToolRegistry | None = None

    def __getitem__(self, name: str) -> Case:
        """The case called ``name``.

        Raises:
            KeyError: No case has that name (the message lists them).
        """
        for case in self.cases:
            if case.name == name:
                return case
        raise KeyError(f"{self.path}: no case named {name!r}; its cases are {[case.name for case in self.cases]}")


def _call_json(call: ToolCall | InvalidToolCall) -> dict[str, Any]:
    data: dict[str, Any] = {"id": call.id, "name": call.name, "arguments": call.arguments, "ok": call.ok}
    if isinstance(call, InvalidToolCall):
        data["arguments_json"] = call.arguments_json
        data["errors"] = [_violation_json(violation) for violation in call.errors]
    return data


def _violation_json(violation: Violation) -> dict[str, Any]:
    return {"code": violation.code.value, "path": violation.path, "message": violation.message}


@dataclass(frozen=True)
class Turn:
    """What the model answered in one request.

    Attributes:
        calls: Every call of the answer's first choice, valid and invalid, in the order the model opened them.
        text: The assistant's text.
        finish_reason: The finish reason as the provider spelled it (``tool_calls``, ``tool_use``, ``completed``...).
        contract: The shape check of the raw response (``toolwire.contract``).
        result: The reassembled result, which ``next_messages`` writes back into the conversation; None for a turn
            built by hand.
        format: The wire format the answer was read as.
    """

    calls: tuple[ToolCall | InvalidToolCall, ...]
    text: str
    finish_reason: str | None
    contract: ContractReport
    result: StreamResult | None = field(default=None, repr=False, compare=False)
    format: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The turn as plain JSON data (the contract report included)."""
        calls = [_call_json(call) for call in self.calls]
        return json_fields(self, "calls text finish_reason format contract", calls=calls)


@dataclass(frozen=True)
class Failure:
    """One reason a case failed.

    Attributes:
        code: One of ``FAILURE_CODES``.
        message: One line for people.
        diff: Expected against received, one ``-`` line per expected line and one ``+`` line per received line that
            differ; lines both share are shown indented by two spaces.
        turn: The turn concerned (0-based), when one is.
        call: The position of the received call concerned in its turn (0-based), when one is.
    """

    code: str
    message: str
    diff: str = ""
    turn: int | None = None
    call: int | None = None

    def __post_init__(self) -> None:
        """Refuse a code outside ``FAILURE_CODES``: reports and policies rely on them being stable."""
        if self.code not in FAILURE_CODES:
            raise ValueError(f"failure code must be one of {', '.join(FAILURE_CODES)}; got {self.code!r}")

    def as_dict(self) -> dict[str, Any]:
        """The failure as plain JSON data."""
        return json_fields(self, "code message diff turn call")


@dataclass(frozen=True)
class CaseResult:
    """The verdict on one run of one case.

    Attributes:
        case: The case's name.
        passed: No failure.
        failures: Contract failures first, then those of the expectation (of the closest alternative when several
            were acceptable and none passed).
        turns: The turns judged.
        alternative: Which alternative of ``one_of`` passed, or was the closest when none did (0-based); None when the
            case has a single sequence or none.
    """

    case: str
    passed: bool
    failures: tuple[Failure, ...]
    turns: tuple[Turn, ...]
    alternative: int | None = None

    @property
    def codes(self) -> tuple[str, ...]:
        """The failure codes, in report order."""
        return tuple(failure.code for failure in self.failures)

    def as_dict(self) -> dict[str, Any]:
        """The result as plain JSON data: every failure with its diff, every turn with its contract report."""
        return json_fields(self, "case passed alternative failures turns")
