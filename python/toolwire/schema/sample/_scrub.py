"""Identifier-like values out of a fixture, replaced by stable placeholders of the same JSON type and format.

Two kinds of rules, both configurable (``Scrub``):

- **Fields**: the whole value of a member whose key matches (at any depth; case, ``-``/``_`` and camelCase do not
  matter: ``userId`` is ``user_id``; ``*`` is a wildcard) is replaced; inside an object or array under such a key,
  every string and integer is. The default list (``DEFAULT_FIELDS``) is ids (``id``, ``*_id``, ``*_ids``, ``uuid``,
  ``guid``), contact details (``email``, ``phone``, ``mobile``, ``address``...), names of people (``first_name``,
  ``last_name``, ``full_name``, ``username``, ``customer_name``...; a bare ``name`` is not in it, because it names
  files, products and cities as often as people: add it with ``--scrub-field name``), government and bank numbers,
  network addresses, and credentials. Members whose name says they hold a secret (``toolwire._common._secrets``:
  ``password``, ``token``, ``client_secret``, ``api_key``...) are scrubbed whatever the rules.
- **Patterns**: matches inside any string (and key) are replaced, the rest of the string kept: emails, UUIDs,
  phone numbers (international ``+...`` or ``(415) 555-0132``/``415-555-0132``), IPv4 addresses, runs of 9 or more
  digits, and every secret the detectors of ``toolwire._common._secrets`` find (API keys and tokens, JWTs, ``Basic`` and
  ``Bearer`` credentials, PEM private keys), which are scrubbed whatever the rules; plus your own regexes.

Placeholders keep the type and the format, so a schema that checked the original still accepts the placeholder:
an email becomes ``user-0001@example.com``, a UUID ``00000000-0000-4000-8000-000000000001``, a phone number the same
punctuation with ``555`` digits, an IPv4 address one of the documentation ranges (``192.0.2.1``), a digit run the same
number of digits, an integer under a scrubbed key an integer with as many digits; any other string under a scrubbed
key ``<key>-0001`` (``user_id`` gives ``user-0001``, ``order_id`` ``order-0001``); a secret ``[REDACTED]``; a match of
your own pattern ``scrubbed-0001``. The same original value gets the same placeholder everywhere in one run, and a
value replaced under a scrubbed key (4 characters or more) is also replaced where it appears inside other strings,
so references between calls and fields stay consistent. When a readable placeholder breaks the schema (a
``pattern``, a length), the sampler asks for a same-shape one instead (digits for digits, letters ``a``-``f`` for
letters in their case, the rest kept: a hex id stays hex).

Values at a pointer the schema pins to listed values (``enum``/``const``) are never scrubbed: they are the schema's,
not a person's. Booleans, nulls and non-integer numbers are kept.
"""

from __future__ import annotations

import fnmatch
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolwire._common._json import pointer_token
from toolwire._common._jsontree import Number, Pairs, dump_tree, parse_tree
from toolwire._common._redact import REDACTED
from toolwire._common._secrets import find, is_secret_name, merge_spans

__all__ = ["DEFAULT_FIELDS", "DEFAULT_PATTERNS", "Scrub", "Scrubber"]

#: Key names whose values are replaced whole (see the module docstring for the matching rules).
DEFAULT_FIELDS: Final = (
    "id", "*_id", "ids", "*_ids", "uuid", "*_uuid", "guid", "*_guid",
    "email", "*_email", "email_address", "emails", "phone", "*_phone", "phone_number", "*_phone_number", "mobile",
    "telephone", "fax", "address", "*_address", "street", "street_address", "postal_address",
    "first_name", "last_name", "middle_name", "full_name", "given_name", "family_name", "surname", "maiden_name",
    "username", "user_name", "login", "display_name", "screen_name", "customer_name", "contact_name",
    "recipient_name", "sender_name", "patient_name", "employee_name", "account_name", "person", "person_name",
    "ssn", "social_security_number", "tax_id", "national_id", "passport", "passport_number", "driver_license",
    "iban", "bic", "account_number", "card_number", "credit_card", "routing_number",
    "date_of_birth", "dob", "birth_date", "birthdate", "ip", "ip_address", "mac_address",
    "password", "passwd", "secret", "token", "*_token", "api_key", "apikey", "authorization", "cookie",
)  # fmt: skip

