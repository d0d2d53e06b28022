"""The schema commands over the 7,270 real tool definitions of ``../shared/corpora/tool-schemas``.

BFCL's file as published uses types that are not JSON Schema (``dict``, ``float``, ``tuple``, Java's ``String``...):
``check`` must report each one as ``schema-invalid`` at its pointer, with the fix; the converted file must compile and
pass the meta-schema. The whole run takes about two seconds (measured, not asserted: timing claims live in
benchmarks).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import corpus
from toolwire.schema import FindingReport, ToolSource, load_tools
from toolwire.schema._rule_ids import rule_ids
from toolwire.schema.check._check import check_tools

JSON_TYPES = {"null", "boolean", "object", "array", "number", "integer", "string"}


@pytest.fixture(scope="module")
def folder() -> Path:
    return corpus("tool-schemas")


@pytest.fixture(scope="module")
def sources(folder: Path) -> list[ToolSource]:
    return load_tools([folder])


@pytest.fixture(scope="module")
def report(sources: list[ToolSource]) -> FindingReport:
    return check_tools(sources)


def file_of(origin: str | None) -> str:
    return Path((origin or "").rsplit(":", 1)[0]).name


def nonstandard_types(schema: Any, pointer: str = "") -> list[tuple[str, str]]:
    """``(pointer, type)`` of every ``type`` that is no JSON Schema type, walked independently of the checker."""
    found: list[tuple[str, str]] = []
    if not isinstance(schema, dict):
        return found
    declared = schema.get("type")
    if isinstance(declared, str) and declared not in JSON_TYPES:
        found.append((f"{pointer}/type", declared))
    for keyword in ("properties", "patternProperties", "$defs", "definitions"):
        for name, item in (schema.get(keyword) or {}).items():
            found += nonstandard_types(item, f"{pointer}/{keyword}/{name.replace('~', '~0').replace('/', '~1')}")
    for keyword in ("items", "additionalProperties", "not", "contains"):
        found += nonstandard_types(schema.get(keyword), f"{pointer}/{keyword}")
    for keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for position, item in enumerate(schema.get(keyword) or []):
            found += nonstandard_types(item, f"{pointer}/{keyword}/{position}")
    return found


def test_every_definition_is_checked(sources: list[ToolSource], report: FindingReport) -> None:
    assert len(sources) == 7270
    files = Counter(file_of(source.origin) for source in sources)
    assert files["bfcl_v4.jsonl"] == 3526 and files["bfcl_v4_jsonschema.jsonl"] == 3519
    assert report.command == "check" and report.findings


def test_bfcl_as_published_reports_each_nonstandard_type_at_its_pointer(folder: Path, report: FindingReport) -> None:
    lines = (folder / "bfcl_v4.jsonl").read_text(encoding="utf-8").splitlines()
    expected = {
        (number, pointer)
        for number, line in enumerate(lines, start=1)
        for pointer, _ in nonstandard_types(json.loads(line)["parameters"])
    }
    bfcl = [f for f in report.findings if file_of(f.origin) == "bfcl_v4.jsonl"]
    invalid = {(int((f.origin or "").rsplit(":", 1)[1]), f.pointer) for f in bfcl if f.rule == "schema-invalid"}
    assert invalid == expected and len(expected) == 5158
    # Every definition of the file is refused as written, and says where.
    assert {f.origin for f in bfcl if f.rule == "tool-not-loadable"} == {f.origin for f in bfcl}
    assert len({origin for origin, _ in invalid}) == len(lines) == 3526


def test_concrete_bfcl_findings(report: FindingReport) -> None:
    by_place = {(f.tool, f.pointer): f.message for f in report.findings if f.rule == "schema-invalid"}
    assert by_place[("determine_body_mass_index", "/type")].startswith(
        "type 'dict' is not a JSON Schema type: write 'object'"
    )
    for place, fix in {
        (
            "determine_body_mass_index",
            "/properties/weight/type",
        ): "type 'float' is not a JSON Schema type: write 'number'",
        ("requests.get", "/properties/auth/type"): "type 'tuple' is not a JSON Schema type: write 'array'",
        ("default.add_default_value", "/properties/default_value/type"): "type 'any' is not a JSON Schema type",
        ("FireBirdUtils.getViewSourceWithHeader", "/properties/source/type"): "write 'string'",
        ("PmsProductServiceImpl.updateNewStatus", "/properties/ids/items/type"): "type 'long' is not a JSON Schema",
        ("SQLCompletionAnalyzer.makeProposalsFromObject", "/properties/params/type"): "'HashMap'",
    }.items():
        assert fix in by_place[place], place
    assert "(draft 2020-12 meta-schema" in by_place[("createAuthToken", "/properties/options/properties/issuer/type")]


def test_the_converted_and_recorded_schemas_pass_the_meta_schema(report: FindingReport) -> None:
    others = [f for f in report.findings if file_of(f.origin) != "bfcl_v4.jsonl"]
    assert others
    assert not [f for f in others if f.rule in ("schema-invalid", "tool-not-loadable", "root-not-object")]


def test_the_rules_that_fire_on_real_schemas(report: FindingReport) -> None:
    rules = Counter(f.rule for f in report.findings)
    # Names such as BFCL's "math.sum" are not portable; the converted file repeats BFCL's names.
    assert rules["name-not-portable"] > 2000 and rules["duplicate-name"] >= 3519
    assert rules["ambiguous-tools"] > 0 and rules["property-description-missing"] > 0
    ambiguous = next(f for f in report.findings if f.rule == "ambiguous-tools")
    assert set(ambiguous.data) >= {"other", "score", "threshold", "shared"}
    # Each is a rule the project's configuration may name (an id it refuses would be a finding nobody can silence).
    assert set(rules) <= rule_ids()
