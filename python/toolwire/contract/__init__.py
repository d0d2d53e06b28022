"""Contract checks: does a provider's tool-call response keep the shape its format promises?

``check_stream`` and ``check_completion`` read a streamed or buffered response of OpenAI Chat Completions
(``openai-chat``), Anthropic Messages (``anthropic-messages``) or OpenAI Responses (``openai-responses``) and return a
``ContractReport``: one ``Check`` per contract rule, passed, failed (with the evidence: choice, index, call id,
chunk or event number, and the fix) or not applicable. ``assert_stream`` and ``assert_completion`` raise
``AssertionError`` with the report as text when a check of severity ``"error"`` failed, for use in tests.

Check ids, in report order (the streamed-only ones are left out of buffered reports):

- ``openai-chat``: ``finish_reason``, ``content_type``, ``tool_calls_nonempty``, ``call_ids``, ``call_type``,
  ``tool_names``, ``arguments_string``, ``arguments_json``, ``arguments_valid``, ``forced_tool``, then streamed
  only ``index_present``, ``id_once``, ``name_once``, ``one_call_per_index``, ``calls_contiguous`` (a warning),
  and ``well_formed``.
- ``anthropic-messages``: ``finish_reason`` (``stop_reason``), ``call_ids``, ``tool_names``, ``arguments_json``,
  ``arguments_valid``, ``forced_tool``, streamed only ``index_present`` and ``block_lifecycle``, ``well_formed``.
- ``openai-responses``: ``finish_reason`` (the terminal ``status``), ``call_ids``, ``tool_names``,
  ``arguments_string``, ``arguments_json``, ``arguments_valid``, ``forced_tool``, streamed only
  ``item_lifecycle``, ``well_formed``.

``well_formed`` fails for what no other check can read: a chunk that is not a JSON object, event data that is not
JSON, a field of the format's frame (``choices``, ``delta``, ``content_block``) of the wrong type. Hostile input is a
failed check, never an exception; only misuse of the API (an unknown format, a ``forced`` of the wrong type)
raises. ``probe`` runs the live suite against an endpoint; one that cannot be reached (no answer, or a status saying
the request never got to a model) raises ``EndpointUnreachableError`` instead of failing every probe.

Example:
    >>> from toolwire.contract import check_stream, render_reports
    >>> tools = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}}}
    >>> chunks = [
    ...     {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
    ...         {"index": 0, "id": "call_1", "type": "function",
    ...          "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}}]},
    ...     {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ... ]
    >>> report = check_stream(chunks, tools, forced="get_weather")
    >>> report.ok, report["forced_tool"].status.value
    (True, 'passed')
    >>> print(render_reports([report], "junit").splitlines()[1])  # doctest: +ELLIPSIS
    <testsuites name="toolwire.contract" tests="16" failures="0" skipped="0" errors="0">

In a test, against a recorded stream and the request's tools (``toolwire.recordings.Recording``):

    >>> from toolwire.contract import assert_stream
    >>> from toolwire.recordings import load_recording
    >>> assert_stream(load_recording("recordings/openai-chat/parallel-calls.sse"))  # doctest: +SKIP
"""

from __future__ import annotations

from toolwire._common._reach import UNREACHABLE_STATUSES, EndpointUnreachableError
from toolwire.contract._checks import (
    SUPPORTED_FORMATS,
    assert_completion,
    assert_stream,
    check_completion,
    check_stream,
)
from toolwire.contract._probe import ProbeOutcome, ProbeResult, probe
from toolwire.contract._probe_requests import PROBE_FORMATS
from toolwire.contract._report import Check, CheckStatus, ContractReport, render_reports

__all__ = [
    "PROBE_FORMATS",
    "SUPPORTED_FORMATS",
    "UNREACHABLE_STATUSES",
    "Check",
    "CheckStatus",
    "ContractReport",
    "EndpointUnreachableError",
    "ProbeOutcome",
    "ProbeResult",
    "assert_completion",
    "assert_stream",
    "check_completion",
    "check_stream",
    "probe",
    "render_reports",
]
