"""The pure-Python reference implementation of toolwire's reassembly.

Plain, readable Python with no performance tricks and no need of the Rust extension: it states
``docs/semantics.md`` in code, serves as the oracle of the differential tests and as the baseline of the
benchmarks. It exposes the same names as ``toolwire`` with the same behaviour, bound through the same definition
(``toolwire._pipeline._api``).
"""

from __future__ import annotations

from toolwire._pipeline._api import Api
from toolwire._pipeline._exports import *  # noqa: F403  (the names both implementations export, listed there once)
from toolwire._pipeline._exports import __all__
from toolwire._pipeline._protocol import Implementation
from toolwire._pipeline._reassembler import Reassembler as _Reassembler
from toolwire.reference._engine import Engine
from toolwire.reference._tools import reference_schema, reference_validators
from toolwire.reference._value_reader import ValueReader
from toolwire.reference.dialects import DIALECTS as _PARSERS

_REFERENCE = Api(Implementation(Engine, reference_validators, ValueReader, reference_schema))

reassemble = _REFERENCE.reassemble
areassemble = _REFERENCE.areassemble
events = _REFERENCE.events
aevents = _REFERENCE.aevents
validate = _REFERENCE.validate
validate_many = _REFERENCE.validate_many
validate_result = _REFERENCE.validate_result
stream_object = _REFERENCE.stream_object
astream_object = _REFERENCE.astream_object
normalize = _REFERENCE.normalize


#: The dialects ``dialect=`` reads, by the names servers give their parsers (``--tool-call-parser``).
DIALECTS: tuple[str, ...] = tuple(_PARSERS)


class Reassembler(_Reassembler, implementation=_REFERENCE.implementation):
    """Reassembly for callers who drive their own loop, over the reference (``toolwire._pipeline._reassembler``)."""


__all__ += (
    "DIALECTS",
    "Engine",
    "Reassembler",
    "aevents",
    "areassemble",
    "astream_object",
    "events",
    "normalize",
    "reassemble",
    "stream_object",
    "validate",
    "validate_many",
    "validate_result",
)
