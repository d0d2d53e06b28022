"""The team's adjustments to the rubric: severities per change kind, and waivers for intended breaks.

From ``[tool.toolwire.diff]`` in ``pyproject.toml``, or a rules file (``--rules``: TOML, YAML or JSON, the same
keys at its top level; a pyproject-shaped file with ``[tool.toolwire.diff]`` is read too):

```toml
[tool.toolwire.diff]
fail-on = "breaking"                    # breaking (default), risky or never
strict-optional-semantics = false       # read OpenAI-strict "required + nullable" as optional
evidence-limit = 5                      # failing calls shown per change
targets = ["openai-strict"]             # provider-regression targets (default: targets of [tool.toolwire])

[tool.toolwire.diff.severity]         # verdict per change kind: breaking, risky or compatible
param-optional-added-open = "breaking"  # the research note's --strict-content-model
tool-description-changed = "compatible"

[[tool.toolwire.diff.waivers]]        # an intended break: still reported, marked waived, until it expires
tool = "create_ticket"
path = "/properties/priority"           # "" for the tool itself, "*" for any path of the tool
kind = "enum-value-removed"             # optional: any kind at that path when left out
reason = "P4 retired with the new triage (ADR-12)"
expires = 2026-03-01                    # after this date the waiver fails the diff
```

A waived change keeps its verdict and is reported at level ``info`` with the waiver; an expired waiver is an error
finding of its own (``diff/waiver-expired``) and leaves the change unwaived; a waiver that matches nothing is an
info finding (``diff/waiver-unused``). Unknown keys and kinds are usage errors that name the allowed values.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from toolwire._common._json import parse_json
from toolwire._common._json_data import json_fields
from toolwire._common._yaml import parse_yaml
from toolwire.schema._findings import Finding
from toolwire.schema.diff._change import Change
from toolwire.schema.diff._rubric import CHANGE_KINDS, VERDICTS, Verdict

__all__ = ["FAIL_ON", "POLICY_KEYS", "Policy", "Waiver", "apply_policy", "load_policy_file", "parse_policy"]

#: The values of ``fail-on`` / ``--fail-on``, and the finding level each fails from.
FAIL_ON: Final[Mapping[str, str]] = {"breaking": "error", "risky": "warning", "never": "never"}
#: The keys of the policy table.
POLICY_KEYS: Final = ("fail-on", "strict-optional-semantics", "evidence-limit", "targets", "severity", "waivers")
_WAIVER_KEYS: Final = ("tool", "path", "kind", "reason", "expires")


@dataclass(frozen=True)
class Waiver:
    """An intended break, accepted until a date.

    Attributes:
        tool: The tool's name (NEW's, for a rename).
        path: The change's pointer (``""`` for the tool, ``"*"`` for any).
        kind: The change kind, or None for any kind at that path.
        reason: Why the break is intended.
        expires: The last day it holds.
        source: Where it is declared (``pyproject.toml [tool.toolwire.diff] waivers[0]``).
    """

    tool: str
    path: str
    kind: str | None
    reason: str
    expires: datetime.date
    source: str = ""

    def covers(self, change: Change) -> bool:
        """Whether the waiver is about this change."""
        return (
            self.tool == change.tool
            and self.path in ("*", change.path)
            and (self.kind is None or self.kind == change.kind)
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return json_fields(self, "tool path kind reason expires source", expires=self.expires.isoformat())


@dataclass(frozen=True)
class Policy:
    """The rubric as the team adjusted it.

    Attributes:
        severity: A verdict per change kind, replacing the rubric's.
        waivers: Intended breaks.
        fail_on: ``breaking``, ``risky`` or ``never``, when set.
        strict_optional_semantics: Whether OpenAI-strict's required + nullable reads as optional, when set.
        evidence_limit: Failing calls shown per change, when set.
        targets: Provider-regression targets, when set.
        source: Where it was read.
    """

    severity: Mapping[str, Verdict] = field(default_factory=dict)
    waivers: tuple[Waiver, ...] = ()
    fail_on: str | None = None
    strict_optional_semantics: bool | None = None
    evidence_limit: int | None = None
    targets: tuple[str, ...] = ()
    source: str = ""

    def merged(self, other: Policy) -> Policy:
        """This policy with ``other``'s settings on top (severities merged, waivers joined)."""
        return Policy(
            {**self.severity, **other.severity},
            (*self.waivers, *other.waivers),
            other.fail_on or self.fail_on,
            other.strict_optional_semantics
            if other.strict_optional_semantics is not None
            else self.strict_optional_semantics,
            other.evidence_limit if other.evidence_limit is not None else self.evidence_limit,
            other.targets or self.targets,
            " + ".join(part for part in (self.source, other.source) if part),
        )


