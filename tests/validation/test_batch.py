"""``validate_batch``: every Arrow text type, polars, lists, nulls, chunking, errors, and the same verdicts as
``validate_many`` on real recorded calls and on the BFCL corpus."""

from __future__ import annotations

import builtins
import doctest
import json
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

from tests.support.paths import CORPORA
from toolwire import Severity, ToolRegistry, Violation, validate_many
from toolwire._pipeline import _batch
from toolwire._pipeline._batch import result_schema, validate_batch

TOOLS = ToolRegistry(
    {
        "get_weather": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "ping": {"type": "object", "properties": {}},
    }
)

NAMES = ["get_weather", "get_weather", "get_weather", "ping", "nope", "get_weather", "get_weather", "ping", "ping"]
ARGUMENTS = [
    '{"city": "Oslo"}',
    '{"city": 3, "unit": "k"}',
    "{}",
    "",
    "{}",
    '{"city": "Oslo", "city": "Bergen"}',
    '{"city": "Oslo"',
    "[1]",
    '{"x": {"y": [1, 2, {"z": null}]}}',
]


def rows(violations: list[Violation]) -> dict[str, Any]:
    """What validate_batch must say for one call, computed from validate_many's violations."""
    return {
        "ok": all(violation.severity is not Severity.ERROR for violation in violations),
        "codes": [violation.code.value for violation in violations],
        "violations": [
            {"code": v.code.value, "severity": v.severity.value, "path": v.path, "message": v.message}
            for v in violations
        ],
    }


def expected(names: list[Any], arguments: list[Any], tools: Any = TOOLS) -> list[dict[str, Any]]:
    return [rows(found) for found in validate_many(list(zip(names, arguments, strict=True)), tools)]


def test_the_module_doctests_pass() -> None:
    assert doctest.testmod(_batch).failed == 0


def test_the_result_is_aligned_with_validate_many() -> None:
    table = validate_batch(pa.array(NAMES), pa.array(ARGUMENTS), TOOLS)
    assert table.schema == result_schema()
    assert table.to_pylist() == expected(NAMES, ARGUMENTS)
    # The cases cover valid calls, schema errors, text errors, infos that keep a call ok, and an unknown tool.
    codes = {code for row in table.column("codes").to_pylist() for code in row}
    assert codes >= {
        "TYPE_MISMATCH",
        "ENUM_OUT_OF_RANGE",
        "MISSING_REQUIRED_ARGUMENT",
        "EMPTY_ARGUMENTS",
        "UNKNOWN_TOOL",
        "INVALID_JSON",
        "ARGUMENTS_NOT_OBJECT",
    }
    assert table.column("ok").to_pylist() == [True, False, False, True, False, True, False, False, True]


def arrow_types() -> list[Any]:
    params = []
    for kind in (pa.string(), pa.large_string(), pa.string_view(), pa.binary(), pa.large_binary(), pa.binary_view()):
        params.append(pytest.param(kind, id=str(kind)))
    return params


@pytest.mark.parametrize("kind", arrow_types())
def test_every_arrow_text_type_is_read(kind: pa.DataType) -> None:
    names = pa.array([n.encode() if pa.types.is_binary(kind) else n for n in NAMES]).cast(kind)
    arguments = pa.array(ARGUMENTS).cast(kind)
    assert names.type == kind
    assert validate_batch(names, arguments, TOOLS).to_pylist() == expected(NAMES, ARGUMENTS)


def test_dictionary_encoded_and_chunked_columns_in_different_layouts() -> None:
    names = pa.chunked_array([NAMES[:2], NAMES[2:5], NAMES[5:]]).dictionary_encode()
    arguments = pa.chunked_array([ARGUMENTS[:4], ARGUMENTS[4:]], type=pa.large_string())
    assert pa.types.is_dictionary(names.type)
    assert [len(c) for c in names.chunks] == [2, 3, 4] and [len(c) for c in arguments.chunks] == [4, 5]
    assert validate_batch(names, arguments, TOOLS).to_pylist() == expected(NAMES, ARGUMENTS)
    assert validate_batch(pa.array(NAMES).dictionary_encode(), arguments, TOOLS).to_pylist() == expected(
        NAMES, ARGUMENTS
    )


