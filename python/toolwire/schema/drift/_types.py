"""What a Python annotation and a JSON Schema node each accept, in JSON terms, so that the two can be compared.

Both sides become an ``Accepts``: the JSON types taken (``None``: any, or not known) and, for ``Literal``, ``Enum``
and ``enum``/``const``, the values taken (``None``: any value of those types).

The annotation side, after unwrapping ``Annotated``, ``NewType``, ``Required``/``NotRequired``, ``ClassVar``,
``Final`` and ``InitVar``:

==================================================================  ==========================  ===================
annotation                                                          JSON types                  values
==================================================================  ==========================  ===================
``str``, ``bytes``, ``datetime``/``date``/``time``/``timedelta``,   string                      -
``UUID``, ``Path``, IP addresses
``bool``                                                            boolean                     -
``int``                                                             integer                     -
``float``                                                           number, integer             -
``Decimal``                                                         number, integer, string     -
``None``                                                            null                        ``null``
``list``, ``tuple``, ``set``, ``frozenset``, ``deque``,             array                       -
``Sequence`` and other iterables
``dict``, ``Mapping``, dataclass, pydantic model, TypedDict,        object                      -
attrs class
``Literal[v, ...]``                                                 the types of the values     the values
an ``Enum`` subclass                                                the types of its values     its members' values
``X | Y``, ``Optional[X]``, ``Union[...]``                          the union                   the union (when
                                                                                                each member has
                                                                                                values)
``Any``, ``object``, a ``TypeVar``, unannotated, any other class    any (not compared)          -
==================================================================  ==========================  ===================

The schema side: ``type`` (a name or a list), ``enum`` and ``const`` (the values and their types), ``anyOf`` and
``oneOf`` (the union of the branches), ``allOf`` and a local ``$ref`` with siblings (the intersection), OpenAPI's
``nullable: true`` (adds null); a node that says none of these accepts any JSON value. A schema ``integer`` is
within a handler ``number``; a schema ``number`` is not within a handler ``integer`` (``1.5`` is refused).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import decimal
import enum
import ipaddress
import pathlib
import typing
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args, get_origin

from toolwire._common._json import json_type, lookup, pointer_tokens
from toolwire.schema.drift._handler import class_kind, is_union

__all__ = ["ANY", "Accepts", "SchemaDoc", "accepted_by", "is_union", "json_key", "type_within", "unwrap"]

_STRING_CLASSES: Final[tuple[type[Any], ...]] = (
    str,
    bytes,
    bytearray,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    uuid.UUID,
    pathlib.PurePath,
    ipaddress.IPv4Address,
    ipaddress.IPv6Address,
    ipaddress.IPv4Network,
    ipaddress.IPv6Network,
)
_WRAPPER_NAMES: Final = frozenset({"Required", "NotRequired", "ReadOnly", "ClassVar", "Final"})
_NUMBER_KINDS: Final = frozenset({"number", "integer"})
# What a pointer into the schema reaches when it leads nowhere (None is a value a schema may hold).
_NOWHERE: Final = object()


@dataclass(frozen=True)
class Accepts:
    """What one side accepts.

    Attributes:
        types: The JSON type names (``string``, ``integer``, ``number``, ``boolean``, ``array``, ``object``,
            ``null``), or None for any.
        values: The JSON values, when only some are (``Literal``, ``Enum``, ``enum``), else None.
    """

    types: frozenset[str] | None = None
    values: tuple[Any, ...] | None = None


#: Any JSON value.
ANY: Final = Accepts()


def json_key(value: Any) -> Any:
    """A hashable key under which two JSON values are equal as JSON says (``1 == 1.0``, ``True != 1``)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (json_type(value), value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    if isinstance(value, (list, tuple)):
        return ("array", tuple(json_key(item) for item in value))
    if isinstance(value, Mapping):
        return ("object", tuple(sorted((str(key), json_key(item)) for key, item in value.items())))
    return ("other", repr(value))


def _of_values(values: Iterable[Any]) -> Accepts:
    listed = tuple(values)
    return Accepts(frozenset(json_type(value) for value in listed), listed)


def union(parts: Iterable[Accepts]) -> Accepts:
    """What any of the parts accepts."""
    listed = list(parts)
    if not listed or any(part.types is None for part in listed):
        return ANY
    types = frozenset().union(*(part.types or () for part in listed))
    if any(part.values is None for part in listed):
        return Accepts(types)
    return Accepts(types, tuple(value for part in listed for value in part.values or ()))


def _intersect_types(first: frozenset[str], second: frozenset[str]) -> frozenset[str]:
    common = set(first & second)
    if ("integer" in first and "number" in second) or ("integer" in second and "number" in first):
        common.add("integer")
    return frozenset(common)


def intersect(first: Accepts, second: Accepts) -> Accepts:
    """What both accept."""
    if first.types is None:
        return second
    if second.types is None:
        return first
    types = _intersect_types(first.types, second.types)
    if first.values is None and second.values is None:
        return Accepts(types)
    if first.values is None or second.values is None:
        values = first.values if second.values is None else second.values
        return Accepts(types, tuple(value for value in values or () if type_within(json_type(value), types)))
    keys = {json_key(value) for value in second.values}
    return Accepts(types, tuple(value for value in first.values if json_key(value) in keys))


def type_within(name: str, types: frozenset[str]) -> bool:
    """Whether values of the JSON type ``name`` are all of one of ``types`` (an integer is a number)."""
    return name in types or (name == "integer" and "number" in types)


# -- annotations ---------------------------------------------------------------------------------------------------


def unwrap(annotation: Any) -> Any:
    """The annotation without ``Annotated``, ``NewType``, ``Required``/``NotRequired``... wrappers."""
    while True:
        origin = get_origin(annotation)
        if origin is typing.Annotated or getattr(origin, "_name", None) in _WRAPPER_NAMES:
            annotation = get_args(annotation)[0]
        elif isinstance(annotation, dataclasses.InitVar):
            annotation = annotation.type
        elif hasattr(annotation, "__supertype__"):  # NewType
            annotation = annotation.__supertype__
        elif type(annotation).__name__ == "TypeAliasType":  # `type X = ...` (Python 3.12+)
            annotation = annotation.__value__
        else:
            return annotation


def _enum_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _class_types(cls: type[Any]) -> frozenset[str] | None:
    """The JSON types of a plain class (see the module's table), None when it is not one JSON knows."""
    found: frozenset[str] | None = None
    if issubclass(cls, bool):
        found = frozenset({"boolean"})
    elif issubclass(cls, int):
        found = frozenset({"integer"})
    elif issubclass(cls, float):
        found = _NUMBER_KINDS
    elif issubclass(cls, decimal.Decimal):
        found = _NUMBER_KINDS | {"string"}
    elif issubclass(cls, _STRING_CLASSES):
        found = frozenset({"string"})
    elif class_kind(cls) is not None or issubclass(cls, Mapping):
        found = frozenset({"object"})
    elif issubclass(cls, (list, tuple, set, frozenset, collections.deque, Iterable)):
        found = frozenset({"array"})
    return found


def accepted_by(annotation: Any) -> Accepts:
    """What a handler annotation accepts (see the module docstring's table)."""
    annotation = unwrap(annotation)
    if annotation is None or annotation is type(None):
        return Accepts(frozenset({"null"}), (None,))
    if is_union(annotation):
        return union(accepted_by(member) for member in get_args(annotation))
    origin = get_origin(annotation)
    if origin is Literal:
        return _of_values(_enum_value(value) for value in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _of_values(member.value for member in annotation)
    base = origin if isinstance(origin, type) else annotation
    if isinstance(base, type) and base is not object:
        types = _class_types(base)
        return ANY if types is None else Accepts(types)
    return ANY


# -- schemas -------------------------------------------------------------------------------------------------------


class SchemaDoc:
    """A parameters schema with its local ``$ref``s resolvable."""

    def __init__(self, root: Any) -> None:
        """Wrap the root schema."""
        self.root = root

    def resolve(self, node: Any, pointer: str, seen: frozenset[str] = frozenset()) -> tuple[Any, str]:
        """Follow a local ``$ref`` (``#/$defs/X``) to its target and pointer; other nodes come back as they are."""
        reference = node.get("$ref") if isinstance(node, Mapping) else None
        fragment = reference[1:] if isinstance(reference, str) and reference.startswith("#") else None
        # Only local JSON pointers are followed: an anchor (#name) or another document is left as it is.
        if fragment is None or (fragment and not fragment.startswith("/")) or reference in seen:
            return node, pointer
        target = lookup(self.root, pointer_tokens(fragment), _NOWHERE)
        if target is _NOWHERE:
            return node, pointer
        return self.resolve(target, fragment, seen | {str(reference)})

    def accepts(self, node: Any, depth: int = 0) -> Accepts:
        """What a schema node accepts (see the module docstring)."""
        if node is False:
            return Accepts(frozenset(), ())
        if not isinstance(node, Mapping) or depth > 32:
            return ANY
        parts = [self._own(node)]
        if isinstance(node.get("$ref"), str):
            target, _ = self.resolve(node, "")
            parts.append(self.accepts(target, depth + 1) if target is not node else ANY)
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                parts.append(union(self.accepts(branch, depth + 1) for branch in node[key]))
        if isinstance(node.get("allOf"), list):
            parts.extend(self.accepts(branch, depth + 1) for branch in node["allOf"])
        found = ANY
        for part in parts:
            found = intersect(found, part)
        if node.get("nullable") is True and found.types is not None:
            found = Accepts(found.types | {"null"}, None if found.values is None else (*found.values, None))
        return found

    @staticmethod
    def _own(node: Mapping[str, Any]) -> Accepts:
        """What the node's own ``type``, ``enum`` and ``const`` say."""
        found = ANY
        declared = node.get("type")
        if isinstance(declared, str):
            found = Accepts(frozenset({declared}))
        elif isinstance(declared, list) and all(isinstance(name, str) for name in declared):
            found = Accepts(frozenset(declared))
        if "const" in node:
            found = intersect(found, _of_values([node["const"]]))
        if isinstance(node.get("enum"), list):
            found = intersect(found, _of_values(node["enum"]))
        if found.types == frozenset({"null"}) and found.values is None:
            return Accepts(found.types, (None,))  # null is a type of one value: a union with an enum keeps its values
        return found
