"""shokunin as an MCP server: its tools and faces over stdio (``shokunin mcp serve``) and at
``/mcp`` (streamable HTTP)."""

from shokunin.mcp.server.app import build_server, serve_stdio
from shokunin.mcp.server.http import PATH as MCP_PATH
from shokunin.mcp.server.http import McpEndpoint

__all__ = ["MCP_PATH", "McpEndpoint", "build_server", "serve_stdio"]
