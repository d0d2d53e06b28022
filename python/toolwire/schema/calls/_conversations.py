"""The assistant tool calls of a conversation log: OpenAI Chat, Responses and Anthropic message lists.

The calls are found by the prompt-example finder of ``toolwire examples`` (``schema.examples._find``), which already
reads each message by its own shape; only its structured calls made by the assistant are taken (an example written
inside text is not a call that was made). The call id is read back from the object the finder points at
(``id`` of a Chat ``tool_calls`` entry or an Anthropic ``tool_use`` block, ``call_id`` of a Responses item).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from toolwire.schema.calls._model import ObservedCall, UnreadableRecord, arguments_text, timestamp
from toolwire.schema.examples import Example, ExampleFinder

__all__ = ["CONVERSATION_KEYS", "calls_in_conversation", "is_conversation"]

#: The keys of a record that hold message lists (a Chat or Anthropic request, a Responses request or response).
CONVERSATION_KEYS: Final = ("messages", "input", "output")

# Keys of a conversation record that are prompt, not metadata worth carrying along with each call.
_PROMPT_KEYS: Final = frozenset({*CONVERSATION_KEYS, "system", "instructions", "tools", "content", "tool_calls"})
_ASSISTANT: Final = frozenset({"assistant", "model"})


def is_conversation(value: Any) -> bool:
    """Whether a parsed record is a conversation log rather than a call record.

    A JSON list (of messages), or an object with a ``messages`` list, a ``role`` (one message), or, without a
    ``name``, an ``input`` or ``output`` list.
    """
    if isinstance(value, list):
        return True
    if not isinstance(value, Mapping):
        return False
    if isinstance(value.get("messages"), list) or "role" in value:
        return True
    return "name" not in value and any(isinstance(value.get(key), list) for key in ("input", "output"))


def _resolve(roots: Mapping[str, Any], at: str) -> Any:
    """The object at a finder path (``messages[2].tool_calls[0]``), or None when it cannot be followed."""
    parts = at.replace("[", ".[").split(".")
    value: Any = roots.get(parts[0])
    for part in parts[1:]:
        if not part:
            continue
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def _call_id(roots: Mapping[str, Any], example: Example) -> str | None:
    found = _resolve(roots, example.at)
    if not isinstance(found, Mapping):
        return None
    keys = ("call_id", "id") if example.shape == "openai-responses" else ("id", "toolUseId")
    for key in keys:
        value = found.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _walk(value: Any, finder: ExampleFinder) -> tuple[dict[str, Any], Mapping[str, Any]]:
    """Feed a conversation record to the finder; its roots (for ids) and its metadata record."""
    roots: dict[str, Any] = {}
    if isinstance(value, list):
        roots["messages"] = value
        finder.messages(value, "messages")
        return roots, {}
    if "role" in value and not isinstance(value.get("messages"), list):
        roots["message"] = value
        finder.message(value, "message", 0)
        return roots, {}
    for key in CONVERSATION_KEYS:
        if isinstance(value.get(key), list):
            roots[key] = value[key]
            finder.messages(value[key], key)
    return roots, value


def _is_call(example: Example) -> bool:
    """A structured call made by the assistant (not an example written in text, not a user's or system's)."""
    return example.shape != "text" and (example.role is None or example.role in _ASSISTANT)


def calls_in_conversation(
    value: Any, origin: str, dumps: Callable[[Any], str]
) -> Iterator[ObservedCall | UnreadableRecord]:
    """Every assistant tool call of one conversation record.

    Args:
        value: A list of messages, a request or response body (``messages``, ``input``, ``output``), or one message.
        origin: Where the record is (``chat.jsonl:3``); each call's origin adds its path inside the record.
        dumps: Turns an arguments object into compact JSON text.

    Returns:
        One ``ObservedCall`` per call (its ``fields``: the record's metadata keys, ``at`` and ``format``; its ``ts``:
        the record's ``ts`` or ``time``), or an ``UnreadableRecord`` for a call without a tool name or with arguments
        JSON cannot hold.
    """
    finder = ExampleFinder()
    roots, record = _walk(value, finder)
    try:
        moment = timestamp(record.get("ts", record.get("time")), "ts")
    except ValueError as error:
        yield UnreadableRecord(origin, f"{error} (conversation record)")
        return
    metadata = {key: item for key, item in record.items() if key not in _PROMPT_KEYS and key not in ("ts", "time")}
    for example in filter(_is_call, finder.found.examples):
        where = f"{origin} {example.at}"
        if not isinstance(example.name, str) or not example.name:
            yield UnreadableRecord(where, f"the {example.shape} call has no tool name; got {example.name!r:.60}")
            continue
        try:
            text = arguments_text(example.arguments, dumps)
        except ValueError as error:
            yield UnreadableRecord(where, f"{error} (tool {example.name!r})")
            continue
        fields = {**metadata, "at": example.at, "format": example.shape}
        yield ObservedCall(example.name, text, _call_id(roots, example), moment, None, where, fields)
