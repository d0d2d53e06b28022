"""What a format's module provides: the interface every ``toolwire.formats.<format>`` module implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = ["FormatModule"]


class FormatModule(Protocol):
    """Everything Python knows of one wire format beyond decoding its stream (the core and the reference do that)."""

    def looks_buffered(self, response: Any) -> bool:
        """Whether a buffered response (a dict or an SDK object) has this format's shape."""
        ...

    def buffered_events(self, response: Any) -> list[Any]:
        """The stream events a buffered response of this format stands for, so every stream rule applies to it.

        Raises:
            ShapeError: A field that must be a list is not (its path named).
        """
        ...

    def call_entry(self, call: CallView, name: str) -> dict[str, Any]:
        """One call as the assistant side of a conversation records it, ``name`` its name ("" when none came)."""
        ...

    def turn(self, result: ResultView, calls: list[CallView], own: bool) -> Any:
        """The whole assistant turn of ``calls`` (the first choice's, in order) and the result's text.

        ``own``: the result was read from a stream of this format, so its output holds every other piece of the
        turn in its place.
        """
        ...

    def tool_result(self, call: InvalidCallView) -> dict[str, Any]:
        """The message that tells the model its call was invalid, answering the call."""
        ...

    def request_tools(self, registry: ToolsView) -> list[dict[str, Any]]:
        """The tools as a request of this format offers them."""
        ...

    def stream_body(self, events: list[Any]) -> list[bytes]:
        """The body its provider streams for these events (one ``bytes`` per event, then any closing line).

        Raises:
            ValueError: An event this framing cannot carry (its shape named).
        """
        ...
