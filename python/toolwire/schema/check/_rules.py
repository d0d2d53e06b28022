"""The rules ``check`` applies to each tool on its own (the rules across tools are in ``_check``).

Each rule function takes a ``ToolSource`` and yields ``Finding``s at the rule's default level (``CHECK_RULES``);
the project's ``[tool.toolwire.rules]`` may change the level or turn a rule off afterwards.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from toolwire._common._secrets import find_secrets, masked_text
from toolwire._common._suggest import closest
from toolwire._core import schema_problems
from toolwire._model import Severity
from toolwire._pipeline._bound import core
from toolwire.registry import ToolRegistry
from toolwire.schema._findings import Finding, Level, Rule
from toolwire.schema._sources import ToolSource
from toolwire.schema.check._schema import (
    JSON_TYPES,
    draft_of,
    enum_locations,
    missing_required,
    open_objects,
    resolve,
    undescribed_properties,
    value_key,
    values_at,
)

__all__ = [
    "CHECK_RULES",
    "MAX_DESCRIPTION",
    "MIN_DESCRIPTION",
    "PORTABLE_NAME",
    "TARGET_NAME_RULES",
    "finding",
    "per_tool",
]

#: Every rule of ``toolwire check``, with its default level.
CHECK_RULES: Final[tuple[Rule, ...]] = (
    Rule("tool-not-loadable", "error", "The registry refuses the definition (its error is quoted): it cannot be used."),
    Rule("duplicate-name", "error", "Two definitions declare the same name (both places named): calls are ambiguous."),
    Rule(
        "name-not-portable", "warning", "The name is outside ^[a-zA-Z][a-zA-Z0-9_]{0,62}$, the form every target takes."
    ),
    Rule("name-rejected-by-target", "info", "The name breaks the tool-name rule of the targets named."),
    Rule(
        "name-rejected-everywhere",
        "error",
        "The name breaks the tool-name rule of every target: no provider accepts a request that declares it.",
    ),
    Rule(
        "schema-invalid", "error", "The parameters break the JSON Schema meta-schema of their draft (with the pointer)."
    ),
    Rule("root-not-object", "error", "The parameters schema does not describe an object, which providers require."),
    Rule("required-not-a-property", "error", "A `required` entry names a property the object does not declare."),
    Rule("example-invalid", "error", "A valid example is refused by the schema (pointer into the example, and why)."),
    Rule(
        "example-not-refused", "error", "An invalid example is accepted by the schema: it does not say what it means."
    ),
    Rule("enum-uncovered", "info", "An enum value no valid example uses (only for tools that have valid examples)."),
    Rule("description-missing", "warning", "The tool has no description: the model routes by name alone."),
    Rule("description-too-long", "error", "The description is over 1024 characters, OpenAI's limit (requests fail)."),
    Rule("description-too-short", "info", "The description is under 20 characters: too short to say when to use it."),
    Rule("property-description-missing", "info", "A property has no description: the model guesses what it means."),
    Rule("ambiguous-tools", "warning", "Two tools read alike (name, description, parameters): routing is a coin toss."),
    Rule(
        "open-object-side-effecting",
        "warning",
        "A tool marked side_effects has an object without additionalProperties: false: undeclared members pass.",
    ),
    Rule("deprecated-without-sunset", "warning", "A deprecated tool has no sunset date: callers cannot plan."),
    Rule("sunset-passed", "error", "The tool's sunset date has passed: it should be gone."),
    Rule("sunset-not-a-date", "error", "The sunset is not a YYYY-MM-DD date."),
    Rule("secret-in-schema", "error", "A key or token in a description, default, enum, const or example leaks."),
)

_LEVELS: Final[Mapping[str, Level]] = {rule.id: rule.level for rule in CHECK_RULES}

#: The name every target takes (the intersection of the targets' rules, research table A.4).
PORTABLE_NAME: Final = re.compile(r"[a-zA-Z][a-zA-Z0-9_]{0,62}")

#: Each target's own tool-name rule (research table A.4), matched against the whole name.
TARGET_NAME_RULES: Final[Mapping[str, re.Pattern[str]]] = {
    "openai": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "anthropic": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "gemini": re.compile(r"[a-zA-Z_][A-Za-z0-9_.:-]{0,127}"),
    "vertex": re.compile(r"[a-zA-Z_][A-Za-z0-9_.-]{0,63}"),
    "bedrock": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
}

#: OpenAI refuses longer tool descriptions (research table A.4).
MAX_DESCRIPTION: Final = 1024
#: Shorter descriptions are about three words: a restatement of the name ("Gets the weather."), which tells a model
#: neither when to use the tool nor what it returns (Anthropic's guide asks for three to four sentences).
MIN_DESCRIPTION: Final = 20

# What BFCL, Python and Java/JavaScript sources write for a type, and the JSON Schema type meant (BFCL's own mapping,
# with Python's names).
_TYPE_FIXES: Final = {
    "str": "string",
    "int": "integer",
    "bool": "boolean",
    "None": "null",
    "NoneType": "null",
    "dict": "object",
    "HashMap": "object",
    "Hashtable": "object",
    "float": "number",
    "double": "number",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "Bigint": "integer",
    "tuple": "array",
    "list": "array",
    "ArrayList": "array",
    "Array": "array",
    "Queue": "array",
    "Stack": "array",
    "char": "string",
    "String": "string",
    "Boolean": "boolean",
}


def finding(rule: str, source: ToolSource, message: str, pointer: str = "", **data: Any) -> Finding:
    """A finding of ``rule`` about ``source`` at the rule's default level.

    Secrets quoted in the message or data (an enum value, an example) are masked: reports go to CI logs.
    """
    return Finding(
        rule,
        _LEVELS[rule],
        masked_text(message),
        tool=source.name,
        pointer=pointer,
        origin=source.origin,
        data=masked_text(data),
    )


def _plain(value: Any) -> Any:
    """A YAML date or time as its ISO text, as a JSON document would carry it."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    raise TypeError(f"a {type(value).__name__} is not JSON")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_plain)


