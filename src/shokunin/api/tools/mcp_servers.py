"""``GET /api/mcp/servers``: the MCP servers whose tools shokunin uses, and how each is.

Each entry names the server, how it is reached (the command and its arguments, or the URL
with any userinfo and query values hidden), the names of its env variables and headers but
never their values, its status (``ok``, ``connecting`` or ``error`` with the reason) and its
tools' names as the tools API lists them.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

router = APIRouter(prefix="/api/mcp", tags=["mcp"])


@router.get("/servers")
async def list_servers(request: Request) -> dict[str, Any]:
    engine = request.app.state.engine
    mcp = engine.tools.mcp
    if mcp is None:  # no file: no servers
        return {"servers": [], "config": str(engine.settings.mcp_config), "error": None}
    return {"servers": mcp.status(), "config": str(mcp.config_file), "error": mcp.problem}
