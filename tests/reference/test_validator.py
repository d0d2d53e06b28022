"""The pure-Python tool-argument validator (``toolwire.reference._validator``), the twin of the core's.

Two parts:
- the official JSON Schema Test Suite (``../shared/corpora/json-schema-test-suite``, drafts 2020-12 and 7, required
  tests): each case's schema is one tool's schema and each case's data its arguments; the verdict (no violation)
  must equal the suite's ``valid``. Cases that need the suite's remote documents are skipped, each with its reason
  (``NEEDS_NETWORK``); cases that fail for a known reason run as strict xfails (``KNOWN_FAILURES``);
- focused tests of each rule of ``rust/core/src/validator.rs``'s table: code, JSON pointer and data.
"""

from __future__ import annotations

import doctest
import json
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire.reference._validator as _validator
from tests.support.paths import CORPORA
from toolwire._model import VIOLATION_TABLE, Violation, ViolationCode
from toolwire.errors import SchemaError
from toolwire.reference._error_search import find
from toolwire.reference._numbers import loads_arguments
from toolwire.reference._patterns import matches
from toolwire.reference._validator import Validators

SUITE = CORPORA / "json-schema-test-suite"
DRAFTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}

REMOTE = "needs the suite's remote documents at http://localhost:1234 (remotes/, not in the corpus); never fetched"
EXTENDIBLE = '$ref "extendible-dynamic-ref.json" resolves to http://localhost:1234/draft2020-12/; ' + REMOTE

#: (draft, file stem, case description or "*" for the whole file) -> why the case needs the network. Skipped.
NEEDS_NETWORK: dict[tuple[str, str, str], str] = {
    ("draft2020-12", "refRemote", "*"): REMOTE,
    ("draft7", "refRemote", "*"): REMOTE,
    ("draft2020-12", "dynamicRef", "strict-tree schema, guards against misspelled properties"): (
        '$ref "tree.json" resolves to http://localhost:1234/draft2020-12/tree.json; ' + REMOTE
    ),
    ("draft2020-12", "dynamicRef", "tests for implementation dynamic anchor and reference link"): EXTENDIBLE,
    ("draft2020-12", "dynamicRef", "$ref and $dynamicAnchor are independent of order - $defs first"): EXTENDIBLE,
    ("draft2020-12", "dynamicRef", "$ref and $dynamicAnchor are independent of order - $ref first"): EXTENDIBLE,
    ("draft2020-12", "dynamicRef", "$ref to $dynamicRef finds detached $dynamicAnchor"): (
        "$ref http://localhost:1234/draft2020-12/detached-dynamicref.json; " + REMOTE
    ),
    ("draft2020-12", "vocabulary", "schema that uses custom metaschema with with no validation vocabulary"): (
        "$schema is the custom metaschema http://localhost:1234/draft2020-12/metaschema-no-validation.json; " + REMOTE
    ),
    ("draft2020-12", "vocabulary", "ignore unrecognized optional vocabulary"): (
        "$schema is the custom metaschema http://localhost:1234/draft2020-12/metaschema-optional-vocabulary.json; "
        + REMOTE
    ),
}

UNICODE_PROPERTIES = (
    "RE2, the reference's pattern engine, knows Unicode properties by their short names (\\p{L}), not \\p{Letter}: "
    "the pattern is a SchemaError, where the core's regex engine accepts it"
)

#: (draft, file stem, case description) -> why every test of that case fails. Strict xfails, so none goes stale.
KNOWN_FAILURES: dict[tuple[str, str, str], str] = {
    ("draft2020-12", "pattern", "pattern with Unicode property escape requires unicode mode"): UNICODE_PROPERTIES,
    ("draft2020-12", "patternProperties", "patternProperties with Unicode property escape"): UNICODE_PROPERTIES,
}


def suite_cases() -> list[Any]:
    params: list[Any] = []
    for draft, dialect in DRAFTS.items():
        folder = SUITE / draft
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.json")):
            for number, case in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                schema = case["schema"]
                if isinstance(schema, dict) and "$schema" not in schema:
                    # A draft-7 case is a draft-7 schema; toolwire's default dialect is 2020-12.
                    schema = {"$schema": dialect, **schema}
                where = (draft, path.stem, case["description"])
                network = NEEDS_NETWORK.get((draft, path.stem, "*")) or NEEDS_NETWORK.get(where)
                failure = KNOWN_FAILURES.get(where)
                marks = []
                if network is not None:
                    marks.append(pytest.mark.skip(reason=network))
                elif failure is not None:
                    marks.append(pytest.mark.xfail(strict=True, raises=SchemaError, reason=failure))
                for index, test in enumerate(case["tests"]):
                    params.append(
                        pytest.param(
                            schema,
                            json.dumps(test["data"], ensure_ascii=False),
                            test["valid"],
                            marks=marks,
                            id=f"{draft}/{path.stem}/{number}.{index}: {case['description']} / {test['description']}",
                        )
                    )
    return params


SUITE_CASES = suite_cases()


