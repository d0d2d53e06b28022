"""``toolwire.ToolRegistry``: the one canonical form of a set of tools.

A registry is loaded once from whatever the caller already has and is then used everywhere a ``tools=`` argument
is taken. Accepted inputs (detected per item, so a list may mix shapes):

- OpenAI Chat Completions, source ``"openai-chat"``: ``{"type": "function", "function": {"name", "description",
  "parameters", "strict"}}``; also the bare function definition ``{"name", "description", "parameters"}`` (the
  legacy ``functions=`` list, and the shape of the shared tool-schemas corpus).
- OpenAI Responses, ``"openai-responses"``: ``{"type": "function", "name", "description", "parameters", "strict"}``.
- Anthropic Messages, ``"anthropic-messages"``: ``{"name", "description", "input_schema", "strict"}`` (an explicit
  ``"type": "custom"`` is allowed).
- MCP ``tools/list`` entries, ``"mcp"``: ``{"name", "title", "description", "inputSchema"}``.
- A plain mapping, ``"mapping"``: ``{name: schema}``, ``{name: None}`` (no parameters),
  ``{name: {"description", "parameters"}}`` or ``{name: callable}``.
- Python, ``"python"``: a function (schema from its signature through pydantic's ``TypeAdapter``, description from
  the first docstring line, argument descriptions from a Google-style ``Args:`` section) or a pydantic ``BaseModel``
  subclass (name = class name, parameters = ``model_json_schema()``). pydantic is imported only then.

Containers: a list or other iterable of any of the items above (and of ``Tool``, ``ServerTool`` or other
registries); a request body or ``tools/list`` result (a mapping with a ``"tools"`` list, or ``"functions"`` for the
legacy Chat Completions parameter; a JSON-RPC response's ``"result"`` is unwrapped); a single tool definition; a
pydantic model *instance* such as an SDK object (dumped with ``model_dump(mode="json", by_alias=True,
exclude_unset=True)`` first); a ``pathlib.Path`` (read with ``ToolRegistry.from_file``). Files: ``.json``,
``.yaml``/``.yml`` (PyYAML, imported only then) and ``.jsonl`` (one item per line).

Canonical form. Each function tool becomes a ``Tool``: ``name`` exactly as given (non-empty string);
``description`` (``None`` when absent); ``parameters``, a deep copy of the declared JSON Schema in which every
mapping is a ``dict`` and every sequence a ``list``, key order kept; ``strict`` (``None`` when absent). The only
rewrite: a tool without parameters (the key absent, ``null``, ``{}`` or ``{"type": "object"}``) gets
``{"type": "object", "properties": {}}``, so the same no-argument tool is one tool in every shape. Parameters must
describe the arguments *object*: a top-level ``type`` other than ``"object"`` (or a list without it) is an error,
since OpenAI and Anthropic reject anything else at the top level; a schema without a top-level ``type`` is kept as
declared. Keys of a definition that are not part of the canonical form (Anthropic ``cache_control`` or
``input_examples``, Responses ``defer_loading``, MCP ``title`` or ``annotations``; for Chat Completions, the keys
inside ``function``) are kept in ``Tool.extra`` and rendered back only to the shape they came from; an entry of a
plain mapping takes no other keys.

Fingerprint. ``Tool.fingerprint`` is ``"sha256:"`` followed by the hex SHA-256 of the UTF-8 bytes of
``json.dumps({"name": name, "parameters": parameters}, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
allow_nan=False)``: the name and the canonical parameters only, so neither the shape a tool came from, nor its
description, ``strict`` flag, extras or key order change it, while any change to a parameter does (numbers are
hashed as Python's ``json`` spells them, so ``1`` and ``1.0`` differ). ``ToolRegistry.fingerprint`` is the same
hash of ``{"server_tools": [[type, name], ...], "tools": [fingerprint, ...]}`` with both lists sorted, so it does
not depend on declaration order.

Server tools. A definition with a string ``type`` that is not a function tool is kept apart as a ``ServerTool``
(never as an unknown or invalid tool): OpenAI Responses built-ins (``web_search``, ``web_search_preview``,
``file_search``, ``code_interpreter``, ``image_generation``, ``mcp``, ``computer_use_preview``, ``computer``,
``local_shell``, ``shell``, ``apply_patch``, ``tool_search``, ``programmatic_tool_calling``, ``namespace``,
their dated ``_YYYY_MM_DD`` variants, and any other ``type`` without a ``name``), Anthropic versioned tools (a
``type`` ending in ``_YYYYMMDD`` such as ``web_search_20250305``, ``code_execution_20250825``,
``tool_search_tool_regex_20251119``, ``bash_20250124``, ``text_editor_20250728``, ``computer_20250124``,
``memory_20250818``; also ``mcp_toolset`` and any other ``type`` with a ``name``) and OpenAI ``custom``
(free-form input) tools of either API. ``ServerTool.name`` is the name calls to it carry where the shape has one
(Anthropic's ``name``, a custom tool's or namespace's name); names are unique across tools and server tools, and
``ToolRegistry.is_server_tool(name)`` answers whether a call by that name belongs to a server tool.

Rendering (``to_openai()``, ``to_openai_responses()``, ``to_anthropic()``, ``to_mcp()``): every function tool, in
declaration order; a server tool only in the wire format it was declared for (``ServerTool.format``), copied as
given; OpenAI custom tools go to both OpenAI formats, converted between the Chat Completions and Responses
shapes; MCP has no server tools. ``strict`` is written when known, and always for Responses, whose
``FunctionTool.strict`` is a required (nullable) field: ``null`` there leaves the choice to the server (the SDK
documents that Responses then tries strict mode when the schema allows it; Chat Completions defaults to non-strict).
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import io
import json
import math
import os
import pickle
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, NoReturn, Protocol, TypeAlias, TypeVar, cast, get_args

from toolwire._common._json import canonical_sha256, parse_json, pointer_token
from toolwire._common._yaml import parse_yaml
from toolwire._model import Limits, Violation
from toolwire._pipeline import _extension
from toolwire.formats import RequestFormat

__all__ = [
    "PydanticModel",
    "ServerTool",
    "Tool",
    "ToolDefinition",
    "ToolRegistry",
    "ToolSource",
    "ToolsLike",
]

ToolSource = Literal["openai-chat", "openai-responses", "anthropic-messages", "mcp", "mapping", "python"]
"""Which shape a ``Tool`` was loaded from."""


_SOURCES: Final = frozenset(get_args(ToolSource))
_Compiled = TypeVar("_Compiled")
_NO_PARAMETERS: Final = '{"type": "object", "properties": {}}'

# OpenAI Responses `tools` entries that are not function tools (openai-python `responses/tool_param.py`).
_OPENAI_BUILTIN_TYPES: Final = frozenset(
    {
        "web_search",
        "web_search_preview",
        "file_search",
        "code_interpreter",
        "image_generation",
        "mcp",
        "computer_use_preview",
        "computer",
        "local_shell",
        "shell",
        "apply_patch",
        "tool_search",
        "programmatic_tool_calling",
        "namespace",
    }
)
_OPENAI_DATED: Final = re.compile(r"[a-z][a-z0-9_]*_\d{4}_\d{2}_\d{2}")
# Anthropic versioned tool types (`web_search_20250305`), and the unversioned ones that carry no call name.
_ANTHROPIC_DATED: Final = re.compile(r"([a-z][a-z0-9_]*)_(\d{8})")
_ANTHROPIC_UNNAMED_TYPES: Final = frozenset({"mcp_toolset"})
# The names Anthropic expects for its versioned tools, for the hint when one is declared without a name.
_ANTHROPIC_CALL_NAMES: Final = {"text_editor": "str_replace_based_edit_tool"}
_TYPE_WORD: Final = re.compile(r"[a-z][a-z0-9_]*")
_JSON_SCHEMA_TYPES: Final = frozenset({"object", "array", "string", "number", "integer", "boolean", "null", "dict"})

_ACCEPTED_SHAPES: Final = (
    'accepted shapes: OpenAI Chat Completions {"type": "function", "function": {"name": ..., "parameters": {...}}}, '
    'OpenAI Responses {"type": "function", "name": ..., "parameters": {...}}, '
    'Anthropic {"name": ..., "input_schema": {...}}, MCP {"name": ..., "inputSchema": {...}}, '
    'a bare function {"name": ..., "parameters": {...}}, a built-in/server tool {"type": ...}, '
    "a Python callable or pydantic model, a Tool, ServerTool or ToolRegistry"
)

_CANONICAL_KEYS: Final[dict[str, frozenset[str]]] = {
    "openai-chat": frozenset({"name", "description", "parameters", "strict"}),
    "openai-responses": frozenset({"type", "name", "description", "parameters", "strict"}),
    "anthropic-messages": frozenset({"type", "name", "description", "input_schema", "strict"}),
    "mcp": frozenset({"name", "description", "inputSchema"}),
}


def _no_parameters() -> dict[str, Any]:
    """The parameters of a tool that takes none."""
    return {"type": "object", "properties": {}}


def _pointer(parent: str, key: str | int) -> str:
    """Extend a JSON pointer (RFC 6901) by one reference token."""
    return f"{parent}/{pointer_token(key)}"


def _json_scalar(value: object, where: str, field_name: str, pointer: str) -> Any:
    """A JSON scalar as its exact builtin type (enum members and other subclasses unwrapped)."""
    if isinstance(value, float):
        number = float(value)
        if not math.isfinite(number):
            at = f" at {pointer}" if pointer else ""
            raise ValueError(
                f"{where}: {field_name}{at} is {number!r}; JSON has no NaN or infinity, use a finite number"
            )
        return number
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(
        f"{where}: {field_name} at {pointer or '/'} holds a {type(value).__name__} ({value!r:.60}), which is not a "
        "JSON value; use strings, numbers, booleans, null, lists and mappings (in YAML, quote dates and times)"
    )


def _json_copy(value: object, where: str, field_name: str, pointer: str = "") -> Any:
    """A deep copy of a JSON value with plain ``dict``/``list``/scalars; anything else names its location."""
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if isinstance(value, Mapping):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(
                    f"{where}: {field_name} at {pointer or '/'} has the key {key!r} ({type(key).__name__}); JSON "
                    "object keys are strings (in YAML, quote keys such as yes, no, on, off, null and numbers)"
                )
            copied[str.__str__(key)] = _json_copy(item, where, field_name, _pointer(pointer, key))
        return copied
    if isinstance(value, (list, tuple)):
        return [_json_copy(item, where, field_name, _pointer(pointer, i)) for i, item in enumerate(value)]
    return _json_scalar(value, where, field_name, pointer)


def _object_schema(value: object, where: str, field_name: str) -> dict[str, Any]:
    """Check and copy a tool's parameters: a JSON Schema for the arguments object (see the module docstring)."""
    if value is None:
        return _no_parameters()
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{where}: {field_name} must be a JSON Schema object (a mapping) describing the arguments object; got "
            f"{type(value).__name__}. Use {_NO_PARAMETERS} with your properties, or leave it out for a tool "
            "without parameters"
        )
    schema: dict[str, Any] = _json_copy(value, where, field_name)
    if not schema or schema == {"type": "object"}:
        return _no_parameters()
    if "type" not in schema:
        return schema
    declared = schema["type"]
    if declared == "object" or (isinstance(declared, list) and "object" in declared):
        return schema
    if declared == "dict":
        raise ValueError(
            f"{where}: {field_name} has the top-level type 'dict', which is BFCL's dialect, not JSON Schema; use "
            "'object' (and map BFCL's other types: float/double to number, tuple/list to array, any to string...)"
        )
    raise ValueError(
        f"{where}: {field_name} has the top-level type {declared!r}, but tool parameters must be an object schema "
        "(type 'object'): OpenAI and Anthropic reject any other top-level type. Wrap the value in an object property, "
        'e.g. {"type": "object", "properties": {"value": <this schema>}, "required": ["value"]}'
    )


