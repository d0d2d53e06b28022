"""From a case file's data (already valid against the schema) to ``Case`` objects, with the checks a schema cannot make.

What is checked here, each problem at its JSON pointer: the tools load; every expected call, ``tool_choice`` name and
``tool_results`` entry names a declared tool; a pinned argument exists in its tool's schema when that schema is closed,
and a pinned literal is a value the schema accepts (a case pinning ``unit: kelvin`` against an enum of celsius and
fahrenheit could never pass); every regex compiles; names are unique; ``exact`` and ``in_order`` sequences fit in
``max_turns`` (each step is one turn).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from toolwire._common._json import pointer_token
from toolwire.cases._model import Alternative, Case, Expectation, ExpectedCall, Matcher, Mode, Step
from toolwire.cases._tools import TOOL_FILE_SUFFIXES, ToolsProblem, ToolsResolver
from toolwire.registry import Tool, ToolRegistry, core_validators

__all__ = ["MATCHER_KEYS", "Builder", "Problem"]

#: The keys of a matcher object; an object whose keys are all among them is a matcher, not a literal.
MATCHER_KEYS: Final = frozenset({"exact", "one_of", "regex", "is", "optional"})


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a case file.

    Attributes:
        pointer: Where, as a JSON pointer into the file's data.
        message: What is wrong.
        fix: What to do.
    """

    pointer: str
    message: str
    fix: str


