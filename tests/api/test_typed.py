"""What a user's type checker sees of the public API, for the Rust core and the reference alike.

A user script that calls every entry point as a user would is type-checked with mypy (strict): it passes, and the
revealed type of ``reassemble`` shows its parameters. A script that passes a wrong keyword, a wrong literal or a value
``tools=`` does not load must be refused, line by line. mypy is the check: pyright is not installable offline here.

Both packages are checked in one mypy run (analysing toolwire is most of its cost), with a config of its own so the
project's settings (``files = [...]``) do not leak in.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import toolwire
import toolwire.reference
from tests.support.implementations import IMPLEMENTATIONS
from toolwire import _core
from toolwire._pipeline import _exports
from toolwire._pipeline._api import Api

mypy_api = pytest.importorskip("mypy.api")

#: The import name of each implementation, as a user's script spells it.
PACKAGES = {key: module.__name__ for key, module in IMPLEMENTATIONS.items()}

#: Every entry point called with typical arguments; ``PKG`` is replaced by the package under test.
USER_SCRIPT = """
from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from openai.types.chat import ChatCompletionToolParam

import toolwire
import PKG as tw

reveal_type(tw.reassemble)

TOOLS: list[ChatCompletionToolParam] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
]
BODY = b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\\n\\ndata: [DONE]\\n\\n'


def on_violation(violation: toolwire.Violation) -> None:
    print(violation.code)


def repair(call: toolwire.InvalidToolCall) -> dict[str, Any] | None:
    return None


def calls(chunks: Iterator[dict[str, Any]], body: BinaryIO, lines: list[str]) -> toolwire.StreamResult:
    stream: toolwire.ToolCallStream = tw.reassemble(
        BODY,
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
        emit="complete",
        on_invalid="yield",
        on_violation=on_violation,
        limits=toolwire.Limits(max_depth=64),
        repair=repair,
        format="openai-chat",
    )
    for call in stream:
        if isinstance(call, toolwire.ToolCall):
            print(call.name, call.arguments)
    with tw.reassemble(body, tools=Path("tools.json")) as from_file:
        list(from_file)
    list(tw.reassemble(chunks, tools={"get_weather": {"type": "object"}}, tool_choice="required"))
    list(tw.reassemble(lines, tools=tw.ToolRegistry(TOOLS), format="ollama"))
    for event in tw.events(chunks, tools=TOOLS, emit="stream_end", format="anthropic-messages"):
        if isinstance(event, toolwire.ArgumentsDelta):
            print(event.snapshot())
    violations: list[toolwire.Violation] = tw.validate("get_weather", '{"city": "Paris"}', TOOLS)
    parsed: list[toolwire.Violation] = tw.validate("get_weather", {"city": "Paris"}, TOOLS, limits=toolwire.Limits())
    batch: list[list[toolwire.Violation]] = tw.validate_many(
        [("get_weather", "{}"), {"name": "get_weather", "arguments": "{}"}, *stream.result.calls], TOOLS
    )
    print(violations, parsed, batch)
    reassembler = tw.Reassembler(tools=TOOLS, on_invalid="yield", format="gemini", snapshots=True)
    reassembler.feed({"candidates": []})
    reassembler.feed_bytes(BODY)
    reassembler.finish()
    kept: tw.Reassembler = reassembler
    kept.close()
    return tw.normalize({"choices": []}, tools=TOOLS, tool_choice="auto", format="openai-chat")


async def acalls(source: AsyncIterator[bytes]) -> None:
    async for call in tw.areassemble(source, tools=TOOLS, format="bedrock-converse"):
        print(call.id)
    async for event in tw.aevents(source, tools=TOOLS, format="openai-responses"):
        print(event)
"""

#: Each line must be refused; the comment names what mypy says.
WRONG_SCRIPT = """
import PKG as tw

