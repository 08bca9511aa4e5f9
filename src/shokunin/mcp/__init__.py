"""shokunin as an MCP server: its tools and faces over stdio (``shokunin mcp serve``) and at
``/mcp`` (streamable HTTP). MCP servers' tools inside shokunin live in ``tools/`` (a source
of tools like any folder)."""

from shokunin.mcp.server import build_server, serve_stdio
from shokunin.mcp.server_http import McpEndpoint

__all__ = ["McpEndpoint", "build_server", "serve_stdio"]
