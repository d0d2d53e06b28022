"""docs/contract.md lists exactly the checks, severities and quirks the code has (no table drifts from the code)."""

from __future__ import annotations

import re

import pytest

from tests.contract.test_probe import EXPECTED
from tests.support.paths import REPO
from toolwire.contract import _anthropic, _chat, _responses
from toolwire.server import QUIRKS

DOC = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")


def table_after(heading: str) -> list[list[str]]:
    lines = DOC[DOC.index(heading) :].splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("|"))
    end = next((n for n, line in enumerate(lines[start:]) if not line.startswith("|")), len(lines) - start)
    rows = re.findall(r"^\| (`.*?) \|$", "\n".join(lines[start : start + end]), re.M)
    return [[cell.strip() for cell in row.split(" | ")] for row in rows]


@pytest.mark.parametrize(
    ("heading", "module"),
    [("### OpenAI Chat", _chat), ("### Anthropic Messages", _anthropic), ("### OpenAI Responses", _responses)],
)
def test_the_check_tables_are_the_codes(heading: str, module: object) -> None:
    documented = [(row[0].strip("`"), row[2], row[3] == "yes") for row in table_after(heading)]
    specs = module.SPECS  # type: ignore[attr-defined]
    assert documented == [(spec.id, spec.severity, spec.streamed_only) for spec in specs]


def test_the_quirk_table_is_the_endpoints_and_the_probe_tests() -> None:
    rows = table_after("| quirk | what the endpoint does | probe fails |")
    assert [row[0].strip("`") for row in rows] == list(QUIRKS)
    for row in rows:
        quirk = row[0].strip("`")
        errors, warnings = EXPECTED[quirk]
        cell = row[2]
        assert set(re.findall(r"`(\w+)`(?! \(warning\))", cell)) == errors, quirk
        assert set(re.findall(r"`(\w+)` \(warning\)", cell)) == warnings, quirk


def test_the_limits_table_is_the_endpoints_limits_and_flags() -> None:
    from dataclasses import fields

    from toolwire.cli import build_parser
    from toolwire.server import EndpointLimits

    parser = build_parser(["serve"])
    serve = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    flags = {option for action in serve._actions for option in action.option_strings}
    rows = table_after("| limit | default | flag | past it |")
    defaults = EndpointLimits()
    assert [row[0].strip("`") for row in rows] == [field.name for field in fields(EndpointLimits)]
    for row in rows:
        name = row[0].strip("`")
        assert float(row[1].split()[0]) == getattr(defaults, name), name
        assert row[2].strip("`") in flags and row[2].strip("`") == f"--{name.replace('_', '-')}"


def test_the_unreachable_statuses_and_the_line_shown_are_the_probes(capsys: pytest.CaptureFixture[str]) -> None:
    from toolwire.cli import main
    from toolwire.contract import UNREACHABLE_STATUSES
    from toolwire.server import LocalEndpoint

    section = DOC.split("| answer | means |", 1)[1].split("\n\n", 1)[0]
    documented = {int(code) for row in re.findall(r"^\| ([\d, ]+) \|", section, re.M) for code in row.split(", ")}
    assert documented == UNREACHABLE_STATUSES
    shown = DOC.split("### An endpoint that cannot be reached", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    with LocalEndpoint() as endpoint:
        base = endpoint.url.removesuffix("/v1")
        assert main(["probe", "--base-url", base, "--model", "clean"]) == 2
    printed = capsys.readouterr().err
    assert printed.replace(base, "http://127.0.0.1:8000") == shown