tw.reassemble(b"", tool=[])  # unexpected keyword
tw.reassemble(b"", format="openai")  # not a wire format
tw.reassemble(b"", emit="sometime")  # not an emission policy
tw.reassemble(b"", on_invalid="ignore")  # not an on_invalid policy
tw.reassemble(b"", tools="tools.json")  # a str is not a tools source: a Path is
tw.reassemble(b"", tools=3)  # nothing a registry loads
tw.reassemble(b"", tool_choice="sometimes")  # not a tool_choice
tw.reassemble(42)  # not a source
tw.events(b"", on_invalid="yield")  # events take no on_invalid
tw.areassemble([b""])  # a sync iterable where an async one is needed
tw.validate("get_weather", "{}")  # tools missing
tw.validate_many([3], {})  # not a call
tw.normalize({}, format="gemini-pro")  # not a wire format
tw.Reassembler(tools=[], tool="x")  # unexpected keyword
"""


def _run_mypy(folder: Path, scripts: dict[str, str]) -> dict[str, str]:
    """mypy (strict) over the scripts in one run; its report for each, by name."""
    config = folder / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\nshow_error_codes = True\n", encoding="utf-8")
    paths = []
    for name, text in scripts.items():
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(str(path))
    # mypy raises the interpreter's recursion limit for its own run and leaves it raised; restored, so that the tests
    # run after this one see Python's limit (how deep a dict must be to be unserializable depends on it).
    limit = sys.getrecursionlimit()
    try:
        report, errors, _status = mypy_api.run(
            [*paths, "--config-file", str(config), "--cache-dir", str(folder / ".mypy_cache"), "--no-error-summary"]
        )
    finally:
        sys.setrecursionlimit(limit)
    assert not errors, errors
    return {name: "\n".join(line for line in report.splitlines() if f"{name}.py:" in line) for name in scripts}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    scripts = {}
    for key, package in PACKAGES.items():
        scripts[f"user_{key}"] = USER_SCRIPT.replace("PKG", package)
        scripts[f"wrong_{key}"] = WRONG_SCRIPT.replace("PKG", package)
    return _run_mypy(tmp_path_factory.mktemp("typed_api"), scripts)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_user_script_calling_every_entry_point_passes_mypy_strict(reports: dict[str, str], package: str) -> None:
    report = reports[f"user_{package}"]
    problems = [line for line in report.splitlines() if ": error:" in line]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("package", PACKAGES)
def test_the_revealed_type_of_reassemble_shows_its_parameters(reports: dict[str, str], package: str) -> None:
    revealed = [line for line in reports[f"user_{package}"].splitlines() if "Revealed type is" in line]
    assert len(revealed) == 1, reports[f"user_{package}"]
    signature = revealed[0]
    assert signature.count("def (source: ") == 1, signature
    for parameter in ("tools:", "tool_choice:", "emit:", "on_invalid:", "on_violation:", "limits:", "repair:"):
        assert parameter in signature, f"{parameter} missing from {signature}"
    # The keywords are typed precisely: the wire formats, the policies, what a registry loads; no Any.
    formats = " | ".join(f"Literal['{name}']" for name in toolwire.WIRE_FORMATS)
    assert f"format: {formats} | None =" in signature
    assert "emit: Literal['complete'] | Literal['call_end'] | Literal['stream_end'] =" in signature
    assert "on_invalid: Literal['raise'] | Literal['yield'] =" in signature
    assert "tool_choice: Literal['auto'] | Literal['none'] | Literal['required'] | Literal['any'] |" in signature
    assert "toolwire.registry.ToolRegistry" in signature and "os.PathLike[builtins.str]" in signature
    assert "tools: Any" not in signature and "tool_choice: Any" not in signature
    assert re.search(r"-> toolwire\._pipeline\._streams\.ToolCallStream\"$", signature), signature


@pytest.mark.parametrize("package", PACKAGES)
def test_wrong_keywords_and_literals_are_refused_by_mypy(reports: dict[str, str], package: str) -> None:
    report = reports[f"wrong_{package}"]
    refused = {int(match) for match in re.findall(r"wrong_\w+\.py:(\d+): error:", report)}
    lines = textwrap.dedent(WRONG_SCRIPT).splitlines()
    expected = {number for number, line in enumerate(lines, start=1) if "  # " in line}
    assert refused == expected, f"refused lines {sorted(refused)}, expected {sorted(expected)}:\n{report}"
    assert 'Unexpected keyword argument "tool"' in report
    assert "Literal['openai']" in report


ENTRY_POINTS = sorted(name for name in vars(Api) if not name.startswith("_") and callable(getattr(Api, name)))


def test_each_package_exports_the_shared_names_and_binds_every_entry_point_to_its_own_api(
    implementation: ModuleType,
) -> None:
    assert ENTRY_POINTS == [
        "aevents",
        "areassemble",
        "astream_object",
        "events",
        "normalize",
        "reassemble",
        "stream_object",
        "validate",
        "validate_many",
        "validate_result",
    ]
    assert set(_exports.__all__) <= set(implementation.__all__)
    assert len(implementation.__all__) == len(set(implementation.__all__)), "a name listed twice"
    for name in implementation.__all__:
        assert getattr(implementation, name) is not None, name
    apis = {getattr(implementation, name).__self__ for name in ENTRY_POINTS}
    assert len(apis) == 1, "every entry point of a package is bound to one Api"
    (api,) = apis
    for name in ENTRY_POINTS:
        assert name in implementation.__all__
        assert getattr(implementation, name).__func__ is getattr(Api, name)
    assert implementation.Reassembler._implementation is api.implementation
    assert api.implementation.engine is (
        toolwire.reference.Engine if implementation is toolwire.reference else _core.Engine
    )


def test_the_two_packages_differ_only_by_what_is_their_own() -> None:
    # Only toolwire offers the call log, schema histories and migrations, Arrow batches and the version.
    core_only = {"CallLog", "CallLogWriteError", "Migrations", "RegistryHistory", "__version__", "migration"}
    assert set(toolwire.__all__) - set(toolwire.reference.__all__) == {*core_only, "validate_batch"}
    assert set(toolwire.reference.__all__) - set(toolwire.__all__) == {"Engine"}


def test_a_users_subclass_of_reassembler_keeps_its_packages_engine(implementation: ModuleType) -> None:
    class Counting(implementation.Reassembler):
        fed = 0

        def feed(self, chunk: object) -> list[Any]:
            type(self).fed += 1
            return super().feed(chunk)

    reassembler = Counting(on_invalid="yield")
    opening = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    delta = {"tool_calls": [opening]}
    reassembler.feed({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
    assert [call.id for call in reassembler.finish()] == ["call_1"]
    assert Counting.fed == 1
