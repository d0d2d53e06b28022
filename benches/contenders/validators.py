"""The JSON Schema validators a user would otherwise pick: ``jsonschema-rs`` after ``orjson``, ``jsonschema`` after ``json``.

Each tool's schema is compiled once per validator (never timed); a contender returns every error of every call,
as the core returns every violation.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import orjson

from benches.inputs import validation


@cache
def jsonschema_rs() -> dict[str, Any]:
    """The workload's tools as ``jsonschema_rs`` validators, by name."""
    import jsonschema_rs

    return {d["name"]: jsonschema_rs.validator_for(d["parameters"]) for d in validation.tools()}


@cache
def jsonschema() -> dict[str, Any]:
    """The workload's tools as ``jsonschema.Draft202012Validator``, by name."""
    import jsonschema

    return {d["name"]: jsonschema.Draft202012Validator(d["parameters"]) for d in validation.tools()}


def orjson_jsonschema_rs(calls: validation.Calls) -> list[list[Any]]:
    """``orjson.loads`` of each text, then every error of the tool's ``jsonschema_rs`` validator."""
    validators = jsonschema_rs()
    loads = orjson.loads
    return [list(validators[name].iter_errors(loads(text))) for name, text in calls]


def json_jsonschema(calls: validation.Calls) -> list[list[Any]]:
    """``json.loads`` of each text, then every error of the tool's ``Draft202012Validator``."""
    validators = jsonschema()
    loads = json.loads
    return [list(validators[name].iter_errors(loads(text))) for name, text in calls]


@cache
def _union_rs() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(validation.RECURSIVE_PARAMETERS)


def union_orjson_jsonschema_rs(arguments: str) -> list[Any]:
    """Every error of one ``tree`` call (the recursive union of issue 15): an exhaustive search of its branches."""
    return list(_union_rs().iter_errors(orjson.loads(arguments)))
