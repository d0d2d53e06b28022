"""The assistant's turn written back into a conversation (``to_history``): what every format's module shares.

The next request must carry the assistant turn exactly as the model produced it — every call, valid or not, with
its id echoed exactly — so that each tool result that follows answers a call the provider knows. Each format's
module shapes one call's entry and the whole turn; these are the rules they have in common.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, ResultView

__all__ = ["Entry", "arguments_object", "arguments_text", "call_name", "pieces", "provider_id", "turn_calls"]

#: One call's entry in a format's turn, from the call and its name ("" when none came).
Entry = Callable[["CallView", str], dict[str, Any]]


def arguments_text(call: CallView) -> str:
    """The arguments as the JSON text a format that carries text replays."""
    # A call that came without arguments carries {}; a provider may refuse an empty arguments string on replay.
    return call.arguments_json or "{}"


def arguments_object(call: CallView) -> dict[str, Any]:
    """The arguments as the object a format that carries objects replays."""
    # Formats whose arguments are an object (Anthropic's `input`, Gemini's `args`...) must get one: an invalid call
    # whose text was no object is replayed as {} (its tool result, an error, tells the model what it sent).
    return call.arguments if isinstance(call.arguments, dict) else {}


def provider_id(call: CallView) -> bool:
    """Whether the id came from the provider (not generated for a call that had none)."""
    return not any(violation.code.value == "MISSING_ID" for violation in call.violations)


def turn_calls(result: ResultView) -> list[CallView]:
    """Every call of the result's first choice, valid or not, in the order they opened."""
    choice = result.choices[0].choice if result.choices else 0
    every: list[CallView] = [*result.calls, *result.invalid_calls]
    return sorted((call for call in every if call.choice == choice), key=lambda call: call.seq)


def pieces(
    result: ResultView,
    calls: list[CallView],
    own: bool,
    entry: Entry,
    text_piece: Callable[[str], dict[str, Any]],
) -> list[Any]:
    """A turn of content pieces (every format but the two whose turn is one message with ``tool_calls``).

    A result read from a stream of the turn's own format (``own``) holds every piece in its output, placed in the
    order the model produced it; one read from another format brings only its text, first.
    """
    if own:
        return _interleaved(result, calls, entry)
    turn = [entry(call, call_name(call)) for call in calls]
    if result.text:
        turn.insert(0, text_piece(result.text))
    return turn


def call_name(call: CallView) -> str:
    """The call's name as a turn carries it ("" for a call that came without one)."""
    return call.name if call.name is not None else ""


def _interleaved(result: ResultView, calls: list[CallView], entry: Entry) -> list[Any]:
    """The turn's pieces in the order the model produced them: each output item before the calls opened after it."""
    turn: list[Any] = []
    items = list(result.output)
    for call in calls:
        while items and items[0].after_calls <= call.seq:
            turn.append(items.pop(0).value)
        turn.append(entry(call, call_name(call)))
    turn.extend(item.value for item in items)
    return turn