def _output_schema(tool: Tool) -> dict[str, Any]:
    """A tool's MCP ``outputSchema``, checked to be what the spec says: an object schema."""
    where = f"Tool {tool.name!r}"
    schema = tool.extra["outputSchema"]
    if not isinstance(schema, dict):
        raise TypeError(
            f"{where}: outputSchema must be a JSON Schema object (a mapping) describing the structured result; got "
            f"{type(schema).__name__}"
        )
    declared = schema.get("type", "object")
    if declared != "object" and not (isinstance(declared, list) and "object" in declared):
        raise ValueError(
            f"{where}: outputSchema has the top-level type {declared!r}, but MCP's structuredContent is an object: "
            'give the value as a member, e.g. {"type": "object", "properties": {"result": <this schema>}}'
        )
    return schema


def _name(value: object, where: str, field_name: str, example: str) -> str:
    if value is None:
        raise ValueError(f"{where}: {field_name} is missing; every tool needs a non-empty string name, e.g. {example}")
    if not isinstance(value, str):
        raise TypeError(f"{where}: {field_name} must be a string; got {type(value).__name__} {value!r:.60}")
    if not value:
        raise ValueError(f"{where}: {field_name} is empty; every tool needs a non-empty string name, e.g. {example}")
    return str.__str__(value)


