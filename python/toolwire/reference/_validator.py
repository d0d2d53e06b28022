r"""Tool-argument validation in plain Python: the readable twin of ``rust/core/src/validator.rs``.

Each tool's parameters schema is compiled once with the Python ``jsonschema`` package: the draft named by
``$schema`` (2020-12 when absent), without a format checker, so ``format``, ``contentEncoding`` and
``contentMediaType`` are annotations as in the Rust core. Nothing is ever fetched: a ``$ref`` to anything outside
the schema (save the bundled meta-schemas) is a :class:`~toolwire.errors.SchemaError` when the validators are
built, naming the pointer of that ``$ref``.

Each problem becomes one :class:`~toolwire._model.Violation` with the JSON pointer of the field concerned, by
the Rust module's table:

| keyword                                                  | code                        | path                |
| -------------------------------------------------------- | --------------------------- | ------------------- |
| ``required``                                             | ``MISSING_REQUIRED_ARGUMENT`` | the missing member  |
| ``additionalProperties``/``unevaluatedProperties`` false | ``UNEXPECTED_ARGUMENT``     | each such member    |
| ``type``                                                 | ``TYPE_MISMATCH``           | the value           |
| ``anyOf``/``oneOf``, every branch failing on type alone  | ``TYPE_MISMATCH``           | the value           |
| ``enum``, ``const``                                      | ``ENUM_OUT_OF_RANGE``       | the value           |
| ``propertyNames``                                        | ``CONSTRAINT_VIOLATION``    | the member so named |
| ``dependentRequired`` (draft 7: ``dependencies``, a list) | ``CONSTRAINT_VIOLATION``   | the missing member  |
| ``unevaluatedProperties`` with a schema                  | ``CONSTRAINT_VIOLATION``    | each failing member |
| anything else (bounds, lengths, ``pattern``, items, ...) | ``CONSTRAINT_VIOLATION``    | the value           |

Below a failed ``anyOf``/``oneOf``, the findings of the branch the value singles out are reported in the union's
place; when no branch is singled out, the union is one violation at the value, never one per branch (the rule:
:mod:`toolwire.reference._error_search`). Violations are sorted by path, then code, then message, with duplicates
removed.

Whether the arguments are valid is decided first, by ``jsonschema``, each ``$ref`` target judged once per value
(``jsonschema`` alone would judge it again down every branch of every union above it, exponentially often). The errors
are then found by :mod:`toolwire.reference._error_search`, which judges each (subschema, value) pair once (or, for
a schema it does not model, by ``jsonschema``'s own search), and only when the count of
:mod:`toolwire.reference._search_cost` says the search fits in ``max_steps``; otherwise the arguments are invalid
with one ``VALIDATION_BUDGET_EXCEEDED``, as in the core. The mapping of ``jsonschema``'s errors below applies to the
keywords that apply no subschema, and to the whole schema where the library searches itself.

Where it differs from the core, because ``jsonschema`` and Python do:

- Numbers: the arguments are parsed by :func:`json.loads`, so integers are exact Python ``int`` values as in the
  core, but a number with a fraction or an exponent is a ``float`` rounded to 17 digits, where the core compares the
  decimal as written: ``0.3`` fails ``{"multipleOf": 0.1}`` here, not there. (In both, a number whose integer part
  has more than 4300 digits is ``INVALID_JSON`` and the schema is not applied: see ``_numbers``.)
- Patterns run on RE2 (``_patterns``), the core's on Rust's ``regex``: both linear-time, with the same syntax save
  at the edges. RE2 refuses a counted repetition past 1000 and long Unicode property names (``\p{Letter}``;
  ``\p{L}`` works), which the core runs (such a ``pattern`` is a ``SchemaError`` here); ``\b`` is ASCII here and
  Unicode there; ``\S`` inside a class is RE2's (``[\t\n\f\r ]`` complemented), where the core's is ECMA-262's.
- ``unevaluatedProperties`` applies its ``patternProperties`` with Python's ``re`` (``jsonschema``'s own helper
  decides which members were evaluated): under it a pattern backtracks as ``re`` does.
- ``unevaluatedProperties`` counts as evaluated the members that the matching branches of a ``oneOf``/``anyOf``
  evaluated even when that combinator fails (a ``oneOf`` matching twice), so it may name fewer unexpected members
  than the core, which drops them (the verdict is the same).
- A schema that refers to itself without ever reaching into the value (``{"$ref": "#"}``) gives one
  ``CONSTRAINT_VIOLATION`` (``$ref``) where the core accepts every value.

Example:
    >>> validators = Validators([("get_weather", {"properties": {"city": {"type": "string"}}})])
    >>> [(v.code.value, v.path) for v in validators.validate("get_weather", '{"city": 3}')]
    [('TYPE_MISMATCH', '/city')]
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Any, NamedTuple, NoReturn

import jsonschema  # type: ignore[import-untyped]
import jsonschema.exceptions  # type: ignore[import-untyped]
import jsonschema.validators  # type: ignore[import-untyped]
import jsonschema_specifications  # type: ignore[import-untyped]
import referencing
import referencing.exceptions
import referencing.jsonschema

from toolwire._model import Limits, Violation, ViolationCode
from toolwire.errors import SchemaError
from toolwire.reference._error_search import find
from toolwire.reference._findings import (
    LIMITED,
    child,
    constraint,
    escape,
    json_type,
    pointer_of,
    quoted,
    render,
    shorten,
    sorted_unique,
    type_message,
    violation,
)
from toolwire.reference._numbers import NUMBER_TOO_LONG, loads_arguments
from toolwire.reference._patterns import FORMAT_CHECKER, additional_members, matches
from toolwire.reference._patterns import KEYWORDS as PATTERN_KEYWORDS
from toolwire.reference._patterns import refusal as _patterns_refusal
from toolwire.reference._plan import Keywords
from toolwire.reference._scanner import COMPLETE, INVALID, TOO_DEEP, Scanner
from toolwire.reference._search_cost import SearchGraph

__all__ = ["Validators", "loads_arguments", "number_too_long"]

#: Declared names listed in an ``UNKNOWN_TOOL`` message; the rest are counted.
LISTED_NAMES = 20
#: Characters of an unknown name compared with the declared ones.
MAX_COMPARED_CHARS = 256
# Python frames allowed per level of nesting of the arguments while a schema is applied.
_FRAMES_PER_LEVEL = 40

# Keywords whose limit is a count of characters, items or members.
_COUNTS = frozenset({"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"})

# jsonschema names the members an `unevaluatedProperties` keyword rejects only in its message, as a list of reprs:
# "Unevaluated properties are not allowed ('b', 'c' were unexpected)".
_UNEVALUATED_MEMBERS = re.compile(r"\((?P<members>.*) (?:was|were) (?:unexpected|unevaluated and invalid)\)\Z", re.S)


def _refuse_to_fetch(uri: str) -> NoReturn:
    """The registry's ``retrieve``: nothing outside the schema and the bundled meta-schemas is ever fetched."""
    raise LookupError(f"{uri} is outside the schema and is never fetched")


