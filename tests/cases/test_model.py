"""Case files: the published schema, the loader, its defaults and tool sources, and every kind of loader error."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.cases.helpers import SUPPORT_TOOLS, SUPPORT_TOOLS_PATH, turn, write_case_file
from toolwire._core import ToolValidators, schema_problems
from toolwire.cases import (
    EXAMPLES,
    SCHEMA_PATH,
    CaseFileError,
    Matcher,
    case_file_schema,
    load_cases,
)
from toolwire.errors import ToolwireError
from toolwire.registry import ToolRegistry

EXAMPLE = EXAMPLES / "support.yaml"


def write_yaml(folder: Path, text: str, name: str = "cases.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems_of(path: Path, **options: Any) -> list[str]:
    with pytest.raises(CaseFileError) as caught:
        load_cases(path, **options)
    return [str(problem) for problem in caught.value.problems]


# -- the published schema --------------------------------------------------------------------------------------------


def test_the_schema_is_valid_against_the_2020_12_meta_schema() -> None:
    text = SCHEMA_PATH.read_bytes()
    assert schema_problems(text, "2020-12") == []
    assert json.loads(text)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert case_file_schema() == json.loads(text)


def test_the_schema_refuses_what_the_meta_schema_refuses() -> None:
    # The check above can fail: the same validator finds a broken copy of the schema.
    broken = case_file_schema()
    broken["$defs"]["mode"]["enum"] = "exact"
    broken["$defs"]["max_turns"]["minimum"] = "one"
    found = schema_problems(json.dumps(broken).encode(), "2020-12")
    assert {pointer for pointer, _ in found} >= {"/$defs/mode/enum", "/$defs/max_turns/minimum"}


def test_the_example_is_valid_against_the_schema() -> None:
    validator = ToolValidators([("case-file", SCHEMA_PATH.read_text(), "")], [], 128)
    data = yaml.safe_load(EXAMPLE.read_text())
    assert validator.validate("case-file", json.dumps(data), call=False) == []
    data["cases"][1]["expect"]["mode"] = "sometimes"
    found = validator.validate("case-file", json.dumps(data), call=False)
    assert [violation.path for violation in found] == ["/cases/1/expect/mode"]


# -- the example and the loader ---------------------------------------------------------------------------------------


def test_the_example_loads_with_its_defaults_and_tools() -> None:
    cases = load_cases(EXAMPLE)
    assert [case.name for case in cases.cases] == [
        "opening hours",
        "cancel subscription",
        "weather in two cities",
        "urgent ticket",
    ]
    assert cases.tools == SUPPORT_TOOLS
    hours, cancel, weather, ticket = cases.cases
    assert hours.expect.no_tool_call and not hours.expect.alternatives
    assert [m["role"] for m in hours.messages] == ["system", "user"]
    assert cancel.max_turns == 3 and hours.max_turns == 1  # the file's default, and the case's own
    assert cancel.expect.alternatives[0].mode == "in_order"
    assert [step[0].name for step in cancel.expect.alternatives[0].steps] == [
        "lookup_subscription",
        "cancel_subscription",
    ]
    assert cancel.tool_results["lookup_subscription"]["subscription_id"] == "sub_42"
    assert weather.expect.alternatives[0].mode == "unordered"
    assert ticket.tool_choice == "required" and ticket.expect.finish_reason == ("tool_calls",)
    assert ticket.expect.alternatives[0].mode == "exact"  # the built-in default
    assert all(case.min_pass_rate == 1.0 and case.repeat == 1 for case in cases.cases)
    assert ticket.origin == f"{EXAMPLE}#3"
    assert cases["urgent ticket"] is ticket


def test_a_json_case_file_loads_as_its_yaml_twin(tmp_path: Path) -> None:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["tools"] = str(SUPPORT_TOOLS_PATH)
    from_json = load_cases(write_case_file(tmp_path, data))
    from_yaml = load_cases(EXAMPLE)
    for mine, theirs in zip(from_json.cases, from_yaml.cases, strict=True):
        assert (mine.name, mine.messages, mine.expect, mine.tools) == (
            theirs.name,
            theirs.messages,
            theirs.expect,
            theirs.tools,
        )


def test_defaults_apply_where_a_case_sets_nothing(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path,
        f"""
        tools: {SUPPORT_TOOLS_PATH}
        defaults:
          mode: unordered
          strict_args: true
          max_turns: 2
          repeat: 5
          min_pass_rate: 0.8
          tool_choice: {{name: get_weather}}
          tool_results: {{get_weather: sunny, lookup_subscription: {{id: 1}}}}
        cases:
          - name: inherits
            prompt: Weather?
            expect: {{calls: [get_weather]}}
          - name: overrides
            prompt: Weather?
            max_turns: 1
            repeat: 1
            min_pass_rate: 0.5
            tool_choice: auto
            tool_results: {{get_weather: rainy}}
            expect:
              mode: exact
              strict_args: false
              calls: [{{name: get_weather, arguments: {{city: Paris}}, strict_args: true}}, get_weather]
        """,
    )
    with pytest.raises(CaseFileError, match="max_turns is 1"):
        load_cases(path)  # two exact steps need two turns
    path.write_text(path.read_text().replace("mode: exact", "mode: superset"))
    inherits, overrides = load_cases(path).cases
    assert inherits.expect.alternatives[0].mode == "unordered"
    assert inherits.expect.alternatives[0].steps[0][0].strict_args is True
    assert (inherits.max_turns, inherits.repeat, inherits.min_pass_rate) == (2, 5, 0.8)
    assert inherits.tool_choice == {"name": "get_weather"}
    assert inherits.tool_results == {"get_weather": "sunny", "lookup_subscription": {"id": 1}}
    assert (overrides.max_turns, overrides.repeat, overrides.min_pass_rate, overrides.tool_choice) == (
        1,
        1,
        0.5,
        "auto",
    )
    assert overrides.tool_results == {"get_weather": "rainy", "lookup_subscription": {"id": 1}}
    first, second = (step[0] for step in overrides.expect.alternatives[0].steps)
    assert (first.strict_args, second.strict_args) == (True, False)


def test_tools_from_an_import_path_inline_and_the_argument(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_tools.py").write_text(
        "from toolwire import ToolRegistry\n"
        "TOOLS = ToolRegistry({'ping': {'type': 'object', 'properties': {'host': {'type': 'string'}}}})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    path = write_yaml(
        tmp_path,
        """
        tools: my_tools:TOOLS
        cases:
          - name: imported
            prompt: Ping it.
            expect: {calls: [ping]}
          - name: inline
            prompt: Pong it.
            tools: {pong: {type: object}}
            expect: {calls: [pong]}
        """,
    )
    imported, inline = load_cases(path, allow_imports=True).cases
    assert imported.tools.names == ("ping",)
    assert inline.tools.names == ("pong",)
    # tools= stands for the file's tools; a case's own still win.
    replaced = load_cases(path, tools=ToolRegistry({"ping": {"type": "object"}, "other": None}))
    assert replaced.cases[0].tools.names == ("ping", "other")
    assert replaced.cases[1].tools.names == ("pong",)


IMPORTED_MODULE = """
from pathlib import Path
from toolwire import ToolRegistry
Path(__file__).with_name("imported.marker").write_text("the module ran")
TOOLS = ToolRegistry({"ping": {"type": "object"}})
"""


@pytest.fixture
def importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on sys.path holding ``case_tools_probe``, a module that leaves a marker file when it is imported."""
    (tmp_path / "case_tools_probe.py").write_text(IMPORTED_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "case_tools_probe", raising=False)
    return tmp_path


