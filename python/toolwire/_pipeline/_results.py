"""Tool results checked as the MCP specification shapes them: a ``CallToolResult``'s fields and content blocks.

``validate_result`` (``toolwire._pipeline._api``) checks what is here first, then the result's ``structuredContent``
against the tool's ``outputSchema`` with the validator that checks arguments. A shape problem is one
``MALFORMED_RESULT`` at the JSON pointer of the member at fault, found in the order the result is written; nothing
here depends on the tools.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeGuard

from toolwire._common._json import json_type, sdk_json
from toolwire._model import Violation, ViolationCode, replaced, violation

if TYPE_CHECKING:
    from toolwire.registry import CompiledTools

__all__ = [
    "ResultLike",
    "is_final",
    "is_result",
    "result_data",
    "shape_violations",
    "structured_violations",
]

ResultLike: TypeAlias = Mapping[str, Any] | str | bytes | object
"""A tool result: a ``CallToolResult`` of the official ``mcp`` SDK (any pydantic model is dumped by its aliases), a
mapping of the spec's shape (``{"content": [...], "structuredContent": {...}, "isError": false}``), or its JSON text."""

#: Each content block type of the spec, with the members it requires as strings (``resource`` is checked apart).
_BLOCK_STRINGS: Final = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource_link": ("uri", "name"),
    "resource": (),
}
#: The members holding base64 data, by the block (or embedded resource) that holds them.
_BASE64: Final = {"image": "data", "audio": "data"}


def _malformed(path: str, message: str) -> Violation:
    return violation(ViolationCode.MALFORMED_RESULT, message, path=path)


def result_data(result: object) -> tuple[object, Violation | None]:
    """The result as JSON data, or why it is not one: ``(data, None)`` or ``(None, MALFORMED_RESULT)``.

    Raises:
        TypeError: ``result`` is neither a mapping, a pydantic model nor JSON text.
    """
    if hasattr(result, "model_dump"):
        return sdk_json(result), None
    if isinstance(result, (str, bytes, bytearray)):
        try:
            return json.loads(result, parse_constant=_no_constant), None
        except ValueError as error:
            return None, _malformed("", f"the result is not JSON text ({error})")
        except RecursionError:
            return None, _malformed("", "the result nests deeper than its JSON text can be read")
    if isinstance(result, Mapping) or result is None or isinstance(result, (list, bool, int, float)):
        return result, None
    raise TypeError(
        "validate_result: a result is an mcp CallToolResult, a mapping of its shape ({'content': [...], "
        f"'structuredContent': {{...}}, 'isError': False}}) or its JSON text; got {type(result).__name__}"
    )


def _no_constant(constant: str) -> object:
    raise ValueError(f"{constant} is not JSON")