def _suggest(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    listed = ", ".join(known) or "none"
    return (f"did you mean {close[0]!r}? " if close else "") + f"the tools are: {listed}"


def _plain(matcher: Matcher) -> tuple[bool, Any]:
    """The JSON value a matcher stands for, when it is a literal through and through."""
    if matcher.kind == "literal":
        return True, matcher.value
    if matcher.kind in ("object", "array"):
        parts = [(key, _plain(item)) for key, item in matcher.value] if matcher.kind == "object" else None
        if parts is not None:
            return all(ok for _, (ok, _) in parts), {key: value for key, (_, value) in parts}
        items = [_plain(item) for item in matcher.value]
        return all(ok for ok, _ in items), [value for _, value in items]
    return False, None


class Builder:
    """Builds the cases of one file, collecting every problem instead of stopping at the first."""

    def __init__(self, path: Path, data: Mapping[str, Any], tools: Any, *, allow_imports: bool = False) -> None:
        """Prepare to build ``data`` (the file's content) read from ``path``.

        ``tools`` replaces the file's tools; ``allow_imports`` lets the file's ``tools:`` name Python import paths.
        """
        self.path = path
        self.data = data
        self.defaults: Mapping[str, Any] = data.get("defaults", {})
        self.problems: list[Problem] = []
        self.resolver = ToolsResolver(path.parent, allow_imports=allow_imports)
        self.file_tools = self._file_tools(tools)

    def problem(self, pointer: str, message: str, fix: str) -> None:
        """Record a problem."""
        self.problems.append(Problem(pointer, message, fix))

    def _load_tools(self, spec: Any, pointer: str, *, trusted: bool = False) -> ToolRegistry | None:
        try:
            return self.resolver.load(spec, trusted=trusted)
        except ToolsProblem as error:
            self.problem(pointer, error.message, error.fix)
            return None

    def _file_tools(self, given: Any) -> ToolRegistry | None:
        if given is not None:
            # Given to load_cases: it stands for the file's own tools, whose source is then not read at all.
            # A relative path given here is the caller's, read from the working directory, not the file's folder.
            if isinstance(given, (str, Path)) and (
                Path(given).suffix.lower() in TOOL_FILE_SUFFIXES or Path(given).exists()
            ):
                given = str(Path(given).resolve())
            return self._load_tools(given, "", trusted=True)
        if "tools" in self.data:
            return self._load_tools(self.data["tools"], "/tools")
        return None

    def cases(self) -> tuple[Case, ...]:
        """Every case that builds (check ``problems`` afterwards)."""
        built = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(self.data["cases"]):
            name = raw["name"]
            if name in seen:
                self.problem(
                    f"/cases/{index}/name", f"case #{seen[name]} has the same name", "give each case its own name"
                )
            seen.setdefault(name, index)
            case = self._case(index, raw)
            if case is not None:
                built.append(case)
        return tuple(built)

    def _setting(self, raw: Mapping[str, Any], key: str, default: Any) -> Any:
        return raw.get(key, self.defaults.get(key, default))

    def _case_tools(self, raw: Mapping[str, Any], pointer: str) -> ToolRegistry | None:
        if "tools" in raw:
            return self._load_tools(raw["tools"], f"{pointer}/tools")
        if self.file_tools is None and "tools" not in self.data:
            self.problem(
                pointer,
                "the case has no tools",
                "add tools: to the case or to the file (a registry file or import path)",
            )
        return self.file_tools

    def _case(self, index: int, raw: Mapping[str, Any]) -> Case | None:
        pointer = f"/cases/{index}"
        tools = self._case_tools(raw, pointer)
        max_turns = self._setting(raw, "max_turns", 1)
        expect = self._expectation(raw["expect"], f"{pointer}/expect", tools, max_turns)
        choice = self._setting(raw, "tool_choice", None)
        results = {**self.defaults.get("tool_results", {}), **raw.get("tool_results", {})}
        if tools is not None:
            self._check_choice(raw, choice, tools, pointer)
            for name in raw.get("tool_results", {}):
                if name not in tools:
                    self.problem(
                        f"{pointer}/tool_results/{pointer_token(name)}",
                        f"tool_results answers {name!r}, which the tools do not declare",
                        _suggest(name, tools.names),
                    )
        if tools is None or expect is None:
            return None
        prompt = raw.get("prompt")
        messages = ({"role": "user", "content": prompt},) if prompt is not None else tuple(map(dict, raw["messages"]))
        return Case(
            name=raw["name"],
            messages=messages,
            tools=tools,
            tool_choice=choice,
            expect=expect,
            tool_results=results,
            max_turns=max_turns,
            min_pass_rate=float(self._setting(raw, "min_pass_rate", 1.0)),
            origin=f"{self.path}#{index}",
            repeat=self._setting(raw, "repeat", 1),
        )

    def _check_choice(self, raw: Mapping[str, Any], choice: Any, tools: ToolRegistry, pointer: str) -> None:
        if isinstance(choice, Mapping) and choice["name"] not in tools:
            where = f"{pointer}/tool_choice/name" if "tool_choice" in raw else "/defaults/tool_choice/name"
            self.problem(
                where,
                f"tool_choice names {choice['name']!r}, which the tools do not declare",
                _suggest(choice["name"], tools.names),
            )

    def _expectation(
        self, raw: Mapping[str, Any], pointer: str, tools: ToolRegistry | None, max_turns: int
    ) -> Expectation | None:
        mode = cast(Mode, self._setting(raw, "mode", "exact"))
        strict = bool(self._setting(raw, "strict_args", False))
        alternatives = []
        if "calls" in raw:
            alternatives.append(self._alternative(raw["calls"], mode, f"{pointer}/calls", strict, tools, max_turns))
        for number, option in enumerate(raw.get("one_of", ())):
            where = f"{pointer}/one_of/{number}"
            if isinstance(option, Mapping):
                own = cast(Mode, option.get("mode", mode))
                alternatives.append(self._alternative(option["calls"], own, f"{where}/calls", strict, tools, max_turns))
            else:
                alternatives.append(self._alternative(option, mode, where, strict, tools, max_turns))
        finish = raw.get("finish_reason")
        no_call = bool(raw.get("no_tool_call", False))
        if not alternatives and not no_call and finish is None:
            self.problem(
                pointer, "the expectation pins nothing", "add calls, one_of, no_tool_call: true or finish_reason"
            )
            return None
        reasons = None if finish is None else ((finish,) if isinstance(finish, str) else tuple(finish))
        return Expectation(tuple(alternatives), no_call, reasons)

    def _alternative(
        self, raw: Sequence[Any], mode: Mode, pointer: str, strict: bool, tools: ToolRegistry | None, max_turns: int
    ) -> Alternative:
        steps: list[Step] = []
        for index, step in enumerate(raw):
            if isinstance(step, list):
                steps.append(
                    tuple(self._call(call, f"{pointer}/{index}/{j}", strict, tools) for j, call in enumerate(step))
                )
            else:
                steps.append((self._call(step, f"{pointer}/{index}", strict, tools),))
        if mode in ("exact", "in_order") and len(steps) > max_turns:
            self.problem(
                pointer,
                f"mode {mode} reads each step as one turn, and these {len(steps)} steps need {len(steps)} turns; "
                f"max_turns is {max_turns}",
                "calls made together in one answer are one step: write them as one list ([[a, b]]), use mode "
                "unordered, or raise max_turns",
            )
        return Alternative(tuple(steps), mode)

    def _call(self, raw: Any, pointer: str, strict: bool, tools: ToolRegistry | None) -> ExpectedCall:
        if isinstance(raw, str):
            call = ExpectedCall(raw, {}, strict)
        else:
            arguments = {
                key: self._matcher(value, f"{pointer}/arguments/{pointer_token(key)}")
                for key, value in raw.get("arguments", {}).items()
            }
            call = ExpectedCall(raw["name"], arguments, bool(raw.get("strict_args", strict)))
        if tools is not None:
            tool = tools.get(call.name)
            if tool is None:
                where = pointer if isinstance(raw, str) else f"{pointer}/name"
                self.problem(
                    where,
                    f"the case expects {call.name!r}, which the tools do not declare",
                    _suggest(call.name, tools.names),
                )
            else:
                self._check_pins(tool, tools, call, pointer)
        return call

    def _matcher(self, value: Any, pointer: str) -> Matcher:
        if isinstance(value, Mapping) and value and set(value) <= MATCHER_KEYS:
            return self._matcher_object(value, pointer)
        if isinstance(value, Mapping):
            members = tuple(
                (key, self._matcher(item, f"{pointer}/{pointer_token(key)}")) for key, item in value.items()
            )
            return Matcher("object", members)
        if isinstance(value, list):
            return Matcher("array", tuple(self._matcher(item, f"{pointer}/{i}") for i, item in enumerate(value)))
        return Matcher("literal", value)

    def _matcher_object(self, value: Mapping[str, Any], pointer: str) -> Matcher:
        optional = bool(value.get("optional", False))
        if "exact" in value:
            return Matcher("literal", value["exact"], optional)
        if "one_of" in value:
            options = tuple(self._matcher(item, f"{pointer}/one_of/{i}") for i, item in enumerate(value["one_of"]))
            return Matcher("one_of", options, optional)
        if "regex" in value:
            try:
                re.compile(value["regex"])
            except re.error as error:
                self.problem(f"{pointer}/regex", f"the regex does not compile: {error}", "fix the regular expression")
            return Matcher("regex", value["regex"], optional)
        return Matcher("type", value.get("is", "any"), optional)

    def _check_pins(self, tool: Tool, tools: ToolRegistry, call: ExpectedCall, pointer: str) -> None:
        properties = tool.parameters.get("properties", {})
        closed = tool.parameters.get("additionalProperties") is False
        for key, matcher in call.arguments.items():
            where = f"{pointer}/arguments/{pointer_token(key)}"
            if closed and key not in properties:
                listed = ", ".join(properties) or "none"
                self.problem(where, f"{tool.name} takes no argument {key!r}", f"its arguments are: {listed}")
                continue
            candidates = [matcher] if matcher.kind != "one_of" else list(matcher.value)
            for candidate in candidates:
                literal, value = _plain(candidate)
                if literal:
                    self._check_value(tool, tools, key, value, where)

    def _check_value(self, tool: Tool, tools: ToolRegistry, key: str, value: Any, where: str) -> None:
        text = json.dumps({key: value}, ensure_ascii=False)
        mine = f"/{pointer_token(key)}"
        for violation in core_validators(tools).validate(tool.name, text, call=False):
            path = violation.path or ""
            if (path == mine or path.startswith(mine + "/")) and violation.code.value != "UNEXPECTED_ARGUMENT":
                self.problem(
                    where,
                    f"the case pins {json.dumps(value, ensure_ascii=False)}, which {tool.name}'s schema refuses "
                    f"({violation.code.value} at {path}: {violation.message}), so the case could never pass",
                    "pin a value the schema allows, or fix the schema",
                )
                return