def test_a_case_file_cannot_import_code_unless_allowed(importable: Path) -> None:
    path = write_yaml(
        importable,
        """
        tools: case_tools_probe:TOOLS
        cases:
          - name: own tools
            prompt: Ping it.
            tools: case_tools_probe:TOOLS
            expect: {calls: [ping]}
        """,
    )
    file_level, case_level = problems_of(path)
    assert file_level.startswith(f"{path}:2: at /tools: 'case_tools_probe:TOOLS' is a Python import path; ")
    assert case_level.startswith(f"{path}:6: case 0 ('own tools') at /cases/0/tools: 'case_tools_probe:TOOLS'")
    for problem in (file_level, case_level):
        assert "would import 'case_tools_probe' and run its code" in problem
        assert "fix: if you trust the file, allow imports (toolwire matrix --allow-imports" in problem
        assert "allow-imports = true under [tool.toolwire.cases]" in problem
        assert "load_cases(..., allow_imports=True)" in problem
        assert "\n" not in problem
    assert not (importable / "imported.marker").exists()
    assert "case_tools_probe" not in __import__("sys").modules
    # Allowed, the same file loads (and the module ran).
    assert load_cases(path, allow_imports=True).cases[0].tools.names == ("ping",)
    assert (importable / "imported.marker").exists()


