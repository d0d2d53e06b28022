"""What every text dialect stands on: the events, the findings, the parser's buffer and its hold-back of markers.

The rules are those of ``docs/semantics.md`` ("Text dialects"). A parser is fed text deltas split anywhere and
``finish()``; it hands over, in order, text outside calls and reasoning, reasoning text, whole calls, and findings.
Only what could still start a marker is held back; a call is handed over the moment it is structurally whole; a
call the end of the stream cuts is handed over unfinished, never as valid. This module never imports the extension.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Final, Literal, TypeAlias

from toolwire._model import Limits
from toolwire.reference._scanner import COMPLETE, INCOMPLETE, INVALID, Scanner

__all__ = [
    "FINDINGS",
    "REASONING",
    "TEXT",
    "Call",
    "Event",
    "Finding",
    "FindingCode",
    "JsonReader",
    "Parser",
    "Reasoning",
    "Text",
    "arguments_of",
    "compact_text",
    "json_call",
    "leading_name",
    "members",
    "object_call",
    "object_text",
    "parsed",
    "quoted",
    "read_json",
    "utf8_len",
]

FindingCode: TypeAlias = Literal[
    "CUT",
    "MALFORMED_CALL",
    "INVALID_ARGUMENTS",
    "UNTYPED_VALUE",
    "NO_SCHEMA",
    "TOO_LARGE",
    "MISSING_END_MARKER",
    "MISSING_START_MARKER",
    "ARGUMENTS_AS_STRING",
    "MARKER_IN_TEXT",
    "REASONING_CUT",
    "BUILTIN_TOOL",
    "MALFORMED_HEADER",
]

#: Every finding: its severity (an ``error`` on a call makes it invalid) and what it means.
FINDINGS: Final[Mapping[FindingCode, tuple[Literal["error", "warning", "info"], str]]] = {
    "CUT": ("error", "the stream ended inside a call (or between the calls of an open section)"),
    "MALFORMED_CALL": ("error", "the call's text does not have the dialect's shape"),
    "INVALID_ARGUMENTS": ("error", "the arguments are not a JSON object (or not JSON at all)"),
    "UNTYPED_VALUE": ("error", "a raw value none of its schema's types can read; kept as a string"),
    "NO_SCHEMA": ("warning", "a raw value whose tool or parameter has no schema; kept as a string"),
    "TOO_LARGE": ("error", "the call's text passed Limits.max_argument_bytes; the rest was scanned, not kept"),
    "MISSING_END_MARKER": ("warning", "a call (or parameter) whole by its structure whose end marker never came"),
    "MISSING_START_MARKER": ("warning", "a call found by its inner marker without the dialect's start marker"),
    "ARGUMENTS_AS_STRING": ("warning", "the arguments were a JSON string holding the object, read once"),
    "MARKER_IN_TEXT": ("info", "a start marker no call followed; kept as text"),
    "REASONING_CUT": ("warning", "the stream ended inside reasoning"),
    "BUILTIN_TOOL": ("warning", "a message to a tool the model's runtime runs (gpt-oss's browser, python), not a call"),
    "MALFORMED_HEADER": ("warning", "a message header no message followed, or not role, channel, recipient and type"),
}

TEXT: Final = "text"
REASONING: Final = "reasoning"


@dataclass(frozen=True, slots=True)
class Text:
    """Text outside calls and reasoning."""

    text: str


@dataclass(frozen=True, slots=True)
class Reasoning:
    """Reasoning text (the model's thinking), outside calls."""

    text: str


@dataclass(frozen=True, slots=True)
class Call:
    """A call, handed over the moment it is whole (or, ``whole`` False, when the end of the stream cut it).

    Attributes:
        index: The call's position among the stream's calls, from 0; findings name it.
        name: The function's name, None when it was never read whole.
        arguments: When ``valid``, the arguments object's JSON text as written, less the whitespace outside
            strings (``compact_text``); otherwise the best text there is: that JSON when the arguments were read (a
            value typed as a string, say), else the call's text as it arrived.
        id: The call's id when the dialect writes one, else None.
        whole: False when the stream ended inside the call.
        valid: No error finding concerns the call (they all precede it).
    """

    index: int
    name: str | None
    arguments: str
    id: str | None
    whole: bool
    valid: bool


@dataclass(frozen=True, slots=True)
class Finding:
    """An anomaly, with the call it concerns (None for the stream's own).

    A call's findings that decide whether it is valid come right before it; a missing end marker, known only later,
    comes after it.
    """

    code: FindingCode
    message: str
    call: int | None

    @property
    def severity(self) -> Literal["error", "warning", "info"]:
        """``error``, ``warning`` or ``info`` (``FINDINGS``)."""
        return FINDINGS[self.code][0]


Event: TypeAlias = Text | Reasoning | Call | Finding

_WHITESPACE: Final = " \t\r\n"


def utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counts the three bytes the core's input would have)."""
    return len(text.encode("utf-8", "surrogatepass"))


def quoted(text: str) -> str:
    """``text`` as a JSON string, the way messages name keys and tools (and the core writes them, escape for escape)."""
    return json.dumps(text, ensure_ascii=False)


def read_json(text: str, max_depth: int = Limits().max_depth) -> Any:
    """The value of JSON text, refusing what has no JSON form.

    The scanner judges the text first, so that why it is not JSON is said the same way by the core (its error kind
    and byte offset), and so that nesting is bounded before Python's recursive reader sees it.

    Raises:
        ValueError: Not JSON, nested deeper than ``max_depth``, a non-finite number (``1e999``) or a key repeated in
            one object (which reading would merge silently); the first of these in the text's order.
    """
    scanner = Scanner(max_depth)
    scanner.feed(text.encode("utf-8", "surrogatepass"))
    if scanner.finish() == INCOMPLETE:
        raise ValueError("the JSON text ends early")
    if (error := scanner.error) is not None:
        raise ValueError(f"{error.kind} at byte {error.offset}")
    return json.loads(
        text, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_integer, object_pairs_hook=_unique
    )


_JSON_TEXT: Final = re.compile(r'("(?:[^"\\]|\\.)*")|[ \t\r\n]+')


def compact_text(text: str) -> str:
    """Valid JSON text as written, less the whitespace outside its strings: what a call's arguments are.

    Numbers and escapes stay as the model wrote them (``1.50``, ``1e16``), which no reading and rewriting keeps.
    """
    return _JSON_TEXT.sub(lambda match: match.group(1) or "", text)


_MEMBER_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]')


