"""``toolwire.otel``: every stream traced after the GenAI semantic conventions, checked with the SDK's in-memory
exporter and metric reader, on real recordings, for both implementations, sync and async."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import toolwire.otel
from tests.support.paths import RECORDINGS
from toolwire import InvalidToolCallError
from toolwire.otel import CONVENTIONS_VERSION
from toolwire.recordings import Recording, load_recording

PARALLEL = RECORDINGS / "openai-chat" / "parallel-calls.sse"  # plus {a: 2, b: 3}, minus {a: 3, b: 2}: both valid
TRUNCATED = RECORDINGS / "openai-chat" / "q13-finish-tool-calls-on-truncated-call.jsonl"  # one call, TRUNCATED


class Telemetry:
    """An SDK tracer and meter provider whose spans and points stay in memory."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def instrument(self, **options: Any) -> toolwire.otel.Instrumentation:
        return toolwire.otel.instrument(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **options
        )

    def spans(self) -> list[ReadableSpan]:
        return [span for span in self.exporter.get_finished_spans() if span.name.startswith("toolwire ")]

    def points(self, metric: str) -> dict[tuple[tuple[str, Any], ...], int]:
        data = self.reader.get_metrics_data()
        found: dict[tuple[tuple[str, Any], ...], int] = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for each in scope.metrics:
                    if each.name == metric:
                        for point in each.data.data_points:
                            found[tuple(sorted(point.attributes.items()))] = point.value
        return found


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    yield Telemetry()


def read(implementation: ModuleType, recording: Recording) -> Any:
    """The result of a recording, every call taken, the invalid ones too."""
    options = recording.reassemble_options()
    stream = implementation.reassemble(recording.chunks(), **options, on_invalid="yield")
    list(stream)
    return stream.result


def events_named(span: ReadableSpan, name: str) -> list[dict[str, Any]]:
    return [dict(event.attributes or {}) for event in span.events if event.name == name]


def test_a_stream_is_one_span_with_its_calls_and_no_content_by_default(
    telemetry: Telemetry, implementation: ModuleType
) -> None:
    recording = load_recording(PARALLEL)
    with telemetry.instrument(capture_content=False):
        result = read(implementation, recording)
    (span,) = telemetry.spans()
    assert span.name == "toolwire reassemble" and span.status.status_code is StatusCode.UNSET
    assert span.instrumentation_scope.schema_url == f"https://opentelemetry.io/schemas/{CONVENTIONS_VERSION}"
    attributes = dict(span.attributes or {})
    assert attributes["toolwire.format"] == "openai-chat"
    assert list(attributes["gen_ai.response.finish_reasons"]) == ["tool_calls"]
    assert (attributes["toolwire.tool_calls.valid"], attributes["toolwire.tool_calls.invalid"]) == (2, 0)
    calls = events_named(span, "gen_ai.tool.call")
    expected = [(call["id"], call["name"]) for call in recording.expected["calls"]]
    assert [(call["gen_ai.tool.call.id"], call["gen_ai.tool.name"]) for call in calls] == expected
    assert all(call["toolwire.tool_call.ok"] for call in calls)
    # What the model wrote stays out of the telemetry unless asked for.
    assert "gen_ai.output.messages" not in attributes
    assert not any("gen_ai.tool.call.arguments" in call for call in calls)
    assert telemetry.points("toolwire.tool_calls") == {
        (("gen_ai.tool.name", "minus"), ("toolwire.tool_call.ok", True)): 1,
        (("gen_ai.tool.name", "plus"), ("toolwire.tool_call.ok", True)): 1,
    }
    assert result.ok


def test_content_capture_records_the_output_messages_and_arguments(
    telemetry: Telemetry, implementation: ModuleType
) -> None:
    with telemetry.instrument(capture_content=True):
        read(implementation, load_recording(PARALLEL))
    (span,) = telemetry.spans()
    messages = json.loads(str(dict(span.attributes or {})["gen_ai.output.messages"]))
    assert messages == [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_8Sp49rZGndlZALo0uq1XvA7A",
                    "name": "plus",
                    "arguments": {"a": 2, "b": 3},
                },
                {
                    "type": "tool_call",
                    "id": "call_u5dbdPz1mAis8zZVk4ZBqXgL",
                    "name": "minus",
                    "arguments": {"a": 3, "b": 2},
                },
            ],
            "finish_reason": "tool_call",
        }
    ]
    arguments = [call["gen_ai.tool.call.arguments"] for call in events_named(span, "gen_ai.tool.call")]
    assert arguments == ['{"a": 2, "b": 3}', '{"a": 3, "b": 2}']