def _optional_str(value: object, where: str, field_name: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{where}: {field_name} must be a string or absent; got {type(value).__name__} {value!r:.60}")


def _optional_bool(value: object, where: str, field_name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise TypeError(f"{where}: {field_name} must be true, false or absent; got {type(value).__name__} {value!r:.60}")


@dataclass(frozen=True, slots=True)
class Tool:
    """One function tool in canonical form (see the module docstring for what is canonical).

    Build tools through ``ToolRegistry``; constructing one directly checks and copies the same way.

    Attributes:
        name: The name calls to the tool carry, exactly as declared.
        description: The description shown to the model, or ``None``.
        parameters: The JSON Schema of the arguments object (a private copy; treat it as read-only).
        strict: The provider's strict flag as declared (OpenAI ``strict``, Anthropic strict tool use), or ``None``.
        source: The shape the tool was loaded from.
        extra: Keys of the definition outside the canonical form, rendered back only to ``source``'s shape.
        fingerprint: ``"sha256:<hex>"`` of the canonical JSON of ``{"name", "parameters"}``; stable across shapes.
    """

    name: str
    description: str | None = None
    parameters: dict[str, Any] = field(default_factory=_no_parameters)
    strict: bool | None = None
    source: ToolSource = "python"
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        """Check the fields, copy ``parameters`` and ``extra`` into plain JSON, compute the fingerprint."""
        where = f"Tool {self.name!r}"
        name = _name(self.name, where, "name", "Tool('get_weather', ...)")
        _optional_str(self.description, where, "description")
        _optional_bool(self.strict, where, "strict")
        if self.source not in _SOURCES:
            raise ValueError(f"{where}: source must be one of {', '.join(sorted(_SOURCES))}; got {self.source!r}")
        parameters = _object_schema(self.parameters, where, "parameters")
        if not isinstance(self.extra, Mapping):
            raise TypeError(f"{where}: extra must be a mapping; got {type(self.extra).__name__}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "parameters", parameters)
        object.__setattr__(self, "extra", _json_copy(self.extra, where, "extra"))
        object.__setattr__(self, "fingerprint", canonical_sha256({"name": name, "parameters": parameters}))

    def __hash__(self) -> int:
        """Hash by identity-relevant fields (equal tools have equal fingerprints)."""
        return hash((self.name, self.fingerprint, self.description, self.strict, self.source))

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of the tool's structured result (MCP ``outputSchema``, kept in ``extra``), or None.

        ``toolwire.validate_result`` checks a result's ``structuredContent`` against it.
        """
        schema = self.extra.get("outputSchema")
        return schema if isinstance(schema, dict) else None

    def _extra_for(self, source: ToolSource) -> dict[str, Any]:
        return _json_copy(self.extra, self.name, "extra") if self.source == source else {}

    def _function_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            fields["description"] = self.description
        fields["parameters"] = _json_copy(self.parameters, self.name, "parameters")
        return fields

    def to_openai(self) -> dict[str, Any]:
        """Render as an OpenAI Chat Completions tool.

        Returns:
            ``{"type": "function", "function": {"name", "description"?, "parameters", "strict"?}}``.
        """
        function = self._function_fields()
        if self.strict is not None:
            function["strict"] = self.strict
        function.update(self._extra_for("openai-chat"))
        return {"type": "function", "function": function}

    def to_openai_responses(self) -> dict[str, Any]:
        """Render as an OpenAI Responses function tool.

        Returns:
            ``{"type": "function", "name", "description"?, "parameters", "strict"}``; ``strict`` is always present
            (a required, nullable field of the Responses API) and ``null`` when unknown.
        """
        rendered: dict[str, Any] = {"type": "function", **self._function_fields(), "strict": self.strict}
        rendered.update(self._extra_for("openai-responses"))
        return rendered

    def to_anthropic(self) -> dict[str, Any]:
        """Render as an Anthropic Messages tool.

        Returns:
            ``{"name", "description"?, "input_schema", "strict"?}``.
        """
        rendered: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            rendered["description"] = self.description
        rendered["input_schema"] = _json_copy(self.parameters, self.name, "parameters")
        if self.strict is not None:
            rendered["strict"] = self.strict
        rendered.update(self._extra_for("anthropic-messages"))
        return rendered

    def to_mcp(self) -> dict[str, Any]:
        """Render as an MCP ``tools/list`` entry (MCP has no strict flag).

        Returns:
            ``{"name", "description"?, "inputSchema"}``.
        """
        rendered: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            rendered["description"] = self.description
        rendered["inputSchema"] = _json_copy(self.parameters, self.name, "parameters")
        rendered.update(self._extra_for("mcp"))
        return rendered


@dataclass(frozen=True)
class ServerTool:
    """A built-in/server tool (or an OpenAI custom tool): declared, recognised, never validated by toolwire.

    Its schema, if any, belongs to the provider, so calls to it are server calls (or free-form calls), not unknown
    tools. See the module docstring for the recognition rules.

    Attributes:
        type: The tool's ``type`` as declared, e.g. ``"web_search_20250305"``, ``"code_interpreter"``, ``"custom"``.
        name: The name calls to it carry when the shape has one (Anthropic's ``"web_search"``,
            ``"tool_search_tool_regex"``, ``"str_replace_based_edit_tool"``; a custom tool's name), else ``None``.
        raw: The definition as given (a private JSON copy).
        format: The wire format that understands the definition; it is rendered only there (custom tools: both
            OpenAI formats).
    """

    type: str
    name: str | None
    raw: dict[str, Any] = field(repr=False)
    format: RequestFormat = "openai-responses"

    def __hash__(self) -> int:
        """Hash by type, name and format (the raw definition is a dict)."""
        return hash((self.type, self.name, self.format))

    def _render(self, target: RequestFormat | Literal["mcp"]) -> dict[str, Any] | None:
        """The definition for ``target``, or ``None`` when that wire format does not know the tool."""
        raw: dict[str, Any] = _json_copy(self.raw, f"server tool {self.type!r}", "raw")
        if self.type == "custom" and target in ("openai-chat", "openai-responses"):
            nested = raw.get("custom")
            body = nested if isinstance(nested, dict) else {k: v for k, v in raw.items() if k != "type"}
            return {"type": "custom", "custom": body} if target == "openai-chat" else {"type": "custom", **body}
        return raw if target == self.format else None


def _pydantic_module() -> Any:
    """The pydantic module when already imported, else ``None`` (nothing can be a model of an unloaded module)."""
    return sys.modules.get("pydantic")


def _is_model_class(obj: object) -> bool:
    pydantic = _pydantic_module()
    return pydantic is not None and isinstance(obj, type) and issubclass(obj, pydantic.BaseModel)


def _is_model_instance(obj: object) -> bool:
    pydantic = _pydantic_module()
    return pydantic is not None and isinstance(obj, pydantic.BaseModel)


def _import_pydantic(where: str) -> Any:
    try:
        return importlib.import_module("pydantic")
    except ImportError as error:
        raise ImportError(
            f"{where}: building a tool from a Python callable needs pydantic (pip install pydantic)"
        ) from error


def _first_line(doc: str | None) -> str | None:
    if not doc:
        return None
    for line in inspect.cleandoc(doc).splitlines():
        if line.strip():
            return line.strip()
    return None


_ARGS_HEADER: Final = re.compile(r"(Args|Arguments|Parameters|Keyword Args|Keyword Arguments):")
_ARG_LINE: Final = re.compile(r"\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")


def _google_args(doc: str | None) -> dict[str, str]:
    """Argument descriptions from a Google-style ``Args:`` section (continuation lines joined)."""
    described: dict[str, str] = {}
    if not doc:
        return described
    indent: int | None = None
    current: str | None = None
    in_section = False
    for line in inspect.cleandoc(doc).splitlines():
        stripped = line.strip()
        if not in_section:
            in_section = bool(_ARGS_HEADER.fullmatch(stripped))
            continue
        if not stripped:
            continue
        lead = len(line) - len(line.lstrip())
        indent = lead if indent is None else indent
        if lead < indent:
            in_section, indent, current = bool(_ARGS_HEADER.fullmatch(stripped)), None, None
            continue
        match = _ARG_LINE.fullmatch(stripped) if lead == indent else None
        if match:
            current = match.group(1)
            described[current] = match.group(2).strip()
        elif current is not None:
            described[current] = f"{described[current]} {stripped}".strip()
    return described


def _callable_tool(func: Callable[..., Any], where: str, name: str | None) -> Tool:
    """A tool from a function: its signature through ``pydantic.TypeAdapter``, its docstring for descriptions."""
    pydantic = _import_pydantic(where)
    target = func.func if isinstance(func, functools.partial) else func
    tool_name = name if name is not None else getattr(target, "__name__", None)
    if not isinstance(tool_name, str) or not tool_name or tool_name == "<lambda>":
        raise TypeError(
            f"{where}: the callable {func!r:.60} has no usable name; give it one with a mapping {{name: callable}}"
        )
    where = f"{where} ({tool_name!r})"
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{where}: cannot read the signature of {func!r:.60}: {error}") from error
    for parameter in signature.parameters.values():
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.VAR_POSITIONAL):
            raise TypeError(
                f"{where}: parameter {parameter.name!r} is positional-only or *args, but tool arguments arrive as a "
                "JSON object and are passed by keyword; make it a regular or keyword-only parameter"
            )
    try:
        schema = pydantic.TypeAdapter(func).json_schema()
    except (NameError, TypeError, ValueError, pydantic.PydanticUserError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise TypeError(f"{where}: pydantic cannot build a JSON Schema from the signature: {reason}") from error
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for argument, text in _google_args(target.__doc__).items():
            if isinstance(properties.get(argument), dict) and text:
                properties[argument].setdefault("description", text)
    parameters = _object_schema(schema, where, "the generated schema")
    return Tool(tool_name, _first_line(target.__doc__), parameters, None, "python")


def _model_tool(model: type[Any], where: str, name: str | None) -> Tool:
    """A tool from a pydantic model class: name = class name, parameters = ``model_json_schema()``."""
    tool_name = name if name is not None else model.__name__
    where = f"{where} ({tool_name!r})"
    try:
        schema = model.model_json_schema()
    except Exception as error:  # pydantic raises several unrelated classes here
        raise TypeError(f"{where}: pydantic cannot build a JSON Schema for {model.__name__}: {error}") from error
    return Tool(
        tool_name, _first_line(model.__doc__), _object_schema(schema, where, "model_json_schema()"), None, "python"
    )


def tool_from_python(obj: object, where: str, name: str | None = None) -> Tool:
    """A tool from a function (its signature) or a pydantic ``BaseModel`` class (its JSON Schema).

    Args:
        obj: The function or the model class.
        where: What the errors name first (``"tool_from_function"``, ``"tools[2]"``).
        name: The tool's name; by default the function's or the class's.

    Raises:
        TypeError: A class that is not a ``BaseModel``, or a signature pydantic cannot describe.
    """
    if _is_model_class(obj):
        return _model_tool(cast(type[Any], obj), where, name)
    if isinstance(obj, type):
        raise TypeError(
            f"{where}: the class {obj.__name__} is not a pydantic BaseModel; pass a BaseModel subclass, a function, "
            "or a JSON Schema"
        )
    return _callable_tool(cast(Callable[..., Any], obj), where, name)


def _flat_tool(
    definition: Mapping[str, Any], where: str, source: ToolSource, schema_key: str, prefix: str = ""
) -> Tool:
    """A tool from a definition whose fields sit at one level (everything but the Chat Completions wrapper)."""
    example = {
        "openai-chat": '{"type": "function", "function": {"name": "get_weather", ...}}',
        "openai-responses": '{"type": "function", "name": "get_weather", ...}',
        "anthropic-messages": '{"name": "get_weather", "input_schema": {...}}',
        "mcp": '{"name": "get_weather", "inputSchema": {...}}',
    }.get(source if prefix or source != "openai-chat" else "bare", '{"name": "get_weather", "parameters": {...}}')
    name = _name(definition.get("name"), where, f"{prefix}name", example)
    where = f"{where} ({name!r})"
    description = _optional_str(definition.get("description"), where, f"{prefix}description")
    strict = _optional_bool(definition.get("strict"), where, f"{prefix}strict")
    parameters = _object_schema(definition.get(schema_key), where, f"{prefix}{schema_key}")
    keys = _CANONICAL_KEYS[source] if source in _CANONICAL_KEYS else frozenset()
    extra = {key: value for key, value in definition.items() if key not in keys}
    return Tool(name, description, parameters, strict, source, _json_copy(extra, where, f"{prefix}<extra keys>"))


def _custom_tool(definition: Mapping[str, Any], where: str) -> ServerTool:
    """An OpenAI custom (free-form input) tool, Chat Completions or Responses shape."""
    if "custom" in definition:
        body = definition["custom"]
        if not isinstance(body, Mapping):
            raise TypeError(f"{where}: custom must be a mapping with the tool's name; got {type(body).__name__}")
        name = _name(body.get("name"), where, "custom.name", '{"type": "custom", "custom": {"name": ...}}')
        return ServerTool("custom", name, _json_copy(definition, where, "the definition"), "openai-chat")
    name = _name(definition.get("name"), where, "name", '{"type": "custom", "name": ..., "format": {...}}')
    return ServerTool("custom", name, _json_copy(definition, where, "the definition"), "openai-responses")


def _server_tool(definition: Mapping[str, Any], kind: str, where: str) -> ServerTool:
    """A built-in tool, by the recognition rules of the module docstring."""
    if kind in _JSON_SCHEMA_TYPES:
        raise ValueError(
            f"{where}: this looks like a bare JSON Schema (type {kind!r}), not a tool; give it a name, e.g. "
            '{"get_weather": <schema>} or {"name": "get_weather", "parameters": <schema>}'
        )
    if not _TYPE_WORD.fullmatch(kind):
        raise ValueError(f"{where}: unknown tool type {kind!r}; {_ACCEPTED_SHAPES}")
    raw = _json_copy(definition, where, "the definition")
    name = definition.get("name")
    dated = _ANTHROPIC_DATED.fullmatch(kind)
    if kind in _OPENAI_BUILTIN_TYPES or _OPENAI_DATED.fullmatch(kind):
        if kind == "namespace":
            name = _name(name, where, "name", '{"type": "namespace", "name": "crm", "tools": [...]}')
        return ServerTool(kind, name if isinstance(name, str) else None, raw, "openai-responses")
    if kind in _ANTHROPIC_UNNAMED_TYPES:
        return ServerTool(kind, None, raw, "anthropic-messages")
    if dated:
        base = dated.group(1)
        call_name = _ANTHROPIC_CALL_NAMES.get(base, base)
        example = f'{{"type": "{kind}", "name": "{call_name}"}}'
        return ServerTool(kind, _name(name, where, "name", example), raw, "anthropic-messages")
    if name is not None:
        return ServerTool(kind, _name(name, where, "name", ""), raw, "anthropic-messages")
    return ServerTool(kind, None, raw, "openai-responses")


def _function_definition(
    definition: Mapping[str, Any], kind: str | None, schema_key: str | None, where: str
) -> Tool | None:
    """The function tool of a definition whose keys say which provider's shape it has, else ``None``."""
    if schema_key == "function" and kind in (None, "function"):
        function = definition["function"]
        if not isinstance(function, Mapping):
            raise TypeError(f"{where}: function must be a mapping (name, parameters...); got {type(function).__name__}")
        return _flat_tool(function, where, "openai-chat", "parameters", prefix="function.")
    if schema_key == "input_schema" and kind in (None, "custom"):
        return _flat_tool(definition, where, "anthropic-messages", "input_schema")
    if schema_key == "inputSchema" and kind is None:
        return _flat_tool(definition, where, "mcp", "inputSchema")
    if schema_key in ("function", "input_schema", "inputSchema"):
        raise ValueError(
            f"{where}: a {schema_key!r} key does not go with type {kind!r} (the shapes are mixed); {_ACCEPTED_SHAPES}"
        )
    if kind == "function":
        return _flat_tool(definition, where, "openai-responses", "parameters")
    return None


def _definition(definition: Mapping[str, Any], where: str) -> Tool | ServerTool:
    """One tool definition of any supported shape, detected from its keys."""
    kind = definition.get("type")
    if kind is not None and not isinstance(kind, str):
        raise TypeError(f"{where}: type must be a string; got {type(kind).__name__} {kind!r:.60}")
    present = [key for key in ("function", "parameters", "input_schema", "inputSchema") if key in definition]
    if len(present) > 1:
        raise ValueError(
            f"{where}: the definition has both {present[0]!r} and {present[1]!r}, so its shape is ambiguous; keep "
            f"the one of its provider ({_ACCEPTED_SHAPES})"
        )
    tool = _function_definition(definition, kind, present[0] if present else None, where)
    if tool is not None:
        return tool
    if kind == "custom":
        return _custom_tool(definition, where)
    if kind is not None:
        return _server_tool(definition, kind, where)
    if "name" in definition or "parameters" in definition:
        return _flat_tool(definition, where, "openai-chat", "parameters")
    keys = ", ".join(map(repr, list(definition)[:8])) or "none"
    raise ValueError(f"{where}: not a tool definition (keys: {keys}); {_ACCEPTED_SHAPES}")


def _is_definition(mapping: Mapping[Any, Any]) -> bool:
    """Whether a mapping is one tool definition rather than a ``{name: schema}`` mapping."""
    return (
        isinstance(mapping.get("type"), str)
        or isinstance(mapping.get("name"), str)
        or any(key in mapping for key in ("function", "input_schema", "inputSchema", "parameters"))
    )


_BODY_KEYS: Final = ("parameters", "input_schema", "inputSchema")


def _mapping_body(name: str, body: Mapping[str, Any], where: str) -> Tool:
    """A ``{name: {"description", "parameters", "strict"}}`` entry (``input_schema``/``inputSchema`` also taken)."""
    declared = body.get("name", name)
    if declared != name:
        raise ValueError(f"{where}: the entry's name {declared!r} differs from its key {name!r}; make them equal")
    schema_keys = [key for key in _BODY_KEYS if key in body]
    unknown = [key for key in body if key not in {"name", "description", "strict", *_BODY_KEYS}]
    if len(schema_keys) > 1 or unknown:
        found = ", ".join(map(repr, schema_keys if len(schema_keys) > 1 else unknown))
        raise ValueError(
            f"{where}: an entry of a {{name: ...}} mapping takes 'description', 'strict' and one of 'parameters', "
            f"'input_schema' or 'inputSchema'; found {found}. For provider-specific keys use that provider's shape"
        )
    description = _optional_str(body.get("description"), where, "description")
    strict = _optional_bool(body.get("strict"), where, "strict")
    schema_key = schema_keys[0]
    return Tool(name, description, _object_schema(body[schema_key], where, schema_key), strict, "mapping")


def _mapping_entry(name: object, value: object, where: str) -> Tool:
    """One entry of a plain ``{name: schema}`` mapping."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"{where}: tool names (the mapping's keys) must be non-empty strings; got {name!r:.60}")
    if value is None or (isinstance(value, Mapping) and not any(key in value for key in _BODY_KEYS)):
        return Tool(name, None, _object_schema(value, where, "the schema"), None, "mapping")
    if isinstance(value, Mapping):
        return _mapping_body(name, value, where)
    if callable(value):
        return tool_from_python(value, where, name)
    raise TypeError(
        f"{where}: a {{name: value}} mapping takes a JSON Schema (a mapping), None for a tool without parameters, "
        f"a {{'description', 'parameters'}} mapping, or a callable; got {type(value).__name__}"
    )


def _model_dump(obj: Any) -> Any:
    return obj.model_dump(mode="json", by_alias=True, exclude_unset=True)


class _Builder:
    """Collects tools and server tools in declaration order, checking that call names are unique."""

    def __init__(self) -> None:
        self.entries: list[Tool | ServerTool] = []
        self.claimed: dict[str, str] = {}

    def add(self, entry: Tool | ServerTool, where: str) -> None:
        if entry.name is not None:
            first = self.claimed.get(entry.name)
            if first is not None:
                raise ValueError(
                    f"{where}: duplicate tool name {entry.name!r}, already declared at {first}; tool names must be "
                    "unique within a registry (rename one, or keep them in separate registries)"
                )
            self.claimed[entry.name] = where
        self.entries.append(entry)

    def registry(self, registry: ToolRegistry, where: str) -> None:
        for entry in registry._entries:
            self.add(entry, f"{where}[{entry.name!r}]" if entry.name is not None else where)

    def top(self, obj: object, prefix: str = "") -> None:
        """Load anything ``ToolRegistry`` accepts; labels start with ``prefix`` (a file name, a line)."""
        if isinstance(obj, ToolRegistry):
            self.registry(obj, f"{prefix}registry")
        elif isinstance(obj, (Tool, ServerTool)):
            self.add(obj, f"{prefix}tool")
        elif isinstance(obj, os.PathLike):
            self.file(Path(obj))
        elif isinstance(obj, (str, bytes, bytearray)):
            raise TypeError(
                f"{prefix}tools: got {type(obj).__name__}; for a file pass a pathlib.Path or use "
                "ToolRegistry.from_file(path), for JSON text pass json.loads(text)"
            )
        elif isinstance(obj, Mapping):
            self.mapping(obj, prefix)
        elif _is_model_instance(obj):
            self.top(_model_dump(obj), prefix)
        elif _is_model_class(obj) or callable(obj):
            self.add(tool_from_python(obj, f"{prefix}tool"), f"{prefix}tool")
        elif isinstance(obj, Iterable):
            self.items(obj, f"{prefix}tools")
        else:
            raise TypeError(
                f"{prefix}tools: cannot load a {type(obj).__name__}; pass a ToolRegistry, a list of tool definitions, "
                "a request body with 'tools', a {name: schema} mapping, callables or pydantic models, or a Path"
            )

    def mapping(self, mapping: Mapping[Any, Any], prefix: str) -> None:
        if isinstance(mapping.get("type"), str):  # one definition, even one with a "tools" list (a namespace)
            where = prefix.removesuffix(": ") or "tool"
            self.add(_definition(mapping, where), where)
            return
        result = mapping.get("result")
        if isinstance(result, Mapping) and isinstance(result.get("tools"), (list, tuple)):
            mapping = result
        for key in ("tools", "functions"):
            listed = mapping.get(key)
            if isinstance(listed, (list, tuple)):
                self.items(listed, f"{prefix}{key}")
                return
        if _is_definition(mapping):
            where = prefix.removesuffix(": ") or "tool"
            self.add(_definition(mapping, where), where)
            return
        for name, value in mapping.items():
            where = f"{prefix}tools[{name!r}]"
            self.add(_mapping_entry(name, value, where), where)

    def items(self, items: Iterable[Any], label: str) -> None:
        for index, item in enumerate(items):
            self.item(item, f"{label}[{index}]")

    def item(self, item: object, where: str) -> None:
        if isinstance(item, ToolRegistry):
            self.registry(item, where)
        elif isinstance(item, (Tool, ServerTool)):
            self.add(item, where)
        elif isinstance(item, Mapping):
            self.add(_definition(item, where), where)
        elif _is_model_instance(item):
            dumped = _model_dump(item)
            if not isinstance(dumped, Mapping):
                raise TypeError(f"{where}: the model dumps to a {type(dumped).__name__}, not a tool definition")
            self.add(_definition(dumped, where), where)
        elif _is_model_class(item) or callable(item):
            self.add(tool_from_python(item, where), where)
        else:
            raise TypeError(f"{where}: a {type(item).__name__} is not a tool definition; {_ACCEPTED_SHAPES}")

    def file(self, path: Path) -> None:
        suffix = path.suffix.lower()
        if suffix not in (".json", ".jsonl", ".yaml", ".yml"):
            raise ValueError(f"{path}: unknown tool file type {suffix or '(none)'!r}; use .json, .jsonl, .yaml or .yml")
        text = path.read_text(encoding="utf-8-sig")
        if suffix == ".jsonl":
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip():
                    self.top(parse_json(line, f"{path}:{number}"), f"{path}:{number}: ")
            return
        data = (
            parse_json(text, str(path))
            if suffix == ".json"
            else parse_yaml(text, str(path), install="pip install pyyaml")
        )
        if data is None:
            raise ValueError(
                f"{path}: the file is empty; write a list of tool definitions or a {{name: schema}} mapping"
            )
        self.top(data, f"{path}: ")


class ToolRegistry:
    """An immutable set of tools in canonical form, with a stable fingerprint.

    Iterating yields the function tools (``Tool``) in declaration order; ``len``, ``in``, ``[name]``, ``get`` and
    ``names`` cover them too. Built-in/server tools are kept apart in ``server_tools``; a call name that belongs to
    one is recognised with ``is_server_tool``. A call name is declared when ``name in registry or
    registry.is_server_tool(name)``.

    Example:
        >>> registry = ToolRegistry({"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}}})
        >>> registry.names
        ('get_weather',)
        >>> registry.to_anthropic()[0]["input_schema"]["properties"]
        {'city': {'type': 'string'}}
    """

    __slots__ = ("_by_name", "_compiled_forms", "_entries", "_fingerprint", "_server_tools", "_tools")

    _entries: tuple[Tool | ServerTool, ...]
    _tools: tuple[Tool, ...]
    _server_tools: tuple[ServerTool, ...]
    _by_name: dict[str, Tool | ServerTool]
    _fingerprint: str
    _compiled_forms: dict[object, Any]

    def __init__(self, tools: object = ()) -> None:
        """Load tools from any supported input (see the module docstring); ``ToolRegistry()`` is empty.

        Args:
            tools: A registry (copied), an iterable of tool definitions of any shape, callables or pydantic models,
                a request body or MCP ``tools/list`` result, a ``{name: schema}`` mapping, a single definition, an
                SDK model instance, or a ``pathlib.Path``.

        Raises:
            TypeError: An item has the wrong type (the message names the item and the field).
            ValueError: An item is malformed, a name is declared twice (both positions named), parameters are not
                an object schema, or the shape is unknown (the accepted shapes are listed).
        """
        builder = _Builder()
        builder.top(tools)
        self._init(builder.entries)

    def _init(self, entries: Iterable[Tool | ServerTool]) -> None:
        setter = object.__setattr__
        setter(self, "_entries", tuple(entries))
        setter(self, "_tools", tuple(entry for entry in self._entries if isinstance(entry, Tool)))
        setter(self, "_server_tools", tuple(entry for entry in self._entries if isinstance(entry, ServerTool)))
        setter(self, "_by_name", {entry.name: entry for entry in self._entries if entry.name is not None})
        servers = sorted(
            ([tool.type, tool.name] for tool in self._server_tools), key=lambda pair: (pair[0], pair[1] or "")
        )
        setter(
            self,
            "_fingerprint",
            canonical_sha256({"server_tools": servers, "tools": sorted(t.fingerprint for t in self._tools)}),
        )
        setter(self, "_compiled_forms", {})
        # Compiling now makes a schema that cannot be compiled a SchemaError here, where the tools are declared,
        # rather than in the middle of the first stream that uses them. Without the compiled extension (the
        # reference alone), the reference compiles them when a stream first uses them, raising the same error there.
        if _extension.available():
            core_validators(self)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        """Refuse: a registry is immutable."""
        raise AttributeError(f"ToolRegistry is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        """Refuse: a registry is immutable."""
        raise AttributeError(f"ToolRegistry is immutable; cannot delete {name!r}")

    @classmethod
    def load(cls, obj: object) -> ToolRegistry:
        """The registry for ``obj``: ``obj`` itself when it is already a registry, else ``ToolRegistry(obj)``.

        This is what every ``tools=`` argument of toolwire does with its value.

        Args:
            obj: Anything ``ToolRegistry(...)`` accepts.

        Returns:
            A registry.
        """
        if isinstance(obj, ToolRegistry):
            return obj
        if cls is not ToolRegistry:
            return cls(obj)
        return _loaded(obj)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ToolRegistry:
        """Load a ``.json``, ``.yaml``/``.yml`` (needs PyYAML) or ``.jsonl`` (one item per line) file.

        The content may be anything ``ToolRegistry(...)`` accepts as data: a list of definitions of any shape, a
        request body, a ``{name: schema}`` mapping, or a single definition. Error messages name the file and the
        item (``tools.yaml: tools[3]``, ``tools.jsonl:12``).

        Args:
            path: The file.

        Returns:
            The registry.

        Raises:
            OSError: The file cannot be read.
            ImportError: A YAML file and PyYAML is not installed.
            ValueError: Unknown suffix, invalid JSON/YAML (with line and column), or an invalid item.
            TypeError: An item has the wrong type.
        """
        builder = _Builder()
        builder.file(Path(path))
        registry = cls.__new__(cls)
        registry._init(builder.entries)
        return registry

    @classmethod
    def from_mcp(cls, server: str, *, timeout: float = 30.0) -> ToolRegistry:
        """The tools an MCP server lists now (``tools/list``, every page), read with the official ``mcp`` SDK.

        Each keeps what the server sent beside its schema (``title``, ``outputSchema``, ``annotations``) in
        ``Tool.extra``, rendered back by ``to_mcp()``. In an event loop, load ``await toolwire.mcp.alist_tools(...)``.

        Args:
            server: ``mcp+stdio:COMMAND ARGS...`` (started, then stopped) or ``mcp+http(s)://HOST/PATH``.
            timeout: Seconds for the whole listing.

        Raises:
            ValueError: ``server`` names no MCP server, or a tool it lists is invalid (named).
            ModuleNotFoundError: The ``mcp`` SDK is not installed (``pip install 'toolwire[mcp]'``).
            McpServerError: The server did not list its tools.
        """
        from toolwire.mcp import list_tools

        return cls(list_tools(server, timeout=timeout))

    @property
    def names(self) -> tuple[str, ...]:
        """The function tools' names, in declaration order."""
        return tuple(tool.name for tool in self._tools)

    @property
    def server_tools(self) -> tuple[ServerTool, ...]:
        """The built-in/server tools, in declaration order."""
        return self._server_tools

    @property
    def fingerprint(self) -> str:
        """``"sha256:<hex>"`` of the sorted tool fingerprints and server tool ``[type, name]`` pairs."""
        return self._fingerprint

    def is_server_tool(self, name: str) -> bool:
        """Whether a call named ``name`` belongs to a declared server tool (so it is a server call, not unknown).

        Args:
            name: The name a call carries.

        Returns:
            True when a server tool answers to that name.
        """
        return isinstance(self._by_name.get(name), ServerTool)

    def get(self, name: str, default: Tool | None = None) -> Tool | None:
        """The function tool called ``name``, or ``default``.

        Args:
            name: The tool name.
            default: Returned when no function tool has that name.

        Returns:
            The tool or ``default``.
        """
        entry = self._by_name.get(name)
        return entry if isinstance(entry, Tool) else default

    def __getitem__(self, name: str) -> Tool:
        """The function tool called ``name``; ``KeyError`` names the closest declared names."""
        tool = self.get(name)
        if tool is None:
            close = difflib.get_close_matches(str(name), self.names, n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            kind = " (a server tool)" if isinstance(name, str) and self.is_server_tool(name) else ""
            raise KeyError(f"no function tool named {name!r}{kind}{hint}")
        return tool

    def __contains__(self, name: object) -> bool:
        """Whether a function tool has this name (server tools: ``is_server_tool``)."""
        return isinstance(name, str) and isinstance(self._by_name.get(name), Tool)

    def __iter__(self) -> Iterator[Tool]:
        """The function tools in declaration order."""
        return iter(self._tools)

    def __len__(self) -> int:
        """The number of function tools (server tools not counted)."""
        return len(self._tools)

    def __eq__(self, other: object) -> bool:
        """Equal when both declare the same tools and server tools in the same order (same source shapes too)."""
        if not isinstance(other, ToolRegistry):
            return NotImplemented
        return self._entries == other._entries

    def __hash__(self) -> int:
        """Hash of the fingerprint."""
        return hash(self._fingerprint)

    def __repr__(self) -> str:
        """A short summary: names, server tool types, fingerprint."""
        servers = [tool.type for tool in self._server_tools]
        return f"ToolRegistry(names={list(self.names)!r}, server_tools={servers!r}, fingerprint={self._fingerprint!r})"

    def _compiled(
        self, build: Callable[[ToolRegistry, int, int], _Compiled], max_depth: int, max_steps: int
    ) -> _Compiled:
        """``build(self, max_depth, max_steps)``, made once per builder and pair of limits, and kept.

        A registry is immutable, so its compiled forms are too. The key is the builder itself, not a closure made per
        call: ``validate`` asks for the compiled form on every call.
        """
        key = (build, max_depth, max_steps)
        compiled: _Compiled | None = self._compiled_forms.get(key)
        if compiled is None:
            compiled = self._compiled_forms[key] = build(self, max_depth, max_steps)
        return compiled

    def _outputs(self) -> ToolRegistry:
        """The tools that declare an MCP ``outputSchema``, each with that schema as its parameters, made once.

        ``validate_result`` checks a structured result with the validator of arguments, compiled from this registry.
        Made on first use rather than with the registry: a server whose output schema is broken still gives tools
        whose calls can be checked.

        Raises:
            TypeError: An ``outputSchema`` is not a mapping (the tool named).
            ValueError: An ``outputSchema`` is not an object schema.
            SchemaError: An ``outputSchema`` the core cannot compile (named as the tool's parameters: the caller says
                which schema it was).
        """
        outputs: ToolRegistry | None = self._compiled_forms.get(_OUTPUTS)
        if outputs is None:
            declared = [
                Tool(tool.name, parameters=_output_schema(tool)) for tool in self._tools if "outputSchema" in tool.extra
            ]
            outputs = self._compiled_forms[_OUTPUTS] = ToolRegistry(declared)
        return outputs

    def _schema_texts(self) -> list[tuple[str, str, str]]:
        """``(name, parameters as JSON text, fingerprint)`` of every function tool, for a validator to compile."""
        return [
            (tool.name, json.dumps(tool.parameters, ensure_ascii=False, allow_nan=False), tool.fingerprint)
            for tool in self._tools
        ]

    def _server_names(self) -> list[str]:
        """The names server-tool calls carry."""
        return [tool.name for tool in self._server_tools if tool.name is not None]

    def _render(
        self, target: RequestFormat | Literal["mcp"], tool_render: Callable[[Tool], dict[str, Any]]
    ) -> list[Any]:
        rendered: list[dict[str, Any]] = []
        for entry in self._entries:
            definition = tool_render(entry) if isinstance(entry, Tool) else entry._render(target)
            if definition is not None:
                rendered.append(definition)
        return rendered

    def to_openai(self) -> list[dict[str, Any]]:
        """Tool definitions for an OpenAI Chat Completions request (``tools=``).

        Returns:
            Every function tool, and custom tools; other server tools are left out (Chat Completions has none).
        """
        return self._render("openai-chat", Tool.to_openai)

    def to_openai_responses(self) -> list[dict[str, Any]]:
        """Tool definitions for an OpenAI Responses request.

        Returns:
            Every function tool, the server tools declared in Responses shape, and custom tools.
        """
        return self._render("openai-responses", Tool.to_openai_responses)

    def to_anthropic(self) -> list[dict[str, Any]]:
        """Tool definitions for an Anthropic Messages request.

        Returns:
            Every function tool and the server tools declared in Anthropic shape.
        """
        return self._render("anthropic-messages", Tool.to_anthropic)

    def to_mcp(self) -> list[dict[str, Any]]:
        """Tool entries for an MCP ``tools/list`` result.

        Returns:
            Every function tool (MCP has no server tools).
        """
        return self._render("mcp", Tool.to_mcp)


class PydanticModel(Protocol):
    """A pydantic model instance, such as an SDK's tool object: the registry loads what ``model_dump`` gives."""

    def model_dump(self, *args: Any, **kwargs: Any) -> Any:
        """The model as plain data."""
        ...


ToolDefinition: TypeAlias = Mapping[str, Any] | Tool | ServerTool | ToolRegistry | PydanticModel | Callable[..., Any]
"""One tool as ``ToolRegistry`` loads it: a definition in any provider's shape (the SDKs' ``TypedDict`` params are
mappings), a request body, a ``{name: schema}`` mapping, a loaded tool or registry, an SDK model instance, or a Python
callable or pydantic model class (its schema generated)."""

ToolsLike: TypeAlias = ToolDefinition | os.PathLike[str] | Iterable[ToolDefinition]
"""What every ``tools=`` argument takes: what ``ToolRegistry.load`` loads (see the module docstring for the shapes).

One definition or any iterable of them (their shapes may mix), or a ``pathlib.Path`` to a ``.json``, ``.yaml``/``.yml``
or ``.jsonl`` file. A ``str`` is refused: a file is named by a ``Path``, JSON text is parsed first.
"""


#: The limits a registry is compiled for when it is built, so that a schema that cannot be compiled fails where the
#: tools are declared: ``Limits``'s defaults, which most streams use.
_DEFAULT_DEPTH: Final = Limits().max_depth
_DEFAULT_STEPS: Final = Limits().max_validation_steps
#: The key of a registry's output-schema registry among its compiled forms.
_OUTPUTS: Final = "outputSchema"


class CompiledTools(Protocol):
    """A registry's schemas compiled once (the core's ``ToolValidators`` or the reference's ``Validators``)."""

    @property
    def names(self) -> Any:
        """The function tools' names in declaration order."""
        ...

    def fingerprint(self, name: str) -> str | None:
        """The fingerprint of the function tool ``name``."""
        ...

    def unknown_tool(self, name: str) -> Violation | None:
        """``UNKNOWN_TOOL`` when ``name`` is not declared."""
        ...

    def validate(self, name: str, arguments: str | bytes, *, call: bool = True) -> list[Violation]:
        """Every problem of ``arguments`` (JSON text) for ``name``."""
        ...

    def validate_many(self, calls: list[Any]) -> list[list[Violation]] | None:
        """``validate`` for each ``(name, text)`` pair; None when an item is not such a pair."""
        ...

    def parameters(self) -> Mapping[str, Any]:
        """Each function tool's parameters schema, by name: what types the raw values a text dialect writes."""
        ...


CompileTools = Callable[[ToolRegistry, int, int], CompiledTools]
"""Compiles a registry for arguments nested up to a depth (``Limits.max_depth``) whose problems are searched for
within a budget (``Limits.max_validation_steps``); cached on the registry."""


# The registries loaded from plain data, by that data: a stream given ``tools={...}`` loads them again each time, and
# loading two tools cost about 300 µs, more than reading a 4 KiB text. A registry is immutable, so the one made from
# the same data serves again.
_LOADED: dict[bytes, ToolRegistry] = {}
_LOADED_SIZE = 32


class _NotPlain(Exception):
    """The data holds an object other than dicts, lists, tuples, strings, numbers, booleans and None."""


class _PlainData(pickle.Pickler):
    """Writes plain data only: the pickler asks this of every object but exact instances of the built-in types."""

    def reducer_override(self, obj: object) -> NoReturn:
        raise _NotPlain


def _loaded(obj: object) -> ToolRegistry:
    """``ToolRegistry(obj)``, the registry made before from the same data when there is one.

    Data is the same when it pickles to the same bytes: the same structure of exact built-in types (``True`` told
    from ``1``, a tuple from a list, a key ``1`` from ``"1"``), keys in the same order. Data holding anything else (a
    callable, a model, a subclass of dict, a path whose file may change) is loaded every time.
    """
    buffer = io.BytesIO()
    try:
        _PlainData(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except (_NotPlain, pickle.PicklingError, RecursionError, TypeError, ValueError):
        return ToolRegistry(obj)
    key = buffer.getvalue()
    known = _LOADED.get(key)
    if known is not None:
        return known
    registry = ToolRegistry(obj)
    while len(_LOADED) >= _LOADED_SIZE:
        _LOADED.pop(next(iter(_LOADED)), None)
    _LOADED[key] = registry
    return registry


def core_validators(
    registry: ToolRegistry, max_depth: int = _DEFAULT_DEPTH, max_steps: int = _DEFAULT_STEPS
) -> CompiledTools:
    """The registry compiled by the Rust core, once per pair of limits.

    Raises:
        ImportError: The compiled extension is missing (``toolwire.reference`` works without it).
    """
    return registry._compiled(_compile_in_core, max_depth, max_steps)


def _compile_in_core(registry: ToolRegistry, max_depth: int, max_steps: int) -> CompiledTools:
    compiled: CompiledTools = _extension.tool_validators()(
        registry._schema_texts(), registry._server_names(), max_depth, max_steps
    )
    return compiled
