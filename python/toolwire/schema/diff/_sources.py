"""The two sides of a diff, read: registry files, directories, import paths, or ``git:REV:PATH``.

``git:REV:PATH`` reads PATH (a file or a directory) as it is at revision REV of the git repository around the working
directory, through ``git cat-file``/``git show``/``git ls-tree``, without touching the working tree: ``git:HEAD~1:
tools.yaml``, ``git:main:tools/``, ``git:v1.2:./tools.yaml``. As in git, PATH is relative to the repository's top
unless it starts with ``./`` (then to the working directory). The files are parsed exactly as ``load_tools`` parses
files on disk, and each definition's origin names the revision: ``git:HEAD~1:tools.yaml#2``.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolwire.schema._sources import ToolSource, load_tools, sources_of

__all__ = ["GIT_PREFIX", "label_of", "parse_git", "read_git", "read_side"]

#: What starts a git source.
GIT_PREFIX = "git:"

_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")


def parse_git(spec: str) -> tuple[str, str]:
    """``(REV, PATH)`` of ``git:REV:PATH``.

    Raises:
        ValueError: The spec has no revision or no path.
    """
    rest = spec[len(GIT_PREFIX) :]
    rev, sep, path = rest.partition(":")
    if not sep or not rev or not path:
        raise ValueError(
            f"{spec}: write git:REV:PATH, e.g. git:HEAD~1:tools.yaml or git:main:tools/ (PATH from the repository top)"
        )
    return rev, path


def _git(spec: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise OSError(f"{spec}: git is not installed (or not on PATH); install git or give a path") from None


def _said(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:][0] if done.stderr.strip() else ""


def _check_revision(spec: str, cwd: Path, rev: str) -> None:
    inside = _git(spec, cwd, "rev-parse", "--show-toplevel")
    if inside.returncode != 0:
        raise ValueError(f"{spec}: {cwd} is not inside a git repository (git says: {_said(inside)})")
    found = _git(spec, cwd, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if found.returncode != 0:
        raise ValueError(f"{spec}: revision {rev!r} does not exist in this repository (try git log --oneline)")


def _object_type(spec: str, cwd: Path, rev: str, path: str) -> str:
    kind = _git(spec, cwd, "cat-file", "-t", f"{rev}:{path}")
    if kind.returncode != 0:
        raise ValueError(
            f"{spec}: path {path!r} does not exist at revision {rev!r} (PATH is from the repository top; start it "
            "with ./ for the working directory)"
        )
    return kind.stdout.decode().strip()


def _show(spec: str, cwd: Path, rev: str, path: str) -> bytes:
    shown = _git(spec, cwd, "show", f"{rev}:{path}")
    if shown.returncode != 0:
        raise OSError(f"{spec}: git show {rev}:{path} failed: {_said(shown)}")
    return shown.stdout


def _files(spec: str, cwd: Path, rev: str, path: str) -> list[str]:
    listed = _git(spec, cwd, "ls-tree", "-r", "--name-only", "-z", f"{rev}:{path}")
    if listed.returncode != 0:
        raise OSError(f"{spec}: git ls-tree {rev}:{path} failed: {_said(listed)}")
    names = [name for name in listed.stdout.decode("utf-8").split("\0") if name]
    return sorted(name for name in names if name.lower().endswith(_SUFFIXES))


def _relabel(sources: list[ToolSource], local: str, label: str) -> list[ToolSource]:
    return [
        replace(source, origin=label + source.origin[len(local) :]) if source.origin.startswith(local) else source
        for source in sources
    ]


def read_git(spec: str, *, cwd: str | os.PathLike[str] | None = None) -> list[ToolSource]:
    """The tool definitions of PATH at REV (see the module docstring).

    Args:
        spec: ``git:REV:PATH``.
        cwd: The working directory git runs in (the current one by default).

    Returns:
        One ``ToolSource`` per definition, with origins under ``git:REV:PATH``.

    Raises:
        ValueError: A malformed spec, no repository, an unknown revision or a path that does not exist there (each
            naming REV and PATH), or a file that is not a tool file.
        OSError: git is not installed, or fails.
    """
    rev, path = parse_git(spec)
    folder = Path(cwd) if cwd is not None else Path.cwd()
    _check_revision(spec, folder, rev)
    kind = _object_type(spec, folder, rev, path)
    label = f"{GIT_PREFIX}{rev}:{path.rstrip('/')}"
    with tempfile.TemporaryDirectory(prefix="toolwire-diff-") as temporary:
        root = Path(temporary) / "tree"
        root.mkdir()
        if kind == "blob":
            if not path.lower().endswith(_SUFFIXES):
                raise ValueError(f"{spec}: {path} is not a tool file; use .json, .jsonl, .yaml or .yml")
            target = root / Path(path).name
            target.write_bytes(_show(spec, folder, rev, path))
            return _relabel(load_tools([target]), str(target), label)
        if kind != "tree":
            raise ValueError(f"{spec}: {path} at {rev} is a {kind}, not a file or a directory")
        for name in _files(spec, folder, rev, path):
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_show(spec, folder, rev, f"{path.rstrip('/')}/{name}"))
        return _relabel(load_tools([root]), str(root), label)


def label_of(given: Any) -> str:
    """How a side is named in the report: its path or spec, else what it is."""
    if isinstance(given, (str, os.PathLike)):
        return os.fspath(given)
    if isinstance(given, Sequence) and not isinstance(given, (bytes, bytearray)) and given:
        if all(isinstance(item, (str, os.PathLike)) for item in given):
            return " ".join(os.fspath(item) for item in given)
    return f"<{type(given).__name__}>"


def read_side(given: Any, *, cwd: str | os.PathLike[str] | None = None) -> list[ToolSource]:
    """One side's definitions, from anything ``load_tools``/``ToolRegistry.load`` takes or a ``git:`` spec.

    Args:
        given: A path, a ``package.module:attr`` import path or a ``git:REV:PATH`` spec (or a list of them),
            ``ToolSource``s, definitions, ``Tool``s or a ``ToolRegistry``.
        cwd: Where git runs for ``git:`` specs.

    Returns:
        The definitions, in order.

    Raises:
        ValueError, OSError: A source that cannot be read (named).
        TypeError: Something that is not a tool source.
    """
    items = [given] if isinstance(given, (str, os.PathLike)) else given
    if isinstance(items, list) and any(isinstance(i, str) and i.startswith(GIT_PREFIX) for i in items):
        found: list[ToolSource] = []
        for item in items:
            if isinstance(item, str) and item.startswith(GIT_PREFIX):
                found += read_git(item, cwd=cwd)
            else:
                found += sources_of(item, "diff_tools")
        return found
    return sources_of(given, "diff_tools")
