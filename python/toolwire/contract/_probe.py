"""The live contract suite: forced, parallel, none, strict and parameterless probes against a real endpoint.

Each probe sends one request with ``httpx`` and checks the answer's shape with the same checks as
``check_completion``/``check_stream``, after an ``http_status`` check (a refusal is shown with the provider's own
message) and the probe's own expectation (``no_tool_call`` under ``tool_choice: "none"``, ``parallel_calls`` when
two cities were asked for), then ``calls_in_text``: calls a server left in the content, named by their dialect.
Streamed answers can be recorded as they arrive, chunk boundaries kept.

An endpoint that cannot be reached (``_reach``: no answer at all, or a 401, 403, 404, 405, 429, 502, 503 or 504 that
says the request never got to a model) stops the suite with ``EndpointUnreachableError``: it is not a provider that
broke the contract, and must not read as one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolwire._common._reach import (
    EndpointUnreachableError,
    check_base_url,
    provider_message,
    refusal,
    transport_failure,
)
from toolwire._pipeline._bound import core
from toolwire._pipeline._written import core_dialects, server_parser, written_calls
from toolwire.contract._checks import check_completion, check_stream
from toolwire.contract._probe_requests import PROBE_FORMATS, ProbeRequest, render_request, standard_probes
from toolwire.contract._report import STATUS_MARKS as _MARKS
from toolwire.contract._report import Check, CheckStatus, ContractReport, ReportFormat, Severity, render_reports
from toolwire.errors import ToolwireError
from toolwire.formats import format_of
from toolwire.recordings import Recorder
from toolwire.registry import ToolRegistry

__all__ = ["ProbeOutcome", "ProbeResult", "ReportFormat", "probe"]

_PASSED, _FAILED, _NOT_APPLICABLE = CheckStatus.PASSED, CheckStatus.FAILED, CheckStatus.NOT_APPLICABLE


@dataclass(frozen=True)
class ProbeOutcome:
    """What one probe sent, received and concluded.

    Attributes:
        probe: The probe's id.
        description: One line saying what it tries.
        report: Its checks, ``http_status`` (or ``tools_accepted``) first.
        status: The HTTP status, or None when no answer came.
        recording: The recording written for it, when recording was asked for and the answer streamed.
    """

    probe: str
    description: str
    report: ContractReport
    status: int | None
    recording: Path | None = None


@dataclass(frozen=True)
class ProbeResult:
    """The outcome of the suite against one endpoint and model.

    Attributes:
        base_url: The endpoint, e.g. ``http://localhost:8000/v1``.
        model: The model asked.
        format: The wire format spoken.
        outcomes: One per probe, in the order they ran.
    """

    base_url: str
    model: str
    format: str
    outcomes: tuple[ProbeOutcome, ...]

    @property
    def ok(self) -> bool:
        """No probe failed an error-severity check (warnings do not fail the suite)."""
        return all(outcome.report.ok for outcome in self.outcomes)

    @property
    def reports(self) -> tuple[ContractReport, ...]:
        """Every probe's report."""
        return tuple(outcome.report for outcome in self.outcomes)

    def failed(self) -> dict[str, tuple[str, ...]]:
        """The ids of the failed checks (both severities) of each probe that failed one."""
        return {
            outcome.probe: tuple(check.id for check in outcome.report.failed)
            for outcome in self.outcomes
            if outcome.report.failed
        }

    def render(self, fmt: ReportFormat = "text", *, verbose: bool = False) -> str:
        """The result for people (``text``, ``markdown``) or machines (``json``, ``junit``).

        Args:
            fmt: The output format.
            verbose: Text only: list every check, not just the ones that failed.

        Returns:
            The rendered result.
        """
        if fmt == "text":
            return self._text(verbose)
        if fmt == "json":
            outcomes = [
                {
                    "probe": outcome.probe,
                    "description": outcome.description,
                    "status": outcome.status,
                    "recording": str(outcome.recording) if outcome.recording else None,
                    "report": outcome.report.as_dict(),
                }
                for outcome in self.outcomes
            ]
            head = {"base_url": self.base_url, "model": self.model, "format": self.format, "ok": self.ok}
            return json.dumps({**head, "probes": outcomes}, indent=2, ensure_ascii=False)
        return render_reports(self.reports, fmt)

    def _text(self, verbose: bool) -> str:
        lines = [f"toolwire probe  {self.base_url}  model {self.model}  format {self.format}", ""]
        width = max(len(outcome.probe) for outcome in self.outcomes) if self.outcomes else 0
        for outcome in self.outcomes:
            checks = outcome.report.checks
            counts = {status: sum(check.status is status for check in checks) for status in _MARKS}
            mark = "✓" if outcome.report.ok else "✗"
            summary = f"{counts[_PASSED]} passed, {counts[_FAILED]} failed, {counts[_NOT_APPLICABLE]} n/a"
            lines.append(f"{mark} {outcome.probe.ljust(width)}  {outcome.description}  ({summary})")
            for check in checks:
                if verbose or check.status is _FAILED or check.note:
                    level = " (warning)" if check.status is _FAILED and check.severity == "warning" else ""
                    lines.append(f"    {_MARKS[check.status]} {check.id}{level}: {check.evidence}")
                    if check.note:
                        lines.append(f"      note: {check.note}")
            if outcome.recording:
                lines.append(f"    recorded: {outcome.recording}")
        failing = sum(not outcome.report.ok for outcome in self.outcomes)
        verdict = "contract holds" if self.ok else f"{failing} of {len(self.outcomes)} probes broke the contract"
        count = len(self.outcomes)
        lines += ["", f"{count} probe{'s' if count != 1 else ''}: {verdict}"]
        return "\n".join(lines)


