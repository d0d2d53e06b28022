"""Which reply a scripted model gives to a request, and the turn it becomes.

The rules of the model are tried in order and the first whose ``when`` holds gives the reply; otherwise the model's
``otherwise`` reply, or ``auto``: text when tools are not offered, not wanted (``tool_choice: none``) or merely
allowed (``auto``); one call to the forced tool when one is named; one call to the first offered tool when any is
required. The arguments of ``auto`` calls are synthesized from the tool's schema. The content quirks
(``prose_when_forced``, ``hallucinated_name``, ``calls_in_content``) are applied last, so that every wire format says
the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from toolwire._common._json import compact
from toolwire.dialects import render
from toolwire.server._quirks import PROSE, Quirks
from toolwire.server._request import ParsedRequest, RequestError
from toolwire.server._script import Model, Reply, ScriptedError, When
from toolwire.server._synth import NotSynthesizableError, synthesize

__all__ = ["PlannedCall", "Turn", "answer", "matches", "written"]

#: The text of ``auto`` when no tool is called.
AUTO_TEXT: Final = "This is a scripted answer from the toolwire local endpoint."


@dataclass(frozen=True)
class PlannedCall:
    """A call as it will be sent: its name and arguments (the object, and its compact JSON text)."""

    name: str
    arguments: dict[str, Any]
    arguments_json: str


@dataclass(frozen=True)
class Turn:
    """What the assistant says in one answer: text (possibly empty), then calls (possibly none)."""

    text: str
    calls: tuple[PlannedCall, ...] = ()


def matches(when: When, request: ParsedRequest) -> bool:
    """Whether every condition of ``when`` holds for ``request``."""
    if when.user_contains is not None and when.user_contains.casefold() not in request.user_text.casefold():
        return False
    if when.user_matches is not None and when.user_matches.search(request.user_text) is None:
        return False
    if when.last_message_contains is not None and when.last_message_contains not in request.last_text:
        return False
    if when.tool_choice is not None and when.tool_choice not in (request.choice_kind, request.choice.name):
        return False
    if any(name not in request.tools for name in when.tools_offered):
        return False
    return when.last_role is None or when.last_role == request.last_role


def _call(name: str, arguments: dict[str, Any]) -> PlannedCall:
    return PlannedCall(name, arguments, compact(arguments, allow_nan=True))


def _auto(model: Model, request: ParsedRequest) -> Turn:
    """The ``auto`` answer: text, or one call with synthesized arguments when a tool is forced."""
    if request.choice.name is not None:
        name = request.choice.name
    elif request.choice.required:
        name = request.tools.names[0]
    else:
        return Turn(AUTO_TEXT)
    try:
        arguments = synthesize(name, request.tools)
    except NotSynthesizableError as error:
        raise RequestError(
            422,
            f"model {model.name!r} cannot make up arguments for {error}; add a rule with explicit arguments for "
            "this request to the script",
            param="tools",
            code="not_synthesizable",
        ) from None
    return Turn("", (_call(name, arguments),))


def _with_quirks(turn: Turn, quirks: Quirks, request: ParsedRequest) -> Turn:
    if quirks.prose_when_forced and request.choice.required:
        return Turn(PROSE)
    if quirks.hallucinated_name:
        turn = Turn(turn.text, tuple(PlannedCall(f"{c.name}_v2", c.arguments, c.arguments_json) for c in turn.calls))
    if quirks.calls_in_content is not None and turn.calls:
        return Turn(written(turn, quirks.calls_in_content))
    return turn


def written(turn: Turn, dialect: str) -> str:
    """The turn's text with its calls written after it in ``dialect``, as the model generated them.

    Raises:
        RequestError: A call the dialect cannot carry (HTTP 422, naming the call and key).
    """
    try:
        return render([(call.name, call.arguments) for call in turn.calls], dialect, text_before=turn.text)
    except ValueError as error:
        raise RequestError(422, f"the calls cannot be written in {error}", code="not_writable") from None


def answer(model: Model, request: ParsedRequest) -> Turn | ScriptedError | str:
    """What ``model`` answers to ``request``.

    Args:
        model: The scripted model.
        request: The request, read.

    Returns:
        The turn to render, a scripted error, or the name (``"<format>/<name>"``) of a recording to replay.

    Raises:
        RequestError: ``auto`` had to call a tool whose arguments cannot be synthesized (HTTP 422).
    """
    reply: Reply | None = next((rule.reply for rule in model.rules if matches(rule.when, request)), model.otherwise)
    if reply is None:
        turn = _auto(model, request)
    elif reply.error is not None:
        return reply.error
    elif reply.recording is not None:
        return reply.recording
    else:
        calls = tuple(_call(call.name, dict(call.arguments)) for call in reply.calls)
        turn = Turn(reply.text or "", calls)
    return _with_quirks(turn, model.quirks, request)
