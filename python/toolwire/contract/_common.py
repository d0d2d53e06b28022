"""What the three formats' checks share: the check table, findings, the forced tool, and the call-level checks.

A format's checker (``StreamChecker``, ``BufferedChecker``) keeps only its grammar: what its events and fields must
be, and how its response ends.

Each format's walker reads its response or stream into ``CallSeen`` records and ``Findings`` (failure evidence per
check id); the call-level checks (``call_ids``, ``tool_names``, ``arguments_json``, ``arguments_valid``,
``forced_tool``) are then judged here, the same way for every format.

Argument text is judged with ``toolwire.validate``, the core's own parser, so a check agrees with what
``reassemble`` would do with the same text: ``arguments_json`` fails on the text codes (``INVALID_JSON`` — named
``TRUNCATED`` when the value never closes and ``TRAILING_DATA`` when data follows it — ``ARGUMENTS_NOT_OBJECT``,
``EMPTY_ARGUMENTS``, ``TOO_DEEP``, ``ARGUMENTS_TOO_LARGE``), ``arguments_valid`` on the schema codes
(``MISSING_REQUIRED_ARGUMENT``, ``UNEXPECTED_ARGUMENT``, ``TYPE_MISMATCH``, ``ENUM_OUT_OF_RANGE``,
``CONSTRAINT_VIOLATION``). ``EMPTY_ARGUMENTS`` fails here although ``reassemble`` only notes it: an empty string is
not the JSON object the format promises, and ``json.loads("")`` is what a naive client does with it.
``DUPLICATE_KEY`` does not fail: the text is still one object.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeGuard

from toolwire._common._json import compact
from toolwire._model import Violation, ViolationCode
from toolwire._pipeline._bound import core
from toolwire._pipeline._choice import ToolChoice, parse_tool_choice
from toolwire.contract._report import Check, CheckStatus
from toolwire.registry import ToolRegistry

__all__ = [
    "MAX_SHOWN",
    "BufferedChecker",
    "CallSeen",
    "CheckSpec",
    "EventWalk",
    "Findings",
    "StreamChecker",
    "call_checks",
    "describe_forced",
    "error_text",
    "is_int",
    "judge",
    "ordered_checks",
    "parse_forced",
    "show",
    "single_group_checks",
    "span",
    "text_of",
    "walk_events",
]

#: Findings shown per check; the rest are counted.
MAX_SHOWN = 12

_TEXT_CODES = frozenset(
    {
        ViolationCode.INVALID_JSON,
        ViolationCode.TRAILING_DATA,
        ViolationCode.TRUNCATED,
        ViolationCode.ARGUMENTS_NOT_OBJECT,
        ViolationCode.EMPTY_ARGUMENTS,
        ViolationCode.TOO_DEEP,
        ViolationCode.ARGUMENTS_TOO_LARGE,
    }
)
_SCHEMA_CODES = frozenset(
    {
        ViolationCode.MISSING_REQUIRED_ARGUMENT,
        ViolationCode.UNEXPECTED_ARGUMENT,
        ViolationCode.TYPE_MISMATCH,
        ViolationCode.ENUM_OUT_OF_RANGE,
        ViolationCode.CONSTRAINT_VIOLATION,
    }
)
_TEXT_FIX = {
    "TRUNCATED": "send the whole object (a cut value usually means max_tokens ran out or the stream was cut)",
    "TRAILING_DATA": "send exactly one JSON object per call and nothing after it",
    "INVALID_JSON": "send RFC 8259 JSON text",
    "ARGUMENTS_NOT_OBJECT": "send a JSON object ('{}' for a tool without parameters)",
    "EMPTY_ARGUMENTS": "send '{}' for a call without arguments, not an empty string",
}


@dataclass(frozen=True)
class CheckSpec:
    """One row of a format's check table.

    Attributes:
        id: The check id.
        title: What it asserts, in one line.
        severity: ``"error"`` or ``"warning"``.
        streamed_only: Left out of buffered reports (it is about chunks or events).
    """

    id: str
    title: str
    severity: Literal["error", "warning"] = "error"
    streamed_only: bool = False


class Findings:
    """Failure evidence gathered per check id while walking a response or a stream."""

    def __init__(self) -> None:
        """Start with no finding."""
        self._found: dict[str, list[str]] = {}

    def add(self, check_id: str, evidence: str) -> None:
        """Record one failure of ``check_id``, with what was seen, where, and the fix."""
        self._found.setdefault(check_id, []).append(evidence)

    def get(self, check_id: str) -> list[str]:
        """The failures recorded for ``check_id``."""
        return self._found.get(check_id, [])


class StreamChecker(Protocol):
    """A format's checks of one streamed response (``check_stream`` picks it by format)."""

    def __call__(
        self, events: Sequence[object], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings, /
    ) -> tuple[Check, ...]:
        """The checks of the stream, in the order of the format's table.

        Args:
            events: The decoded chunks or events, in order (anything that is not a dict is a malformed one).
            registry: The declared tools, or None.
            forced: What ``tool_choice`` demanded, or None.
            findings: Findings made while reading the source (``well_formed``).
        """


