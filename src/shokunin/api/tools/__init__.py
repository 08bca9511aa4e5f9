"""The Tools face (seed 003): list, settings, execute, stream, abort; agents' own tools;
the MCP servers whose tools are listed."""

from shokunin.api.tools import agent_tools, mcp_servers, routes

routers = [mcp_servers.router, routes.router, agent_tools.router]

__all__ = ["routers"]
