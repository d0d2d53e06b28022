"""Prompt examples: every tool call a rendered prompt shows the model, validated against the current tools.

Few-shot conversations and "call it like this" snippets are copies of the schema that nobody updates; the model
imitates them. ``check_examples(prompt, tools)`` finds them (``_find`` documents the message shapes and the
JSON-in-text shapes) and checks each with ``toolwire.validate``, as a stream checks a whole call. The rules:

==============================  =======  =======================================================================
rule                            level    flags
==============================  =======  =======================================================================
``example-unknown-tool``        error    an example calls a tool that is not declared (or does not load)
``example-invalid-arguments``   error    the arguments break the tool's schema: one finding per violation, with
                                         its code (``TYPE_MISMATCH``, ``MISSING_REQUIRED_ARGUMENT``...) and the
                                         pointer inside the arguments
``example-arguments-not-json``  error    the arguments are not JSON (``INVALID_JSON``, ``TRUNCATED``,
                                         ``TRAILING_DATA``...), or not JSON-compatible values
``example-malformed``           warning  text starts like a tool-call object (``{"name": ...``) but is no JSON
``example-none-found``          info     the prompt holds no tool-call example toolwire recognises (so the
                                         check proved nothing)
==============================  =======  =======================================================================

Violations below error severity (``EMPTY_ARGUMENTS``) are not findings. A finding's ``pointer`` is the member of the
arguments (``/amount``); its message starts with where the example is (``messages[3] (assistant)
.tool_calls[0]``), also in ``data`` (``at``, ``message``, ``role``, ``line``, ``shape``, ``code``).
``extra["examples"]`` lists every example found and whether it is valid.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from toolwire._common._json import parse_json
from toolwire._common._yaml import parse_yaml
from toolwire._model import Severity, Violation
from toolwire._pipeline._bound import core
from toolwire.registry import ToolRegistry
from toolwire.schema._findings import Finding, FindingReport, Rule, sorted_findings
from toolwire.schema._sources import ToolSource
from toolwire.schema.examples._find import Example, Found, Malformed, find_examples

__all__ = ["EXAMPLE_RULES", "check_examples", "read_prompt"]

#: Every rule ``check_examples`` enforces.
EXAMPLE_RULES: tuple[Rule, ...] = (
    Rule("example-unknown-tool", "error", "A tool-call example in the prompt calls a tool that is not declared."),
    Rule(
        "example-invalid-arguments",
        "error",
        "A tool-call example's arguments break the tool's current schema; the model will imitate them.",
    ),
    Rule("example-arguments-not-json", "error", "A tool-call example's arguments are not JSON."),
    Rule("example-malformed", "warning", "Text that starts like a JSON tool-call object does not parse as JSON."),
    Rule("example-none-found", "info", "The prompt holds no tool-call example that toolwire recognises."),
)

_LEVELS: Final = {rule.id: rule.level for rule in EXAMPLE_RULES}
_TEXT_CODES: Final = frozenset({"INVALID_JSON", "TRUNCATED", "TRAILING_DATA", "TOO_DEEP", "ARGUMENTS_TOO_LARGE"})
_PROMPT_SUFFIXES: Final = (".json", ".jsonl", ".yaml", ".yml")
_MAX_PATH: Final = 4096


class _Tools:
    """The tools examples are checked against, and the names of declared tools that do not load."""

    def __init__(self, tools: object) -> None:
        self.broken: dict[str, str] = {}
        if isinstance(tools, Sequence) and tools and all(isinstance(item, ToolSource) for item in tools):
            loaded: dict[str | None, Any] = {}
            for source in tools:
                entry = source.tool or source.server_tool
                name = entry.name if entry is not None else source.name
                if name in loaded or name in self.broken:
                    continue  # a duplicate name is `toolwire check`'s finding; the first declaration is used
                if entry is not None:
                    loaded[name if name is not None else f"#{len(loaded)}"] = entry
                elif name is not None:
                    self.broken[name] = f"{source.origin}: {source.error}"
            tools = list(loaded.values())
        self.registry = ToolRegistry.load(tools)


def _path_of(prompt: object) -> Path | None:
    """The prompt file, when the prompt is one."""
    if isinstance(prompt, os.PathLike):
        return Path(os.fspath(prompt))
    # A string is a file name only when it names an existing file; any other string is the prompt's text.
    if isinstance(prompt, str) and "\n" not in prompt and len(prompt) < _MAX_PATH and Path(prompt).is_file():
        return Path(prompt)
    return None


def read_prompt(path: str | os.PathLike[str]) -> tuple[Any, bool]:
    """A prompt file's content: parsed ``.json``/``.jsonl`` (a list of lines)/``.yaml``/``.yml``, else text.

    Returns:
        The content, and whether it is the file's text as it is (so text lines are file lines).

    Raises:
        OSError: The file cannot be read.
        ValueError: Its JSON or YAML does not parse.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8-sig")
    suffix = path.suffix.lower()
    if suffix == ".json":
        return parse_json(text, str(path)), False
    if suffix == ".jsonl":
        lines = enumerate(text.splitlines(), start=1)
        return [parse_json(line, f"{path}:{number}") for number, line in lines if line.strip()], False
    if suffix in (".yaml", ".yml"):
        return parse_yaml(text, str(path)), False
    return text, True


