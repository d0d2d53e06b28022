"""The entry points: ``check_completion``, ``check_stream`` and their ``assert_`` twins.

They read the source (``_sources``), settle the format (named, or detected), the declared tools and the forced tool
choice, and hand the events to the format's checker.
"""

from __future__ import annotations

from typing import Any

from toolwire.contract._anthropic import check_anthropic_message, check_anthropic_stream
from toolwire.contract._chat import check_chat_completion, check_chat_stream
from toolwire.contract._common import BufferedChecker, Findings, StreamChecker, parse_forced
from toolwire.contract._report import ContractReport
from toolwire.contract._responses import check_responses_response, check_responses_stream
from toolwire.contract._sources import detect_stream, read_response, read_stream
from toolwire.formats import WIRE_FORMATS, detect_buffered
from toolwire.recordings import Recording
from toolwire.registry import ToolRegistry

__all__ = ["SUPPORTED_FORMATS", "assert_completion", "assert_stream", "check_completion", "check_stream"]

_STREAMED: dict[str, StreamChecker] = {
    "openai-chat": check_chat_stream,
    "anthropic-messages": check_anthropic_stream,
    "openai-responses": check_responses_stream,
}
_BUFFERED: dict[str, BufferedChecker] = {
    "openai-chat": check_chat_completion,
    "anthropic-messages": check_anthropic_message,
    "openai-responses": check_responses_response,
}

#: The wire formats the contract checks read.
SUPPORTED_FORMATS: tuple[str, ...] = tuple(_STREAMED)

_DEFAULT_FORMAT = "openai-chat"


def _supported(format: object, where: str = "format") -> str | None:
    if format is None or format in SUPPORTED_FORMATS:
        return format  # type: ignore[return-value]
    known = " (a toolwire wire format the contract checks do not cover yet)" if format in WIRE_FORMATS else ""
    raise ValueError(f"{where} must be one of {', '.join(map(repr, SUPPORTED_FORMATS))} or None; got {format!r}{known}")


def _registry(tools: object) -> ToolRegistry | None:
    return None if tools is None else ToolRegistry.load(tools)


def check_completion(
    response: Any,
    tools: Any = None,
    *,
    forced: Any = None,
    format: str | None = None,
    subject: str | None = None,
) -> ContractReport:
    """Check a buffered (non-streamed) response against its format's tool-call contract.

    Args:
        response: The response as a dict or an SDK object: an OpenAI ``ChatCompletion``, a Responses ``Response``,
            an Anthropic ``Message``.
        tools: The tools the request declared (anything ``toolwire.ToolRegistry`` accepts), or None: then
            ``tool_names`` and ``arguments_valid`` are not applicable.
        forced: What the request's ``tool_choice`` forced: None, a tool name, ``"required"``/``"any"``, or a
            ``tool_choice`` in any provider's shape (``"auto"`` and ``"none"`` force nothing).
        format: ``"openai-chat"``, ``"anthropic-messages"`` or ``"openai-responses"``; by default told from the
            response's shape.
        subject: The report's subject (default ``"<format> buffered"``).

    Returns:
        The report; its checks follow the format's table (see the package docstring). A response that does not have
        the shape of its format is a failed check, never an exception.

    Raises:
        TypeError: ``response`` is neither a dict nor an SDK object, or ``forced``/``tools`` has the wrong type.
        ValueError: ``format`` (or the detected one) is not a supported format, or ``tools`` is malformed.
    """
    wanted = _supported(format)
    registry = _registry(tools)
    demand = parse_forced(forced)
    data = read_response(response)
    findings = Findings()
    fmt = wanted or detect_buffered(data)
    if fmt is None:
        fmt = _DEFAULT_FORMAT
        findings.add(
            "well_formed",
            "the response has none of the fields that tell its format (choices; output and status; type 'message' "
            "and content); it was read as openai-chat; fix: pass format= or send a complete response",
        )
    _supported(fmt, "the response's format")
    checks = _BUFFERED[fmt](data, registry, demand, findings)
    return ContractReport(subject or f"{fmt} buffered", fmt, "buffered", checks)


def check_stream(
    source: Any,
    tools: Any = None,
    *,
    forced: Any = None,
    format: str | None = None,
    subject: str | None = None,
) -> ContractReport:
    """Check a streamed response against its format's tool-call contract, chunk by chunk.

    Args:
        source: Raw SSE (or JSON-lines) bytes, an iterable of bytes split anywhere, a binary file, an iterable of
            chunk or event dicts or SDK objects, or a ``toolwire.recordings.Recording`` (whose format, recorded
            tools and ``tool_choice`` are used where ``format``, ``tools`` and ``forced`` are not given).
        tools: The tools the request declared (anything ``toolwire.ToolRegistry`` accepts), or None.
        forced: What the request's ``tool_choice`` forced (see ``check_completion``).
        format: The wire format; by default that of the first event that identifies one.
        subject: The report's subject (default: the recording's name, else ``"<format> streamed"``).

    Returns:
        The report. Malformed chunks, events that are not JSON and fields of the wrong type are failed checks with
        their chunk or event number, never exceptions.

    Raises:
        TypeError: ``source`` is not a stream source (a single str or dict, or not iterable), or ``forced``/``tools``
            has the wrong type.
        ValueError: ``format`` (or a recording's) is not a supported format, or ``tools`` is malformed.
    """
    wanted = _supported(format)
    if isinstance(source, Recording):
        request = source.request or {}
        tools = tools if tools is not None else (request.get("tools") or None)
        forced = forced if forced is not None else request.get("tool_choice")
        wanted = wanted or _supported(source.format, f"recording {source.name}'s format")
        subject = subject or source.name
    registry = _registry(tools)
    demand = parse_forced(forced)
    events, findings = read_stream(source)
    fmt = wanted or detect_stream(events)
    if not events:
        findings.add("well_formed", "the stream holds no event; fix: stream the response's chunks")
    if fmt is None:
        fmt = _DEFAULT_FORMAT
        if events:
            findings.add(
                "well_formed",
                "no event tells the stream's format (a chat.completion.chunk, an Anthropic message_start or "
                "content_block_* event, a response.* event); it was read as openai-chat; fix: pass format=",
            )
    checks = _STREAMED[fmt](events, registry, demand, findings)
    return ContractReport(subject or f"{fmt} streamed", fmt, "streamed", checks)


def assert_completion(
    response: Any,
    tools: Any = None,
    *,
    forced: Any = None,
    format: str | None = None,
    subject: str | None = None,
) -> ContractReport:
    """``check_completion``, raising when the report is not ok.

    Returns:
        The report (ok; failed warnings allowed).

    Raises:
        AssertionError: A check of severity ``"error"`` failed; the message is the report as text, each failure's
            evidence under its check id.
    """
    report = check_completion(response, tools, forced=forced, format=format, subject=subject)
    if not report.ok:
        raise AssertionError(report.to_text())
    return report


def assert_stream(
    source: Any,
    tools: Any = None,
    *,
    forced: Any = None,
    format: str | None = None,
    subject: str | None = None,
) -> ContractReport:
    """``check_stream``, raising when the report is not ok.

    Returns:
        The report (ok; failed warnings allowed).

    Raises:
        AssertionError: A check of severity ``"error"`` failed; the message is the report as text.
    """
    report = check_stream(source, tools, forced=forced, format=format, subject=subject)
    if not report.ok:
        raise AssertionError(report.to_text())
    return report
