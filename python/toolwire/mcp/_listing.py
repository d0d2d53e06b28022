"""Listing a server's tools: the server string parsed, the SDK's client driven page by page, its failures named."""

from __future__ import annotations

import shlex
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final

from toolwire._common._json import canonical_sha256, sdk_json
from toolwire.errors import McpServerError

if TYPE_CHECKING:
    from mcp import StdioServerParameters

__all__ = ["MCP_PREFIXES", "alist_tools", "is_server", "list_tools", "snapshot"]

_STDIO: Final = "mcp+stdio:"
_HTTP: Final = ("mcp+http://", "mcp+https://")
#: How a tool source names an MCP server.
MCP_PREFIXES: Final[tuple[str, ...]] = (_STDIO, *_HTTP)
_INSTALL: Final = "reading an MCP server needs the official SDK: pip install 'toolwire[mcp]'"


def is_server(spec: object) -> bool:
    """Whether ``spec`` names an MCP server (``mcp+stdio:...``, ``mcp+http(s)://...``)."""
    return isinstance(spec, str) and spec.startswith(MCP_PREFIXES)


def _target(server: str) -> StdioServerParameters | str:
    """What the SDK's client connects to: the command to start, or the URL."""
    if server.startswith(_HTTP):
        return server.removeprefix("mcp+")
    if not server.startswith(_STDIO):
        raise ValueError(f"{server!r}: not an MCP server; write mcp+stdio:COMMAND ARGS... or mcp+http(s)://HOST/PATH")
    try:
        command = shlex.split(server.removeprefix(_STDIO))
    except ValueError as error:
        raise ValueError(f"{server!r}: the command does not split as a shell would ({error})") from None
    if not command:
        raise ValueError(f"{server!r}: no command after mcp+stdio: (write mcp+stdio:COMMAND ARGS...)")
    try:
        from mcp import StdioServerParameters
    except ImportError:
        raise ModuleNotFoundError(f"{server}: {_INSTALL}", name="mcp") from None
    return StdioServerParameters(command=command[0], args=command[1:])


async def alist_tools(server: str, *, timeout: float = 30.0, max_pages: int = 1000) -> list[dict[str, Any]]:
    """Every tool the server lists, each as sent (``name``, ``inputSchema``, ``outputSchema``, ``annotations``...).

    Args:
        server: ``mcp+stdio:COMMAND ARGS...`` or ``mcp+http(s)://HOST/PATH``.
        timeout: Seconds for the whole listing (start, handshake, every page).
        max_pages: Pages of ``tools/list`` read at most.

    Raises:
        ValueError: ``server`` names no MCP server.
        ModuleNotFoundError: The ``mcp`` SDK is not installed.
        McpServerError: The server could not be started or reached, failed, broke the protocol, listed a cursor
            twice or more than ``max_pages`` pages, or took longer than ``timeout``.
    """
    target = _target(server)
    try:
        import anyio

        from mcp import Client
    except ImportError:
        raise ModuleNotFoundError(f"{server}: {_INSTALL}", name="mcp") from None
    tools: list[dict[str, Any]] = []
    cursors: set[str] = set()
    try:
        with anyio.fail_after(timeout):
            async with Client(target) as client:
                cursor: str | None = None
                for _ in range(max_pages):
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(sdk_json(tool) for tool in page.tools)
                    cursor = page.next_cursor
                    if cursor is None:
                        return tools
                    if cursor in cursors:
                        raise McpServerError(server, f"tools/list gave cursor {cursor!r} twice: its pages never end")
                    cursors.add(cursor)
    except McpServerError:
        raise
    except TimeoutError:
        raise McpServerError(server, f"the tools were not listed within {timeout:g} s (timeout=)") from None
    except Exception as error:  # whatever the transport or the SDK raise, named with the server
        raise McpServerError(server, _described(error)) from error
    raise McpServerError(server, f"tools/list gave more than {max_pages} pages (max_pages=)")


def _described(error: BaseException) -> str:
    """The error's type and what it says, on one line (an exception group: its first leaf's, where the cause is)."""
    while isinstance(leaves := getattr(error, "exceptions", None), tuple) and leaves:
        error = leaves[0]
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__


def list_tools(server: str, *, timeout: float = 30.0, max_pages: int = 1000) -> list[dict[str, Any]]:
    """``alist_tools`` for code without an event loop (the CLI, a test); inside one, await ``alist_tools``.

    Raises:
        RuntimeError: Called from a running event loop.
    """
    import anyio

    try:
        return anyio.run(lambda: alist_tools(server, timeout=timeout, max_pages=max_pages))
    except RuntimeError as error:
        if "already running" in str(error):
            raise RuntimeError(f"{server}: list_tools was called inside an event loop; await alist_tools") from None
        raise


def snapshot(server: str, *, timeout: float = 30.0) -> dict[str, Any]:
    """A server's tools pinned for a file a team commits: ``{"server", "taken", "tools", "fingerprints"}``.

    ``tools`` are the definitions as sent, in the server's order, so the file is a tool source itself;
    ``fingerprints`` maps each name to ``sha256:`` of its whole definition's canonical JSON (description included:
    a changed description changes what the model does). ``taken`` is the UTC time of the listing.
    """
    tools = list_tools(server, timeout=timeout)
    fingerprints = {str(tool.get("name")): canonical_sha256(tool) for tool in tools}
    taken = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"server": server, "taken": taken, "tools": tools, "fingerprints": fingerprints}
