"""``validate_batch``: the columnar form of ``validate_many``, Arrow in and Arrow out, for engines that speak Arrow.

A day of logs kept in Parquet, Polars, Spark or Ray is validated where it lies: hand the ``name`` and ``arguments``
columns over and get back one row per call, aligned with the input. The work goes through ``validate_many`` (the
Rust core, GIL released) a chunk of rows at a time, so only one chunk of Python strings is alive at once.

pyarrow is imported on first use (``pip install 'toolwire[arrow]'``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from toolwire._model import Limits, Severity, Violation, ViolationCode
from toolwire._pipeline._bound import core

if TYPE_CHECKING:
    import pyarrow as pa  # type: ignore[import-untyped]

__all__ = ["DEFAULT_CHUNK_ROWS", "result_schema", "validate_batch"]

#: Rows handed to the core per call: large enough that per-batch overhead vanishes, small enough that the Python
#: strings of one chunk stay a few megabytes.
DEFAULT_CHUNK_ROWS: Final = 65_536

_NULL_NAME: Final = "the tool name is null; every row needs the name of the tool it called"


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            "toolwire.validate_batch needs pyarrow; install it with: pip install 'toolwire[arrow]'",
            name="pyarrow",
        ) from error
    return pyarrow


def result_schema() -> pa.Schema:
    """The schema of ``validate_batch``'s table: ``ok``, ``codes`` and ``violations``.

    Returns:
        ``ok: bool``, ``codes: list<string>``, ``violations: list<struct<code: string, severity: string, path:
        string, message: string>>`` (``path`` is null for violations about the whole text or call).
    """
    pa = _pyarrow()
    violation = pa.struct(
        [("code", pa.string()), ("severity", pa.string()), ("path", pa.string()), ("message", pa.string())]
    )
    # Plain nullable fields: what Spark, Ray and Polars declare for these types, so their schemas compare equal.
    return pa.schema([("ok", pa.bool_()), ("codes", pa.list_(pa.string())), ("violations", pa.list_(violation))])


def _column(given: object, what: str) -> Any:
    """The input as a pyarrow array or chunked array of text or bytes, or a Python list."""
    pa = _pyarrow()
    values: Any = given
    if isinstance(values, (list, tuple)):
        return values
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        if hasattr(values, "__arrow_c_stream__"):  # polars Series, DuckDB relations, nanoarrow: the Arrow C stream
            values = pa.chunked_array(values)
        elif hasattr(values, "__arrow_c_array__"):
            values = pa.array(values)
        elif hasattr(values, "to_arrow"):
            values = values.to_arrow()
        else:
            raise TypeError(
                f"validate_batch: {what} must be a pyarrow Array or ChunkedArray, a polars Series (or anything with "
                f"__arrow_c_stream__) or a list; got {type(values).__name__}"
            )
    kind: Any = values.type
    if pa.types.is_dictionary(kind):
        values = (
            values.dictionary_decode()
            if isinstance(values, pa.Array)
            else pa.chunked_array([chunk.dictionary_decode() for chunk in values.chunks], kind.value_type)
        )
        kind = values.type
    text_types = (
        pa.types.is_string,
        pa.types.is_large_string,
        pa.types.is_string_view,
        pa.types.is_binary,
        pa.types.is_large_binary,
        pa.types.is_binary_view,
        pa.types.is_null,
    )
    if not any(check(kind) for check in text_types):
        hint = " (a struct of parsed arguments: encode it as JSON first, e.g. polars .struct.json_encode())"
        raise TypeError(
            f"validate_batch: {what} must hold text or bytes (string, large_string, string_view, binary); got "
            f"{kind}{hint if pa.types.is_struct(kind) else ''}"
        )
    return values


def _name_at(value: object, row: int) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        # Bytes that are not UTF-8 cannot name a declared tool: the replacement characters make that UNKNOWN_TOOL.
        return bytes(value).decode("utf-8", "replace")
    raise TypeError(f"validate_batch: names[{row}] must be a str, bytes or None; got {type(value).__name__}")


def _arguments_at(value: object, row: int) -> str | bytes:
    if value is None:
        return ""  # as validate_many: no arguments, EMPTY_ARGUMENTS (info), checked as {}
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"validate_batch: arguments_json[{row}] must be JSON text, bytes, None or a JSON-compatible value; {error}"
        ) from None


def _slice(values: Any, start: int, stop: int) -> list[Any]:
    if isinstance(values, (list, tuple)):
        return list(values[start:stop])
    result: list[Any] = values.slice(start, stop - start).to_pylist()
    return result


def _results(
    names: list[Any], arguments: list[Any], start: int, registry: Any, limits: Limits | None
) -> list[list[Violation]]:
    found: list[list[Violation]] = [[] for _ in names]
    pairs = []
    rows = []
    for offset, (name, text) in enumerate(zip(names, arguments, strict=True)):
        row = start + offset
        checked = _name_at(name, row)
        if checked is None:
            found[offset] = [
                Violation(ViolationCode.MISSING_NAME, f"row {row}: {_NULL_NAME}", Severity.ERROR, recoverable=True)
            ]
            continue
        pairs.append((checked, _arguments_at(text, row)))
        rows.append(offset)
    for offset, violations in zip(rows, core.validate_many(pairs, registry, limits=limits), strict=True):
        found[offset] = violations
    return found


def _batch(results: list[list[Violation]], schema: Any) -> Any:
    pa = _pyarrow()
    offsets = [0]
    codes: list[str] = []
    severities: list[str] = []
    paths: list[str | None] = []
    messages: list[str] = []
    ok: list[bool] = []
    for violations in results:
        fine = True
        for violation in violations:
            codes.append(violation.code.value)
            severities.append(violation.severity.value)
            paths.append(violation.path)
            messages.append(violation.message)
            fine = fine and violation.severity is not Severity.ERROR
        offsets.append(len(codes))
        ok.append(fine)
    positions = pa.array(offsets, pa.int32())
    code_values = pa.array(codes, pa.string())
    violation_type = schema.field("violations").type
    items = pa.StructArray.from_arrays(
        [code_values, pa.array(severities, pa.string()), pa.array(paths, pa.string()), pa.array(messages, pa.string())],
        fields=list(violation_type.value_type),
    )
    return pa.RecordBatch.from_arrays(
        [
            pa.array(ok, pa.bool_()),
            pa.ListArray.from_arrays(positions, code_values, type=schema.field("codes").type),
            pa.ListArray.from_arrays(positions, items, type=violation_type),
        ],
        schema=schema,
    )


def validate_batch(
    names: object,
    arguments_json: object,
    registry: object,
    *,
    limits: Limits | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> pa.Table:
    """Validate a column of tool names against a column of arguments: one result row per input row, in order.

    Each row is judged exactly as ``validate_many`` judges the pair ``(name, arguments)``; a null name gives
    ``MISSING_NAME`` (error) and null arguments mean no arguments (``EMPTY_ARGUMENTS``, info, checked as ``{}``),
    never an exception.

    Example:
        >>> import pyarrow as pa, toolwire
        >>> tools = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}},
        ...                          "required": ["city"]}}
        >>> table = toolwire.validate_batch(pa.array(["get_weather", "get_weather", None]),
        ...                                   pa.array(['{"city": "Oslo"}', "{}", "{}"]), tools)
        >>> table.column("ok").to_pylist(), table.column("codes").to_pylist()
        ([True, False, False], [[], ['MISSING_REQUIRED_ARGUMENT'], ['MISSING_NAME']])

    Args:
        names: The tool names: a pyarrow ``Array``/``ChunkedArray`` (``string``, ``large_string``, ``string_view``,
            ``binary``, ``large_binary``, ``binary_view``, dictionary-encoded or not), a polars ``Series`` (or any
            object with ``__arrow_c_stream__``/``__arrow_c_array__``), or a Python list.
        arguments_json: The arguments as JSON text, in the same forms (a Python list may also hold parsed values).
        registry: A ``ToolRegistry`` or anything it loads (a registry is compiled once and cached).
        limits: ``max_depth`` bounds the nesting of the arguments, as for ``validate_many``.
        chunk_rows: Rows validated per batch; the Python strings of one batch are all that is held at once.

    Returns:
        A ``pyarrow.Table`` with ``ok: bool`` (no error-severity violation), ``codes: list<string>`` and
        ``violations: list<struct<code, severity, path, message>>`` (see ``result_schema``), one row per input row.

    Raises:
        ModuleNotFoundError: pyarrow is not installed.
        TypeError: A column of another type (a struct, numbers...), or a list item that is no text.
        ValueError: The two columns differ in length, or ``chunk_rows`` is not positive.
        toolwire.errors.SchemaError: A tool's schema cannot be compiled.
    """
    arrow = _pyarrow()
    from toolwire.registry import ToolRegistry

    if chunk_rows < 1:
        raise ValueError(f"validate_batch: chunk_rows must be at least 1; got {chunk_rows}")
    name_column = _column(names, "names")
    argument_column = _column(arguments_json, "arguments_json")
    if len(name_column) != len(argument_column):
        raise ValueError(
            f"validate_batch: names has {len(name_column)} rows but arguments_json has {len(argument_column)}; pass "
            "the two columns of the same rows"
        )
    tools = ToolRegistry.load(registry)
    schema = result_schema()
    batches = []
    for start in range(0, len(name_column), chunk_rows):
        stop = min(start + chunk_rows, len(name_column))
        results = _results(_slice(name_column, start, stop), _slice(argument_column, start, stop), start, tools, limits)
        batches.append(_batch(results, schema))
    table: pa.Table = arrow.Table.from_batches(batches, schema=schema)
    return table
