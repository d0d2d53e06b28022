"""What a secret looks like: the one set of detectors every writer and checker of toolwire uses.

Two kinds of evidence:

- **Values** (``find``): credentials recognisable by their shape wherever they stand in a string: OpenAI
  (``sk-…``, ``sk-proj-…``) and Anthropic (``sk-ant-…``) keys, AWS access key ids (``AKIA…``/``ASIA…``) and secret
  access keys next to their name, Google API keys (``AIza…``), GitHub (``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``,
  ``github_pat_``), Slack (``xoxa-``/``xoxb-``/``xoxp-``/``xoxr-``/``xoxs-``/``xoxo-``), Stripe (``sk_live_``,
  ``rk_test_``…) and Hugging Face (``hf_…``) tokens, JWTs, the credential after ``Bearer`` or ``Basic``, and PEM
  private key blocks (to their ``END`` line, or to the end of the string when it is cut short).
- **Names** (``is_secret_name``): a member whose key says it holds a secret (``password``, ``token``,
  ``client_secret``, ``api_key``, ``authorization``, …; camelCase, case and ``-`` do not matter) holds one whatever
  its value looks like.

False positives are kept in check by shape: a key needs the length its issuer gives it and a digit or a capital
(``sk-learn`` and ``sk-performance-monitoring`` are words), a ``Bearer`` credential 16 characters with a digit or
mixed case (prose about "bearer authentication" passes), a ``Basic`` credential base64 of ``user:password``.
``tests/recordings/test_secrets.py`` shows that nothing in the bundled recordings and tool definitions is taken for a secret.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from toolwire._common._json import pointer_token

__all__ = [
    "DETECTORS",
    "SECRET_HEADERS",
    "SECRET_NAME_HINT",
    "Detector",
    "find",
    "find_secrets",
    "is_secret_name",
    "masked",
    "masked_text",
    "may_hold_secret",
    "merge_spans",
]


@dataclass(frozen=True, slots=True)
class Detector:
    """One kind of secret: a regex, the group that is the secret itself, and a check of the candidate.

    Attributes:
        kind: What it finds, for reports (``"GitHub token"``).
        pattern: The regex; a match is a candidate.
        anchors: Text (lower case) every match holds one of: a text whose lower case holds none is not searched.
        group: The group that is the secret (``"secret"`` when the pattern has it: the text around it is context).
        accept: A further check of the secret's text; None accepts every match.
    """

    kind: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...]
    group: int | str = 0
    accept: Callable[[str], bool] | None = None


def _digit_or_capital(secret: str) -> bool:
    # Issued keys are random over letters of both cases and digits; words and slugs are lower case.
    return any(char.isdigit() or char.isupper() for char in secret.partition("-")[2] or secret)


def _bearer(secret: str) -> bool:
    return any(char.isdigit() for char in secret) or (
        any(char.isupper() for char in secret[1:]) and any(char.islower() for char in secret)
    )


def _basic(secret: str) -> bool:
    """Base64 of ``user:password`` in printable text: a word after "basic" is not."""
    try:
        decoded = base64.b64decode(secret + "=" * (-len(secret) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


_PEM_LABEL: Final = r"-----(?:BEGIN|END) (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
# The body is base64, line breaks and RFC 1421 headers (Proc-Type, DEK-Info); it runs to the END line, or stops where
# such text does, so a key cut short is still taken whole. No backslash: in JSON text the match stops at an escape
# (the decoded string is searched as well), so rewriting a match never splits one.
_PEM_BODY: Final = r"(?:[A-Za-z0-9+/=\s:,._()]|-(?!----))*"

#: Every detector, in the order their kinds are reported.
DETECTORS: Final[tuple[Detector, ...]] = (
    Detector(
        "Anthropic API key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{16,}"),
        ("sk-ant-",),
        accept=_digit_or_capital,
    ),
    Detector(
        "OpenAI API key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?!ant-)[A-Za-z0-9_-]{16,}"),
        ("sk-",),
        accept=_digit_or_capital,
    ),
    Detector("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), ("akia", "asia")),
    Detector(
        "AWS secret access key",
        re.compile(
            r"(?i:(?:aws_?)?secret_?access_?key)[\s\"'\\:=]{1,8}(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secretaccess", "secret_access"),
        group="secret",
    ),
    Detector("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), ("aiza",)),
    Detector(
        "GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Detector("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), ("xox",)),
    Detector("Stripe key", re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"), ("k_live_", "k_test_")),
    Detector("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), ("hf_",), accept=_digit_or_capital),
    Detector("JWT", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), ("eyj",)),
    Detector(
        "Bearer credential",
        re.compile(r"(?i:\bbearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"),
        ("bearer",),
        group="secret",
        accept=_bearer,
    ),
    Detector(
        "Basic credential",
        re.compile(r"(?i:\bbasic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"),
        ("basic",),
        group="secret",
        accept=_basic,
    ),
    Detector(
        "private key",
        re.compile(rf"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----{_PEM_BODY}(?:{_PEM_LABEL})?"),
        ("private key",),
    ),
)

# Text every detector's match contains (JSON escaping leaves it alone): one search rules most strings out.
_PREFILTER: Final = re.compile(
    r"sk-|AKIA|ASIA|AIza|gh[pousr]_|github_pat_|xox[abposr]-|[rs]k_(?:live|test)_|hf_|eyJ|PRIVATE KEY"
    r"|(?i:bearer|basic|secret_?access)"
)

#: HTTP headers (lower case) that carry credentials: never written, their values secrets wherever else they appear.
SECRET_HEADERS: Final = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie", "set-cookie"}
)

# Member names (snake case) that say their value is a secret, whole or as the last words of the name.
_SECRET_NAMES: Final = frozenset(
    {
        "password", "passwd", "passphrase", "secret", "client_secret", "api_secret", "app_secret", "secret_key",
        "secret_access_key", "aws_secret_access_key", "private_key", "token", "access_token", "refresh_token",
        "id_token", "auth_token", "bearer_token", "session_token", "aws_session_token", "api_token", "api_key",
        "apikey", "authorization", "proxy_authorization", "x_api_key", "x_goog_api_key", "cookie", "set_cookie",
    }
)  # fmt: skip
_SECRET_SUFFIXES: Final = (
    "_password", "_passwd", "_passphrase", "_secret", "_secret_key", "_private_key", "_api_key", "_apikey",
    "_access_token", "_refresh_token", "_auth_token", "_session_token",
)  # fmt: skip
_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS: Final = re.compile(r"[-\s.]+")

#: Text every secret member name contains, in any case: a text without it has no such member.
SECRET_NAME_HINT: Final = re.compile(r"(?i)pass|secret|token|key|auth|cookie")


def _snake(name: str) -> str:
    return _SEPARATORS.sub("_", _CAMEL.sub("_", name)).lower()


def is_secret_name(name: str) -> bool:
    """Whether a member named ``name`` holds a secret (``password``, ``clientSecret``, ``X-Api-Key``, ``db_password``).

    Example:
        >>> [is_secret_name(name) for name in ("refreshToken", "API-Key", "max_tokens", "token_count")]
        [True, True, False, False]
    """
    snake = _snake(name)
    return snake in _SECRET_NAMES or snake.endswith(_SECRET_SUFFIXES)


def may_hold_secret(text: str) -> bool:
    """Whether ``find`` may find anything in ``text`` (one search: False for most text)."""
    return _PREFILTER.search(text) is not None


def find(text: str) -> Iterator[tuple[int, int, str]]:
    """Every secret in a text, by its shape: ``(start, end, kind)`` of each, by detector then position.

    Spans of different detectors may overlap (``Bearer sk-…`` is both); ``merge_spans`` joins them.

    Example:
        >>> [(start, end, kind) for start, end, kind in find("key AKIAABCDEFGHIJKLMNOP here")]
        [(4, 24, 'AWS access key id')]
    """
    if not _PREFILTER.search(text):
        return
    lowered = text.lower()
    for detector in DETECTORS:
        if not any(anchor in lowered for anchor in detector.anchors):
            continue
        for match in detector.pattern.finditer(text):
            start, end = match.span(detector.group)
            if end > start and (detector.accept is None or detector.accept(text[start:end])):
                yield start, end, detector.kind


def merge_spans(spans: Iterator[tuple[int, int]] | list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Non-empty spans sorted, the overlapping ones joined (touching ones are kept apart)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(span for span in spans if span[1] > span[0]):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_SHOWN: Final = 4


def masked(secret: str) -> str:
    """The first characters of a secret and its length, enough to find it and too little to use it."""
    return f"{secret[:_SHOWN]}… ({len(secret)} characters)"


def _kinds(text: str) -> Iterator[tuple[str, str]]:
    for start, end, kind in find(text):
        yield kind, text[start:end]


def find_secrets(value: Any, pointer: str = "") -> Iterator[tuple[str, str, str]]:
    """Every credential-looking string inside a JSON value, for reports that must not repeat it.

    Args:
        value: A JSON value (dicts, lists, strings, numbers...).
        pointer: The JSON pointer of ``value`` itself.

    Yields:
        ``(pointer, kind, masked match)`` in document order; a key is reported at the pointer of its member.

    Example:
        >>> list(find_secrets({"default": "AKIAABCDEFGHIJKLMNOP"}))
        [('/default', 'AWS access key id', 'AKIA… (20 characters)')]
    """
    if not _PREFILTER.search(json.dumps(value, ensure_ascii=False, default=str)):
        return
    yield from _walk(value, pointer)


def _walk(value: Any, pointer: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, str):
        for kind, found in _kinds(value):
            yield pointer, kind, masked(found)
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{pointer}/{pointer_token(str(key))}"
            for kind, found in _kinds(str(key)):
                yield where, kind, masked(found)
            yield from _walk(item, where)
    elif isinstance(value, (list, tuple)):
        for position, item in enumerate(value):
            yield from _walk(item, f"{pointer}/{position}")


def masked_text(value: Any) -> Any:
    """``value`` (a string, or JSON data) with every secret replaced by its masked form, for messages and data."""
    if isinstance(value, str):
        spans = merge_spans([(start, end) for start, end, _ in find(value)])
        if not spans:
            return value
        out: list[str] = []
        position = 0
        for start, end in spans:
            out += [value[position:start], masked(value[start:end])]
            position = end
        return "".join([*out, value[position:]])
    if isinstance(value, dict):
        return {masked_text(key): masked_text(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [masked_text(item) for item in value]
    return value
