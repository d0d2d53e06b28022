"""Secrets out of recordings: which headers are dropped, and what is replaced by ``[REDACTED]`` where.

Redaction. Headers named ``authorization``, ``x-api-key``, ``api-key``, ``proxy-authorization``, ``cookie`` or
``set-cookie`` (any case) are dropped, and their values (and the credential after a scheme such as ``Bearer``, and
each cookie's value), when 8 characters or longer, are replaced by ``[REDACTED]`` wherever else they appear. So are
the built-in secret patterns (OpenAI ``sk-…`` and Anthropic ``sk-ant-…`` keys, ``Bearer <token>``, AWS access key
ids ``AKIA…``/``ASIA…``, Google ``AIza…`` keys) and every ``redact=`` regex: in the stream bytes (matched across read
boundaries; a read boundary inside a secret moves to its end), in the chunks, and in every string of the manifest,
keys included. Manifest values under a key named like one of those headers, or ``api_key``/``apikey``, are replaced
whole. The consumer of ``Recorder.tee`` still gets the bytes unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["REDACTED", "SECRET_HEADERS", "Redactor", "compile_patterns", "split_headers"]

#: What a secret is replaced by.
REDACTED: Final = "[REDACTED]"

#: Header names (lower case) that are never written.
SECRET_HEADERS: Final = frozenset(
    {"authorization", "x-api-key", "api-key", "proxy-authorization", "cookie", "set-cookie"}
)

# Manifest keys (lower case, "-" read as "_") whose values are replaced whole.
_SECRET_KEYS: Final = frozenset({name.replace("-", "_") for name in SECRET_HEADERS} | {"api_key", "apikey"})

BUILTIN_PATTERNS: Final = (
    r"(?<![A-Za-z0-9_-])sk-(?:ant-)?[A-Za-z0-9_-]{16,}",  # OpenAI sk-/sk-proj-, Anthropic sk-ant-api03- keys
    r"(?i:\bbearer)\s+[A-Za-z0-9._~+/-]{8,}=*",  # an Authorization credential quoted in text
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
)
# Shorter header values are too likely to occur by chance in ordinary text to be replaced everywhere.
_MIN_LITERAL: Final = 8


def compile_patterns(redact: Iterable[str | re.Pattern[str]]) -> list[re.Pattern[str]]:
    """The ``redact=`` regexes, compiled and checked (each must also run over bytes).

    Raises:
        TypeError: An item is neither a string nor a compiled ``str`` pattern (its index named).
        ValueError: An item is not a valid regular expression, or cannot run over bytes.
    """
    if isinstance(redact, (str, re.Pattern)):
        redact = (redact,)
    patterns: list[re.Pattern[str]] = []
    for number, pattern in enumerate(redact):
        if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str):
            compiled = pattern
        elif isinstance(pattern, str):
            try:
                compiled = re.compile(pattern)
            except re.error as error:
                raise ValueError(f"redact[{number}] is not a regular expression: {error} in {pattern!r}") from None
        else:
            raise TypeError(f"redact[{number}] must be a str regex or a compiled str pattern; got {pattern!r:.60}")
        _bytes_twin(compiled, f"redact[{number}]")
        patterns.append(compiled)
    return patterns


def split_headers(headers: object) -> tuple[dict[str, str], set[str]]:
    """Split HTTP headers into those kept and the secrets found in the dropped ones.

    Args:
        headers: A mapping (``httpx.Headers`` too) or ``(name, value)`` pairs, or None.

    Returns:
        The headers to keep (names as given), and the literal secrets to replace everywhere else: each dropped value,
        the credential after its scheme (``Bearer``, ``Basic``) and each cookie's value, those of 8 characters or more.

    Raises:
        TypeError: ``headers`` is not a mapping or pairs of strings.
    """
    if headers is None:
        return {}, set()
    items = headers.items() if isinstance(headers, Mapping) else headers
    if not isinstance(items, Iterable) or isinstance(items, (str, bytes)):
        raise TypeError(f"headers must be a mapping or (name, value) pairs; got {type(headers).__name__}")
    kept: dict[str, str] = {}
    found: set[str] = set()
    for pair in items:
        name, value = pair
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"headers: names and values must be strings; got {name!r:.40}: {value!r:.40}")
        if name.lower() not in SECRET_HEADERS:
            kept[name] = value
            continue
        found |= {value.strip(), value.strip().rpartition(" ")[2]}
        found |= {cookie.partition("=")[2].strip() for cookie in value.split(";")}
    return kept, {literal for literal in found if len(literal) >= _MIN_LITERAL}


def _bytes_twin(pattern: re.Pattern[str], where: str) -> re.Pattern[bytes]:
    """The same regex over bytes (UTF-8), to redact raw stream bytes that need not be valid UTF-8 per read."""
    try:
        # re.UNICODE is implied for str patterns and refused for bytes ones.
        return re.compile(pattern.pattern.encode("utf-8"), pattern.flags & ~re.UNICODE)
    except re.error as error:
        raise ValueError(f"{where} cannot be applied to stream bytes: {error} in {pattern.pattern!r}") from None


class Redactor:
    """Replaces secrets in text, in bytes (keeping read boundaries) and in JSON values.

    Literal secrets go first, longest first (so a value is not half-replaced by a pattern matching its start), then
    the built-in patterns, then the ``redact=`` ones.
    """

    def __init__(self, patterns: list[re.Pattern[str]], literals: Iterable[str]) -> None:
        """Combine the compiled ``redact=`` patterns with the literal secrets of the dropped headers."""
        ordered = sorted(set(literals), key=lambda literal: (-len(literal), literal))
        self.text_patterns = [re.compile(re.escape(literal)) for literal in ordered]
        self.text_patterns += [re.compile(pattern) for pattern in BUILTIN_PATTERNS]
        self.text_patterns += patterns
        self.byte_patterns = [_bytes_twin(pattern, "a redact pattern") for pattern in self.text_patterns]

    def text(self, text: str) -> str:
        """Text with every match replaced (empty matches leave it as it is)."""
        for pattern in self.text_patterns:
            text = pattern.sub(lambda match: REDACTED if match.group() else "", text)
        return text

    def data(self, data: bytes, cuts: list[int]) -> tuple[bytes, list[int]]:
        """Redact bytes; ``cuts`` are read boundaries (offsets, ascending), returned moved to the new bytes."""
        for pattern in self.byte_patterns:
            spans = [match.span() for match in pattern.finditer(data) if match.end() > match.start()]
            if spans:
                data, cuts = _replace(data, spans, cuts)
        return data, cuts

    def value(self, value: Any) -> Any:
        """A JSON value with every string and key redacted, and strings under secret-named keys replaced whole."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                self.text(key): REDACTED
                if isinstance(item, str) and key.lower().replace("-", "_") in _SECRET_KEYS
                else self.value(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value


def _replace(data: bytes, spans: list[tuple[int, int]], cuts: list[int]) -> tuple[bytes, list[int]]:
    """Replace non-overlapping ascending spans by ``[REDACTED]``; a cut inside a span moves to its replacement's end."""
    marker = REDACTED.encode()
    out = bytearray()
    moved: list[int] = []
    position = 0
    shift = 0
    pending = iter(cuts)
    cut = next(pending, None)
    for start, end in spans:
        while cut is not None and cut <= start:
            moved.append(cut + shift)
            cut = next(pending, None)
        out += data[position:start] + marker
        shift += len(marker) - (end - start)
        while cut is not None and cut < end:
            moved.append(len(out))
            cut = next(pending, None)
        position = end
    out += data[position:]
    while cut is not None:
        moved.append(cut + shift)
        cut = next(pending, None)
    return bytes(out), moved
