"""The provider quirks the local endpoint can switch on, and the two that act before any rendering.

Each quirk reproduces a deviation seen in real provider streams, so that a client (or ``toolwire probe``) can be
tested against it offline. Most are rendered by the wire formats themselves (``_chat``, ``_responses``,
``_anthropic``); this module holds the table, the per-model settings and the ``reject_keywords`` schema check; the
three that change what is said rather than how (``prose_when_forced``, ``hallucinated_name``, ``calls_in_content``)
are applied to the turn (``_match``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from toolwire._common._json import pointer_token
from toolwire.dialects import STYLES
from toolwire.registry import ToolRegistry

__all__ = ["PROSE", "QUIRKS", "Quirks", "rejected_keyword"]

#: Quirk id -> what the endpoint sends when it is switched on. Chat-only quirks are ignored by the other formats.
QUIRKS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "arguments_object": "function.arguments sent as a JSON object (streamed: the whole object in the first "
        "fragment); chat only",
        "finish_stop": "finish_reason 'stop' where 'tool_calls' is due; chat only",
        "no_finish": "no finish reason at all (buffered: null; Responses: no response.completed, status "
        "'in_progress'; Anthropic: stop_reason null)",
        "missing_index": "streamed tool-call fragments without 'index'; chat only",
        "index_reused": "every call after the first of a turn reuses index 0, with its own id and name; chat only",
        "repeat_id": "every fragment of a call carries its id; chat only",
        "repeat_name": "every fragment of a call carries its name; chat only",
        "interleave": "parallel calls' fragments alternate (headers first, then one argument fragment each in "
        "turn); chat only",
        "prose_when_forced": "under a forced tool choice (named or required): text, a normal stop, no call",
        "hallucinated_name": "each call's name gets '_v2' appended",
        "trailing_data": "a last argument fragment '}' after the complete object (buffered: '}' appended; "
        "Anthropic buffered: ignored, its input is an object)",
        "truncate": "streamed: the body ends in the middle of the last call's arguments (or of the text), with no "
        "finish and no terminal event; buffered: those arguments cut in half and a length finish",
        "empty_choices": 'chunks with "choices": [] first and before every other chunk; chat only',
        "delay": "seconds (a number) slept before each streamed chunk, and once before a buffered answer",
        "reject_keywords": "a list of JSON-Schema keywords: HTTP 400 when an offered tool's parameters use one",
        "calls_in_content": "a dialect name (hermes, qwen3_coder, ...): the calls written into the text in that "
        "dialect, after it, as a server without the model's tool parser sends them; no call, a normal stop",
    }
)

#: What ``prose_when_forced`` says instead of calling the forced tool.
PROSE: Final = "I can answer that without calling a tool."

# Keywords whose value maps names to subschemas, and those whose value is one subschema or a list of them. Anything
# else (enum, const, default, examples, required, ...) holds data, never a schema, so it is not searched.
_SCHEMA_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
_SCHEMA_VALUES: Final = frozenset(
    {
        "items",
        "prefixItems",
        "additionalItems",
        "additionalProperties",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "anyOf",
        "oneOf",
        "allOf",
    }
)


@dataclass(frozen=True)
class Quirks:
    """The quirks one model has switched on (all off by default); see ``QUIRKS`` for what each one sends.

    Attributes:
        delay: Seconds slept before each streamed chunk (and once before a buffered answer).
        reject_keywords: JSON-Schema keywords that make a request with tools using them fail with HTTP 400.
        calls_in_content: The dialect (``toolwire.dialects.STYLES``) the calls are written into the text in.
    """

    arguments_object: bool = False
    finish_stop: bool = False
    no_finish: bool = False
    missing_index: bool = False
    index_reused: bool = False
    repeat_id: bool = False
    repeat_name: bool = False
    interleave: bool = False
    prose_when_forced: bool = False
    hallucinated_name: bool = False
    trailing_data: bool = False
    truncate: bool = False
    empty_choices: bool = False
    delay: float = 0.0
    reject_keywords: tuple[str, ...] = ()
    calls_in_content: str | None = None

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any], where: str) -> Quirks:
        """Read ``{quirk id: setting}`` as written in a script.

        Args:
            settings: The mapping (already known to have string keys).
            where: The file and field path, for error messages.

        Returns:
            The quirks.

        Raises:
            ValueError: An unknown quirk id or a setting of the wrong type, naming the field.
        """
        values: dict[str, Any] = {}
        for key, value in settings.items():
            field = f"{where}.{key}"
            if key not in QUIRKS:
                raise ValueError(f"{field}: unknown quirk; known quirks: {', '.join(QUIRKS)}")
            if key == "delay":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 60:
                    raise ValueError(f"{field}: expected a number of seconds between 0 and 60, got {value!r}")
                values[key] = float(value)
            elif key == "reject_keywords":
                if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
                    raise ValueError(f"{field}: expected a list of JSON-Schema keywords (strings), got {value!r}")
                values[key] = tuple(value)
            elif key == "calls_in_content":
                if value not in STYLES:
                    raise ValueError(f"{field}: expected a dialect name ({', '.join(STYLES)}), got {value!r}")
                values[key] = value
            else:
                if not isinstance(value, bool):
                    raise ValueError(f"{field}: expected true or false, got {value!r}")
                values[key] = value
        return cls(**values)

    def merged(self, other: Quirks) -> Quirks:
        """These quirks with every setting ``other`` switches on laid over them."""
        default = Quirks()
        changes = {
            f.name: getattr(other, f.name)
            for f in dataclasses.fields(other)
            if getattr(other, f.name) != getattr(default, f.name)
        }
        return dataclasses.replace(self, **changes)

    @property
    def enabled(self) -> tuple[str, ...]:
        """The ids of the quirks switched on, in table order."""
        return tuple(name for name in QUIRKS if getattr(self, name) not in (False, 0.0, (), None))


def _schema_keywords(schema: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """Every (keyword, JSON pointer of the keyword) of a schema and its subschemas, in document order."""
    if not isinstance(schema, Mapping):
        return
    for key, value in schema.items():
        at = f"{pointer}/{pointer_token(key)}"
        yield key, at
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            for name, subschema in value.items():
                yield from _schema_keywords(subschema, f"{at}/{pointer_token(name)}")
        elif key in _SCHEMA_VALUES:
            if isinstance(value, list):
                for position, subschema in enumerate(value):
                    yield from _schema_keywords(subschema, f"{at}/{position}")
            else:
                yield from _schema_keywords(value, at)


def rejected_keyword(tools: ToolRegistry, keywords: tuple[str, ...]) -> tuple[int, str, str, str] | None:
    """The first offered tool whose parameters use one of ``keywords``, as a provider refusing them would see it.

    Only schema keywords count: a property *named* ``anyOf`` is not the keyword.

    Args:
        tools: The offered tools.
        keywords: The refused keywords.

    Returns:
        ``(tool position, tool name, keyword, JSON pointer of the keyword)``, or None when every tool is accepted.
    """
    if not keywords:
        return None
    refused = frozenset(keywords)
    for position, tool in enumerate(tools):
        for keyword, pointer in _schema_keywords(tool.parameters, ""):
            if keyword in refused:
                return position, tool.name, keyword, pointer
    return None