def _not_loadable(source: ToolSource, invalid: list[Finding]) -> Iterator[Finding]:
    """The registry's refusal; one for a meta-schema problem that ``invalid`` reports, with its fix, points there."""
    if source.error is None:
        return
    pointer = source.error_pointer
    data = {"pointer": pointer} if pointer is not None else {}
    if pointer is not None and any(found.pointer == pointer for found in invalid):
        message = f"the registry refuses it: its schema is invalid at {pointer} (the schema-invalid finding there)"
    else:
        message = f"the registry refuses it: {source.error}"
    yield finding("tool-not-loadable", source, message, **data)


def _names(source: ToolSource) -> Iterator[Finding]:
    name = source.name
    if name is None:
        return
    rejected = [target for target, rule in TARGET_NAME_RULES.items() if not rule.fullmatch(name)]
    if len(rejected) == len(TARGET_NAME_RULES):
        yield finding(
            "name-rejected-everywhere",
            source,
            f"no provider accepts the name {name!r}: it breaks the tool-name rule of {', '.join(rejected)}; use "
            "letters, digits and '_', starting with a letter, at most 63 characters",
            rules={target: TARGET_NAME_RULES[target].pattern for target in rejected},
        )
        return
    if not PORTABLE_NAME.fullmatch(name):
        accepted = "" if rejected else " (the targets checked accept it, but not every provider or SDK does)"
        yield finding(
            "name-not-portable",
            source,
            f"the name {name!r} is not portable{accepted}: use letters, digits and '_', starting with a letter, "
            "at most 63 characters",
            pattern=PORTABLE_NAME.pattern,
        )
    if rejected:
        yield finding(
            "name-rejected-by-target",
            source,
            f"the name {name!r} breaks the tool-name rule of {', '.join(rejected)}",
            targets=rejected,
            rules={target: TARGET_NAME_RULES[target].pattern for target in rejected},
        )


def _type_fix(parameters: Any, pointer: str) -> str | None:
    """The fix of a non-standard ``type`` value (BFCL's ``dict``, Java's ``String``...), or None."""
    if not (pointer.endswith("/type") or "/type/" in pointer):
        return None
    written = resolve(parameters, "#" + pointer)
    if isinstance(written, list):  # the meta-schema faults the whole list: fix each item that is no type
        fixes = [_named_type_fix(item) for item in written if isinstance(item, str) and item not in JSON_TYPES]
        known = [fix for fix in fixes if fix is not None]
        return "; ".join(known) if known else None
    return _named_type_fix(written) if isinstance(written, str) else None