_EMAIL: Final = r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
_UUID: Final = r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
_IPV4: Final = r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.])"
_PHONE: Final = (
    r"(?<![\w+])\+\d(?:[\s().-]{0,2}\d){6,14}(?!\d)"  # international: +1 415 555 0132, +44 (20) 7946-0958
    r"|(?<!\w)\(\d{3}\)\s?\d{3}[\s.-]\d{4}(?!\d)"  # (415) 555-0132
    r"|(?<![\w-])\d{3}[.-]\d{3}[.-]\d{4}(?![\w-])"  # 415-555-0132, 415.555.0132
)
_DIGITS: Final = r"(?<!\d)\d{9,}(?!\d)"

#: The built-in value patterns, in the order they claim a span (the first to match a span keeps it); secrets (found
#: by ``toolwire._common._secrets``) claim theirs before all of them, and are scrubbed even with ``defaults=False``.
DEFAULT_PATTERNS: Final = (
    ("email", _EMAIL),
    ("uuid", _UUID),
    ("ipv4", _IPV4),
    ("phone", _PHONE),
    ("digits", _DIGITS),
)
_WHOLE: Final = tuple((kind, re.compile(pattern)) for kind, pattern in DEFAULT_PATTERNS)
_INTEGER: Final = re.compile(r"-?\d+")
# A scrubbed value shorter than this is not looked for inside other strings: "42" would hit too much by chance.
_MIN_LITERAL: Final = 4


