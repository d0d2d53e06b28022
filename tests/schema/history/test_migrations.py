"""Migrations: registration, the checks run on every call (raises, non-dict, non-JSON, non-deterministic), chains
along a history, shortcuts, missing links, and the ``--migrations`` loader."""

from __future__ import annotations

import doctest
import itertools
import json
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from toolwire.cli._replay_history import load_migrations
from toolwire.schema.calls import ObservedCall
from toolwire.schema.history import RegistryHistory, _migrations, replay_history
from toolwire.schema.history._migrations import Migration, MigrationError, Migrations, default_migrations, migration


def schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


TITLE = {"type": "string"}
PRIORITY = {"type": "string", "enum": ["low", "normal", "high"]}
# v1: title + body; v2: body renamed description; v3: priority required; v4: same create_ticket, a new tool beside.
V1 = {"create_ticket": schema({"title": TITLE, "body": TITLE}, ["title"])}
V2 = {"create_ticket": schema({"title": TITLE, "description": TITLE}, ["title"])}
V3 = {"create_ticket": schema({"title": TITLE, "description": TITLE, "priority": PRIORITY}, ["title", "priority"])}
V4 = {**V3, "close_ticket": schema({"id": TITLE}, ["id"])}


def history() -> RegistryHistory:
    return RegistryHistory(
        [("v1", V1, "2026-01-01"), ("v2", V2, "2026-02-01"), ("v3", V3, "2026-03-01"), ("v4", V4, "2026-04-01")]
    )


def call(arguments: dict[str, Any] | str, month: int, number: int = 0, name: str = "create_ticket") -> ObservedCall:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    ts = datetime(2026, month, 15, tzinfo=timezone.utc)
    return ObservedCall(name, text, id=f"call_{month}_{number}", ts=ts, origin=f"calls.jsonl:{month}{number}")


@pytest.fixture
def clean_default() -> Iterator[Migrations]:
    """The default collection, restored after the test (the decorator writes to process-wide state)."""
    saved = list(default_migrations())
    try:
        yield default_migrations()
    finally:
        default_migrations().clear()
        default_migrations().update(saved)


def rename_body(arguments: dict[str, Any]) -> dict[str, Any]:
    arguments = dict(arguments)
    if "body" in arguments:
        arguments["description"] = arguments.pop("body")
    return arguments


def add_priority(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"priority": "normal", **arguments}


def chain() -> Migrations:
    migrations = Migrations()
    migrations.add("create_ticket", "v1", "v2", rename_body)
    migrations.add("create_ticket", "v2", "v3", add_priority)
    return migrations


# -- registration ----------------------------------------------------------------------------------------------------


def test_the_module_doctests_pass() -> None:
    assert doctest.testmod(_migrations).failed == 0


def test_the_decorator_registers_the_function_and_returns_it_unchanged() -> None:
    migrations = Migrations()

    @migrations.migration("create_ticket", from_="v1", to="v2")
    def upgrade(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "seen": True}

    assert upgrade({"a": 1}) == {"a": 1, "seen": True}
    found = migrations.get("create_ticket", "v1", "v2")
    assert found is not None and found.function is upgrade
    assert found.where.endswith("upgrade")
    assert migrations.get("create_ticket", "v2", "v3") is None
    assert len(migrations) == 1 and list(migrations) == [found]
    assert migrations.for_tool("create_ticket") == (found,) and migrations.for_tool("other") == ()