@pytest.mark.skipif(not SUITE_CASES, reason=f"{SUITE} is absent (the shared corpora live beside the repository)")
@pytest.mark.parametrize(("schema", "data", "valid"), SUITE_CASES or [pytest.param(None, "", True, id="absent")])
def test_json_schema_test_suite(schema: Any, data: str, valid: bool) -> None:
    validators = Validators([("t", schema)])
    violations = validators.validate("t", data)
    assert (not violations) == valid, [(v.code.value, v.path, v.message) for v in violations]
    # The suite's small documents never come near the search budget: its count follows references as resolved.
    assert ViolationCode.VALIDATION_BUDGET_EXCEEDED not in {v.code for v in violations}
    # Where the error search walks the schema, it finds nothing exactly where jsonschema accepts: its verdict, made
    # of the library's verdicts on the keywords that apply no subschema, is the library's.
    tool = validators._tools["t"]
    if tool.search.plans is not None:
        found = find(tool.search.plans, tool.assertions, matches, loads_arguments(data.encode()))
        assert (not found) == valid, [(v.code.value, v.path, v.message) for v in found]


@pytest.mark.skipif(not SUITE_CASES, reason=f"{SUITE} is absent (the shared corpora live beside the repository)")
def test_every_listed_exception_names_a_suite_case() -> None:
    described = set()
    for draft in DRAFTS:
        for path in (SUITE / draft).glob("*.json"):
            described.add((draft, path.stem, "*"))
            described.update((draft, path.stem, case["description"]) for case in json.loads(path.read_text()))
    assert set(NEEDS_NETWORK) <= described
    assert set(KNOWN_FAILURES) <= described


@pytest.mark.skipif(not SUITE_CASES, reason=f"{SUITE} is absent (the shared corpora live beside the repository)")
def test_cases_needing_the_network_fail_to_compile() -> None:
    """What is skipped is skipped because its schema names a remote resource: the validators refuse to build."""
    for draft, stem, description in NEEDS_NETWORK:
        for case in json.loads((SUITE / draft / f"{stem}.json").read_text()):
            if description not in ("*", case["description"]):
                continue
            schema = case["schema"]
            if isinstance(schema, dict) and "$schema" not in schema:
                schema = {"$schema": DRAFTS[draft], **schema}
            with pytest.raises(SchemaError) as raised:
                Validators([("t", schema)])
            assert "localhost:1234" in raised.value.problem or raised.value.pointer.endswith("$ref")


# ------------------------------------------------------------------------------------------------ focused tests


def one(schema: Any, **options: Any) -> Validators:
    return Validators([("t", schema)], **options)


def found(validators: Validators, arguments: str | bytes, name: str = "t") -> list[tuple[str, str | None]]:
    """(code, path) of every violation, in order."""
    return [(v.code.value, v.path) for v in validators.validate(name, arguments)]


def only(validators: Validators, arguments: str | bytes) -> Violation:
    violations = validators.validate("t", arguments)
    assert len(violations) == 1, violations
    return violations[0]


ADDRESS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
            "required": ["street", "zip"],
            "additionalProperties": False,
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}
DRAFT7 = DRAFTS["draft7"]


def test_valid_arguments_have_no_violation() -> None:
    ok = '{"name": "x", "age": 3, "unit": "celsius", "address": {"street": "s", "zip": "12345"}}'
    assert one(ADDRESS).validate("t", ok) == []
    assert one(ADDRESS).validate("t", ok.encode()) == []


def test_violations_carry_the_table_severity_and_nothing_the_caller_fills() -> None:
    for violation in one(ADDRESS).validate("t", '{"age": "x", "zzz": 1, "unit": 3, "address": {"zip": "1"}}'):
        _, severity, recoverable = VIOLATION_TABLE[violation.code]
        assert (violation.severity, violation.recoverable) == (severity, recoverable)
        assert (violation.choice, violation.seq, violation.index, violation.offset) == (None, None, None, None)
        assert violation.message and "\n" not in violation.message


def test_required_names_each_missing_member() -> None:
    assert found(one(ADDRESS), '{"address": {}}') == [
        ("MISSING_REQUIRED_ARGUMENT", "/address/street"),
        ("MISSING_REQUIRED_ARGUMENT", "/address/zip"),
        ("MISSING_REQUIRED_ARGUMENT", "/name"),
    ]
    zip_code = one(ADDRESS).validate("t", '{"name": "n", "address": {"street": "s"}}')[0]
    assert (zip_code.path, zip_code.data) == ("/address/zip", None)
    assert '"zip"' in zip_code.message
    assert found(one({"required": ["a/b", "c~d"]}), "{}") == [
        ("MISSING_REQUIRED_ARGUMENT", "/a~1b"),
        ("MISSING_REQUIRED_ARGUMENT", "/c~0d"),
    ]


def test_dependent_required_points_at_the_missing_member() -> None:
    v = one({"dependentRequired": {"a": ["b", "c"], "x": ["b"]}})
    violations = v.validate("t", '{"a": 1, "x": 2, "c": 3}')
    assert [(x.code.value, x.path, x.data) for x in violations] == [
        ("CONSTRAINT_VIOLATION", "/b", {"keyword": "dependentRequired"})
    ]
    v = one({"$schema": DRAFT7, "dependencies": {"a": ["b"], "x": {"required": ["y"]}}})
    violations = v.validate("t", '{"a": 1, "x": 2}')
    assert [(x.code.value, x.path, x.data) for x in violations] == [
        ("CONSTRAINT_VIOLATION", "/b", {"keyword": "dependencies"}),
        ("MISSING_REQUIRED_ARGUMENT", "/y", None),
    ]


