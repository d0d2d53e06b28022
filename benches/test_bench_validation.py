"""Validation of tool calls given as JSON text (issue 3, item 7), and the cost of ``tools=`` inside ``reassemble``.

``test_validation``: the workload of ``inputs.validation`` (calls against the real BFCL schemas, ~10% invalid) at
2,000 calls (bench-smoke) and 100,000 (``slow``), for the contenders of ``contenders.lineups.validation``: ``core``
(``toolwire.validate_many`` over the batch), ``core-loop`` (``toolwire.validate`` per call),
``orjson+jsonschema-rs`` and ``json+jsonschema``. Each produces the full list of errors of every call from its JSON
text; schemas are compiled beforehand, untimed. ``json+jsonschema`` at 100,000 calls is timed with
``benchmark.pedantic`` for one round of the whole batch (one run takes ~5 s; the others take the usual rounds). After
timing, each contender's verdicts (valid or not, per call) must equal the workload's construction, so all contenders
agree with one another; ``test_workload_is_what_it_says`` checks the construction with Python's ``jsonschema``.

``test_recursive_union``: one call against ``inputs.validation.RECURSIVE_TOOLS`` (issue 15's recursive union): a valid
tree 18 levels deep, and trees whose one bad leaf is 6 to 40 levels deep. ``core`` and ``reference`` find the leaf
(one ``CONSTRAINT_VIOLATION`` at its pointer) in time linear in the depth: compare the rows of one contender across
the groups. ``orjson+jsonschema-rs`` searches every branch below every failed union, so its time multiplies per level:
it runs at 6 and 8, and at 13 once (``slow``); deeper it is not run (~65 s at depth 16 on the 2-core machine). Measured in
one run (release build, min): core 21, 26, 38, 45, 65, 88, 108 us at depths 6, 8, 13, 16, 24, 32, 40 (2.6 us a
level), the reference 1.2, 1.6, 2.6, 3.1, 5.1, 6.7, 8.4 ms (0.21 ms a level), orjson+jsonschema-rs 1.7 ms, 9.2 ms and
1.9 s at 6, 8 and 13; the valid tree 18 deep: core 9.1 us, orjson+jsonschema-rs 5.8 us, the reference 1.5 ms.

``test_reassembly_tools``: every stream of the reassembly grid (``inputs.grid``) through ``toolwire.reassemble``, plain
and with ``tools=`` (``inputs.validation.grid_registry``, real schemas for the arguments the grid writes) and
``on_invalid="yield"``; the calls must be the ground truth and none may carry a violation. Compare the two rows
of a group; ``benches/report.py`` prints the overhead.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

import toolwire
from benches.contenders import core, validators
from benches.contenders.lineups import chunks
from benches.contenders.lineups import validation as lineup
from benches.inputs import grid, validation

SIZES = (validation.SMALL, validation.CALLS)
# The validators' error keyword expected for each kind of broken call (typed additionalProperties: "type").
KEYWORDS = {
    "number-as-string": {"type"},
    "missing-required": {"required"},
    "enum-out-of-range": {"enum"},
    "unexpected-property": {"additionalProperties", "type"},
}


def _sizes() -> list[object]:
    return [pytest.param(n, id=f"{n}calls", marks=() if n == validation.SMALL else (pytest.mark.slow,)) for n in SIZES]


@pytest.mark.parametrize("size", _sizes())
def test_workload_is_what_it_says(size: int) -> None:
    """Valid calls pass Python's ``jsonschema``; each broken one fails with the error its kind means."""
    validation.skip_if_absent()
    load = validation.workload(size)
    draft = validators.jsonschema()
    kinds = Counter(load.kinds)
    assert set(kinds) == {"valid", *validation.KINDS}, kinds
    assert 0.08 <= 1 - kinds["valid"] / size <= 0.12, kinds
    for (name, text), kind in zip(load.calls, load.kinds, strict=True):
        errors = list(draft[name].iter_errors(json.loads(text)))
        if kind == "valid":
            assert not errors, f"{name} {text}: {[e.message for e in errors]}"
        else:
            assert {e.validator for e in errors} & KEYWORDS[kind], (
                f"{kind} {name} {text}: {[e.message for e in errors]}"
            )


