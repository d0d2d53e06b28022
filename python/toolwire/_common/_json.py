"""JSON as the package writes and names it: pointers, type names, and compact and canonical text.

Every kit points into schemas and arguments (RFC 6901 pointers), names the JSON type of a value in its messages, and
writes JSON text compactly, or canonically where the text is hashed or compared; each of these is written here once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "canonical",
    "canonical_sha256",
    "compact",
    "compact_utf8",
    "json_type",
    "lookup",
    "parse_json",
    "plain_json",
    "pointer_token",
    "pointer_tokens",
    "sdk_json",
    "unescape_token",
]


def pointer_token(key: object) -> str:
    """One reference token of a JSON pointer (RFC 6901): the key as text, ``~`` written ``~0`` and ``/`` ``~1``."""
    text = str(key)
    # Most keys hold neither character; they are returned as they are, without two scans and copies.
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def unescape_token(token: str) -> str:
    """The key a JSON pointer reference token stands for (``~1`` read as ``/``, then ``~0`` as ``~``)."""
    return token.replace("~1", "/").replace("~0", "~")


def pointer_tokens(pointer: str) -> list[str]:
    """The keys of a JSON pointer, in order (``""``, the whole document, has none)."""
    return [unescape_token(token) for token in pointer.split("/")[1:]]


def lookup(document: Any, tokens: Iterable[str], default: Any = None) -> Any:
    """The value the keys ``tokens`` reach in a document, or ``default`` where they lead nowhere.

    A key reaches into an object by name and into an array by a decimal index within its length.
    """
    node = document
    for token in tokens:
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return default
    return node


def parse_json(text: str, where: str) -> Any:
    """The value of a JSON text read from a file.

    Raises:
        ValueError: The text is not JSON: ``<where>: invalid JSON at line L column C: <problem>``.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: invalid JSON at line {error.lineno} column {error.colno}: {error.msg}") from error


def json_type(value: object) -> str:
    """The JSON Schema type name of a JSON value: ``bool`` before ``int``, a tuple an array, anything else an object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, (list, tuple)) else "object"


def compact(value: Any, *, allow_nan: bool = False) -> str:
    """JSON text with no spaces, and its characters as they are rather than escaped.

    Args:
        value: The value.
        allow_nan: Write NaN and the infinities as ``NaN``/``Infinity`` (not JSON) instead of raising, for text that
            only shows a value already received.

    Raises:
        ValueError: A NaN or an infinity, unless ``allow_nan``.
        TypeError: A value JSON cannot hold.
    """
    return json.dumps(value, ensure_ascii=False, allow_nan=allow_nan, separators=(",", ":"))


def canonical(value: Any, *, allow_nan: bool = False) -> str:
    """``compact`` with the keys of every object sorted: one text per value, to hash or to compare.

    Raises:
        As ``compact``.
    """
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=allow_nan, separators=(",", ":"))


def canonical_sha256(value: Any) -> str:
    """``sha256:<hex>`` of the value's ``canonical`` text as UTF-8: a fingerprint equal values share, whatever order."""
    return "sha256:" + hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def compact_utf8(value: Any, *, allow_nan: bool = False) -> str:
    """``compact`` text that encodes as UTF-8: a lone surrogate, which cannot, has the whole text written in ASCII.

    Raises:
        As ``compact``.
    """
    text = compact(value, allow_nan=allow_nan)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, allow_nan=allow_nan, separators=(",", ":"))
    return text


def plain_json(value: object, where: str) -> Any:
    """A copy of a JSON value given in Python (tuples read as lists), checked all the way down.

    Args:
        value: The value.
        where: Its place, for the messages (a nested place is appended as ``/key``).

    Raises:
        TypeError: A value of no JSON type, or an object key that is not a ``str``.
        ValueError: A NaN or an infinity, which have no JSON form.
    """
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{where}: {value!r} is not a JSON number")
        return value
    if isinstance(value, (list, tuple)):
        return [plain_json(item, f"{where}/{position}") for position, item in enumerate(value)]
    if isinstance(value, Mapping):
        copy: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where}: object keys must be str; got {type(key).__name__} {key!r:.40}")
            copy[key] = plain_json(item, f"{where}/{key}")
        return copy
    raise TypeError(f"{where}: {type(value).__name__} is not a JSON value")


def sdk_json(value: Any) -> Any:
    """An SDK's pydantic model as its SDK writes it on the wire (by alias, ``None`` left out); any other value as is.

    (``exclude_unset`` would leave out the members a model's defaults fill, such as an ``mcp`` ``TextContent``'s
    ``"type": "text"``.)
    """
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return value