def is_result(data: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``data`` can be read as a result at all: an object, and not a JSON-RPC message around one."""
    return isinstance(data, Mapping) and not ("jsonrpc" in data and "content" not in data)


def is_final(data: Mapping[str, Any]) -> bool:
    """Whether the result is the tool's answer: no ``resultType``, or ``"complete"``.

    An ``input_required`` result asks the client for more before the tool answers.
    """
    return bool(data.get("resultType", "complete") == "complete")


def shape_violations(data: object) -> list[Violation]:
    """Every way ``data`` breaks the spec's ``CallToolResult`` shape, in the order the result is written."""
    if not is_result(data):
        if isinstance(data, Mapping):
            return [_malformed("", "a JSON-RPC message, not a tool result: pass its 'result' member")]
        return [_malformed("", f"a tool result is a JSON object with 'content'; got {json_type(data)}")]
    assert isinstance(data, Mapping)
    found: list[Violation] = []
    kind = data.get("resultType")
    if kind is not None and not isinstance(kind, str):
        found.append(_malformed("/resultType", f"resultType must be a string ('complete'); got {json_type(kind)}"))
    elif kind is not None and kind != "complete":
        return found
    content = data.get("content")
    if content is None:
        found.append(
            _malformed("/content", "content is missing: a result carries a list of content blocks ([] for none)")
        )
    elif not isinstance(content, list):
        found.append(_malformed("/content", f"content must be a list of content blocks; got {json_type(content)}"))
    else:
        for position, block in enumerate(content):
            found.extend(_block_violations(block, f"/content/{position}"))
    error = data.get("isError")
    if error is not None and not isinstance(error, bool):
        found.append(_malformed("/isError", f"isError must be true or false; got {json_type(error)}"))
    meta = data.get("_meta")
    if meta is not None and not isinstance(meta, Mapping):
        found.append(_malformed("/_meta", f"_meta must be an object; got {json_type(meta)}"))
    return found


#: Where the structured content is in a result: every finding of the output schema is under it.
_STRUCTURED: Final = "/structuredContent"


def structured_violations(name: str, structured: object, outputs: CompiledTools) -> list[Violation]:
    """``structuredContent`` (None when absent) against the output schema ``outputs`` holds for ``name``.

    Raises:
        TypeError: It holds a value JSON cannot (a ``datetime``).
    """
    if structured is None:
        tool = json.dumps(name, ensure_ascii=False)
        return [
            violation(
                ViolationCode.MISSING_STRUCTURED_CONTENT,
                f"tool {tool} declares an outputSchema, so a result that is not an error carries structuredContent "
                "that conforms to it; this one has none",
                path=_STRUCTURED,
            )
        ]
    try:
        text = json.dumps(structured, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return [_malformed(_STRUCTURED, "structuredContent holds a number JSON cannot hold (NaN or an infinity)")]
    except RecursionError:
        return [_malformed(_STRUCTURED, "structuredContent nests deeper than it can be written as JSON")]
    except TypeError as error:
        raise TypeError(f"validate_result: structuredContent is not JSON data ({error})") from None
    return [
        replaced(found, path=_STRUCTURED + (found.path or "")) for found in outputs.validate(name, text, call=False)
    ]


def _block_violations(block: object, at: str) -> list[Violation]:
    if not isinstance(block, Mapping):
        return [_malformed(at, f"a content block is an object with a 'type'; got {json_type(block)}")]
    kind = block.get("type")
    if not isinstance(kind, str) or kind not in _BLOCK_STRINGS:
        known = ", ".join(_BLOCK_STRINGS)
        shown = "no type" if kind is None else f"type {json.dumps(kind, ensure_ascii=False)[:60]}"
        return [_malformed(f"{at}/type", f"a content block of {shown}; the spec's types are {known}")]
    found = [problem for member in _BLOCK_STRINGS[kind] if (problem := _string(block, member, at, kind))]
    encoded = _BASE64.get(kind)
    if encoded is not None and not found:
        found.extend(_base64(block[encoded], f"{at}/{encoded}", kind))
    if kind == "resource":
        found.extend(_resource_violations(block.get("resource"), f"{at}/resource"))
    return found


def _resource_violations(resource: object, at: str) -> list[Violation]:
    if not isinstance(resource, Mapping):
        return [
            _malformed(
                at, f"an embedded resource is an object with 'uri' and 'text' or 'blob'; got {json_type(resource)}"
            )
        ]
    found = [problem] if (problem := _string(resource, "uri", at, "resource")) else []
    held = [member for member in ("text", "blob") if member in resource]
    if len(held) != 1:
        what = "neither" if not held else "both"
        found.append(_malformed(at, f"an embedded resource holds 'text' or 'blob', one of them; it holds {what}"))
    elif (problem := _string(resource, held[0], at, "resource")) is not None:
        found.append(problem)
    elif held[0] == "blob":
        found.extend(_base64(resource["blob"], f"{at}/blob", "resource"))
    return found


def _string(block: Mapping[str, Any], member: str, at: str, kind: str) -> Violation | None:
    value = block.get(member)
    if isinstance(value, str):
        return None
    if value is None:
        return _malformed(f"{at}/{member}", f"this {kind} block needs {member!r} (a string)")
    return _malformed(f"{at}/{member}", f"{member} of this {kind} block must be a string; got {json_type(value)}")


def _base64(text: str, at: str, kind: str) -> list[Violation]:
    try:
        base64.b64decode(text, validate=True)
    except binascii.Error as error:
        return [_malformed(at, f"the data of this {kind} block is not base64 ({error})")]
    return []