# Used for every schema; `jsonschema` adds the bundled meta-schemas itself, the walk in `_unresolvable` does the same.
_OFFLINE: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse_to_fetch)  # type: ignore[call-arg]
_OFFLINE_WITH_METASCHEMAS: referencing.Registry[Any] = jsonschema_specifications.REGISTRY.combine(_OFFLINE)


def _keeping_false_schema_paths(base: Any) -> Any:
    """A validator class of ``base``'s draft whose false-schema errors keep their location.

    ``jsonschema``'s ``descend`` returns as soon as it has yielded a false schema's error, before adding the member
    or index it descended into: ``{"properties": {"a": false}}`` reports ``{"a": 1}`` at the object, not at
    ``/a``. The class made here adds them back (only when the installed ``jsonschema`` has that habit).
    """
    validator_class = jsonschema.validators.extend(base)
    if _false_schema_path(validator_class) == ["a"]:
        return validator_class
    descend = validator_class.descend

    def descend_keeping_paths(
        self: Any, instance: Any, schema: Any, path: Any = None, schema_path: Any = None, resolver: Any = None
    ) -> Iterator[Any]:
        errors: Iterator[Any] = descend(self, instance, schema, path, schema_path, resolver)
        return errors if schema is not False else _located(errors, path, schema_path)

    validator_class.descend = descend_keeping_paths
    if _false_schema_path(validator_class) != ["a"]:  # pragma: no cover - a jsonschema we do not know
        raise ImportError("this version of jsonschema reports false-schema errors where they cannot be located")
    return validator_class


def _located(errors: Iterator[Any], path: Any, schema_path: Any) -> Iterator[Any]:
    for error in errors:
        if path is not None:
            error.path.appendleft(path)
        if schema_path is not None:
            error.schema_path.appendleft(schema_path)
        yield error


def _false_schema_path(validator_class: Any) -> list[Any]:
    """Where ``validator_class`` reports ``{"a": 1}`` failing ``{"properties": {"a": false}}``."""
    errors = list(validator_class({"properties": {"a": False}}).iter_errors({"a": 1}))
    return list(errors[0].absolute_path) if len(errors) == 1 else []


# While validity is decided: what each `$ref` target was found to be for each value, (target id, value id) ->
# (target, value, valid), the objects kept so that their ids are not reused. None while errors are collected.
_JUDGED: contextvars.ContextVar[dict[tuple[int, int], tuple[Any, Any, bool]] | None] = contextvars.ContextVar(
    "toolwire_reference_judged", default=None
)


