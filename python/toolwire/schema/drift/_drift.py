"""Handler drift: a tool's schema against the handler that runs its calls, and a schema made from the handler.

``check_handler(tool, handler)`` compares what the model is told (the parameters schema) with what the handler
takes (its signature or fields, see ``_handler``), field by field and into nested models, list items and
mapping values, and then builds every valid example of the tool through the handler's own type. The rules:

=============================  =======  ========================================================================
rule                           level    flags
=============================  =======  ========================================================================
``handler-requires-unknown``   error    a field the handler requires that the schema does not declare at all
``handler-requires-optional``  error    a field the handler requires that the schema leaves optional (what the
                                        handler requires must be a subset of what the schema requires; the
                                        reverse, optional in the handler and required in the schema, is fine)
``schema-property-ignored``    warning  a schema property the handler has no field for (dropped unseen, or a
                                        call that sends it fails on an unexpected keyword)
``type-mismatch``              error    the schema accepts a JSON type the annotation refuses (``_types``
                                        has the mapping), or does not constrain a type the handler does
``enum-mismatch``              error    a ``Literal`` or ``Enum`` and the schema's ``enum``/``const`` list
                                        different values (both directions are named), or the schema allows any
                                        value where the handler takes a few
``default-mismatch``           warning  the schema's ``default`` differs from the handler's, or the handler has
                                        none and receives the key absent
``example-refused``            error    a valid example (one the schema accepts) that the handler's own type
                                        refuses, with the handler's error
=============================  =======  ========================================================================

Pointers are JSON pointers into the tool's parameters schema: ``/properties/amount``; inside a model reached
through ``$ref``, the pointer of the definition (``/$defs/Address/properties/city``). ``data["field"]`` names the
handler's field (``RefundArgs.address.city``, ``refund.items[]`` for list items, ``refund.meta{}`` for mapping
values).

``tool_from_function(fn)`` is the single-source option: the schema generated from the function by pydantic, so the
two cannot drift (``check_handler(tool_from_function(fn), fn)`` finds nothing).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, get_args, get_origin

from toolwire._common._json import pointer_token
from toolwire._model import Severity
from toolwire._pipeline._bound import core
from toolwire.registry import Tool, ToolRegistry, tool_from_python
from toolwire.schema._findings import Finding, FindingReport, Rule, sorted_findings
from toolwire.schema._sources import ToolSource
from toolwire.schema.drift._handler import Handler, Param, Problem, class_kind, construct, describe
from toolwire.schema.drift._types import Accepts, SchemaDoc, accepted_by, is_union, json_key, type_within, unwrap

__all__ = ["DRIFT_RULES", "check_handler", "tool_from_function"]

#: Every rule ``check_handler`` enforces.
DRIFT_RULES: tuple[Rule, ...] = (
    Rule(
        "handler-requires-unknown",
        "error",
        "The handler requires a field the schema does not declare: the model never sends it, so every call fails.",
    ),
    Rule(
        "handler-requires-optional",
        "error",
        "The handler requires a field the schema leaves optional: a valid call without it fails in the handler.",
    ),
    Rule(
        "schema-property-ignored",
        "warning",
        "A schema property the handler does not take: the model fills it in for nothing, or the call fails.",
    ),
    Rule("type-mismatch", "error", "The schema accepts a JSON type the handler's annotation does not."),
    Rule("enum-mismatch", "error", "A Literal or Enum and the schema's enum list different values."),
    Rule("default-mismatch", "warning", "The schema's default is not the default the handler applies."),
    Rule("example-refused", "error", "A valid example of the tool is refused by the handler's own type."),
)

_LEVELS: Final = {rule.id: rule.level for rule in DRIFT_RULES}
_ARRAYS: Final = (list, tuple, set, frozenset)
_SHOWN_PROBLEMS: Final = 3


def _show(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return repr(annotation).replace("typing.", "").replace("typing_extensions.", "")


def _values(values: Iterable[Any]) -> str:
    return ", ".join(sorted(repr(value) for value in values))


def _missing_types(schema: Accepts, handler: Accepts) -> list[str]:
    """The JSON types the schema accepts and the handler does not (``["any type"]`` for an untyped schema)."""
    if handler.types is None:
        return []
    if schema.types is None:
        return ["any type"]
    return sorted(name for name in schema.types if not type_within(name, handler.types))


def _is_null(node: Any) -> bool:
    return isinstance(node, Mapping) and node.get("type") == "null"


def _single(annotation: Any) -> Any:
    """The one non-None member of an annotation (``Optional[X]`` is ``X``), else None."""
    annotation = unwrap(annotation)
    if not is_union(annotation):
        return annotation
    members = [unwrap(member) for member in get_args(annotation) if unwrap(member) is not type(None)]
    return members[0] if len(members) == 1 else None


def _jsonable(value: Any) -> tuple[bool, Any]:
    pydantic_core = importlib.import_module("pydantic_core")
    try:
        return True, pydantic_core.to_jsonable_python(value)
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
        return False, None


class _Drift:
    """The comparison of one tool with one handler; findings accumulate in ``findings``."""

    def __init__(self, tool: Tool, handler: Handler, origin: str | None) -> None:
        self.tool = tool
        self.handler = handler
        self.origin = origin
        self.doc = SchemaDoc(tool.parameters)
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, int]] = set()

    def add(self, rule: str, pointer: str, field: str, message: str, **data: Any) -> None:
        self.findings.append(
            Finding(
                rule,
                _LEVELS[rule],
                f"{field}: {message}",
                tool=self.tool.name,
                pointer=pointer,
                origin=self.origin,
                data={"handler": self.handler.name, "field": field, **data},
            )
        )

    def object(self, node: Any, pointer: str, handler: Handler, path: str) -> None:
        """Compare an object schema with a handler's fields (the top level, or a nested model)."""
        node, pointer = self.doc.resolve(node, pointer)
        if not isinstance(node, Mapping) or (pointer, id(handler.target)) in self._seen:
            return  # a model met again (recursive, or the same $ref twice) was compared the first time
        self._seen.add((pointer, id(handler.target)))
        properties = node.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = {name for name in node.get("required") or () if isinstance(name, str)}
        for param in handler.params:
            self.param(properties, required, pointer, param, f"{path}.{param.key}")
        if handler.extra == "accept":
            return
        for key in properties:
            if handler.param(key) is None:
                self.ignored(f"{pointer}/properties/{pointer_token(key)}", f"{path}.{key}", key, handler)

    def ignored(self, pointer: str, field: str, key: str, handler: Handler) -> None:
        effect = (
            "a call that sends it fails (unexpected keyword)"
            if handler.extra == "refuse"
            else "it is dropped without a word"
        )
        self.add(
            "schema-property-ignored",
            pointer,
            field,
            f"the schema declares {key!r} but {handler.name} has no field for it, so {effect}; add "
            f"{'a parameter (or **kwargs)' if handler.kind == 'function' else 'the field'}, or remove the property",
        )

    def param(self, properties: Mapping[str, Any], required: set[str], pointer: str, param: Param, field: str) -> None:
        where = f"{pointer}/properties/{pointer_token(param.key)}"
        if param.key not in properties:
            if param.required:
                self.add(
                    "handler-requires-unknown",
                    where,
                    field,
                    f"the handler requires {param.key!r} but the schema does not declare it, so the model never "
                    "sends it; add it to properties and required, or give the field a default",
                )
            return
        if param.required and param.key not in required:
            self.add(
                "handler-requires-optional",
                where,
                field,
                f"the handler requires {param.key!r} but the schema leaves it optional, so a valid call without it "
                "fails; list it in required, or give the field a default",
            )
        self.value(properties[param.key], where, param.annotation, field)
        self.default(properties[param.key], where, param, field)

    def value(self, node: Any, pointer: str, annotation: Any, field: str) -> None:
        """Compare the types and values a schema node accepts with an annotation, then look inside."""
        schema = self.doc.accepts(node)
        handler = accepted_by(annotation)
        missing = _missing_types(schema, handler)
        if missing:
            takes = ", ".join(sorted(handler.types or ()))
            self.add(
                "type-mismatch",
                pointer,
                field,
                f"the schema accepts {', '.join(missing)}, which the annotation {_show(annotation)} refuses (it "
                f"takes {takes}); make the two agree",
                schema_types=sorted(schema.types) if schema.types is not None else None,
                handler_types=sorted(handler.types or ()),
            )
            return
        self.enum(schema, handler, pointer, field)
        self.deep(node, pointer, annotation, field)

    def enum(self, schema: Accepts, handler: Accepts, pointer: str, field: str) -> None:
        # null is about optionality (Optional[...] = None), not about the enum: the type check covers it.
        handler_values = [value for value in handler.values or () if value is not None]
        if not handler_values:
            return
        if schema.values is None:
            kinds = ", ".join(sorted((schema.types or frozenset({"value"})) - {"null"})) or "value"
            self.add(
                "enum-mismatch",
                pointer,
                field,
                f"the schema allows any {kinds}, but the handler takes only {_values(handler_values)}; declare "
                "them as the schema's enum",
                handler_values=handler_values,
            )
            return
        schema_values = [value for value in schema.values if value is not None]
        handler_keys = {json_key(value) for value in handler_values}
        schema_keys = {json_key(value) for value in schema_values}
        only_schema = [value for value in schema_values if json_key(value) not in handler_keys]
        only_handler = [value for value in handler_values if json_key(value) not in schema_keys]
        if not only_schema and not only_handler:
            return
        parts = []
        if only_schema:
            parts.append(f"the schema allows {_values(only_schema)}, which the handler refuses")
        if only_handler:
            parts.append(f"the handler takes {_values(only_handler)}, which the schema never offers")
        self.add(
            "enum-mismatch",
            pointer,
            field,
            "; ".join(parts),
            only_schema=only_schema,
            only_handler=only_handler,
        )

    def branch(self, node: Any, pointer: str) -> tuple[Mapping[str, Any], str] | None:
        """The one object/array/mapping schema a node stands for (a ``$ref``, the non-null branch of an ``anyOf``)."""
        node, pointer = self.doc.resolve(node, pointer)
        if not isinstance(node, Mapping):
            return None
        if any(key in node for key in ("properties", "items", "prefixItems", "additionalProperties")):
            return node, pointer
        for key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                live = [(b, f"{pointer}/{key}/{i}") for i, b in enumerate(branches) if not _is_null(b)]
                return self.branch(*live[0]) if len(live) == 1 else None
        return node, pointer

    def deep(self, node: Any, pointer: str, annotation: Any, field: str) -> None:
        """Look inside: a nested model's fields, list items, mapping values."""
        inner = _single(annotation)
        found = self.branch(node, pointer) if inner is not None else None
        if found is None:
            return
        node, pointer = found
        if class_kind(inner) is not None:
            self.object(node, pointer, describe(inner), field)
            return
        origin, args = get_origin(inner) or inner, get_args(inner)
        if not isinstance(origin, type) or not args:
            return
        if issubclass(origin, tuple) and args[-1] is not Ellipsis:
            prefix = node.get("prefixItems")
            for index, (item, member) in enumerate(zip(prefix or (), args, strict=False)):
                self.value(item, f"{pointer}/prefixItems/{index}", member, f"{field}[{index}]")
        elif issubclass(origin, Mapping) and len(args) == 2:
            if isinstance(node.get("additionalProperties"), Mapping):
                self.value(node["additionalProperties"], f"{pointer}/additionalProperties", args[1], f"{field}{{}}")
        elif issubclass(origin, (*_ARRAYS, Sequence)) and isinstance(node.get("items"), Mapping):
            self.value(node["items"], f"{pointer}/items", args[0], f"{field}[]")

    def default(self, node: Any, pointer: str, param: Param, field: str) -> None:
        if not isinstance(node, Mapping) or "default" not in node or param.required:
            return
        declared = node["default"]
        if not param.has_default():
            self.add(
                "default-mismatch",
                pointer,
                field,
                f"the schema promises the default {declared!r} when {param.key!r} is left out, but the handler "
                "has none and gets the key absent; apply it in the handler, or drop it from the schema",
                schema_default=declared,
            )
            return
        try:
            made = param.default_value()
        except Exception:  # a default factory of the handler's own; its failure is not drift
            return
        known, value = _jsonable(made)
        if known and json_key(value) != json_key(declared):
            self.add(
                "default-mismatch",
                pointer,
                field,
                f"the schema says the default is {declared!r}, the handler applies {value!r}; make them equal",
                schema_default=declared,
                handler_default=value,
            )

    def examples(self, examples: Sequence[Any]) -> tuple[int, int]:
        """Build every example the schema accepts through the handler; returns (built, skipped as invalid)."""
        registry = ToolRegistry([self.tool])
        built = skipped = 0
        for index, example in enumerate(examples):
            if not _schema_accepts(self.tool.name, example, registry):
                skipped += 1  # `toolwire check` reports a valid example the schema refuses
                continue
            built += 1
            problems = construct(self.handler, example)
            if problems:
                self.refused(index, example, problems)
        return built, skipped

    def refused(self, index: int, example: Mapping[str, Any], problems: list[Problem]) -> None:
        errors = [{"loc": ".".join(map(str, loc)), "message": message} for loc, message in problems]
        shown = "; ".join(f"{e['loc']}: {e['message']}" if e["loc"] else e["message"] for e in errors[:_SHOWN_PROBLEMS])
        more = f" (and {len(errors) - _SHOWN_PROBLEMS} more)" if len(errors) > _SHOWN_PROBLEMS else ""
        first = problems[0][0][0] if problems[0][0] else None
        properties = self.tool.parameters.get("properties") or {}
        known = isinstance(first, str) and first in properties
        pointer = f"/properties/{pointer_token(str(first))}" if known else ""
        self.add(
            "example-refused",
            pointer,
            f"{self.handler.short}.{first}" if known else self.handler.short,
            f"valid example #{index} is refused by {self.handler.name}: {shown}{more}",
            example=index,
            arguments=dict(example),
            errors=errors,
        )


