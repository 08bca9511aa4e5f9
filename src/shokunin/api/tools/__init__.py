"""The Tools face (seed 003): list, settings, execute, stream, abort; a tool's own web UI
(proxied); agents' own tools; the MCP servers whose tools are listed."""

from shokunin.api.tools import agent_tools, mcp_servers, routes, ui_proxy
from shokunin.api.tools.ui_proxy import capability as tool_ui_page

routers = [mcp_servers.router, routes.router, ui_proxy.router, agent_tools.router]

__all__ = ["routers", "tool_ui_page"]