def _named_type_fix(written: str) -> str | None:
    """The fix of one ``type`` name that is no JSON Schema type, or None when nothing is close to it."""
    if written in _TYPE_FIXES:
        return f"type {written!r} is not a JSON Schema type: write {_TYPE_FIXES[written]!r}"
    if written in ("any", "Any"):
        return f"type {written!r} is not a JSON Schema type: leave 'type' out to allow any value"
    meant = closest(written.lower(), JSON_TYPES)
    if meant is not None:
        return f"type {written!r} is not a JSON Schema type: did you mean {meant!r}?"
    return None


def _schema_invalid(source: ToolSource, parameters: Any) -> Iterator[Finding]:
    draft = draft_of(parameters)
    try:
        text = json.dumps(parameters, ensure_ascii=False, allow_nan=False, default=_plain).encode()
        problems = schema_problems(text, draft)
    except (TypeError, ValueError) as error:
        yield finding("schema-invalid", source, f"the parameters are not JSON: {error}")
        return
    for pointer, problem in problems:
        fix = _type_fix(parameters, pointer)
        message = f"{fix} (draft {draft} meta-schema: {problem})" if fix else f"{problem} (draft {draft} meta-schema)"
        yield finding("schema-invalid", source, message, pointer, draft=draft, problem=problem)


def _root(source: ToolSource, parameters: Any) -> Iterator[Finding]:
    if not isinstance(parameters, Mapping):
        kind = type(parameters).__name__
        yield finding("root-not-object", source, f"the parameters are a {kind}, not an object schema")
        return
    declared = parameters.get("type")
    if declared is None:
        yield finding(
            "root-not-object",
            source,
            "the parameters declare no type: write type: object (OpenAI and Anthropic require it at the root)",
        )
        return
    listed = declared if isinstance(declared, list) else [declared]
    # A type that is no JSON type at all (BFCL's "dict") is schema-invalid's, with the fix; here only real types.
    if "object" not in listed and all(isinstance(item, str) and item in JSON_TYPES for item in listed):
        yield finding(
            "root-not-object",
            source,
            f"the parameters have type {_json(declared)}: the arguments are an object, so write type: object",
            "/type",
        )


def _required(source: ToolSource, parameters: Any) -> Iterator[Finding]:
    for pointer, name in missing_required(parameters):
        yield finding(
            "required-not-a-property",
            source,
            f"{name!r} is required but no property declares it: add it to properties, or drop it from required",
            pointer,
            name=name,
        )


def _violations(registry: ToolRegistry, name: str, example: Any) -> list[Any]:
    try:
        text = json.dumps(example, ensure_ascii=False, allow_nan=False, default=_plain)
        found = core.validate(name, text, registry)
    except (TypeError, ValueError) as error:  # not JSON data (a set, NaN...)
        return [error]
    return [violation for violation in found if violation.severity is Severity.ERROR]


def _examples(source: ToolSource) -> Iterator[Finding]:
    tool = source.tool
    if tool is None or not (source.valid_examples or source.invalid_examples):
        return
    registry = ToolRegistry([tool])
    for number, example in enumerate(source.valid_examples):
        for violation in _violations(registry, tool.name, example):
            if isinstance(violation, Exception):
                yield finding("example-invalid", source, f"valid example {number} is not JSON: {violation}")
                continue
            yield finding(
                "example-invalid",
                source,
                f"valid example {number} is refused at {violation.path or 'the root'}: {violation.message}",
                violation.path or "",
                example=f"valid[{number}]",
                code=violation.code.value,
            )
    for number, example in enumerate(source.invalid_examples):
        if not _violations(registry, tool.name, example):
            yield finding(
                "example-not-refused",
                source,
                f"invalid example {number} is accepted: tighten the schema, or fix the example",
                example=f"invalid[{number}]",
            )
    yield from _enums(source, tool.parameters)


def _enums(source: ToolSource, parameters: Any) -> Iterator[Finding]:
    if not source.valid_examples:
        return
    for pointer, (values, paths) in enum_locations(parameters).items():
        used = {
            value_key(found)
            for example in source.valid_examples
            for path in paths
            for found in values_at(example, path)
        }
        uncovered = [value for value in values if value_key(value) not in used]
        if uncovered:
            shown = ", ".join(_json(value) for value in uncovered)
            yield finding(
                "enum-uncovered",
                source,
                f"no valid example uses {shown}: add one per value, so each is shown to work",
                pointer,
                uncovered=uncovered,
            )


