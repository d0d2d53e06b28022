"""What a writer redacts: the built-in detectors (``toolwire._common._secrets``), secrets learnt from headers, and yours.

A ``Redactor`` finds secrets in a text (``spans``) and says which member names hold one (``secret_name``); writers
choose how to rewrite them: recordings replace every character of a secret by ``*`` (``mask``, ``mask_value``), so
that a stream keeps its framing; ``CallLog`` and ``toolwire sample`` replace a secret by ``[REDACTED]``
(``replace``).

Headers named like ``SECRET_HEADERS`` (any case) are never written, and their values (and the credential after a
scheme such as ``Bearer``, and each cookie's value), when 8 characters or longer, are secrets wherever else they
appear.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolwire._common._secrets import (
    SECRET_HEADERS,
    SECRET_NAME_HINT,
    find,
    is_secret_name,
    may_hold_secret,
    merge_spans,
)

__all__ = ["MASK", "REDACTED", "Redactor", "compile_patterns", "mask_number", "split_headers"]

#: What a secret is replaced by in call logs and fixtures.
REDACTED: Final = "[REDACTED]"
#: What each character of a secret becomes in a recording.
MASK: Final = "*"

# Shorter header values are too likely to occur by chance in ordinary text to be replaced everywhere.
_MIN_LITERAL: Final = 8


def compile_patterns(redact: Iterable[str | re.Pattern[str]]) -> list[re.Pattern[str]]:
    """The ``redact=`` regexes, compiled and checked.

    Raises:
        TypeError: An item is neither a string nor a compiled ``str`` pattern (its index named).
        ValueError: An item is not a valid regular expression.
    """
    if isinstance(redact, (str, re.Pattern)):
        redact = (redact,)
    patterns: list[re.Pattern[str]] = []
    for number, pattern in enumerate(redact):
        if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str):
            patterns.append(pattern)
        elif isinstance(pattern, str):
            try:
                patterns.append(re.compile(pattern))
            except re.error as error:
                raise ValueError(f"redact[{number}] is not a regular expression: {error} in {pattern!r}") from None
        else:
            raise TypeError(f"redact[{number}] must be a str regex or a compiled str pattern; got {pattern!r:.60}")
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


def mask_number(spelling: str) -> str:
    """A number's spelling with its digits masked, still a JSON number (``-4821.5`` gives ``-1000.0``).

    A multi-digit integer part becomes ``1`` and ``0``s (no leading zero), every other digit ``0``.
    """
    out: list[str] = []
    integer = True
    first = True
    for position, char in enumerate(spelling):
        if not char.isdigit():
            integer = integer and char == "-"
            out.append(char)
            continue
        longer = position + 1 < len(spelling) and spelling[position + 1].isdigit()
        out.append("1" if integer and first and longer else "0")
        first = False
    return "".join(out)


class Redactor:
    """The secrets one writer looks for: the built-in detectors, literal secrets, and ``redact=`` patterns.

    Attributes:
        patterns: The ``redact=`` patterns.
        names: Member names (lower case, ``-`` read as ``_``) whose values are secrets, on top of the built-in ones.
        hint: A regex every secret member name's spelling matches, or None (any key may be one).
    """

    def __init__(
        self, patterns: Iterable[re.Pattern[str]] = (), literals: Iterable[str] = (), names: Iterable[str] = ()
    ) -> None:
        """Combine the compiled ``redact=`` patterns, the literal secrets of dropped headers and more secret names."""
        ordered = sorted(set(literals), key=lambda literal: (-len(literal), literal))
        self.patterns = list(patterns)
        if ordered:
            self.patterns.insert(0, re.compile("|".join(map(re.escape, ordered))))
        self.names = frozenset(_normal(name) for name in names)
        # Keys whose spelling misses every built-in secret name's letters need no decoding, unless names were added.
        self.hint = None if self.names else SECRET_NAME_HINT

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the secrets of a text are: sorted, overlapping ones joined."""
        found = [(start, end) for start, end, _ in find(text)] if may_hold_secret(text) else []
        for pattern in self.patterns:
            found += [match.span() for match in pattern.finditer(text)]
        return merge_spans(found) if found else found

    def may_hold(self, spelling: str) -> bool:
        r"""Whether JSON text may hold a secret in a string, decoded once or twice: False only when it cannot.

        Every detector's match holds a literal (``sk-``, ``AKIA``, ``bearer``...) that only a ``\u`` escape could
        hide, so text without either holds no match; secret member names are looked for likewise. Patterns of yours
        and literal secrets may match anything decoded: text is then always searched.
        """
        return bool(
            self.patterns
            or "\\u" in spelling
            or may_hold_secret(spelling)
            or self.hint is None
            or self.hint.search(spelling)
        )

    def secret_name(self, name: str) -> bool:
        """Whether a member named ``name`` holds a secret."""
        return _named_secret(name) or (bool(self.names) and _normal(name) in self.names)

    def replace(self, text: str) -> str:
        """The text with every secret replaced by ``[REDACTED]``."""
        return _rewrite(text, self.spans(text), lambda secret: REDACTED)

    def mask(self, text: str) -> str:
        """The text with every character of every secret replaced by ``*``."""
        return _rewrite(text, self.spans(text), lambda secret: MASK * len(secret))

    def mask_value(self, value: Any, *, secret: bool = False) -> Any:
        """A JSON value with every string masked (keys too), and the values of secret-named members masked whole.

        A secret member's string or number is masked whole (a number keeps its shape, see ``mask_number``), and so
        is every string or number in an array there; an object there is not, its own keys decide (the same rule as
        for recorded streams, so that a manifest's ``expected`` calls read as the recording replays).
        """
        if isinstance(value, str):
            return MASK * len(value) if secret else self.mask(value)
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (int, float)):
            return type(value)(mask_number(str(value))) if secret else value
        if isinstance(value, Mapping):
            return {
                self.mask(str(key)): self.mask_value(item, secret=self.secret_name(str(key)))
                for key, item in value.items()
            }
        if isinstance(value, (list, tuple)):
            return [self.mask_value(item, secret=secret) for item in value]
        return value


# Member names repeat from call to call: the answer for each is kept (the cache is bounded).
_named_secret: Final = functools.lru_cache(maxsize=4096)(is_secret_name)


def _normal(name: str) -> str:
    return name.lower().replace("-", "_")


def _rewrite(text: str, spans: list[tuple[int, int]], replacement: Any) -> str:
    if not spans:
        return text
    out: list[str] = []
    position = 0
    for start, end in spans:
        out += [text[position:start], replacement(text[start:end])]
        position = end
    out.append(text[position:])
    return "".join(out)