def _with_bounded_keywords(base: Any) -> Any:
    """A validator class of ``base``'s draft whose costly keywords are bounded.

    While validity is decided, each ``$ref`` target is judged once per value: a target is a function of the value
    alone (save under ``$dynamicRef``/``$recursiveRef``, whose schemas are not judged this way), so the answer can be
    kept, standing for every error below the reference. Patterns run on a linear-time engine (``_patterns``).
    """
    return jsonschema.validators.extend(base, validators={"$ref": _judged_reference, **PATTERN_KEYWORDS})


def _judged_reference(validator: Any, ref: str, instance: Any, schema: Any) -> Iterator[Any]:
    judged = _JUDGED.get()
    if judged is None:
        yield from validator._validate_reference(ref=ref, instance=instance)
        return
    resolved = validator._resolver.lookup(ref)
    key = (id(resolved.contents), id(instance))
    known = judged.get(key)
    if known is None:
        errors = validator.descend(instance, resolved.contents, resolver=resolved.resolver)
        known = judged[key] = (resolved.contents, instance, next(errors, None) is None)
    if not known[2]:
        yield jsonschema.exceptions.ValidationError(f"does not match the schema {ref!r} names")


class _Draft(NamedTuple):
    """A dialect: the validator class compiling its schemas, its ``referencing`` specification, its traits."""

    validator_class: Any
    specification: referencing.Specification[Any]
    # Whether `contains` is bounded by `minContains`/`maxContains` (2019-09 and later).
    counted_contains: bool


def _drafts() -> dict[str, _Draft]:
    """The dialects the Rust core accepts (its ``jsonschema`` crate), by ``$schema`` without a trailing ``#``.

    Each under http and https. Draft 3, which Python's ``jsonschema`` knows, is unknown there and so here.
    """
    known = {
        "json-schema.org/draft/2020-12/schema": (jsonschema.Draft202012Validator, referencing.jsonschema.DRAFT202012),
        "json-schema.org/draft/2019-09/schema": (jsonschema.Draft201909Validator, referencing.jsonschema.DRAFT201909),
        "json-schema.org/draft-07/schema": (jsonschema.Draft7Validator, referencing.jsonschema.DRAFT7),
        "json-schema.org/draft-06/schema": (jsonschema.Draft6Validator, referencing.jsonschema.DRAFT6),
        "json-schema.org/draft-04/schema": (jsonschema.Draft4Validator, referencing.jsonschema.DRAFT4),
    }
    drafts: dict[str, _Draft] = {}
    for path, (base, specification) in known.items():
        counted = base in (jsonschema.Draft202012Validator, jsonschema.Draft201909Validator)
        draft = _Draft(_keeping_false_schema_paths(_with_bounded_keywords(base)), specification, counted)
        drafts[f"http://{path}"] = drafts[f"https://{path}"] = draft
    return drafts


_DRAFTS = _drafts()
_DEFAULT_DRAFT = _DRAFTS["https://json-schema.org/draft/2020-12/schema"]


