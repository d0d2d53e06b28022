"""Scripts: which model answers what, read from YAML, JSON or a mapping and checked field by field.

A script names models; each model has quirks, a chunking (how argument text is split into fragments), rules tried in
order (the first whose ``when`` holds gives the reply) and what to do otherwise. The format::

    defaults:                      # optional: what every model starts from
      chunking: {max_fragment: 8, seed: 0}
      rules: [...]
      otherwise: auto
    models:
      clean: {}                    # the defaults as they are
      slow:
        quirks: {delay: 0.05}      # quirks merge key by key over the defaults' quirks
        dialect: hermes            # how its calls are written where an answer is text (/v1/completions)
        rules:                     # every other key replaces the default's value
          - when: {user_contains: "Paris", tools_offered: [get_weather]}
            reply: {calls: [{name: get_weather, arguments: {city: Paris}}]}
        otherwise: {text: "Sorry."}

``when`` keys (all must hold): ``user_contains`` (case-insensitive substring of the last user message's text),
``user_matches`` (a regular expression searched in it), ``last_message_contains`` (substring of the last message of any
role, tool results included), ``tool_choice`` (``auto``, ``none``, ``required``, ``named`` or a
tool name), ``tools_offered`` (names that must all be offered) and ``last_role`` (``user``, ``assistant``, ``tool``
— the last message is a tool result — or ``system``). A ``reply`` is ``{text}``, ``{calls: [{name, arguments}],
text?}`` (the text comes before the calls), ``{recording: "<format>/<name>"}`` or ``{error: {status, message}}``;
``otherwise`` is ``auto`` or a reply.

Every error is a ``ValueError`` naming the file and the field path, e.g.
``script.yaml: models.clean.rules[2].when.user_contains: expected a string, got 3``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from toolwire._common._json import parse_json
from toolwire._common._yaml import parse_yaml
from toolwire.dialects import STYLES
from toolwire.server._quirks import Quirks

__all__ = ["Chunking", "Model", "Reply", "Rule", "Script", "ScriptedCall", "ScriptedError", "When", "load_script"]

_TOP_KEYS: Final = ("models", "defaults")
_MODEL_KEYS: Final = ("quirks", "chunking", "dialect", "rules", "otherwise")
_WHEN_KEYS: Final = (
    "user_contains",
    "user_matches",
    "last_message_contains",
    "tool_choice",
    "tools_offered",
    "last_role",
)
_REPLY_KEYS: Final = ("text", "calls", "recording", "error")
_ROLES: Final = ("user", "assistant", "tool", "system")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Model names with this prefix are the recordings served with ``recordings=``.
RECORDING_PREFIX: Final = "recording:"


@dataclass(frozen=True)
class Chunking:
    """How argument and reply text is split into streamed fragments.

    Attributes:
        max_fragment: Each fragment holds 1 to this many characters.
        seed: The seed of the split; the same seed gives the same fragments.
    """

    max_fragment: int = 8
    seed: int = 0


@dataclass(frozen=True)
class When:
    """The conditions of a rule; all that are set must hold (an empty ``When`` always holds)."""

    user_contains: str | None = None
    user_matches: re.Pattern[str] | None = None
    last_message_contains: str | None = None
    tool_choice: str | None = None
    tools_offered: tuple[str, ...] = ()
    last_role: str | None = None


@dataclass(frozen=True)
class ScriptedCall:
    """A tool call a reply makes: its name and its arguments, sent as written."""

    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ScriptedError:
    """An error reply: the HTTP status and the message, sent in the format's own error shape."""

    status: int
    message: str


@dataclass(frozen=True)
class Reply:
    """What a model answers: text and/or calls, a recording replayed as it is, or an error.

    Attributes:
        text: Prose (before the calls when there are both).
        calls: The tool calls.
        recording: ``"<format>/<name>"`` of a recording to replay byte for byte.
        error: An HTTP error to answer with.
        where: The field path of this reply in its script, for error messages.
    """

    text: str | None = None
    calls: tuple[ScriptedCall, ...] = ()
    recording: str | None = None
    error: ScriptedError | None = None
    where: str = field(default="", compare=False)


@dataclass(frozen=True)
class Rule:
    """A reply and the conditions under which it is given."""

    when: When
    reply: Reply


@dataclass(frozen=True)
class Model:
    """One scripted model.

    Attributes:
        name: The ``model`` a request names to reach it.
        quirks: The quirks switched on.
        chunking: How its streamed text is split.
        rules: Tried in order; the first whose ``when`` holds gives the reply.
        otherwise: The reply when no rule holds; None for ``auto`` (see ``toolwire.server``).
        dialect: The dialect (``toolwire.dialects.STYLES``) the model writes its calls in where an answer is text
            only (the completions endpoint); None when it has none.
    """

    name: str
    quirks: Quirks = field(default_factory=Quirks)
    chunking: Chunking = field(default_factory=Chunking)
    rules: tuple[Rule, ...] = ()
    otherwise: Reply | None = None
    dialect: str | None = None