def members(text: str) -> list[tuple[str, str]]:
    """Each member of a JSON object's compact text (``compact_text``): its key, and its value's text as written."""
    found: list[tuple[str, str]] = []
    depth = 0
    key: str | None = None
    start = 0
    for match in _MEMBER_TOKEN.finditer(text):
        token = match.group()
        if token in ("{", "["):
            depth += 1
        elif token in ("}", "]"):
            if depth == 1 and key is not None:
                found.append((key, text[start : match.start()]))
            depth -= 1
        elif depth != 1:
            continue
        elif token == ":":
            start = match.end()
        elif token == ",":
            assert key is not None
            found.append((key, text[start : match.start()]))
            key = None
        elif key is None:
            key = json.loads(token)
    return found


def object_text(pairs: Iterable[tuple[str, str]]) -> str:
    """The compact text of the JSON object of ``pairs``: keys, and the JSON text of each value."""
    return "{" + ",".join(f"{quoted(key)}:{value}" for key, value in pairs) + "}"


def _refuse_constant(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON value")


def _integer(text: str) -> int:
    # An integer is read exactly, however long: `int` refuses a text past Python's digit limit, `Decimal` does not.
    return int(text) if len(text) <= _INT_DIGITS else int(Decimal(text))


_INT_DIGITS: Final = 4000


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} has no finite JSON value")
    return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for key, member in pairs:
        if key in value:
            raise ValueError(f"the key {quoted(key)} is repeated in one object")
        value[key] = member
    return value


_LEADING_NAME: Final = re.compile(r'\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")')


def leading_name(text: str) -> str | None:
    """The name of a JSON call object cut short, when its first member is a whole ``"name"`` string."""
    match = _LEADING_NAME.match(text)
    if match is None:
        return None
    try:
        name = read_json(match.group(1))
    except ValueError:
        # A string the pattern takes whole but JSON refuses (a raw tab, `\\q`): no name was read whole.
        return None
    return name if isinstance(name, str) else None