@pytest.mark.parametrize("contender", list(lineup.CONTENDERS))
@pytest.mark.parametrize("size", _sizes())
def test_validation(benchmark, contender: str, size: int) -> None:
    validation.skip_if_absent()
    load = validation.workload(size)
    run = lineup.CONTENDERS[contender]
    lineup.prepare()
    benchmark.group = f"validation-{size}calls"
    benchmark.extra_info.update(calls=size, text_bytes=load.text_bytes, invalid=size - load.kinds.count("valid"))
    if contender in lineup.SLOW_CONTENDERS and size > validation.SMALL:
        result = benchmark.pedantic(run, args=(load.calls,), rounds=1, iterations=1)
    else:
        result = benchmark(run, load.calls)
    lineup.check(contender, load, result)


UNION_CASES = {
    "valid-18": (18, "folder"),
    **{f"invalid-{depth}": (depth, "file") for depth in (6, 8, 13, 16, 24, 32, 40)},
}
# The depths the exhaustive search is run at; the deepest of them once, as `slow`.
EXHAUSTIVE_DEPTHS = (6, 8, 13)


UNION_CONTENDERS = {
    "core": core.union,
    "reference": core.reference_union,
    "orjson+jsonschema-rs": validators.union_orjson_jsonschema_rs,
}


def _union_params() -> list[object]:
    params = []
    for case, (depth, leaf) in UNION_CASES.items():
        for contender in UNION_CONTENDERS:
            exhaustive = contender == "orjson+jsonschema-rs" and leaf == "file"
            if exhaustive and depth > max(EXHAUSTIVE_DEPTHS):
                continue
            marks = (pytest.mark.slow,) if exhaustive and depth == max(EXHAUSTIVE_DEPTHS) else ()
            params.append(pytest.param(case, contender, id=f"{case}-{contender}", marks=marks))
    return params


@pytest.mark.parametrize(("case", "contender"), _union_params())
def test_recursive_union(benchmark, case: str, contender: str) -> None:
    depth, leaf = UNION_CASES[case]
    arguments = validation.tree(depth, leaf)
    run = UNION_CONTENDERS[contender]
    run(validation.tree(1, "folder"))  # compiles the schema, untimed
    benchmark.group = f"recursive-union-{case}"
    benchmark.extra_info.update(depth=depth, argument_bytes=len(arguments))
    if contender == "orjson+jsonschema-rs" and depth == max(EXHAUSTIVE_DEPTHS):
        found = benchmark.pedantic(run, args=(arguments,), rounds=1, iterations=1)
    else:
        found = benchmark(run, arguments)
    assert bool(found) == (leaf == "file"), found
    if contender != "orjson+jsonschema-rs" and leaf == "file":
        assert [(v.code.value, v.path) for v in found] == [("CONSTRAINT_VIOLATION", validation.leaf(depth))]


REASSEMBLY = {"core": core.chunks, "core+tools": core.chunks_with_tools}


@pytest.mark.parametrize("variant", list(REASSEMBLY))
@pytest.mark.parametrize("cell", grid.cell_params())
def test_reassembly_tools(benchmark, variant: str, cell: grid.Cell) -> None:
    stream = grid.stream(cell)
    core.chunks_with_tools(stream)  # compiles the registry's schemas (cached on it), untimed
    benchmark.group = f"tools-{cell.id}"
    benchmark.extra_info.update(chunks=stream.chunk_count, argument_bytes=stream.argument_bytes)
    result = benchmark(REASSEMBLY[variant], stream)
    chunks.check("core", stream, result)
    assert all(isinstance(call, toolwire.ToolCall) for call in result), result
    if variant == "core+tools":  # validated against the registry's schema, and found valid
        registry = validation.grid_registry()
        assert all(call.tool_fingerprint == registry[call.name].fingerprint for call in result)