class _Tool:
    """One declared tool: its name, its schema as compiled, the draft's traits the mapping needs, its search graph."""

    def __init__(self, name: str, schema: Any, validator: Any, draft: _Draft, dynamic: bool) -> None:
        self.name = name
        self.schema = schema
        self.validator = validator
        self.draft = draft
        self.counted_contains = draft.counted_contains
        # Whether the schema may resolve references by the dynamic scope: then a target's verdict is not a function
        # of the value alone, and it is not kept.
        self.dynamic = dynamic

    @functools.cached_property
    def search(self) -> SearchGraph:
        """The schema's graph, built the first time arguments are invalid: valid calls never need it."""
        known = frozenset(self.draft.validator_class.VALIDATORS)
        return SearchGraph(self.schema, self.draft.specification, _OFFLINE_WITH_METASCHEMAS, known)

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` is valid, each ``$ref`` target judged once per value (unless ``dynamic``)."""
        token = _JUDGED.set(None if self.dynamic else {})
        try:
            return bool(self.validator.is_valid(instance))
        finally:
            _JUDGED.reset(token)

    def assertions(self, keywords: Keywords, value: Any, at: str) -> list[Violation]:
        """The violations of the keywords of a plan that apply no subschema, for ``value`` at ``at``."""
        if keywords.assertions is None:
            return []
        if keywords.compiled is None:
            keywords.compiled = self.draft.validator_class(keywords.assertions, registry=_OFFLINE)
        found: list[Violation] = []
        for error in keywords.compiled.iter_errors(value):
            found.extend(_BY_KEYWORD.get(error.validator, _other)(error, at + pointer_of(error.absolute_path), self))
        return found

    def search_errors(self, instance: Any, size: int, max_steps: int) -> list[Violation]:
        """The findings of invalid ``instance`` (unsorted), or one ``VALIDATION_BUDGET_EXCEEDED``.

        ``size``: the length of the text ``instance`` was read from, in bytes.
        """
        graph = self.search
        violations: list[Violation] = []
        if graph.plans is not None:
            # Each value and each member's name owns a byte of the text: a short text needs no count (one more for the
            # `{}` an empty text stands for).
            if (size + 1) * len(graph.plans) > max_steps and graph.pairs_exceed(instance, max_steps):
                return [_budget_exceeded(max_steps)]
            violations = find(graph.plans, self.assertions, matches, instance)
        if not violations:
            # `jsonschema`'s own search, for a schema the walk does not model (and, never seen, were the walk to find
            # nothing wrong with arguments the library refuses: they must not pass without a finding).
            if graph.exceeds(instance, max_steps):
                return [_budget_exceeded(max_steps)]
            for error in self.validator.iter_errors(instance):
                violations.extend(_violations(error, instance, self))
        return violations


class Validators:
    """The declared function tools, each with its parameters schema compiled once.

    Immutable once built: one instance can serve every stream.

    Attributes:
        names: The function tool names, in declaration order.
        max_depth: The deepest nesting of arrays and objects accepted in arguments, the top-level value counting 1.
        max_steps: The steps a search for the problems of invalid arguments may take (``VALIDATION_BUDGET_EXCEEDED``
            past it).
    """

    def __init__(
        self,
        tools: Iterable[tuple[str, Any]],
        server_names: Iterable[str] = (),
        max_depth: int = 128,
        max_steps: int = Limits().max_validation_steps,
    ) -> None:
        """Compile every tool's schema.

        Args:
            tools: ``(name, parameters schema)`` pairs, the schema as parsed JSON (a dict, or a boolean: ``True``
                accepts any arguments).
            server_names: Names of server (built-in) tools: calls to them are known but never validated.
            max_depth: Nesting accepted in arguments, as ``Limits.max_depth`` counts it; deeper is ``TOO_DEEP``.
            max_steps: ``Limits.max_validation_steps``: invalid arguments whose search would take more steps are
                ``VALIDATION_BUDGET_EXCEEDED``.

        Raises:
            SchemaError: A schema is not JSON, not a valid schema of its draft, names an unknown ``$schema``, holds
                a ``$ref`` that cannot be resolved offline, or a name is declared twice.
        """
        self._tools: dict[str, _Tool] = {}
        for name, schema in tools:
            if name in self._tools:
                raise SchemaError(name, "", "the tool is declared more than once")
            self._tools[name] = _compile(name, schema)
        self.names: tuple[str, ...] = tuple(self._tools)
        self._server_names = frozenset(server_names)
        self.max_depth = max_depth
        self.max_steps = max_steps

    def __repr__(self) -> str:
        """The names and the limits, never the schemas."""
        return f"Validators(names={self.names!r}, max_depth={self.max_depth}, max_steps={self.max_steps})"

    def unknown_tool(self, name: str) -> Violation | None:
        """The ``UNKNOWN_TOOL`` violation for a call by ``name``, or None when the name is declared.

        Args:
            name: The name a call carries.

        Returns:
            None for a declared function tool or server tool; else the violation, whose ``data`` holds the declared
            function names (``available``) and the nearest of them (``closest``, None when none is declared).
        """
        if name in self._tools or name in self._server_names:
            return None
        message = f"unknown tool {shorten(quoted(name))}"
        if not self.names:
            return violation(
                ViolationCode.UNKNOWN_TOOL,
                None,
                message + "; no tools are declared",
                {"available": [], "closest": None},
            )
        message += "; declared: " + ", ".join(quoted(each) for each in self.names[:LISTED_NAMES])
        if len(self.names) > LISTED_NAMES:
            message += f" and {len(self.names) - LISTED_NAMES} more"
        # The first of the nearest names, so that equal distances resolve in declaration order; a very long name is
        # compared by its start.
        probe = name[:MAX_COMPARED_CHARS]
        closest = min(self.names, key=lambda declared: _levenshtein(probe, declared))
        message += f"; closest: {quoted(closest)}"
        return violation(ViolationCode.UNKNOWN_TOOL, None, message, {"available": list(self.names), "closest": closest})

    def validate(self, name: str, arguments: str | bytes) -> list[Violation]:
        """Every problem of ``arguments`` for the tool ``name``; empty when they are valid.

        ``arguments`` may be any JSON value: whether it must be an object is the caller's check.

        Args:
            name: The tool called.
            arguments: The complete arguments text, as ``str`` or UTF-8 bytes.

        Returns:
            One ``UNKNOWN_TOOL`` for an undeclared name; nothing for a server tool; one ``TOO_DEEP`` when arrays and
            objects nest deeper than :attr:`max_depth`; one ``INVALID_JSON`` for text that is not strict RFC 8259
            JSON; one ``VALIDATION_BUDGET_EXCEEDED`` for invalid arguments whose search would take more than
            :attr:`max_steps` steps; else the schema's findings, sorted by (path, code, message), duplicates removed.
        """
        tool = self._tools.get(name)
        if tool is None:
            unknown = self.unknown_tool(name)
            return [] if unknown is None else [unknown]
        # A lone surrogate has no UTF-8 form: its `surrogatepass` bytes fail the scanner's UTF-8 check.
        text = arguments.encode("utf-8", "surrogatepass") if isinstance(arguments, str) else bytes(arguments)
        if _too_deep(text, self.max_depth):
            return [_too_deep_violation(self.max_depth)]
        problem = _scan(text, self.max_depth)
        if problem is not None:
            return [problem]
        try:
            instance = loads_arguments(text)
        except ValueError:
            # Strict JSON (the scanner said so) that Python cannot hold, as a stream finds when it builds the value.
            return [number_too_long()]
        # `jsonschema` recurses a few Python frames per level of a recursive schema; arguments nest at most
        # `max_depth` levels, and at most as many as they open brackets.
        levels = min(text.count(b"[") + text.count(b"{"), self.max_depth)
        try:
            with _recursion_room(levels):
                if tool.is_valid(instance):
                    return []
                violations = tool.search_errors(instance, len(text), self.max_steps)
        except RecursionError:
            # A schema that refers to itself without reaching into the value (`{"$ref": "#"}`): `jsonschema`
            # recurses without end. (The core's crate accepts every value there.)
            message = "$ref: the schema refers to itself without end; the arguments cannot be checked"
            return [constraint("", message, "$ref")]
        except referencing.exceptions.Unresolvable as unresolvable:
            # Not expected: every reference was resolved when the schema was compiled.
            return [constraint("", shorten(f"$ref: {unresolvable}"), "$ref")]
        return sorted_unique(violations)


# ------------------------------------------------------------------------------------------------------- compiling


def _compile(name: str, schema: Any) -> _Tool:
    """Check and compile one tool's schema, or raise the ``SchemaError`` naming where it fails."""
    try:
        # A copy of our own that is plain JSON: tuples become lists, and a later change by the caller is not seen.
        schema = json.loads(json.dumps(schema, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as error:
        raise SchemaError(name, "", f"not JSON: {error}") from None
    if not isinstance(schema, (dict, bool)):
        raise SchemaError(name, "", f"a schema is an object or a boolean, not {json_type(schema)}")
    draft = _DEFAULT_DRAFT
    if isinstance(schema, dict) and "$schema" in schema:
        dialect = schema["$schema"]
        known = _DRAFTS.get(dialect.removesuffix("#")) if isinstance(dialect, str) else None
        if known is None:
            raise SchemaError(name, "/$schema", f"unknown $schema {shorten(render(dialect))}")
        draft = known
    validator_class = draft.validator_class
    try:
        validator_class.check_schema(schema, format_checker=FORMAT_CHECKER)
    except jsonschema.exceptions.SchemaError as error:
        raise _schema_error(name, schema, error) from None
    unresolvable = _unresolvable(schema, draft.specification)
    if unresolvable is not None:
        raise SchemaError(name, *unresolvable)
    validator = validator_class(schema, registry=_OFFLINE)
    dynamic = '"$dynamicRef"' in (text := json.dumps(schema)) or '"$recursiveRef"' in text
    return _Tool(name, schema, validator, draft, dynamic)


def _schema_error(name: str, schema: Any, error: Any) -> SchemaError:
    """The ``SchemaError`` for a schema its meta-schema refuses, at the pointer the core names."""
    pointer = pointer_of(error.absolute_path)
    if error.validator == "format" and error.validator_value == "regex" and isinstance(error.instance, str):
        refused = _patterns_refusal(error.instance)
        # A `patternProperties` key is checked by `propertyNames`, which reports the object: the core names the key.
        if _names_a_member(error.instance, schema, error.absolute_path):
            pointer = child(pointer, error.instance)
        return SchemaError(name, pointer, shorten(refused or error.message))
    return SchemaError(name, pointer, shorten(error.message))


def _unresolvable(schema: Any, specification: referencing.Specification[Any]) -> tuple[str, str] | None:
    """The pointer of the first ``$ref``/``$dynamicRef``/``$recursiveRef`` that cannot be resolved, and why.

    Walks the schema's subschemas as the draft defines them, each with the base URI of its resource, and the
    targets of the references found (which may lie outside any subschema), in document order.
    """
    pointers: dict[int, str] = {}
    _index(schema, "", pointers)
    root = specification.create_resource(schema)
    seen: set[int] = set()
    pending: list[tuple[referencing.Resource[Any], Any]] = [(root, _OFFLINE_WITH_METASCHEMAS.resolver_with_root(root))]
    while pending:
        resource, resolver = pending.pop()
        contents = resource.contents
        if not isinstance(contents, dict) or id(contents) in seen or id(contents) not in pointers:
            continue
        seen.add(id(contents))
        found: list[tuple[referencing.Resource[Any], Any]] = []
        for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
            target = contents.get(keyword)
            if not isinstance(target, str):
                continue
            try:
                resolved = resolver.lookup(target)
            except (referencing.exceptions.Unresolvable, ValueError) as error:
                # ValueError: a reference that is not a URI (`http://[`).
                return (f"{pointers[id(contents)]}/{escape(keyword)}", _unresolvable_reason(target, error))
            found.append((specification.create_resource(resolved.contents), resolved.resolver))
        for subresource in resource.subresources():
            found.append((subresource, resolver.in_subresource(subresource)))
        # Depth first, in document order.
        pending.extend(reversed(found))
    return None