def _status_check(probe: ProbeRequest, status: int | None, detail: str) -> Check:
    if probe.acceptance_only:
        check_id, title = "tools_accepted", "the endpoint accepts the tool definitions (HTTP 200)"
    else:
        check_id, title = "http_status", "the endpoint answers HTTP 200"
    if status == 200:
        return Check(check_id, title, _PASSED, "200 OK")
    evidence = f"HTTP {status}: {detail}" if status is not None else f"no answer: {detail}"
    return Check(check_id, title, _FAILED, evidence)


def _read(probe: ProbeRequest, fmt: str, answer: Any) -> tuple[list[Any], str] | str:
    """Every call of the answer (valid or not) and its content text, or why they could not be read."""
    try:
        if probe.stream:
            stream = core.reassemble(answer, tools=probe.tools, format=format_of(fmt).name, on_invalid="yield")
            calls = list(stream)
            result = stream.result
        else:
            result = core.normalize(answer, tools=probe.tools, format=format_of(fmt).name)
            calls = [*result.calls, *result.invalid_calls]
    except (ToolwireError, TypeError, ValueError) as error:
        return f"the answer could not be read: {error}"
    return calls, result.text


def _expectations(probe: ProbeRequest, read: tuple[list[Any], str] | str) -> list[Check]:
    """The probe's own checks beyond the shape: no call under ``none``, two calls when two were asked for."""
    calls = read if isinstance(read, str) else read[0]
    checks: list[Check] = []
    if probe.expect_no_call:
        title = "tool_choice 'none' is honoured: no tool call"
        if isinstance(calls, str):
            checks.append(Check("no_tool_call", title, _NOT_APPLICABLE, calls))
        elif calls:
            names = ", ".join(str(call.name) for call in calls)
            evidence = f"{len(calls)} call(s) ({names}) although tool_choice was 'none'; the endpoint ignores it"
            checks.append(Check("no_tool_call", title, _FAILED, evidence))
        else:
            checks.append(Check("no_tool_call", title, _PASSED, "no call"))
    if probe.min_calls:
        title = f"at least {probe.min_calls} parallel calls in one turn"
        if isinstance(calls, str):
            checks.append(Check("parallel_calls", title, _NOT_APPLICABLE, calls, severity="warning"))
        else:
            status = _PASSED if len(calls) >= probe.min_calls else _FAILED
            evidence = f"{len(calls)} call(s) for a request that asked for {probe.min_calls}"
            checks.append(Check("parallel_calls", title, status, evidence, severity="warning"))
    return checks


def _calls_in_text(probe: ProbeRequest, read: tuple[list[Any], str] | str) -> Check:
    """Whether the content holds calls written in a dialect: a server whose tool-call parser is off leaves them there.

    Forced, the request demanded a call, so calls left in the text are a call the client never gets: an error.
    Otherwise the model may have meant them as prose, or as calls nobody reads: a warning.
    """
    title = "the content holds no tool call written as text in a model's dialect"
    severity: Severity = "error" if probe.forced is not None else "warning"
    if isinstance(read, str):
        return Check("calls_in_text", title, _NOT_APPLICABLE, read, severity)
    text = read[1]
    if not text:
        return Check("calls_in_text", title, _NOT_APPLICABLE, "the answer has no content text", severity)
    dialects = core_dialects()
    written = written_calls(text, probe.tools, dialects=dialects)
    if written is None:
        evidence = f"no dialect's parser reads a call in the content ({len(text)} characters; {', '.join(dialects)})"
        return Check("calls_in_text", title, _PASSED, evidence, severity)
    parser = server_parser(written.dialect)
    evidence = (
        f"the content holds {written.summary}: the server's tool-call parser is off or mismatched "
        f"(vLLM: --enable-auto-tool-choice --tool-call-parser {parser})"
    )
    return Check("calls_in_text", title, _FAILED, evidence, severity)


def _report(probe: ProbeRequest, fmt: str, status: Check, body: list[Check]) -> ContractReport:
    return ContractReport(
        subject=probe.name,
        format=fmt,
        mode="streamed" if probe.stream else "buffered",
        checks=(status, *body),
    )


