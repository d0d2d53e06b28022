"""``diff_tools`` and ``toolwire diff``: sources (files, directories, git), the report, handlers, policy, the CLI.

The rubric's rows are in ``test_rubric.py``, the normaliser in ``test_normalize.py``, the
evidence in ``test_evidence.py``.
"""

from __future__ import annotations

import datetime
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal
from xml.etree import ElementTree

import pytest

import toolwire
from toolwire.cli import main
from toolwire.schema import render
from toolwire.schema._sources import load_tools
from toolwire.schema.diff._diff import CHANGE_KINDS, Change, DiffReport, diff_tools
from toolwire.schema.diff._policy import load_policy_file, parse_policy
from toolwire.schema.diff._sources import read_git

TODAY = datetime.date(2026, 1, 15)

OLD = [
    {
        "name": "create_ticket",
        "description": "Create a support ticket in the helpdesk.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "maxLength": 100},
                "priority": {"type": "string", "enum": ["low", "high", "urgent"]},
                "amount": {"type": "number"},
            },
            "required": ["title"],
            "additionalProperties": False,
        },
    },
    {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
]


def new_version() -> list[dict[str, Any]]:
    new = json.loads(json.dumps(OLD))
    ticket = new[0]["parameters"]
    ticket["properties"]["priority"]["enum"] = ["low", "high"]  # enum-value-removed
    ticket["properties"]["team"] = {"type": "string"}  # param-required-added
    ticket["required"] = ["title", "team"]
    ticket["properties"]["amount"]["maximum"] = 500  # bound-added
    new[1]["name"] = "fetch_weather"  # tool-renamed
    return new


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(item) + "\n" for item in data), encoding="utf-8")
    else:
        path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def kinds(report: DiffReport) -> list[tuple[str, str, str]]:
    return sorted((change.tool, change.path, change.kind) for change in report.changes)


EXPECTED = [
    ("create_ticket", "/properties/amount", "bound-added"),
    ("create_ticket", "/properties/priority", "enum-value-removed"),
    ("create_ticket", "/properties/team", "param-required-added"),
    ("fetch_weather", "", "tool-renamed"),
]


# -- sources -------------------------------------------------------------------------------------------------------


def test_every_form_of_a_side_gives_the_same_diff(tmp_path: Path) -> None:
    old_file, new_file = write(tmp_path / "old.json", OLD), write(tmp_path / "new.json", new_version())
    folder = tmp_path / "new"
    for number, definition in enumerate(new_version()):
        write(folder / f"{number}.json", [definition])
    forms = [
        (old_file, new_file),
        (str(old_file), folder),
        (OLD, toolwire.ToolRegistry(new_version())),
        (load_tools([old_file]), [new_file]),
    ]
    for old, new in forms:
        assert kinds(diff_tools(old, new, today=TODAY)) == EXPECTED, (old, new)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "diff@example.com")
    git(repo, "config", "user.name", "diff")
    write(repo / "tools.json", OLD)
    write(repo / "tools" / "a.json", OLD[:1])
    write(repo / "tools" / "sub" / "b.jsonl", OLD[1:])
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "old")
    write(repo / "tools.json", new_version())
    git(repo, "commit", "-qam", "new")
    return repo


