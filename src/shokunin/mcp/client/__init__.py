"""MCP servers' tools inside shokunin: the servers a user lists, a long-lived session with
each, and their tools and results in seed 003's form (a source the tool registry lists)."""

from shokunin.mcp.client.connection import McpConnection, McpUnavailable
from shokunin.mcp.client.servers import ConfiguredServer, read_servers
from shokunin.mcp.client.tools import McpTools, tool_name

__all__ = ["ConfiguredServer", "McpConnection", "McpTools", "McpUnavailable", "read_servers",
           "tool_name"]