def _schema_accepts(name: str, example: Any, registry: ToolRegistry) -> bool:
    if not isinstance(example, Mapping):
        return False
    try:
        violations = core.validate(name, example, registry)
    except TypeError:  # not JSON at all (a YAML date...)
        return False
    return not any(violation.severity is Severity.ERROR for violation in violations)


def _tool_of(tool: object) -> tuple[Tool, str | None, tuple[Any, ...]]:
    """The tool, where it came from and its valid examples, from anything ``check_handler`` takes."""
    if isinstance(tool, ToolSource):
        if tool.tool is None:
            raise ValueError(f"{tool.origin}: the tool {tool.name!r} does not load ({tool.error}); fix it first")
        return tool.tool, tool.origin, tool.valid_examples
    if not isinstance(tool, Tool):
        loaded = list(ToolRegistry.load(tool))
        if len(loaded) != 1:
            names = ", ".join(repr(t.name) for t in loaded) or "none"
            raise ValueError(f"check_handler takes one tool; got {len(loaded)} ({names}): pass the one to check")
        tool = loaded[0]
    declared = tool.parameters.get("examples")
    return tool, None, tuple(declared) if isinstance(declared, list) else ()


def check_handler(tool: object, handler: object, *, examples: Sequence[Any] | None = None) -> FindingReport:
    """Check that a handler takes exactly what its tool's schema lets the model send.

    Args:
        tool: A ``Tool``, a ``ToolSource`` (from ``load_tools``), or anything ``ToolRegistry`` loads that holds
            one tool (a definition, a ``{name: schema}`` mapping, a function...).
        handler: A function (signature and annotations), dataclass, pydantic model, TypedDict or attrs class.
        examples: Argument objects to build through the handler; by default the tool's valid examples
            (``ToolSource.valid_examples``, or the ``examples`` keyword of its parameters). Examples the schema
            refuses are skipped (``toolwire check`` reports them).

    Returns:
        A ``drift`` report (see the module docstring for the rules); ``extra["handlers"]`` says which handler was
        read as which kind and how many examples were built.

    Raises:
        TypeError: The handler is none of the five kinds, or its annotations cannot be resolved.
        ValueError: ``tool`` is not one loadable tool.
    """
    checked, origin, declared = _tool_of(tool)
    described = describe(handler)
    drift = _Drift(checked, described, origin)
    drift.object(checked.parameters, "", described, described.short)
    built, skipped = drift.examples(tuple(examples) if examples is not None else declared)
    summary = {
        "tool": checked.name,
        "handler": described.name,
        "kind": described.kind,
        "examples_built": built,
        "examples_skipped": skipped,
    }
    return FindingReport("drift", sorted_findings(drift.findings), (checked.name,), {"handlers": [summary]})


def tool_from_function(fn: Callable[..., Any], *, name: str | None = None, description: str | None = None) -> Tool:
    """A tool generated from a function (or a pydantic model class) by pydantic: one source for schema and handler.

    Args:
        fn: The handler. Parameters become properties (required when they have no default, ``default`` when they
            do), annotations their schemas (``Literal`` and ``Enum`` an ``enum``, nested models ``$defs``).
        name: The tool name (default: the function's ``__name__``, or the model's class name).
        description: The tool description (default: the first line of the docstring); argument descriptions come
            from a Google-style ``Args:`` section.

    Returns:
        The tool; ``check_handler(tool, fn)`` finds no drift.

    Raises:
        TypeError: pydantic cannot build a schema from the signature, or a parameter is positional-only or ``*args``.
    """
    tool = tool_from_python(fn, "tool_from_function", name)
    return dataclasses.replace(tool, description=description) if description is not None else tool
