"""``GET /api/providers/monitor``: the model the Studio's agents write with, as the seed
project's React client polls it for its provider table.

One provider: the configured model (``SHOKUNIN_MODEL``). ``generating`` counts the agents
working now and ``failed`` those that failed, in the projects the caller may see. No probe
is sent to the model (a poll must not cost a call): ``connected`` means the Studio is up
with it, and a model's failures show in ``failed`` and on the agents themselves.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.api.studio.rest import studio
from shokunin.api.studio.validation import StudioRoute
from shokunin.auth import principal
from shokunin.runs import owner_scope
from shokunin.store.studio_records import now

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)


@router.get("/providers/monitor")
async def providers_monitor(request: Request) -> dict[str, Any]:
    counts = await studio(request).records.agent_statuses(owner_scope(principal(request)))
    model = request.app.state.engine.settings.model
    return {model: {"status": "connected", "generating": counts.get("running", 0),
                    "failed": counts.get("failed", 0),
                    "lastChecked": now().isoformat().replace("+00:00", "Z"),
                    "latency": None, "errorMessage": None}}
