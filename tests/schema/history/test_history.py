"""Registry histories (a directory, a manifest, a git repository made here), version resolution by fingerprint and
by time, the replay report, ``toolwire replay --history``, and docs/history.md run as written."""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import toolwire
from tests.support.paths import REPO
from toolwire.cli import main
from toolwire.schema.calls import ObservedCall, UnreadableRecord
from toolwire.schema.history import RegistryHistory, RegistryVersion, _history, replay_history
from toolwire.schema.history._migrations import Migrations, default_migrations
from toolwire.schema.history._report import PROBLEM_KINDS

UTC = timezone.utc


def tool(*required: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    names = ["title", *extra]
    return {
        "name": "create_ticket",
        "parameters": {
            "type": "object",
            "properties": {name: {"type": "string"} for name in names},
            "required": list(required),
            "additionalProperties": False,
        },
    }


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def observed(arguments: str = '{"title": "t"}', **fields: Any) -> ObservedCall:
    return ObservedCall("create_ticket", arguments, **fields)


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def clean_default() -> Iterator[None]:
    """The default migrations and the doc's migration module, as they were before the test."""
    saved = list(default_migrations())
    try:
        yield
    finally:
        default_migrations().clear()
        default_migrations().update(saved)
        sys.modules.pop("ticket_migrations", None)


# -- a directory -----------------------------------------------------------------------------------------------------


def test_the_module_doctests_pass() -> None:
    assert doctest.testmod(_history).failed == 0


def test_a_directory_is_read_in_natural_order_with_its_dates(tmp_path: Path) -> None:
    write(tmp_path / "v10.json", {"released": "2026-04-01T12:00:00Z", "tools": [tool("title", extra=("a", "b"))]})
    write(tmp_path / "v2.yaml", "released: 2026-02-01\ntools:\n" + "  - " + json.dumps(tool("title", extra=("a",))))
    write(tmp_path / "v1.jsonl", json.dumps(tool()) + "\n\n")
    write(tmp_path / "notes.txt", "not a registry")
    (tmp_path / "drafts").mkdir()
    write(tmp_path / "drafts" / "v99.json", [tool()])
    history = RegistryHistory.from_directory(tmp_path)
    assert history.labels == ("v1", "v2", "v10")
    assert [v.started for v in history] == [None, at("2026-02-01"), at("2026-04-01T12:00:00")]
    assert history.current.label == "v10" and history.current.origin == str(tmp_path / "v10.json")
    assert [sorted(v.registry["create_ticket"].parameters["properties"]) for v in history] == [
        ["title"],
        ["a", "title"],
        ["a", "b", "title"],
    ]


def test_a_leading_date_in_the_file_name_is_the_start(tmp_path: Path) -> None:
    write(tmp_path / "2026-03-01-priority.json", [tool("title", extra=("priority",))])
    write(tmp_path / "2026-01-15.json", [tool()])
    history = RegistryHistory.from_directory(tmp_path)
    assert history.labels == ("2026-01-15", "2026-03-01-priority")
    assert [v.started for v in history] == [at("2026-01-15"), at("2026-03-01")]


def test_a_manifest_sets_order_labels_and_dates(tmp_path: Path) -> None:
    write(tmp_path / "b.json", [tool("title")])
    write(tmp_path / "a.json", [tool()])
    write(
        tmp_path / "history.yaml",
        "versions:\n  - {file: b.json, label: first, released: 2026-01-01}\n  - a.json\n",
    )
    history = RegistryHistory.from_directory(tmp_path)
    assert history.labels == ("first", "a")
    assert history["first"].started == at("2026-01-01") and history["a"].started is None
    assert history["first"].registry["create_ticket"].parameters["required"] == ["title"]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no registry files"),
        ({"history.yaml": "versions:\n  - a.json\n", "a.json": [tool()], "b.json": [tool()]}, "b.json not listed"),
        ({"history.json": {"versions": [{"file": "a.json", "relased": "2026"}]}, "a.json": [tool()]}, "relased"),
        ({"history.json": {"versions": [{"file": "zz.json"}]}}, "zz.json does not exist"),
        ({"history.json": {"versions": 3}}, "expected versions"),
        (
            {"history.json": [{"file": "a.json", "released": "2026-01-02"}], "a.json": {"released": "2026-01-01"}},
            "released 2026-01-01T00:00:00\\+00:00 in the file but 2026-01-02",
        ),
        ({"a.json": [tool()], "a.yaml": "- " + json.dumps(tool())}, "two versions are labelled 'a'"),
        (
            {
                "a.json": {"released": "2026-02-01", "tools": [tool()]},
                "b.json": {"released": "2026-01-01", "tools": []},
            },
            "version 'b' .* started 2026-01-01.*before the version it follows, 'a'",
        ),
        ({"a.json": [{"name": "x", "parameters": {"type": "object", "properties": 3}}]}, "a.json#0"),
        ({"a.json": "{not json"}, "a.json: invalid JSON at line 1 column 2"),
        ({"a.yaml": "tools: [\n"}, "a.yaml: invalid YAML"),
        ({"a.jsonl": json.dumps(tool()) + "\n{oops\n"}, "a.jsonl:2: invalid JSON"),
        ({"a.json": [tool(), tool()]}, "a.json: .*create_ticket"),
        ({"a.json": {"released": "someday", "tools": []}}, "'someday' is not an ISO 8601 date"),
        ({"a.yaml": ""}, "a.yaml: the file is empty"),
    ],
)
def test_a_directory_that_does_not_make_a_history_says_why(tmp_path: Path, files: dict[str, Any], message: str) -> None:
    for name, content in files.items():
        write(tmp_path / name, content)
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        RegistryHistory.from_directory(tmp_path)