def test_polars_series_and_python_lists() -> None:
    want = expected(NAMES, ARGUMENTS)
    assert validate_batch(pl.Series(NAMES), pl.Series(ARGUMENTS), TOOLS).to_pylist() == want
    assert validate_batch(NAMES, tuple(ARGUMENTS), TOOLS).to_pylist() == want
    # A list may hold parsed arguments too: they are dumped as validate_many dumps them.
    parsed = [{"city": "Oslo"}, {"city": 3}, None]
    assert validate_batch(["get_weather"] * 3, parsed, TOOLS).to_pylist() == expected(["get_weather"] * 3, parsed)


def test_nulls_are_rows_saying_so() -> None:
    names = pa.array(["get_weather", None, "ping", None])
    arguments = pa.array([None, '{"city": "Oslo"}', None, None])
    result = validate_batch(names, arguments, TOOLS).to_pylist()
    # Null arguments are no arguments, exactly as validate_many reads None.
    assert result[0] == expected(["get_weather"], [None])[0]
    assert result[2] == expected(["ping"], [None])[0] and result[2]["ok"]
    for row, number in ((result[1], 1), (result[3], 3)):
        assert row["ok"] is False and row["codes"] == ["MISSING_NAME"]
        assert row["violations"][0]["message"].startswith(f"row {number}: the tool name is null")
    # An all-null column is a column of the null type.
    nothing = validate_batch(pa.nulls(2), pa.nulls(2), TOOLS).column("codes").to_pylist()
    assert nothing == [["MISSING_NAME"], ["MISSING_NAME"]]


def test_names_that_are_not_utf8_are_unknown_tools() -> None:
    result = validate_batch(pa.array([b"get_\xffweather"]), pa.array([b"{}"]), TOOLS).to_pylist()
    assert result[0]["codes"] == ["UNKNOWN_TOOL"]


