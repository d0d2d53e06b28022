"""The keyword arguments every entry point shares, checked once per stream, and the engine they configure."""

from __future__ import annotations

from toolwire._model import Limits, TextDialect
from toolwire._pipeline._choice import ToolChoiceLike, parse_tool_choice
from toolwire._pipeline._protocol import Emit, Engine, Implementation, OnInvalid, OnViolation
from toolwire._pipeline._repair import Repair, Repairing
from toolwire.formats import WireFormat, check_format
from toolwire.registry import ToolRegistry, ToolsLike

__all__ = ["Options"]

_EMIT_POLICIES = ("complete", "call_end", "stream_end")
_ON_INVALID = ("raise", "yield")
# Built once: constructing the frozen defaults per stream was a measurable share of a short stream's cost.
_DEFAULT_LIMITS = Limits()


class Options:
    """The checked keyword arguments of one stream.

    The signatures say what each keyword takes; the checks here are for callers no type checker saw, so that a
    wrong value fails at the call, naming what is accepted, rather than somewhere in the stream.
    """

    __slots__ = (
        "dialect",
        "emit",
        "format",
        "limits",
        "on_invalid",
        "on_violation",
        "registry",
        "repair",
        "tool_choice",
    )

    def __init__(
        self,
        tools: ToolsLike | None,
        tool_choice: ToolChoiceLike,
        emit: Emit,
        on_invalid: OnInvalid,
        on_violation: OnViolation | None,
        limits: Limits | None,
        repair: Repair | None,
        format: WireFormat | None,
        dialect: str | TextDialect | None = None,
    ) -> None:
        """Check every keyword; load ``tools`` into a registry and parse ``tool_choice``.

        Raises:
            TypeError: A value of the wrong type (the keyword and what it takes named).
            ValueError: A value outside its accepted set, or ``repair`` without ``tools``.
        """
        self.format = check_format(format)
        if emit not in _EMIT_POLICIES:
            raise ValueError(f"emit must be one of {', '.join(map(repr, _EMIT_POLICIES))}; got {emit!r}")
        if on_invalid not in _ON_INVALID:
            raise ValueError(f"on_invalid must be 'raise' or 'yield'; got {on_invalid!r}")
        if on_violation is not None and not callable(on_violation):
            raise TypeError(f"on_violation must be a callable taking a Violation; got {type(on_violation).__name__}")
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError(f"limits must be a toolwire.Limits; got {type(limits).__name__}")
        if repair is not None and not callable(repair):
            raise TypeError(f"repair must be a callable taking an InvalidToolCall; got {type(repair).__name__}")
        # ``None`` checks nothing; an empty registry declares no tool, so that every call is unknown.
        self.registry = None if tools is None else ToolRegistry.load(tools)
        if repair is not None and self.registry is None:
            raise ValueError("repair needs tools=...: a repaired call is re-validated against its tool's schema")
        self.tool_choice = parse_tool_choice(tool_choice)
        self.emit: Emit = emit
        self.on_invalid: OnInvalid = on_invalid
        self.on_violation = on_violation
        self.limits = limits if limits is not None else _DEFAULT_LIMITS
        self.repair = repair
        self.dialect = _text_dialect(dialect)

    def engine(self, implementation: Implementation, *, progress: bool = False) -> Engine:
        """A new engine of ``implementation`` for one stream; with ``progress``, it keeps the steps (events API)."""
        validators = (
            None
            if self.registry is None
            else implementation.compile_tools(self.registry, self.limits.max_depth, self.limits.max_validation_steps)
        )
        engine = implementation.engine(
            tool_choice=self.tool_choice,
            emit=self.emit,
            limits=self.limits,
            on_violation=self.on_violation,
            validators=validators,
            format=self.format,
            progress=progress,
            dialect=self.dialect,
        )
        if self.repair is not None and validators is not None:
            return Repairing(engine, self.repair, validators, self.on_violation)
        return engine


def _text_dialect(dialect: object) -> TextDialect | None:
    """``dialect=`` as a ``TextDialect`` (a name is one with no reasoning opened); its name is the engine's to check.

    Raises:
        TypeError: Neither a name, a ``TextDialect`` nor None.
    """
    if dialect is None or isinstance(dialect, TextDialect):
        return dialect
    if isinstance(dialect, str):
        return TextDialect(dialect)
    raise TypeError(f"dialect must be a dialect's name or a toolwire.TextDialect; got {type(dialect).__name__}")
