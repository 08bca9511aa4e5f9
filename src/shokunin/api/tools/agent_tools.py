"""The tools an agent brings itself (not plugins), for the Tools view to list."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from shokunin.agents.workbench.tools import own_declarations

router = APIRouter(tags=["tools"])


@router.get("/api/agents/{agent}/tools")
async def agent_tools(agent: str, request: Request) -> dict[str, Any]:
    """``{"tools": [{"name", "description", "parameters"}]}``: what the agent's model is
    offered besides the plugins of ``/api/tools``."""
    if agent != "workbench":
        raise HTTPException(404, f"no agent named {agent!r} brings tools of its own")
    services = request.app.state.engine
    return {"tools": own_declarations(services.map_package, services.settings.sample_db)}
