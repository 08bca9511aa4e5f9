"""A person's messages to a project's agents (the seed project's React client's 連絡 tab).

An intervention is kept in its project's record (``state.interventions``), in the client's
form. shokunin's agents do not read messages while they run: the pipeline's agents take
what a person says through a checkpoint's feedback or a brush-up's instructions. So an
intervention stays ``pending`` (the client shows 送信待ち), ``deliveredAt`` stays null, and
its ``note`` says so; nothing answers as an agent. The person's own follow-ups are added
as operator responses. Initialize clears them with the project's logs.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import Field

from shokunin.agents.studio.contracts import Wire
from shokunin.agents.studio.errors import StudioInvalid, StudioNotFound
from shokunin.agents.studio.projects import Studio
from shokunin.store.studio_records import now

NOT_READ = ("記録しました。shokunin のエージェントは実行中に連絡を読みません(配信されず、"
            "送信待ちのまま残ります)。エージェントに伝えるには、チェックポイントの"
            "フィードバックか、完了後のブラッシュアップの指示に書いてください。")
MAX_KEPT = 500  # per project, the oldest dropped first


class InterventionInput(Wire):
    """POST /api/projects/{id}/interventions as the client sends it
    (``{"targetType":"all","priority":"normal","message":"..."}``, a ``targetAgentId``
    when it is ``specific``); fields it adds beyond these are ignored."""

    target_type: Literal["all", "specific"] = "all"
    target_agent_id: str | None = Field(default=None, max_length=200)
    priority: Literal["normal", "urgent"] = "normal"
    message: str = Field(min_length=1, max_length=10_000)
    attached_file_ids: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list, max_length=20)


def _split(intervention_id: str) -> tuple[str, str]:
    project_id, _, own = intervention_id.partition("-")
    if not own:
        raise StudioNotFound(f"no intervention {intervention_id!r}")
    return project_id, own


def listed(project: dict[str, Any]) -> list[dict[str, Any]]:
    """The project's interventions, oldest first."""
    return list((project["state"] or {}).get("interventions") or [])


async def create(studio: Studio, project_id: str, body: InterventionInput) -> dict[str, Any]:
    async with studio._lock(project_id):
        project = await studio.project(project_id)
        target = body.target_agent_id if body.target_type == "specific" else None
        if body.target_type == "specific":
            agents = {a["id"] for a in await studio.records.agents(project_id)}
            if target not in agents:
                raise StudioInvalid("宛先のエージェントがこのプロジェクトにありません。"
                                    "エージェントを選び直して送ってください。")
        record = {
            "id": f"{project_id}-{uuid.uuid4().hex[:16]}", "projectId": project_id,
            "targetType": body.target_type, "targetAgentId": target,
            "priority": body.priority, "message": body.message.strip(),
            "attachedFileIds": list(body.attached_file_ids), "status": "pending",
            "responses": [], "createdAt": now().isoformat(), "deliveredAt": None,
            "acknowledgedAt": None, "processedAt": None, "note": NOT_READ}
        await _save(studio, project, [*listed(project), record][-MAX_KEPT:])
        return record


async def find(studio: Studio, intervention_id: str, owner: str | None = None
               ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The intervention and its project (StudioNotFound if either is not there)."""
    project_id, _ = _split(intervention_id)
    project = await studio.project(project_id, owner)
    for record in listed(project):
        if record["id"] == intervention_id:
            return record, project
    raise StudioNotFound(f"no intervention {intervention_id!r}")


async def respond(studio: Studio, intervention_id: str, message: str) -> dict[str, Any]:
    """The person's follow-up, added as an operator response."""
    project_id, _ = _split(intervention_id)
    async with studio._lock(project_id):
        record, project = await find(studio, intervention_id)
        record = record | {"responses": [*record["responses"], {
            "sender": "operator", "agentId": None, "message": message.strip(),
            "createdAt": now().isoformat()}]}
        await _save(studio, project, [record if r["id"] == intervention_id else r
                                      for r in listed(project)])
        return record


async def delete(studio: Studio, intervention_id: str) -> None:
    project_id, _ = _split(intervention_id)
    async with studio._lock(project_id):
        _, project = await find(studio, intervention_id)
        await _save(studio, project, [r for r in listed(project) if r["id"] != intervention_id])


async def _save(studio: Studio, project: dict[str, Any], records: list[dict[str, Any]]
                ) -> None:
    state = dict(project["state"] or {}) | {"interventions": records}
    await studio.records.update_project(project["id"], {"state": state})
