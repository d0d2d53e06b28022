"""A format's events framed as the body its provider streams them in: what every format's module shares."""

from __future__ import annotations

from typing import Any

from toolwire._common._json import compact

__all__ = ["named_sse_events", "sse_event"]


def sse_event(payload: Any, name: str | None = None) -> bytes:
    """One server-sent event: an optional ``event:`` line, the ``data:`` line (JSON, or a text as is), a blank line."""
    head = f"event: {name}\n" if name is not None else ""
    data = payload if isinstance(payload, str) else compact(payload)
    return f"{head}data: {data}\n\n".encode()


def named_sse_events(events: list[Any]) -> list[bytes]:
    """Server-sent events each named after its event's ``type`` (Anthropic and Responses send both)."""
    return [sse_event(event, event.get("type") if isinstance(event, dict) else None) for event in events]
