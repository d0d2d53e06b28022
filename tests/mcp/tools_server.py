"""An MCP server for the tests, written with the official SDK: it lists the tools of a JSON file, page by page.

``python tools_server.py TOOLS.json [--page N] [--http PORT] [--endless | --stall] [--results RESULTS.json]``: over
stdio, or over Streamable HTTP on 127.0.0.1. The file holds a list of ``tools/list`` entries as a server sends them,
so each test says exactly what is listed (a clean server, one whose schemas a provider rejects, one whose tools
changed between two runs). ``--endless`` gives the first page's cursor again and again; ``--stall`` never answers
``tools/list``. ``--results`` maps tool names to the ``CallToolResult`` each ``tools/call`` of that tool answers (one
whose ``structuredContent`` breaks its ``outputSchema``, say); a tool without one answers a protocol error.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def _server(
    tools: list[dict[str, Any]],
    page: int,
    *,
    endless: bool = False,
    stall: bool = False,
    results: dict[str, Any] | None = None,
) -> Server[Any]:
    async def list_tools(_context: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if stall:
            await anyio.sleep_forever()
        start = 0 if endless or params is None or not params.cursor else int(params.cursor)
        listed = [types.Tool.model_validate(tool) for tool in tools[start : start + page]]
        more = start + page < len(tools)
        return types.ListToolsResult(tools=listed, next_cursor=str(start + page) if more else None)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = (results or {}).get(params.name)
        if answer is None:
            raise ValueError(f"no result for {params.name!r} in --results")
        return types.CallToolResult.model_validate(answer)

    return Server("toolwire-tests", on_list_tools=list_tools, on_call_tool=call_tool)


async def _stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tools", type=Path)
    parser.add_argument("--page", type=int, default=2)
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--endless", action="store_true")
    parser.add_argument("--stall", action="store_true")
    parser.add_argument("--results", type=Path)
    options = parser.parse_args()
    tools = json.loads(options.tools.read_text(encoding="utf-8"))
    results = json.loads(options.results.read_text(encoding="utf-8")) if options.results else None
    server = _server(tools, options.page, endless=options.endless, stall=options.stall, results=results)
    if options.http is None:
        anyio.run(_stdio, server)
        return
    import uvicorn

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=options.http, log_level="warning")


if __name__ == "__main__":
    main()