def test_git_sources_read_a_file_or_a_directory_at_a_revision(repo: Path) -> None:
    report = diff_tools("git:HEAD~1:tools.json", "git:HEAD:tools.json", cwd=repo, today=TODAY)
    assert kinds(report) == EXPECTED
    assert report.old == "git:HEAD~1:tools.json"
    # Each origin names the line its definition opens on (json.dumps with indent=1 opens each item with " {").
    opening = [number for number, line in enumerate((repo / "tools.json").read_text().splitlines(), 1) if line == " {"]
    assert {change.origin for change in report.changes} == {
        f"git:HEAD:tools.json:{opening[0]}#0",
        f"git:HEAD:tools.json:{opening[1]}#1",
    }
    sources = read_git("git:HEAD:tools/", cwd=repo)
    assert [(s.name, s.origin) for s in sources] == [
        ("create_ticket", "git:HEAD:tools/a.json:2#0"),
        ("get_weather", "git:HEAD:tools/sub/b.jsonl:1"),
    ]
    # A directory at a revision against the working tree's file: same tools, no change.
    assert diff_tools("git:HEAD:tools", repo / "tools", cwd=repo).changes == ()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("git:HEAD~5:tools.json", "revision 'HEAD~5' does not exist"),
        ("git:HEAD:missing.json", "path 'missing.json' does not exist at revision 'HEAD'"),
        ("git:HEAD:", "write git:REV:PATH"),
        ("git:HEAD", "write git:REV:PATH"),
    ],
)
def test_git_errors_name_the_revision_and_the_path(repo: Path, spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")) as raised:
        diff_tools(spec, repo / "tools.json", cwd=repo)
    assert spec in str(raised.value)


def test_git_outside_a_repository_and_without_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="is not inside a git repository"):
        read_git("git:HEAD:tools.json", cwd=tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    with pytest.raises(OSError, match="git is not installed"):
        read_git("git:HEAD:tools.json", cwd=tmp_path)


def test_definitions_that_do_not_load_are_errors_not_changes() -> None:
    broken = json.loads(json.dumps(OLD[0]))
    broken["parameters"]["properties"]["title"]["type"] = "text"  # not a JSON Schema type
    report = diff_tools(OLD, [broken, OLD[1], OLD[1]], today=TODAY)
    rules = sorted(problem.rule for problem in report.problems)
    assert rules == ["diff/duplicate-name", "diff/not-loadable"]
    assert all(problem.level == "error" for problem in report.problems)
    # create_ticket is not "removed": its NEW definition is reported as not loading, and nothing is guessed.
    assert report.changes == ()
    assert report.exit_code("never") == 0 and report.exit_code() == 1


# -- the report ----------------------------------------------------------------------------------------------------


def test_the_report_carries_checks_verdicts_and_every_format() -> None:
    report = diff_tools(OLD, new_version(), today=TODAY)
    assert report.verdict == "BREAKING"
    assert report.counts() == {"BREAKING": 4, "RISKY": 0, "COMPATIBLE": 0, "waived": 0}
    first = report.changes[0]
    assert isinstance(first, Change) and first.checks is not None
    assert first.verdict == CHANGE_KINDS[first.kind].verdict
    document = json.loads(json.dumps(report.as_dict()))
    assert document["verdict"] == "BREAKING" and len(document["changes"]) == 4
    enum = next(c for c in document["changes"] if c["kind"] == "enum-value-removed")
    assert enum["old"] == ["low", "high", "urgent"] and enum["new"] == ["low", "high"]
    assert enum["detail"] == {"values": ["urgent"]} and enum["checks"]["replay"] == "fail" and enum["waived"] is False
    rendered = json.loads(report.render("json"))
    assert rendered["command"] == "diff" and rendered["verdict"] == "BREAKING" and rendered["ok"] is False
    assert {f["rule"] for f in rendered["findings"]} == {f"diff/{kind}" for _, _, kind in EXPECTED}
    text = report.render("text")
    assert text.splitlines()[0].endswith("BREAKING (4 breaking, 0 risky, 0 compatible)")
    assert "diff/enum-value-removed" in text and '["urgent"] no longer allowed' in text
    assert report.render("markdown").startswith("### toolwire diff\n\n**<list> -> <list>: BREAKING")
    github = report.render("github").splitlines()
    assert sum(line.startswith("::error ") for line in github) == 4
    suite = ElementTree.fromstring(report.render("junit")).find("testsuite")
    assert suite is not None and suite.get("failures") == "2"  # two tools, each failing
    assert report.render("junit", fail_on="never").count("<failure") == 0


def test_fail_on_follows_the_verdicts() -> None:
    old = [{"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}]
    risky = [{"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}}]
    report = diff_tools(old, risky)
    assert report.verdict == "RISKY"
    assert (report.exit_code("breaking"), report.exit_code("risky"), report.exit_code("never")) == (0, 1, 0)
    assert diff_tools(old, old).verdict == "COMPATIBLE" and diff_tools(old, old).exit_code("risky") == 0
    with pytest.raises(ValueError, match="one of breaking, risky, never"):
        report.exit_code("error")


# -- handlers ------------------------------------------------------------------------------------------------------


def takes_int(p: int) -> None:
    """A handler that takes integers only."""


def takes_float(p: float) -> None:
    """A handler that takes any number."""


def takes_levels(p: Literal["low", "high"]) -> None:
    """A handler with a closed set of values."""


def takes_anything(p: str, **extra: Any) -> None:
    """A handler that takes unknown keys."""


def takes_only_p(p: str) -> None:
    """A handler that refuses unknown keys."""


def one(schema: dict[str, Any], **extra: Any) -> list[dict[str, Any]]:
    parameters = {"type": "object", "properties": {"p": schema}, "required": ["p"], **extra}
    return [{"name": "t", "description": "Do the thing.", "parameters": parameters}]


@pytest.mark.parametrize(
    ("old", "new", "handler", "kind", "handler_check", "verdict"),
    [
        (one({"type": "integer"}), one({"type": "number"}), takes_int, "type-widened", "refuses", "BREAKING"),
        (one({"type": "integer"}), one({"type": "number"}), takes_float, "type-widened", "ok", "COMPATIBLE"),
        (one({"enum": ["low"]}), one({"enum": ["low", "high"]}), takes_levels, "enum-value-added", "ok", "COMPATIBLE"),
        (one({"enum": ["low"]}), one({"enum": ["low", "mid"]}), takes_levels, "enum-value-added", "refuses", "BREAKING"),
        (one({"type": "string"}, additionalProperties=False), one({"type": "string"}, additionalProperties=True),
         takes_anything, "additional-properties-opened", "ok", "COMPATIBLE"),
        (one({"type": "string"}, additionalProperties=False), one({"type": "string"}, additionalProperties=True),
         takes_only_p, "additional-properties-opened", "refuses", "BREAKING"),
    ],
)  # fmt: skip
def test_the_handler_check_decides_widenings(
    old: Any, new: Any, handler: Any, kind: str, handler_check: str, verdict: str
) -> None:
    without = {c.kind: c for c in diff_tools(old, new).changes}
    assert without[kind].checks.handler == "review" and without[kind].verdict == "RISKY"
    changes = {c.kind: c for c in diff_tools(old, new, handlers={"t": handler}).changes}
    assert changes[kind].checks.handler == handler_check
    assert changes[kind].verdict == verdict
    assert any(reason.startswith("handler") for reason in changes[kind].reasons)


def test_handlers_by_import_path_and_a_handler_of_a_removed_tool(tmp_path: Path) -> None:
    old, new = one({"type": "integer"}), one({"type": "number"})
    by_path = diff_tools(old, new, handlers={"t": f"{__name__}:takes_int", "gone": f"{__name__}:takes_int"})
    assert by_path.changes[0].verdict == "BREAKING"
    with pytest.raises(ValueError, match="handler for 't'"):
        diff_tools(old, new, handlers={"t": "no_such_module:handler"})
    with pytest.raises(ValueError, match="handler for 't'"):
        diff_tools(old, new, handlers={"t": 42})


# -- policy --------------------------------------------------------------------------------------------------------


def test_severity_overrides_and_waivers() -> None:
    policy = {
        "severity": {"bound-added": "risky", "param-optional-added-open": "breaking"},
        "waivers": [
            {"tool": "create_ticket", "path": "/properties/priority", "kind": "enum-value-removed",
             "reason": "urgent is retired (ADR-12)", "expires": "2026-03-01"},
            {"tool": "fetch_weather", "path": "", "reason": "renamed on purpose", "expires": datetime.date(2026, 2, 1)},
            {"tool": "create_ticket", "path": "*", "kind": "tool-removed", "reason": "stale", "expires": "2026-12-31"},
        ],
    }  # fmt: skip
    report = diff_tools(OLD, new_version(), policy=policy, today=TODAY)
    by_kind = {change.kind: change for change in report.changes}
    assert by_kind["bound-added"].verdict == "RISKY" and by_kind["bound-added"].reasons == (
        "policy: BREAKING -> RISKY",
    )
    assert by_kind["enum-value-removed"].waived and by_kind["enum-value-removed"].verdict == "BREAKING"
    assert by_kind["tool-renamed"].waiver == {
        "tool": "fetch_weather", "path": "", "kind": None, "reason": "renamed on purpose", "expires": "2026-02-01",
        "source": "policy.waivers[1]",
    }  # fmt: skip
    assert report.counts() == {"BREAKING": 1, "RISKY": 1, "COMPATIBLE": 0, "waived": 2}
    assert [p.rule for p in report.problems] == ["diff/waiver-unused"]
    waived = next(f for f in report.findings if f.rule == "diff/enum-value-removed")
    assert waived.level == "info" and "BREAKING (waived)" in waived.message and "until 2026-03-01" in waived.message
    # Still breaking: param-required-added is not waived.
    assert report.verdict == "BREAKING"


def test_an_expired_waiver_fails_and_leaves_the_change_unwaived() -> None:
    policy = {"waivers": [{"tool": "create_ticket", "path": "/properties/priority", "reason": "urgent retired",
                           "expires": "2026-01-14"}]}  # fmt: skip
    report = diff_tools(OLD, new_version(), policy=policy, today=TODAY)
    expired = [p for p in report.problems if p.rule == "diff/waiver-expired"]
    assert len(expired) == 1 and expired[0].level == "error" and "expired on 2026-01-14" in expired[0].message
    assert not any(change.waived for change in report.changes)
    only_waived = diff_tools(OLD, OLD, policy=policy, today=TODAY)
    assert only_waived.verdict == "COMPATIBLE" and only_waived.exit_code() == 1  # the expired waiver alone fails


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ({"severities": {}}, r"unknown key\(s\) severities; allowed: fail-on, strict-optional-semantics"),
        ({"severity": {"bound-gone": "risky"}}, "unknown change kind 'bound-gone'; known: tool-removed"),
        ({"severity": {"bound-added": "fatal"}}, "one of compatible, risky, breaking; got 'fatal'"),
        ({"waivers": [{"tool": "t", "path": "", "reason": "r"}]}, r"waivers\[0\].expires: a date written YYYY-MM-DD"),
        ({"waivers": [{"tool": "t", "path": "", "reason": "r", "expires": "2026-01-01", "owner": "x"}]},
         "unknown key.s. owner; allowed: tool, path, kind, reason, expires"),
        ({"waivers": [{"tool": "t", "path": "", "reason": "", "expires": "2026-01-01"}]}, "reason: required"),
        ({"fail-on": "error"}, "fail-on: one of breaking, risky, never"),
        ({"waivers": {"tool": "t"}}, "a list of tables"),
    ],
)  # fmt: skip
def test_policy_errors_name_the_key_and_the_allowed_values(policy: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_policy(policy)


def test_rules_files_in_toml_yaml_json(tmp_path: Path) -> None:
    toml = tmp_path / "rules.toml"
    toml.write_text(
        '[severity]\nbound-added = "risky"\n\n[[waivers]]\ntool = "t"\npath = "*"\nreason = "r"\nexpires = 2026-02-01\n',
        encoding="utf-8",
    )
    yaml = tmp_path / "rules.yaml"
    yaml.write_text(
        "severity:\n  bound-added: risky\nwaivers:\n- {tool: t, path: '*', reason: r, expires: 2026-02-01}\n"
    )
    js = write(tmp_path / "rules.json", {"severity": {"bound-added": "risky"},
                                         "waivers": [{"tool": "t", "path": "*", "reason": "r", "expires": "2026-02-01"}]})  # fmt: skip
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.toolwire.diff.severity]\nbound-added = "risky"\n\n[[tool.toolwire.diff.waivers]]\ntool = "t"\n'
        'path = "*"\nreason = "r"\nexpires = 2026-02-01\n',
        encoding="utf-8",
    )
    loaded = [load_policy_file(path) for path in (toml, yaml, js, pyproject)]
    assert all(p.severity == {"bound-added": "RISKY"} for p in loaded)
    assert all(p.waivers[0].expires == datetime.date(2026, 2, 1) for p in loaded)
    with pytest.raises(ValueError, match=r"a rules file is \.toml, \.yaml, \.yml or \.json"):
        load_policy_file(write(tmp_path / "rules.txt", {}))


# -- changes a proof of inclusion clears ---------------------------------------------------------------------------


def one_parameter(schema: Any) -> list[dict[str, Any]]:
    parameters = {"type": "object", "properties": {"p": schema}, "required": ["p"], "additionalProperties": False}
    return [{"name": "t", "description": "Do the thing.", "parameters": parameters}]


S = {"type": "string"}
INT = {"type": "integer"}

# (why, OLD's parameter, NEW's, {kind: verdict}): each change looks narrowing, but no call OLD accepts fails NEW.
PROVEN: list[tuple[str, Any, Any, dict[str, str]]] = [
    ("union regrouped", {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 2}]},
     {"type": ["integer", "string"], "minimum": 1}, {"branch-removed": "RISKY", "branch-added": "RISKY"}),
    ("intervals regrouped, all numbers both times",
     {"anyOf": [{"type": "number", "maximum": 10}, {"type": "number", "minimum": 1}]},
     {"anyOf": [{"type": "number", "maximum": 3}, {"type": "number", "minimum": 2}]}, {"bound-tightened": "COMPATIBLE"}),
    ("not of a narrower type", {"not": {"type": "number"}}, {"not": {"type": "integer"}},
     {"constraint-changed": "RISKY"}),
    ("a parameter no value fitted", {"allOf": [{"type": "number"}, S]}, S,
     {"type-changed": "RISKY", "allof-member-removed": "RISKY"}),
    ("a property removed, admitted by additionalProperties",
     {"type": "object", "properties": {"a": S, "b": S}, "additionalProperties": False},
     {"type": "object", "properties": {"a": S}, "additionalProperties": S},
     {"param-removed-partly-open": "RISKY", "additional-properties-opened": "RISKY"}),
    ("a property added that covers the extra keys' schema",
     {"type": "object", "properties": {"a": S}, "additionalProperties": S},
     {"type": "object", "properties": {"a": S, "b": {"type": ["string", "null"]}}, "additionalProperties": S},
     {"param-optional-added-partly-open": "RISKY"}),
    ("a property whose schema was false, removed",
     {"type": "object", "properties": {"a": S, "b": False}, "additionalProperties": False},
     {"type": "object", "properties": {"a": S}, "additionalProperties": False}, {"param-removed-closed": "COMPATIBLE"}),
    ("a const given its type", {"const": "a"}, S, {"enum-removed": "RISKY"}),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "expected"), [p[1:] for p in PROVEN], ids=[p[0] for p in PROVEN])