def test_a_missing_directory_or_a_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such directory"):
        RegistryHistory.from_directory(tmp_path / "nothing")
    with pytest.raises(NotADirectoryError, match="not a directory"):
        RegistryHistory.from_directory(write(tmp_path / "a.json", [tool()]))


def test_versions_given_directly_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one version"):
        RegistryHistory([])
    with pytest.raises(TypeError, match=r"versions\[0\]: expected a RegistryVersion"):
        RegistryHistory(["v1"])
    with pytest.raises(TypeError, match="label must be a non-empty str"):
        RegistryHistory([("", [tool()])])
    with pytest.raises(ValueError, match=r"versions\[1\] \(v2\)"):
        RegistryHistory([("v1", [tool()]), ("v2", [tool(), tool()])])
    registry = toolwire.ToolRegistry([tool()])
    with pytest.raises(ValueError, match="'a' and 'b' are both called 'x'"):
        RegistryHistory(
            [RegistryVersion("a", registry, aliases=("x",)), RegistryVersion("b", registry, aliases=("x",))]
        )
    history = RegistryHistory([("v1", [tool()], "2026-01-01"), RegistryVersion("v2", registry, None, "", ("tag",))])
    assert history.index("tag") == 1 and len(history) == 2
    with pytest.raises(KeyError, match="no version 'v3' in this history; versions: v1, v2"):
        history["v3"]
    assert repr(history) == "RegistryHistory(['v1', 'v2'], current='v2')"


# -- a git repository ------------------------------------------------------------------------------------------------


def git(repo: Path, *arguments: str, when: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if when is not None:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-C", str(repo), *arguments],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """tools/tickets.json in four commits that changed it (one broken, one a rename), and one that did not."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo / "tools" / "tickets.json", [tool()])
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1", when="2026-01-05T10:00:00+00:00")
    write(repo / "README.md", "unrelated")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "docs", when="2026-01-10T10:00:00+00:00")
    write(repo / "tools" / "tickets.json", "[{broken")
    git(repo, "commit", "-q", "-am", "oops", when="2026-01-20T10:00:00+00:00")
    write(repo / "tools" / "tickets.json", [tool("title", extra=("priority",))])
    git(repo, "commit", "-q", "-am", "v2", when="2026-02-02T09:30:00+01:00")
    git(repo, "tag", "v2")
    git(repo, "mv", "tools/tickets.json", "tools/support.json")
    git(repo, "commit", "-q", "-m", "rename", when="2026-02-10T10:00:00+00:00")
    write(repo / "tools" / "support.json", [tool("title", "priority", extra=("priority",))])
    git(repo, "commit", "-q", "-am", "v3", when="2026-03-02T10:00:00+00:00")
    return repo