def test_an_import_path_the_caller_gives_needs_no_opt_in(importable: Path) -> None:
    path = write_yaml(importable, "cases: [{name: c, prompt: p, expect: {calls: [ping]}}]\n")
    assert load_cases(path, tools="case_tools_probe:TOOLS").cases[0].tools.names == ("ping",)


def test_matrix_allows_imports_by_flag_or_config(
    importable: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolwire.cli import main
    from toolwire.server import LocalEndpoint

    path = write_yaml(
        importable, "tools: case_tools_probe:TOOLS\ncases: [{name: c, prompt: p, expect: {calls: [ping]}}]\n"
    )
    monkeypatch.chdir(importable)
    pyproject = importable / "pyproject.toml"
    with LocalEndpoint() as endpoint:
        # The bundled model answers text to a prompt without a forced tool: the case runs and fails (exit 1).
        argv = ["matrix", str(path), "--model", f"openai-chat:clean@{endpoint.url}", "-q"]
        assert main(argv) == 2
        refused = capsys.readouterr().err.splitlines()
        assert refused[0] == f"toolwire matrix: {path}: 1 problem in the case file"
        assert refused[1].startswith(f"  {path}:1: at /tools: 'case_tools_probe:TOOLS' is a Python import path")
        assert not (importable / "imported.marker").exists()
        assert main([*argv, "--allow-imports"]) == 1
        assert (importable / "imported.marker").read_text() == "the module ran"
        (importable / "imported.marker").unlink()
        monkeypatch.delitem(__import__("sys").modules, "case_tools_probe")
        pyproject.write_text("[tool.toolwire.cases]\nallow-imports = true\n", encoding="utf-8")
        assert main(argv) == 1
        assert (importable / "imported.marker").exists()
        capsys.readouterr()
        for table, message in (
            ("allow-imports = 'yes'", "[tool.toolwire.cases].allow-imports: true or false; got 'yes'"),
            ("allow_imports = true", "[tool.toolwire.cases]: unknown key(s) allow_imports; known: allow-imports"),
        ):
            pyproject.write_text(f"[tool.toolwire.cases]\n{table}\n", encoding="utf-8")
            assert main(argv) == 2
            assert capsys.readouterr().err == f"toolwire matrix: {pyproject}: {message}\n"
        other = importable / "elsewhere.toml"
        other.write_text("[tool.toolwire.cases]\nallow-imports = true\n", encoding="utf-8")
        assert main([*argv, "--config", str(other)]) == 1


def test_a_case_wants_another_turn_while_it_has_calls_and_turns_left() -> None:
    cancel = load_cases(EXAMPLE)["cancel subscription"]
    lookup = turn([("lookup_subscription", {"email": "ann@example.com"})])
    done = turn(text="Done.")
    assert cancel.wants_next_turn([lookup])
    assert not cancel.wants_next_turn([lookup, done])
    assert not cancel.wants_next_turn([lookup, lookup, lookup])
    assert not load_cases(EXAMPLE)["weather in two cities"].wants_next_turn([lookup])


def reparse(tmp_path: Path, value: Any) -> Matcher:
    data = {
        "tools": {"echo": {"type": "object"}},
        "cases": [{"name": "c", "prompt": "p", "expect": {"calls": [{"name": "echo", "arguments": {"x": value}}]}}],
    }
    return load_cases(write_case_file(tmp_path, data)).cases[0].expect.alternatives[0].steps[0][0].arguments["x"]


matcher_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "city"]), inner, max_size=2)
    | st.builds(lambda options: {"one_of": options}, st.lists(inner, min_size=1, max_size=3))
    | st.builds(lambda kind: {"is": kind}, st.sampled_from(["any", "any_string", "any_integer"]))
    | st.builds(lambda value: {"exact": value, "optional": True}, inner),
    max_leaves=8,
)


@given(matcher_values)
def test_a_matcher_is_shown_as_a_case_file_spells_it(tmp_path_factory: Any, value: Any) -> None:
    folder = tmp_path_factory.mktemp("m")
    matcher = reparse(folder, value)
    assert reparse(folder, matcher.as_json()) == matcher


