"""The message that tells a model its tool call was invalid, so it gets another turn (``to_tool_result``).

The content is a compact JSON object a model can act on: what was wrong and where (JSON pointer), what is allowed
there, the available tool names for an unknown tool, and one plain sentence of instruction. Each format's module
wraps it in that format's tool-result shape with the call's id echoed exactly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from toolwire.formats._views import InvalidCallView, ViolationView

__all__ = ["MAX_PROBLEMS", "payload", "payload_text", "problems"]

#: Problems listed in one payload; a call with more says how many were left out (a model fixes the first ones,
#: and the next turn reports the rest).
MAX_PROBLEMS: Final = 20

#: Keys of a violation's data that say what is allowed, copied into the problem as they are.
_ALLOWED_KEYS: Final = ("expected", "allowed", "keyword", "limit")


def _problem(violation: ViolationView) -> dict[str, Any]:
    found: dict[str, Any] = {"code": violation.code.value}
    if violation.path is not None:
        found["path"] = violation.path
    found["message"] = violation.message
    if isinstance(violation.data, dict):
        found.update((key, violation.data[key]) for key in _ALLOWED_KEYS if key in violation.data)
    return found


def _instruction(call: InvalidCallView, codes: set[str], closest: str | None) -> str:
    if "MISSING_NAME" in codes:
        return "The call carried no tool name; call the tool again, giving its name and its arguments."
    if "UNKNOWN_TOOL" in codes:
        hint = f" (did you mean {closest!r}?)" if closest else ""
        return f"There is no tool named {call.name!r}{hint}; call one of the available tools instead."
    if codes & {"TRUNCATED", "STREAM_CUT", "ARGUMENTS_TOO_LARGE"}:
        return f"This call to {call.name!r} did not arrive complete; if it is still needed, call it again."
    return f"Call {call.name!r} again with arguments that fix every problem listed; do not repeat the same arguments."


def problems(errors: Sequence[ViolationView]) -> dict[str, Any]:
    """``{"problems": [...]}`` for the model to act on, each with its code, path, message and what is allowed there.

    At most ``MAX_PROBLEMS`` are listed; ``"more_problems"`` counts the rest.
    """
    listed: dict[str, Any] = {"problems": [_problem(violation) for violation in errors[:MAX_PROBLEMS]]}
    if len(errors) > MAX_PROBLEMS:
        listed["more_problems"] = len(errors) - MAX_PROBLEMS
    return listed


def payload(call: InvalidCallView) -> dict[str, Any]:
    """The JSON object sent back to the model for an invalid call."""
    codes = {violation.code.value for violation in call.errors}
    body: dict[str, Any] = {"error": "invalid_tool_call", "tool": call.name, **problems(call.errors)}
    closest = None
    for violation in call.errors:
        if violation.code.value == "UNKNOWN_TOOL" and isinstance(violation.data, dict):
            body["available_tools"] = violation.data.get("available", [])
            closest = violation.data.get("closest")
    body["instruction"] = _instruction(call, codes, closest)
    return body


def payload_text(call: InvalidCallView) -> str:
    """The payload as the compact JSON text the formats whose tool results carry text send."""
    return json.dumps(payload(call), ensure_ascii=False, separators=(",", ":"))
