"""OpenAI Responses: the checks of a buffered ``response`` object and of a stream of ``response.*`` events.

A ``function_call`` output item is a call. Streamed, its arguments come as the added item's ``arguments`` followed by
the ``function_call_arguments.delta`` texts, and again whole in ``function_call_arguments.done`` and in the
``output_item.done`` item: a client dispatches the ``.done`` text, and ``arguments_json`` checks every rendition
received (the deltas joined too), so a broken text fails wherever it appears.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire._pipeline._choice import ToolChoice
from toolwire.contract._common import (
    CallSeen,
    CheckSpec,
    Findings,
    error_text,
    is_int,
    judge,
    ordered_checks,
    show,
    single_group_checks,
    span,
    walk_events,
)
from toolwire.contract._report import Check
from toolwire.registry import ToolRegistry

__all__ = ["SPECS", "check_responses_response", "check_responses_stream"]

SPECS: tuple[CheckSpec, ...] = (
    CheckSpec("finish_reason", "the response ends with status 'completed' when it calls (one terminal event)"),
    CheckSpec("call_ids", "every function_call's call_id is a non-empty string"),
    CheckSpec("tool_names", "every tool name is among the declared tools"),
    CheckSpec("arguments_string", "arguments are a string (streamed: every delta and .done)"),
    CheckSpec("arguments_json", "each call's arguments are one JSON object, nothing else"),
    CheckSpec("arguments_valid", "each call's arguments validate against its tool's schema"),
    CheckSpec("forced_tool", "a forced tool choice is honoured: a function_call, and of the named tool"),
    CheckSpec(
        "item_lifecycle",
        "each item is added once, deltas name an added item, .done arguments equal the concatenated deltas",
        streamed_only=True,
    ),
    CheckSpec("well_formed", "every event (buffered: the response) is a JSON object of the format's shape"),
)
_BY_ID = {spec.id: spec for spec in SPECS}
_TERMINALS = frozenset({"response.completed", "response.incomplete", "response.failed", "response.cancelled"})


def _status_problem(status: object, calls: int, error: object) -> str | None:
    if status is None:
        return "no status; fix: end the response with a terminal status"
    if not isinstance(status, str):
        return f"status {show(status)} is not a string"
    if status == "failed":
        return f"the response failed: {error_text(error)}; fix: see the provider's error"
    if calls and status != "completed":
        return (
            f"status {status!r} although {calls} function_call(s) were made; fix: complete the response (an "
            "'incomplete' response was cut, by max_output_tokens or a filter, and its calls may be cut too)"
        )
    if status not in ("completed", "incomplete"):
        return f"status {status!r} is not a finished response; fix: end with 'completed'"
    return None


def _arguments_string(findings: Findings, label: str, where: str, value: object) -> None:
    if not isinstance(value, str):
        findings.add(
            "arguments_string",
            f"{label} ({where}): arguments is {show(value)} ({type(value).__name__}), not a string "
            "(ARGUMENTS_NOT_STRING); fix: send the arguments as JSON text",
        )


def _call(item: Mapping[str, Any], label: str, where: str) -> CallSeen:
    return CallSeen(
        label=f"{label}, call_id {show(item.get('call_id'))} ({show(item.get('name'))})",
        where=where,
        id=item.get("call_id"),
        name=item.get("name"),
    )


def check_responses_response(
    response: Mapping[str, Any], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings
) -> tuple[Check, ...]:
    """The ``BufferedChecker`` of a Responses ``response``."""
    calls: list[CallSeen] = []
    text: list[str] = []
    output = response.get("output")
    if not isinstance(output, list):
        findings.add("well_formed", f"output is {show(output)}, not a list of items")
        output = []
    for position, item in enumerate(output):
        where = f"output[{position}]"
        if not isinstance(item, Mapping):
            findings.add("well_formed", f"{where} is {show(item)}, not an item object")
            continue
        if item.get("type") == "message":
            text.extend(_message_text(item))
        if item.get("type") != "function_call":
            continue
        call = _call(item, f"output_index {position}", where)
        _arguments_string(findings, call.label, where, item.get("arguments"))
        call.arguments.append(("arguments", item.get("arguments")))
        calls.append(call)
    results = single_group_checks(
        _BY_ID, calls, text, registry=registry, forced=forced, findings=findings, id_field="call_id"
    )
    problem = _status_problem(response.get("status"), len(calls), response.get("error"))
    results["finish_reason"] = judge(
        _BY_ID["finish_reason"],
        [problem] if problem else [],
        passed=f"status {response.get('status')!r} after {len(calls)} function_call(s)",
    )
    results["arguments_string"] = judge(
        _BY_ID["arguments_string"],
        findings.get("arguments_string"),
        passed="arguments sent as strings",
        not_applicable=None if calls else "no tool call was made",
    )
    results["well_formed"] = judge(_BY_ID["well_formed"], findings.get("well_formed"), passed="a response object")
    return ordered_checks(SPECS, results, streamed=False)


def _message_text(item: Mapping[str, Any]) -> list[str]:
    content = item.get("content")
    if not isinstance(content, list):
        return []
    return [
        part["text"]
        for part in content
        if isinstance(part, Mapping) and part.get("type") == "output_text" and isinstance(part.get("text"), str)
    ]


@dataclass(eq=False)
class _Item:
    """One output item as its events arrive."""

    output_index: object
    id: object
    added: int
    call: CallSeen | None = None
    base: str = ""
    deltas: list[str] = field(default_factory=list)
    done: tuple[int, str] | None = None
    item_done: tuple[int, str] | None = None
    events: list[int] = field(default_factory=list)


class _Stream:
    """Reads a Responses event stream."""

    def __init__(self, findings: Findings) -> None:
        self.findings = findings
        self.items: dict[int, _Item] = {}
        self.by_id: dict[str, _Item] = {}
        self.every_item: list[_Item] = []
        self.text: list[str] = []
        self.terminals: list[tuple[int, str, object, object]] = []
        self.errors: list[str] = []

    def event(self, number: int, event: object) -> None:
        if not isinstance(event, Mapping):
            self.findings.add("well_formed", f"event {number}: {show(event)} is not a JSON object")
            return
        kind = event.get("type")
        if not isinstance(kind, str):
            self.findings.add("well_formed", f"event {number}: type is {show(kind)}; fix: send the event's type")
        elif kind == "response.output_item.added":
            self._added(number, event)
        elif kind == "response.function_call_arguments.delta":
            self._argument_event(number, kind, event, "delta")
        elif kind == "response.function_call_arguments.done":
            self._argument_event(number, kind, event, "arguments")
        elif kind == "response.output_item.done":
            self._item_done(number, event)
        elif kind in _TERMINALS:
            response = event.get("response")
            response = response if isinstance(response, Mapping) else {}
            status = response.get("status", kind.removeprefix("response."))
            self.terminals.append((number, kind, status, response.get("error")))
        elif kind == "error":
            self.errors.append(f"event {number} is an error event: {error_text(event)}")
        elif kind == "response.output_text.delta" and isinstance(event.get("delta"), str):
            self.text.append(event["delta"])

    def _added(self, number: int, event: Mapping[str, Any]) -> None:
        index = event.get("output_index")
        item = event.get("item")
        if not isinstance(item, Mapping):
            self.findings.add("well_formed", f"event {number}: item is {show(item)}, not an object")
            item = {}
        if is_int(index) and index in self.items:
            self.findings.add(
                "item_lifecycle",
                f"event {number}: output_index {index} is added again (first at event {self.items[index].added}); "
                "fix: add each output item once",
            )
        entry = _Item(output_index=index, id=item.get("id"), added=number, events=[number])
        if item.get("type") == "function_call":
            entry.call = _call(item, f"output_index {index}", "")
            arguments = item.get("arguments")
            if arguments is not None:
                _arguments_string(self.findings, entry.call.label, f"event {number}", arguments)
            entry.base = arguments if isinstance(arguments, str) else ""
        if is_int(index):
            self.items[index] = entry
        if isinstance(entry.id, str):
            self.by_id.setdefault(entry.id, entry)
        self.every_item.append(entry)

    def _find(self, number: int, kind: str, event: Mapping[str, Any]) -> _Item | None:
        index = event.get("output_index")
        item_id = event.get("item_id")
        item = self.items.get(index) if is_int(index) else None
        if item is None and isinstance(item_id, str):
            item = self.by_id.get(item_id)
        if item is None:
            self.findings.add(
                "item_lifecycle",
                f"event {number} ({kind}) names no added item (output_index {show(index)}, item_id {show(item_id)}); "
                "fix: send response.output_item.added before the item's other events",
            )
            return None
        if isinstance(item_id, str) and isinstance(item.id, str) and item_id != item.id:
            self.findings.add(
                "item_lifecycle",
                f"event {number} ({kind}) names item_id {item_id!r} but output_index {show(index)} holds item "
                f"{item.id!r}; fix: keep one item id for all of an item's events",
            )
        item.events.append(number)
        return item

    def _argument_event(self, number: int, kind: str, event: Mapping[str, Any], key: str) -> None:
        item = self._find(number, kind, event)
        if item is None or item.call is None:
            return
        value = event.get(key)
        _arguments_string(self.findings, item.call.label, f"event {number} {key}", value)
        if not isinstance(value, str):
            return
        if key == "delta":
            item.deltas.append(value)
        else:
            item.done = (number, value)

    def _item_done(self, number: int, event: Mapping[str, Any]) -> None:
        item = self._find(number, "response.output_item.done", event)
        done = event.get("item")
        if item is None or item.call is None or not isinstance(done, Mapping):
            return
        arguments = done.get("arguments")
        _arguments_string(self.findings, item.call.label, f"event {number} item.arguments", arguments)
        if isinstance(arguments, str):
            item.item_done = (number, arguments)
        if item.call.id is None:
            item.call.id = done.get("call_id")
        if item.call.name is None:
            item.call.name = done.get("name")

    def calls(self) -> list[CallSeen]:
        calls = []
        for item in self.every_item:
            if item.call is None:
                continue
            item.call.where = span("event", item.events)
            joined = item.base + "".join(item.deltas)
            renditions: list[tuple[str, object]] = []
            if item.done is not None:
                renditions.append((f".done arguments (event {item.done[0]})", item.done[1]))
            if item.item_done is not None:
                renditions.append((f"output_item.done arguments (event {item.item_done[0]})", item.item_done[1]))
            if item.deltas or not renditions:
                renditions.append(("concatenated deltas", joined))
            for what, value in renditions:  # each distinct text once, the one dispatched first
                if all(value != kept for _, kept in item.call.arguments):
                    item.call.arguments.append((what, value))
            calls.append(item.call)
        return calls

    def lifecycle(self) -> list[str]:
        failures = []
        for item in self.every_item:
            if item.call is None:
                continue
            joined = item.base + "".join(item.deltas)
            if item.done is not None and item.done[1] != joined:
                failures.append(
                    f"{item.call.label}: .done arguments (event {item.done[0]}) {show(item.done[1])} differ from the "
                    f"concatenated deltas {show(joined)} (ARGUMENTS_MISMATCH); fix: stream every byte of the "
                    "arguments as deltas and repeat exactly their text in .done"
                )
            expected = item.done[1] if item.done is not None else joined
            if item.item_done is not None and item.item_done[1] != expected:
                failures.append(
                    f"{item.call.label}: output_item.done arguments (event {item.item_done[0]}) "
                    f"{show(item.item_done[1])} differ from {show(expected)}; fix: repeat the same arguments text"
                )
        return failures


def check_responses_stream(
    events: Sequence[object], registry: ToolRegistry | None, forced: ToolChoice | None, findings: Findings
) -> tuple[Check, ...]:
    """The ``StreamChecker`` of Responses events."""
    walk = _Stream(findings)
    calls = walk_events(walk, events)
    results = single_group_checks(
        _BY_ID, calls, walk.text, registry=registry, forced=forced, findings=findings, id_field="call_id"
    )
    failures = list(walk.errors)
    if len(walk.terminals) > 1:
        listed = ", ".join(f"event {number}: {kind}" for number, kind, _, _ in walk.terminals[:6])
        failures.append(f"{len(walk.terminals)} terminal events ({listed}); fix: end the stream with exactly one")
    if not walk.terminals:
        failures.append(
            "no terminal event (response.completed, .incomplete or .failed): the stream was cut (NO_FINISH_REASON); "
            "fix: end the stream with response.completed"
        )
    else:
        number, kind, status, error = walk.terminals[0]
        problem = _status_problem(status, len(calls), error)
        if problem is not None:
            failures.append(f"event {number} ({kind}): {problem}")
    first = walk.terminals[0] if walk.terminals else (None, None, None, None)
    results["finish_reason"] = judge(
        _BY_ID["finish_reason"], failures, passed=f"status {first[2]!r} (event {first[0]}) after {len(calls)} call(s)"
    )
    results["arguments_string"] = judge(
        _BY_ID["arguments_string"],
        findings.get("arguments_string"),
        passed="every delta and .done text a string",
        not_applicable=None if calls else "no tool call was made",
    )
    results["item_lifecycle"] = judge(
        _BY_ID["item_lifecycle"],
        [*findings.get("item_lifecycle"), *walk.lifecycle()],
        passed=f"{len(walk.every_item)} item(s), each added once; deltas and .done consistent",
    )
    results["well_formed"] = judge(
        _BY_ID["well_formed"], findings.get("well_formed"), passed="every event a Responses stream event object"
    )
    return ordered_checks(SPECS, results, streamed=True)
