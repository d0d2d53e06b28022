"""The command table: the one place a ``toolwire`` command is registered.

A command's module (``toolwire.cli._<name>``) has ``add_arguments(parser)``, which adds the command's own options,
and ``run(options) -> int``, which does the work. Building the parser imports
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
        """Add the command's own options (its description and the shared options are added for it)."""

    def run(self, options: argparse.Namespace) -> int:
        """Do the command's work; the exit status (0 clean, 1 findings or failed checks, 2 usage or I/O errors)."""


@dataclass(frozen=True)
class Command:
    """One ``toolwire`` command.

    Attributes:
        name: What the user types (``toolwire NAME``).
        help: One line for ``toolwire --help``.
        description: What ``toolwire NAME --help`` says the command does, its exit statuses included.
        extra: The optional dependency group ``run`` needs (``pip install 'toolwire[EXTRA]'``); None when the base
            install has all it needs.
        config_keys: The keys of ``[tool.toolwire]`` the command reads; a command with any takes ``--config``.
    """

    name: str
    help: str
    description: str
    extra: str | None = None
    config_keys: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        """The module that adds the command's options and runs it (``add_arguments`` and ``run``)."""
        return f"toolwire.cli._{self.name}"

    def load(self) -> CommandModule:
        """Import the command's module (light: what it needs to run is imported by ``run``)."""
        return cast("CommandModule", importlib.import_module(self.module))

    def install_hint(self) -> str:
        """What to install for the command to run."""
        return f"pip install 'toolwire[{self.extra}]'" if self.extra else "pip install toolwire"