def test_a_change_no_old_call_fails_is_cleared_by_proof(old: Any, new: Any, expected: dict[str, str]) -> None:
    report = diff_tools(one_parameter(old), one_parameter(new))
    assert {change.kind: change.verdict for change in report.changes} == expected
    for change in report.changes:
        assert change.checks is not None and change.checks.replay == "pass", change
        if CHANGE_KINDS[change.kind].checks.replay != "pass":
            assert change.reasons == ("proven: NEW admits every value OLD admits at p",), change


def test_a_branch_of_one_of_is_not_cleared_alone() -> None:
    # OLD's first branch accepts nothing; NEW's accepts 5 and 6, which the second branch also accepts: under oneOf
    # they now match twice and fail. The first branch alone is included; the union is not.
    old = one_parameter({"oneOf": [{"type": "integer", "minimum": 1, "maximum": 0}, INT]})
    new = one_parameter({"oneOf": [{"type": "integer", "minimum": 5, "maximum": 6}, INT]})
    report = diff_tools(old, new)
    assert report.verdict == "BREAKING"
    tightened = next(change for change in report.changes if change.kind == "bound-tightened")
    assert tightened.checks is not None and tightened.checks.replay == "fail" and not tightened.reasons
    # With a second branch the first cannot overlap, the union is proven included, and the change cleared there.
    other = diff_tools(
        one_parameter({"oneOf": [{"type": "integer", "minimum": 1, "maximum": 0}, S]}),
        one_parameter({"oneOf": [{"type": "integer", "minimum": 5, "maximum": 6}, S]}),
    )
    assert other.verdict == "RISKY"