def _shape(probe: ProbeRequest, fmt: str, answer: Any) -> list[Check]:
    if probe.acceptance_only:
        return []
    if probe.stream:
        report = check_stream(answer, probe.tools, forced=probe.forced, format=fmt)
    else:
        report = check_completion(answer, probe.tools, forced=probe.forced, format=fmt)
    read = _read(probe, fmt, answer)
    return [*report.checks, *_expectations(probe, read), _calls_in_text(probe, read)]


def probe(
    base_url: str,
    model: str,
    *,
    format: str = "openai-chat",
    api_key: str | None = None,
    tools: Any = None,
    record: str | Path | None = None,
    timeout: float = 60.0,
    only: Iterable[str] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> ProbeResult:
    """Run the live contract suite against an endpoint.

    Args:
        base_url: The API root, e.g. ``http://localhost:8000/v1`` (paths like ``/chat/completions`` are appended).
        model: The model to ask.
        format: ``openai-chat`` (default), ``openai-responses`` or ``anthropic-messages``.
        api_key: The credential, sent as the format expects (``Authorization: Bearer`` or ``x-api-key``).
        tools: The team's own tool definitions (anything ``ToolRegistry`` loads); adds ``tools_accepted``.
        record: A folder to record every streamed answer into, as ``<format>/<probe>.sse`` with its manifest.
        timeout: Seconds to wait for each answer.
        only: Run only these probes (by id).
        on_progress: Called with ``(done, total, probe id)`` before each probe.

    Returns:
        One outcome per probe; ``result.ok`` says whether the contract holds.

    Raises:
        ValueError: An unknown format or probe id, or a base URL without an ``http(s)://`` scheme or a host.
        EndpointUnreachableError: A probe got no answer, or one saying the request never got to a model (a 404 for
            the path or the model, a refused credential, a gateway that could not reach the service...): the
            endpoint or the model is wrong or down, which says nothing of the contract.
        ImportError: ``httpx`` is not installed (``pip install 'toolwire[probe]'``).
    """
    import httpx

    base = check_base_url(base_url)
    if format not in PROBE_FORMATS:
        raise ValueError(f"format must be one of {', '.join(PROBE_FORMATS)}; got {format!r}")
    probes = standard_probes(ToolRegistry.load(tools) if tools is not None else None)
    if only is not None:
        wanted = set(only)
        unknown = wanted - {p.name for p in probes}
        if unknown:
            known = ", ".join(p.name for p in probes)
            raise ValueError(f"unknown probe(s) {', '.join(sorted(unknown))}; the suite has {known}")
        probes = [p for p in probes if p.name in wanted]
    folder = Path(record) if record is not None else None
    outcomes = []
    with httpx.Client(timeout=timeout) as client:
        for done, request in enumerate(probes):
            if on_progress is not None:
                on_progress(done, len(probes), request.name)
            outcomes.append(_run(client, base, model, format, api_key, request, folder, timeout))
    return ProbeResult(base_url, model, format, tuple(outcomes))


def _run(
    client: Any,
    base_url: str,
    model: str,
    fmt: str,
    api_key: str | None,
    request: ProbeRequest,
    folder: Path | None,
    timeout: float,
) -> ProbeOutcome:
    import httpx

    path, body, headers = render_request(request, fmt, model, api_key)
    url = base_url + path
    recorder = None
    if folder is not None and request.stream:
        notes = f"toolwire probe {request.name}: {request.description}"
        recorder = Recorder(folder, f"{fmt}/{request.name}", format=fmt, request=body, model=model, notes=notes)
    status: int | None = None
    try:
        with client.stream("POST", url, json=body, headers=headers) as response:
            status = response.status_code
            if status != 200:
                response.read()
                message = provider_message(response.text)
                cause = refusal(status, message, base_url)
                if cause is not None:
                    raise EndpointUnreachableError(url, cause)
                refused = _status_check(request, status, message)
                return ProbeOutcome(request.name, request.description, _report(request, fmt, refused, []), status)
            reads = response.iter_bytes()
            if recorder is not None:
                recorder.status, recorder.headers = status, response.headers
                reads = recorder.tee(reads)
            chunks = list(reads)
    except httpx.HTTPError as error:
        if status is None:
            raise EndpointUnreachableError(url, transport_failure(error, timeout)) from error
        # The answer began and was cut: that is the provider's stream, judged like any other.
        cut = _status_check(
            request, None, f"the answer was cut after HTTP {status}: {transport_failure(error, timeout)}"
        )
        return ProbeOutcome(request.name, request.description, _report(request, fmt, cut, []), status)
    recording = recorder.recording.path if recorder is not None and recorder.recording is not None else None
    if request.stream:
        answer: Any = chunks
    else:
        try:
            answer = json.loads(b"".join(chunks))
        except ValueError as error:
            title = "the buffered answer is JSON"
            broken = Check("response_json", title, _FAILED, f"the 200 body is not JSON: {error}")
            report = _report(request, fmt, _status_check(request, status, ""), [broken])
            return ProbeOutcome(request.name, request.description, report, status)
    report = _report(request, fmt, _status_check(request, status, ""), _shape(request, fmt, answer))
    return ProbeOutcome(request.name, request.description, report, status, recording)