def test_capture_follows_the_conventions_environment_variable(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(toolwire.otel._instrument.CAPTURE_CONTENT_ENV, "True")
    with telemetry.instrument() as instrumentation:
        assert instrumentation.capture_content is True
    monkeypatch.delenv(toolwire.otel._instrument.CAPTURE_CONTENT_ENV)
    with telemetry.instrument() as instrumentation:
        assert instrumentation.capture_content is False


def test_violations_are_events_named_after_their_codes_and_counted(
    telemetry: Telemetry, implementation: ModuleType
) -> None:
    with telemetry.instrument(capture_content=False):
        result = read(implementation, load_recording(TRUNCATED))
    (span,) = telemetry.spans()
    (truncated,) = events_named(span, "TRUNCATED")
    assert truncated["toolwire.violation.severity"] == "error" and truncated["toolwire.violation.seq"] == 0
    assert "toolwire.violation.message" not in truncated  # a message may quote argument values
    (call,) = events_named(span, "gen_ai.tool.call")
    assert call["toolwire.tool_call.ok"] is False and dict(span.attributes or {})["toolwire.ok"] is False
    assert telemetry.points("toolwire.violations") == {
        (
            ("toolwire.format", "openai-chat"),
            ("toolwire.violation.code", "TRUNCATED"),
            ("toolwire.violation.severity", "error"),
        ): 1
    }
    assert not result.ok


def test_a_stream_stopped_by_an_error_marks_its_span(telemetry: Telemetry, implementation: ModuleType) -> None:
    recording = load_recording(TRUNCATED)
    with telemetry.instrument(), pytest.raises(InvalidToolCallError):
        list(implementation.reassemble(recording.chunks(), on_invalid="raise"))
    (span,) = telemetry.spans()
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "InvalidToolCallError"
    assert [event.name for event in span.events][-1] == "exception"


def test_a_stream_closed_before_its_end_is_no_failure(telemetry: Telemetry, implementation: ModuleType) -> None:
    with telemetry.instrument():
        with implementation.reassemble(load_recording(PARALLEL).chunks()) as stream:
            next(stream)
    (span,) = telemetry.spans()
    assert dict(span.attributes or {})["toolwire.stream.closed_early"] is True
    assert span.status.status_code is StatusCode.UNSET


def test_async_streams_and_event_streams_are_traced_under_the_current_span(
    telemetry: Telemetry, implementation: ModuleType
) -> None:
    recording = load_recording(PARALLEL)
    tracer = telemetry.tracer_provider.get_tracer("agent")

    async def chunks() -> AsyncIterator[Any]:
        for chunk in recording.chunks():
            yield chunk

    async def run() -> None:
        [call async for call in implementation.areassemble(chunks())]
        [event async for event in implementation.aevents(chunks())]

    with telemetry.instrument(), tracer.start_as_current_span("agent turn") as turn:
        asyncio.run(run())
        list(implementation.events(recording.chunks()))
    spans = telemetry.spans()
    assert [span.name for span in spans] == ["toolwire reassemble", "toolwire events", "toolwire events"]
    assert all(span.parent is not None and span.parent.span_id == turn.get_span_context().span_id for span in spans)
    assert all(len(events_named(span, "gen_ai.tool.call")) == 2 for span in spans)


def test_the_core_and_the_reference_record_the_same_span(telemetry: Telemetry) -> None:
    import toolwire
    import toolwire.reference

    with telemetry.instrument(capture_content=True):
        for implementation in (toolwire, toolwire.reference):
            read(implementation, load_recording(TRUNCATED))
    core, reference = telemetry.spans()

    def seen(span: ReadableSpan) -> tuple[Any, ...]:
        # Everything but a violation's message, which the twins word each in their own way.
        events = [
            (event.name, {k: v for k, v in (event.attributes or {}).items() if k != "toolwire.violation.message"})
            for event in span.events
        ]
        return dict(span.attributes or {}), events

    assert seen(core) == seen(reference)


def test_uninstrumented_streams_make_no_span(telemetry: Telemetry) -> None:
    import toolwire

    instrumentation = telemetry.instrument()
    instrumentation.uninstrument()
    read(toolwire, load_recording(PARALLEL))
    assert telemetry.spans() == []


def test_a_failure_to_record_never_breaks_the_stream(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import toolwire

    def broken(*args: Any) -> None:
        raise RuntimeError("exporter down")

    monkeypatch.setattr(toolwire.otel._instrument._StreamSpan, "_record", broken)
    with telemetry.instrument(), caplog.at_level(logging.ERROR, logger="toolwire.otel._instrument"):
        result = read(toolwire, load_recording(PARALLEL))
    assert result.ok and len(result.calls) == 2
    assert "recording a stream's span failed" in caplog.text
    (span,) = telemetry.spans()  # ended all the same
    assert span.end_time is not None


def test_an_event_stream_closed_once_it_finished_ended_normally(
    telemetry: Telemetry, implementation: ModuleType
) -> None:
    with telemetry.instrument():
        events = implementation.events(load_recording(PARALLEL).chunks())
        for event in events:
            if type(event).__name__ == "Finished":
                break  # the consumer stops at the last event: the stream had ended
        events.close()
        events = implementation.events(load_recording(PARALLEL).chunks())
        next(events)  # and this one stops at the first
        events.close()
    finished, dropped = telemetry.spans()
    assert "toolwire.stream.closed_early" not in dict(finished.attributes or {})
    assert dict(dropped.attributes or {})["toolwire.stream.closed_early"] is True
