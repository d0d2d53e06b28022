"""Text dialects: the tool calls open-weight models write into their text.

``render(calls, dialect)`` writes calls as a model of that dialect's family writes them, as its chat template
renders them (``STYLES`` names each dialect's variants): the ground truth that parsers are tested against, and the
text the strategies (``toolwire.strategies.streams(..., dialect=...)``) and the local endpoint stream. The dialects,
their markers and rules are ``docs/dialects.md``; parsing them comes with the core's dialect parsers.
"""

from __future__ import annotations

from toolwire.dialects._render import REASONING_DIALECTS, STYLES, render

__all__ = ["REASONING_DIALECTS", "STYLES", "render"]