# -- loader errors: each names the file, the case, the place and the fix ---------------------------------------------


def test_bad_yaml_names_the_line_and_the_case(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path,
        """
        tools: tools.yaml
        cases:
          - name: first
            prompt: Hello
            expect: {no_tool_call: true}
          - name: second
            prompt: Weather: in Paris? {
            expect: {no_tool_call: true}
        """,
    )
    (found,) = problems_of(path)
    assert found.startswith(f"{path}:8: case 1 ('second') at /: invalid YAML")
    assert "fix: fix the YAML at line 8" in found


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text('{"cases": [\n  {"name": "a",}\n]}')
    (found,) = problems_of(path)
    assert found.startswith(f"{path}:2: at /: invalid JSON")


@pytest.mark.parametrize(
    ("fragment", "pointer", "words"),
    [
        (
            "expect: {mdoe: in_order, calls: [get_weather]}",
            "/cases/0/expect/mdoe",
            "unknown key 'mdoe'; fix: remove it; "
            "the keys allowed here are calls, one_of, mode, strict_args, no_tool_call, finish_reason (did you mean 'mode'?)",
        ),
        (
            "expect: {mode: unorderd, calls: [get_weather]}",
            "/cases/0/expect/mode",
            "'unorderd' is not one of the "
            "allowed values; fix: use one of exact, in_order, unordered, superset, subset (did you mean 'unordered'?)",
        ),
        (
            "expect: {calls: [{name: get_weather, arguments: {city: {one_of: Paris}}}]}",
            "/cases/0/expect/calls/0/arguments/city/one_of",
            "expected array, got string",
        ),
        (
            "expect: {calls: [{name: get_weather, arguments: {city: {regex: P, is: any_string}}}]}",
            "/cases/0/expect/calls/0/arguments/city",
            "a matcher takes one of exact, one_of, regex and is",
        ),
        (
            "messages: [{role: user, content: hi}]\n    expect: {no_tool_call: true}",
            "/cases/0",
            "a case has a prompt or messages, not both",
        ),
        (
            "expect: {no_tool_call: true, calls: [get_weather]}",
            "/cases/0/expect",
            "no_tool_call: true goes with neither calls nor one_of",
        ),
        ("expect: {}", "/cases/0/expect", "the expectation is empty; fix: add calls, one_of"),
        ("max_turns: 0\n    expect: {no_tool_call: true}", "/cases/0/max_turns", "minimum"),
    ],
)
def test_schema_violations_name_the_pointer_and_the_case(
    tmp_path: Path, fragment: str, pointer: str, words: str
) -> None:
    text = f"tools: {SUPPORT_TOOLS_PATH}\ncases:\n  - name: the case\n    prompt: Hi\n    {fragment}\n"
    path = tmp_path / "cases.yaml"
    path.write_text(text)
    found = problems_of(path)
    assert any(f"case 0 ('the case') at {pointer}: " in problem and words in problem for problem in found), found
    assert all(problem.startswith(f"{path}:") for problem in found)


def test_a_missing_prompt_is_named(tmp_path: Path) -> None:
    path = write_case_file(
        tmp_path, {"tools": str(SUPPORT_TOOLS_PATH), "cases": [{"name": "x", "expect": {"no_tool_call": True}}]}
    )
    assert problems_of(path) == [
        f"{path}: case 0 ('x') at /cases/0/prompt: missing key 'prompt'; fix: add prompt: (or messages:)"
    ]


def test_a_missing_tools_file_is_named_with_where_it_was_looked_for(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path,
        """
        cases:
          - name: lost
            prompt: Hi
            tools: nowhere/tools.yaml
            expect: {no_tool_call: true}
        """,
    )
    (found,) = problems_of(path)
    assert found == (
        f"{path}:5: case 0 ('lost') at /cases/0/tools: no tools file {tmp_path / 'nowhere' / 'tools.yaml'}; "
        f"fix: check the path (a relative path is read from the case file's folder, {tmp_path})"
    )


