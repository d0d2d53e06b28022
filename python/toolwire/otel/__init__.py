"""OpenTelemetry traces and metrics of toolwire's streams, after the GenAI semantic conventions.

``toolwire.otel.instrument()`` (``pip install 'toolwire[otel]'``: the official ``opentelemetry-api``; configure the SDK
and its exporter as for any instrumentation) traces every stream ``reassemble``, ``areassemble``, ``events`` and
``aevents`` make from then on, whichever implementation made it: one span per stream, from the moment it is made to
its end, under whatever span is current then. A span holds what instrumentations that accumulate streams themselves
lose: every tool call (``gen_ai.tool.call`` events with ``gen_ai.tool.call.id`` and ``gen_ai.tool.name``; the
arguments, and ``gen_ai.output.messages``, only when content capture is on), every violation as an event named after
its code, and the counters ``toolwire.violations`` (by code) and ``toolwire.tool_calls`` (by tool and validity).
See docs/otel.md.
"""

from toolwire.otel._instrument import CONVENTIONS_VERSION, Instrumentation, instrument

__all__ = ["CONVENTIONS_VERSION", "Instrumentation", "instrument"]