class BufferedChecker(Protocol):
    """A format's checks of one buffered response (``check_completion`` picks it by format)."""

    def __call__(
        self,
        response: Mapping[str, Any],
        registry: ToolRegistry | None,
        forced: ToolChoice | None,
        findings: Findings,
        /,
    ) -> tuple[Check, ...]:
        """The checks of the response, in the order of the format's table, the streamed-only ones left out.

        Args:
            response: The response as plain JSON data.
            registry: The declared tools, or None.
            forced: What ``tool_choice`` demanded, or None.
            findings: Findings made while reading the source (``well_formed``), kept.
        """


class EventWalk(Protocol):
    """The reader of a format whose response is one group of calls (no choices): fed each event, it keeps them."""

    text: list[str]

    def event(self, number: int, event: object) -> None:
        """Read event ``number``, recording what breaks the format's grammar in the walk's findings."""

    def calls(self) -> list[CallSeen]:
        """Every call read, in the order the stream opened them."""


def walk_events(walk: EventWalk, events: Sequence[object]) -> list[CallSeen]:
    """Feed every event to ``walk`` in order; the calls it read."""
    for number, event in enumerate(events):
        walk.event(number, event)
    return walk.calls()


def ordered_checks(specs: Sequence[CheckSpec], results: Mapping[str, Check], *, streamed: bool) -> tuple[Check, ...]:
    """The checks in the order of their table; a buffered report leaves the streamed-only ones out."""
    return tuple(results[spec.id] for spec in specs if streamed or not spec.streamed_only)


def error_text(error: object) -> str:
    """What an error object (or a bare error value) says, as evidence shows it."""
    message = error.get("message") if isinstance(error, Mapping) else error
    return show(message, 120)


def judge(
    spec: CheckSpec,
    failures: Sequence[str],
    *,
    passed: str,
    not_applicable: str | None = None,
    note: str | None = None,
) -> Check:
    """The check for ``spec``: failed with ``failures`` when there are any, else not applicable or passed."""
    if failures:
        shown = list(failures[:MAX_SHOWN])
        if len(failures) > MAX_SHOWN:
            shown.append(f"... and {len(failures) - MAX_SHOWN} more like these")
        return Check(spec.id, spec.title, CheckStatus.FAILED, "\n".join(shown), spec.severity)
    if not_applicable is not None:
        return Check(spec.id, spec.title, CheckStatus.NOT_APPLICABLE, not_applicable, spec.severity)
    return Check(spec.id, spec.title, CheckStatus.PASSED, passed, spec.severity, note)


def show(value: object, limit: int = 60) -> str:
    """A value as evidence: its ``repr``, cut to ``limit`` characters (control characters stay escaped)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an integer as JSON has them (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def text_of(value: object) -> str:
    """JSON text for an argument value sent as an object: its compact canonical form (``repr`` if it has none)."""
    try:
        return compact(value)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def parse_forced(forced: object) -> ToolChoice | None:
    """What ``forced=`` demands: None (nothing forced), a required call, or a named tool.

    Raises:
        ValueError: An empty string.
        TypeError: Anything that is neither a string nor a ``tool_choice`` in a provider's shape.
    """
    if forced is None:
        return None
    if isinstance(forced, str):
        if forced in ("auto", "none"):
            return None
        if forced in ("required", "any"):
            return ToolChoice(required=True)
        if not forced:
            raise ValueError("forced must name a tool, or be 'required'/'any', a tool_choice or None; got ''")
        return ToolChoice(required=True, name=forced)
    choice = parse_tool_choice(forced)
    return choice if choice.required else None


def describe_forced(forced: ToolChoice) -> str:
    """The demand in words, for evidence."""
    return f"tool_choice forced {forced.name!r}" if forced.name else "tool_choice required a tool call"


@dataclass
class CallSeen:
    """One tool call as a walker read it.

    Attributes:
        label: Names it in evidence: choice, index or block, call id, tool name.
        where: Where it came from: ``"chunks 2-5"``, ``"events 3-9"``, ``"choices[0].message.tool_calls[1]"``.
        id: Its id as sent (first non-empty arrival), or None.
        name: Its tool name as sent, or None.
        arguments: Its arguments in every rendition received, the one a client would dispatch first:
            ``(what, value)`` with ``value`` JSON text (str) or an already parsed value.
        group: The choice it belongs to (0 for formats without choices).
    """

    label: str
    where: str
    id: object = None
    name: object = None
    arguments: list[tuple[str, object]] = field(default_factory=list)
    group: int = 0


@functools.cache
def _no_tools() -> ToolRegistry:
    return ToolRegistry()


def _validate(name: str, text: str, registry: ToolRegistry) -> list[Violation]:
    return core.validate(name, text, registry)


def _text_problem(violation: Violation) -> tuple[str, str]:
    """(code as a stream reports it, message) for a text finding of ``validate``."""
    code = violation.code.value
    if violation.code is ViolationCode.INVALID_JSON and "EOF while parsing" in violation.message:
        code = "TRUNCATED"
    elif violation.code is ViolationCode.INVALID_JSON and "trailing characters" in violation.message:
        code = "TRAILING_DATA"
    return code, violation.message


def _as_text(value: object) -> tuple[str | None, str | None]:
    """(JSON text to check, problem) for one rendition of a call's arguments."""
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping):
        return text_of(value), None
    if value is None:
        return "", None
    return None, f"{show(value)} ({type(value).__name__}) is not a JSON object"