# -- the command ---------------------------------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    old, new = write(tmp_path / "old.json", OLD), write(tmp_path / "new.json", new_version())
    status, out, _ = run(["diff", str(old), str(new)], capsys)
    assert status == 1 and "BREAKING (4 breaking, 0 risky, 0 compatible)" in out
    assert run(["diff", str(old), str(old)], capsys)[0] == 0
    assert run(["diff", str(old), str(new), "--fail-on", "never"], capsys)[0] == 0
    status, out, _ = run(["diff", str(old), str(new), "--output-format", "json"], capsys)
    assert status == 1 and json.loads(out)["verdict_counts"]["BREAKING"] == 4
    status, _, err = run(["diff", str(old), str(tmp_path / "missing.json")], capsys)
    assert status == 2 and "missing.json" in err
    status, _, err = run(["diff", str(old), str(new), "--target", "openai-strikt"], capsys)
    assert status == 2 and "unknown lint target 'openai-strikt'" in err
    status, _, err = run(["diff", str(old), str(new), "--handler", "t"], capsys)
    assert status == 2 and "NAME=package.module:attribute" in err


def test_the_command_reads_the_project_policy_and_handlers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "handlers_for_diff.py").write_text("def t(p: int) -> None:\n    pass\n", encoding="utf-8")
    monkeypatch.delitem(sys.modules, "handlers_for_diff", raising=False)
    old, new = (
        write(tmp_path / "old.json", one({"type": "integer"})),
        write(tmp_path / "new.json", one({"type": "number"})),
    )
    # Without a handler: RISKY, which passes at the default --fail-on error.
    assert run(["diff", str(old), str(new)], capsys)[0] == 0
    (tmp_path / "pyproject.toml").write_text(
        '[tool.toolwire.handlers]\nt = "handlers_for_diff:t"\n\n[tool.toolwire.diff]\nfail-on = "risky"\n',
        encoding="utf-8",
    )
    status, out, _ = run(["diff", str(old), str(new)], capsys)
    assert status == 1 and "handler refuses" in out and "BREAKING: p: type" in out
    rules = write(tmp_path / "rules.json", {"severity": {"type-widened": "compatible"}, "fail-on": "never"})
    status, out, _ = run(["diff", str(old), str(new), "--rules", str(rules)], capsys)
    assert status == 0 and "policy: BREAKING -> COMPATIBLE" in out
    (tmp_path / "pyproject.toml").write_text('[tool.toolwire.diff]\nseverity = {nope = "risky"}\n', encoding="utf-8")
    status, _, err = run(["diff", str(old), str(new)], capsys)
    assert status == 2 and "unknown change kind 'nope'" in err


