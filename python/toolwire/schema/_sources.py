"""Tool definitions read for the schema commands: one at a time, each with where it came from.

``ToolRegistry`` refuses a whole file at the first bad tool, which is right for a running agent; a linter must go on
and report every bad tool with its place. ``load_tools`` reads files (``.json``, ``.yaml``/``.yml``, ``.jsonl``),
directories (those files, recursively, in name order) and Python import paths (``package.module:attr``), splits them
into definitions, and loads each definition on its own through ``ToolRegistry``: a definition that loads becomes a
``Tool``; one that does not keeps the registry's error (and, for a schema that does not compile, its pointer).

Registry files may carry, beside each definition (at its top level, or inside an OpenAI ``function``), keys of the
toolkit's own that never reach a provider:

- ``examples: {valid: [...], invalid: [...]}``: argument objects the schema must accept and refuse (the JSON
  Schema ``examples`` keyword inside ``parameters`` also counts as valid examples);
- ``side_effects: true``: the tool changes the world (open objects are flagged on such tools);
- ``deprecated: true`` or a message, and ``sunset: "YYYY-MM-DD"``: the date after which it is gone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolwire._common._import_path import import_object
from toolwire._common._json import parse_json
from toolwire._common._suggest import closest
from toolwire._common._yaml import Lines, parse_yaml, value_lines
from toolwire.errors import SchemaError
from toolwire.mcp import is_server, list_tools
from toolwire.registry import ServerTool, Tool, ToolRegistry

__all__ = ["META_KEYS", "ToolSource", "iter_definitions", "jsonl_values", "load_tools", "sources_of"]

#: Keys beside a definition that belong to the toolkit, not to the provider's tool shape.
META_KEYS: tuple[str, ...] = ("examples", "side_effects", "deprecated", "sunset")

_FILE_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")


@dataclass(frozen=True)
class ToolSource:
    """One tool definition as declared, before and after canonicalisation.

    Attributes:
        name: The declared name, or None when the definition has no usable one.
        definition: The definition as written (the toolkit's own keys removed).
        origin: Where it is: ``tools.yaml:14#2`` (the third definition of a file, starting on line 14; ``tools.yaml#2``
            when the line is not known), ``tools.jsonl:12`` (a line), or ``package.module:attr#0``.
        tool: The canonical tool, when the definition loads.
        server_tool: The server tool, when the definition is one (they have no schema to check).
        error: Why the definition does not load, when it does not.
        error_pointer: The JSON pointer inside ``parameters`` of a schema that does not compile.
        valid_examples: Argument objects the schema must accept.
        invalid_examples: Argument objects the schema must refuse.
        meta: ``side_effects``, ``deprecated``, ``sunset`` as declared.
    """

    name: str | None
    definition: Mapping[str, Any]
    origin: str
    tool: Tool | None = None
    server_tool: ServerTool | None = None
    error: str | None = None
    error_pointer: str | None = None
    valid_examples: tuple[Any, ...] = ()
    invalid_examples: tuple[Any, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def parameters(self) -> Any:
        """The parameters schema as written (``tool.parameters`` once loaded), whatever the shape."""
        if self.tool is not None:
            return self.tool.parameters
        body = _body(self.definition)
        for key in ("parameters", "input_schema", "inputSchema"):
            if key in body:
                return body[key]
        return None

    @property
    def description(self) -> Any:
        """The description as written."""
        return _body(self.definition).get("description")


def _body(definition: Mapping[str, Any]) -> Mapping[str, Any]:
    function = definition.get("function")
    return function if isinstance(function, Mapping) else definition


def _split_meta(definition: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The definition without the toolkit's keys, and those keys (found at the top or inside ``function``)."""
    clean = dict(definition)
    meta = {key: clean.pop(key) for key in META_KEYS if key in clean}
    function = clean.get("function")
    if isinstance(function, Mapping):
        inner = dict(function)
        meta.update({key: inner.pop(key) for key in META_KEYS if key in inner})
        clean["function"] = inner
    return clean, meta