def _check_ids(calls: Sequence[CallSeen], id_field: str) -> list[str]:
    failures = []
    for call in calls:
        if call.id is None:
            failures.append(
                f"{call.label} ({call.where}): no {id_field} was sent; "
                f"fix: give every call a unique non-empty {id_field} string"
            )
        elif not isinstance(call.id, str) or not call.id:
            failures.append(
                f"{call.label} ({call.where}): {id_field} {show(call.id)} is not a non-empty string; "
                f"fix: give every call a unique non-empty {id_field} string"
            )
    return failures


def _check_names(calls: Sequence[CallSeen], registry: ToolRegistry | None) -> list[str]:
    failures = []
    for call in calls:
        if not isinstance(call.name, str) or not call.name:
            failures.append(
                f"{call.label} ({call.where}): tool name {show(call.name)} is not a non-empty string; "
                "fix: send the called tool's name"
            )
        elif registry is not None and call.name not in registry and not registry.is_server_tool(call.name):
            close = difflib.get_close_matches(call.name, registry.names, n=1)
            hint = f" (closest: {close[0]!r})" if close else ""
            declared = ", ".join(map(repr, registry.names)) or "none"
            failures.append(
                f"{call.label} ({call.where}): {call.name!r} is not a declared tool{hint} (UNKNOWN_TOOL); "
                f"fix: call only declared tools (declared: {declared})"
            )
    return failures


def _check_json(calls: Sequence[CallSeen]) -> list[str]:
    failures = []
    for call in calls:
        for what, value in call.arguments:
            text, problem = _as_text(value)
            if text is not None:
                found = [v for v in _validate("_", text, _no_tools()) if v.code in _TEXT_CODES]
                if not found:
                    continue
                code, message = _text_problem(found[0])
                problem = f"{show(text)} is not one JSON object: {code} ({message})"
            else:
                code = "ARGUMENTS_NOT_OBJECT"
            fix = _TEXT_FIX.get(code, "send arguments within the size and nesting limits")
            failures.append(
                f"{call.label} ({call.where}): {what} {problem} — checked with toolwire.validate; fix: {fix}"
            )
    return failures


def _dispatched(call: CallSeen) -> str | None:
    """The JSON text a client would dispatch for ``call``, when it is one JSON object; else None."""
    if not call.arguments:
        return None
    text, _ = _as_text(call.arguments[0][1])
    if text is None or any(v.code in _TEXT_CODES for v in _validate("_", text, _no_tools())):
        return None
    return text


def _check_valid(calls: Sequence[CallSeen], registry: ToolRegistry) -> tuple[list[str], int]:
    failures = []
    checked = 0
    for call in calls:
        text = _dispatched(call)
        if not isinstance(call.name, str) or call.name not in registry or text is None:
            continue  # unknown tools are tool_names' finding, unparsed arguments arguments_json's
        checked += 1
        for violation in _validate(call.name, text, registry):
            if violation.code in _SCHEMA_CODES:
                failures.append(
                    f"{call.label} ({call.where}): {violation.code.value} at {violation.path or '/'}: "
                    f"{violation.message} — checked with toolwire.validate against {call.name!r}'s schema; "
                    "fix: send arguments that match the tool's parameters schema"
                )
    return failures, checked


