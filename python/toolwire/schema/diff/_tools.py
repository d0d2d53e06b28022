"""Tools matched across OLD and NEW: by name, probable renames, and the changes of the tool itself.

A tool on one side only is added or removed, unless a tool removed and a tool added have the same normalised
parameters schema and read alike (their descriptions and parameter names, scored by ``_similarity``; with no
description on either side, the names must share a word): that is one ``tool-renamed``. A tool on both sides is
compared field by field (description, ``strict``, ``deprecated``, the ``$ref`` layout) and its parameters walked
(``_walk``). Definitions that do not load, and names declared twice, are reported as errors and left out of the
comparison: nothing is compared against a guess.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from toolwire.schema._findings import Finding
from toolwire.schema._similarity import DEFAULT_SIMILARITY_THRESHOLD, similarity, tool_text, words
from toolwire.schema._sources import ToolSource
from toolwire.schema.diff._change import ABSENT, Change
from toolwire.schema.diff._normalize import Note, normalise_with_notes, same
from toolwire.schema.diff._walk import walk_parameters

__all__ = ["RENAME_THRESHOLD", "Side", "compare_tools", "side_of"]

#: The least similarity (of descriptions and parameter names) for a removed and an added tool with the same
#: schema to be read as one tool renamed.
RENAME_THRESHOLD: Final = 0.5


@dataclass(frozen=True)
class Side:
    """One side of the diff: its tools by name, normalised, and what could not be compared.

    Attributes:
        label: What it was read from (``tools.yaml``, ``git:HEAD~1:tools``).
        sources: Every definition read, in order.
        tools: The loadable tools by name (the first of a name declared twice).
        schemas: Each tool's normalised parameters schema.
        notes: Each tool's normalisation notes.
        problems: Error findings: definitions that do not load, names declared twice.
    """

    label: str
    sources: tuple[ToolSource, ...]
    tools: Mapping[str, ToolSource]
    schemas: Mapping[str, Any]
    notes: Mapping[str, tuple[Note, ...]]
    problems: tuple[Finding, ...] = field(default=())


def side_of(label: str, sources: Sequence[ToolSource], *, strict_optional: bool = False) -> Side:
    """Index one side's definitions by name and normalise each schema.

    Args:
        label: What the side was read from, for messages.
        sources: Its definitions (``load_tools``).
        strict_optional: Read OpenAI-strict's "required and nullable" as optional.

    Returns:
        The side; unloadable definitions and repeated names are in ``problems``.
    """
    tools: dict[str, ToolSource] = {}
    problems: list[Finding] = []
    for source in sources:
        if source.server_tool is not None:
            continue  # a provider's built-in tool: no schema of ours
        if source.tool is None:
            where = f" at {source.error_pointer}" if source.error_pointer else ""
            problems.append(
                Finding(
                    "diff/not-loadable",
                    "error",
                    f"{label}: the definition does not load{where} ({source.error}); it is left out of the diff: "
                    "fix it (toolwire check)",
                    tool=source.name,
                    pointer=source.error_pointer or "",
                    origin=source.origin,
                )
            )
            continue
        name = source.tool.name
        if name in tools:
            problems.append(
                Finding(
                    "diff/duplicate-name",
                    "error",
                    f"{label}: {name!r} is declared at {tools[name].origin} and again at {source.origin}; the first "
                    "is compared: rename or remove one",
                    tool=name,
                    origin=source.origin,
                )
            )
            continue
        tools[name] = source
    normalised = {
        name: normalise_with_notes(source.tool.parameters if source.tool else {}, strict_optional=strict_optional)
        for name, source in tools.items()
    }
    return Side(
        label,
        tuple(sources),
        tools,
        {name: result.schema for name, result in normalised.items()},
        {name: result.notes for name, result in normalised.items()},
        tuple(problems),
    )


def _description(source: ToolSource) -> str:
    return (source.tool.description if source.tool else None) or ""


def _parameter_names(schema: Any) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


def _rename_score(old: Side, old_name: str, new: Side, new_name: str) -> float | None:
    """How alike a removed and an added tool read, when their schemas are equal; None when they cannot be one."""
    if not same(old.schemas[old_name], new.schemas[new_name]):
        return None
    old_text, new_text = _description(old.tools[old_name]), _description(new.tools[new_name])
    if not old_text and not new_text:
        # No description to compare: the names must share a word, and the schema must say something.
        shared = set(words(old_name)) & set(words(new_name))
        return 1.0 if shared and _parameter_names(new.schemas[new_name]) else None
    parameters = _parameter_names(new.schemas[new_name])
    score = similarity(tool_text("", old_text, parameters), tool_text("", new_text, parameters))
    return score if score >= RENAME_THRESHOLD else None


def _renames(old: Side, new: Side, removed: list[str], added: list[str]) -> list[tuple[str, str, float]]:
    scored = []
    for old_name in removed:
        for new_name in added:
            score = _rename_score(old, old_name, new, new_name)
            if score is not None:
                scored.append((score, old_name, new_name))
    pairs: list[tuple[str, str, float]] = []
    taken: set[str] = set()
    for score, old_name, new_name in sorted(scored, key=lambda item: (-item[0], item[1], item[2])):
        if old_name not in taken and new_name not in taken:
            pairs.append((old_name, new_name, score))
            taken |= {old_name, new_name}
    return pairs


def _sunset_passed(source: ToolSource, today: datetime.date) -> bool:
    if source.meta.get("deprecated") in (None, False, ""):
        return False
    try:
        sunset = datetime.date.fromisoformat(str(source.meta.get("sunset")))
    except ValueError:
        return False
    return sunset <= today


def _removed(old: Side, name: str, today: datetime.date) -> Change:
    source = old.tools[name]
    if _sunset_passed(source, today):
        return Change(
            name,
            "",
            "tool-removed-after-sunset",
            name,
            ABSENT,
            f"tool {name!r} removed after its sunset {source.meta.get('sunset')} (deprecated: "
            f"{source.meta.get('deprecated')})",
            {"sunset": str(source.meta.get("sunset"))},
            origin=source.origin,
        )
    return Change(name, "", "tool-removed", name, ABSENT, f"tool {name!r} removed", origin=source.origin)


def _added(new: Side, name: str) -> Change:
    source = new.tools[name]
    mine = tool_text(name, _description(source), _parameter_names(new.schemas[name]))
    closest = max(
        (
            (similarity(mine, tool_text(other, _description(s), _parameter_names(new.schemas[other]))), other)
            for other, s in new.tools.items()
            if other != name
        ),
        default=(0.0, ""),
    )
    if closest[0] >= DEFAULT_SIMILARITY_THRESHOLD:
        return Change(
            name,
            "",
            "tool-added-overlapping",
            ABSENT,
            name,
            f"tool {name!r} added; it reads like {closest[1]!r} (similarity {closest[0]:.2f})",
            {"like": closest[1], "similarity": round(closest[0], 3), "threshold": DEFAULT_SIMILARITY_THRESHOLD},
            origin=source.origin,
        )
    return Change(name, "", "tool-added", ABSENT, name, f"tool {name!r} added", origin=source.origin)


def _refs(schema: Any) -> tuple[list[str], list[str]]:
    """The ``$ref`` strings and ``$defs``/``definitions`` names of a schema as written."""
    refs: list[str] = []
    defs: list[str] = []

    def visit(node: Any) -> None:
        if isinstance(node, Mapping):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for key in ("$defs", "definitions"):
                if isinstance(node.get(key), Mapping):
                    defs.extend(f"{key}/{name}" for name in node[key])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(schema)
    return sorted(set(refs)), sorted(defs)


def _tool_fields(old: ToolSource, new: ToolSource) -> Iterator[Change]:
    name = new.tool.name if new.tool else ""
    old_tool, new_tool = old.tool, new.tool
    assert old_tool is not None and new_tool is not None
    if old_tool.description != new_tool.description:
        yield Change(name, "", "tool-description-changed", old_tool.description, new_tool.description,
                     f"tool {name!r}: description changed", origin=new.origin)  # fmt: skip
    if old_tool.strict is True and new_tool.strict is not True:
        yield Change(name, "", "strict-disabled", old_tool.strict, new_tool.strict, f"tool {name!r}: strict is off",
                     origin=new.origin)  # fmt: skip
    if old_tool.strict is not True and new_tool.strict is True:
        yield Change(name, "", "strict-enabled", old_tool.strict, new_tool.strict, f"tool {name!r}: strict is on",
                     origin=new.origin)  # fmt: skip
    if old.meta.get("deprecated") in (None, False, "") and new.meta.get("deprecated") not in (None, False, ""):
        yield Change(name, "", "tool-deprecated", ABSENT, new.meta.get("deprecated"),
                     f"tool {name!r} is deprecated (sunset: {new.meta.get('sunset', 'none set')})",
                     {"sunset": new.meta.get("sunset")}, origin=new.origin)  # fmt: skip
    old_refs, new_refs = _refs(old_tool.parameters), _refs(new_tool.parameters)
    if old_refs != new_refs:
        yield Change(name, "", "ref-refactored", {"refs": old_refs[0], "defs": old_refs[1]},
                     {"refs": new_refs[0], "defs": new_refs[1]},
                     f"tool {name!r}: the $ref/$defs layout changed; compared after resolution",
                     origin=new.origin)  # fmt: skip


def compare_tools(old: Side, new: Side, *, today: datetime.date | None = None) -> list[Change]:
    """Every change between two sides: tools removed, renamed, added, and the changes of the tools on both.

    Args:
        old: OLD's side.
        new: NEW's side.
        today: The date sunsets are judged against (today by default).

    Returns:
        The changes: per tool in NEW's order (then OLD's tools that are gone), tool-level changes first.
    """
    today = today or datetime.date.today()
    # A tool whose definition does not load on one side is reported as such (Side.problems), not as added/removed.
    old_broken = {source.name for source in old.sources if source.tool is None and source.name}
    new_broken = {source.name for source in new.sources if source.tool is None and source.name}
    removed = [name for name in old.tools if name not in new.tools and name not in new_broken]
    added = [name for name in new.tools if name not in old.tools and name not in old_broken]
    changes: list[Change] = []
    renamed = _renames(old, new, removed, added)
    for old_name, new_name, score in renamed:
        removed.remove(old_name)
        added.remove(new_name)
        changes.append(
            Change(
                new_name,
                "",
                "tool-renamed",
                old_name,
                new_name,
                f"tool {old_name!r} renamed to {new_name!r} (same schema; descriptions alike: {score:.2f}): calls "
                f"under {old_name!r} fail; keep {old_name!r} as an alias",
                {"old_name": old_name, "similarity": round(score, 3)},
                origin=new.tools[new_name].origin,
            )
        )
    for name in new.tools:
        if name in added:
            changes.append(_added(new, name))
        elif name in old.tools:
            changes += _tool_fields(old.tools[name], new.tools[name])
            changes += walk_parameters(name, old.schemas[name], new.schemas[name], origin=new.tools[name].origin)
    changes += [_removed(old, name, today) for name in removed]
    return changes
