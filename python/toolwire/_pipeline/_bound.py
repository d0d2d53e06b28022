"""The entry points bound to the Rust core: what ``import toolwire`` exports, and what the kits call.

The binding lives here rather than in the package's front so that a kit (the probe, the schema toolkit, the endpoint)
calls the core's entry points without importing the front, which exports the kits' names in turn (an import cycle).
Without the extension this still imports: a core entry point then raises one ImportError saying what is missing.
"""

from __future__ import annotations

from toolwire._pipeline import _extension
from toolwire._pipeline._api import Api
from toolwire._pipeline._protocol import Implementation
from toolwire.registry import core_validators

__all__ = ["core"]

#: ``reassemble``, ``events``, ``validate``... over the Rust core.
core = Api(Implementation(_extension.engine_factory(), core_validators))