def test_the_module_level_decorator_writes_to_the_default_collection(clean_default: Migrations) -> None:
    before = len(clean_default)

    @migration("create_ticket", from_="v1", to="v2")
    def upgrade(arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    assert len(clean_default) == before + 1
    assert clean_default.get("create_ticket", "v1", "v2") is not None
    # A collection of its own is untouched by the decorator.
    assert Migrations().get("create_ticket", "v1", "v2") is None


def test_two_functions_for_the_same_step_are_refused_but_the_same_one_again_replaces() -> None:
    migrations = Migrations()
    migrations.add("t", "v1", "v2", rename_body)
    migrations.add("t", "v1", "v2", rename_body)  # a module imported twice registers the same function again
    assert len(migrations) == 1
    with pytest.raises(ValueError, match=r"two migrations for t from 'v1' to 'v2'.*rename_body.*add_priority"):
        migrations.add("t", "v1", "v2", add_priority)
    with pytest.raises(ValueError, match="two migrations"):
        Migrations([*chain(), Migration("create_ticket", "v1", "v2", add_priority, "elsewhere.fn")])


@pytest.mark.parametrize(
    ("tool", "start", "end", "function", "error", "message"),
    [
        ("", "v1", "v2", rename_body, TypeError, "tool must be a non-empty str"),
        ("t", None, "v2", rename_body, TypeError, "from_ must be a non-empty str"),
        ("t", "v1", "", rename_body, TypeError, "to must be a non-empty str"),
        ("t", "v1", "v1", rename_body, ValueError, "to itself"),
        ("t", "v1", "v2", "not callable", TypeError, "is not callable"),
    ],
)
def test_a_malformed_registration_is_refused(
    tool: Any, start: Any, end: Any, function: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        Migrations().add(tool, start, end, function)


# -- one migration on one call ---------------------------------------------------------------------------------------


def test_a_migration_runs_on_copies_and_returns_plain_json() -> None:
    def mutating(arguments: dict[str, Any]) -> dict[str, Any]:
        arguments["tags"].append("migrated")
        return arguments

    step = Migration("t", "v1", "v2", mutating, "tests.mutating")
    given = {"tags": ["a"]}
    assert step(given) == {"tags": ["a", "migrated"]}
    assert given == {"tags": ["a"]}, "the caller's arguments are never touched"


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (lambda arguments: arguments["missing"], r"raised KeyError: 'missing'"),
        (lambda arguments: [arguments], r"returned a list; return the arguments as a dict"),
        (lambda arguments: None, r"returned a NoneType"),
        (lambda arguments: {"when": datetime(2026, 1, 1)}, r"returned arguments that are not JSON"),
        (lambda arguments: {"x": float("nan")}, r"returned arguments that are not JSON"),
    ],
)
def test_a_failing_migration_is_a_migration_error_naming_it(function: Any, message: str) -> None:
    step = Migration("create_ticket", "v1", "v2", function, "tickets.upgrade")
    with pytest.raises(MigrationError, match=r"migration create_ticket v1->v2 \(tickets\.upgrade\) " + message):
        step({"title": "x"})


def test_a_non_deterministic_migration_is_caught_by_running_it_twice() -> None:
    counter = itertools.count()
    step = Migration("t", "v1", "v2", lambda arguments: {**arguments, "n": next(counter)}, "tests.counter")
    with pytest.raises(MigrationError, match=r"is not deterministic: .*\{\"n\":0\}.*\{\"n\":1\}"):
        step({})
    # Key order is no difference: the results are compared as JSON objects.
    flip = itertools.cycle([{"a": 1, "b": 2}, {"b": 2, "a": 1}])
    assert Migration("t", "v1", "v2", lambda arguments: dict(next(flip)), "tests.flip")({}) == {"a": 1, "b": 2}


def test_the_exception_of_a_failing_migration_is_chained() -> None:
    step = Migration("t", "v1", "v2", lambda arguments: 1 / 0, "tests.divide")
    with pytest.raises(MigrationError) as caught:
        step({})
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


# -- chains along a history ------------------------------------------------------------------------------------------


def test_migrations_chain_along_the_history_in_order() -> None:
    calls = [call({"title": "printer", "body": "jammed"}, 1), call({"title": "vpn", "description": "drops"}, 2)]
    report = replay_history(history(), calls, chain())
    assert report.ok, report.render()
    assert report.carried == 2 and report.migrated == 2
    # v1 crossed both migrations; v2 the second; v3->v4 left create_ticket unchanged, so it is no link at all.
    assert {key: (link.migration, link.calls) for key, link in report.links.items()} == {
        ("create_ticket", "v1", "v2"): (f"{__name__}.rename_body", 1),
        ("create_ticket", "v2", "v3"): (f"{__name__}.add_priority", 2),
    }


