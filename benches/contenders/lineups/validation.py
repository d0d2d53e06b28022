"""Calls given as JSON text (``inputs.validation``): who validates them against their tools' schemas.

- ``core``: ``toolwire.validate_many`` over the whole batch; ``core-loop``: ``toolwire.validate`` once per call;
- ``orjson+jsonschema-rs`` and ``json+jsonschema``: parse each text, then every error of the tool's validator.

Each returns every error (violation) of every call; ``check`` holds each call's verdict to what it is by
construction, so that all contenders agree with one another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benches.contenders import core, validators
from benches.inputs.validation import Calls, Workload

CONTENDERS: dict[str, Callable[[Calls], list[list[Any]]]] = {
    "core": core.validate_many,
    "core-loop": core.validate_loop,
    "orjson+jsonschema-rs": validators.orjson_jsonschema_rs,
    "json+jsonschema": validators.json_jsonschema,
}
SLOW_CONTENDERS = frozenset({"json+jsonschema"})  # pure Python: one run of 100,000 calls takes seconds


def prepare() -> None:
    """Every tool's schema compiled by every contender, untimed."""
    core.registry()
    validators.jsonschema_rs()
    validators.jsonschema()


def verdicts(result: list[list[Any]]) -> list[bool]:
    """Valid (no error at all) or not, per call."""
    return [not errors for errors in result]


def check(contender: str, load: Workload, result: list[list[Any]]) -> None:
    """Assert a contender judged every call as it was built (so all contenders agree with one another)."""
    got = verdicts(result)
    assert len(got) == len(load.calls), f"{contender}: {len(got)} verdicts for {len(load.calls)} calls"
    wrong = [i for i, (have, want) in enumerate(zip(got, load.valid, strict=True)) if have != want]
    assert not wrong, (
        f"{contender}: {len(wrong)} calls judged differently from their construction, first "
        f"{load.kinds[wrong[0]]} {load.calls[wrong[0]]!r}: {result[wrong[0]]!r:.500}"
    )
