"""toolwire: streamed LLM tool calls reassembled into whole, validated calls, fast.

``for call in toolwire.reassemble(stream)`` hands over each tool call of a streamed response the moment it is
whole, with every contract violation reported as data. The engine is the Rust extension ``toolwire._core``;
``toolwire.reference`` is the same behaviour in plain Python, and imports without the extension.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolwire._pipeline import _extension
from toolwire._pipeline._bound import core
from toolwire._pipeline._exports import *  # noqa: F403  (the names both implementations export, listed there once)
from toolwire._pipeline._exports import __all__
from toolwire._pipeline._reassembler import Reassembler as _Reassembler
from toolwire.errors import CallLogWriteError

if TYPE_CHECKING:
    from toolwire._pipeline._batch import validate_batch
    from toolwire.recordings import CallLog
    from toolwire.schema.history import Migrations, RegistryHistory, migration

    __version__: str
    #: The dialects ``dialect=`` reads, by the names servers give their parsers (``--tool-call-parser``).
    DIALECTS: tuple[str, ...]

reassemble = core.reassemble
areassemble = core.areassemble
events = core.events
aevents = core.aevents
validate = core.validate
validate_many = core.validate_many
validate_result = core.validate_result
stream_object = core.stream_object
astream_object = core.astream_object
normalize = core.normalize


class Reassembler(_Reassembler, implementation=core.implementation):
    """Reassembly for callers who drive their own loop, over the Rust core (``toolwire._pipeline._reassembler``)."""


# Imported on first use: schema histories read YAML and git, and validate_batch needs pyarrow; an agent loop that
# only reassembles pays for none of it. The version is read on first use so that importing needs no extension.
_LAZY = {
    "CallLog": "toolwire.recordings",
    "RegistryHistory": "toolwire.schema.history",
    "Migrations": "toolwire.schema.history",
    "migration": "toolwire.schema.history",
    "validate_batch": "toolwire._pipeline._batch",
}


def __getattr__(name: str) -> Any:
    """The names of the compatibility kit, ``DIALECTS`` and ``__version__``, made on first use."""
    if name == "__version__":
        return _extension.version()
    if name == "DIALECTS":
        return _extension.dialect_names()
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'toolwire' has no attribute {name!r}")


__all__ += (
    "DIALECTS",
    "CallLog",
    "CallLogWriteError",
    "Migrations",
    "Reassembler",
    "RegistryHistory",
    "__version__",
    "aevents",
    "areassemble",
    "astream_object",
    "events",
    "migration",
    "normalize",
    "reassemble",
    "stream_object",
    "validate",
    "validate_batch",
    "validate_many",
    "validate_result",
)
