"""The lint's data files agree with the research table they were taken from (docs/research).

The A.2 (hosted APIs) and A.3 (self-hosted engines) matrices of ``provider-schema-rules.md`` are parsed cell by
cell. For each column that is one of the lint's targets, and each row, a small schema exhibiting the row's construct
is linted, and the finding at the construct's pointer must match the cell: ``R`` a ``reject`` by the rule named
below, ``I`` an ``ignored`` one, and ``?`` (any cell with a question mark) nothing enforced, only an ``unverified``
entry under ``--show-unverified``. Other codes (S, A, P, D, N) are not checked here; ``test_schema_lint`` covers
the rules they led to.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.paths import REPO
from toolwire.registry import Tool
from toolwire.schema.lint._lint import LINT_RULES, lint_tools

RESEARCH = REPO / "docs" / "research" / "provider-schema-rules.md"

# Matrix columns that are lint targets (GEM-O is Gemini's and Vertex's `parameters`); the others have none.
COLUMNS = {
    "OAI-S": ("openai-strict",),
    "OAI-N": ("openai",),
    "ANT-S": ("anthropic-strict",),
    "ANT-N": ("anthropic",),
    "GEM-O": ("gemini", "vertex"),
    "COH": ("cohere",),
    "XGR": ("vllm",),
    "LCPP": ("llama-cpp",),
    "OLL-T": ("ollama",),
}
UNMAPPED_COLUMNS = {
    "GEM-J": "Gemini parametersJsonSchema: not a lint target (gemini/vertex lint the parameters field)",
    "LLG": "llguidance: vLLM's guidance backend, not the vllm target (xgrammar)",
    "OUT": "outlines-core: vLLM's last fallback, not a lint target",
}


def object_with(schema: dict[str, Any], **root: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": schema}, "required": ["a"], "additionalProperties": False, **root}


RECURSIVE = {
    "type": "object",
    "properties": {"node": {"$ref": "#/$defs/Node"}},
    "required": ["node"],
    "additionalProperties": False,
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {"child": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}},
            "required": ["child"],
            "additionalProperties": False,
        }
    },
}

# Row label -> the construct's cases: (schema, pointer of the construct). A row whose cells split on " / " (enum /
# const) has one case per part, in order; otherwise every case takes the row's code.
ROWS: dict[str, list[tuple[dict[str, Any], str]]] = {
    'type arrays `["x","null"]`': [(object_with({"type": ["string", "null"]}), "/properties/a/type")],
    "type arrays": [(object_with({"type": ["string", "null"]}), "/properties/a/type")],
    "`nullable` (OpenAPI)": [(object_with({"type": "string", "nullable": True}), "/properties/a/nullable")],
    "`nullable`": [(object_with({"type": "string", "nullable": True}), "/properties/a/nullable")],
    "`enum`": [(object_with({"type": "string", "enum": ["x"]}), "/properties/a/enum")],
    "`const`": [(object_with({"const": "x"}), "/properties/a/const")],
    "`enum` / `const`": [
        (object_with({"type": "string", "enum": ["x"]}), "/properties/a/enum"),
        (object_with({"const": "x"}), "/properties/a/const"),
    ],
    "`anyOf`": [(object_with({"anyOf": [{"type": "string"}, {"type": "null"}]}), "/properties/a/anyOf")],
    "`oneOf`": [(object_with({"oneOf": [{"type": "string"}, {"type": "integer"}]}), "/properties/a/oneOf")],
    "`allOf`": [(object_with({"allOf": [{"type": "string"}, {"minLength": 1}]}), "/properties/a/allOf")],
    "`not`": [(object_with({"type": "string", "not": {"const": ""}}), "/properties/a/not")],
    "`if/then/else`, `dependent*`": [
        (object_with({"type": "string", "if": {"minLength": 1}, "then": {}}), "/properties/a/if"),
        (object_with({"type": "object", "dependentRequired": {"x": ["y"]}}), "/properties/a/dependentRequired"),
    ],
    "`not`, `if/then/else`, `dependent*`": [
        (object_with({"type": "string", "not": {"const": ""}}), "/properties/a/not"),
        (object_with({"type": "string", "if": {"minLength": 1}, "then": {}}), "/properties/a/if"),
        (object_with({"type": "object", "dependentSchemas": {"x": {}}}), "/properties/a/dependentSchemas"),
    ],
    "`$ref` / `$defs` (local)": [
        (object_with({"$ref": "#/$defs/A"}, **{"$defs": {"A": {"type": "string"}}}), "/properties/a/$ref")
    ],
    "`$ref`/`$defs`": [
        (object_with({"$ref": "#/$defs/A"}, **{"$defs": {"A": {"type": "string"}}}), "/properties/a/$ref")
    ],
    "recursion": [(RECURSIVE, "/$defs/Node/properties/child/anyOf/0/$ref")],
    "`pattern`": [(object_with({"type": "string", "pattern": "^a+$"}), "/properties/a/pattern")],
    "`format`": [(object_with({"type": "string", "format": "date-time"}), "/properties/a/format")],
    "`minLength`/`maxLength`": [
        (object_with({"type": "string", "minLength": 1}), "/properties/a/minLength"),
        (object_with({"type": "string", "maxLength": 9}), "/properties/a/maxLength"),
    ],
    "`minimum`/`maximum`": [
        (object_with({"type": "integer", "minimum": 1}), "/properties/a/minimum"),
        (object_with({"type": "integer", "maximum": 9}), "/properties/a/maximum"),
    ],
    "`minimum`/`maximum`, exclusive*": [
        (object_with({"type": "number", "minimum": 1}), "/properties/a/minimum"),
        (object_with({"type": "number", "exclusiveMaximum": 9}), "/properties/a/exclusiveMaximum"),
    ],
    "`exclusiveMin/Max`": [
        (object_with({"type": "number", "exclusiveMinimum": 1}), "/properties/a/exclusiveMinimum"),
        (object_with({"type": "number", "exclusiveMaximum": 9}), "/properties/a/exclusiveMaximum"),
    ],
    "`multipleOf`": [(object_with({"type": "integer", "multipleOf": 5}), "/properties/a/multipleOf")],
    "`minItems`/`maxItems`": [
        (object_with({"type": "array", "minItems": 1}), "/properties/a/minItems"),
        (object_with({"type": "array", "maxItems": 9}), "/properties/a/maxItems"),
    ],
    "`uniqueItems`": [(object_with({"type": "array", "uniqueItems": True}), "/properties/a/uniqueItems")],
    "`uniqueItems`, `contains`": [
        (object_with({"type": "array", "uniqueItems": True}), "/properties/a/uniqueItems"),
        (object_with({"type": "array", "contains": {"type": "string"}}), "/properties/a/contains"),
    ],
    "`prefixItems`": [
        (object_with({"type": "array", "prefixItems": [{"type": "string"}]}), "/properties/a/prefixItems")
    ],
    "`additionalProperties:false`": [
        (
            object_with({"type": "object", "properties": {}, "additionalProperties": False}),
            "/properties/a/additionalProperties",
        )
    ],
    "`additionalProperties: true/schema`": [
        (object_with({"type": "object", "additionalProperties": True}), "/properties/a/additionalProperties"),
        (
            object_with({"type": "object", "additionalProperties": {"type": "string"}}),
            "/properties/a/additionalProperties",
        ),
    ],
    "`additionalProperties` false / schema": [
        (
            object_with({"type": "object", "properties": {}, "additionalProperties": False}),
            "/properties/a/additionalProperties",
        ),
        (
            object_with({"type": "object", "additionalProperties": {"type": "string"}}),
            "/properties/a/additionalProperties",
        ),
    ],
    "`patternProperties`": [
        (object_with({"type": "object", "patternProperties": {"^x": {}}}), "/properties/a/patternProperties")
    ],
    "`propertyNames`": [
        (object_with({"type": "object", "propertyNames": {"maxLength": 3}}), "/properties/a/propertyNames")
    ],
    "`min/maxProperties`": [
        (object_with({"type": "object", "minProperties": 1}), "/properties/a/minProperties"),
        (object_with({"type": "object", "maxProperties": 9}), "/properties/a/maxProperties"),
    ],
    "`default`": [(object_with({"type": "string", "default": "x"}), "/properties/a/default")],
    "`examples` / `example`": [(object_with({"type": "string", "examples": ["x"]}), "/properties/a/examples")],
    "`title`": [(object_with({"type": "string", "title": "A"}), "/properties/a/title")],
    "`unevaluatedProperties`": [
        (object_with({"type": "object", "unevaluatedProperties": False}), "/properties/a/unevaluatedProperties")
    ],
}
# Rows that hold no keyword code per cell, with the reason they are not checked here.
SKIPPED_ROWS = {
    "root `type: object`": "every cell is D; covered by the */root-not-object rules in test_schema_lint",
    "all props in `required`": "not codes (D, 'optional OK (<=24)', '>=1 required D'); covered in test_schema_lint",
    "property order": "an order, not a code; covered by the required-first and property-order deviations",
    "**default openness when absent**": "open/closed words; covered by the implicit-closed-object deviations",
    "annotations (`title`,`description`,`default`,`examples`)": (
        "annotations are not constraints: JSON Schema never enforces them, so being ignored changes nothing the "
        "handler must check (Ollama's dropped default is covered by ollama/dropped-keyword)"
    ),
}

# (row, target) -> the rule expected for each R or I cell (a case's pointer must carry a finding of this rule).
EXPECTED: dict[tuple[str, str], str] = {
    # A.2, R cells
    ('type arrays `["x","null"]`', "gemini"): "gemini/type-array",
    ("`const`", "gemini"): "gemini/const",
    ("`oneOf`", "openai-strict"): "openai-strict/one-of",
    ("`oneOf`", "gemini"): "gemini/one-of",
    ("`allOf`", "openai-strict"): "openai-strict/all-of",
    ("`allOf`", "gemini"): "gemini/all-of",
    ("`not`", "openai-strict"): "openai-strict/not",
    ("`not`", "gemini"): "gemini/unknown-field",
    ("`if/then/else`, `dependent*`", "openai-strict"): "openai-strict/conditional",
    ("`if/then/else`, `dependent*`", "gemini"): "gemini/unknown-field",
    ("recursion", "anthropic-strict"): "anthropic-strict/recursion",
    ("`minLength`/`maxLength`", "anthropic-strict"): "anthropic-strict/string-length",
    ("`minimum`/`maximum`", "anthropic-strict"): "anthropic-strict/numeric-constraint",
    ("`exclusiveMin/Max`", "anthropic-strict"): "anthropic-strict/numeric-constraint",
    ("`exclusiveMin/Max`", "gemini"): "gemini/unknown-field",
    ("`multipleOf`", "anthropic-strict"): "anthropic-strict/numeric-constraint",
    ("`multipleOf`", "gemini"): "gemini/unknown-field",
    ("`uniqueItems`", "gemini"): "gemini/unknown-field",
    ("`prefixItems`", "gemini"): "gemini/unknown-field",
    ("`additionalProperties: true/schema`", "openai-strict"): "openai-strict/open-object",
    ("`additionalProperties: true/schema`", "anthropic-strict"): "anthropic-strict/open-object",
    ("`patternProperties`", "gemini"): "gemini/unknown-field",
    ("`propertyNames`", "gemini"): "gemini/unknown-field",
    ("`default`", "openai-strict"): "openai-strict/default",
    ("`unevaluatedProperties`", "gemini"): "gemini/unknown-field",
    # A.3, I cells
    ("`nullable`", "vllm"): "vllm/nullable",
    ("`nullable`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`nullable`", "ollama"): "ollama/dropped-keyword",
    ("`enum` / `const`", "ollama"): "ollama/dropped-keyword",
    ("`oneOf`", "ollama"): "ollama/dropped-keyword",
    ("`allOf`", "ollama"): "ollama/dropped-keyword",
    ("`not`, `if/then/else`, `dependent*`", "vllm"): "vllm/ignored-keyword",
    ("`not`, `if/then/else`, `dependent*`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`not`, `if/then/else`, `dependent*`", "ollama"): "ollama/dropped-keyword",
    ("`pattern`", "ollama"): "ollama/dropped-keyword",
    ("`format`", "ollama"): "ollama/dropped-keyword",
    ("`minLength`/`maxLength`", "ollama"): "ollama/dropped-keyword",
    ("`minimum`/`maximum`, exclusive*", "ollama"): "ollama/dropped-keyword",
    ("`multipleOf`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`multipleOf`", "ollama"): "ollama/dropped-keyword",
    ("`minItems`/`maxItems`", "ollama"): "ollama/dropped-keyword",
    ("`uniqueItems`, `contains`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`uniqueItems`, `contains`", "ollama"): "ollama/dropped-keyword",
    ("`prefixItems`", "ollama"): "ollama/dropped-keyword",
    ("`additionalProperties` false / schema", "ollama"): "ollama/dropped-keyword",
    ("`patternProperties`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`patternProperties`", "ollama"): "ollama/dropped-keyword",
    ("`propertyNames`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`propertyNames`", "ollama"): "ollama/dropped-keyword",
    ("`min/maxProperties`", "ollama"): "ollama/dropped-keyword",
    ("`unevaluatedProperties`", "llama-cpp"): "llama-cpp/unsupported-keyword",
    ("`unevaluatedProperties`", "ollama"): "ollama/dropped-keyword",
}
# Vertex shares Gemini's GEM-O column, with the same rules under its own prefix.
EXPECTED.update(
    {
        (row, "vertex"): rule.replace("gemini/", "vertex/")
        for (row, target), rule in list(EXPECTED.items())
        if target == "gemini"
    }
)
# (row, target) -> (effect, rule, why) where a source beyond the matrix cell decides the effect.
OVERRIDES = {
    ("`uniqueItems`, `contains`", "vllm"): (
        "reject",
        "vllm/array-keyword",
        "xgrammar ignores them (I), but vLLM's own pre-check rejects them first (A.1 vLLM)",
    ),
}


def cell_code(cell: str) -> str:
    """The code of a cell: ``?`` when it holds a question mark outside code spans, else its first letter code."""
    text = re.sub(r"`[^`]*`", "", cell).replace("*", "").strip()
    if "?" in text:
        return "?"
    match = re.match(r"[A-Z]", text)
    return match.group(0) if match else text


def parse_matrix(text: str, heading: str) -> tuple[list[str], dict[str, list[str]]]:
    """The columns and the rows (label -> cells) of the first table after ``heading``."""
    section = text[text.index(heading) :]
    table: list[str] = []
    for line in section.splitlines()[1:]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    split = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table]
    header, rows = split[0], split[2:]
    return header[1:], {row[0]: row[1:] for row in rows}


@pytest.fixture(scope="module")
def research() -> str:
    return RESEARCH.read_text(encoding="utf-8")


def cells(research: str) -> list[tuple[str, str, str, str]]:
    """(row, column, target, code) for every mapped cell of both matrices."""
    found = []
    for heading in ("### A.2 Matrix", "### A.3 Matrix"):
        columns, rows = parse_matrix(research, heading)
        assert set(columns) <= set(COLUMNS) | set(UNMAPPED_COLUMNS), f"{heading}: new columns {columns}"
        for label, row in rows.items():
            assert label in ROWS or label in SKIPPED_ROWS, f"{heading}: row {label!r} has no case; add one"
            if label in SKIPPED_ROWS:
                continue
            for column, cell in zip(columns, row, strict=True):
                for target in COLUMNS.get(column, ()):
                    found.append((label, column, target, cell))
    return found


def lint_at(schema: dict[str, Any], target: str, pointer: str, *, unverified: bool) -> list[tuple[str, str]]:
    report = lint_tools([Tool("t", "d", schema)], target, show_unverified=unverified)
    return [(f.rule, f.effect or "") for f in report.findings if f.pointer == pointer]


def cases(label: str, cell: str) -> list[tuple[dict[str, Any], str, str]]:
    """The row's cases with the code each must meet (split cells such as ``S / I`` give one code per case)."""
    parts = [part.strip() for part in cell.split(" / ")] if " / " in cell and " / " in label else [cell]
    row_cases = ROWS[label]
    codes = [cell_code(part) for part in parts]
    if len(codes) == 1:
        codes = codes * len(row_cases)
    return [(schema, pointer, code) for (schema, pointer), code in zip(row_cases, codes, strict=True)]


