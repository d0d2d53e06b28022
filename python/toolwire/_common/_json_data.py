"""A report's fields as JSON data: the one way the kits' result types write their ``as_dict``.

Every report and result the kits return (contract checks, case results, matrix cells, waivers, replay problems...)
has a JSON form whose keys are, for the most part, its fields in order. ``json_fields`` writes that form from the
field names, so that each type states only what differs: a key whose value is computed, rounded or read from an
attribute of another name.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

__all__ = ["json_fields", "json_value"]


def json_fields(value: object, keys: str, **given: Any) -> dict[str, Any]:
    """The fields of ``value`` named in ``keys`` as JSON data, in that order.

    Args:
        value: The report or result.
        keys: The JSON keys, separated by white space (as ``namedtuple`` takes its fields); each is the name of the
            attribute it is read from unless given by keyword.
        **given: Values of keys that are not an attribute of their name as it stands: a property computed with an
            argument, a rounded number, a field the JSON names otherwise. Each is written in its place among ``keys``.

    Each value is made JSON data by ``json_value``.

    Raises:
        TypeError: A keyword names no key of ``keys`` (it would be silently dropped).
    """
    names = keys.split()
    stray = given.keys() - set(names)
    if stray:
        raise TypeError(f"json_fields: values given for keys not named: {', '.join(sorted(stray))}")
    return {name: json_value(given[name] if name in given else getattr(value, name)) for name in names}


def json_value(value: Any) -> Any:
    """``value`` as JSON data, one level deep.

    A value with ``as_dict`` gives its ``as_dict()``; a tuple or list a list, its items so made; a mapping a new
    dict of the same items; an enum member its value; anything else is returned as it is. Items of a mapping are
    not converted: a mapping field holds JSON data already (arguments, sampling options, counts).
    """
    as_dict = getattr(value, "as_dict", None)
    if as_dict is not None:
        return as_dict()
    if isinstance(value, (tuple, list)):
        return [json_value(item) for item in value]
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, enum.Enum):
        return value.value
    return value