class JsonReader:
    """One JSON value read as its characters arrive: where it closes, or where it stops being JSON.

    Its text is kept up to ``Limits.max_argument_bytes``; past that it is scanned, not stored (``overflow``).
    """

    def __init__(self, limits: Limits) -> None:
        """A reader of a value not yet begun."""
        self._scanner = Scanner(limits.max_depth)
        self.max_depth = limits.max_depth
        self._limit = limits.max_argument_bytes
        self._parts: list[str] = []
        self._bytes = 0
        self.overflow = False

    @property
    def text(self) -> str:
        """The value's text so far (empty once it overflowed)."""
        return "".join(self._parts)

    def take(self, text: str) -> tuple[str, int]:
        """Reads ``text`` until the value closes or breaks.

        Returns:
            The state (``COMPLETE``, ``INCOMPLETE`` or ``INVALID``) and how many characters were taken: up to and
            including the one that closed the value, all of them while incomplete, none of the one that broke it.
        """
        for taken, char in enumerate(text):
            # One character at a time, so that a close or a break is placed on a character, never inside one.
            state = self._scanner.feed(char.encode("utf-8", "surrogatepass"))
            if state == INVALID:
                return INVALID, taken
            self._keep(char)
            if state == COMPLETE:
                return COMPLETE, taken + 1
        return INCOMPLETE, len(text)

    def _keep(self, char: str) -> None:
        if self.overflow:
            return
        self._bytes += utf8_len(char)
        if self._bytes > self._limit:
            self.overflow = True
            self._parts = []
            self._scanner.stop_tracking_keys()
            return
        self._parts.append(char)