def test_a_git_history_has_every_commit_that_changed_the_file(repository: Path) -> None:
    history = RegistryHistory.from_git("tools/support.json", repo=repository)
    hashes = git(repository, "log", "--format=%H %h %s", "--follow", "--", "tools/support.json").splitlines()
    by_subject = {line.split()[2]: line.split()[:2] for line in hashes}
    assert history.labels == tuple(by_subject[s][1] for s in ("v1", "v2", "rename", "v3"))
    assert [v.started for v in history] == [
        at("2026-01-05T10:00:00"),
        at("2026-02-02T08:30:00"),
        at("2026-02-10T10:00:00"),
        at("2026-03-02T10:00:00"),
    ]
    assert history.versions[0].origin == f"git:{by_subject['v1'][1]}:tools/tickets.json"
    assert history.current.origin == f"git:{by_subject['v3'][1]}:tools/support.json"
    # The full hash, the tag and a 7+ character prefix name a version too.
    assert history.index(by_subject["v2"][0]) == history.index("v2") == history.index(by_subject["v2"][0][:9]) == 1
    ((label, reason),) = history.skipped
    assert label == by_subject["oops"][1] and "tickets.json" in reason and "invalid JSON" in reason
    assert history.versions[1].registry == history.versions[2].registry  # the rename changed no schema


def test_a_git_history_resolves_calls_by_fingerprint_and_time(repository: Path) -> None:
    history = RegistryHistory.from_git("tools/support.json", repo=repository)
    fingerprint = history.versions[0].registry["create_ticket"].fingerprint
    match = history.version_of(observed(schema_fingerprint=fingerprint))
    assert (match.index, match.rule) == (0, "fingerprint")
    # v2 and the rename share a schema: the time picks the one in force.
    shared = history.versions[1].registry["create_ticket"].fingerprint
    assert history.version_of(observed(schema_fingerprint=shared, ts=at("2026-02-05"))).index == 1
    assert history.version_of(observed(schema_fingerprint=shared, ts=at("2026-02-20"))).index == 2
    assert history.version_of(observed(schema_fingerprint=shared)).index == 2
    assert history.version_of(observed(ts=at("2026-01-25"))).index == 0


