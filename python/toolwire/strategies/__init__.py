r"""Hypothesis strategies for testing tool handlers and stream handling: valid and hostile arguments, quirky streams.

``arguments(tool)`` generates arguments a tool's schema accepts, to test that a handler does what it should with
every one of them; ``hostile_arguments(tool)`` generates arguments the schema still accepts but that carry what the
handler must refuse on its own (path traversal, SQL and shell fragments, prompt injection, URLs and e-mail addresses
outside an allowed set, extreme numbers and lengths); ``streams(calls, format=...)`` renders calls into the streams
providers really send, fragmented and interleaved, with placeholders and noise, so that stream handling can be
fuzzed. The project's own property tests draw their streams from the same renderers.

This module needs hypothesis (``pip install 'toolwire[strategies]'``); ``import toolwire`` does not.

Example:
    >>> from hypothesis import given, settings
    >>> import toolwire
    >>> from toolwire.strategies import arguments, hostile_arguments
    >>> tool = toolwire.Tool(
    ...     "read_file",
    ...     parameters={
    ...         "type": "object",
    ...         "properties": {"path": {"type": "string", "maxLength": 200}},
    ...         "required": ["path"],
    ...         "additionalProperties": False,
    ...     },
    ... )
    >>> import re
    >>> def read_file(path):  # the handler under test: it must keep to its base directory
    ...     if ".." in path or not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", path):
    ...         return "refused"
    ...     return "ok"
    >>> @settings(max_examples=50)
    ... @given(arguments(tool))
    ... def test_any_valid_arguments(args):
    ...     assert read_file(**args) in ("ok", "refused")
    >>> test_any_valid_arguments()
    >>> @settings(max_examples=50)
    ... @given(hostile_arguments(tool, categories=["path_traversal"]))
    ... def test_traversal_is_refused(args):  # most draws carry a payload; some stay plain, as real traffic does
    ...     if ".." in args["path"] or args["path"].startswith(("/", "~", "\\", "C:")):
    ...         assert read_file(**args) == "refused"
    >>> test_traversal_is_refused()
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401  (the import that fails without the extra, with a hint)
except ImportError as error:  # pragma: no cover - exercised only without hypothesis installed
    raise ImportError(
        "toolwire.strategies needs hypothesis: pip install 'toolwire[strategies]' (or hypothesis>=6)"
    ) from error

from collections.abc import Collection, Iterable
from typing import Any
from urllib.parse import urlsplit

from hypothesis import strategies as st

from toolwire.registry import Tool, ToolRegistry
from toolwire.strategies._hostile import CATEGORIES as _CATEGORIES
from toolwire.strategies._hostile import HostileOptions
from toolwire.strategies._schema import SUPPORTED_FORMATS, Compiler, UnsupportedSchemaError
from toolwire.strategies._streams import DIALECT_FORMATS, STREAM_FORMATS, streams

__all__ = [
    "DIALECT_FORMATS",
    "HOSTILE_CATEGORIES",
    "STREAM_FORMATS",
    "SUPPORTED_FORMATS",
    "UnsupportedSchemaError",
    "arguments",
    "hostile_arguments",
    "streams",
]

#: The hostile catalogue: category name -> what its values carry (see ``hostile_arguments``).
HOSTILE_CATEGORIES: dict[str, str] = dict(_CATEGORIES)


def _one_tool(tool: object) -> Tool:
    """The one function tool ``tool`` is, or names."""
    if isinstance(tool, Tool):
        return tool
    registry = ToolRegistry.load(tool)
    tools = list(registry)
    if len(tools) != 1:
        names = ", ".join(repr(t.name) for t in tools) or "none"
        example = f"registry[{tools[0].name!r}]" if tools else "toolwire.Tool(name, parameters=...)"
        raise ValueError(f"pass one tool; this definition holds {len(tools)} function tools ({names}): use {example}")
    return tools[0]


def arguments(tool: object, *, extra_keys: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments objects that ``tool``'s schema accepts, built from the schema and checked by the validator.

    Supported: ``type`` (single, and lists such as ``["string", "null"]``; OpenAPI's ``nullable`` is ignored, as the
    validator ignores it), ``properties``/``required``/
    ``additionalProperties``/``patternProperties``/``min``-``maxProperties``/``dependentRequired``, ``enum`` and
    ``const``, string lengths, ``pattern`` (ECMA-262 read as Python's ``re`` with ASCII classes), the formats in
    ``SUPPORTED_FORMATS`` (``email``, ``uri``, ``date``, ``date-time``, ``time``, ``uuid``, ``ipv4``/``ipv6``,
    ``hostname``; others get plain text, as the validator does not check formats either), numeric bounds including
    exclusive ones and ``multipleOf`` (``int32``/``int64`` formats bound integers), arrays with ``items``/
    ``prefixItems``/``minItems``/``maxItems``/``uniqueItems``/``contains``, ``anyOf``, ``oneOf`` (values matching
    exactly one branch), ``allOf`` (merged, or filtered when it does not merge), ``not`` and ``if``/``then``/``else``
    (filtered), local ``$ref`` into ``$defs``/``definitions`` (a recursive one entered at most three times per path). The
    schema's own ``default`` and ``examples`` come up now and then. Every value is checked with
    ``toolwire.validate`` before it is handed out; filtering happens only where a combinator needs it.

    Args:
        tool: A ``toolwire.Tool``, or anything ``ToolRegistry`` loads that holds exactly one function tool (an
            OpenAI/Anthropic/MCP definition, a Python function, a pydantic model...).
        extra_keys: Whether objects that allow undeclared keys (no ``additionalProperties: false``) now and then get
            some, as the validator lets them through. Pass False to test a handler that takes ``**arguments``
            before its schema is closed.

    Returns:
        A strategy for arguments dicts.

    Raises:
        UnsupportedSchemaError: A place of the schema no value can satisfy (``minimum`` above ``maximum``, no enum
            value of the right type, ``required`` naming a refused key...) or that cannot be generated (a pattern
            Python cannot read, a remote ``$ref``); its ``pointer`` names the place.
        ValueError: ``tool`` holds no function tool or several.
        toolwire.SchemaError: The schema does not compile.

    Example:
        >>> from hypothesis import given
        >>> from toolwire.strategies import arguments
        >>> weather = {
        ...     "name": "get_weather",
        ...     "parameters": {
        ...         "type": "object",
        ...         "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "minimum": 1}},
        ...         "required": ["city"],
        ...     },
        ... }
        >>> @given(arguments(weather, extra_keys=False))
        ... def test_forecast(args):
        ...     assert args["city"] and args.get("days", 1) >= 1
        >>> test_forecast()
    """
    return Compiler(_one_tool(tool), extra_keys=extra_keys).strategy()


