"""The command table: the one place a ``toolwire`` command is registered.

A command's module (``toolwire.cli._<name>``) has ``add_arguments(parser)``, which sets the parser's description
and adds the command's own options, and ``run(options) -> int``, which does the work. Building the parser imports
nothing the command's extra brings (PyYAML, rich, httpx, starlette...): ``run`` imports those, so that
``toolwire CMD --help`` works on the base install and a missing extra is reported in one line when the command runs.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from typing import Protocol, cast

__all__ = ["COMMANDS", "Command", "CommandModule", "command_named"]


class CommandModule(Protocol):
    """What a command's module provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Set the parser's description and add the command's own options (the shared ones are added for it)."""

    def run(self, options: argparse.Namespace) -> int:
        """Do the command's work; the exit status (0 clean, 1 findings or failed checks, 2 usage or I/O errors)."""


@dataclass(frozen=True)
class Command:
    """One ``toolwire`` command.

    Attributes:
        name: What the user types (``toolwire NAME``).
        help: One line for ``toolwire --help``.
        module: The module that builds the command's parser and runs it (``add_arguments`` and ``run``).
        extra: The optional dependency group ``run`` needs (``pip install 'toolwire[EXTRA]'``); None when the base
            install has all it needs.
        config_keys: The keys of ``[tool.toolwire]`` the command reads; a command with any takes ``--config``.
    """

    name: str
    help: str
    module: str
    extra: str | None = None
    config_keys: tuple[str, ...] = ()

    def load(self) -> CommandModule:
        """Import the command's module (light: what it needs to run is imported by ``run``)."""
        return cast("CommandModule", importlib.import_module(self.module))

    def install_hint(self) -> str:
        """What to install for the command to run."""
        return f"pip install 'toolwire[{self.extra}]'" if self.extra else "pip install toolwire"


COMMANDS: tuple[Command, ...] = (
    Command("demo", "reassemble every recording of a folder and print the calls", "toolwire.cli._demo"),
    Command("reassemble", "print the calls of one recorded stream as JSON lines", "toolwire.cli._reassemble"),
    Command(
        "serve",
        "run the local endpoint (OpenAI Chat, Responses and Anthropic Messages) on a script",
        "toolwire.cli._serve",
        extra="server",
    ),
    Command(
        "probe", "run the live tool-calling contract suite against an endpoint", "toolwire.cli._probe", extra="probe"
    ),
    Command(
        "check",
        "check tool definitions: names, schemas, examples, descriptions, look-alike tools, secrets",
        "toolwire.cli._check",
        extra="schema",
        config_keys=("tools", "fail-on", "similarity-threshold", "rules"),
    ),
    Command(
        "lint",
        "what each provider does with each tool schema (rejects, ignores, weakens)",
        "toolwire.cli._lint",
        extra="schema",
        config_keys=("tools", "targets", "fail-on", "rules"),
    ),
    Command(
        "drift",
        "check handlers (functions, dataclasses, pydantic models...) against their tool schemas",
        "toolwire.cli._drift",
        extra="schema",
        config_keys=("tools", "handlers", "fail-on", "rules"),
    ),
    Command(
        "examples",
        "validate the tool-call examples of rendered prompts against the current tools",
        "toolwire.cli._examples",
        extra="schema",
        config_keys=("tools", "fail-on", "rules"),
    ),
    Command(
        "diff",
        "classify the changes between two versions of the tools: BREAKING, RISKY or COMPATIBLE",
        "toolwire.cli._diff",
        extra="schema",
        config_keys=("targets", "handlers", "diff"),
    ),
    Command(
        "replay",
        "validate calls already made (JSONL, conversation logs, recordings, SQL) against the current tools",
        "toolwire.cli._replay",
        extra="replay",
        config_keys=("tools",),
    ),
    Command(
        "sample",
        "build a small, scrubbed fixture of observed calls that covers every enum value and optional field seen",
        "toolwire.cli._sample",
        extra="replay",
        config_keys=("tools",),
    ),
    Command(
        "matrix",
        "run a case file against several models and report the case-by-model matrix",
        "toolwire.cli._matrix",
        extra="cases",
        config_keys=("cases",),
    ),
)


def command_named(name: str) -> Command:
    """The command of that name.

    Raises:
        KeyError: No command has it.
    """
    for command in COMMANDS:
        if command.name == name:
            return command
    raise KeyError(name)