@dataclass(frozen=True)
class Script:
    """A loaded script.

    Attributes:
        models: The models by name, in the order the script lists them.
        source: Where it came from (a file path, or ``<mapping>``), for messages.
    """

    models: Mapping[str, Model]
    source: str = "<mapping>"


class _Reader:
    """Checks one script document, naming the file and field path in every error."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> ValueError:
        return ValueError(f"{self.source}: {where}: {message}")

    def mapping(self, value: object, where: str, keys: tuple[str, ...] | None = None) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected a mapping, got {_describe(value)}")
        for key in value:
            if not isinstance(key, str):
                raise self.fail(where, f"keys must be strings, got {_describe(key)}")
            if keys is not None and key not in keys:
                raise self.fail(f"{where}.{key}", f"unknown key; expected one of {', '.join(keys)}")
        return value

    def string(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string, got {_describe(value)}")
        return value

    def integer(self, value: object, where: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(where, f"expected an integer of at least {minimum}, got {_describe(value)}")
        return value

    def script(self, document: object) -> Script:
        top = self.mapping(document, "(top level)", _TOP_KEYS)
        if "models" not in top:
            raise self.fail("models", "missing; a script names at least one model")
        defaults = self.mapping(top.get("defaults", {}), "defaults", _MODEL_KEYS)
        default_model = self.model("", defaults, "defaults", Model(""))
        models = self.mapping(top["models"], "models")
        if not models:
            raise self.fail("models", "empty; a script names at least one model")
        read: dict[str, Model] = {}
        for name, body in models.items():
            where = f"models.{name}" if _IDENTIFIER.fullmatch(name) else f"models[{name!r}]"
            if not name.strip():
                raise self.fail(where, "a model name must not be empty")
            if name.startswith(RECORDING_PREFIX):
                raise self.fail(where, f"names starting with {RECORDING_PREFIX!r} are reserved for recordings")
            read[name] = self.model(
                name, self.mapping({} if body is None else body, where, _MODEL_KEYS), where, default_model
            )
        return Script(MappingProxyType(read), self.source)

    def model(self, name: str, body: Mapping[str, Any], where: str, base: Model) -> Model:
        quirks = base.quirks
        if "quirks" in body:
            settings = self.mapping({} if body["quirks"] is None else body["quirks"], f"{where}.quirks")
            quirks = quirks.merged(Quirks.from_mapping(settings, f"{self.source}: {where}.quirks"))
        chunking = base.chunking
        if "chunking" in body:
            chunking = self.chunking(body["chunking"], f"{where}.chunking")
        rules = base.rules
        if "rules" in body:
            rules = self.rules(body["rules"], f"{where}.rules")
        otherwise = base.otherwise
        if "otherwise" in body:
            value = body["otherwise"]
            otherwise = None if value == "auto" else self.reply(value, f"{where}.otherwise", "auto or a reply")
        dialect = base.dialect
        if "dialect" in body:
            dialect = self.string(body["dialect"], f"{where}.dialect")
            if dialect not in STYLES:
                raise self.fail(f"{where}.dialect", f"expected a dialect name ({', '.join(STYLES)}), got {dialect!r}")
        return Model(name, quirks, chunking, rules, otherwise, dialect)

    def chunking(self, value: object, where: str) -> Chunking:
        body = self.mapping(value, where, ("max_fragment", "seed"))
        return Chunking(
            self.integer(body.get("max_fragment", 8), f"{where}.max_fragment", 1),
            self.integer(body.get("seed", 0), f"{where}.seed", 0),
        )

    def rules(self, value: object, where: str) -> tuple[Rule, ...]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list of rules, got {_describe(value)}")
        read = []
        for position, item in enumerate(value):
            at = f"{where}[{position}]"
            body = self.mapping(item, at, ("when", "reply"))
            if "reply" not in body:
                raise self.fail(at, "missing 'reply'")
            read.append(
                Rule(
                    self.when({} if body.get("when") is None else body["when"], f"{at}.when"),
                    self.reply(body["reply"], f"{at}.reply"),
                )
            )
        return tuple(read)

    def when(self, value: object, where: str) -> When:
        body = self.mapping(value, where, _WHEN_KEYS)
        strings = {
            key: self.string(body[key], f"{where}.{key}")
            for key in ("user_contains", "last_message_contains", "tool_choice", "last_role")
            if key in body
        }
        if "last_role" in strings and strings["last_role"] not in _ROLES:
            raise self.fail(f"{where}.last_role", f"expected one of {', '.join(_ROLES)}, got {strings['last_role']!r}")
        pattern = None
        if "user_matches" in body:
            expression = self.string(body["user_matches"], f"{where}.user_matches")
            try:
                pattern = re.compile(expression)
            except re.error as error:
                raise self.fail(f"{where}.user_matches", f"not a regular expression: {error}") from None
        offered: tuple[str, ...] = ()
        if "tools_offered" in body:
            names = body["tools_offered"]
            if not isinstance(names, list):
                raise self.fail(f"{where}.tools_offered", f"expected a list of tool names, got {_describe(names)}")
            offered = tuple(self.string(n, f"{where}.tools_offered[{i}]") for i, n in enumerate(names))
        return When(
            user_contains=strings.get("user_contains"),
            user_matches=pattern,
            last_message_contains=strings.get("last_message_contains"),
            tool_choice=strings.get("tool_choice"),
            tools_offered=offered,
            last_role=strings.get("last_role"),
        )

    def reply(self, value: object, where: str, expected: str = "a reply") -> Reply:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected {expected} (a mapping with text, calls, recording or error)")
        body = self.mapping(value, where, _REPLY_KEYS)
        if not body:
            raise self.fail(where, f"empty; expected one of {', '.join(_REPLY_KEYS)}")
        alone = [key for key in ("recording", "error") if key in body]
        if alone and len(body) > 1:
            raise self.fail(
                where, f"'{alone[0]}' cannot be combined with {', '.join(k for k in body if k != alone[0])}"
            )
        if "recording" in body:
            name = self.string(body["recording"], f"{where}.recording")
            if name.count("/") != 1 or not all(name.split("/")):
                raise self.fail(f"{where}.recording", f"expected '<format>/<name>', got {name!r}")
            return Reply(recording=name, where=where)
        if "error" in body:
            return Reply(error=self.error(body["error"], f"{where}.error"), where=where)
        text = self.string(body["text"], f"{where}.text") if "text" in body else None
        calls = self.calls(body["calls"], f"{where}.calls") if "calls" in body else ()
        return Reply(text=text, calls=calls, where=where)

    def calls(self, value: object, where: str) -> tuple[ScriptedCall, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"expected a non-empty list of calls, got {_describe(value)}")
        read = []
        for position, item in enumerate(value):
            at = f"{where}[{position}]"
            body = self.mapping(item, at, ("name", "arguments"))
            if "name" not in body:
                raise self.fail(at, "missing 'name'")
            name = self.string(body["name"], f"{at}.name")
            arguments = self.mapping(body.get("arguments", {}), f"{at}.arguments")
            try:
                json.dumps(arguments, allow_nan=False)
            except (TypeError, ValueError) as error:
                raise self.fail(f"{at}.arguments", f"not JSON-compatible ({error})") from None
            read.append(ScriptedCall(name, dict(arguments)))
        return tuple(read)

    def error(self, value: object, where: str) -> ScriptedError:
        body = self.mapping(value, where, ("status", "message"))
        for key in ("status", "message"):
            if key not in body:
                raise self.fail(where, f"missing '{key}'")
        status = self.integer(body["status"], f"{where}.status", 400)
        if status > 599:
            raise self.fail(f"{where}.status", f"expected an HTTP error status (400 to 599), got {status}")
        return ScriptedError(status, self.string(body["message"], f"{where}.message"))


def _describe(value: object) -> str:
    """A value for an error message: its type and a short repr."""
    if value is None:
        return "null"
    return f"{type(value).__name__} {value!r:.60}"


def _read_file(path: Path) -> Any:
    """The decoded document of a script file.

    Raises:
        FileNotFoundError: No such file.
        ValueError: An unknown suffix, or the text does not parse.
    """
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise ValueError(f"{path}: a script is a .yaml, .yml or .json file")
    text = path.read_text(encoding="utf-8")
    if suffix == ".json":
        return parse_json(text, str(path))
    return parse_yaml(text, str(path))


def read_script(document: object, origin: str) -> Script:
    """Check a decoded script document.

    Args:
        document: The decoded YAML or JSON.
        origin: Where it came from, for error messages.

    Returns:
        The script.

    Raises:
        ValueError: The document is not a valid script (the message names ``origin`` and the field path).
    """
    return _Reader(origin).script(document)


def load_script(source: str | PathLike[str] | Mapping[str, Any] | Script) -> Script:
    """Load and check a script.

    Args:
        source: A path to a ``.yaml``, ``.yml`` or ``.json`` file, a mapping in the same shape, or a ``Script``
            (returned as it is).

    Returns:
        The script.

    Raises:
        FileNotFoundError: The file does not exist.
        ValueError: The document is not a valid script; the message names the file and the field path.
        TypeError: ``source`` is none of the above.
    """
    if isinstance(source, Script):
        return source
    if isinstance(source, Mapping):
        return read_script(source, "<mapping>")
    if isinstance(source, (str, PathLike)):
        path = Path(source)
        return read_script(_read_file(path), str(path))
    raise TypeError(f"a script is a file path, a mapping or a Script; got {type(source).__name__}")
