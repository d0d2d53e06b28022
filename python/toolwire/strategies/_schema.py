"""JSON Schema to hypothesis strategy: values built to be valid, checked by the validator itself.

``Compiler(tool).strategy()`` walks a tool's parameters once and returns a strategy for the arguments object. Values
are valid by construction wherever the schema says what a value is (types, properties, bounds, lengths, patterns,
formats, enums, local ``$ref``); what construction cannot fold in (``oneOf``'s "exactly one", ``not``, the ``else``
of an ``if``, an ``allOf`` that does not merge, ``dependentSchemas``, ``propertyNames``, ``unevaluated*``) filters
at the place it appears, with the validator (``toolwire.validate`` on a one-property wrapper that carries the
root's ``$defs``) as the judge, so nothing outside the validator's meaning is assumed. In hostile mode the leaves
carry the catalogue's payloads where the schema lets them (``_values``).
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

from toolwire._pipeline._bound import core
from toolwire.registry import Tool, ToolRegistry
from toolwire.strategies import _values
from toolwire.strategies._hostile import PAYLOADS, HostileOptions
from toolwire.strategies._merge import ANNOTATIONS, Unsatisfiable, exact, json_key, merge, token
from toolwire.strategies._regex import python_regex
from toolwire.strategies._values import Bounds, ObjectShape, Strategy, TextRules

__all__ = ["SUPPORTED_FORMATS", "Compiler", "UnsupportedSchemaError"]

#: The formats ``arguments`` generates values of (others get plain text: the validator checks no format).
SUPPORTED_FORMATS = tuple(sorted(_values.FORMATS))

# Validating keywords no builder generates for: the validator checks them where they appear (a local filter).
_FILTERED = frozenset(
    {"dependentSchemas", "dependencies", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "maxContains"}
)
_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_TYPE_HINTS = {
    "object": ("properties", "required", "additionalProperties", "patternProperties", "minProperties"),
    "array": ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"),
    "string": ("minLength", "maxLength", "pattern"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}
_INT_FORMATS = {"int32": 31, "int64": 63}
_CHECK_KEY = "toolwire:value"  # the wrapper's own property: no tool declares it


class UnsupportedSchemaError(ValueError):
    """A place in a tool's parameters that no generated value can satisfy (or that cannot be generated for).

    Attributes:
        tool: The tool's name.
        pointer: JSON pointer into the tool's parameters (``""``: the root).
        reason: What is wrong there.
    """

    def __init__(self, tool: str, pointer: str, reason: str) -> None:
        """Name the tool, the place and the reason."""
        self.tool = tool
        self.pointer = pointer
        self.reason = reason
        super().__init__(f"tool {tool!r}: cannot generate arguments at parameters{pointer or ' (the root)'}: {reason}")


class _Checker:
    """``toolwire.validate`` for a schema found anywhere inside the parameters (its ``$ref`` still resolving)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self._context = {key: root[key] for key in ("$defs", "definitions") if key in root}
        properties = root.get("properties")
        # The root's properties stay, so that "#/properties/..." refs resolve; they constrain absent keys only.
        self._properties = dict(properties) if isinstance(properties, dict) else {}
        self._registries: dict[str, ToolRegistry] = {}

    def matches(self, schema: Any, value: Any) -> bool:
        key = json.dumps(schema, sort_keys=True)
        registry = self._registries.get(key)
        if registry is None:
            wrapper = {
                **self._context,
                "type": "object",
                "properties": {**self._properties, _CHECK_KEY: schema},
                "required": [_CHECK_KEY],
            }
            registry = self._registries[key] = ToolRegistry([Tool("toolwire_check", parameters=wrapper)])
        return not core.validate("toolwire_check", {_CHECK_KEY: value}, registry)

    def none_of(self, schemas: list[Any]) -> Callable[[Any], bool]:
        """A predicate: the value matches none of ``schemas``."""
        return lambda value: not any(self.matches(schema, value) for schema in schemas)