COMMANDS: tuple[Command, ...] = (
    Command(
        "demo",
        "reassemble every recording of a folder and print the calls",
        "Reassemble every recording of a folder (<folder>/<format>/<name>.json beside its data file) and print each "
        "call handed over, with its violations, and each stream's findings. Without a folder, the demonstration set "
        "shipped with toolwire.",
    ),
    Command(
        "reassemble",
        "print the calls of one recorded or captured stream as JSON lines",
        "Reassemble one stream, a recording or a raw capture of a response body (a file, or '-' for standard input, "
        "read as it arrives), and print a JSON line per call handed over (seq, id, name, arguments, ok, "
        "violations), then one with the stream's result (format, finish reason, violations, ok). Exits 1 when the "
        "stream is not ok.",
    ),
    Command(
        "serve",
        "run the local endpoint (OpenAI Chat, Responses and Anthropic Messages) on a script",
        "Serve scripted models and recordings over HTTP until Ctrl-C.",
        extra="server",
    ),
    Command(
        "probe",
        "run the live tool-calling contract suite against an endpoint",
        "Send forced, parallel, none, strict and parameterless tool-calling requests to an endpoint and check every "
        "answer's shape. Exits 1 when a contract check fails at --fail-on; 2 on a usage error or when the endpoint "
        "cannot be reached (no answer, or a 401, 403, 404, 405, 429, 502, 503 or 504: a wrong base URL or model, a "
        "refused key, a service that is down), which says nothing of the contract.",
        extra="probe",
    ),
    Command(
        "check",
        "check tool definitions: names, schemas, examples, descriptions, look-alike tools, secrets",
        "Check tool definitions against the registry rules, offline: duplicate and non-portable names, schemas that "
        "break their meta-schema, required names no property declares, examples the schema judges wrongly, missing "
        "or over-long descriptions, tools that read alike, open objects on side-effecting tools, deprecation without "
        "sunset, and keys or tokens written into definitions. Exits 1 when a finding reaches --fail-on, 2 on a usage "
        "error.",
        extra="schema",
        config_keys=("tools", "fail-on", "similarity-threshold", "rules"),
    ),
    Command(
        "lint",
        "what each provider does with each tool schema (rejects, ignores, weakens)",
        "Lint tool schemas against providers and engines: each finding names the tool, the JSON pointer of the "
        "construct, the target, the effect (reject, ignored, weakened, deviation) and the source with its as-of "
        "date. A construct a target rejects fails the command; ignored or weakened ones mean the handler must "
        "re-validate. Exits 1 when a finding reaches --fail-on, 2 on a usage error.",
        extra="schema",
        config_keys=("tools", "targets", "fail-on", "rules"),
    ),
    Command(
        "adapt",
        "rewrite tool schemas into one provider's subset, saying what each change costs",
        "Rewrite each tool's schema so that a target takes it, led by the lint's rules for that target: keywords it "
        "refuses or ignores lifted into the description, oneOf as anyOf, allOf merged, $ref with siblings written "
        "out, objects closed, and for openai-strict every optional property required and nullable. The adapted "
        "definitions go to --output (or stdout, the report then on stderr); keep checking calls against the "
        "originals. Exits 1 when a finding reaches --fail-on (what the target still refuses is an error), 2 on a "
        "usage error.",
        extra="schema",
        config_keys=("tools", "fail-on", "rules"),
    ),
    Command(
        "drift",
        "check handlers (functions, dataclasses, pydantic models...) against their tool schemas",
        "Compare each tool's parameters schema with the handler that runs its calls: fields the handler requires "
        "that the schema does not, properties it ignores, types, enums and defaults that disagree, and valid "
        "examples the handler refuses. Handlers come from --handler and [tool.toolwire.handlers]. Exits 1 when a "
        "finding reaches --fail-on, 2 on a usage error.",
        extra="schema",
        config_keys=("tools", "handlers", "fail-on", "rules"),
    ),
    Command(
        "examples",
        "validate the tool-call examples of rendered prompts against the current tools",
        "Find the tool calls a rendered prompt shows the model (assistant tool calls in OpenAI Chat, Responses or "
        "Anthropic message lists, and JSON tool-call objects inside text) and validate each against the current "
        "schemas. Exits 1 when a finding reaches --fail-on, 2 on a usage error.",
        extra="schema",
        config_keys=("tools", "fail-on", "rules"),
    ),
    Command(
        "diff",
        "classify the changes between two versions of the tools: BREAKING, RISKY or COMPATIBLE",
        "Compare two versions of the tool registry. Both are normalised ($ref resolved, nullable spellings unified, "
        "openness explicit...), tools matched by name (probable renames recognised), and every change judged by the "
        "rubric: do calls valid under OLD stay valid (replay), does the handler take what NEW admits, does the model "
        "see different prompt text, does a provider now refuse or weaken the schema (--target). --evidence replays "
        "recorded calls against both sides and shows the ones that would now fail. Exits 1 when a change reaches "
        "--fail-on (default error: a BREAKING change) or a waiver has expired, 2 on a usage error.",
        extra="schema",
        config_keys=("targets", "handlers", "diff"),
    ),
    Command(
        "replay",
        "validate calls already made (JSONL, conversation logs, recordings, SQL) against the current tools",
        "Validate tool calls already made against the tools as they are now: JSONL of observed calls (id, name, "
        "arguments, ts, schema_fingerprint), conversation logs (OpenAI Chat, Responses or Anthropic message lists), "
        "directories of recordings, '-' for JSONL on stdin, and databases (sqlite:///calls.db, or any SQLAlchemy URL "
        "with --query). Validation runs in the Rust core in batches. Exits 1 when a call fails or a record is not a "
        "call (unless --fail-on never), 2 on a usage or I/O error.",
        extra="replay",
        config_keys=("tools",),
    ),
    Command(
        "sample",
        "build a small, scrubbed fixture of observed calls that covers every enum value and optional field seen",
        "Read observed calls (call logs such as toolwire.CallLog writes, conversation logs, recordings, '-' for "
        "JSONL on stdin, databases) and write a small fixture: per tool, calls that together cover every enumerated "
        "value and every optional member seen given and left out, filled up to --per-tool with a seeded choice, "
        "identifier-like values replaced by stable placeholders of the same type and format. The fixture is JSONL "
        "that `toolwire replay` reads. A summary goes to stderr. Exits 1 when a record was not a call or a call had "
        "to be left out because scrubbing would break its schema, 2 on a usage or I/O error.",
        extra="replay",
        config_keys=("tools",),
    ),
    Command(
        "mcp",
        "pin an MCP server's tools to a file (toolwire mcp snapshot SERVER --output tools.json)",
        "snapshot: list a live MCP server's tools (mcp+stdio:COMMAND ARGS... is started and stopped; "
        "mcp+http(s)://HOST/PATH is reached over Streamable HTTP), every page, and write them as sent, with a "
        "fingerprint of each definition, to a file a team commits. The file is a tool source: `toolwire diff "
        "tools.json SERVER` says what changed on the server since. Every tool source of check, lint, diff and drift "
        "takes a server the same way. Exits 2 when the server cannot be started, reached or read.",
        extra="mcp",
    ),
    Command(
        "matrix",
        "run a case file against several models and report the case-by-model matrix",
        "Run every case of a case file against every model, judge each answer, and report the case-by-model matrix "
        "(cells k/n). A model spec is FORMAT:MODEL[@BASE_URL][,KEY=VALUE]..., e.g. openai-chat:gpt-4.1 or "
        "openai-chat:my-vllm@http://localhost:8000/v1,temperature=0 (keys: label, key_env, stream, timeout, "
        "temperature, top_p, max_tokens, seed, top_k, parallel_tool_calls, params.NAME).",
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