class Parser(ABC):
    """A dialect's streaming parser: text deltas in, events out.

    A dialect sets its markers (``starts``: what opens a call in text; ``think``: its reasoning pair, if any;
    ``call_ends_reasoning``: whether a call start inside reasoning ends it, as a model family's template does) and
    implements ``_open`` (a start marker was read), one ``_advance_<state>`` step per state of a call (the parser
    runs the step its state names, as it runs ``_advance_text`` and ``_advance_reasoning``) and ``_cut`` (the stream
    ended inside a call). This class runs text and reasoning, holds back what could still start a marker, and
    builds calls and findings.
    """

    starts: ClassVar[tuple[str, ...]] = ()
    think: ClassVar[tuple[str, str] | None] = None
    call_ends_reasoning: ClassVar[bool] = False

    def __init__(
        self,
        tools: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        reasoning: bool = False,
        limits: Limits | None = None,
    ) -> None:
        """A parser at the start of a model's text.

        Args:
            tools: The parameters schema of each of the request's tools, by name (a ``ToolRegistry``'s tools, say):
                what types raw values, and nothing else.
            reasoning: The prompt opened the reasoning block (a generation prompt ending with ``<think>``), so the
                text starts inside it. Ignored by a dialect without reasoning markers.
            limits: The bounds; ``max_argument_bytes`` caps a call's text, ``max_depth`` its nesting.
        """
        self.tools = tools
        self.limits = limits or Limits()
        self._buf = ""
        self._pos = 0
        self._final = False
        self._finished = False
        self._events: list[Event] = []
        self._calls = 0
        self._state: str = REASONING if reasoning and self.think is not None else TEXT

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse marker sets the earliest-match search cannot hold back correctly."""
        super().__init_subclass__(**kwargs)
        markers = (*cls.starts, *(cls.think or ()))
        for marker in markers:
            for other in markers:
                # A marker inside another (past its first character) could match before the other is known.
                if other != marker and marker in other[1:]:
                    raise TypeError(f"{cls.__name__}: the marker {quoted(marker)} lies inside {quoted(other)}")

    # The stream.

    def feed(self, delta: str) -> list[Event]:
        """The events ``delta`` completes.

        Raises:
            ValueError: The parser was finished.
        """
        if self._finished:
            raise ValueError("the parser was finished")
        self._buf = self._buf[self._pos :] + delta
        self._pos = 0
        self._run()
        return self._take()

    def finish(self) -> list[Event]:
        """The events the end of the stream completes: held text released, a call cut, reasoning left open."""
        if self._finished:
            raise ValueError("the parser was finished")
        self._final = True
        self._run()
        self._finished = True
        if self._state == REASONING:
            self._finding("REASONING_CUT", "the stream ended inside reasoning", None)
        elif self._state != TEXT:
            self._cut()
            self._state = TEXT
        return self._take()

    def _take(self) -> list[Event]:
        events, self._events = self._events, []
        return events

    def _run(self) -> None:
        while self._advance():
            pass

    def _advance(self) -> bool:
        """One step, the one the state names (``_advance_<state>``); False when nothing more can be decided yet."""
        step: Callable[[], bool] = getattr(self, f"_advance_{self._state}")
        return step()

    def _advance_text(self) -> bool:
        markers = (*self.starts, self.think[0]) if self.think else self.starts
        marker = self._release_until(markers, self._text)
        if marker is None:
            return False
        if self.think is not None and marker == self.think[0]:
            self._state = REASONING
        else:
            self._open(marker)
        return True

    def _advance_reasoning(self) -> bool:
        assert self.think is not None
        markers = (self.think[1], *self.starts) if self.call_ends_reasoning else (self.think[1],)
        marker = self._release_until(markers, self._reasoning)
        if marker is None:
            return False
        if marker == self.think[1]:
            self._state = TEXT
        else:
            self._open(marker)
        return True

    # What a dialect implements.

    @abstractmethod
    def _open(self, marker: str) -> None:
        """A start marker was read (and taken): enter the dialect's call state."""

    @abstractmethod
    def _cut(self) -> None:
        """The stream ended inside a call: hand it over unfinished (``_call(..., whole=False)``)."""

    # The buffer.

    @property
    def _rest(self) -> str:
        return self._buf[self._pos :]

    def _release_until(self, markers: tuple[str, ...], sink: Callable[[str], None]) -> str | None:
        """Releases text to ``sink`` up to the earliest marker and takes the marker; None when none is whole yet.

        What could still be the start of a marker is held back, unless the stream has ended.
        """
        buf, pos = self._buf, self._pos
        found: tuple[int, str] | None = None
        for marker in markers:
            at = buf.find(marker, pos)
            if at >= 0 and (found is None or at < found[0]):
                found = (at, marker)
        if found is not None:
            at, marker = found
            sink(buf[pos:at])
            self._pos = at + len(marker)
            return marker
        end = len(buf) if self._final else len(buf) - _held(buf, pos, markers)
        sink(buf[pos:end])
        self._pos = end
        return None

    def _skip_whitespace(self) -> str:
        """Takes the whitespace at the cursor and returns it."""
        start = self._pos
        while self._pos < len(self._buf) and self._buf[self._pos] in _WHITESPACE:
            self._pos += 1
        return self._buf[start : self._pos]

    def _starts_with(self, literal: str, at: int | None = None) -> bool | None:
        """Whether the text at ``at`` (the cursor) is ``literal``; None while it is a proper prefix and more may come."""
        at = self._pos if at is None else at
        rest = self._buf[at : at + len(literal)]
        if rest == literal:
            return True
        if literal.startswith(rest) and not self._final:
            return None
        return False

    # What is handed over.

    def _text(self, text: str) -> None:
        if text:
            self._events.append(Text(text))

    def _reasoning(self, text: str) -> None:
        if text:
            self._events.append(Reasoning(text))

    def _finding(self, code: FindingCode, message: str, call: int | None) -> None:
        self._events.append(Finding(code, message, call))

    def _call(
        self,
        name: str | None,
        arguments: str,
        *,
        id: str | None = None,
        whole: bool = True,
        findings: tuple[tuple[FindingCode, str], ...] = (),
    ) -> int:
        """Hands a call over after its findings; returns its index."""
        index = self._calls
        self._calls += 1
        for code, message in findings:
            self._finding(code, message, index)
        valid = whole and not any(FINDINGS[code][0] == "error" for code, _ in findings)
        self._events.append(Call(index, name, arguments, id, whole, valid))
        return index

    def _schema(self, name: str | None) -> Mapping[str, Any] | None:
        """The parameters schema of the tool ``name``, None when no tool of that name is known."""
        return self.tools.get(name) if self.tools is not None and name is not None else None


def _held(buf: str, pos: int, markers: tuple[str, ...]) -> int:
    """The length of the longest end of ``buf[pos:]`` that is a proper prefix of a marker."""
    longest = max((len(marker) - 1 for marker in markers), default=0)
    for size in range(min(longest, len(buf) - pos), 0, -1):
        tail = buf[len(buf) - size :]
        if any(marker.startswith(tail) for marker in markers):
            return size
    return 0