def _unresolvable_reason(target: str, error: Exception) -> str:
    if isinstance(error.__cause__, referencing.exceptions.Unretrievable):
        return f"the reference {quoted(target)} names a resource outside the schema, which is never fetched"
    return shorten(f"the reference {quoted(target)} cannot be resolved: {type(error).__name__}")


def _index(node: Any, pointer: str, pointers: dict[int, str]) -> None:
    """Record the pointer of every object and array of ``node`` (the first, when one is reached twice)."""
    if isinstance(node, dict):
        pointers.setdefault(id(node), pointer)
        for key, value in node.items():
            _index(value, f"{pointer}/{escape(key)}", pointers)
    elif isinstance(node, list):
        pointers.setdefault(id(node), pointer)
        for at, value in enumerate(node):
            _index(value, f"{pointer}/{at}", pointers)


# ---------------------------------------------------------------------------------------------------- the arguments


def _too_deep(text: bytes, max_depth: int) -> bool:
    """Whether arrays and objects nest deeper than ``max_depth``, counted as the scanner counts, valid JSON or not.

    Brackets inside strings do not count; a string left open runs to the end of the text.
    """
    if text.count(b"[") + text.count(b"{") <= max_depth:
        return False
    depth = 0
    for bracket in _NOT_BRACKETS.sub(b"", _STRINGS.sub(b"", text)):
        if bracket in b"[{":
            depth += 1
            if depth > max_depth:
                return True
        else:
            depth = max(depth - 1, 0)
    return False


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\\?\Z)', re.S)
_NOT_BRACKETS = re.compile(rb"[^\[\]{}]")