def _verdict(value: object, where: str) -> Verdict:
    allowed = [verdict.lower() for verdict in VERDICTS]
    if isinstance(value, str) and value.lower() in allowed:
        return VERDICTS[allowed.index(value.lower())]
    raise ValueError(f"{where}: one of {', '.join(allowed)}; got {value!r}")


def _kind(value: object, where: str) -> str:
    if isinstance(value, str) and value in CHANGE_KINDS:
        return value
    raise ValueError(f"{where}: unknown change kind {value!r}; known: {', '.join(CHANGE_KINDS)}")


def _date(value: object, where: str) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{where}: a date written YYYY-MM-DD; got {value!r}")


def _text(entry: Mapping[str, Any], key: str, where: str, *, empty: bool = False) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or (not value.strip() and not empty):
        raise ValueError(f"{where}.{key}: required, a {'string' if empty else 'non-empty string'}; got {value!r}")
    return value


def _waiver(entry: object, where: str) -> Waiver:
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: a table with tool, path, reason, expires (and optionally kind); got {entry!r}")
    unknown = sorted(set(entry) - set(_WAIVER_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_WAIVER_KEYS)}")
    kind = entry.get("kind")
    return Waiver(
        tool=_text(entry, "tool", where),
        path=_text(entry, "path", where, empty=True),
        kind=_kind(kind, f"{where}.kind") if kind is not None else None,
        reason=_text(entry, "reason", where),
        expires=_date(entry.get("expires"), f"{where}.expires"),
        source=where,
    )


def _severity(table: object, where: str) -> dict[str, Verdict]:
    if not isinstance(table, Mapping):
        raise ValueError(f"{where}: a table of change kind = breaking|risky|compatible; got {table!r}")
    return {_kind(kind, f"{where}: key"): _verdict(value, f"{where}.{kind}") for kind, value in table.items()}


