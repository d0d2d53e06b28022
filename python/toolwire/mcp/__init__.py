"""MCP servers as tool sources: a live server's ``tools/list``, read with the official ``mcp`` SDK.

A server is named by a string every tool source takes (``toolwire check``, ``lint``, ``diff``, ``drift``,
``load_tools``, ``ToolRegistry.from_mcp``):

- ``mcp+stdio:COMMAND ARGS...``: the command is started (split as a shell would, without running a shell), spoken to
  over its standard input and output, and stopped once the tools are listed;
- ``mcp+http://HOST/PATH`` or ``mcp+https://...``: a server already running, over Streamable HTTP.

Every page of ``tools/list`` is read (a cursor given twice, or more than ``max_pages`` pages, is an error rather
than a loop that never ends), each tool as the server sent it. ``snapshot`` pins them, with a fingerprint of each
definition, to a file a team commits; ``toolwire diff tools.json mcp+stdio:...`` then says what changed since.
Needs ``pip install 'toolwire[mcp]'``.
"""

from toolwire.mcp._listing import MCP_PREFIXES, alist_tools, is_server, list_tools, snapshot

__all__ = ["MCP_PREFIXES", "alist_tools", "is_server", "list_tools", "snapshot"]