def _descriptions(source: ToolSource, parameters: Any) -> Iterator[Finding]:
    written = source.tool.description if source.tool is not None else source.description
    description = written if isinstance(written, str) else ""
    text = description.strip()
    if not text:
        yield finding("description-missing", source, "the tool has no description: say what it does and when to use it")
    elif len(description) > MAX_DESCRIPTION:
        yield finding(
            "description-too-long",
            source,
            f"the description has {len(description)} characters; OpenAI refuses more than {MAX_DESCRIPTION}",
            length=len(description),
            limit=MAX_DESCRIPTION,
        )
    elif len(text) < MIN_DESCRIPTION:
        yield finding(
            "description-too-short",
            source,
            f"the description {text!r} is {len(text)} characters: say when to use the tool and what it returns",
            length=len(text),
            minimum=MIN_DESCRIPTION,
        )
    for pointer, name in undescribed_properties(parameters):
        yield finding("property-description-missing", source, f"property {name!r} has no description", pointer)


def _open_objects(source: ToolSource, parameters: Any) -> Iterator[Finding]:
    if source.meta.get("side_effects") is not True:
        return
    for pointer in open_objects(parameters):
        yield finding(
            "open-object-side-effecting",
            source,
            "this object of a side-effecting tool accepts undeclared members: add additionalProperties: false",
            pointer,
        )


def _date(value: Any) -> datetime.date | None:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def _lifecycle(source: ToolSource, today: datetime.date) -> Iterator[Finding]:
    deprecated = source.meta.get("deprecated")
    sunset = source.meta.get("sunset")
    if deprecated not in (None, False, "") and sunset is None:
        yield finding(
            "deprecated-without-sunset", source, "the tool is deprecated with no sunset: add sunset: YYYY-MM-DD"
        )
    if sunset is None:
        return
    date = _date(sunset)
    if date is None:
        yield finding("sunset-not-a-date", source, f"sunset {_json(sunset)} is not a YYYY-MM-DD date")
    elif date < today:
        yield finding(
            "sunset-passed",
            source,
            f"the sunset {date.isoformat()} has passed (today is {today.isoformat()}): remove the tool",
            sunset=date.isoformat(),
            today=today.isoformat(),
        )


def _secrets(source: ToolSource) -> Iterator[Finding]:
    body = source.definition.get("function", source.definition)
    places: list[tuple[Any, dict[str, str]]] = [
        (body.get("description") if isinstance(body, Mapping) else None, {"field": "description"}),
        (source.parameters, {"field": "parameters"}),
    ]
    places += [(example, {"example": f"valid[{n}]"}) for n, example in enumerate(source.valid_examples)]
    places += [(example, {"example": f"invalid[{n}]"}) for n, example in enumerate(source.invalid_examples)]
    for value, where in places:
        for pointer, kind, shown in find_secrets(value):
            place = f"example {where['example']}" if "example" in where else where["field"]
            yield finding(
                "secret-in-schema",
                source,
                f"{kind} ({shown}) in the {place}: remove it and revoke it; definitions are copied into prompts and logs",
                pointer,
                kind=kind,
                **where,
            )


def per_tool(source: ToolSource, today: datetime.date) -> Iterator[Finding]:
    """Every finding of the per-tool rules for one definition (server tools have no schema and are skipped)."""
    # A server tool has no schema; an item that is no definition at all is only not loadable.
    has_schema = source.server_tool is None and (source.tool is not None or bool(source.definition))
    parameters = source.parameters
    invalid = list(_schema_invalid(source, parameters)) if has_schema and parameters is not None else []
    yield from _not_loadable(source, invalid)
    yield from _names(source)
    yield from _lifecycle(source, today)
    yield from _secrets(source)
    if not has_schema:
        return
    yield from _descriptions(source, parameters if isinstance(parameters, Mapping) else {})
    if parameters is None:
        return
    yield from invalid
    yield from _root(source, parameters)
    if isinstance(parameters, Mapping):
        yield from _required(source, parameters)
        yield from _open_objects(source, parameters)
    yield from _examples(source)
