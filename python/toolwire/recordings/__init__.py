"""Recordings: streams as they came over the network, read, written and redacted.

Reading (``_read``: a recording's files, its source as the network delivered it, every framing's decoder), writing
(``_write``: ``write`` and the ``Recorder`` that records a live stream as it is consumed), the call log (``_calllog``:
calls persisted as JSON lines for replay), and redaction of what is written (``_redact_stream`` over bodies of every
framing, ``_masking``, ``_stream_frames``, ``_stream_pieces``, ``_jsonspans``). See ``_read`` for the files' layout.
"""

from __future__ import annotations

from toolwire.recordings._calllog import CallLog
from toolwire.recordings._read import *  # noqa: F403  (the reading side's names, listed there once)
from toolwire.recordings._read import DEFAULT_ROOT, MANIFEST_SUFFIX
from toolwire.recordings._read import __all__ as _reading
from toolwire.recordings._write import Recorder, check_name, write

__all__ = [*_reading, "CallLog", "DEFAULT_ROOT", "MANIFEST_SUFFIX", "Recorder", "check_name", "write"]
