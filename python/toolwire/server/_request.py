"""Request bodies of the three wire formats and the completions endpoint, checked and read into one neutral view.

Each format has its own shape (Chat Completions ``messages``, Responses ``input`` items, Anthropic ``messages`` with
content blocks, the completions endpoint's ``prompt``, read as one user message); rules match on what they have in
common: the last user message's text, the last message of any role
(tool results included), the offered tools and the tool choice. A malformed body is a ``RequestError`` naming the
field, which the app answers with HTTP 400 in the format's own error shape.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from toolwire._common._json import canonical, json_type
from toolwire._pipeline._choice import ToolChoice, parse_tool_choice
from toolwire.errors import SchemaError
from toolwire.formats import RequestFormat
from toolwire.registry import ToolRegistry, core_validators

__all__ = ["PARSERS", "ParsedRequest", "RequestError", "ServedFormat", "parse_completions"]

#: The wire formats requests come in: the three chat formats, and the legacy completions endpoint's prompt.
ServedFormat: TypeAlias = RequestFormat | Literal["openai-completions"]

_CHAT_ROLES: Final = ("system", "developer", "user", "assistant", "tool", "function")
_ANTHROPIC_ROLES: Final = ("user", "assistant")
_TOOL_RESULT_ROLES: Final = frozenset({"tool", "function"})


class RequestError(Exception):
    """A request the endpoint refuses, with the HTTP status and the field at fault.

    Attributes:
        status: The HTTP status.
        message: What is wrong and where.
        param: The field at fault (OpenAI's ``param``), when there is one.
        code: A machine-readable code (OpenAI's ``code``), when there is one.
    """

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None) -> None:
        """Keep the parts of the error response."""
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code


@dataclass(frozen=True)
class ParsedRequest:
    """What a request asks, read from any of the three formats.

    Attributes:
        format: The wire format of the endpoint it came to.
        body: The decoded JSON body.
        model: The requested model.
        stream: Whether the answer is streamed.
        include_usage: Chat: ``stream_options.include_usage``.
        tools: The offered tools.
        tool_choice: The raw ``tool_choice`` as sent (None when absent).
        choice: What the tool choice demands.
        choice_kind: ``"auto"``, ``"none"``, ``"required"`` or ``"named"``.
        user_text: The text of the last user message ("" when there is none).
        last_text: The text of the last message of any role, tool results included.
        last_role: ``"user"``, ``"assistant"``, ``"tool"`` (a tool result) or ``"system"``.
        digest: A hash of the endpoint and the canonical body; ids are derived from it, so the same request always
            gets the same bytes.
        prompt_tokens: A deterministic estimate of the prompt's size in tokens, for ``usage``.
    """

    format: ServedFormat
    body: Mapping[str, Any]
    model: str
    stream: bool
    include_usage: bool
    tools: ToolRegistry
    tool_choice: Any
    choice: ToolChoice
    choice_kind: str
    user_text: str
    last_text: str
    last_role: str
    digest: str
    prompt_tokens: int


def _kind(value: object) -> str:
    """The type of a JSON value as a request's reader names it: an integer is a number too."""
    kind = json_type(value)
    return "number" if kind == "integer" else kind


def _bad(field: str, message: str) -> RequestError:
    return RequestError(400, f"{field}: {message}", param=field)


def _typed(body: Mapping[str, Any], key: str, types: tuple[type, ...], expected: str, where: str = "") -> Any:
    """``body[key]`` when absent, null or of one of ``types``; else a 400 naming the field."""
    value = body.get(key)
    if value is None or (isinstance(value, types) and not (isinstance(value, bool) and bool not in types)):
        return value
    raise _bad(f"{where}{key}", f"expected {expected}, got {_kind(value)}")


def _text(content: object) -> str:
    """The text of a message's content: a string, or the text parts of a list (tool results' content included)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif part.get("type") == "tool_result":
            parts.append(_text(part.get("content")))
        elif isinstance(part.get("output"), str):
            parts.append(part["output"])
    return "\n".join(parts)


def _common(body: object) -> tuple[Mapping[str, Any], str, bool]:
    """The body as an object, its ``model`` and ``stream``."""
    if not isinstance(body, Mapping):
        raise RequestError(400, f"the request body must be a JSON object, got {_kind(body)}")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        got = "it is missing" if model is None else f"got {_kind(model)}"
        raise RequestError(400, f"model: expected the name of a model (a non-empty string); {got}", param="model")
    stream = _typed(body, "stream", (bool,), "a boolean")
    return body, model, bool(stream)


def _tools(body: Mapping[str, Any]) -> ToolRegistry:
    """The offered tools, read and their schemas compiled; a malformed definition or schema is a 400."""
    tools = _typed(body, "tools", (list,), "an array of tool definitions")
    try:
        registry = ToolRegistry.load(tools or [])
        core_validators(registry)
    except (TypeError, ValueError, SchemaError) as error:
        raise RequestError(400, f"tools: {error}", param="tools") from None
    return registry


def _choice(body: Mapping[str, Any], tools: ToolRegistry) -> tuple[ToolChoice, str]:
    raw = body.get("tool_choice")
    try:
        choice = parse_tool_choice(raw)
    except TypeError as error:
        raise _bad("tool_choice", str(error)) from None
    if choice.name is not None:
        if choice.name not in tools:
            offered = ", ".join(tools.names) or "none"
            raise _bad("tool_choice", f"names the tool {choice.name!r}, which is not offered (offered: {offered})")
        return choice, "named"
    if choice.required:
        if not len(tools):
            raise _bad("tool_choice", "a tool is required but no tools are offered")
        return choice, "required"
    kind = raw.get("type") if isinstance(raw, Mapping) else raw
    return choice, "none" if kind == "none" else "auto"


def _digest(fmt: str, body: Mapping[str, Any]) -> tuple[str, int]:
    text = canonical(body, allow_nan=True)
    return hashlib.sha256(f"{fmt}\n{text}".encode()).hexdigest(), max(1, len(text) // 4)


def _messages(body: Mapping[str, Any], roles: Sequence[str]) -> list[Mapping[str, Any]]:
    messages = _typed(body, "messages", (list,), "an array of messages")
    if not messages:
        raise _bad("messages", "expected a non-empty array of messages")
    for position, message in enumerate(messages):
        at = f"messages[{position}]"
        if not isinstance(message, Mapping):
            raise _bad(at, f"expected a message object, got {_kind(message)}")
        if message.get("role") not in roles:
            raise _bad(f"{at}.role", f"expected one of {', '.join(roles)}, got {message.get('role')!r}")
        _typed(message, "content", (str, list), "a string or an array of content parts", f"{at}.")
    return list(messages)


def _build(
    fmt: ServedFormat,
    body: Mapping[str, Any],
    model: str,
    stream: bool,
    turns: list[tuple[str, str]],
    include_usage: bool = False,
) -> ParsedRequest:
    """The view of a request whose messages have been read into ``(role, text)`` turns, oldest first."""
    tools = _tools(body)
    choice, kind = _choice(body, tools)
    digest, prompt_tokens = _digest(fmt, body)
    user_text = next((text for role, text in reversed(turns) if role == "user"), "")
    last_role, last_text = turns[-1] if turns else ("user", "")
    return ParsedRequest(
        fmt,
        body,
        model,
        stream,
        include_usage,
        tools,
        body.get("tool_choice"),
        choice,
        kind,
        user_text,
        last_text,
        last_role,
        digest,
        prompt_tokens,
    )


def parse_chat(raw: object) -> ParsedRequest:
    """Read an OpenAI Chat Completions request (``POST /v1/chat/completions``)."""
    body, model, stream = _common(raw)
    turns = []
    for message in _messages(body, _CHAT_ROLES):
        role = "tool" if message["role"] in _TOOL_RESULT_ROLES else message["role"]
        role = "system" if role == "developer" else role
        turns.append((role, _text(message.get("content"))))
    options = _typed(body, "stream_options", (Mapping,), "an object")
    include_usage = _typed(options, "include_usage", (bool,), "a boolean", "stream_options.") if options else None
    return _build("openai-chat", body, model, stream, turns, bool(include_usage))


def parse_responses(raw: object) -> ParsedRequest:
    """Read an OpenAI Responses request (``POST /v1/responses``)."""
    body, model, stream = _common(raw)
    _typed(body, "instructions", (str,), "a string")
    given = body.get("input")
    if isinstance(given, str):
        turns = [("user", given)]
    elif isinstance(given, list) and given:
        turns = []
        for position, item in enumerate(given):
            if not isinstance(item, Mapping):
                raise _bad(f"input[{position}]", f"expected an input item object, got {_kind(item)}")
            kind = item.get("type", "message")
            if kind == "function_call_output":
                output = item.get("output")
                turns.append(("tool", output if isinstance(output, str) else _text(output)))
            elif kind == "message":
                role = item.get("role")
                if role not in ("user", "assistant", "system", "developer"):
                    raise _bad(
                        f"input[{position}].role", f"expected user, assistant, system or developer, got {role!r}"
                    )
                _typed(item, "content", (str, list), "a string or an array of content parts", f"input[{position}].")
                turns.append(("system" if role == "developer" else role, _text(item.get("content"))))
            else:  # function_call, reasoning and the other output items sent back
                arguments = item.get("arguments")
                turns.append(("assistant", arguments if isinstance(arguments, str) else ""))
    else:
        got = "it is missing" if given is None else f"got {_kind(given)}"
        raise RequestError(400, f"input: expected a string or a non-empty array of input items; {got}", "input")
    return _build("openai-responses", body, model, stream, turns)


def parse_anthropic(raw: object) -> ParsedRequest:
    """Read an Anthropic Messages request (``POST /v1/messages``)."""
    body, model, stream = _common(raw)
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise _bad("max_tokens", f"expected a positive integer, got {_kind(max_tokens)}")
    _typed(body, "system", (str, list), "a string or an array of text blocks")
    turns = []
    for message in _messages(body, _ANTHROPIC_ROLES):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        answers_tools = any(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in blocks)
        text = _text(content)
        if answers_tools:
            turns.append(("tool", text))
            # A user message may carry prose beside its tool results; that prose is still the user's.
            prose = _text([b for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"])
            if prose:
                turns.insert(len(turns) - 1, ("user", prose))
        else:
            turns.append((message["role"], text))
    return _build("anthropic-messages", body, model, stream, turns)


def parse_completions(raw: object) -> ParsedRequest:
    """Read a legacy completions request (``POST /v1/completions``): its ``prompt`` is the user's one message.

    A completions request offers no tools (the prompt, written by the model's chat template, carries them), so only
    a script's replies make calls here, written into the text in the model's dialect.
    """
    body, model, stream = _common(raw)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and prompt and all(isinstance(part, str) for part in prompt):
        if len(prompt) > 1:
            raise _bad("prompt", f"expected one prompt; got {len(prompt)} (one completion per request here)")
        prompt = prompt[0]
    if not isinstance(prompt, str):
        got = "it is missing" if prompt is None else f"got {_kind(prompt)}"
        raise RequestError(400, f"prompt: expected a string (or an array of one string); {got}", param="prompt")
    if body.get("tools") is not None:
        raise _bad("tools", "a completions request has no tools: the prompt carries them")
    options = _typed(body, "stream_options", (Mapping,), "an object")
    include_usage = _typed(options, "include_usage", (bool,), "a boolean", "stream_options.") if options else None
    return _build("openai-completions", body, model, stream, [("user", prompt)], bool(include_usage))


#: The request reader of each wire format.
PARSERS: Final[Mapping[RequestFormat, Callable[[object], ParsedRequest]]] = {
    "openai-chat": parse_chat,
    "openai-responses": parse_responses,
    "anthropic-messages": parse_anthropic,
}
