"""The handler check: a widening is safe only if the handler takes what NEW now admits.

Without a handler, every change whose handler check is ``review`` stays RISKY ("handler review needed"). With a
handler for the tool (``[tool.toolwire.handlers]``, ``--handler``, or ``handlers=`` of ``diff_tools``), NEW's
schema is checked against it by ``toolwire drift`` (``check_handler``): a drift error at the change's place (the
handler refuses a type, an enum value, the key's absence...) makes the check ``refuses`` (BREAKING), a drift
warning there (a property the handler ignores, a default it does not apply) makes it ``warns`` (RISKY), and none
makes it ``ok``. An object opened (``additionalProperties``) is judged by what the handler does with unknown keys:
takes them (``ok``), drops them (``warns``) or fails (``refuses``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolwire._common._import_path import import_object
from toolwire.schema._findings import Finding
from toolwire.schema.diff._change import Change, place
from toolwire.schema.diff._tools import Side
from toolwire.schema.drift import check_handler, describe

__all__ = ["apply_handlers", "resolve_handlers"]

_EXTRA = {"accept": "ok", "ignore": "warns", "refuse": "refuses"}


def resolve_handlers(handlers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Handlers by tool name, import paths (``package.module:attr``) imported.

    Raises:
        ValueError: An import path that does not import (named, with the tool).
    """
    resolved = {}
    for name, handler in (handlers or {}).items():
        resolved[name] = import_object(handler, f"handler for {name!r}") if isinstance(handler, str) else handler
    return resolved


def _related(finding: Finding, path: str) -> bool:
    if not path:
        return finding.pointer == ""
    return finding.pointer == path or finding.pointer.startswith(path + "/")


def _judge(change: Change, drift: Sequence[Finding], extra: str) -> Change:
    if change.kind == "additional-properties-opened" and change.path == "":
        verdict = _EXTRA.get(extra, "warns")
        return change.with_checks(f"handler: takes unknown keys as {extra!r}", handler=verdict)
    related = [finding for finding in drift if _related(finding, change.path)]
    errors = [finding for finding in related if finding.level == "error"]
    warnings = [finding for finding in related if finding.level == "warning"]
    if errors:
        shown = "; ".join(f"{f.rule}: {f.message}" for f in errors[:3])
        return change.with_checks(f"handler refuses at {place(change.path)}: {shown}", handler="refuses")
    if warnings:
        shown = "; ".join(f"{f.rule}: {f.message}" for f in warnings[:3])
        return change.with_checks(f"handler warns at {place(change.path)}: {shown}", handler="warns")
    return change.with_checks("handler: takes what NEW admits here (toolwire drift finds nothing)", handler="ok")


def apply_handlers(changes: Sequence[Change], new: Side, handlers: Mapping[str, Any]) -> list[Change]:
    """Decide the handler check of each change of a tool that has a handler.

    Args:
        changes: The classified changes.
        new: NEW's side (the schemas the handlers must take).
        handlers: Handler objects by tool name (see ``resolve_handlers``).

    Returns:
        The changes with their handler checks decided (drift's findings quoted in each change's reasons).

    Raises:
        ValueError: A handler that is none of the kinds ``toolwire drift`` reads (named, with the tool).
    """
    drift: dict[str, tuple[list[Finding], str]] = {}
    extra: str
    for name, handler in handlers.items():
        source = new.tools.get(name)
        if source is None:
            continue  # a handler of a tool NEW no longer has: nothing of NEW reaches it
        try:
            report = check_handler(source, handler)
            extra = describe(handler).extra
        except TypeError as error:
            raise ValueError(f"handler for {name!r}: {error}") from error
        drift[name] = (list(report.findings), extra)
    out = []
    for change in changes:
        checks = change.checks
        if change.tool in drift and checks is not None and checks.handler == "review":
            findings, extra = drift[change.tool]
            out.append(_judge(change, findings, extra))
        else:
            out.append(change)
    return out