def _scan(text: bytes, max_depth: int) -> Violation | None:
    """The ``INVALID_JSON`` (or ``TOO_DEEP``) violation when ``text`` is not one strict RFC 8259 JSON value."""
    scanner = Scanner(max_depth=max_depth)
    scanner.feed(text)
    state = scanner.finish()
    if state == COMPLETE:
        return None
    error = scanner.error
    if state == INVALID and error is not None:
        if error.kind == TOO_DEEP:
            return _too_deep_violation(max_depth)
        reason = f"{error.kind.replace('_', ' ')} at byte {error.offset}"
    else:
        reason = "the text ends before the value does"
    return violation(ViolationCode.INVALID_JSON, None, f"the arguments are not valid JSON: {reason}")


def number_too_long() -> Violation:
    """``INVALID_JSON`` for arguments holding a number Python values are not built from, as a stream reports it."""
    return violation(ViolationCode.INVALID_JSON, None, NUMBER_TOO_LONG)


def _budget_exceeded(max_steps: int) -> Violation:
    message = (
        f"the arguments do not match the schema; finding where would take more than {max_steps} steps "
        "(Limits.max_validation_steps)"
    )
    return violation(ViolationCode.VALIDATION_BUDGET_EXCEEDED, "", message, {"limit": max_steps})


def _too_deep_violation(max_depth: int) -> Violation:
    return violation(
        ViolationCode.TOO_DEEP, None, f"the arguments nest arrays and objects deeper than {max_depth} levels"
    )


@contextlib.contextmanager
def _recursion_room(levels: int) -> Iterator[None]:
    """Raise the interpreter's recursion limit, for the duration, to leave room for ``levels`` of nesting.

    Only when the current limit is short: shallow arguments leave it alone. (The limit is process-wide; a thread
    validating at the same time may see the raised value.) Measured: about 15 frames per level for a schema
    recursing through ``$ref``, ``allOf`` and ``oneOf``, each using under 400 bytes of C stack.
    """
    needed = _frames_in_use() + _FRAMES_PER_LEVEL * levels + 200
    previous = sys.getrecursionlimit()
    if needed <= previous:
        yield
        return
    sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _frames_in_use() -> int:
    frame: FrameType | None = sys._getframe()
    count = 0
    while frame is not None:
        count += 1
        frame = frame.f_back
    return count