def _examples(meta: Mapping[str, Any], parameters: Any, origin: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    declared = meta.get("examples")
    valid: list[Any] = []
    invalid: list[Any] = []
    if isinstance(declared, Mapping):
        valid += list(declared.get("valid") or [])
        invalid += list(declared.get("invalid") or [])
    elif isinstance(declared, list):
        valid += declared
    elif declared is not None:
        raise ValueError(f"{origin}: examples must be {{valid: [...], invalid: [...]}} or a list; got {declared!r}")
    if isinstance(parameters, Mapping) and isinstance(parameters.get("examples"), list):
        valid += parameters["examples"]
    return tuple(valid), tuple(invalid)


def _life(meta: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in meta.items() if key != "examples"}


def _name_of(definition: Mapping[str, Any]) -> str | None:
    name = _body(definition).get("name")
    return name if isinstance(name, str) and name else None


def _source(definition: Mapping[str, Any], origin: str, fallback_name: str | None = None) -> ToolSource:
    clean, meta = _split_meta(definition)
    name = _name_of(clean) or fallback_name
    parameters = next(
        (_body(clean)[k] for k in ("parameters", "input_schema", "inputSchema") if k in _body(clean)), None
    )
    try:
        valid, invalid = _examples(meta, parameters, origin)
    except ValueError as error:
        return ToolSource(name, clean, origin, error=str(error), meta=_life(meta))
    meta = _life(meta)
    loaded: ToolRegistry | None = None
    try:
        loaded = ToolRegistry.load({fallback_name: clean} if fallback_name else [clean])
    except SchemaError as error:
        return ToolSource(name, clean, origin, error=error.problem, error_pointer=error.pointer, meta=meta)
    except (TypeError, ValueError, ImportError) as error:
        return ToolSource(name, clean, origin, error=str(error), meta=meta)
    tools = [loaded.get(tool_name) for tool_name in loaded.names]
    tool = next((t for t in tools if t is not None), None)
    server = loaded.server_tools[0] if loaded.server_tools and tool is None else None
    return ToolSource(name, clean, origin, tool, server, None, None, valid, invalid, meta)


def _python_source(item: object, origin: str) -> ToolSource:
    """A list item that is not a mapping: a callable, a pydantic model or a ``Tool`` loads; anything else does not."""
    if isinstance(item, (str, bytes, int, float, bool)) or item is None:
        return ToolSource(None, {}, origin, error=f"not a tool definition: {item!r}")
    try:
        registry = ToolRegistry.load([item])
    except (TypeError, ValueError, ImportError) as error:
        return ToolSource(None, {}, origin, error=str(error))
    tool = registry.get(registry.names[0]) if registry.names else None
    if tool is None:
        return ToolSource(None, {}, origin, error=f"not a function tool: {item!r}")
    return ToolSource(tool.name, tool.to_openai(), origin, tool=tool)


def iter_definitions(data: Any, origin: str, lines: Lines | None = None) -> Iterator[ToolSource]:
    """Split loaded data (a list, a request body with ``tools``, one definition, or a ``{name: schema}`` mapping).

    With ``lines`` (where each value of ``data`` starts, ``value_lines``), each origin names the line its definition
    starts on: ``tools.yaml:14#2``.
    """
    children = lines[1] if lines is not None else None
    if isinstance(data, Mapping):
        for key in ("tools", "functions"):
            if isinstance(data.get(key), list) and not isinstance(data.get("type"), str):
                yield from iter_definitions(data[key], origin, _child(children, key))
                return
        if (
            isinstance(data.get("type"), str)
            or isinstance(data.get("name"), str)
            or any(k in data for k in ("function", "input_schema", "inputSchema", "parameters"))
        ):
            yield _source(data, _place(origin, 0, lines))
            return
        for number, (name, value) in enumerate(data.items()):
            where = _place(origin, number, _child(children, str(name)))
            if isinstance(value, Mapping):
                yield _source(value, where, fallback_name=str(name))
            else:
                yield (
                    _source({}, where, fallback_name=str(name))
                    if value is None
                    else ToolSource(str(name), {}, where, error=f"{name}: expected a schema mapping; got {value!r}")
                )
        return
    if isinstance(data, (list, tuple)):
        for number, item in enumerate(data):
            where = _place(origin, number, _child(children, number))
            yield _source(item, where) if isinstance(item, Mapping) else _python_source(item, where)
        return
    raise ValueError(f"{origin}: expected a list of tool definitions or a {{name: schema}} mapping")


def _child(children: list[Lines] | dict[str, Lines] | None, key: str | int) -> Lines | None:
    """Where the value under ``key`` starts, when it is known."""
    if isinstance(children, dict) and isinstance(key, str):
        return children.get(key)
    if isinstance(children, list) and isinstance(key, int) and key < len(children):
        found: Lines = children[key]
        return found
    return None


def _place(origin: str, number: int, lines: Lines | None) -> str:
    """The origin of a file's definition ``number``: ``tools.yaml:14#2`` when its line is known, else ``tools.yaml#2``."""
    return f"{origin}:{lines[0]}#{number}" if lines is not None else f"{origin}#{number}"


def jsonl_values(text: str, origin: str) -> Iterator[tuple[str, Any, str | None]]:
    """Each non-blank line of JSON-lines text: where it is (``origin:line``), its value, and why it is not JSON.

    A line that does not parse gives None and the parser's reason; the lines after it are still read, so that a
    caller can report every bad line or stop at the first.
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{origin}:{number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            yield where, None, f"invalid JSON: {error.msg}"
            continue
        yield where, value, None


def _read_file(path: Path) -> Iterator[ToolSource]:
    text = path.read_text(encoding="utf-8-sig")
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        for where, item, problem in jsonl_values(text, str(path)):
            if problem is not None:
                yield ToolSource(None, {}, where, error=problem)
                continue
            for found in iter_definitions(item, where):
                yield replace(found, origin=where)
        return
    if suffix == ".json":
        data = parse_json(text, str(path))
    else:
        data = parse_yaml(text, str(path))
    # Three levels: the root, its `tools` list, the definitions in it: each origin then names its definition's line.
    yield from iter_definitions(data, str(path), value_lines(text, 2))


def _import(spec: str) -> Iterator[ToolSource]:
    value = import_object(spec)
    if isinstance(value, ToolRegistry):
        value = [tool for tool in (value.get(name) for name in value.names) if tool is not None]
    if isinstance(value, (list, tuple, Mapping)):
        yield from iter_definitions(value, spec)
    else:
        yield _python_source(value, f"{spec}#0")


def load_tools(specs: Sequence[str | Path]) -> list[ToolSource]:
    """Read every definition of files, directories, import paths and MCP servers, in order.

    Args:
        specs: Paths (files or directories), ``package.module:attr`` import paths, and MCP servers
            (``mcp+stdio:COMMAND ARGS...``, ``mcp+http(s)://...``: their ``tools/list``, see ``toolwire.mcp``).

    Returns:
        One ``ToolSource`` per definition; definitions that do not load carry their error instead of raising.

    Raises:
        FileNotFoundError: A path that does not exist (and is no import path).
        ValueError: A file that is not JSON/YAML at all, of an unknown type, or an import path that fails.
        McpServerError: An MCP server that did not list its tools (``toolwire.mcp.list_tools``).
    """
    found: list[ToolSource] = []
    for spec in specs:
        if is_server(spec):
            found.extend(iter_definitions(list_tools(str(spec)), str(spec)))
            continue
        path = Path(spec)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _FILE_SUFFIXES)
            for file in files:
                found.extend(_read_file(file))
        elif path.is_file():
            if path.suffix.lower() not in _FILE_SUFFIXES:
                raise ValueError(f"{path}: unknown tool file type; use .json, .jsonl, .yaml or .yml")
            found.extend(_read_file(path))
        elif isinstance(spec, str) and ":" in spec and not path.suffix:
            found.extend(_import(spec))
        else:
            raise FileNotFoundError(
                f"{spec}: no such file or directory{_nearby(path)} (an import path is written package.module:attr)"
            )
    return found


def _nearby(path: Path) -> str:
    """`` (did you mean 'tools.yaml'?)`` for the tool file or directory beside a missing path whose name is closest."""
    if not path.parent.is_dir():
        return ""
    names = [each.name for each in path.parent.iterdir() if each.is_dir() or each.suffix.lower() in _FILE_SUFFIXES]
    close = closest(path.name, names)
    if close is None:
        return ""
    shown = close if path.parent == Path(".") else str(path.parent / close)
    return f" (did you mean {shown!r}?)"


def sources_of(given: object, caller: str = "check_tools") -> list[ToolSource]:
    """The tool definitions to check, from what a caller has at hand.

    Args:
        given: ``ToolSource``s (from ``load_tools``); paths and ``package.module:attr`` import paths (``str`` or
            ``os.PathLike``), read with ``load_tools``; tool definitions as mappings; ``Tool``s or a
            ``ToolRegistry``; or a list mixing them. A single mapping may also be a request body with ``tools`` or a
            ``{name: schema}`` mapping.
        caller: The public function asking, named in errors.

    Returns:
        One ``ToolSource`` per definition, in order.

    Raises:
        TypeError: An item is none of these.
        ValueError, OSError: A path or import path cannot be read (as ``load_tools``).
    """
    if isinstance(given, Mapping):  # one definition, a request body with "tools", or a {name: schema} mapping
        return list(iter_definitions(given, "<definitions>"))
    items: Iterable[object]
    if isinstance(given, (str, os.PathLike, ToolRegistry, ToolSource, Tool)):
        items = [given]
    elif isinstance(given, Iterable):
        items = given
    else:
        raise TypeError(f"{caller} takes tool files, import paths, definitions or ToolSources; got {given!r:.80}")
    found: list[ToolSource] = []
    definitions = 0
    for item in items:
        if isinstance(item, ToolSource):
            found.append(item)
        elif isinstance(item, (str, os.PathLike)):
            found += load_tools([item if isinstance(item, str) else Path(item)])
        elif isinstance(item, Mapping):
            found += iter_definitions([item], f"<definitions>[{definitions}]")
            definitions += 1
        elif isinstance(item, ToolRegistry):
            # Tools already built are taken as they are (not reloaded from their rendering, which could refuse what
            # the caller deliberately built, such as an external $ref).
            tools = [tool for tool in (item.get(name) for name in item.names) if tool is not None]
            found += [ToolSource(t.name, t.to_openai(), f"<registry>#{n}", tool=t) for n, t in enumerate(tools)]
        elif isinstance(item, Tool):
            found.append(ToolSource(item.name, item.to_openai(), f"<tool {item.name}>", tool=item))
        else:
            raise TypeError(
                f"{caller}: a {type(item).__name__} is not a tool source; pass paths, module:attr import paths, "
                "definitions (mappings), Tools, a ToolRegistry or ToolSources"
            )
    return found