def _compile(pattern: Any, pointer: str) -> re.Pattern[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible nested set": ECMA reads "[[" plainly
            return python_regex(pattern)
    except (re.error, TypeError) as error:
        raise Unsatisfiable(pointer, f"strings cannot be generated from this pattern: {error}") from None


class Compiler:
    """One tool's parameters compiled into a strategy (see the module docstring)."""

    def __init__(
        self, tool: Tool, *, hostile: HostileOptions | None = None, extra_keys: bool = True, max_recursion: int = 3
    ) -> None:
        """Prepare the compilation of ``tool``'s parameters.

        Args:
            tool: The tool.
            hostile: The hostile catalogue's options, or None for plain valid arguments.
            extra_keys: Whether objects that allow undeclared keys now and then get some.
            max_recursion: How many times one ``$ref`` may be entered on one path (recursive schemas end there).
        """
        self.tool = tool
        self.root: dict[str, Any] = tool.parameters
        self.hostile = hostile
        self.extra_keys = extra_keys
        self.max_recursion = max_recursion
        self.checker = _Checker(self.root)
        self.registry = ToolRegistry([tool])

    def strategy(self) -> st.SearchStrategy[dict[str, Any]]:
        """The arguments strategy; every value is checked with ``toolwire.validate`` before it is handed out.

        Raises:
            UnsupportedSchemaError: No value can be generated at some place of the parameters.
        """
        declared = self.root.get("type", "object")
        root = {**self.root, "type": "object"}  # the arguments are an object, whatever else the root allows
        try:
            if "object" not in ([declared] if isinstance(declared, str) else declared):
                raise Unsatisfiable("/type", f"the arguments are an object, and the root's type is {declared!r}")
            strategy = self.build(root, "", ())
        except Unsatisfiable as error:
            raise UnsupportedSchemaError(self.tool.name, error.pointer, error.reason) from None
        if strategy is None:
            raise UnsupportedSchemaError(self.tool.name, "", "every value recurses past the recursion bound")
        return strategy.filter(self.valid)

    def valid(self, value: Any) -> bool:
        """Whether ``toolwire.validate`` finds nothing wrong with ``value`` as the tool's arguments."""
        return not core.validate(self.tool.name, value, self.registry)

    # ---------------------------------------------------------------------------------------------- references

    def resolve(self, ref: Any, pointer: str) -> Any:
        """The schema a local ``$ref`` points to."""
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            raise Unsatisfiable(f"{pointer}/$ref", f"only local references (#/$defs/...) are followed; got {ref!r:.60}")
        target: Any = self.root
        for raw in ref[2:].split("/") if ref != "#" else []:
            step = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and step in target:
                target = target[step]
            elif isinstance(target, list) and step.isdigit() and int(step) < len(target):
                target = target[int(step)]
            else:
                raise Unsatisfiable(f"{pointer}/$ref", f"{ref} points to nothing")
        if target is True:
            return {}
        if target is False or not isinstance(target, dict):
            raise Unsatisfiable(f"{pointer}/$ref", f"{ref} is {'the false schema' if target is False else 'no schema'}")
        return target

    def inline(self, schema: Any, pointer: str, chain: tuple[str, ...]) -> tuple[Any, tuple[str, ...]] | None:
        """``schema`` with a top-level ``$ref`` replaced by its target (siblings kept); None past the bound."""
        while isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            if chain.count(ref) >= self.max_recursion:
                return None
            target = self.resolve(ref, pointer)
            chain = (*chain, ref)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            if any(k not in ANNOTATIONS for k in rest):  # siblings of $ref apply too (2019-09 and later)
                schema = {**rest, "allOf": [*rest.get("allOf", []), target]}
            else:
                schema = {**target, **{k: v for k, v in rest.items() if k not in target}}
        return schema, chain

    # --------------------------------------------------------------------------------------------------- build

    def build(self, schema: Any, pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        """The strategy for ``schema``; None when every value would recurse past the bound."""
        if schema is True:
            schema = {}
        if not isinstance(schema, dict):
            raise Unsatisfiable(
                pointer, "the schema is false: no value is valid here" if schema is False else "no schema"
            )
        inlined = self.inline(schema, pointer, chain)
        if inlined is None:
            return None
        schema, chain = inlined
        for keyword in ("$dynamicRef", "$recursiveRef"):
            if keyword in schema:
                raise Unsatisfiable(f"{pointer}/{keyword}", f"{keyword} is not followed; use $ref to #/$defs/...")
        combined = self._combined(schema, pointer, chain)
        if combined is not _PLAIN:
            built: Strategy | None = combined
            return built
        strategy = self._typed(schema, pointer, chain)
        if strategy is not None and any(k in _FILTERED for k in schema):  # the validator decides, here
            local = {k: v for k, v in schema.items() if k not in ANNOTATIONS}
            strategy = strategy.filter(lambda v: self.checker.matches(local, v))
        return strategy

    def _combined(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Any:
        """The strategy of the first combinator in ``schema``, or ``_PLAIN`` when it has none."""
        if "allOf" in schema:
            return self._all_of(schema, pointer, chain)
        for keyword in ("anyOf", "oneOf"):
            if keyword in schema:
                return self._any_of(schema, keyword, pointer, chain)
        if "not" in schema:
            rest = {k: v for k, v in schema.items() if k != "not"}
            inner = self.build(rest, pointer, chain)
            return None if inner is None else inner.filter(self.checker.none_of([schema["not"]]))
        if "if" in schema:
            return self._if(schema, pointer, chain)
        return _PLAIN

    def _subschema(self, part: Any, where: str, chain: tuple[str, ...]) -> tuple[Any, tuple[str, ...]] | None:
        """An ``allOf`` part or a branch, ``true`` read as ``{}`` and references inlined; None past the recursion bound.

        Raises:
            Unsatisfiable: The part is ``false``: no value meets it.
        """
        if part is False:
            raise Unsatisfiable(where, "the schema is false: no value is valid here")
        return self.inline({} if part is True else part, where, chain)

    def _all_of(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        leftovers = []
        for position, part in enumerate(schema["allOf"]):
            where = f"{pointer}/allOf/{position}"
            inlined = self._subschema(part, where, chain)
            if inlined is None:
                return None
            part, chain = inlined
            combined = merge(merged, part, where) if isinstance(part, dict) else None
            if combined is None:
                leftovers.append(part)
            else:
                merged = combined
        strategy = self.build(merged, pointer, chain)
        if strategy is None or not leftovers:
            return strategy
        return strategy.filter(lambda v: all(self.checker.matches(part, v) for part in leftovers))

    def _any_of(self, schema: dict[str, Any], keyword: str, pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        rest = {k: v for k, v in schema.items() if k != keyword}
        branches = schema[keyword]
        options: list[Strategy] = []
        problems: list[str] = []
        for position, branch in enumerate(branches):
            try:
                strategy = self._branch(rest, branch, f"{pointer}/{keyword}/{position}", chain)
            except Unsatisfiable as error:
                problems.append(f"{error.pointer}: {error.reason}")
                continue
            if strategy is not None and keyword == "oneOf":  # exactly one: none of the others
                strategy = strategy.filter(self.checker.none_of([b for j, b in enumerate(branches) if j != position]))
            if strategy is not None:
                options.append(strategy)
        if options:
            return st.one_of(options)
        if len(problems) < len(branches):  # the others recurse past the bound
            return None
        raise Unsatisfiable(f"{pointer}/{keyword}", f"no branch of {keyword} can be satisfied ({'; '.join(problems)})")

    def _branch(self, rest: dict[str, Any], branch: Any, where: str, chain: tuple[str, ...]) -> Strategy | None:
        """Values of ``rest`` that also meet ``branch``: merged when that is simple, else filtered."""
        inlined = self._subschema(branch, where, chain)
        if inlined is None:
            return None
        branch, chain = inlined
        merged = merge(rest, branch, where) if isinstance(branch, dict) else None
        if merged is not None:
            return self.build(merged, where, chain)
        strategy = self.build(rest, where, chain)
        return None if strategy is None else strategy.filter(lambda v: self.checker.matches(branch, v))

    def _if(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        condition = schema["if"]
        rest = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
        options: list[Strategy] = []
        then_branch = {"allOf": [condition, schema.get("then", True)]}
        for branch, where in ((then_branch, "then"), (schema.get("else", True), "else")):
            try:
                strategy = self._branch(rest, branch, f"{pointer}/{where}", chain)
            except Unsatisfiable:
                continue
            if strategy is not None and where == "else":
                strategy = strategy.filter(self.checker.none_of([condition]))
            if strategy is not None:
                options.append(strategy)
        if not options:
            raise Unsatisfiable(f"{pointer}/if", "neither the then nor the else branch can be satisfied")
        return st.one_of(options)

    # ------------------------------------------------------------------------------------------------- by type

    def _types(self, schema: dict[str, Any], pointer: str) -> list[str] | None:
        """The types to generate; None when the schema says nothing about the type (any JSON value)."""
        declared = schema.get("type")
        if declared is None:
            types = [t for t, hints in _TYPE_HINTS.items() if any(h in schema for h in hints)]
            return types or None
        types = [declared] if isinstance(declared, str) else list(declared)
        for kind in types:
            if kind not in _TYPES:
                raise Unsatisfiable(f"{pointer}/type", f"{kind!r} is not a JSON Schema type ({', '.join(_TYPES)})")
        if "integer" in types and "number" in types:
            types.remove("integer")  # the numbers include the integers
        return types

    def _typed(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        if "const" in schema or "enum" in schema:
            return self._enum(schema, pointer)
        types = self._types(schema, pointer)
        if types is None and self.hostile is None:
            return self._with_examples(schema, _values.any_json())
        options = [s for s in (self._of_type(kind, schema, pointer, chain) for kind in types or ()) if s is not None]
        if types is None:  # hostile, and any value goes: a hostile string or number, or any JSON value
            options = [
                self._strings(schema, pointer),
                self._numbers(schema, pointer, integer=False),
                _values.any_json(),
            ]
        if not options:
            return None
        return self._with_examples(schema, st.one_of(options)) if self.hostile is None else st.one_of(options)

    def _of_type(self, kind: str, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind in ("integer", "number"):
            return self._numbers(schema, pointer, integer=kind == "integer")
        if kind == "string":
            return self._strings(schema, pointer)
        if kind == "array":
            return self._arrays(schema, pointer, chain)
        return self._objects(schema, pointer, chain)

    def _enum(self, schema: dict[str, Any], pointer: str) -> Strategy:
        keyword = "const" if "const" in schema else "enum"
        given = [schema["const"]] if keyword == "const" else schema["enum"]
        valid = [value for value in given if self.checker.matches(schema, value)]
        if not valid:
            raise Unsatisfiable(f"{pointer}/{keyword}", f"no {keyword} value satisfies the rest of the schema")
        return st.sampled_from(valid).map(copy.deepcopy)

    def _with_examples(self, schema: dict[str, Any], strategy: Strategy) -> Strategy:
        """Now and then the schema's own ``default`` or ``examples`` (those valid there)."""
        given = [schema["default"]] if "default" in schema else []
        if isinstance(schema.get("examples"), list):
            given += schema["examples"]
        valid = [value for value in given if self.checker.matches(schema, value)]
        return st.one_of(strategy, strategy, st.sampled_from(valid).map(copy.deepcopy)) if valid else strategy

    # ---------------------------------------------------------------------------------------- numbers, strings

    @staticmethod
    def _bounds(schema: dict[str, Any], pointer: str, *, integer: bool) -> Bounds:
        def read(keyword: str) -> Any:
            return exact(schema[keyword], f"{pointer}/{keyword}") if keyword in schema else None

        lo, hi, lo_open, hi_open = read("minimum"), read("maximum"), False, False
        exclusive_lo, exclusive_hi = read("exclusiveMinimum"), read("exclusiveMaximum")
        if exclusive_lo is not None and (lo is None or exclusive_lo >= lo):
            lo, lo_open = exclusive_lo, True
        if exclusive_hi is not None and (hi is None or exclusive_hi <= hi):
            hi, hi_open = exclusive_hi, True
        multiple = read("multipleOf")
        if multiple is not None and multiple <= 0:
            raise Unsatisfiable(f"{pointer}/multipleOf", "multipleOf must be greater than 0")
        bits = _INT_FORMATS.get(schema.get("format", "")) if integer and isinstance(schema.get("format"), str) else None
        if bits is None:
            return Bounds(lo, hi, lo_open, hi_open, multiple)
        # int32/int64 name the handler's integer type; the validator does not check formats, the handler will.
        floor, ceiling = -(2**bits), 2**bits - 1
        lo = floor if lo is None else max(lo, floor)
        hi = ceiling if hi is None else min(hi, ceiling)
        return Bounds(lo, hi, lo_open and lo != floor, hi_open and hi != ceiling, multiple, (floor, ceiling))

    def _numbers(self, schema: dict[str, Any], pointer: str, *, integer: bool) -> Strategy:
        bounds = self._bounds(schema, pointer, integer=integer)
        plain = _values.numbers(bounds, integer=integer)
        if plain is None:
            raise Unsatisfiable(pointer, f"no {'integer' if integer else 'number'} lies in {bounds}")
        if self.hostile is None:
            return plain
        return _values.hostile_numbers(plain, bounds, integer=integer, options=self.hostile)

    def _strings(self, schema: dict[str, Any], pointer: str) -> Strategy:
        min_len, max_len = int(schema.get("minLength", 0)), schema.get("maxLength")
        if max_len is not None and max_len < min_len:
            raise Unsatisfiable(pointer, f"minLength {min_len} is greater than maxLength {max_len}")
        regex = _compile(schema["pattern"], f"{pointer}/pattern") if "pattern" in schema else None
        fmt = schema.get("format") if isinstance(schema.get("format"), str) else None
        rules = TextRules(min_len, max_len, regex, fmt)
        plain = _values.texts(rules)
        return plain if self.hostile is None else _values.hostile_texts(plain, rules, self.hostile)

    # -------------------------------------------------------------------------------------------------- arrays

    def _prefix(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> tuple[list[Strategy], Any, bool]:
        """The prefix items' strategies, the schema of the items after them, and whether the prefix stops early."""
        max_items = schema.get("maxItems")
        given = schema.get("prefixItems")
        prefix_schemas: list[Any] = given if isinstance(given, list) else []
        prefix: list[Strategy] = []
        for position, sub in enumerate(prefix_schemas):
            built = (
                None
                if max_items is not None and position >= max_items
                else self.build(sub, f"{pointer}/prefixItems/{position}", chain)
            )
            if built is None:  # recursion (or maxItems) ends the array here
                break
            prefix.append(built)
        return prefix, schema.get("items", True), len(prefix) < len(prefix_schemas)

    def _arrays(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        min_items, max_items = int(schema.get("minItems", 0)), schema.get("maxItems")
        if max_items is not None and max_items < min_items:
            raise Unsatisfiable(pointer, f"minItems {min_items} is greater than maxItems {max_items}")
        prefix, rest, stopped = self._prefix(schema, pointer, chain)
        least = max(0, min_items - len(prefix))
        try:
            items = None if rest is False or stopped else self.build(rest, f"{pointer}/items", chain)
        except Unsatisfiable:
            if least:
                raise
            items = None  # no item can exist: the array stays empty (after its prefix)
        if items is None and least:
            if rest is False or stopped:
                raise Unsatisfiable(pointer, f"minItems {min_items} asks for more items than the schema allows")
            return None
        unique = bool(schema.get("uniqueItems"))
        self._check_unique(rest, least, unique, pointer)
        most = None if max_items is None else max(0, max_items - len(prefix))
        strategy = _values.arrays(prefix, items, least=least, most=most, unique=unique)
        if self.hostile is not None and "max_items" in self.hostile.categories and items is not None and not unique:
            # (Unique items may have fewer values than maxItems asks: such arrays keep their plain lengths.)
            strategy = _values.sometimes(_values.at_limit(prefix, items, self._size(schema, rest)), strategy)
        if "contains" in schema:
            strategy = self._contains(schema, strategy, pointer, chain)
        if unique and (prefix or "contains" in schema):
            strategy = strategy.filter(lambda v: len({json_key(i) for i in v}) == len(v))
        return strategy

    @staticmethod
    def _size(schema: dict[str, Any], rest: Any) -> int:
        """The length of a hostile long array: ``maxItems`` (at most 64 containers: they nest), else 1,000 or 8."""
        min_items, max_items = int(schema.get("minItems", 0)), int(schema.get("maxItems", -1))
        scalar = _finite(rest) or (
            isinstance(rest, dict) and rest.get("type") in ("string", "integer", "number", "null")
        )
        cap = 10_000 if scalar else 64
        if max_items >= 0:
            return max(min(max_items, cap), min_items)
        return max(1000 if scalar else 8, min_items)

    @staticmethod
    def _check_unique(rest: Any, least: int, unique: bool, pointer: str) -> None:
        if unique and least and _finite(rest):
            choices = [True, False] if rest.get("type") == "boolean" else rest.get("enum", [rest.get("const")])
            if len({json_key(c) for c in choices}) < least:
                raise Unsatisfiable(
                    pointer, f"uniqueItems: the items allow fewer than the {least} values minItems asks"
                )

    def _contains(self, schema: dict[str, Any], strategy: Strategy, pointer: str, chain: tuple[str, ...]) -> Strategy:
        needed = int(schema.get("minContains", 1))
        if needed == 0:
            return strategy
        items = schema.get("items", True)
        member = self.build({"allOf": [items, schema["contains"]]}, f"{pointer}/contains", chain)
        if member is None:
            raise Unsatisfiable(f"{pointer}/contains", "no item can satisfy contains within the recursion bound")
        return _values.with_members(strategy, member, needed, schema.get("maxItems"))

    # ------------------------------------------------------------------------------------------------- objects

    def _key_schema(self, schema: dict[str, Any], key: str) -> Any:
        """The schema an undeclared key must meet: its patternProperties entry, or additionalProperties."""
        for pattern, sub in (schema.get("patternProperties") or {}).items():
            if _compile(pattern, "").search(key):
                return sub
        return schema.get("additionalProperties", True)

    def _property_values(
        self, schema: dict[str, Any], required: list[str], pointer: str, chain: tuple[str, ...]
    ) -> dict[str, Strategy] | None:
        """A strategy per property that can have a value; None when a required one cannot."""
        values: dict[str, Strategy] = {}
        declared: dict[str, Any] = schema.get("properties") or {}
        for key in [*declared, *(k for k in required if k not in declared)]:
            where = f"{pointer}/properties/{token(key)}" if key in declared else f"{pointer}/required"
            sub = declared[key] if key in declared else self._key_schema(schema, key)
            if sub is False and key not in declared:
                raise Unsatisfiable(where, f"{key!r} is required, but no property declares it and others are refused")
            try:
                built = self.build(sub, where, chain)
            except Unsatisfiable:
                if key in required:
                    raise
                continue  # an optional property no value satisfies: valid objects leave it out
            if built is None and key in required:
                return None
            if built is not None:
                values[key] = built
        return values

    def _undeclared(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        """The value of an undeclared key, or None when none is to be added."""
        extra = schema.get("additionalProperties", True)
        if extra is True and "unevaluatedProperties" in schema:
            extra = schema["unevaluatedProperties"]
        if not self.extra_keys or extra is False or "propertyNames" in schema:
            return None
        try:
            return self.build(extra, f"{pointer}/additionalProperties", chain)
        except Unsatisfiable:
            return None

    def _patterned(
        self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]
    ) -> list[tuple[Strategy, Strategy]]:
        out = []
        for pattern, sub in (schema.get("patternProperties") or {}).items():
            where = f"{pointer}/patternProperties/{token(pattern)}"
            try:
                built = self.build(sub, where, chain)
            except Unsatisfiable:
                continue
            if built is not None:
                out.append((st.from_regex(_compile(pattern, where), alphabet=_values.CHARACTERS), built))
        return out

    def _objects(self, schema: dict[str, Any], pointer: str, chain: tuple[str, ...]) -> Strategy | None:
        required = list(dict.fromkeys(schema.get("required") or []))
        values = self._property_values(schema, required, pointer, chain)
        if values is None:
            return None
        declared: dict[str, Any] = schema.get("properties") or {}
        min_properties, max_properties = int(schema.get("minProperties", 0)), schema.get("maxProperties")
        if max_properties is not None and max_properties < len(required):
            raise Unsatisfiable(pointer, f"maxProperties {max_properties} is less than the {len(required)} required")
        patterns = [_compile(p, f"{pointer}/patternProperties") for p in schema.get("patternProperties") or {}]
        shape = ObjectShape(
            required=required,
            optional=[key for key in declared if key not in required and key in values],
            values=values,
            extra=self._undeclared(schema, pointer, chain),
            patterned=self._patterned(schema, pointer, chain),
            dependent=_dependent(schema),
            declared=declared,
            undeclared=lambda key: key not in declared and not any(p.search(key) for p in patterns),
            min_properties=min_properties,
            max_properties=max_properties,
            generous=self.hostile is not None,
        )
        if shape.extra is None and not shape.patterned and min_properties > len(required) + len(shape.optional):
            raise Unsatisfiable(pointer, f"minProperties {min_properties}: the schema allows fewer properties")
        if self.hostile is not None and "hostile_key" in self.hostile.categories and shape.extra is not None:
            shape.hostile_keys = tuple(key for key in PAYLOADS["hostile_key"] if shape.undeclared(key))
        strategy = _values.objects(shape)
        if shape.patterned:  # a key may match several patterns: the validator decides
            local = {k: v for k, v in schema.items() if k not in ANNOTATIONS}
            strategy = strategy.filter(lambda v: self.checker.matches(local, v))
        return strategy


_PLAIN: Any = object()  # no combinator: the schema is built by type


def _dependent(schema: dict[str, Any]) -> dict[str, list[str]]:
    """``dependentRequired``, and the list form of draft 7's ``dependencies``."""
    both = {**(schema.get("dependencies") or {}), **(schema.get("dependentRequired") or {})}
    return {key: list(value) for key, value in both.items() if isinstance(value, list)}


def _finite(schema: Any) -> bool:
    """Whether a schema allows only the few values it lists (enum, const, boolean)."""
    return isinstance(schema, dict) and ("enum" in schema or "const" in schema or schema.get("type") == "boolean")