@pytest.mark.parametrize("chunk_rows", [1, 2, 4, 1000])
def test_chunking_changes_nothing_but_the_batches(chunk_rows: int) -> None:
    table = validate_batch(pa.array(NAMES), pa.array(ARGUMENTS), TOOLS, chunk_rows=chunk_rows)
    assert table.to_pylist() == expected(NAMES, ARGUMENTS)
    assert table.column("ok").num_chunks == -(-len(NAMES) // chunk_rows)


def test_empty_columns_give_an_empty_table_of_the_schema() -> None:
    table = validate_batch(pa.array([], pa.string()), [], TOOLS)
    assert table.num_rows == 0 and table.schema == result_schema()


def test_limits_reach_the_core() -> None:
    from toolwire import Limits

    deep = '{"x": ' * 5 + "1" + "}" * 5
    table = validate_batch(["ping"], [deep], TOOLS, limits=Limits(max_depth=3))
    assert table.column("codes").to_pylist() == [["TOO_DEEP"]]


@pytest.mark.parametrize(
    ("names", "arguments", "error", "message"),
    [
        (["ping"], ["{}", "{}"], ValueError, "names has 1 rows but arguments_json has 2"),
        (pa.array([1, 2]), ["{}", "{}"], TypeError, "names must hold text or bytes .*got int64"),
        (
            ["ping"],
            pa.array([{"a": 1}]),
            TypeError,
            r"arguments_json must hold text or bytes .*struct<a: int64>.*json_encode",
        ),
        ({"ping"}, ["{}"], TypeError, "names must be a pyarrow Array .*got set"),
        ([3], ["{}"], TypeError, r"names\[0\] must be a str, bytes or None; got int"),
        (["ping"], [{1, 2}], TypeError, r"arguments_json\[0\] must be JSON text"),
    ],
)
def test_wrong_inputs_are_refused_with_the_fix(
    names: Any, arguments: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        validate_batch(names, arguments, TOOLS)


def test_a_bad_chunk_size_is_refused() -> None:
    with pytest.raises(ValueError, match="chunk_rows must be at least 1"):
        validate_batch(["ping"], ["{}"], TOOLS, chunk_rows=0)


def test_without_pyarrow_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'toolwire\[arrow\]'") as caught:
        validate_batch(["ping"], ["{}"], TOOLS)
    assert caught.value.name == "pyarrow"


# -- real calls ------------------------------------------------------------------------------------------------------


def recorded_calls() -> list[tuple[dict[str, Any], list[tuple[str | None, str | None]]]]:
    """Each recorded response's request tools with the calls the model made (arguments as JSON text, or the raw
    text of a truncated call)."""
    found = []
    for folder in ("streams", "buffered"):
        manifest = CORPORA / "provider-streams" / folder / "MANIFEST.jsonl"
        if not manifest.exists():
            continue
        for line in manifest.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if not entry.get("request_tools") or not entry.get("expected_calls"):
                continue
            calls = []
            for call in entry["expected_calls"]:
                if call.get("arguments") is None:
                    calls.append((call.get("name"), call.get("arguments_raw")))
                else:
                    calls.append((call.get("name"), json.dumps(call["arguments"])))
            found.append((entry["request_tools"], calls))
    return found


RECORDED = recorded_calls()


@pytest.mark.skipif(not RECORDED, reason="../shared/corpora/provider-streams is absent")
def test_recorded_calls_get_the_verdicts_of_validate_many() -> None:
    compared = 0
    for tools, calls in RECORDED:
        registry = ToolRegistry(tools)
        names = pa.array([name for name, _ in calls], pa.string())
        arguments = pa.array([text for _, text in calls], pa.large_string())
        want = [
            rows(found) if name is not None else None
            for (name, _), found in zip(calls, validate_many([(n or "", t) for n, t in calls], registry), strict=True)
        ]
        got = validate_batch(names, arguments, registry).to_pylist()
        for mine, theirs in zip(got, want, strict=True):
            if theirs is not None:
                assert mine == theirs
                compared += 1
            else:
                assert mine["codes"] == ["MISSING_NAME"]
    assert compared >= 100


def bfcl_rows(limit: int) -> tuple[ToolRegistry, list[str], list[str]]:
    """BFCL tools with arguments built from their schemas: a value of each declared type, then each property
    with a value of the wrong type, then no arguments at all: valid and invalid calls over thousands of schemas."""
    path = CORPORA / "tool-schemas" / "bfcl_v4_jsonschema.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpora live beside the repository in ../shared)")
    samples = {"string": "x", "integer": 3, "number": 1.5, "boolean": True, "array": [], "object": {}}
    definitions: dict[str, Any] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        definition = json.loads(line)
        definitions.setdefault(definition["name"], definition)
        if len(definitions) == limit:
            break
    registry = ToolRegistry(list(definitions.values()))
    names: list[str] = []
    arguments: list[str] = []
    for name, definition in definitions.items():
        properties = definition["parameters"].get("properties", {})
        good = {key: samples.get(spec.get("type"), "x") for key, spec in properties.items() if isinstance(spec, dict)}
        names += [name, name, name]
        arguments += [json.dumps(good), json.dumps({key: [None] for key in good}), ""]
    return registry, names, arguments


def test_the_bfcl_corpus_gets_the_verdicts_of_validate_many() -> None:
    registry, names, arguments = bfcl_rows(limit=1500)
    table = validate_batch(pa.array(names), pa.array(arguments, pa.string_view()), registry, chunk_rows=997)
    assert table.num_rows == len(names) >= 3000
    assert table.to_pylist() == expected(names, arguments, registry)
    ok = table.column("ok").to_pylist()
    assert 0 < sum(ok) < len(ok), "both valid and invalid calls are compared"


def test_the_polars_example_of_the_doc_shape(tmp_path: Path) -> None:
    # The same expression the doc shows, over a frame large enough to be split into several batches.
    registry, names, arguments = bfcl_rows(limit=300)
    frame = pl.LazyFrame({"name": names, "arguments": arguments})
    dtype = pl.from_arrow(validate_batch([], [], registry)).to_struct().dtype

    def check(calls: pl.Series) -> pl.Series:
        table = validate_batch(calls.struct.field("name"), calls.struct.field("arguments"), registry)
        return pl.from_arrow(table).to_struct()

    result = (
        frame.with_columns(
            check=pl.struct("name", "arguments").map_batches(check, return_dtype=dtype, is_elementwise=True)
        )
        .unnest("check")
        .collect(engine="streaming")
    )
    assert result.select("ok", "codes", "violations").to_dicts() == expected(names, arguments, registry)