def _check_forced(
    forced: ToolChoice, groups: Mapping[int, Sequence[CallSeen]], texts: Mapping[int, str], unit: str
) -> list[str]:
    failures = []
    demand = describe_forced(forced)
    for group in sorted(set(groups) | set(texts) | {0}):
        calls = groups.get(group, ())
        who = f"{unit} {group}" if unit else "the response"
        if not calls:
            prose = texts.get(group, "")
            instead = f"answered with text {show(prose)} and " if prose else ""
            failures.append(
                f"{who} {instead}made no tool call although {demand} (TOOL_CHOICE_IGNORED); "
                "fix: honour tool_choice and answer with the tool call"
            )
        for call in calls:
            if forced.name is not None and call.name != forced.name:
                failures.append(
                    f"{call.label} ({call.where}) calls {show(call.name)} although {demand} (TOOL_CHOICE_IGNORED); "
                    "fix: call the forced tool"
                )
    return failures


def call_checks(
    specs: Mapping[str, CheckSpec],
    calls: Sequence[CallSeen],
    *,
    registry: ToolRegistry | None,
    forced: ToolChoice | None,
    texts: Mapping[int, str],
    findings: Findings,
    id_field: str = "call id",
    unit: str = "choice",
) -> dict[str, Check]:
    """The call-level checks of every format, over the calls a walker read.

    Args:
        specs: The format's check table by id (only the ids present are judged).
        calls: Every call, in stream order.
        registry: The declared tools, or None.
        forced: What ``tool_choice`` demanded, or None.
        texts: The prose of each choice (for ``forced_tool``'s evidence).
        findings: The walker's own findings, added to the checks' (for example a non-string fragment).
        id_field: What the format calls a call's id (``call id``, ``tool_use id``, ``call_id``).
        unit: What a group of calls is (``choice``), or ``""`` for a format with one group.

    Returns:
        The checks by id.
    """
    no_calls = "no tool call was made" if not calls else None
    no_tools = "no tools declared" if registry is None else None
    results: dict[str, Check] = {}
    results["call_ids"] = judge(
        specs["call_ids"],
        [*findings.get("call_ids"), *_check_ids(calls, id_field)],
        passed=f"{len(calls)} call(s), each with a non-empty {id_field}",
        not_applicable=no_calls,
    )
    names = _check_names(calls, registry)
    results["tool_names"] = judge(
        specs["tool_names"],
        [*findings.get("tool_names"), *names],
        passed=f"every name among the declared tools ({', '.join(registry.names) if registry else ''})",
        not_applicable=no_calls or no_tools,
    )
    results["arguments_json"] = judge(
        specs["arguments_json"],
        [*findings.get("arguments_json"), *_check_json(calls)],
        passed=f"{len(calls)} call(s): arguments are one JSON object each (checked with toolwire.validate)",
        not_applicable=no_calls,
    )
    results["arguments_valid"] = _valid_check(specs["arguments_valid"], calls, registry, no_calls)
    if forced is None:
        results["forced_tool"] = judge(specs["forced_tool"], [], passed="", not_applicable="no tool choice forced")
    else:
        groups: dict[int, list[CallSeen]] = {}
        for call in calls:
            groups.setdefault(call.group, []).append(call)
        results["forced_tool"] = judge(
            specs["forced_tool"],
            _check_forced(forced, groups, texts, unit),
            passed=f"{describe_forced(forced)} and the response called it",
        )
    return results


def single_group_checks(
    specs: Mapping[str, CheckSpec],
    calls: Sequence[CallSeen],
    text: Iterable[str],
    *,
    registry: ToolRegistry | None,
    forced: ToolChoice | None,
    findings: Findings,
    id_field: str,
) -> dict[str, Check]:
    """``call_checks`` of a format whose response is one group of calls, with ``text`` its prose."""
    texts = {0: "".join(text)}
    return call_checks(
        specs, calls, registry=registry, forced=forced, texts=texts, findings=findings, id_field=id_field, unit=""
    )


def _valid_check(
    spec: CheckSpec, calls: Sequence[CallSeen], registry: ToolRegistry | None, no_calls: str | None
) -> Check:
    if registry is None:
        return judge(spec, [], passed="", not_applicable="no tools declared")
    failures, checked = _check_valid(calls, registry)
    unchecked = "no call has both a declared tool name and arguments that parse" if not checked else None
    return judge(
        spec,
        failures,
        passed=f"{checked} call(s) valid against their tool's schema (toolwire.validate)",
        not_applicable=no_calls or unchecked,
    )


def span(label: str, numbers: Iterable[int]) -> str:
    """``"chunk 3"`` or ``"chunks 2-5"`` for the event numbers a call was seen in."""
    seen = list(numbers)
    if not seen:
        return f"no {label}"
    if seen[0] == seen[-1]:
        return f"{label} {seen[0]}"
    return f"{label}s {seen[0]}-{seen[-1]}"
