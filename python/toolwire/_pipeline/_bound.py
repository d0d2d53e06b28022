"""The entry points bound to the Rust core: what ``import toolwire`` exports, and what the kits call.

The binding lives here rather than in the package's front so that a kit (the probe, the schema toolkit, the endpoint)
calls the core's entry points without importing the front, which exports the kits' names in turn (an import cycle).
Without the extension this still imports: a core entry point then raises one ImportError saying what is missing.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from toolwire._pipeline import _extension
from toolwire._pipeline._api import Api
from toolwire._pipeline._protocol import OUTPUT, Implementation, SchemaCheck
from toolwire.registry import core_validators

__all__ = ["core"]


def _core_schema(schema: dict[str, Any], max_depth: int, max_steps: int) -> SchemaCheck:
    """A structured output's schema compiled by the core's validator of arguments, checking any value."""
    text = json.dumps(schema, ensure_ascii=False, allow_nan=False)
    compiled = _extension.tool_validators()([(OUTPUT, text, "")], [], max_depth, max_steps)
    return partial(compiled.validate, OUTPUT, call=False)


#: ``reassemble``, ``events``, ``validate``... over the Rust core.
core = Api(Implementation(_extension.engine_factory(), core_validators, _extension.value_reader, _core_schema))
