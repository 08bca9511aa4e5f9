"""GET /health: liveness plus the facts an operator checks first."""

from __future__ import annotations

from fastapi import APIRouter, Request

from shokunin import __version__

router = APIRouter(tags=["health"])


@router.get("/health")
async def health(request: Request) -> dict:
    services = request.app.state.engine
    walls = services.sandbox.walls
    return {"status": "ok", "version": __version__, "model": services.settings.model,
            "agents": sorted(services.runner.agents),
            # which walls hold around Python here, and whether it runs at all
            "sandbox": walls.as_dict() if walls is not None else {"python": "starting"},
            # what still starts in the background: it serves meanwhile, the first cell waits
            "starting": services.sandbox.starting}
