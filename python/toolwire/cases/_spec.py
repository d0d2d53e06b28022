"""Model specs: the endpoint, model, credential and sampling behind one column of the matrix.

A spec is written in a compact form on the command line (``--model``) or as an entry of a models file
(``--models FILE``, YAML or TOML). The compact form::

    FORMAT:MODEL[@BASE_URL][,KEY=VALUE]...

    openai-chat:gpt-4.1
    openai-chat:my-vllm@http://localhost:8000/v1
    anthropic-messages:claude-x@https://api.anthropic.com/v1,key_env=MY_KEY,temperature=0,stream=true
    openai-chat:llama3.1:8b@http://localhost:11434/v1,label=llama      (a colon in the model name is kept)
    anthropic-messages:claude-3@20240229@https://vertex.example/v1     (so is an @ not followed by http)

``FORMAT`` is the wire format spoken (``openai-chat``, ``openai-responses``, ``anthropic-messages``); ``MODEL`` is sent
as the request's ``model``; the base URL starts at the first ``@`` followed by ``http://`` or ``https://`` and is the
API root below which ``/chat/completions``, ``/responses`` or ``/messages`` is appended (default: the provider's own,
``https://api.openai.com/v1`` or ``https://api.anthropic.com/v1``). Options follow, comma-separated:

- ``label``: the column's name in the reports (default: the model, made unique; see ``assign_labels``);
- ``key_env``: the environment variable holding the API key (default ``OPENAI_API_KEY``, or ``ANTHROPIC_API_KEY``
  for ``anthropic-messages``; when the default is unset, no key is sent, which suits a local server);
- ``stream``: ``true`` or ``false`` (default: the command's ``--stream``/``--no-stream``, streamed when neither);
- ``timeout``: seconds to wait for each answer (default: the command's ``--timeout``);
- sampling: ``temperature``, ``top_p``, ``max_tokens`` (every format), ``seed`` (``openai-chat``), ``top_k``
  (``anthropic-messages``), ``parallel_tool_calls`` (the two OpenAI formats);
- ``params.NAME=VALUE``: any other field of the request body, the value read as JSON when it parses (``params.
  reasoning_effort=low``, ``params.metadata={"user":"ci"}``... a JSON value with a comma belongs in a models file).

A models file holds the same fields, a ``defaults`` table applied under every model, and the models as a list or
as a mapping from label to model; a model is a compact string or a table (``spec`` plus options, or ``format`` and
``model`` spelled out)::

    defaults: {temperature: 0, stream: true}
    models:
      gpt: openai-chat:gpt-4.1
      local: {spec: "openai-chat:my-vllm@http://localhost:8000/v1", stream: false}
      claude:
        format: anthropic-messages
        model: claude-x
        key_env: MY_KEY
        params: {metadata: {user_id: ci}}

Every error is a ``ValueError`` naming the spec (or the file and the entry's path), the part at fault and the fix.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final
from urllib.parse import urlsplit

from toolwire._common._json import compact
from toolwire._common._json_data import json_fields
from toolwire.formats import REQUEST_FORMATS

__all__ = ["SPEC_FORMATS", "ModelSpec", "assign_labels", "load_models", "parse_spec"]

#: The wire formats a matrix column can speak: those with an HTTP endpoint toolwire renders requests for.
SPEC_FORMATS: Final[tuple[str, ...]] = REQUEST_FORMATS

_DEFAULT_BASE_URL: Final = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "anthropic-messages": "https://api.anthropic.com/v1",
}
_DEFAULT_KEY_ENV: Final = {
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic-messages": "ANTHROPIC_API_KEY",
}
# Sampling parameters and the formats whose API has them (sending one elsewhere gets a 400 from the provider).
_SAMPLING_FORMATS: Final[Mapping[str, tuple[str, ...]]] = {
    "temperature": SPEC_FORMATS,
    "top_p": SPEC_FORMATS,
    "max_tokens": SPEC_FORMATS,
    "seed": ("openai-chat",),
    "top_k": ("anthropic-messages",),
    "parallel_tool_calls": ("openai-chat", "openai-responses"),
}
_OPTIONS: Final = ("label", "key_env", "stream", "timeout", *_SAMPLING_FORMATS)
_FILE_KEYS: Final = ("spec", "format", "model", "base_url", *_OPTIONS, "params")
_DEFAULT_KEYS: Final = ("format", "base_url", "key_env", "stream", "timeout", *_SAMPLING_FORMATS, "params")
_ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# An option starts at a comma followed by a key and '='; a comma anywhere else stays in the model name or URL.
_OPTION_START: Final = re.compile(r",(?=[A-Za-z_][A-Za-z0-9_.]*=)")
# The base URL starts at the first '@' followed by a scheme, so that '@' inside a model name is kept.
_URL_START: Final = re.compile(r"@(?=https?://)")
_HOST_PORT: Final = re.compile(r"(localhost|[A-Za-z0-9.-]+:\d+)(/.*)?$")
_TRUE: Final = ("true", "yes", "on", "1")
_FALSE: Final = ("false", "no", "off", "0")
_COMPACT_HINT: Final = "write FORMAT:MODEL[@BASE_URL][,KEY=VALUE]..., e.g. openai-chat:gpt-4.1"


@dataclass(frozen=True)
class ModelSpec:
    """One column of the matrix: where requests go, in which format, and with which parameters.

    Attributes:
        format: The wire format (one of ``SPEC_FORMATS``).
        model: The request's ``model``.
        base_url: The API root, without a trailing slash (``/chat/completions`` etc. are appended).
        key_env: The environment variable holding the API key; None for the format's default variable.
        stream: Streamed or buffered answers; None to follow the command's default.
        timeout: Seconds to wait for each answer; None to follow the command's default.
        sampling: The sampling parameters set (``temperature``, ``top_p``, ``max_tokens``, ``seed``, ``top_k``,
            ``parallel_tool_calls``), sent in the format's own field names.
        params: Other request-body fields, sent as given.
        label: The column's name in the reports; "" until ``assign_labels`` gives one.
        origin: Where the spec was written (the ``--model`` text or ``file#models[2]``), for messages.
    """

    format: str
    model: str
    base_url: str = ""
    key_env: str | None = None
    stream: bool | None = None
    timeout: float | None = None
    sampling: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        """Check the fields (the parsers have already; this guards direct construction) and fill the defaults."""
        where = self.origin or f"{self.format}:{self.model}"
        if self.format not in SPEC_FORMATS:
            raise ValueError(f"model spec {where!r}: unknown format {self.format!r}; expected {_formats()}")
        if not self.model:
            raise ValueError(f"model spec {where!r}: the model name is empty; {_COMPACT_HINT}")
        object.__setattr__(self, "base_url", _base_url(self.base_url or _DEFAULT_BASE_URL[self.format], where))
        for key in self.sampling:
            _check_sampling_format(key, self.format, where)
        object.__setattr__(self, "sampling", MappingProxyType(dict(self.sampling)))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def api_key_env(self) -> str:
        """The environment variable the API key is read from (``key_env`` or the format's default)."""
        return self.key_env or _DEFAULT_KEY_ENV[self.format]

    def api_key(self) -> str | None:
        """The API key from the environment, or None when the variable is unset or empty."""
        return os.environ.get(self.api_key_env) or None

    def compact(self) -> str:
        """The spec in the compact form, label included; ``parse_spec(spec.compact())`` gives it back."""
        text = f"{self.format}:{self.model}"
        if self.base_url != _DEFAULT_BASE_URL[self.format]:
            text += f"@{self.base_url}"
        options: list[tuple[str, Any]] = [("label", self.label), ("key_env", self.key_env)]
        options += [("stream", self.stream), ("timeout", self.timeout), *self.sampling.items()]
        parts = [f"{key}={_option_text(value)}" for key, value in options if value is not None and value != ""]
        parts += [f"params.{key}={_param_text(value)}" for key, value in self.params.items()]
        return ",".join([text, *parts])

    def as_dict(self) -> dict[str, Any]:
        """The spec as plain JSON data, for reports (the key's variable is named; the key itself never appears)."""
        keys = "label format model base_url key_env stream timeout sampling params spec"
        return json_fields(self, keys, key_env=self.api_key_env, spec=self.compact())


def _formats() -> str:
    return ", ".join(SPEC_FORMATS)


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _param_text(value: Any) -> str:
    """A ``params.`` value as written; it is read back as JSON first, so a string that would parse is quoted.

    So is a string with spaces around it, which the compact form would strip.
    """
    if isinstance(value, str) and value == value.strip():
        try:
            json.loads(value)
        except ValueError:
            return value
    return compact(value, allow_nan=True)


def _base_url(text: str, where: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"model spec {where!r}: base URL {text!r} is not an http:// or https:// URL; "
            "write it in full after '@', e.g. @http://localhost:8000/v1"
        )
    return text.rstrip("/")


def _check_sampling_format(key: str, fmt: str, where: str) -> None:
    formats = _SAMPLING_FORMATS.get(key)
    if formats is None:
        raise ValueError(f"model spec {where!r}: {key!r} is not a sampling parameter; known: {_sampling_names()}")
    if fmt not in formats:
        raise ValueError(
            f"model spec {where!r}: {key} is not a parameter of {fmt} (it is of {', '.join(formats)}); "
            f"remove it, or pass it as params.{key}=... to send it anyway"
        )


def _sampling_names() -> str:
    return ", ".join(_SAMPLING_FORMATS)


class _Values:
    """Reads option values from text (the compact form) or typed values (a models file), naming where on error."""

    def __init__(self, where: str, from_text: bool) -> None:
        self.where = where
        self.from_text = from_text

    def fail(self, key: str, message: str) -> ValueError:
        # A compact spec names the option after the spec; a file names the field path (models[2].temperature).
        return ValueError(f"{self.where}: {key}: {message}" if self.from_text else f"{self.where}.{key}: {message}")

    def boolean(self, key: str, value: object) -> bool:
        if isinstance(value, bool):
            return value
        if self.from_text and isinstance(value, str) and value.lower() in (*_TRUE, *_FALSE):
            return value.lower() in _TRUE
        raise self.fail(key, f"expected true or false, got {value!r}")

    def number(self, key: str, value: object, low: float, high: float | None) -> float:
        number: float | None = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
        elif self.from_text and isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                number = None
        if number is None or not math.isfinite(number):
            raise self.fail(key, f"expected a number, got {value!r}")
        if number < low or (high is not None and number > high):
            bounds = f"from {low:g} to {high:g}" if high is not None else f"of at least {low:g}"
            raise self.fail(key, f"expected a number {bounds}, got {value!r}")
        return number

    def integer(self, key: str, value: object, low: int) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif self.from_text and isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            number = int(value)
        if number is None or number < low:
            raise self.fail(key, f"expected an integer of at least {low}, got {value!r}")
        return number

    def string(self, key: str, value: object) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected a non-empty string, got {value!r}")
        return value.strip()

    def param(self, value: str) -> Any:
        try:
            return json.loads(value)
        except ValueError:
            return value

    def option(self, key: str, value: object) -> Any:
        """One option's value, converted and checked."""
        if key == "label":
            return self.string(key, value)
        if key == "key_env":
            name = self.string(key, value)
            if not _ENV_NAME.fullmatch(name):
                raise self.fail(key, f"{name!r} is not an environment variable name (letters, digits, _)")
            return name
        if key in ("stream", "parallel_tool_calls"):
            return self.boolean(key, value)
        if key == "timeout":
            return self.number(key, value, 0.001, None)
        if key == "temperature":
            return self.number(key, value, 0.0, 2.0)
        if key == "top_p":
            return self.number(key, value, 0.0, 1.0)
        if key in ("max_tokens", "top_k"):
            return self.integer(key, value, 1)
        if key == "seed":
            return self.integer(key, value, -(2**63))
        raise self.fail(key, f"unknown option; known: {', '.join(_OPTIONS)}, params.NAME")


def _split_head(text: str, head: str, where: str) -> tuple[str, str]:
    """The model and base URL of ``MODEL[@BASE_URL]``."""
    found = _URL_START.search(head)
    model, url = (head[: found.start()], head[found.end() :]) if found else (head, "")
    if not found and "@" in head:
        after = head.rsplit("@", 1)[1]
        if "://" in after:
            raise ValueError(f"model spec {text!r}: base URL {after!r} is not an http:// or https:// URL")
        if _HOST_PORT.match(after):
            raise ValueError(
                f"model spec {text!r}: {after!r} after '@' looks like a host without a scheme; "
                f"write @http://{after} (or @https://...)"
            )
    if not model.strip():
        raise ValueError(f"model spec {text!r}: the model name is empty; {_COMPACT_HINT}")
    return model.strip(), url.strip()


def parse_spec(text: str, *, origin: str | None = None) -> ModelSpec:
    """Read a model spec in the compact form (see the module docstring).

    Args:
        text: ``FORMAT:MODEL[@BASE_URL][,KEY=VALUE]...``.
        origin: Where it was written, for messages (default: the text itself).

    Returns:
        The spec, unlabelled unless ``label=`` was given.

    Raises:
        ValueError: The text is not a spec; the message names the part at fault and the fix.
    """
    if not isinstance(text, str):
        raise TypeError(f"a model spec is a string, got {type(text).__name__}")
    text = text.strip()
    fmt, colon, rest = text.partition(":")
    if not colon:
        raise ValueError(f"model spec {text!r}: no ':' after the format; {_COMPACT_HINT}")
    if fmt not in SPEC_FORMATS:
        raise ValueError(f"model spec {text!r}: unknown format {fmt!r} before ':'; expected {_formats()}")
    found = _OPTION_START.search(rest)
    head, options = (rest[: found.start()], rest[found.start() + 1 :]) if found else (rest, "")
    model, url = _split_head(text, head, text)
    values = _Values(f"model spec {text!r}", from_text=True)
    fields: dict[str, Any] = {}
    sampling: dict[str, Any] = {}
    params: dict[str, Any] = {}
    for part in options.split(",") if options else ():
        key, equals, value = part.partition("=")
        key = key.strip()
        if not equals or not key:
            raise values.fail(part, f"expected KEY=VALUE after ','; known keys: {', '.join(_OPTIONS)}, params.NAME")
        if key in fields or key in sampling or key.removeprefix("params.") in params:
            raise values.fail(key, "given twice; keep one")
        if key.startswith("params."):
            name = key.removeprefix("params.")
            if not name:
                raise values.fail(key, "params. needs a field name, e.g. params.reasoning_effort=low")
            params[name] = values.param(value)
        elif key in _SAMPLING_FORMATS:
            sampling[key] = values.option(key, value)
        else:
            fields[key] = values.option(key, value)
    return _build(fmt, model, url, fields, sampling, params, origin or text)


def _build(
    fmt: str,
    model: str,
    url: str,
    fields: Mapping[str, Any],
    sampling: Mapping[str, Any],
    params: Mapping[str, Any],
    origin: str,
) -> ModelSpec:
    for key in ("model", "stream"):
        if key in params:
            raise ValueError(f"model spec {origin!r}: params.{key} would override the spec's own {key}; drop it")
    return ModelSpec(
        format=fmt,
        model=model,
        base_url=url,
        key_env=fields.get("key_env"),
        stream=fields.get("stream"),
        timeout=fields.get("timeout"),
        sampling=sampling,
        params=params,
        label=fields.get("label", ""),
        origin=origin,
    )


def _read_models_file(path: Path) -> Any:
    suffix = path.suffix.lower()
    raw = path.read_bytes()
    if suffix == ".toml":
        from toolwire._common import _toml

        try:
            return _toml.loads(raw.decode("utf-8"))
        except _toml.TOMLDecodeError as error:
            raise ValueError(f"{path}: not valid TOML: {error}") from None
    if suffix in (".yaml", ".yml"):
        yaml = importlib.import_module("yaml")

        try:
            return yaml.safe_load(raw)
        except yaml.YAMLError as error:
            raise ValueError(f"{path}: not valid YAML: {error}") from None
    if suffix == ".json":
        try:
            return json.loads(raw)
        except ValueError as error:
            raise ValueError(f"{path}: not valid JSON: {error}") from None
    raise ValueError(f"{path}: a models file is .yaml, .yml, .toml or .json")


def _from_spec(value: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fields and params an entry's ``spec`` string gives (none when it has no ``spec``)."""
    if "spec" not in value:
        return {}, {}
    spec = value["spec"]
    if not isinstance(spec, str):
        raise ValueError(f"{where}.spec: expected a compact spec string, got {spec!r}")
    for key in ("format", "model", "base_url"):
        if key in value:
            raise ValueError(f"{where}.{key}: already given by 'spec'; keep one of the two")
    parsed = parse_spec(spec, origin=where)
    fields: dict[str, Any] = {"format": parsed.format, "model": parsed.model, **parsed.sampling}
    if parsed.base_url != _DEFAULT_BASE_URL[parsed.format]:
        fields["base_url"] = parsed.base_url
    for key in ("label", "key_env", "stream", "timeout"):
        if getattr(parsed, key) not in (None, ""):
            fields[key] = getattr(parsed, key)
    return fields, dict(parsed.params)


def _entry(value: object, defaults: Mapping[str, Any], where: str, label: str | None) -> ModelSpec:
    """One model of a models file over the defaults: the defaults, then its ``spec``, then its own fields."""
    if isinstance(value, str):
        value = {"spec": value}
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected a compact spec string or a table of fields, got {value!r}")
    for key in value:
        if key not in _FILE_KEYS:
            raise ValueError(f"{where}.{key}: unknown key; expected one of {', '.join(_FILE_KEYS)}")
    spec_fields, spec_params = _from_spec(value, where)
    params = {**_params(defaults.get("params", {}), "defaults.params"), **spec_params}
    params.update(_params(value.get("params", {}), f"{where}.params"))
    chosen = {key: item for key, item in defaults.items() if key != "params"}
    chosen.update(spec_fields)
    chosen.update({key: item for key, item in value.items() if key not in ("spec", "params")})
    if label is not None:
        if "label" in value or "label" in spec_fields:
            raise ValueError(f"{where}: the label is the mapping's key {label!r}; drop the 'label' field")
        chosen["label"] = label
    for key in ("format", "model"):
        if key not in chosen:
            raise ValueError(f"{where}: missing '{key}' (or a 'spec' such as openai-chat:gpt-4.1)")
    values = _Values(where, from_text=False)
    fmt, model = values.string("format", chosen.pop("format")), values.string("model", chosen.pop("model"))
    if fmt not in SPEC_FORMATS:
        raise ValueError(f"{where}.format: unknown format {fmt!r}; expected {_formats()}")
    url = values.string("base_url", chosen.pop("base_url")) if "base_url" in chosen else ""
    converted = {key: values.option(key, item) for key, item in chosen.items()}
    sampling = {key: item for key, item in converted.items() if key in _SAMPLING_FORMATS}
    fields = {key: item for key, item in converted.items() if key not in _SAMPLING_FORMATS}
    return _build(fmt, model, url, fields, sampling, params, where)


def _params(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ValueError(f"{where}: expected a table of request-body fields, got {value!r}")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}: not JSON-compatible ({error})") from None
    return dict(value)


def load_models(path: str | os.PathLike[str]) -> tuple[ModelSpec, ...]:
    """Read a models file (YAML, TOML or JSON; see the module docstring).

    Args:
        path: The file.

    Returns:
        The specs in the file's order, labelled where the file labels them.

    Raises:
        FileNotFoundError: No such file.
        ValueError: The file is not a models file; the message names the file, the entry and the field.
    """
    path = Path(path)
    document = _read_models_file(path)
    if not isinstance(document, Mapping):
        raise ValueError(f"{path}: expected a table with 'models' (and optionally 'defaults'), got {document!r}")
    for key in document:
        if key not in ("models", "defaults"):
            raise ValueError(f"{path}: {key}: unknown key; expected models, defaults")
    defaults = document.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        raise ValueError(f"{path}: defaults: expected a table, got {defaults!r}")
    for key in defaults:
        if key not in _DEFAULT_KEYS:
            raise ValueError(f"{path}: defaults.{key}: unknown key; expected one of {', '.join(_DEFAULT_KEYS)}")
    models = document.get("models")
    entries: list[tuple[str, Any, str | None]]
    if isinstance(models, Mapping):
        entries = [(f"{path}: models.{label}", value, str(label)) for label, value in models.items()]
    elif isinstance(models, list):
        entries = [(f"{path}: models[{position}]", value, None) for position, value in enumerate(models)]
    else:
        raise ValueError(f"{path}: models: expected a list or a table of models, got {models!r}")
    if not entries:
        raise ValueError(f"{path}: models: empty; name at least one model")
    return tuple(_entry(value, defaults, where, label) for where, value, label in entries)


def _host(spec: ModelSpec) -> str:
    return urlsplit(spec.base_url).netloc


def assign_labels(specs: Sequence[ModelSpec]) -> tuple[ModelSpec, ...]:
    """Give every unlabelled spec a unique column label.

    The label is the model name, unless another spec has the same: then ``FORMAT:MODEL``, then
    ``FORMAT:MODEL@HOST``, then the whole compact spec.

    Args:
        specs: The specs, in column order.

    Returns:
        The specs, each with a label.

    Raises:
        ValueError: Two specs are the same, or two carry the same explicit label.
    """
    seen: dict[str, str] = {}
    for spec in specs:
        key = replace(spec, label="").compact()
        if key in seen:
            raise ValueError(
                f"model spec {spec.origin or spec.compact()!r} is the same model as {seen[key]!r}; "
                "give it once, or make them differ (a label alone does not: the cells would be the same requests)"
            )
        seen[key] = spec.origin or spec.compact()
    explicit: dict[str, str] = {}
    for spec in specs:
        if spec.label:
            if spec.label in explicit:
                raise ValueError(
                    f"model spec {spec.origin!r}: label {spec.label!r} is already the label of {explicit[spec.label]!r}"
                )
            explicit[spec.label] = spec.origin
    levels = (
        lambda s: s.model,
        lambda s: f"{s.format}:{s.model}",
        lambda s: f"{s.format}:{s.model}@{_host(s)}",
        lambda s: s.compact(),
    )
    labelled = []
    for spec in specs:
        if spec.label:
            labelled.append(spec)
            continue
        others = [other for other in specs if other is not spec]
        for level in levels:
            candidate = level(spec)
            clash = candidate in explicit or any(not o.label and level(o) == candidate for o in others)
            if not clash:
                break
        labelled.append(replace(spec, label=candidate))
    return tuple(labelled)