def test_the_migrated_arguments_are_what_the_current_version_checks() -> None:
    # rename_body must run before add_priority: reversed, the body would stay and v3 would refuse it.
    seen: list[dict[str, Any]] = []

    def spy(arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append(arguments)
        return add_priority(arguments)

    migrations = Migrations([m for m in chain() if m.to != "v3"])
    migrations.add("create_ticket", "v2", "v3", spy)
    report = replay_history(history(), [call({"title": "printer", "body": "jammed"}, 1)], migrations)
    assert report.ok
    assert seen[0] == {"title": "printer", "description": "jammed"}


def test_a_shortcut_migration_is_preferred_over_the_chain() -> None:
    used: list[str] = []

    def direct(arguments: dict[str, Any]) -> dict[str, Any]:
        used.append("direct")
        return add_priority(rename_body(arguments))

    migrations = chain()
    migrations.add("create_ticket", "v1", "v3", direct)
    report = replay_history(history(), [call({"title": "printer", "body": "jammed"}, 1)], migrations)
    assert report.ok
    assert used == ["direct", "direct"]  # run twice: the determinism check
    assert set(report.links) == {("create_ticket", "v1", "v3")}


def test_a_missing_link_is_reported_with_the_calls_it_strands() -> None:
    migrations = Migrations([m for m in chain() if m.from_ == "v2"])  # no v1->v2: body was renamed there
    calls = [call({"title": "printer", "body": "jammed"}, 1), call({"title": "no body"}, 1, 1)]
    report = replay_history(history(), calls, migrations)
    assert report.counts["no_migration_path"] == 1
    assert report.carried == 1  # the call without body needed no rename: carried unchanged, then migrated
    link = report.links[("create_ticket", "v1", "v2")]
    assert link.migration is None and link.calls == 2 and link.failed == 1
    (problem,) = report.problems["no_migration_path"]
    assert problem.id == "call_1_0" and problem.version == "v1" and problem.rule == "time"
    assert "no migration of create_ticket for v1->v2 (the schema changed there)" in problem.reason
    assert "UNEXPECTED_ARGUMENT at /body" in problem.reason
    assert problem.codes == ("UNEXPECTED_ARGUMENT",)
    assert not report.ok and report.exit_code() == 1


def test_a_compatible_change_needs_no_migration() -> None:
    # v2 -> v2b adds an optional field: calls are carried unchanged and stay valid.
    optional = {"create_ticket": schema({"title": TITLE, "description": TITLE, "tag": TITLE}, ["title"])}
    steps = RegistryHistory([("v2", V2, "2026-02-01"), ("v2b", optional, "2026-02-20")])
    report = replay_history(steps, [call({"title": "vpn"}, 2, 0)], Migrations())
    assert report.ok and report.carried == 1 and report.migrated == 0
    assert report.links[("create_ticket", "v2", "v2b")].migration is None


def test_a_migration_that_fails_on_one_call_is_reported_and_the_run_goes_on() -> None:
    def strict_rename(arguments: dict[str, Any]) -> dict[str, Any]:
        arguments["description"] = arguments.pop("body")  # KeyError when there is no body
        return arguments

    migrations = Migrations()
    migrations.add("create_ticket", "v1", "v2", strict_rename)
    migrations.add("create_ticket", "v2", "v3", add_priority)
    calls = [call({"title": "a", "body": "b"}, 1, 0), call({"title": "no body"}, 1, 1), call({"title": "c"}, 2, 2)]
    report = replay_history(history(), calls, migrations)
    assert report.counts["migration_failed"] == 1 and report.carried == 2
    (problem,) = report.problems["migration_failed"]
    assert problem.id == "call_1_1"
    assert "strict_rename) raised KeyError: 'body'" in problem.reason
    assert report.links[("create_ticket", "v1", "v2")].failed == 1


def test_a_non_deterministic_migration_fails_its_calls_in_a_replay() -> None:
    counter = itertools.count()
    migrations = Migrations()
    migrations.add("create_ticket", "v1", "v2", rename_body)
    migrations.add("create_ticket", "v2", "v3", lambda arguments: {**arguments, "priority": str(next(counter))})
    report = replay_history(history(), [call({"title": "a"}, 2)], migrations)
    (problem,) = report.problems["migration_failed"]
    assert "is not deterministic" in problem.reason


def test_arguments_that_a_migration_leaves_invalid_are_reported_as_such() -> None:
    migrations = Migrations()
    migrations.add("create_ticket", "v1", "v2", rename_body)
    migrations.add("create_ticket", "v2", "v3", lambda arguments: {**arguments, "priority": "urgent"})
    report = replay_history(history(), [call({"title": "a", "body": "b"}, 1)], migrations)
    (problem,) = report.problems["invalid_after_migration"]
    assert problem.codes == ("ENUM_OUT_OF_RANGE",)
    assert "migrated by v1->v2" in problem.reason and "v2->v3" in problem.reason
    assert "v4 refuses it: ENUM_OUT_OF_RANGE at /priority" in problem.reason


def test_migrations_the_history_cannot_use_are_noted() -> None:
    migrations = chain()
    migrations.add("create_ticket", "v0", "v1", rename_body)
    migrations.add("create_ticket", "v3", "v2", rename_body)
    report = replay_history(history(), [], migrations)
    assert any("v0->v1" in note and "no version 'v0'" in note for note in report.notes)
    assert any("v3->v2" in note and "is not later than v3" in note for note in report.notes)


def test_an_invalid_call_is_not_migrated() -> None:
    ran: list[int] = []
    migrations = Migrations()
    migrations.add("create_ticket", "v1", "v2", lambda arguments: ran.append(1) or arguments)
    report = replay_history(history(), [call({"body": "no title"}, 1)], migrations)
    assert report.counts["invalid_when_produced"] == 1 and not ran


def test_calls_with_no_arguments_reach_a_migration_as_an_empty_object() -> None:
    tools = {"ping": schema({}, [])}
    newer = {"ping": schema({"verbose": {"type": "boolean"}}, ["verbose"])}
    migrations = Migrations()
    migrations.add("ping", "a", "b", lambda arguments: {**arguments, "verbose": False})
    steps = RegistryHistory([("a", tools, "2026-01-01"), ("b", newer, "2026-02-01")])
    report = replay_history(steps, [call("", 1, name="ping")], migrations)
    assert report.ok and report.migrated == 1


# -- --migrations ----------------------------------------------------------------------------------------------------


def test_load_migrations_imports_a_module_and_takes_a_collection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_default: Migrations
) -> None:
    (tmp_path / "mig_decorated.py").write_text(
        "from toolwire.schema.history._migrations import migration\n\n"
        "@migration('create_ticket', from_='v1', to='v2')\n"
        "def upgrade(arguments):\n    return arguments\n",
        encoding="utf-8",
    )
    (tmp_path / "mig_collection.py").write_text(
        "from toolwire.schema.history._migrations import Migrations\n\n"
        "MIGRATIONS = Migrations()\n\n"
        "@MIGRATIONS.migration('create_ticket', from_='v2', to='v3')\n"
        "def upgrade(arguments):\n    return arguments\n\n"
        "NOT_MIGRATIONS = {'a': 1}\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "mig_decorated", raising=False)
    monkeypatch.delitem(sys.modules, "mig_collection", raising=False)
    try:
        found = load_migrations(["mig_decorated", "mig_collection:MIGRATIONS"])
        assert {(m.from_, m.to) for m in found} == {("v1", "v2"), ("v2", "v3")}
        assert str(tmp_path) not in sys.path, "the working directory is on sys.path only while importing"
        with pytest.raises(ValueError, match=r"dict is not a toolwire\.Migrations collection"):
            load_migrations(["mig_collection:NOT_MIGRATIONS"])
        with pytest.raises(ValueError, match=r"cannot import 'no_such_module_here'"):
            load_migrations(["no_such_module_here"])
        with pytest.raises(ValueError, match=r"--migrations: cannot import 'mig_collection:MISSING'"):
            load_migrations(["mig_collection:MISSING"])
    finally:
        sys.modules.pop("mig_decorated", None)
        sys.modules.pop("mig_collection", None)