def _settings(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    fail_on = data.get("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ValueError(f"{where}.fail-on: one of {', '.join(FAIL_ON)}; got {fail_on!r}")
    strict = data.get("strict-optional-semantics")
    if strict is not None and not isinstance(strict, bool):
        raise ValueError(f"{where}.strict-optional-semantics: true or false; got {strict!r}")
    limit = data.get("evidence-limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise ValueError(f"{where}.evidence-limit: a whole number >= 0; got {limit!r}")
    targets = data.get("targets", [])
    if isinstance(targets, str):
        targets = [targets]
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise ValueError(f"{where}.targets: a list of lint targets; got {targets!r}")
    return {"fail_on": fail_on, "strict_optional_semantics": strict, "evidence_limit": limit, "targets": tuple(targets)}


def parse_policy(data: Mapping[str, Any], source: str = "policy") -> Policy:
    """Check a policy table (``[tool.toolwire.diff]`` or a rules file's top level).

    Args:
        data: The table.
        source: Where it was read, for messages.

    Returns:
        The policy.

    Raises:
        ValueError: An unknown key or change kind, or a value of the wrong kind (each named, with what is allowed).
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a table of {', '.join(POLICY_KEYS)}; got {data!r:.80}")
    unknown = sorted(set(data) - set(POLICY_KEYS))
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(POLICY_KEYS)}")
    waivers = data.get("waivers", [])
    if not isinstance(waivers, list):
        raise ValueError(f"{source}.waivers: a list of tables ([[...waivers]] in TOML); got {waivers!r:.80}")
    return Policy(
        severity=_severity(data.get("severity", {}), f"{source}.severity"),
        waivers=tuple(_waiver(entry, f"{source}.waivers[{i}]") for i, entry in enumerate(waivers)),
        source=source,
        **_settings(data, source),
    )


def _read(path: Path) -> Any:
    suffix = path.suffix.lower()
    text = path.read_text(encoding="utf-8-sig")
    if suffix == ".json":
        return parse_json(text, str(path))
    if suffix in (".yaml", ".yml"):
        return parse_yaml(text, str(path)) or {}
    if suffix == ".toml":
        from toolwire._common import _toml

        try:
            return _toml.loads(text)
        except _toml.TOMLDecodeError as error:
            raise ValueError(f"{path}: invalid TOML: {error}") from None
    raise ValueError(f"{path}: a rules file is .toml, .yaml, .yml or .json")


def load_policy_file(path: str | Path) -> Policy:
    """Read a rules file (``--rules``).

    Raises:
        ValueError: Not TOML/YAML/JSON, or a policy error (see ``parse_policy``).
        OSError: The file cannot be read.
    """
    path = Path(path)
    data = _read(path)
    nested = data.get("tool", {}).get("toolwire", {}).get("diff") if isinstance(data, Mapping) else None
    if isinstance(nested, Mapping):
        return parse_policy(nested, f"{path} [tool.toolwire.diff]")
    return parse_policy(data, str(path))


def _override(change: Change, severity: Mapping[str, Verdict]) -> Change:
    verdict = severity.get(change.kind)
    if verdict is None or verdict == change.verdict:
        return change
    return replace(change, verdict=verdict, reasons=(*change.reasons, f"policy: {change.verdict} -> {verdict}"))


def _expired(waiver: Waiver, covered: Sequence[Change], today: datetime.date) -> Finding:
    what = f"{len(covered)} change(s)" if covered else "no change"
    return Finding(
        "diff/waiver-expired",
        "error",
        f"the waiver for {waiver.tool} {waiver.path or '(tool)'} {waiver.kind or '(any kind)'} expired on "
        f"{waiver.expires.isoformat()} (today is {today.isoformat()}); it covers {what}, which now count: ship the "
        f"fix, or renew the waiver with a new date ({waiver.source}; reason was: {waiver.reason})",
        tool=waiver.tool,
        pointer=waiver.path if waiver.path != "*" else "",
        data={"waiver": waiver.as_dict(), "covers": [f"{c.kind} {c.path}" for c in covered]},
    )


def _unused(waiver: Waiver) -> Finding:
    return Finding(
        "diff/waiver-unused",
        "info",
        f"the waiver for {waiver.tool} {waiver.path or '(tool)'} {waiver.kind or '(any kind)'} matches no change: "
        f"remove it ({waiver.source})",
        tool=waiver.tool,
        pointer=waiver.path if waiver.path != "*" else "",
        data={"waiver": waiver.as_dict()},
    )


def apply_policy(
    changes: Sequence[Change], policy: Policy, *, today: datetime.date | None = None
) -> tuple[list[Change], list[Finding]]:
    """Apply severities, then waivers.

    Args:
        changes: The classified changes.
        policy: The policy.
        today: The date waivers are judged against (today by default).

    Returns:
        The changes (overridden, waived) and the findings about the waivers themselves (expired: error, unused:
        info).
    """
    today = today or datetime.date.today()
    adjusted = [_override(change, policy.severity) for change in changes]
    findings: list[Finding] = []
    for waiver in policy.waivers:
        covered = [change for change in adjusted if waiver.covers(change)]
        if waiver.expires < today:
            findings.append(_expired(waiver, covered, today))
        elif not covered:
            findings.append(_unused(waiver))
    out = []
    for change in adjusted:
        live = next((w for w in policy.waivers if w.covers(change) and w.expires >= today), None)
        out.append(change if live is None else replace(change, waiver=live.as_dict()))
    return out, findings