@pytest.mark.parametrize(
    ("expect", "extra", "pointer", "words"),
    [
        ({"calls": ["get_wether"]}, {}, "/cases/0/expect/calls/0", "did you mean 'get_weather'?"),
        (
            {"calls": [{"name": "create_ticket", "arguments": {"priority": "critical"}}]},
            {},
            "/cases/0/expect/calls/0/arguments/priority",
            'the case pins "critical", which create_ticket\'s schema refuses',
        ),
        (
            {"calls": [{"name": "get_weather", "arguments": {"unit": {"one_of": ["celsius", "kelvin"]}}}]},
            {},
            "/cases/0/expect/calls/0/arguments/unit",
            'the case pins "kelvin"',
        ),
        (
            {"calls": [{"name": "get_weather", "arguments": {"town": "Paris"}}]},
            {},
            "/cases/0/expect/calls/0/arguments/town",
            "get_weather takes no argument 'town'; fix: its arguments are: city, unit",
        ),
        (
            {"calls": [{"name": "get_weather", "arguments": {"city": {"regex": "Par(is"}}}]},
            {},
            "/cases/0/expect/calls/0/arguments/city/regex",
            "the regex does not compile",
        ),
        (
            {"mode": "in_order", "calls": ["lookup_subscription", "cancel_subscription"]},
            {},
            "/cases/0/expect/calls",
            "write them as one list ([[a, b]]), use mode unordered, or raise max_turns",
        ),
        (
            {"no_tool_call": True},
            {"tool_results": {"get_weathr": 1}},
            "/cases/0/tool_results/get_weathr",
            "tool_results answers 'get_weathr'",
        ),
        (
            {"no_tool_call": True},
            {"tool_choice": {"name": "weather"}},
            "/cases/0/tool_choice/name",
            "tool_choice names 'weather'",
        ),
        ({"no_tool_call": False}, {}, "/cases/0/expect", "the expectation pins nothing"),
    ],
)
def test_what_the_schema_cannot_say_is_checked_too(
    tmp_path: Path, expect: dict[str, Any], extra: dict[str, Any], pointer: str, words: str
) -> None:
    path = write_case_file(
        tmp_path,
        {"tools": str(SUPPORT_TOOLS_PATH), "cases": [{"name": "c", "prompt": "p", "expect": expect, **extra}]},
    )
    found = problems_of(path)
    assert any(problem.startswith(f"{path}: case 0 ('c') at {pointer}: ") and words in problem for problem in found), (
        found
    )


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path,
        f"""
        tools: {SUPPORT_TOOLS_PATH}
        cases:
          - name: twice
            prompt: a
            expect: {{calls: [get_wether]}}
          - name: twice
            prompt: b
            expect: {{calls: [lookup]}}
        """,
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, ToolwireError)
    assert [(p.case, p.pointer) for p in error.problems] == [
        (0, "/cases/0/expect/calls/0"),
        (1, "/cases/1/name"),
        (1, "/cases/1/expect/calls/0"),
    ]
    assert str(error).splitlines()[0] == f"{path}: 3 problems in the case file"
    assert "case #0 has the same name" in str(error)


def test_yaml_values_json_cannot_hold_are_named(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path,
        f"""
        tools: {SUPPORT_TOOLS_PATH}
        cases:
          - name: dated
            prompt: p
            expect:
              calls: [{{name: get_weather, arguments: {{city: 2024-01-01}}}}]
              yes: 1
        """,
    )
    found = problems_of(path)
    assert any(
        "at /cases/0/expect/calls/0/arguments/city: 2024-01-01 reads as a date; fix: quote it" in p for p in found
    )
    assert any("at /cases/0/expect: the key True is a bool; fix: quote it" in p for p in found)


def test_a_case_without_tools_is_named(tmp_path: Path) -> None:
    path = write_case_file(tmp_path, {"cases": [{"name": "bare", "prompt": "p", "expect": {"no_tool_call": True}}]})
    assert problems_of(path) == [
        f"{path}: case 0 ('bare') at /cases/0: the case has no tools; fix: add tools: to the case or to the file "
        "(a registry file or import path)"
    ]


def test_files_that_are_not_case_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such case file"):
        load_cases(tmp_path / "absent.yaml")
    (tmp_path / "cases.txt").write_text("cases: []")
    with pytest.raises(ValueError, match=r"use \.yaml, \.yml or \.json"):
        load_cases(tmp_path / "cases.txt")
    path = write_yaml(tmp_path, "tools: x.yaml\n")
    assert problems_of(path) == [f"{path}:1: at /cases: missing key 'cases'; fix: add cases:"]