def test_additional_properties_false_is_one_unexpected_argument_per_member() -> None:
    arguments = '{"name": "x", "b": 1, "a/~": 2, "address": {"street": "s", "zip": "12345", "c": 0}}'
    # Sorted by the pointer as written: `~` sorts after letters.
    assert found(one(ADDRESS), arguments) == [
        ("UNEXPECTED_ARGUMENT", "/address/c"),
        ("UNEXPECTED_ARGUMENT", "/a~1~0"),
        ("UNEXPECTED_ARGUMENT", "/b"),
    ]
    assert one(ADDRESS).validate("t", '{"name": "x", "b": 1}')[0].data is None
    v = one({"properties": {"a": {}}, "patternProperties": {"^x-": {}}, "additionalProperties": False})
    assert found(v, '{"a": 1, "x-1": 2, "y": 3, "x": 4}') == [
        ("UNEXPECTED_ARGUMENT", "/x"),
        ("UNEXPECTED_ARGUMENT", "/y"),
    ]


def test_additional_properties_with_a_schema_reports_the_schema_s_own_problems() -> None:
    v = one({"properties": {"a": {}}, "additionalProperties": {"type": "integer", "maximum": 3}})
    assert found(v, '{"a": "s", "b": "x", "c": 9, "d": 1}') == [
        ("TYPE_MISMATCH", "/b"),
        ("CONSTRAINT_VIOLATION", "/c"),
    ]


def test_unevaluated_properties_false_is_unexpected_and_with_a_schema_a_constraint() -> None:
    v = one({"properties": {"a": {}}, "unevaluatedProperties": False})
    assert found(v, '{"a": 1, "b": 2, "c": 3}') == [("UNEXPECTED_ARGUMENT", "/b"), ("UNEXPECTED_ARGUMENT", "/c")]
    # Names that are awkward to read back from jsonschema's message: quotes, commas, parentheses, escapes.
    names = ["it's", 'say "hi"', "a, b", "x) were unexpected (", "é\n", "~/"]
    arguments = json.dumps({"a": 1, **dict.fromkeys(names, 0)})
    expected = sorted(("UNEXPECTED_ARGUMENT", "/" + name.replace("~", "~0").replace("/", "~1")) for name in names)
    assert found(v, arguments) == expected
    v = one({"unevaluatedProperties": {"type": "string"}})
    violations = v.validate("t", '{"a": 1, "b": "x", "c": [], "d": "y"}')
    assert [(x.code.value, x.path, x.data) for x in violations] == [
        ("CONSTRAINT_VIOLATION", "/a", {"keyword": "unevaluatedProperties"}),
        ("CONSTRAINT_VIOLATION", "/c", {"keyword": "unevaluatedProperties"}),
    ]