def test_matrices_parse(research: str) -> None:
    columns, rows = parse_matrix(research, "### A.2 Matrix")
    assert columns == ["OAI-S", "OAI-N", "ANT-S", "ANT-N", "GEM-O", "GEM-J", "COH"]
    assert cell_code(rows["`oneOf`"][0]) == "R" and cell_code(rows["`not`"][2]) == "?"
    columns, rows = parse_matrix(research, "### A.3 Matrix")
    assert columns == ["XGR", "LLG", "OUT", "LCPP", "OLL-T"]
    assert cell_code(rows["`nullable`"][0]) == "I"


def test_rejected_cells_have_reject_rules(research: str) -> None:
    checked = 0
    for label, _column, target, cell in cells(research):
        for schema, pointer, code in cases(label, cell):
            if code not in ("R", "I"):
                continue
            effect, rule = ("reject" if code == "R" else "ignored"), EXPECTED.get((label, target))
            if (label, target) in OVERRIDES:
                effect, rule, _why = OVERRIDES[(label, target)]
            assert rule, f"{label} [{target}] is {code} in the research: name the rule in EXPECTED"
            found = lint_at(schema, target, pointer, unverified=False)
            assert (rule, effect) in found, f"{label} [{target}] is {code}: expected {rule} ({effect}) at {pointer}"
            checked += 1
    assert checked >= 60


def test_unknown_cells_are_not_enforced(research: str) -> None:
    checked = 0
    for label, _column, target, cell in cells(research):
        for schema, pointer, code in cases(label, cell):
            if code != "?":
                continue
            assert not lint_at(schema, target, pointer, unverified=False), (
                f"{label} [{target}] is '?' in the research, yet a rule is enforced at {pointer}"
            )
            shown = lint_at(schema, target, pointer, unverified=True)
            assert shown and {effect for _, effect in shown} == {"unverified"}, (
                f"{label} [{target}] is '?': list it under unverified (got {shown})"
            )
            checked += 1
    assert checked >= 40


def test_mapping_names_real_rules() -> None:
    ids = {rule.id for rule in LINT_RULES}
    assert {rule for rule in EXPECTED.values()} <= ids
    assert {rule for _, rule, _ in OVERRIDES.values()} <= ids


def test_every_expected_cell_is_still_in_the_research(research: str) -> None:
    live = {
        (label, target)
        for label, _, target, cell in cells(research)
        if any(code in ("R", "I") for _, _, code in cases(label, cell))
    }
    stale = set(EXPECTED) - live
    assert not stale, f"EXPECTED names cells the research no longer has: {sorted(stale)}"
