"""Where a registry's versions are read from: a directory of registry files, or the git history of one file.

``RegistryHistory.from_directory`` and ``from_git`` are built on these readers; the rules (order, labels, start
times) are in ``toolwire.schema.history._history``'s docstring and in docs/history.md.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from toolwire._common._json import parse_json
from toolwire._common._yaml import parse_yaml
from toolwire.registry import ServerTool, Tool, ToolRegistry
from toolwire.schema._sources import ToolSource, iter_definitions, jsonl_values

__all__ = ["RegistryVersion", "instant", "versions_from_directory", "versions_from_git"]

_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")
_MANIFESTS = ("history.yaml", "history.yml", "history.json")
_MANIFEST_KEYS = frozenset({"file", "label", "released"})
_LEADING_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?!\d)")


def instant(value: object, where: str) -> datetime:
    """A timezone-aware time from a date, a datetime or an ISO 8601 string; naive values are taken as UTC.

    Args:
        value: ``datetime.date``, ``datetime.datetime`` or text such as ``2026-03-01`` or ``2026-03-01T09:30Z``.
        where: What the value is, named in the error.

    Returns:
        The time (a date is its midnight, UTC).

    Raises:
        ValueError: The value is none of these.
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        # Python 3.10's fromisoformat does not read a trailing Z.
        text = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"{where}: {value!r} is not an ISO 8601 date or time; write 2026-03-01 or 2026-03-01T09:30:00+00:00"
            ) from None
    else:
        raise ValueError(f"{where}: expected an ISO 8601 date or time; got {value!r}")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _natural(text: str) -> list[Any]:
    """Sort key that orders ``v2`` before ``v10``."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", text)]


@dataclass(frozen=True)
class RegistryVersion:
    """One version of a registry.

    Attributes:
        label: The name migrations and reports use: a file stem, a manifest label, or a short commit hash.
        registry: The tools of this version.
        started: When this version went into use, timezone-aware; None when unknown.
        origin: Where it was read: a file, or ``git:<hash>:<path>``.
        aliases: Other names the version answers to (a commit's full hash and its tags).
    """

    label: str
    registry: ToolRegistry
    started: datetime | None = None
    origin: str = ""
    aliases: tuple[str, ...] = ()

    def answers_to(self, label: str) -> bool:
        """Whether ``label`` names this version: its label, an alias, or 7+ leading characters of a full hash."""
        if label == self.label or label in self.aliases:
            return True
        return len(label) >= 7 and any(len(alias) == 40 and alias.startswith(label) for alias in self.aliases)


def _stamp(moment: datetime) -> str:
    return moment.isoformat()


def versions_from_directory(path: str | Path) -> list[RegistryVersion]:
    """The versions of a directory of registry files, in order (see ``RegistryHistory.from_directory``).

    Raises:
        FileNotFoundError: No such directory.
        NotADirectoryError: The path is a file.
        ValueError: No registry files, a file or the manifest that does not load, two files with the same stem, a
            file the manifest does not list, or dates that disagree.
    """
    folder = Path(path)
    if not folder.exists():
        raise FileNotFoundError(f"{folder}: no such directory (a history is a directory of registry files)")
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder}: not a directory; --history takes a directory or git:PATH")
    manifests = [folder / name for name in _MANIFESTS if (folder / name).is_file()]
    files = sorted(
        (
            file
            for file in folder.iterdir()
            if file.is_file()
            and file.suffix.lower() in _SUFFIXES
            and file.name not in _MANIFESTS
            and not file.name.startswith(".")
        ),
        key=lambda file: (_natural(file.stem), file.name),
    )
    if len(manifests) > 1:
        raise ValueError(f"{folder}: {' and '.join(m.name for m in manifests)} are both manifests; keep one")
    entries = _manifest(manifests[0], files) if manifests else [(file.stem, file, None) for file in files]
    if not entries:
        raise ValueError(f"{folder}: no registry files (.json, .jsonl, .yaml, .yml) to read versions from")
    versions = []
    for label, file, listed in entries:
        registry, declared = _registry_from_text(_read_text(file), file.name, str(file))
        started = _start_of(file, listed, declared)
        versions.append(RegistryVersion(label, registry, started, str(file)))
    return versions


def versions_from_git(path: str | Path, repo: str | Path) -> tuple[list[RegistryVersion], list[tuple[str, str]]]:
    """The versions of one file in a git repository, oldest first, and the commits skipped with their reasons.

    Raises:
        OSError: ``git`` cannot be run.
        ValueError: Not a repository, the file is outside it, no commit changed it, or none of its versions loads.
    """
    top = Path(_git(Path(repo), "rev-parse", "--show-toplevel").strip())
    target = Path(path) if Path(path).is_absolute() else Path(repo) / path
    try:
        full = target.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        raise ValueError(f"{target}: not inside the git repository at {top}") from None
    log = _git(
        top,
        "log",
        "--follow",
        "--date-order",
        "--name-status",
        "--format=%x1e%H%x1f%h%x1f%cI%x1f%D",
        "--",
        full,
    )
    versions: list[RegistryVersion] = []
    skipped: list[tuple[str, str]] = []
    name = full
    for record in log.split("\x1e")[1:]:
        lines = [line for line in record.splitlines() if line.strip()]
        full_hash, short, when, refs = lines[0].split("\x1f")
        here = older = name
        deleted = False
        if len(lines) > 1:
            fields = lines[1].split("\t")
            here = older = fields[-1]
            deleted = fields[0].startswith("D")
            if fields[0][:1] in ("R", "C") and len(fields) == 3:
                older = fields[1]
        name = older
        if deleted:
            skipped.append((short, f"commit {short} deleted {here}"))
            continue
        tags = tuple(ref[5:] for ref in (part.strip() for part in refs.split(",")) if ref.startswith("tag: "))
        origin = f"git:{short}:{here}"
        try:
            text = _git(top, "cat-file", "blob", f"{full_hash}:{here}")
            registry, _ = _registry_from_text(text, here, origin)
        except ValueError as error:
            skipped.append((short, str(error)))
            continue
        versions.append(RegistryVersion(short, registry, instant(when, origin), origin, (full_hash, *tags)))
    if not versions:
        why = "; ".join(reason for _, reason in skipped) or "no commit changed it"
        raise ValueError(f"{full}: no version of the file in the git history of {top} loads: {why}")
    versions.reverse()
    skipped.reverse()
    return versions, skipped


# -- files -----------------------------------------------------------------------------------------------------------


def _read_text(file: Path) -> str:
    return file.read_text(encoding="utf-8-sig")


def _parse(text: str, name: str, origin: str) -> Any:
    if Path(name).suffix.lower() == ".json":
        return parse_json(text, origin)
    try:
        return parse_yaml(text, origin)
    except ImportError as error:
        # A history entry that cannot be read is reported as unreadable, as any other.
        raise ValueError(str(error)) from None


def _registry_from_text(text: str, name: str, origin: str) -> tuple[ToolRegistry, object]:
    """The registry a file's text declares, and its top-level ``released`` value (None when absent)."""
    released: object = None
    sources: list[ToolSource] = []
    if Path(name).suffix.lower() == ".jsonl":
        for where, item, problem in jsonl_values(text, origin):
            if problem is not None:
                raise ValueError(f"{where}: {problem}")
            sources += iter_definitions(item, where)
    else:
        data = _parse(text, name, origin)
        # ``released`` beside the tools is the version's date; a value that is a mapping would be a tool's schema.
        if isinstance(data, Mapping) and "released" in data and not isinstance(data["released"], Mapping):
            released = data["released"]
            data = {key: value for key, value in data.items() if key != "released"}
        if data is None:
            raise ValueError(f"{origin}: the file is empty; write the registry's tools")
        sources = list(iter_definitions(data, origin))
    problems = [f"{source.origin}: {source.error}" for source in sources if source.error]
    if problems:
        raise ValueError(f"{origin}: {len(problems)} definition(s) do not load: " + "; ".join(problems))
    entries: list[Tool | ServerTool] = [
        entry for source in sources if (entry := source.tool or source.server_tool) is not None
    ]
    try:
        return ToolRegistry(entries), released
    except (TypeError, ValueError) as error:
        raise ValueError(f"{origin}: {error}") from None


def _manifest(manifest: Path, files: list[Path]) -> list[tuple[str, Path, object]]:
    """``(label, file, released)`` of each version a manifest lists, in its order."""
    data = _parse(_read_text(manifest), manifest.name, str(manifest))
    items = data.get("versions") if isinstance(data, Mapping) else data
    if not isinstance(items, list):
        raise ValueError(f"{manifest}: expected versions: [{{file, label, released}}, ...] (or a list of them)")
    entries: list[tuple[str, Path, object]] = []
    for number, item in enumerate(items):
        where = f"{manifest}: versions[{number}]"
        if isinstance(item, str):
            item = {"file": item}
        if not isinstance(item, Mapping) or not isinstance(item.get("file"), str):
            raise ValueError(f"{where}: expected a mapping with file (and optionally label, released); got {item!r}")
        unknown = sorted(set(item) - _MANIFEST_KEYS)
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; a version has file, label, released")
        file = manifest.parent / item["file"]
        if not file.is_file():
            raise FileNotFoundError(f"{where}: {file} does not exist")
        label = item.get("label", file.stem)
        if not isinstance(label, str) or not label:
            raise ValueError(f"{where}: label must be a non-empty string; got {label!r}")
        entries.append((label, file, item.get("released")))
    listed = {entry[1].resolve() for entry in entries}
    unlisted = [file.name for file in files if file.resolve() not in listed]
    if unlisted:
        raise ValueError(
            f"{manifest}: {', '.join(unlisted)} not listed; list every registry file of the directory as a version "
            "or move the others out"
        )
    return entries


def _start_of(file: Path, listed: object, declared: object) -> datetime | None:
    """A version's start: the manifest's ``released``, the file's, or a leading date in its name (they must agree)."""
    found = [
        (where, instant(value, f"{where} released"))
        for where, value in ((f"{file} (manifest)", listed), (str(file), declared))
        if value is not None
    ]
    if len(found) == 2 and found[0][1] != found[1][1]:
        raise ValueError(
            f"{file}: released {_stamp(found[1][1])} in the file but {_stamp(found[0][1])} in the manifest; keep one"
        )
    if found:
        return found[0][1]
    leading = _LEADING_DATE.match(file.stem)
    return instant(leading.group(1), f"{file} (date in the name)") if leading else None


def _git(repo: Path, *arguments: str) -> str:
    command = ["git", "-c", "color.ui=never", "-c", "core.quotepath=off", "-C", str(repo), *arguments]
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except FileNotFoundError:
        raise OSError("git is not installed (or not on PATH); a git history needs it") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise ValueError(f"git {' '.join(arguments[:2])} in {repo}: {message}")
    return done.stdout.decode("utf-8-sig", "replace")