def test_unevaluated_properties_sees_through_all_of() -> None:
    v = one({"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False})
    assert found(v, '{"a": 1, "b": 2}') == [("UNEXPECTED_ARGUMENT", "/b")]


def test_type_mismatch_names_the_expected_types_in_schema_order() -> None:
    age = only(one(ADDRESS), '{"name": "x", "age": "3"}')
    assert (age.code, age.path, age.data) == (ViolationCode.TYPE_MISMATCH, "/age", {"expected": ["integer"]})
    assert age.message == "expected integer, got string"
    v = one({"properties": {"n": {"type": ["string", "null"]}}})
    n = only(v, '{"n": 1.5}')
    assert (n.data, n.message) == ({"expected": ["string", "null"]}, "expected string or null, got number")
    root = only(one({"type": ["null", "string"]}), "1")
    assert (root.path, root.data) == ("", {"expected": ["null", "string"]})


def test_an_integral_number_is_an_integer_in_both_drafts_and_nothing_is_coerced() -> None:
    for schema in ({"type": "integer"}, {"$schema": DRAFT7, "type": "integer"}):
        assert found(one(schema), "1.0") == []
        assert found(one(schema), "1e2") == []
        assert found(one(schema), "1.5") == [("TYPE_MISMATCH", "")]
        assert found(one(schema), '"3"') == [("TYPE_MISMATCH", "")]
        assert found(one(schema), "true") == [("TYPE_MISMATCH", "")]


def test_big_integers_are_exact() -> None:
    big = "123456789012345678901234567890"
    assert found(one({"maximum": 10}), big) == [("CONSTRAINT_VIOLATION", "")]
    assert found(one({"type": "integer"}), big) == []
    assert found(one({"const": 123456789012345678901234567890}), big) == []
    assert found(one({"const": 123456789012345678901234567890}), big[:-1] + "1") == [("ENUM_OUT_OF_RANGE", "")]
    assert found(one({"maximum": 9007199254740992}), "9007199254740993") == [("CONSTRAINT_VIOLATION", "")]
    assert found(one({"minimum": 18446744073709551616}), "18446744073709551615") == [("CONSTRAINT_VIOLATION", "")]
    # Beyond a float's range is still a number (infinity here).
    assert found(one({"type": "number", "minimum": 1e300}), "1e400") == []


def test_a_failed_union_reports_the_branch_the_value_singles_out() -> None:
    """The closest branch (``_error_search``'s rule) is reported in the union's place, at its own pointers."""
    v = one(
        {
            "properties": {
                "p": {"anyOf": [{"type": "object", "required": ["a", "b", "c"]}, {"type": "array", "minItems": 3}]}
            }
        }
    )
    assert found(v, '{"p": {}}') == [
        ("MISSING_REQUIRED_ARGUMENT", "/p/a"),
        ("MISSING_REQUIRED_ARGUMENT", "/p/b"),
        ("MISSING_REQUIRED_ARGUMENT", "/p/c"),
    ]
    v = one({"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 3}]})
    assert [(x.code.value, x.path, x.data) for x in v.validate("t", '"ab"')] == [
        ("CONSTRAINT_VIOLATION", "", {"keyword": "minLength", "limit": 3})
    ]
    # A type error deeper than the union's value, or about a member's name, belongs to the branch that accepts it.
    v = one({"anyOf": [{"properties": {"a": {"type": "string"}}}, {"type": "string"}]})
    assert found(v, '{"a": 1}') == [("TYPE_MISMATCH", "/a")]
    v = one({"anyOf": [{"propertyNames": {"type": "number"}}, {"type": "string"}]})
    assert found(v, '{"a": 1}') == [("CONSTRAINT_VIOLATION", "/a")]


def test_a_failed_union_no_branch_is_singled_out_by_is_one_violation() -> None:
    # Optional fields (pydantic's `anyOf: [T, null]`) failing on type alone are a type mismatch.
    v = one({"properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}})
    n = only(v, '{"n": "3"}')
    assert (n.code, n.path, n.data) == (ViolationCode.TYPE_MISMATCH, "/n", {"expected": ["integer", "null"]})
    assert n.message == "expected integer or null, got string"
    v = one({"oneOf": [{"type": ["integer", "string"]}, {"type": "string"}, {"type": "null"}]})
    union = only(v, "1.5")
    assert (union.code, union.data) == (ViolationCode.TYPE_MISMATCH, {"expected": ["integer", "string", "null"]})
    several = only(one({"oneOf": [{"type": "number"}, {"type": "integer"}]}), "1")
    assert (several.code, several.path, several.data) == (ViolationCode.CONSTRAINT_VIOLATION, "", {"keyword": "oneOf"})
    assert several.message == "oneOf: matches 2 of the 2 alternatives; exactly one is allowed"
    tie = only(one({"anyOf": [{"minimum": 5}, {"maximum": 1}]}), "3")
    assert (tie.code, tie.path, tie.data) == (ViolationCode.CONSTRAINT_VIOLATION, "", {"keyword": "anyOf"})
    assert tie.message == "anyOf: matches none of the 2 alternatives"


def test_enum_and_const_list_the_allowed_values() -> None:
    unit = only(one(ADDRESS), '{"name": "x", "unit": "kelvin"}')
    assert (unit.code, unit.path) == (ViolationCode.ENUM_OUT_OF_RANGE, "/unit")
    assert unit.data == {"allowed": ["celsius", "fahrenheit"]}
    assert unit.message == 'must be one of "celsius", "fahrenheit"'
    k = only(one({"properties": {"k": {"const": "on"}}}), '{"k": "off"}')
    assert (k.code, k.path, k.data) == (ViolationCode.ENUM_OUT_OF_RANGE, "/k", {"allowed": ["on"]})
    assert k.message == 'must be "on" (const)'
    assert only(one({"const": {"a": [1]}}), "{}").data == {"allowed": [{"a": [1]}]}
    assert found(one({"enum": [1, "1", None]}), "true") == [("ENUM_OUT_OF_RANGE", "")]


def test_property_names_points_at_the_member_so_named() -> None:
    v = one({"propertyNames": {"maxLength": 2}, "dependentRequired": {"a": ["b"]}})
    assert found(v, '{"abc": 1, "a": 2}') == [("CONSTRAINT_VIOLATION", "/abc"), ("CONSTRAINT_VIOLATION", "/b")]
    name = v.validate("t", '{"abc": 1}')[0]
    assert name.data == {"keyword": "propertyNames"}
    assert "maxLength" in name.message
    v = one({"properties": {"o": {"propertyNames": {"pattern": "^[a-z]+$", "enum": ["ab", "zz"]}}}})
    # One per problem of each name, as the core reports them.
    assert found(v, '{"o": {"ab": 1, "A/": 2, "cd": 3}}') == [
        ("CONSTRAINT_VIOLATION", "/o/A~1"),
        ("CONSTRAINT_VIOLATION", "/o/A~1"),
        ("CONSTRAINT_VIOLATION", "/o/cd"),
    ]
    # `propertyNames: false` fails the object itself, as the core's crate reports it.
    no_names = only(one({"propertyNames": False}), '{"a": 1}')
    assert (no_names.path, no_names.data) == ("", {"keyword": "false"})


@pytest.mark.parametrize(
    ("schema", "arguments", "keyword", "limit"),
    [
        ({"minimum": 5}, "4", "minimum", 5),
        ({"maximum": 5}, "6", "maximum", 5),
        ({"exclusiveMinimum": 5}, "5", "exclusiveMinimum", 5),
        ({"exclusiveMaximum": 5.5}, "5.5", "exclusiveMaximum", 5.5),
        ({"multipleOf": 0.5}, "0.7", "multipleOf", 0.5),
        ({"multipleOf": 3}, "7", "multipleOf", 3),
        ({"minLength": 2}, '"a"', "minLength", 2),
        ({"maxLength": 2}, '"abc"', "maxLength", 2),
        ({"pattern": "^a"}, '"b"', "pattern", "^a"),
        ({"minItems": 2}, "[1]", "minItems", 2),
        ({"maxItems": 1}, "[1, 2]", "maxItems", 1),
        ({"minProperties": 1}, "{}", "minProperties", 1),
        ({"maxProperties": 0}, '{"a": 1}', "maxProperties", 0),
        ({"contains": {"type": "string"}, "minContains": 2}, '["a"]', "minContains", 2),
        # The core's crate names `minContains` even when no item matches.
        ({"contains": {"type": "string"}, "minContains": 2}, "[1]", "minContains", 2),
        ({"contains": {"type": "string"}, "maxContains": 1}, '["a", "b"]', "maxContains", 1),
        # ... and `maxContains` when it is the only bound.
        ({"contains": {"type": "string"}, "maxContains": 1}, "[]", "maxContains", 1),
        # Counts are integers, as the core holds them.
        ({"minLength": 2.0}, '"a"', "minLength", 2),
        ({"maxItems": 1.0}, "[1, 2]", "maxItems", 1),
        ({"$schema": DRAFT7, "maximum": 5, "exclusiveMaximum": 5}, "5", "exclusiveMaximum", 5),
    ],
)
def test_bounds_name_the_keyword_and_the_limit(schema: Any, arguments: str, keyword: str, limit: Any) -> None:
    violation = only(one(schema), arguments)
    assert (violation.code, violation.path) == (ViolationCode.CONSTRAINT_VIOLATION, "")
    assert violation.data == {"keyword": keyword, "limit": limit}
    assert type(violation.data["limit"]) is type(limit)
    assert violation.message.startswith(f"{keyword}: ")


@pytest.mark.parametrize(
    ("schema", "arguments", "keyword"),
    [
        ({"uniqueItems": True}, "[1, 1.0]", "uniqueItems"),
        ({"uniqueItems": True}, '[{"a": [1]}, {"a": [1]}]', "uniqueItems"),
        ({"contains": {"type": "string"}}, "[1]", "contains"),
        ({"$schema": DRAFT7, "contains": {"type": "string"}, "minContains": 2}, "[1]", "contains"),
        ({"not": {"type": "string"}}, '"a"', "not"),
        (False, "1", "false"),
        ({"allOf": [False]}, "1", "false"),
        ({"$schema": DRAFT7, "items": [{}], "additionalItems": False}, "[1, 2]", "additionalItems"),
        ({"prefixItems": [{}], "unevaluatedItems": False}, "[1, 2]", "unevaluatedItems"),
        ({"unevaluatedItems": {"type": "string"}}, '["a", 1]', "unevaluatedItems"),
        ({"if": {"minimum": 0}, "then": False}, "3", "false"),
        ({"dependentSchemas": {"a": False}}, '{"a": 1}', "false"),
    ],
)
def test_other_keywords_name_the_keyword_alone(schema: Any, arguments: str, keyword: str) -> None:
    violation = only(one(schema), arguments)
    assert (violation.code, violation.path) == (ViolationCode.CONSTRAINT_VIOLATION, "")
    assert violation.data == {"keyword": keyword}


def test_all_of_and_if_then_report_the_inner_problem() -> None:
    assert only(one({"allOf": [{"minimum": 5}]}), "3").data == {"keyword": "minimum", "limit": 5}
    then = only(one({"if": {"minimum": 0}, "then": {"multipleOf": 2}}), "3")
    assert then.data == {"keyword": "multipleOf", "limit": 2}


def test_false_schemas_fail_where_they_apply() -> None:
    """jsonschema drops the member or index a false subschema was applied to; the validator puts it back."""
    assert found(one({"prefixItems": [{}], "items": False}), "[1, 2, 3]") == [
        ("CONSTRAINT_VIOLATION", "/1"),
        ("CONSTRAINT_VIOLATION", "/2"),
    ]
    assert only(one({"prefixItems": [{}], "items": False}), "[1, 2]").data == {"keyword": "false"}
    assert found(one({"properties": {"a": True, "b": False}}), '{"a": 1, "b": 1}') == [("CONSTRAINT_VIOLATION", "/b")]
    assert found(one({"patternProperties": {"^x": False}}), '{"xa": 1, "y": 1}') == [("CONSTRAINT_VIOLATION", "/xa")]
    assert found(one({"prefixItems": [True, False]}), "[1, 2]") == [("CONSTRAINT_VIOLATION", "/1")]
    assert found(one({"$schema": DRAFT7, "items": False}), "[1, 2]") == [
        ("CONSTRAINT_VIOLATION", "/0"),
        ("CONSTRAINT_VIOLATION", "/1"),
    ]
    assert found(one({"$schema": DRAFT7, "items": [True, False]}), "[1, 2]") == [("CONSTRAINT_VIOLATION", "/1")]
    assert found(one({"$defs": {"no": False}, "properties": {"a": {"$ref": "#/$defs/no"}}}), '{"a": 1}') == [
        ("CONSTRAINT_VIOLATION", "/a")
    ]


def test_every_problem_is_reported_in_path_order() -> None:
    arguments = '{"age": -1, "unit": 1, "zzz": 0, "address": {"zip": "1"}}'
    assert found(one(ADDRESS), arguments) == [
        ("MISSING_REQUIRED_ARGUMENT", "/address/street"),
        ("CONSTRAINT_VIOLATION", "/address/zip"),
        ("CONSTRAINT_VIOLATION", "/age"),
        ("MISSING_REQUIRED_ARGUMENT", "/name"),
        ("ENUM_OUT_OF_RANGE", "/unit"),
        ("UNEXPECTED_ARGUMENT", "/zzz"),
    ]
    # Same path: by code, then by message.
    s = one({"type": "string", "minLength": 5, "pattern": "^a", "enum": ["abcdef"]})
    assert [(x.code.value, x.data) for x in s.validate("t", '"b"')] == [
        ("CONSTRAINT_VIOLATION", {"keyword": "minLength", "limit": 5}),
        ("CONSTRAINT_VIOLATION", {"keyword": "pattern", "limit": "^a"}),
        ("ENUM_OUT_OF_RANGE", {"allowed": ["abcdef"]}),
    ]


def test_a_subschema_reached_twice_reports_once() -> None:
    v = one({"$defs": {"p": {"minimum": 3}}, "allOf": [{"$ref": "#/$defs/p"}, {"$ref": "#/$defs/p"}]})
    assert found(v, "1") == [("CONSTRAINT_VIOLATION", "")]
    v = one({"allOf": [{"required": ["a"]}, {"required": ["a", "b"]}]})
    assert found(v, "{}") == [("MISSING_REQUIRED_ARGUMENT", "/a"), ("MISSING_REQUIRED_ARGUMENT", "/b")]


def test_references_inside_the_schema_are_followed() -> None:
    v = one(
        {
            "$defs": {"p": {"type": "string", "minLength": 3}},
            "properties": {"a": {"$ref": "#/$defs/p"}, "b": {"items": {"$ref": "#/$defs/p"}}},
        }
    )
    assert found(v, '{"a": "x", "b": ["long enough", 4]}') == [
        ("CONSTRAINT_VIOLATION", "/a"),
        ("TYPE_MISMATCH", "/b/1"),
    ]
    # The bundled meta-schemas are no remote resource.
    meta = one({"properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}})
    assert found(meta, '{"s": {"type": "object"}}') == []
    assert found(meta, '{"s": {"minLength": -1}}') != []


def test_format_and_content_are_annotations_in_every_draft() -> None:
    for dialect in DRAFTS.values():
        schema = {
            "$schema": dialect,
            "properties": {
                "e": {"format": "email"},
                "d": {"format": "date-time"},
                "c": {"contentEncoding": "base64", "contentMediaType": "application/json"},
            },
        }
        assert found(one(schema), '{"e": "not an email", "d": "yesterday", "c": "{"}') == []


def test_duplicate_keys_keep_the_last_value() -> None:
    v = one({"properties": {"a": {"type": "integer"}}})
    assert found(v, '{"a": "x", "a": 1}') == []
    assert found(v, '{"a": 1, "a": "x"}') == [("TYPE_MISMATCH", "/a")]


def test_arguments_need_not_be_an_object() -> None:
    assert found(one(True), "[1, 2]") == []
    assert found(one({"type": "object"}), "[1]") == [("TYPE_MISMATCH", "")]


def test_unknown_tool_lists_the_declared_names_and_the_closest() -> None:
    v = Validators([("get_weather", {}), ("search_web", {}), ("send_mail", {})])
    assert v.names == ("get_weather", "search_web", "send_mail")
    unknown = v.validate("get_wether", "{}")
    assert len(unknown) == 1
    violation = unknown[0]
    assert (violation.code, violation.path, violation.recoverable) == (ViolationCode.UNKNOWN_TOOL, None, True)
    assert violation.message == (
        'unknown tool "get_wether"; declared: "get_weather", "search_web", "send_mail"; closest: "get_weather"'
    )
    assert violation.data == {"available": ["get_weather", "search_web", "send_mail"], "closest": "get_weather"}
    assert v.unknown_tool("get_wether") == violation
    assert v.unknown_tool("send_mail") is None
    # Only the start of a very long name is compared, and the message stays short.
    long = v.validate("x" * 100_000, "{}")[0]
    assert len(long.message) < 1000
    assert long.message.endswith('closest: "get_weather"')
    # Equal distances resolve in declaration order; the text is not even looked at.
    tie = Validators([("ab", {}), ("ba", {})]).validate("bb", "not json")[0]
    assert tie.data == {"available": ["ab", "ba"], "closest": "ab"}


def test_unknown_tool_lists_twenty_names_then_counts() -> None:
    v = Validators([(f"tool_{n:02}", {}) for n in range(25)])
    violation = v.validate("tool_7", "{}")[0]
    assert '"tool_19" and 5 more; closest: "tool_07"' in violation.message
    assert '"tool_20"' not in violation.message
    assert violation.data["available"] == [f"tool_{n:02}" for n in range(25)]


def test_unknown_tool_with_no_tools_declared() -> None:
    violation = Validators([]).validate("x", "{}")[0]
    assert violation.message == 'unknown tool "x"; no tools are declared'
    assert violation.data == {"available": [], "closest": None}
    assert Validators([]).names == ()


def test_server_tools_are_declared_and_never_validated() -> None:
    v = Validators([("t", {"type": "object"})], server_names=["web_search", "t"])
    assert v.unknown_tool("web_search") is None
    assert v.validate("web_search", "not even json") == []
    assert v.names == ("t",)
    # A function tool of the same name is validated.
    assert found(v, "[1]") == [("TYPE_MISMATCH", "")]
    unknown = v.unknown_tool("web")
    assert unknown is not None
    assert unknown.data == {"available": ["t"], "closest": "t"}


def test_nesting_is_bounded_like_the_scanner() -> None:
    def nested(depth: int) -> str:
        return "[" * depth + "]" * depth

    assert one(True).validate("t", nested(128)) == []
    too_deep = one(True).validate("t", nested(129))
    assert [(x.code, x.path, x.data) for x in too_deep] == [(ViolationCode.TOO_DEEP, None, None)]
    assert one(True, max_depth=200).validate("t", nested(200)) == []
    assert found(one(True, max_depth=3), '{"a": [{}]}') == []
    assert found(one(True, max_depth=3), '{"a": [{"b": []}]}') == [("TOO_DEEP", None)]
    # Brackets inside strings do not count, escaped quotes included.
    quoted = json.dumps(["[" * 200 + '"' + "{" * 200])
    assert one(True).validate("t", quoted) == []
    # Unbalanced or invalid text is bounded too, before it is parsed.
    assert found(one(True), "[" * 100_000) == [("TOO_DEEP", None)]
    assert found(one(True), "[x" + "[" * 200) == [("TOO_DEEP", None)]


def test_a_recursive_schema_validates_arguments_as_deep_as_allowed() -> None:
    recursive = {
        "$defs": {
            "node": {"$ref": "#/$defs/step"},
            "step": {"allOf": [{"oneOf": [{"type": "array", "items": {"$ref": "#/$defs/node"}}, {"type": "integer"}]}]},
        },
        "$ref": "#/$defs/node",
    }
    limit = sys.getrecursionlimit()
    v = one(recursive, max_depth=200)
    assert v.validate("t", "[" * 200 + "]" * 200) == []
    # Each `oneOf` follows its array branch down to the string no branch takes.
    assert found(v, "[" * 199 + '"x"' + "]" * 199) == [("TYPE_MISMATCH", "/0" * 199)]
    v = one({"type": "array", "items": {"$ref": "#"}}, max_depth=200)
    assert found(v, "[" * 199 + '"x"' + "]" * 199) == [("TYPE_MISMATCH", "/0" * 199)]
    assert sys.getrecursionlimit() == limit


def test_a_schema_that_refers_to_itself_without_end_is_a_violation_not_a_crash() -> None:
    for schema in ({"$ref": "#"}, {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}):
        violation = only(one(schema), "1")
        assert (violation.code, violation.path, violation.data) == (
            ViolationCode.CONSTRAINT_VIOLATION,
            "",
            {"keyword": "$ref"},
        )


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"   ",
        b"{",
        b"{} x",
        b"{}{}",
        b"[1,]",
        b"nul",
        b"NaN",
        b"[Infinity]",
        b"-Infinity",
        b"01",
        b"\xff",
        b'{"a": "\xc3"}',
        b'{"a": "\xed\xa0\x80"}',
        b'{"a": "\\ud800"}',
        b'"\\udc00x"',
        b"\xef\xbb\xbf{}",
        b"{'a': 1}",
        b'{"a": 1,}',
        b'{"a"\x00: 1}',
    ],
)
def test_text_that_is_not_strict_json_is_invalid_json(text: bytes) -> None:
    violations = one(True).validate("t", text)
    assert [(x.code, x.path, x.data) for x in violations] == [(ViolationCode.INVALID_JSON, None, None)]


def test_a_str_with_a_lone_surrogate_is_invalid_json() -> None:
    assert found(one(True), '{"a": "\ud800"}') == [("INVALID_JSON", None)]
    assert found(one(True), '{"a": "\\ud83d\\ude00"}') == []


def test_an_integer_python_refuses_to_convert_is_invalid_json() -> None:
    assert found(one(True), "1" * 5000) == [("INVALID_JSON", None)]


def test_documented_divergences_from_the_core() -> None:
    """Where jsonschema and Python decide differently from the core (the module docstring lists them)."""
    # 0.3 / 0.1 is not an integer in binary floating point; the core, exact, accepts 0.3.
    assert found(one({"multipleOf": 0.1}), "0.3") == [("CONSTRAINT_VIOLATION", "")]
    # The branches of a `oneOf` matching twice still count as evaluating `a` and `b`; the core also reports
    # UNEXPECTED_ARGUMENT at /a and /b.
    v = one({"oneOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False})
    assert found(v, '{"a": 1, "b": 2}') == [("CONSTRAINT_VIOLATION", "")]
    # RE2 bounds counted repetition at 1000 and knows Unicode properties by their short names only.
    for pattern in ("^a{1001}$", "\\p{Letter}"):
        with pytest.raises(SchemaError, match="not a regular expression that runs in linear time"):
            one({"pattern": pattern})
    assert found(one({"pattern": "^\\p{L}$"}), '"\u00e9"') == []


def test_whitespace_around_the_value_is_allowed() -> None:
    assert found(one({"type": "object"}), ' \t\r\n{"a": 1}\n ') == []


@given(st.binary(max_size=80))
def test_arbitrary_bytes_give_violations_never_exceptions(data: bytes) -> None:
    violations = one(ADDRESS).validate("t", data)
    assert all(isinstance(violation, Violation) for violation in violations)


@given(st.text(alphabet='[]{}",:0123456789abenrtuls\\ .eE+-', max_size=60))
def test_jsonish_text_gives_violations_never_exceptions(text: str) -> None:
    assert isinstance(one(ADDRESS).validate("t", text), list)


# ----------------------------------------------------------------------------------------------- schema errors


def schema_error(schema: Any) -> SchemaError:
    with pytest.raises(SchemaError) as raised:
        Validators([("ok", {}), ("bad", schema)])
    assert raised.value.tool == "bad"
    return raised.value


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"properties": {"a": {"type": "dict"}}}, "/properties/a/type"),
        ({"properties": {"a": {"pattern": "(("}}}, "/properties/a/pattern"),
        ({"items": {"minLength": -1}}, "/items/minLength"),
        ({"required": "a"}, "/required"),
        ({"$schema": DRAFT7, "definitions": {"x": {"enum": 3}}}, "/definitions/x/enum"),
        ([], ""),
        ("{}", ""),
        (3, ""),
    ],
)
def test_an_invalid_schema_names_the_pointer(schema: Any, pointer: str) -> None:
    error = schema_error(schema)
    assert error.pointer == pointer
    assert str(error).startswith("the parameters schema of tool 'bad' is invalid at ")


def test_a_reference_that_cannot_be_resolved_offline_names_the_pointer_of_the_ref() -> None:
    remote = schema_error({"properties": {"a": {"$ref": "https://example.com/a.json"}}})
    assert remote.pointer == "/properties/a/$ref"
    assert "never fetched" in remote.problem
    assert schema_error({"prefixItems": [{"$ref": "#/$defs/missing"}]}).pointer == "/prefixItems/0/$ref"
    assert schema_error({"$defs": {"a": {"$ref": "#nowhere"}}, "$ref": "#/$defs/a"}).pointer == "/$defs/a/$ref"
    assert schema_error({"$id": "https://example.com/root", "items": {"$ref": "other.json"}}).pointer == "/items/$ref"
    assert (
        schema_error({"properties": {"a~/b": {"$dynamicRef": "#/$defs/x"}}}).pointer == "/properties/a~0~1b/$dynamicRef"
    )
    draft7 = schema_error({"$schema": DRAFT7, "definitions": {"a": {"$ref": "#/definitions/b"}}})
    assert draft7.pointer == "/definitions/a/$ref"
    # Resolved against the `$id` of the resource it sits in.
    embedded = {"$defs": {"e": {"$id": "https://example.com/e.json", "$defs": {"x": {}}, "$ref": "#/$defs/x"}}}
    assert one(embedded).names == ("t",)
    assert one({"$id": "https://example.com/r.json", "$ref": "r.json#/$defs/x", "$defs": {"x": {}}}).names == ("t",)


def test_a_name_declared_twice_is_a_schema_error() -> None:
    with pytest.raises(SchemaError) as raised:
        Validators([("a", {}), ("a", True)])
    assert (raised.value.tool, raised.value.pointer, raised.value.problem) == (
        "a",
        "",
        "the tool is declared more than once",
    )


@pytest.mark.parametrize(
    "dialect",
    ["https://example.com/custom", "http://json-schema.org/draft-03/schema#", "", 7, None],
)
def test_an_unknown_schema_dialect_is_a_schema_error(dialect: Any) -> None:
    error = schema_error({"$schema": dialect})
    assert error.pointer == "/$schema"


@pytest.mark.parametrize(
    "dialect",
    [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft/2020-12/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-04/schema#",
    ],
)
def test_the_core_s_dialects_are_known(dialect: str) -> None:
    assert found(one({"$schema": dialect, "type": "integer"}), '"x"') == [("TYPE_MISMATCH", "")]


def test_a_schema_that_is_not_json_is_a_schema_error() -> None:
    assert schema_error({"minimum": float("nan")}).problem.startswith("not JSON")
    assert schema_error({"enum": {1, 2}}).problem.startswith("not JSON")


def test_the_schema_is_copied() -> None:
    schema: dict[str, Any] = {"properties": {"a": {"type": "integer"}}}
    v = one(schema)
    schema["properties"]["a"]["type"] = "string"
    assert found(v, '{"a": 1}') == []


def test_the_module_docstring_example_runs() -> None:
    assert doctest.testmod(_validator).failed == 0
