"""Credentials written into tool definitions: ``check``'s ``secret-in-schema`` rule.

A tool's description, defaults, enums, ``const`` values and examples are copied into every prompt, log and trace
that carries the tool, so a key pasted there leaks everywhere the tools go. ``find_secrets`` walks every string of a
JSON value (keys too) and reports each match of ``SECRET_PATTERNS`` with its JSON pointer and kind, never the
secret itself: the report is meant for CI logs and pull-request comments.

The patterns that recordings already redact (``toolstream._redact.BUILTIN_PATTERNS``: OpenAI and Anthropic keys, AWS
access key ids, Google API keys) are used as they are, ``Bearer`` credentials more strictly (16 characters with a
digit, so that prose about bearer tokens passes); GitHub and Slack tokens, PEM private keys and JWTs are added here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final

from toolstream._redact import BUILTIN_PATTERNS

__all__ = ["SECRET_PATTERNS", "find_secrets", "masked", "masked_text"]

_SK, _, _AWS, _GOOGLE = BUILTIN_PATTERNS
# Stricter than the recordings' Bearer pattern, which may over-redact: prose such as "bearer authentication" must
# not fail a check, so the credential needs 16 characters and a digit.
_BEARER: Final = r"(?i:\bbearer)\s+(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{16,}=*"

#: What a secret looks like, by kind; an OpenAI-shaped match starting ``sk-ant-`` is reported as Anthropic's.
SECRET_PATTERNS: Final[dict[str, re.Pattern[str]]] = {
    "OpenAI API key": re.compile(_SK),
    "Bearer credential": re.compile(_BEARER),
    "AWS access key id": re.compile(_AWS),
    "Google API key": re.compile(_GOOGLE),
    "GitHub token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    "Slack token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "private key": re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    "JWT": re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
}

_SHOWN: Final = 4
# Text every pattern's match contains, unchanged by JSON escaping: one search over a whole definition's JSON text
# rules most definitions out before their strings are walked one by one.
_PREFILTER: Final = re.compile(r"(?i:bearer)|sk-|AKIA|ASIA|AIza|gh[pousr]_|github_pat_|xox|PRIVATE KEY|eyJ")


def masked(secret: str) -> str:
    """The first characters of a secret and its length, enough to find it and too little to use it."""
    return f"{secret[:_SHOWN]}… ({len(secret)} characters)"


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def _kinds(text: str) -> Iterator[tuple[str, str]]:
    for kind, pattern in SECRET_PATTERNS.items():
        for match in pattern.finditer(text):
            found = match.group()
            yield ("Anthropic API key" if found.startswith("sk-ant-") else kind), found


def find_secrets(value: Any, pointer: str = "") -> Iterator[tuple[str, str, str]]:
    """Every credential-looking string inside a JSON value.

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
            where = f"{pointer}/{_escape(str(key))}"
            for kind, found in _kinds(str(key)):
                yield where, kind, masked(found)
            yield from _walk(item, where)
    elif isinstance(value, (list, tuple)):
        for position, item in enumerate(value):
            yield from _walk(item, f"{pointer}/{position}")


def masked_text(value: Any) -> Any:
    """``value`` (a string, or JSON data) with every secret replaced by its masked form, for messages and data."""
    if isinstance(value, str):
        if not _PREFILTER.search(value):
            return value
        for pattern in SECRET_PATTERNS.values():
            value = pattern.sub(lambda match: masked(match.group()), value)
        return value
    if isinstance(value, dict):
        return {masked_text(key): masked_text(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [masked_text(item) for item in value]
    return value