def _hosts(entries: Iterable[str], what: str) -> tuple[str, ...]:
    if isinstance(entries, str):
        raise TypeError(f"{what} must be a collection of strings, e.g. ({entries!r},); got a str")
    out = []
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            raise TypeError(f"{what} entries must be non-empty strings; got {entry!r}")
        out.append((urlsplit(entry).hostname or entry) if "://" in entry else entry)
    return tuple(out)


def hostile_arguments(
    tool: object,
    *,
    allowed_hosts: Collection[str] = (),
    allowed_emails: Collection[str] = (),
    categories: Collection[str] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments ``tool``'s schema accepts that carry what a handler must refuse (or handle with care) on its own.

    A schema says what shape a value has, not whether it is safe: these values pass ``toolwire.validate`` (each is
    checked) and still carry a payload. String fields get the catalogue's strings, numbers their extremes, arrays
    their maximum length, open objects hostile keys; most leaves are hostile, some stay plain so that payloads also
    meet ordinary values. The schema is respected: enum and const fields keep their values, formatted strings get
    values of their format (foreign URLs for ``uri``, foreign addresses for ``email``, edge dates for ``date``...),
    patterns and lengths are met (a payload is embedded around a match of an unanchored pattern, or the field is
    left to ``arguments``' generator when no payload fits).

    The catalogue (``HOSTILE_CATEGORIES``), each drawn value reported as a hypothesis event ``hostile: <category>``
    (see ``--hypothesis-show-statistics``):

    * ``path_traversal``: ``../../etc/passwd``, encoded and double-encoded forms, Windows and UNC paths;
    * ``sql_injection``: ``' OR '1'='1``, ``'; DROP TABLE users; --``, UNION and time-based fragments, NoSQL;
    * ``shell_injection``: ``; rm -rf /``, ``$(...)``, backticks, pipes, ``${IFS}``, option injection;
    * ``prompt_injection``: "Ignore previous instructions...", fake role turns, hidden HTML comments;
    * ``template_injection``: ``{{7*7}}``, ``${jndi:ldap://...}``, format strings;
    * ``markup_injection``: ``<script>``, event handlers, Markdown links and images, spreadsheet formulas;
    * ``foreign_url``: cloud metadata and loopback URLs, ``file:``/``gopher:``/``javascript:``/``data:``, and
      lookalikes of ``allowed_hosts`` (``https://<allowed>.attacker.example``, ``https://<allowed>@attacker.example``);
    * ``foreign_email``: addresses outside ``allowed_emails``, lookalike domains included;
    * ``internal_address``: ``localhost``, ``127.0.0.1``, ``169.254.169.254``, ``::1``, private ranges;
    * ``control_characters``: NUL, CRLF header injection, ANSI escapes, backspaces, line separators;
    * ``unicode_tricks``: right-to-left override, zero-width characters, homoglyphs, full-width forms, invisible tag
      characters;
    * ``long_string``: strings at ``maxLength`` (4,096 or 65,536 characters without one), ASCII or astral;
    * ``format_edge``: the first and last dates, 2038, leap days and seconds, extreme offsets, nil and max UUIDs;
    * ``extreme_number``: the bounds and just inside exclusive ones, 0, -0.0, -1, 2**31, 2**53 + 1, 2**63, 2**64,
      10**30, 1e308, 5e-324 (those the bounds and ``multipleOf`` allow);
    * ``max_items``: arrays at ``maxItems`` (1,000 scalars without one; arrays of objects or arrays, which nest,
      at most 64 items, 8 without a ``maxItems``; not for ``uniqueItems`` arrays);
    * ``hostile_key``: ``__proto__``, ``constructor``, ``../x``, ``$where``, the empty key, where undeclared keys
      are allowed.

    Args:
        tool: As for ``arguments``.
        allowed_hosts: The hosts the handler may reach (``api.example.com``; a URL is read for its host);
            subdomains count as allowed. Generated URLs stay outside them.
        allowed_emails: The addresses (``ops@example.com``) or domains (``@example.com``, ``example.com``) the
            handler may write to. Generated addresses stay outside them.
        categories: The categories to draw from (default: all).

    Returns:
        A strategy for arguments dicts.

    Raises:
        UnsupportedSchemaError: As for ``arguments``.
        ValueError: An unknown category, or ``tool`` holds no function tool or several.
        TypeError: ``allowed_hosts`` or ``allowed_emails`` given as one string.

    Example:
        >>> from hypothesis import given, settings
        >>> from toolwire.strategies import hostile_arguments
        >>> from urllib.parse import urlsplit
        >>> fetch = {
        ...     "name": "fetch",
        ...     "parameters": {
        ...         "type": "object",
        ...         "properties": {"url": {"type": "string", "format": "uri"}},
        ...         "required": ["url"],
        ...         "additionalProperties": False,
        ...     },
        ... }
        >>> def fetch_url(url):  # the handler under test: only its own API
        ...     host = urlsplit(url).hostname or ""
        ...     return "fetched" if host == "api.example.com" else "refused"
        >>> @settings(max_examples=50)
        ... @given(hostile_arguments(fetch, allowed_hosts=["api.example.com"], categories=["foreign_url"]))
        ... def test_foreign_urls_are_refused(args):
        ...     assert fetch_url(**args) == "refused"
        >>> test_foreign_urls_are_refused()
    """
    chosen = frozenset(HOSTILE_CATEGORIES if categories is None else categories)
    unknown = sorted(chosen - set(HOSTILE_CATEGORIES))
    if unknown or not chosen:
        raise ValueError(
            f"unknown hostile categories {unknown}; choose among {', '.join(HOSTILE_CATEGORIES)}"
            if unknown
            else "categories is empty; leave it out for all of them"
        )
    options = HostileOptions(_hosts(allowed_hosts, "allowed_hosts"), _hosts(allowed_emails, "allowed_emails"), chosen)
    return Compiler(_one_tool(tool), hostile=options).strategy()
