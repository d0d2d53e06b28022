"""Replay: tool calls already made, validated against the tools as they are now, and the report of it."""

from __future__ import annotations

from toolwire.schema.replay._output import REPLAY_FORMATS, render_replay
from toolwire.schema.replay._replay import DEFAULT_BATCH_SIZE, ReplayReport, registry_of, replay_calls

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "REPLAY_FORMATS",
    "ReplayReport",
    "registry_of",
    "render_replay",
    "replay_calls",
]