def object_call(
    text: str,
    argument_keys: tuple[str, ...],
    id_key: str | None = None,
    *,
    name_key: str = "name",
    max_depth: int = Limits().max_depth,
) -> tuple[str | None, str, str | None, tuple[tuple[FindingCode, str], ...]]:
    """A call written as a JSON object (``{"name": ..., "arguments": {...}}``): its name, arguments, id and findings.

    ``text`` is the call's JSON text, which ``read_json`` accepts. ``name_key`` is the member holding the name (Cohere
    writes ``tool_name``); ``argument_keys`` are the members that may hold the arguments, in order of preference;
    ``"type": "function"`` (Llama 4) is allowed beside them. The arguments are
    their member's text as written (``compact_text``); written as a JSON string holding the object, they are that
    string's text, read once.
    """
    text = compact_text(text)
    value = read_json(text, max_depth)
    findings: list[tuple[FindingCode, str]] = []
    if not isinstance(value, dict):
        return None, text, None, (("MALFORMED_CALL", "the call is not a JSON object"),)
    name = value.get(name_key)
    if not isinstance(name, str) or not name:
        findings.append(("MALFORMED_CALL", "the call has no name string"))
        name = None
    call_id = value.get(id_key) if id_key is not None else None
    if call_id is not None and not isinstance(call_id, str):
        findings.append(("MALFORMED_CALL", f"the call's {quoted(str(id_key))} is not a string"))
        call_id = None
    present = [key for key in argument_keys if key in value]
    allowed = {name_key, *argument_keys, *((id_key,) if id_key else ())}
    extra = sorted(key for key in value if key not in allowed and not (key == "type" and value[key] == "function"))
    if extra:
        findings.append(("MALFORMED_CALL", f"the call has members no call has: {', '.join(map(quoted, extra))}"))
    written = dict(members(text))
    if len(present) != 1:
        what = "no" if not present else "more than one"
        findings.append(("MALFORMED_CALL", f"the call has {what} arguments member ({' or '.join(argument_keys)})"))
        return name, written[present[0]] if present else "", call_id, tuple(findings)
    arguments = value[present[0]]
    arguments_text = written[present[0]]
    if isinstance(arguments, str):
        try:
            decoded = read_json(arguments, max_depth)
        except ValueError as error:
            findings.append(("INVALID_ARGUMENTS", f"the arguments are a string that is not JSON ({error})"))
            return name, arguments, call_id, tuple(findings)
        findings.append(("ARGUMENTS_AS_STRING", "the arguments were a JSON string holding the object"))
        arguments, arguments_text = decoded, compact_text(arguments)
    if not isinstance(arguments, dict):
        findings.append(("INVALID_ARGUMENTS", "the arguments are not a JSON object"))
    return name, arguments_text, call_id, tuple(findings)


def parsed(text: str, max_depth: int = Limits().max_depth) -> tuple[Any, str | None]:
    """The value of a whole JSON text the scanner accepted, or why it has no JSON form (``read_json``)."""
    try:
        return read_json(text, max_depth), None
    except ValueError as error:
        return None, str(error)


def json_call(
    reader: JsonReader, argument_keys: tuple[str, ...], id_key: str | None = None, *, name_key: str = "name"
) -> tuple[str | None, str, str | None, tuple[tuple[FindingCode, str], ...]]:
    """The call a whole JSON object read by ``reader`` writes (``object_call``), or why it cannot be read."""
    if reader.overflow:
        return None, "", None, (("TOO_LARGE", "the call's text passed the limit on a call's bytes"),)
    _, problem = parsed(reader.text, reader.max_depth)
    if problem is not None:
        return leading_name(reader.text), reader.text, None, (("INVALID_ARGUMENTS", problem),)
    return object_call(reader.text, argument_keys, id_key, name_key=name_key, max_depth=reader.max_depth)


def arguments_of(reader: JsonReader) -> tuple[str, tuple[tuple[FindingCode, str], ...]]:
    """The arguments object a whole JSON value read by ``reader`` is (``compact_text``), or the best text and why not."""
    if reader.overflow:
        return "", (("TOO_LARGE", "the call's text passed the limit on a call's bytes"),)
    value, problem = parsed(reader.text, reader.max_depth)
    if problem is not None:
        return reader.text, (("INVALID_ARGUMENTS", problem),)
    if not isinstance(value, dict):
        return reader.text, (("INVALID_ARGUMENTS", "the arguments are not a JSON object"),)
    return compact_text(reader.text), ()