# ------------------------------------------------------------------------------------------------------ the mapping


def _violations(error: Any, instance: Any, tool: _Tool) -> Iterator[Violation]:
    """The violations one top-level ``jsonschema`` error stands for."""
    at = pointer_of(error.absolute_path)
    if _names_a_member(error.instance, instance, error.absolute_path):
        return _property_names(error, at, tool)
    return _BY_KEYWORD.get(error.validator, _other)(error, at, tool)


def _property_names(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    # `propertyNames` checks each member's name, a string, in place of the object, and adds no path segment.
    if error.validator is None:
        # `propertyNames: false`: the core's crate fails the object itself, which may have no members.
        yield constraint(at, _constraint_message(error, tool), "false")
        return
    name = error.instance
    message = f"propertyNames: the name {quoted(name)} is not allowed: {_constraint_message(error, tool)}"
    yield constraint(child(at, name), message, "propertyNames")


def _required(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    # jsonschema reports each missing member in its own error, naming it only in the message: each error here
    # gives every missing member, and the duplicates go when the violations are sorted.
    for member in error.validator_value:
        if member not in error.instance:
            message = f"missing required argument {quoted(member)}"
            yield violation(ViolationCode.MISSING_REQUIRED_ARGUMENT, child(at, member), message)


def _dependent_required(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    keyword = error.validator
    for present, members in error.validator_value.items():
        if present not in error.instance or not isinstance(members, list):
            continue  # a draft-7 `dependencies` schema reports its own errors
        for member in members:
            if member not in error.instance:
                message = f"{keyword}: {quoted(member)} is required when another member is present"
                yield constraint(child(at, member), message, keyword)


def _additional_properties(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    # Only `additionalProperties: false` fails by itself; a schema's own keywords report what fails it.
    for member in additional_members(error.instance, error.schema):
        message = f"unexpected argument {quoted(member)} (additionalProperties is false)"
        yield violation(ViolationCode.UNEXPECTED_ARGUMENT, child(at, member), message)


def _type(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    expected = _type_names([error.validator_value])
    message = type_message(expected, error.instance)
    yield violation(ViolationCode.TYPE_MISMATCH, at, message, {"expected": expected})


def _enum(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    options = error.validator_value
    message = f"must be one of {shorten(', '.join(shorten(render(each)) for each in options))}"
    yield violation(ViolationCode.ENUM_OUT_OF_RANGE, at, message, {"allowed": list(options)})


def _const(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    message = f"must be {shorten(render(error.validator_value))} (const)"
    yield violation(ViolationCode.ENUM_OUT_OF_RANGE, at, message, {"allowed": [error.validator_value]})


def _items(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    # 2020-12 `items: false` past `prefixItems` is one error at the array here, where the core's crate applies the
    # false schema to each extra item.
    if error.validator_value is not False:
        yield from _other(error, at, tool)
        return
    prefix = len(error.schema.get("prefixItems", []))
    message = f"false schema: no value is allowed here (schema at {pointer_of(error.absolute_schema_path)})"
    for index in range(prefix, len(error.instance)):
        yield constraint(child(at, str(index)), message, "false")


def _other(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    keyword, limit = _keyword_and_limit(error, tool)
    yield constraint(at, _constraint_message(error, tool), keyword, limit)


def _names_a_member(failing: Any, instance: Any, path: Iterable[str | int]) -> bool:
    """Whether an error reported at ``path`` is about the name of a member of the object there, not the object."""
    if not isinstance(failing, str):
        return False
    value = instance
    for segment in path:
        value = value[segment]
    return isinstance(value, dict)


def _unevaluated_properties(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    members = _unevaluated_members(error)
    if members is None:
        yield constraint(at, "unevaluatedProperties: some members are not allowed", "unevaluatedProperties")
        return
    for member in members:
        if error.validator_value is False:
            message = f"unexpected argument {quoted(member)} (unevaluatedProperties is false)"
            yield violation(ViolationCode.UNEXPECTED_ARGUMENT, child(at, member), message)
        else:
            message = f"unevaluatedProperties: {quoted(member)} does not match its schema"
            yield constraint(child(at, member), message, "unevaluatedProperties")


def _unevaluated_members(error: Any) -> list[str] | None:
    """The members an ``unevaluatedProperties`` error names, read back from its message (None if unreadable)."""
    match = _UNEVALUATED_MEMBERS.search(error.message)
    if match is None:
        return None
    try:
        members = ast.literal_eval(f"[{match['members']}]")
    except (ValueError, SyntaxError):
        return None
    if not all(isinstance(member, str) and member in error.instance for member in members):
        return None
    return list(dict.fromkeys(members))


def _combinator(error: Any, at: str, tool: _Tool) -> Iterator[Violation]:
    """One violation for a failed ``anyOf``/``oneOf``: a type mismatch when every branch failed on ``type`` alone."""
    yield _combinator_violation(error, at, error.validator)


def _combinator_violation(error: Any, at: str, keyword: str) -> Violation:
    branches = len(error.validator_value)
    if not error.context:
        message = f"oneOf: matches more than one of the {branches} alternatives; exactly one is allowed"
        return constraint(at, message, keyword)
    # At the combinator's own value: not deeper, and not a member's name (`propertyNames` inside a branch).
    if all(
        each.validator == "type" and not each.relative_path and each.instance is error.instance
        for each in error.context
    ):
        expected = _type_names(each.validator_value for each in error.context)
        return violation(
            ViolationCode.TYPE_MISMATCH, at, type_message(expected, error.instance), {"expected": expected}
        )
    return constraint(at, f"{keyword}: matches none of the {branches} alternatives", keyword)


_Handler = Callable[[Any, str, _Tool], Iterator[Violation]]
_BY_KEYWORD: dict[str | None, _Handler] = {
    "required": _required,
    "dependentRequired": _dependent_required,
    "dependencies": _dependent_required,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
    "type": _type,
    "enum": _enum,
    "const": _const,
    "anyOf": _combinator,
    "oneOf": _combinator,
    "items": _items,
}


def _keyword_and_limit(error: Any, tool: _Tool) -> tuple[str, Any]:
    """The keyword a constraint names, and its limit (``None`` for keywords without one)."""
    keyword: str = "false" if error.validator is None else error.validator
    limit = error.validator_value
    if keyword == "contains" and tool.counted_contains:
        # No item matched. The core's crate compiles `contains` with its bounds into one keyword, named after the
        # first bound present.
        for bound in ("minContains", "maxContains"):
            value = error.schema.get(bound)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                keyword, limit = bound, value
                break
    if keyword in _COUNTS and isinstance(limit, float) and limit.is_integer():
        # A count the core holds as an unsigned integer (`"minLength": 2.0` is 2).
        limit = int(limit)
    return keyword, (limit if keyword in LIMITED else None)


def _constraint_message(error: Any, tool: _Tool) -> str:
    """A constraint's message: the keyword and its limit, never the (possibly huge) value itself."""
    keyword, limit = _keyword_and_limit(error, tool)
    if keyword == "false":
        location = pointer_of(error.absolute_schema_path) or "the root"
        return f"false schema: no value is allowed here (schema at {location})"
    if keyword in LIMITED:
        return f"{keyword}: {_LIMIT_MESSAGES[keyword].format(shorten(render(limit)))}"
    if keyword == "not":
        return f"not: must not match {shorten(render(error.validator_value))}"
    if keyword == "type":
        return f"type: {type_message(_type_names([error.validator_value]), error.instance)}"
    return f"{keyword}: {_MESSAGES.get(keyword, f'does not satisfy {keyword}')}"


_LIMIT_MESSAGES = {
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "exclusiveMinimum": "must be greater than {}",
    "exclusiveMaximum": "must be less than {}",
    "multipleOf": "must be a multiple of {}",
    "minLength": "must be at least {} characters long",
    "maxLength": "must be at most {} characters long",
    "minItems": "must have at least {} items",
    "maxItems": "must have at most {} items",
    "minProperties": "must have at least {} members",
    "maxProperties": "must have at most {} members",
    "minContains": "at least {} items must match `contains`",
    "maxContains": "at most {} items may match `contains`",
    "pattern": "must match {}",
}
_MESSAGES = {
    "uniqueItems": "items must be unique",
    "contains": "no item matches",
    "additionalItems": "has more items than the schema allows",
    "unevaluatedItems": "has items that are not allowed or do not match its schema",
    "enum": "is not one of the allowed values",
    "const": "is not the allowed value",
}


def _type_names(values: Iterable[Any]) -> list[str]:
    """The type names of ``type`` keyword values (a name or a list of names), in order, each once."""
    names: list[str] = []
    for value in values:
        for name in value if isinstance(value, list) else [value]:
            if name not in names:
                names.append(name)
    return names


# ----------------------------------------------------------------------------------------------------------- helpers


def _levenshtein(a: str, b: str) -> int:
    """Edit distance in characters (insertions, deletions, substitutions)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a):
        diagonal, row[0] = row[0], i + 1
        for j, cb in enumerate(b):
            diagonal, row[j + 1] = row[j + 1], min(diagonal + (ca != cb), row[j + 1] + 1, row[j] + 1)
    return row[-1]