def _snake(key: str) -> str:
    """``userId``, ``User-ID`` and ``user_id`` all as ``user_id``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower().replace("-", "_").replace(" ", "_")


@dataclass(frozen=True)
class Scrub:
    """What ``sample_calls`` scrubs.

    Attributes:
        fields: Key names (``*`` wildcards) whose values are replaced whole, added to ``DEFAULT_FIELDS``.
        patterns: Regexes whose matches inside strings are replaced, added to the built-in value patterns.
        defaults: Whether ``DEFAULT_FIELDS`` and the built-in patterns apply (secrets always are scrubbed: what the
            detectors find, and the values of secret-named members).
        keep_ids: Keep the calls' own ids instead of numbering them ``call-0001``, ``call-0002``...
    """

    fields: tuple[str, ...] = ()
    patterns: tuple[str | re.Pattern[str], ...] = ()
    defaults: bool = True
    keep_ids: bool = False

    def __post_init__(self) -> None:
        """Check the fields and compile the patterns (errors name the index)."""
        for number, name in enumerate(self.fields):
            if not isinstance(name, str) or not name:
                raise TypeError(f"scrub fields[{number}] must be a non-empty key name; got {name!r:.60}")
        for number, pattern in enumerate(self.patterns):
            if isinstance(pattern, str):
                try:
                    re.compile(pattern)
                except re.error as error:
                    raise ValueError(
                        f"scrub patterns[{number}] {pattern!r} is not a regular expression: {error}"
                    ) from None
            elif not (isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str)):
                raise TypeError(f"scrub patterns[{number}] must be a str regex or a compiled str pattern")


class _FieldMatcher:
    def __init__(self, names: Iterable[str]) -> None:
        exact: set[str] = set()
        globs: list[str] = []
        for name in names:
            normal = _snake(name)
            if "*" in normal or "?" in normal:
                globs.append(normal)
            else:
                exact.add(normal)
        self.exact = frozenset(exact)
        self.globs = tuple(globs)

    def __call__(self, key: str) -> bool:
        normal = _snake(key)
        return normal in self.exact or any(fnmatch.fnmatchcase(normal, glob) for glob in self.globs)


def _prefix(key: str) -> str:
    """The placeholder prefix a scrubbed key gives: ``user_id`` -> ``user``, ``first_name`` -> ``first-name``."""
    normal = _snake(key)
    for suffix in ("_ids", "_id", "_uuid", "_guid"):
        if normal.endswith(suffix) and len(normal) > len(suffix):
            normal = normal[: -len(suffix)]
            break
    words = re.sub(r"[^a-z0-9]+", "-", normal).strip("-")
    return words or "value"


def _classify(text: str) -> str | None:
    """The built-in kind a whole string is (``secret``, ``email``, ``uuid``...), or None."""
    if any(start == 0 and end == len(text) for start, end, _ in find(text)):
        return "secret"
    for kind, pattern in _WHOLE:
        if pattern.fullmatch(text):
            return kind
    return None


def _phone(text: str, number: int) -> str:
    digits = sum(char.isdigit() for char in text)
    tail = str(number)
    fill = ("555" + "0" * digits)[:digits]
    fill = (fill[: max(0, digits - len(tail))] + tail)[-digits:]
    spread = iter(fill)
    return "".join(next(spread) if char.isdigit() else char for char in text)


def _ipv4(number: int) -> str:
    if number <= 254:
        return f"192.0.2.{number}"
    if number <= 508:
        return f"198.51.100.{number - 254}"
    if number <= 762:
        return f"203.0.113.{number - 508}"
    return f"10.{(number >> 16) & 255}.{(number >> 8) & 255}.{number & 255}"


def _shape(text: str, number: int) -> str:
    """A same-shape placeholder: digits for digits, ``a``-``f`` for letters (case kept), everything else as it was."""
    draw = random.Random(f"toolwire-sample-shape-{number}")
    out = []
    for char in text:
        if char.isdigit():
            out.append(draw.choice("0123456789"))
        elif char.isascii() and char.islower():
            out.append(draw.choice("abcdef"))
        elif char.isascii() and char.isupper():
            out.append(draw.choice("ABCDEF"))
        else:
            out.append(char)
    return "".join(out)


class Scrubber:
    """One run's placeholders: the same original always gets the same one.

    Use ``register`` over every call first (it learns the values replaced under scrubbed keys, so that they can be
    found inside other strings), then ``arguments`` for each call's new text.
    """

    def __init__(self, scrub: Scrub, pinned: Mapping[str, set[str]], shaped: set[str] | None = None) -> None:
        """Rules, the pinned pointers per tool, and the originals that need a same-shape placeholder."""
        self.fields = _FieldMatcher((DEFAULT_FIELDS if scrub.defaults else ()) + scrub.fields)
        self.patterns: list[tuple[str, re.Pattern[str]]] = list(_WHOLE if scrub.defaults else ())
        self.patterns += [("custom", re.compile(pattern)) for pattern in scrub.patterns]
        self.pinned = pinned
        self.shaped = shaped if shaped is not None else set()
        self.table: dict[str, str] = {}
        self.integers: dict[int, int] = {}
        self.counters: Counter[str] = Counter()
        self.literals: re.Pattern[str] | None = None
        self.literal_text: dict[str, str] = {}

    def _next(self, kind: str) -> int:
        self.counters[kind] += 1
        return self.counters[kind]

    def _string(self, text: str, kind: str | None, prefix: str) -> str:
        """The placeholder of a whole string (``kind`` a built-in kind, or None for a key's prefix placeholder)."""
        if text in self.table:
            return self.table[text]
        if text in self.shaped:
            placeholder = _shape(text, self._next("shape"))
            while placeholder == text and any(char.isascii() and char.isalnum() for char in text):
                placeholder = _shape(text, self._next("shape"))
        elif kind == "secret":
            placeholder = REDACTED
        elif kind == "email":
            placeholder = f"user-{self._next('email'):04d}@example.com"
        elif kind == "uuid":
            placeholder = f"00000000-0000-4000-8000-{self._next('uuid'):012d}"
        elif kind == "ipv4":
            placeholder = _ipv4(self._next("ipv4"))
        elif kind == "phone":
            placeholder = _phone(text, self._next("phone"))
        elif kind == "digits":
            placeholder = str(self._next("digits")).zfill(len(text))[-len(text) :]
        else:
            placeholder = f"{prefix}-{self._next(prefix):04d}"
        self.table[text] = placeholder
        return placeholder

    def _integer(self, value: int) -> int:
        if value not in self.integers:
            digits = len(str(abs(value)))
            placeholder = abs(value)
            # A placeholder that happens to equal the original (the id 1, counted first) would hide nothing.
            while placeholder == abs(value):
                number = self._next("integer")
                fits = digits > 1 and number < 9 * 10 ** (digits - 1)
                placeholder = 10 ** (digits - 1) + number if fits else number
            self.integers[value] = -placeholder if value < 0 else placeholder
        return self.integers[value]

    def _claims(self, text: str) -> list[tuple[int, int, str]]:
        """Every span a rule claims, by kind: known literals first, then secrets, then the patterns in order."""
        rules: list[tuple[str, list[tuple[int, int]]]] = []
        if self.literals is not None:
            rules.append(("literal", [match.span() for match in self.literals.finditer(text)]))
        rules.append(("secret", merge_spans([(start, end) for start, end, _ in find(text)])))
        rules += [(kind, [match.span() for match in pattern.finditer(text)]) for kind, pattern in self.patterns]
        taken: list[tuple[int, int, str]] = []
        for kind, spans in rules:
            for start, end in spans:
                if end > start and all(end <= s or start >= e for s, e, _ in taken):
                    taken.append((start, end, kind))
        return taken

    def _spans(self, text: str, used: list[tuple[str, str]], pointer: str) -> str:
        """A string with every pattern (and known literal) match replaced; the first rule to claim a span keeps it."""
        taken = self._claims(text)
        if not taken:
            return text
        out = []
        position = 0
        for start, end, kind in sorted(taken):
            original = text[start:end]
            used.append((pointer, original))
            if kind == "literal":
                replacement = self.literal_text[original]
            elif kind == "custom":
                replacement = self._string(original, _classify(original), "scrubbed")
            else:
                replacement = self._string(original, kind, "value")
            out.append(text[position:start] + replacement)
            position = end
        out.append(text[position:])
        return "".join(out)

    def _tree(
        self, value: Any, tool: str, pointer: str, real: str, prefix: str | None, used: list[tuple[str, str]]
    ) -> Any:
        pinned = self.pinned.get(tool, set())
        if pointer in pinned:
            return value
        if isinstance(value, Pairs):
            out = Pairs()
            for key, item in value:
                scrubbed = self.fields(key) or is_secret_name(key)
                child_prefix = prefix if prefix is not None else (_prefix(key) if scrubbed else None)
                token = pointer_token(key)
                new_key = self._spans(key, used, real)
                out.append(
                    (new_key, self._tree(item, tool, f"{pointer}/{token}", f"{real}/{token}", child_prefix, used))
                )
            return out
        if isinstance(value, list):
            return [
                self._tree(item, tool, f"{pointer}/*", f"{real}/{index}", prefix, used)
                for index, item in enumerate(value)
            ]
        if isinstance(value, str):
            if prefix is None or not value:
                return self._spans(value, used, real)
            used.append((real, value))
            return self._string(value, _classify(value), prefix)
        if isinstance(value, Number) and prefix is not None and _INTEGER.fullmatch(value.text):
            used.append((real, value.text))
            return Number(str(self._integer(int(value.text))))
        return value

    def register(self, tool: str, arguments: str) -> None:
        """Learn the placeholders of one call (call on every call before ``seal`` and ``arguments``)."""
        self.arguments(tool, arguments)

    def seal(self) -> None:
        """Look for every value replaced under a scrubbed key inside other strings from now on."""
        texts = {original: placeholder for original, placeholder in self.table.items() if len(original) >= _MIN_LITERAL}
        for value, placeholder in self.integers.items():
            if len(str(value)) >= _MIN_LITERAL:
                texts.setdefault(str(value), str(placeholder))
        self.literal_text = texts
        if texts:
            alternatives = "|".join(re.escape(text) for text in sorted(texts, key=lambda text: (-len(text), text)))
            self.literals = re.compile(f"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])")

    def arguments(self, tool: str, text: str) -> tuple[str, list[tuple[str, str]]]:
        """The scrubbed arguments text of one call (the same text when nothing was replaced).

        Returns:
            The text, and each replaced value's JSON pointer (array indices as numbers) with its original text.
        """
        used: list[tuple[str, str]] = []
        try:
            tree = parse_tree(text)
        except ValueError:
            # Arguments that are not JSON (sampled with the invalid calls): the patterns still apply to the text.
            return self._spans(text, used, ""), used
        scrubbed = self._tree(tree, tool, "", "", None, used)
        return (dump_tree(scrubbed) if used else text), used

    def counts(self) -> dict[str, int]:
        """Placeholders made, per kind or key prefix."""
        return dict(sorted(self.counters.items()))