def _violations(example: Example, registry: ToolRegistry) -> list[Violation] | str:
    """The example's error violations, or why its arguments are no JSON value at all."""
    if not isinstance(example.name, str):
        return []
    try:
        found = core.validate(example.name, example.arguments, registry)
    except TypeError as error:
        return str(error)
    return [violation for violation in found if violation.severity is Severity.ERROR]


class _Judge:
    """Turns what was found into findings."""

    def __init__(self, tools: _Tools, origin: str | None, text_file: bool) -> None:
        self.tools = tools
        self.origin = origin
        self.text_file = text_file
        self.findings: list[Finding] = []
        self.records: list[dict[str, Any]] = []

    def where(self, line: int | None) -> str | None:
        # Lines are file lines only when the file is the text itself (in JSON they are lines of a string).
        if self.origin is not None and self.text_file and line is not None:
            return f"{self.origin}:{line}"
        return self.origin

    def add(self, rule: str, example: Example, message: str, pointer: str = "", **data: Any) -> None:
        place = {"at": example.at, "message": example.message, "role": example.role, "line": example.line}
        self.findings.append(
            Finding(
                rule,
                _LEVELS[rule],
                f"{example.place()}: {message}",
                tool=example.name if isinstance(example.name, str) else None,
                pointer=pointer,
                origin=self.where(example.line),
                data={**{k: v for k, v in place.items() if v is not None}, "shape": example.shape, **data},
            )
        )

    def example(self, example: Example) -> None:
        if not isinstance(example.name, str) or not example.name:
            self.add("example-unknown-tool", example, f"the call has no tool name (got {example.name!r})")
            self.record(example, False)
            return
        if example.name in self.tools.broken:
            reason = self.tools.broken[example.name]
            self.add("example-unknown-tool", example, f"the tool {example.name!r} does not load ({reason})")
            self.record(example, False)
            return
        found = _violations(example, self.tools.registry)
        if isinstance(found, str):
            self.add("example-arguments-not-json", example, f"the arguments are not JSON values: {found}")
        else:
            for violation in found:
                self.violation(example, violation)
        self.record(example, not found)

    def violation(self, example: Example, violation: Violation) -> None:
        code = violation.code.value
        if code == "UNKNOWN_TOOL":
            self.add("example-unknown-tool", example, violation.message, code=code)
        elif code in _TEXT_CODES:
            self.add("example-arguments-not-json", example, f"{code}: {violation.message}", code=code)
        else:
            pointer = violation.path or ""
            self.add(
                "example-invalid-arguments",
                example,
                f"{code} at {pointer or '/'}: {violation.message}",
                pointer,
                code=code,
            )

    def malformed(self, bad: Malformed) -> None:
        example = Example(bad.at, bad.role, bad.message, "text", None, None, bad.line)
        self.add(
            "example-malformed",
            example,
            f"this looks like a tool call but is not JSON ({bad.error}): {bad.snippet}",
            snippet=bad.snippet,
        )

    def record(self, example: Example, valid: bool) -> None:
        self.records.append({"at": example.at, "tool": example.name, "shape": example.shape, "valid": valid})

    def judge(self, found: Found, label: str) -> None:
        for example in found.examples:
            self.example(example)
        for bad in found.malformed:
            self.malformed(bad)
        if not found.examples and not found.malformed:
            self.findings.append(
                Finding(
                    "example-none-found",
                    "info",
                    f"{label}: no tool-call example found (messages with tool_calls, function_call items, tool_use "
                    'blocks, or JSON such as {"name": ..., "arguments": {...}} in text)',
                    origin=self.origin,
                )
            )


def check_examples(prompt: object, tools: object) -> FindingReport:
    """Check every tool-call example of a rendered prompt against the current tools.

    Args:
        prompt: A list of messages (OpenAI Chat, Responses input items or Anthropic messages, detected per
            message), a request body with ``messages``/``input``/``system``/``instructions``, one message, text,
            or a path (``os.PathLike``, or a string naming an existing file) to a ``.json``/``.jsonl``/``.yaml``/
            ``.yml`` prompt or a text file.
        tools: A ``ToolRegistry`` or anything it loads, or the ``ToolSource`` list of ``load_tools`` (a tool that
            does not load is then named as such rather than as unknown).

    Returns:
        An ``examples`` report (see the module docstring for the rules).

    Raises:
        OSError: A prompt file cannot be read.
        ValueError: A prompt file does not parse, or the tools do not load.
    """
    judge_tools = _Tools(tools)
    origin: str | None = None
    text_file = False
    path = _path_of(prompt)
    if path is not None:
        origin = str(path)
        prompt, text_file = read_prompt(path)
    label = origin or "prompt"
    judge = _Judge(judge_tools, origin, text_file)
    judge.judge(find_examples(prompt), label)
    return FindingReport("examples", sorted_findings(judge.findings), (label,), {"examples": judge.records})
