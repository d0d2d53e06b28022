"""The instrumentation: an observer of streams (``toolwire._pipeline._observers``) that writes spans and counts.

What a span holds is built from the stream's ``StreamResult`` once the stream ended, so both implementations (the
core and the reference) are traced alike and nothing is read twice while the stream runs. Recording never breaks the
stream it records: a failure is logged and the span ends.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from toolwire._common._closing import ClosingBlock
from toolwire._model import InvalidToolCall, StreamResult, ToolCall, Violation
from toolwire._pipeline._extension import version
from toolwire._pipeline._observers import StreamKind, add_observer, remove_observer

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span, TracerProvider

__all__ = ["CONVENTIONS_VERSION", "Instrumentation", "instrument"]

#: The version of the GenAI semantic conventions the attributes follow.
CONVENTIONS_VERSION: Final = "1.37.0"
_SCHEMA_URL: Final = f"https://opentelemetry.io/schemas/{CONVENTIONS_VERSION}"
#: The switch the GenAI instrumentations share for recording what the model wrote.
CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# Each provider's finish reason, as the conventions' output message names it (others are passed on as sent).
_FINISH: Final = {
    "tool_calls": "tool_call",
    "tool_use": "tool_call",
    "function_call": "tool_call",
    "stop": "stop",
    "end_turn": "stop",
    "STOP": "stop",
    "completed": "stop",
    "length": "length",
    "max_tokens": "length",
    "MAX_TOKENS": "length",
    "incomplete": "length",
    "content_filter": "content_filter",
    "SAFETY": "content_filter",
    "refusal": "content_filter",
    "failed": "error",
}

_log = logging.getLogger(__name__)


def _version() -> str:
    try:
        return version()
    except ImportError:  # a source tree neither built nor installed: the spans say no version rather than fail
        return "unknown"


def instrument(
    *,
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    capture_content: bool | None = None,
) -> Instrumentation:
    """Trace every stream made from now on, until ``uninstrument()`` (or the end of a ``with`` block).

    Args:
        tracer_provider: Where spans go (default: the global one ``opentelemetry.trace`` was given).
        meter_provider: Where the counters go (default: the global one).
        capture_content: Record what the model wrote: each call's arguments and ``gen_ai.output.messages`` (text
            and calls), and the violations' messages, which may quote argument values. Default: the
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` environment variable is ``true``; off otherwise,
            as the conventions ask.
    """
    if capture_content is None:
        capture_content = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"
    instrumentation = Instrumentation(tracer_provider, meter_provider, capture_content=capture_content)
    add_observer(instrumentation)
    return instrumentation


class Instrumentation(ClosingBlock):
    """The streams' observer ``instrument`` registers; ``uninstrument()`` stops it, as the end of a ``with`` does."""

    def __init__(
        self, tracer_provider: TracerProvider | None, meter_provider: MeterProvider | None, *, capture_content: bool
    ) -> None:
        """Make the tracer and the counters (use ``instrument`` rather than this)."""
        version = _version()
        self.capture_content = capture_content
        self._tracer = trace.get_tracer("toolwire", version, tracer_provider, schema_url=_SCHEMA_URL)
        meter = metrics.get_meter("toolwire", version, meter_provider, schema_url=_SCHEMA_URL)
        self._violations = meter.create_counter(
            "toolwire.violations", unit="{violation}", description="Contract violations found in streams, by code"
        )
        self._calls = meter.create_counter(
            "toolwire.tool_calls", unit="{call}", description="Tool calls handed over, by tool and validity"
        )

    def stream_started(self, kind: StreamKind) -> _StreamSpan:
        """A span for the stream being made, under the span current now."""
        span = self._tracer.start_span(
            f"toolwire {kind}", kind=SpanKind.INTERNAL, attributes={"toolwire.stream.kind": kind}
        )
        return _StreamSpan(self, span)

    def uninstrument(self) -> None:
        """Trace no stream made from now on (one already traced still ends its span)."""
        remove_observer(self)

    def close(self) -> None:
        """Uninstrument: what the end of a ``with`` block does."""
        self.uninstrument()


class _StreamSpan:
    """One stream's span, ended with what the stream came to."""

    __slots__ = ("_owner", "_span")

    def __init__(self, owner: Instrumentation, span: Span) -> None:
        self._owner = owner
        self._span = span

    def ended(self, result: StreamResult | None, error: BaseException | None) -> None:
        try:
            if result is not None:
                self._record(result)
            self._outcome(error)
        except Exception:  # telemetry never breaks the program it observes
            _log.exception("toolwire.otel: recording a stream's span failed")
        finally:
            self._span.end()

    def _record(self, result: StreamResult) -> None:
        span, owner = self._span, self._owner
        capture = owner.capture_content
        fmt = result.format or "unknown"
        span.set_attribute("toolwire.format", fmt)
        reasons = [choice.finish_reason for choice in result.choices if choice.finish_reason is not None]
        if reasons:
            span.set_attribute("gen_ai.response.finish_reasons", reasons)
        span.set_attribute("toolwire.tool_calls.valid", len(result.calls))
        span.set_attribute("toolwire.tool_calls.invalid", len(result.invalid_calls))
        span.set_attribute("toolwire.ok", result.ok)
        for call in _calls(result):
            ok = isinstance(call, ToolCall)
            attributes: dict[str, Any] = {
                "gen_ai.tool.call.id": call.id,
                "gen_ai.tool.name": call.name or "",
                "toolwire.tool_call.seq": call.seq,
                "toolwire.tool_call.choice": call.choice,
                "toolwire.tool_call.ok": ok,
            }
            if capture:
                attributes["gen_ai.tool.call.arguments"] = _arguments_text(call)
            span.add_event("gen_ai.tool.call", attributes)
            owner._calls.add(1, {"gen_ai.tool.name": call.name or "", "toolwire.tool_call.ok": ok})
            for found in _findings_of(call):
                self._violation(found, fmt)
        for found in result.violations:
            self._violation(found, fmt)
        if capture:
            span.set_attribute("gen_ai.output.messages", json.dumps(_output_messages(result), ensure_ascii=False))

    def _violation(self, found: Violation, fmt: str) -> None:
        attributes: dict[str, Any] = {
            "toolwire.violation.severity": found.severity.value,
            "toolwire.violation.recoverable": found.recoverable,
        }
        for key, value in (("choice", found.choice), ("seq", found.seq), ("path", found.path)):
            if value is not None:
                attributes[f"toolwire.violation.{key}"] = value
        if self._owner.capture_content:
            attributes["toolwire.violation.message"] = found.message
        self._span.add_event(found.code.value, attributes)
        counted = {"toolwire.violation.code": found.code.value, "toolwire.violation.severity": found.severity.value}
        self._owner._violations.add(1, {**counted, "toolwire.format": fmt})

    def _outcome(self, error: BaseException | None) -> None:
        if error is None:
            return
        if isinstance(error, GeneratorExit):
            self._span.set_attribute("toolwire.stream.closed_early", True)  # the consumer stopped: no failure
            return
        self._span.record_exception(error)
        self._span.set_attribute("error.type", type(error).__qualname__)
        self._span.set_status(Status(StatusCode.ERROR, type(error).__qualname__))


def _calls(result: StreamResult) -> Iterator[ToolCall | InvalidToolCall]:
    """Every call, valid or not, in the order the model opened them (by choice, then seq)."""
    every: list[ToolCall | InvalidToolCall] = [*result.calls, *result.invalid_calls]
    yield from sorted(every, key=lambda call: (call.choice, call.seq))


def _findings_of(call: ToolCall | InvalidToolCall) -> tuple[Violation, ...]:
    return (*call.errors, *call.violations) if isinstance(call, InvalidToolCall) else tuple(call.violations)


def _arguments_text(call: ToolCall | InvalidToolCall) -> str:
    """The arguments as received: their JSON text (a custom tool's input text; "" when none arrived)."""
    if call.input is not None:
        return call.input
    return call.arguments_json or ""


def _output_messages(result: StreamResult) -> list[dict[str, Any]]:
    """``gen_ai.output.messages``: one assistant message per choice, its text and tool calls as parts."""
    calls = list(_calls(result))
    messages = []
    for choice in result.choices:
        parts: list[dict[str, Any]] = []
        if choice.text:
            parts.append({"type": "text", "content": choice.text})
        for call in calls:
            if call.choice == choice.choice:
                arguments = call.arguments if isinstance(call.arguments, dict) else _arguments_text(call)
                parts.append({"type": "tool_call", "id": call.id, "name": call.name or "", "arguments": arguments})
        reason = choice.finish_reason
        messages.append(
            {"role": "assistant", "parts": parts, "finish_reason": _FINISH.get(reason, reason) if reason else "error"}
        )
    return messages
