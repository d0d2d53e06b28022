"""The values a format writes, as the shapes its module reads: a call, a violation, a stream result, the tools.

The values (``toolwire._model``) sit above the formats: ``ToolCall.to_history``, ``InvalidToolCall.to_tool_result``
and ``StreamResult.to_history`` ask their format's module. So the modules name what they read of a value as these
protocols rather than importing the value classes back (an import cycle); mypy holds each value to its shape where
the values call in. The tools registry, which sits above the values, is read the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["CallView", "ChoiceView", "InvalidCallView", "OutputView", "ResultView", "ToolsView", "ViolationView"]


class CodeView(Protocol):
    """A violation code: its name is its value."""

    @property
    def value(self) -> str: ...


class ViolationView(Protocol):
    """What a tool result tells the model of one violation."""

    @property
    def code(self) -> CodeView: ...
    @property
    def message(self) -> str: ...
    @property
    def path(self) -> str | None: ...
    @property
    def data(self) -> Any: ...


class CallView(Protocol):
    """A call, valid or not, as a turn replays it."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def arguments(self) -> Any: ...
    @property
    def arguments_json(self) -> str | None: ...
    @property
    def input(self) -> str | None: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...
    @property
    def choice(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def violations(self) -> Sequence[ViolationView]: ...


class InvalidCallView(CallView, Protocol):
    """An invalid call, as its tool result answers it."""

    @property
    def errors(self) -> Sequence[ViolationView]: ...


class OutputView(Protocol):
    """A piece of the turn that is not a call, placed among the calls."""

    @property
    def after_calls(self) -> int: ...
    @property
    def value(self) -> Any: ...


class ChoiceView(Protocol):
    """One choice of a result."""

    @property
    def choice(self) -> int: ...


class ResultView(Protocol):
    """A stream's result, as its turn is written back."""

    @property
    def calls(self) -> Sequence[CallView]: ...
    @property
    def invalid_calls(self) -> Sequence[CallView]: ...
    @property
    def text(self) -> str: ...
    @property
    def refusal(self) -> str | None: ...
    @property
    def output(self) -> Sequence[OutputView]: ...
    @property
    def choices(self) -> Sequence[ChoiceView]: ...
    @property
    def format(self) -> str | None: ...


class ToolsView(Protocol):
    """A tools registry, as a request of each format offers its tools."""

    def to_openai(self) -> list[dict[str, Any]]: ...
    def to_openai_responses(self) -> list[dict[str, Any]]: ...
    def to_anthropic(self) -> list[dict[str, Any]]: ...