def test_git_paths_load_from_the_command_line_spelling(repository: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from_spec = RegistryHistory.load(f"git:{repository / 'tools' / 'support.json'}")
    assert len(from_spec) == 4
    monkeypatch.chdir(repository / "tools")
    assert RegistryHistory.load("git:support.json").labels == from_spec.labels


@pytest.mark.parametrize(
    ("path", "message"),
    [("tools/never.json", "no commit changed it"), ("../outside.json", "not inside the git repository")],
)
def test_a_git_history_that_cannot_be_read_says_why(repository: Path, path: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RegistryHistory.from_git(path, repo=repository)


def test_a_directory_that_is_no_repository_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "a.json", [tool()])
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    with pytest.raises(ValueError, match="not a git repository"):
        RegistryHistory.from_git("a.json", repo=tmp_path)


# -- version resolution ----------------------------------------------------------------------------------------------


def three() -> RegistryHistory:
    return RegistryHistory(
        [("v1", [tool()], "2026-01-01"), ("v2", [tool("title")], "2026-02-01"), ("v3", [tool("title")], "2026-03-01")]
    )


def test_the_fingerprint_decides_before_the_time() -> None:
    history = three()
    first = history["v1"].registry["create_ticket"].fingerprint
    match = history.version_of(observed(schema_fingerprint=first, ts=at("2026-03-15")))
    assert (match.version, match.rule) == (history["v1"], "fingerprint")
    assert "(create_ticket) is in v1" in match.reason


def test_a_schema_shared_by_versions_is_told_apart_by_time() -> None:
    history = three()
    shared = history["v2"].registry["create_ticket"].fingerprint
    assert history.version_of(observed(schema_fingerprint=shared, ts=at("2026-02-15"))).version == history["v2"]
    latest = history.version_of(observed(schema_fingerprint=shared, ts=at("2026-03-15")))
    assert latest.version == history["v3"] and "picks v3" in latest.reason
    untimed = history.version_of(observed(schema_fingerprint=shared))
    assert untimed.version == history["v3"] and "no ts, so the latest" in untimed.reason
    early = history.version_of(observed(schema_fingerprint=shared, ts=at("2025-12-01")))
    assert early.version == history["v3"] and "none started by ts" in early.reason


def test_a_registry_fingerprint_names_its_version() -> None:
    history = three()
    match = history.version_of(observed(schema_fingerprint=history["v1"].registry.fingerprint))
    assert (match.index, match.rule) == (0, "fingerprint") and "the whole registry" in match.reason


@pytest.mark.parametrize(
    ("ts", "index", "bound"),
    [
        ("2026-01-01", 0, "after v1 started (2026-01-01T00:00:00+00:00) and before v2 started"),
        ("2026-01-31T23:59:59", 0, "before v2"),
        ("2026-02-01", 1, "after v2 started"),
        ("2027-01-01", 2, "after v3 started (2026-03-01T00:00:00+00:00)"),
    ],
)
def test_the_time_picks_the_latest_version_started_by_then(ts: str, index: int, bound: str) -> None:
    match = three().version_of(observed(ts=at(ts)))
    assert (match.index, match.rule) == (index, "time")
    assert bound in match.reason


def test_a_naive_time_is_utc_and_an_unknown_fingerprint_falls_back_to_the_time() -> None:
    match = three().version_of(observed(ts=datetime(2026, 2, 1), schema_fingerprint="sha256:" + "0" * 64))
    assert (match.index, match.rule) == (1, "time")
    assert match.reason.startswith("schema_fingerprint sha256:000000000000… matches no version; ts 2026-02-01T00:00")


@pytest.mark.parametrize(
    ("versions", "call", "index", "reason"),
    [
        (None, {}, None, "no schema_fingerprint and no ts"),
        (None, {"schema_fingerprint": "sha256:ab"}, None, "sha256:ab matches no version; no ts"),
        (None, {"ts": at("2025-12-31")}, None, "before the first version v1 started (2026-01-01T00:00:00+00:00)"),
        # An undated version between two dated ones is the only one that can hold a call between them.
        ([("a", "2026-01-01"), ("b", None), ("c", "2026-03-01")], {"ts": at("2026-02-01")}, None, "any of a, b"),
        ([("a", None), ("b", "2026-02-01")], {"ts": at("2026-01-15")}, 0, "before b started"),
        ([("a", None), ("b", None)], {"ts": at("2026-01-15")}, None, "any of a, b (a, b without a start time"),
        ([("a", "2026-01-01"), ("b", None)], {"ts": at("2026-01-15")}, None, "(b without a start time; give it one)"),
    ],
)
def test_calls_no_rule_decides_say_why(
    versions: list[tuple[str, str | None]] | None, call: dict[str, Any], index: int | None, reason: str
) -> None:
    history = three() if versions is None else RegistryHistory([(label, [tool()], day) for label, day in versions])
    match = history.version_of(observed(**call))
    assert match.index == index and (match.rule == "unknown") == (index is None)
    assert reason in match.reason


# -- the replay report -----------------------------------------------------------------------------------------------


def calls_for(history: RegistryHistory) -> list[ObservedCall | UnreadableRecord]:
    first = history["v1"].registry["create_ticket"].fingerprint
    return [
        observed('{"title": "a"}', id="1", ts=at("2026-01-10"), origin="c:1"),  # v1, carried
        observed('{"nope": 1}', id="2", schema_fingerprint=first, origin="c:2"),  # invalid when produced
        observed("{}", id="3", ts=at("2026-01-11"), origin="c:3"),  # v1 without title: v2 requires it
        observed('{"title": "b"}', id="4", ts=at("2026-03-04"), origin="c:4"),  # current
        observed("{}", id="5", origin="c:5"),  # unknown, refused now
        observed('{"title": "c"}', id="6", origin="c:6"),  # unknown, valid now
        UnreadableRecord("c:7", "line 7: invalid JSON; fix the line"),
    ]


def test_the_report_counts_every_call_once() -> None:
    history = three()
    report = replay_history(history, calls_for(history), Migrations())
    assert report.calls == 6 and report.counts["unreadable"] == 1
    assert report.counts == {
        "invalid_when_produced": 1,
        "no_migration_path": 1,
        "migration_failed": 0,
        "invalid_after_migration": 0,
        "unknown_version": 2,
        "unreadable": 1,
    }
    assert report.carried == 2 and report.unknown_invalid_now == 1 and report.cannot_migrate == 1
    assert dict(report.by_rule) == {"time": 3, "fingerprint": 1, "unknown": 2}
    rows = {key: vars(row) for key, row in report.rows.items()}
    assert rows[("create_ticket", "v1")] == {
        "calls": 3,
        "invalid_when_produced": 1,
        "carried": 1,
        "migrated": 0,
        "cannot_migrate": 1,
        "unknown_invalid_now": 0,
    }
    assert rows[("create_ticket", None)]["unknown_invalid_now"] == 1
    assert sum(row["calls"] for row in rows.values()) == report.calls
    (stranded,) = report.problems["no_migration_path"]
    assert (stranded.id, stranded.origin, stranded.version, stranded.rule) == ("3", "c:3", "v1", "time")
    assert stranded.codes == ("MISSING_REQUIRED_ARGUMENT",)
    unknown = {problem.id: problem.reason for problem in report.problems["unknown_version"]}
    assert unknown["5"].endswith(
        'v3 refuses it: MISSING_REQUIRED_ARGUMENT at /title: missing required argument "title"'
    )
    assert unknown["6"].endswith("v3 accepts it")
    assert not report.ok and report.exit_code() == 1


def test_the_three_formats_say_the_same() -> None:
    history = three()
    report = replay_history(history, calls_for(history), Migrations())
    data = json.loads(report.render("json"))
    assert data["counts"] == report.counts and data["carried"] == report.carried and data["ok"] is False
    assert [version["label"] for version in data["versions"]] == ["v1", "v2", "v3"]
    assert {problem["id"] for problems in data["problems"].values() for problem in problems} >= {"2", "3", "5"}
    text = report.render("text")
    markdown = report.render("markdown")
    for kind in PROBLEM_KINDS:
        for problem in report.problems[kind]:
            assert problem.origin in text and problem.origin in markdown
    assert "### toolwire replay --history fails" in markdown
    assert text.splitlines()[-1] == markdown.splitlines()[-1]
    with pytest.raises(ValueError, match="renders as text, json, markdown"):
        report.render("junit")


def test_a_report_lists_the_first_failures_and_counts_them_all() -> None:
    history = three()
    calls = [observed("{}", id=str(n), ts=at("2026-02-10")) for n in range(50)]
    report = replay_history(history, calls, Migrations(), limit_failures=3)
    assert report.counts["invalid_when_produced"] == 50
    assert [problem.id for problem in report.problems["invalid_when_produced"]] == ["0", "1", "2"]
    assert "invalid when produced (50, first 3):" in report.render("text")
    with pytest.raises(ValueError, match="limit_failures"):
        replay_history(history, calls, limit_failures=-1)
    with pytest.raises(ValueError, match="chunk_size"):
        replay_history(history, calls, chunk_size=0)


def test_validation_goes_in_batches_per_version_and_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    history = three()
    batches: list[int] = []
    original = toolwire.validate_many

    def counting(calls: Any, tools: Any, **options: Any) -> Any:
        batches.append(len(calls))
        return original(calls, tools, **options)

    # The replay calls the core's entry points as the kits do (toolwire._pipeline._bound.core).
    monkeypatch.setattr("toolwire.schema.history._replay.core", SimpleNamespace(validate_many=counting))
    calls = [observed('{"title": "x"}', ts=at(day)) for day in ["2026-01-10"] * 40 + ["2026-02-10"] * 60]
    seen: list[int] = []
    report = replay_history(history, calls, Migrations(), chunk_size=30, on_progress=seen.append)
    assert report.carried == 100 and seen == [30, 60, 90, 100]
    # Chunks of 30: [30 v1] [10 v1 + 20 v2] [30 v2] [10 v2]; each chunk: one batch per version, one against v3.
    assert batches == [30, 30, 10, 20, 30, 30, 30, 10, 10]


def test_the_chunk_size_changes_nothing_in_the_report() -> None:
    history = three()
    calls = calls_for(history) * 7
    whole = replay_history(history, calls, Migrations()).to_dict()
    for size in (1, 4, 1000):
        assert replay_history(history, calls, Migrations(), chunk_size=size).to_dict() == whole


def test_a_replay_without_migrations_uses_the_decorated_ones(clean_default: None) -> None:
    history = three()

    @toolwire.schema.history._migrations.migration("create_ticket", from_="v1", to="v2")
    def add_title(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"title": "(none)", **arguments}

    report = history.replay([observed("{}", ts=at("2026-01-11"))])
    assert report.ok and report.migrated == 1


# -- the command line ------------------------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path / "tickets" / "v1.json", {"released": "2026-01-01", "tools": [tool()]})
    write(tmp_path / "tickets" / "v2.json", {"released": "2026-02-01", "tools": [tool("title")]})
    lines = [
        {"id": "a", "name": "create_ticket", "arguments": {"title": "x"}, "ts": "2026-01-05T00:00:00Z"},
        {"id": "b", "name": "create_ticket", "arguments": {}, "ts": "2026-01-06T00:00:00Z"},
    ]
    write(tmp_path / "calls.jsonl", "\n".join(json.dumps(line) for line in lines) + "\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_replay_history_from_the_command_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "calls.jsonl", "--history", "tickets", "--output-format", "json", "--limit", "1"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["no_migration_path"] == 1 and data["carried"] == 1
    assert data["problems"]["no_migration_path"][0]["id"] == "b"
    assert main(["replay", "calls.jsonl", "--history", "tickets", "--fail-on", "never"]) == 0
    assert "1 cannot be migrated" in capsys.readouterr().out
    assert main(["replay", "calls.jsonl", "--history", "tickets", "--output-format", "markdown"]) == 1
    assert capsys.readouterr().out.startswith("### toolwire replay --history fails")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--history", "missing"], "missing: no such directory"),
        (["--history", "tickets", "--tools", "tickets/v2.json"], "--tools and --history"),
        (["--history", "tickets", "--migrations", "no_such_module_at_all"], "cannot import 'no_such_module_at_all'"),
        (["--history", "git:"], "needs the path of a registry file"),
    ],
)
def test_replay_history_usage_errors_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    assert main(["replay", "calls.jsonl", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_replay_history_from_git_on_the_command_line(
    repository: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [
        {"id": "old", "name": "create_ticket", "arguments": {"title": "x"}, "ts": "2026-01-06T00:00:00Z"},
        {"id": "new", "name": "create_ticket", "arguments": {"title": "y", "priority": "high"}, "ts": "2026-03-03"},
    ]
    write(repository / "calls.jsonl", "\n".join(json.dumps(call) for call in calls))
    monkeypatch.chdir(repository)
    assert main(["replay", "calls.jsonl", "--history", "git:tools/support.json", "--output-format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert len(data["skipped_versions"]) == 1 and data["counts"]["no_migration_path"] == 1
    assert data["problems"]["no_migration_path"][0]["id"] == "old"


# -- docs/history.md, as written -------------------------------------------------------------------------------------

DOC = (REPO / "docs" / "history.md").read_text(encoding="utf-8")
FILES = re.findall(r"^<!-- file: (\S+) -->\n```\w*\n(.*?)^```", DOC, re.M | re.S)
CONSOLES = re.findall(r"^```console\n(.*?)^```", DOC, re.M | re.S)
PYTHON = re.findall(r"^```python\n(.*?)^```", DOC, re.M | re.S)
ILLUSTRATIONS = re.findall(r"^```py\n(.*?)^```", DOC, re.M | re.S)


def test_the_two_step_way_to_add_a_required_field_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], clean_default: None
) -> None:
    assert {name for name, _ in FILES} >= {"tickets/v1.yaml", "tickets/v2.yaml", "tickets/v3.yaml"}
    for name, text in FILES:
        write(tmp_path / name, text)
    monkeypatch.chdir(tmp_path)
    # The logged fingerprints are the real fingerprint of v2's create_ticket: the log was written under v2.
    v2 = RegistryHistory.from_directory("tickets")["v2"].registry["create_ticket"].fingerprint
    logged = [
        json.loads(line)["tool_fingerprint"]
        for line in (tmp_path / "calls/2026-02.jsonl").read_text().split("\n")
        if line
    ]
    assert logged == [v2] * 3
    commands = 0
    for block in CONSOLES:
        lines = block.splitlines()
        starts = [n for n, line in enumerate(lines) if line.startswith("$ toolwire ")]
        for position, start in enumerate(starts):
            command = re.fullmatch(r"\$ toolwire (.+?)\s+# exit (\d)", lines[start])
            assert command is not None, lines[start]
            expected = lines[start + 1 : starts[position + 1] if position + 1 < len(starts) else len(lines)]
            assert main(shlex.split(command[1])) == int(command[2]), command[1]
            shown = capsys.readouterr().out.splitlines()
            for line in filter(None, expected):
                assert line in shown, f"{command[1]}: the documented line {line!r} is not in the output"
            commands += 1
    assert commands == 4


@pytest.mark.parametrize("block", PYTHON, ids=[f"python{number}" for number in range(len(PYTHON))])
def test_every_python_block_of_the_doc_runs(
    block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_default: None
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/history.md", "exec"), {"__name__": "history_doc"})


def test_the_spark_and_ray_functions_of_the_doc_run_on_arrow_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa

    assert len(ILLUSTRATIONS) == 2
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "tools.yaml", "- " + json.dumps(tool("title")))
    batch = pa.RecordBatch.from_pydict(
        {
            "id": ["a", "b", "c"],
            "name": ["create_ticket", "create_ticket", None],
            "arguments": ['{"title":"x"}', "{}", None],
        }
    )
    expected = [True, False, False]
    for block in ILLUSTRATIONS:
        # The engine lines (spark.read..., ray.data..., import ray) are what the project cannot run.
        runnable = "\n".join(line for line in block.splitlines() if not line.startswith(("spark.", "ds", "import ray")))
        space: dict[str, Any] = {}
        exec(compile(runnable, "docs/history.md", "exec"), space)
        if "check" in space:
            (out,) = list(space["check"](iter([batch])))
            assert out.schema.names == ["id", "ok", "codes", "violations"]
            assert out.column("ok").to_pylist() == expected and out.column("id").to_pylist() == ["a", "b", "c"]
        else:
            table = space["Check"]("tools.yaml")(pa.Table.from_batches([batch]))
            assert table.column("ok").to_pylist() == expected
            assert table.column("codes").to_pylist()[2] == ["MISSING_NAME"]
