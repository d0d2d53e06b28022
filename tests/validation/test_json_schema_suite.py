"""The official JSON Schema Test Suite through the public ``validate``, in the core and in the reference.

Drafts 2020-12 and 7, required tests (``../shared/corpora/json-schema-test-suite``). A tool's arguments are an
object, while a suite case validates any value against any schema, so each case becomes a tool whose arguments
``{"value": <data>}`` must hold a ``value`` valid against the case's schema. The case's schema is embedded as a
resource of its own (an ``$id`` under ``$defs``), so its ``#`` references, anchors and relative ``$id``s resolve
exactly as they would at the root. The verdict (no error-severity violation) must equal the suite's ``valid``.

Skipped: cases whose schema cannot compile without the suite's remote documents (``refRemote`` and the others
that reference ``http://localhost:1234``), which toolwire never fetches: they must raise ``SchemaError``.
Expected failures, each with its reason, are listed in ``KNOWN_FAILURES``.

The findings of the core and the reference, (code, severity, path, data) sorted, agree on every case too (unions
included: both report the branch the value singles out), save those listed in ``FINDINGS_DIFFER``.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any
from urllib.parse import urljoin

import pytest

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from tests.support.paths import CORPORA
from toolwire import SchemaError, Severity, ToolRegistry

SUITE = CORPORA / "json-schema-test-suite"
DRAFTS = {
    "draft2020-12": ("https://json-schema.org/draft/2020-12/schema", "$defs"),
    "draft7": ("http://json-schema.org/draft-07/schema#", "definitions"),
}
CASE_BASE = "https://toolwire.invalid/case.json"
REMOTE = "needs http://localhost:1234 (the suite's remote documents); toolwire never fetches"
UNICODE_PROPERTIES = (
    "RE2, the reference's pattern engine, knows Unicode properties by their short names (\\p{L}), not \\p{Letter} "
    "(a regex dialect difference the issue allows)"
)

#: Cases expected to fail, as (implementation or "*", draft, file, case description) -> reason. They run as strict
#: xfails: a listed case that starts passing fails, so the list cannot go stale.
KNOWN_FAILURES = {
    ("*", "draft2020-12", "vocabulary", "schema that uses custom metaschema with with no validation vocabulary"): (
        "its $schema is a metaschema at http://localhost:1234 that turns validation off; never fetched, so the "
        "case is validated as plain 2020-12"
    ),
    ("reference", "draft2020-12", "pattern", "pattern with Unicode property escape requires unicode mode"): (
        UNICODE_PROPERTIES
    ),
    ("reference", "draft2020-12", "patternProperties", "patternProperties with Unicode property escape"): (
        UNICODE_PROPERTIES
    ),
}


#: Cases whose findings differ between the core and the reference (the verdicts agree), as (draft, file, case) ->
#: reason. They run as strict xfails.
FINDINGS_DIFFER = {
    ("draft2020-12", "unevaluatedProperties", "unevaluatedProperties schema"): (
        "the core reads an `unevaluatedProperties` schema's value from the root, and inside the case's embedded "
        "resource finds none: it reports UNEXPECTED_ARGUMENT where the reference reports the schema's "
        "CONSTRAINT_VIOLATION"
    ),
    ("draft2020-12", "unevaluatedProperties", "unevaluatedProperties not affected by propertyNames"): (
        "the same reading of `unevaluatedProperties` inside an embedded resource"
    ),
    ("draft2020-12", "unevaluatedProperties", "dynamic evalation inside nested refs"): (
        "a `oneOf` matching twice: jsonschema counts its branches' members as evaluated, the core does not (the "
        "reference's documented divergence)"
    ),
}


def wrapped(schema: Any, draft: str) -> dict[str, Any]:
    """A tool schema whose ``value`` argument must satisfy ``schema``, embedded as its own resource."""
    dialect, definitions = DRAFTS[draft]
    wrapper: dict[str, Any] = {"$schema": dialect, "type": "object", "required": ["value"]}
    if isinstance(schema, bool):
        wrapper["properties"] = {"value": schema}
        return wrapper
    embedded = dict(schema)
    if draft == "draft7" and not str(embedded.get("$ref", "#")).startswith("#"):
        # Draft 7 ignores every keyword beside a `$ref`, `$id` included: give the reference a parent to sit in.
        embedded = {"allOf": [embedded]}
    embedded.setdefault("$schema", dialect)
    identifier = urljoin(CASE_BASE, embedded.get("$id", CASE_BASE))
    embedded["$id"] = identifier
    wrapper["properties"] = {"value": {"$ref": identifier}}
    wrapper[definitions] = {"case": embedded}
    return wrapper


def cases() -> list[Any]:
    params = []
    for key, implementation in IMPLEMENTATIONS.items():
        for draft in DRAFTS:
            folder = SUITE / draft
            if not folder.is_dir():
                continue
            for path in sorted(folder.glob("*.json")):
                for group in json.loads(path.read_text(encoding="utf-8")):
                    description = group["description"]
                    reason = KNOWN_FAILURES.get((key, draft, path.stem, description)) or KNOWN_FAILURES.get(
                        ("*", draft, path.stem, description)
                    )
                    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                    params.append(
                        pytest.param(
                            implementation,
                            draft,
                            group,
                            id=f"{key}/{draft}/{path.stem}/{description}",
                            marks=marks,
                        )
                    )
    return params


CASES = cases()
pytestmark = pytest.mark.skipif(not CASES, reason=f"{SUITE} is absent (the corpora live in ../shared)")


@pytest.mark.parametrize(("implementation", "draft", "group"), CASES)
def test_suite_case(implementation: ModuleType, draft: str, group: dict[str, Any]) -> None:
    try:
        registry = ToolRegistry({"case": wrapped(group["schema"], draft)})
        implementation.validate("case", '{"value": null}', registry)
    except SchemaError:
        if "localhost:1234" not in json.dumps(group["schema"]):
            raise
        pytest.skip(REMOTE)
    wrong = []
    for test in group["tests"]:
        arguments = json.dumps({"value": test["data"]})
        errors = [v for v in implementation.validate("case", arguments, registry) if v.severity is Severity.ERROR]
        if (not errors) != test["valid"]:
            wrong.append((test["description"], test["valid"], [(v.code.value, v.path) for v in errors]))
    assert wrong == []


def findings(violations: Any) -> list[tuple[str, str, str | None, Any]]:
    return [(v.code.value, v.severity.value, v.path, v.data) for v in violations]


def groups() -> list[Any]:
    params = []
    for draft in DRAFTS:
        folder = SUITE / draft
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            for group in json.loads(path.read_text(encoding="utf-8")):
                reason = FINDINGS_DIFFER.get((draft, path.stem, group["description"]))
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                params.append(pytest.param(draft, group, id=f"{draft}/{path.stem}/{group['description']}", marks=marks))
    return params


@pytest.mark.parametrize(("draft", "group"), groups())
def test_suite_case_findings_agree(draft: str, group: dict[str, Any]) -> None:
    try:
        registry = ToolRegistry({"case": wrapped(group["schema"], draft)})
        toolwire.reference.validate("case", '{"value": null}', registry)
    except SchemaError:
        pytest.skip("the schema does not compile in one implementation (see test_suite_case)")
    wrong = []
    for test in group["tests"]:
        arguments = json.dumps({"value": test["data"]})
        core = findings(toolwire.validate("case", arguments, registry))
        reference = findings(toolwire.reference.validate("case", arguments, registry))
        if core != reference:
            wrong.append((test["description"], core, reference))
    assert wrong == []
