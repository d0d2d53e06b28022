"""The repository's data folders, and the shared corpora beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["CORPORA", "RECORDINGS", "REPO", "corpus"]

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = REPO / "recordings"
CORPORA = REPO.parent / "shared" / "corpora"


def corpus(*parts: str) -> Path:
    """A folder of ``../shared/corpora``, or a clean skip when this checkout has none beside it."""
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpora live beside the repository in ../shared)")
    return path