# -- the real corpus -----------------------------------------------------------------------------------------------


def test_every_corpus_file_against_itself_has_no_change() -> None:
    from tests.support.paths import corpus

    for path in sorted(corpus("tool-schemas").glob("*.jsonl")):
        sources = load_tools([path])
        report = diff_tools(sources, sources)
        assert report.changes == (), path.name
        assert {problem.rule for problem in report.problems} <= {"diff/duplicate-name", "diff/not-loadable"}


@pytest.mark.parametrize(
    "name", ["pydantic-ai_cassettes.jsonl", "llama-stack_recordings.jsonl", "magentic_cassettes.jsonl"]
)
def test_closing_every_corpus_tool_is_one_change_per_open_tool(name: str) -> None:
    from tests.support.paths import corpus

    lines = [json.loads(line) for line in (corpus("tool-schemas") / name).read_text(encoding="utf-8").splitlines()]
    first: dict[str, dict[str, Any]] = {}
    for definition in lines:
        first.setdefault(definition["name"], definition)
    # Open at the root as written (additionalProperties missing or true): closing it refuses old calls' extra keys.
    open_tools = {n for n, d in first.items() if d["parameters"].get("additionalProperties", True) is not False}
    # "type": "object" too: the registry reads parameters {} as an object schema, and {"additionalProperties":
    # false} alone would also admit non-objects (a type widened, which the diff rightly reports).
    closed = [{**d, "parameters": {"type": "object", **d["parameters"], "additionalProperties": False}} for d in lines]
    report = diff_tools(lines, closed)
    assert sorted((c.tool, c.kind, c.path) for c in report.changes) == sorted(
        (tool, "additional-properties-closed", "") for tool in open_tools
    )
    assert all(c.verdict == "BREAKING" for c in report.changes)


def test_the_summary_counts_every_tool_compared_not_only_the_changed_ones(tmp_path: Path) -> None:
    # Regression: "1 checked" was printed for a diff of four tools with one changed.
    old = [{"name": n, "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}} for n in "wxyz"]
    new = [dict(old[0], parameters={"type": "object", "properties": {"a": {"type": "integer"}}}), *old[1:]]
    report = diff_tools(old, new).finding_report()
    assert report.subjects == ("w", "x", "y", "z")
    assert "4 checked" in render(report, "text")
