"""The seed project's React client's 連絡 tab: a person's messages to the agents.

    GET    /api/projects/{id}/interventions     POST (InterventionInput, 201)
    GET    /api/interventions/{id}              DELETE (204)
    POST   /api/interventions/{id}/respond      {"message"}: the person's follow-up

They are kept in the project's record and listed back; the agents do not read them
(``agents/studio/interventions.py``), which the record's ``note`` says.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import Field

from shokunin.agents.studio import interventions
from shokunin.agents.studio.contracts import Wire
from shokunin.agents.studio.interventions import InterventionInput
from shokunin.api.studio.rest import studio, visible_project
from shokunin.api.studio.validation import StudioRoute
from shokunin.auth import principal
from shokunin.runs import owner_scope

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)


class Reply(Wire):
    message: str = Field(min_length=1, max_length=10_000)


@router.get("/projects/{project_id}/interventions")
async def project_interventions(request: Request, project_id: str) -> list[dict[str, Any]]:
    return interventions.listed(await visible_project(request, project_id))


@router.post("/projects/{project_id}/interventions", status_code=201)
async def create_intervention(request: Request, project_id: str, body: InterventionInput
                              ) -> dict[str, Any]:
    await visible_project(request, project_id)
    return await interventions.create(studio(request), project_id, body)


async def _visible(request: Request, intervention_id: str) -> dict[str, Any]:
    record, _ = await interventions.find(studio(request), intervention_id,
                                         owner_scope(principal(request)))
    return record


@router.get("/interventions/{intervention_id}")
async def get_intervention(request: Request, intervention_id: str) -> dict[str, Any]:
    return await _visible(request, intervention_id)


@router.post("/interventions/{intervention_id}/respond")
async def respond_intervention(request: Request, intervention_id: str, body: Reply
                               ) -> dict[str, Any]:
    await _visible(request, intervention_id)
    return await interventions.respond(studio(request), intervention_id, body.message)


@router.delete("/interventions/{intervention_id}", status_code=204)
async def delete_intervention(request: Request, intervention_id: str) -> Response:
    await _visible(request, intervention_id)
    await interventions.delete(studio(request), intervention_id)
    return Response(status_code=204)
