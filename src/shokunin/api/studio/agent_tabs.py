"""An agent's detail tabs and workers in the seed project's React client
(``src/components/agents/AgentAccordionDetail.tsx``), from the Studio's records:

    GET /api/agents/{id}/sequence        SequenceData: inputs, model calls, workers, reviews
    GET /api/agents/{id}/system-prompt   AgentSystemPrompt: what the agent sends a model
    GET /api/agents/{id}/snapshots       WorkflowSnapshot[]: none (below)
    GET /api/agents/{id}/workers         Agent[]: a leader's workers

A snapshot in that client is a step its backend can restore a workflow to; shokunin goes
on from LangGraph's last checkpoint and restores no earlier step, so there are none.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.agents.studio import Pipeline, detail
from shokunin.agents.studio.contracts import Agent
from shokunin.api.studio.rest import dump, studio, visible_project
from shokunin.api.studio.validation import StudioRoute

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)


async def _agent(request: Request, agent_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    agent = await studio(request).agent(agent_id)
    return agent, await visible_project(request, agent["project_id"])


def _model(request: Request) -> tuple[str, bool]:
    """The configured model (``SHOKUNIN_MODEL``) and whether it is the offline brain."""
    model = request.app.state.engine.settings.model
    return model, model.partition(":")[0] == "offline"


@router.get("/agents/{agent_id}/sequence")
async def agent_sequence(request: Request, agent_id: str) -> dict[str, Any]:
    agent, project = await _agent(request, agent_id)
    model, offline = _model(request)
    return await detail.sequence(studio(request).records,
                                 Pipeline.model_validate(project["pipeline"]), agent,
                                 model, offline)


@router.get("/agents/{agent_id}/system-prompt")
async def agent_system_prompt(request: Request, agent_id: str) -> dict[str, Any]:
    agent, project = await _agent(request, agent_id)
    return await detail.prompt(studio(request).records,
                               Pipeline.model_validate(project["pipeline"]), project, agent,
                               _model(request)[1])


@router.get("/agents/{agent_id}/snapshots")
async def agent_snapshots(request: Request, agent_id: str) -> list[dict[str, Any]]:
    await _agent(request, agent_id)
    return []


@router.get("/agents/{agent_id}/workers")
async def agent_workers(request: Request, agent_id: str) -> list[dict[str, Any]]:
    agent, _ = await _agent(request, agent_id)
    rows = await studio(request).records.agents(agent["project_id"])
    return [dump(Agent.model_validate(a)) for a in rows if a["parent_agent_id"] == agent_id]
