"""``recordings/`` as the core reads it today: every recording but those written in a dialect the core lacks.

The dialects are being ported to the core one by one (``toolwire.DIALECTS``); the tests that drive the core over the
whole folder (call logs, schema sampling, conversation logs) read this mirror, so that each ported dialect joins them
by itself. ``tests/recordings/test_recordings.py`` runs every recording on the reference.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

import toolwire
from tests.support.paths import RECORDINGS
from toolwire.recordings import Recording, iter_recordings

__all__ = ["core_reads", "core_recordings"]


def core_reads(recording: Recording) -> bool:
    """Whether the core reads the recording: it names no dialect, or one of ``toolwire.DIALECTS``."""
    return recording.dialect is None or recording.dialect in toolwire.DIALECTS


@cache
def core_recordings() -> Path:
    """A folder of links to the recordings the core reads, laid out as ``recordings/`` (made once per session)."""
    folder = Path(tempfile.mkdtemp(prefix="toolwire-core-recordings-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for recording in iter_recordings(RECORDINGS):
        if not core_reads(recording):
            continue
        target = folder / recording.path.relative_to(RECORDINGS).parent
        target.mkdir(parents=True, exist_ok=True)
        for path in (recording.path, recording.manifest_path):
            (target / path.name).symlink_to(path)
    return folder
