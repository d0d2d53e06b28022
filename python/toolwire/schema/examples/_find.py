"""Finding the tool-call examples of a rendered prompt: structured calls in message lists, and JSON inside text.

A prompt is a list of messages, a request body (``messages``, ``input``, ``system``, ``instructions``), one
message, or plain text. Each message is read by its own shape:

- OpenAI Chat Completions: an assistant's ``tool_calls[].function`` (``name``, ``arguments`` as JSON text) and the
  legacy ``function_call``;
- OpenAI Responses: ``{"type": "function_call", "name", "arguments"}`` items;
- Anthropic Messages: ``{"type": "tool_use", "name", "input"}`` content blocks.

Text (a string ``content``, ``text`` parts and blocks, ``system``, ``instructions``, a text prompt) is scanned for
balanced JSON objects (each ``{`` where a JSON object parses; what follows a parsed object is scanned after it).
A parsed object, or any object nested in it, is a tool call when it has one of these shapes:

- ``{"function": {"name": ..., "arguments": ...}}`` (a Chat Completions ``tool_calls`` entry);
- ``{"functionCall": {"name": ..., "args": ...}}`` (a Gemini part);
- one name key (``name``, ``tool``, ``tool_name``, or ``function`` holding a string) with one arguments key
  (``arguments``, ``args``, ``parameters``, ``input``, ``tool_input``): ``{"name": ..., "arguments": {...}}``
  (Hermes ``<tool_call>``, Responses), ``{"name": ..., "parameters": {...}}`` (Llama 3.1), ``{"tool": ...,
  "args": {...}}``, ``{"type": "tool_use", "name": ..., "input": {...}}``.

Tool *definitions* are not calls: an object with ``description``, ``input_schema``, ``inputSchema`` or ``strict``,
or whose arguments are a JSON Schema (``{"type": "object", "properties": {...}}``), is skipped with what it
holds. A ``{`` followed by ``"name"``, ``"tool"``, ``"tool_name"`` or ``"function"`` that does not parse is kept as
malformed. What tools returned (``tool``/``function`` role messages, ``tool_result`` blocks,
``function_call_output`` items) is not scanned: it is data, not an example for the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["Example", "ExampleFinder", "Found", "Malformed", "find_examples"]

_NAME_KEYS: Final = ("name", "tool", "tool_name", "function")
_ARGUMENT_KEYS: Final = ("arguments", "args", "parameters", "input", "tool_input")
_DEFINITION_KEYS: Final = ("description", "input_schema", "inputSchema", "strict")
_OBJECT_START: Final = re.compile(r'\{\s*["}]')
_CALL_START: Final = re.compile(r'\{\s*"(?:name|tool|tool_name|function)"\s*:')
_RESULT_ROLES: Final = frozenset({"tool", "function", "ipython"})
_RESULT_TYPES: Final = frozenset({"tool_result", "function_call_output", "custom_tool_call_output"})
_TEXT_TYPES: Final = frozenset({"text", "input_text", "output_text"})
_SNIPPET: Final = 60


@dataclass(frozen=True)
class Example:
    """One tool-call example.

    Attributes:
        at: Where it is in the prompt: ``messages[3].tool_calls[0]``, ``system``, ``messages[0].content`` (text).
        role: The role of the message it is in, when there is one.
        message: The index of that message in its list, when there is one.
        shape: ``openai-chat``, ``openai-responses``, ``anthropic-messages``, or ``text`` (JSON inside text).
        name: The tool it calls.
        arguments: JSON text (as a Chat or Responses call carries it) or a parsed value.
        line: For text: the line of the text (1-based) where the object starts.
    """

    at: str
    role: str | None
    message: int | None
    shape: str
    name: Any
    arguments: Any
    line: int | None = None

    def place(self) -> str:
        """``at`` with the role and line, for messages."""
        role = f" ({self.role})" if self.role else ""
        line = f" line {self.line}" if self.line is not None else ""
        return f"{self.at}{role}{line}"


@dataclass(frozen=True)
class Malformed:
    """Text that starts like a tool-call object but is not JSON.

    Attributes:
        at: Where the text is (as ``Example.at``).
        role: The role of its message.
        message: The index of its message.
        line: The line inside the text.
        snippet: The start of the object.
        error: The JSON parser's complaint.
    """

    at: str
    role: str | None
    message: int | None
    line: int
    snippet: str
    error: str


@dataclass
class Found:
    """What ``find_examples`` found."""

    examples: list[Example] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)


def _looks_like_schema(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("properties"), Mapping) and "type" in value


def _call(value: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """``(name, arguments)`` when the object has a tool-call shape (see the module docstring)."""
    for wrapper, arguments_key in (("function", "arguments"), ("functionCall", "args")):
        inner = value.get(wrapper)
        if isinstance(inner, Mapping) and isinstance(inner.get("name"), str) and arguments_key in inner:
            return inner["name"], inner[arguments_key]
    names = [key for key in _NAME_KEYS if isinstance(value.get(key), str)]
    arguments = [key for key in _ARGUMENT_KEYS if key in value]
    if len(names) != 1 or len(arguments) != 1 or any(key in value for key in _DEFINITION_KEYS):
        return None
    if _looks_like_schema(value[arguments[0]]):
        return None
    return value[names[0]], value[arguments[0]]


def _is_definition(value: Mapping[str, Any]) -> bool:
    return any(key in value for key in _DEFINITION_KEYS) or any(
        _looks_like_schema(value.get(k)) for k in _ARGUMENT_KEYS
    )


def calls_in(value: Any, trail: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Every tool-call object in a parsed JSON value: ``(path inside it, name, arguments)``."""
    if isinstance(value, Mapping):
        call = _call(value)
        if call is not None:
            yield trail, call[0], call[1]
            return
        if _is_definition(value):
            return
        for key, item in value.items():
            yield from calls_in(item, f"{trail}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from calls_in(item, f"{trail}[{index}]")


class ExampleFinder:
    """Walks a prompt (or a conversation's message lists) and collects its tool-call examples in ``found``."""

    def __init__(self) -> None:
        self.found = Found()
        self._decoder = json.JSONDecoder()

    def text(self, text: str, at: str, role: str | None = None, message: int | None = None) -> None:
        """Scan text for JSON tool-call objects."""
        position = counted = 0
        line = 1
        while (start := text.find("{", position)) != -1:
            line += text.count("\n", counted, start)  # counted as the scan goes, so long texts stay linear
            counted = start
            if not _OBJECT_START.match(text, start):  # a JSON object opens with a key or closes at once
                position = start + 1
                continue
            try:
                value, end = self._decoder.raw_decode(text, start)
            except json.JSONDecodeError as error:
                if _CALL_START.match(text, start):
                    snippet = " ".join(text[start : start + _SNIPPET].split())
                    self.found.malformed.append(Malformed(at, role, message, line, snippet, error.msg))
                position = start + 1
                continue
            for trail, name, arguments in calls_in(value):
                self.found.examples.append(Example(f"{at}{trail}", role, message, "text", name, arguments, line))
            position = end

    def content(self, content: Any, at: str, role: str | None, message: int | None) -> None:
        """A message's content: a string, or a list of parts and blocks."""
        if isinstance(content, str):
            self.text(content, at, role, message)
            return
        if not isinstance(content, list):
            return
        for index, block in enumerate(content):
            where = f"{at}[{index}]"
            if isinstance(block, str):
                self.text(block, where, role, message)
            elif not isinstance(block, Mapping) or block.get("type") in _RESULT_TYPES:
                continue
            elif block.get("type") == "tool_use":
                arguments = block.get("input")
                self.add(Example(where, role, message, "anthropic-messages", block.get("name"), arguments))
            elif isinstance(block.get("text"), str) and block.get("type", "text") in _TEXT_TYPES:
                self.text(block["text"], f"{where}.text", role, message)

    def add(self, example: Example) -> None:
        self.found.examples.append(example)

    def message(self, item: Any, at: str, index: int) -> None:
        """One message or item of a list, read by its own shape."""
        if isinstance(item, str):
            self.text(item, at, None, index)
            return
        if not isinstance(item, Mapping) or item.get("type") in _RESULT_TYPES:
            return
        role = item.get("role") if isinstance(item.get("role"), str) else None
        if item.get("type") == "function_call":
            self.add(Example(at, role, index, "openai-responses", item.get("name"), item.get("arguments")))
            return
        if role in _RESULT_ROLES:
            return
        for number, call in enumerate(item.get("tool_calls") or ()):
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(function, Mapping):
                where = f"{at}.tool_calls[{number}]"
                self.add(Example(where, role, index, "openai-chat", function.get("name"), function.get("arguments")))
        legacy = item.get("function_call")
        if isinstance(legacy, Mapping):
            self.add(
                Example(f"{at}.function_call", role, index, "openai-chat", legacy.get("name"), legacy.get("arguments"))
            )
        self.content(item.get("content"), f"{at}.content", role, index)

    def messages(self, items: list[Any], key: str) -> None:
        for index, item in enumerate(items):
            self.message(item, f"{key}[{index}]", index)

    def body(self, data: Mapping[str, Any]) -> bool:
        """A request body's prompt parts; False when the mapping has none."""
        parts = [key for key in ("instructions", "system", "messages", "input") if key in data]
        for key in parts:
            value = data[key]
            if isinstance(value, list) and key in ("messages", "input"):
                self.messages(value, key)
            else:
                self.content(value, key, None, None)
        return bool(parts)

    def walk(self, data: Any) -> None:
        """Any prompt: text, a list of messages, a request body, one message, or JSON holding tool calls."""
        if isinstance(data, str):
            self.text(data, "text")
        elif isinstance(data, list):
            self.messages(data, "messages")
        elif isinstance(data, Mapping) and not self.body(data):
            if "role" in data or data.get("type") == "function_call":
                self.message(data, "message", 0)
            else:
                for trail, name, arguments in calls_in(data):
                    self.add(Example(trail.lstrip(".") or "(root)", None, None, "text", name, arguments))


def find_examples(data: Any) -> Found:
    """Every tool-call example of a prompt (see the module docstring for the shapes).

    Args:
        data: Text, a list of messages (each in any of the three shapes), a request body with ``messages``,
            ``input``, ``system`` or ``instructions``, or one message.

    Returns:
        The examples in prompt order, and the text that looks like a tool call but is not JSON.
    """
    finder = ExampleFinder()
    finder.walk(data)
    return finder.found
