"""The Studio's REST face (seed 002 section 2): bare JSON in the seed's camelCase types.

    GET    /api/projects                     POST /api/projects   (CreateProjectInput, 201)
    GET    /api/projects/{id}                PATCH /api/projects/{id}   DELETE (204)
    POST   /api/projects/{id}/start | pause | resume
    GET    /api/projects/{id}/agents | checkpoints | metrics
    GET    /api/agents/{id}   /logs   /outputs   /metrics     POST /api/agents/{id}/retry
    GET    /api/checkpoints/{id}             POST /api/checkpoints/{id}/resolve
    the seed project's React client also loads and sends:
    GET    /api/projects/{id}/logs | assets | files   (interventions: interventions.py)
    POST   /api/projects/{id}/initialize | brushup
    PATCH  /api/projects/{id}  {"status": "draft"}   (its stop button)
    and the outputs themselves:
    GET    /api/projects/{id}/files/{path}   GET /api/projects/{id}/outputs.zip

Where the seed defines a record, its form is served; what the client reads beyond it is
added beside, never in place of it (an asset's ``type`` is the client's ``image``, its
seed output type stays in ``outputType``). A resolution is ``approved``, ``rejected`` or
``revision_requested``; the socket's spelling ``changes_requested`` is accepted too.
Unknown ids answer 404, a wrong state transition 409, an invalid body 422 naming the field.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import mimetypes
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request, Response

from shokunin.agents.studio import Studio
from shokunin.agents.studio.contracts import (
    Agent,
    AgentLogEntry,
    AgentOutput,
    AssetVerdict,
    AssetVerdicts,
    BrushupInput,
    Checkpoint,
    CreateProjectInput,
    Project,
    ResolveCheckpointRequest,
    UpdateProjectInput,
)
from shokunin.agents.studio.metrics import agent_metrics, project_metrics
from shokunin.api.errors import ApiError
from shokunin.api.studio.validation import StudioRoute
from shokunin.api.studio.wire import agent_metrics_json, file_size, metrics_json
from shokunin.auth import principal
from shokunin.events import StudioMetrics
from shokunin.runs import owner_scope
from shokunin.store.safe_files import SafeTree, UnsafePath, parts

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)
MAX_FILE_BYTES = 64 * 1024 * 1024  # per output file served or zipped


def studio(request: Request) -> Studio:
    """The Studio service; 503 with the reason when its pipeline could not be loaded."""
    services = request.app.state.engine
    if services.studio is None:
        why = services.why_unavailable("studio") or "it is not configured"
        raise ApiError(503, f"the Studio is unavailable: {why}", "studio_unavailable")
    return services.studio


def dump(model: Any, many: bool = False) -> Any:
    if many:
        return [m.model_dump(mode="json", by_alias=True) for m in model]
    return model.model_dump(mode="json", by_alias=True)


async def visible_project(request: Request, project_id: str) -> dict[str, Any]:
    """The project, or 404 if there is none or the caller may not see it."""
    return await studio(request).project(project_id, owner_scope(principal(request)))


async def _visible(request: Request, row: dict[str, Any]) -> dict[str, Any]:
    await visible_project(request, row["project_id"])
    return row


# projects
@router.get("/projects")
async def list_projects(request: Request) -> list[dict[str, Any]]:
    rows = await studio(request).records.projects(owner_scope(principal(request)))
    return dump([Project.model_validate(r) for r in rows], many=True)


@router.post("/projects", status_code=201)
async def create_project(request: Request, body: CreateProjectInput) -> dict[str, Any]:
    return dump(Project.model_validate(await studio(request).create(body, principal(request))))


@router.get("/projects/{project_id}")
async def get_project(request: Request, project_id: str) -> dict[str, Any]:
    return dump(Project.model_validate(await visible_project(request, project_id)))


@router.patch("/projects/{project_id}")
async def update_project(request: Request, project_id: str, body: UpdateProjectInput
                         ) -> dict[str, Any]:
    await visible_project(request, project_id)
    return dump(Project.model_validate(await studio(request).update(project_id, body)))


@router.delete("/projects/{project_id}", status_code=204)
async def delete_project(request: Request, project_id: str) -> Response:
    await visible_project(request, project_id)
    await studio(request).delete(project_id)
    return Response(status_code=204)


@router.post("/projects/{project_id}/brushup")
async def brushup_project(request: Request, project_id: str, body: BrushupInput
                          ) -> dict[str, Any]:
    await visible_project(request, project_id)
    return dump(Project.model_validate(await studio(request).brushup(project_id, body)))


@router.post("/projects/{project_id}/brushup/suggest-images")
async def suggest_brushup_images(request: Request, project_id: str) -> Response:
    await visible_project(request, project_id)
    raise ApiError(501, "参考画像の提案には対応していません。ブラッシュアップの指示は文章で"
                   "入力してください。", "unavailable")


def _transition(name: str) -> Any:
    async def act(request: Request, project_id: str) -> dict[str, Any]:
        await visible_project(request, project_id)
        return dump(Project.model_validate(await getattr(studio(request), name)(project_id)))

    act.__name__ = f"{name}_project"
    return act


# one route each (not /{action}): any other path under a project is a plain 404, not a 405
for _name in ("start", "pause", "resume", "initialize"):
    router.post(f"/projects/{{project_id}}/{_name}")(_transition(_name))


@router.get("/projects/{project_id}/agents")
async def project_agents(request: Request, project_id: str) -> list[dict[str, Any]]:
    await visible_project(request, project_id)
    rows = await studio(request).records.agents(project_id)
    return dump([Agent.model_validate(r) for r in rows], many=True)


@router.get("/projects/{project_id}/checkpoints")
async def project_checkpoints(request: Request, project_id: str) -> list[dict[str, Any]]:
    await visible_project(request, project_id)
    rows = await studio(request).records.checkpoints(project_id)
    return dump([Checkpoint.model_validate(r) for r in rows], many=True)


@router.get("/projects/{project_id}/metrics")
async def project_metrics_(request: Request, project_id: str) -> dict[str, Any]:
    project = await visible_project(request, project_id)
    service = studio(request)
    figures = await project_metrics(service.records, project, service.phase_name(project))
    # as the socket sends them: the remaining time a number even before any sample
    return metrics_json(StudioMetrics.model_validate(figures.model_dump()))


@router.get("/projects/{project_id}/logs")
async def project_logs(request: Request, project_id: str) -> list[dict[str, Any]]:
    """Every agent's entries, newest last: the seed's AgentLogEntry, with the agent it is
    from (``agentId``, and its type as ``source``, what the client filters on) and its
    metadata as text (``details``, null without)."""
    await visible_project(request, project_id)
    service = studio(request)
    rows = await service.records.logs(project_id=project_id)
    types = {a["id"]: a["type"] for a in await service.records.agents(project_id)}
    return [dump(AgentLogEntry.model_validate(r)) | {
        "agentId": r["agent_id"], "source": types.get(r["agent_id"], "System"),
        "details": json.dumps(r["metadata"], ensure_ascii=False) if r["metadata"] else None}
        for r in rows]


_ASSET_TYPES = {"asset_image": "image", "asset_audio": "audio"}  # seed -> the client's


@router.get("/projects/{project_id}/assets")
async def project_assets(request: Request, project_id: str) -> list[dict[str, Any]]:
    """The image and audio files the agents wrote, each agent's latest version of a file,
    in the client's asset form: ``type`` is its ``image``/``audio`` (the seed's output type
    stays in ``outputType``), ``url`` loads the file, ``approvalStatus`` is a person's
    verdict on that asset (the client's data tab), ``pending`` until one is given: a
    checkpoint's approval lets the pipeline go on, it does not judge each file."""
    return await _assets(request, await visible_project(request, project_id))


@router.patch("/projects/{project_id}/assets/bulk")
async def judge_assets(request: Request, project_id: str, body: AssetVerdicts
                       ) -> dict[str, Any]:
    judged = await _judge(request, project_id, body.asset_ids, body.approval_status)
    return {"updated": len(judged), "assets": judged}


@router.patch("/projects/{project_id}/assets/{asset_id}")
async def judge_asset(request: Request, project_id: str, asset_id: str, body: AssetVerdict
                      ) -> dict[str, Any]:
    [judged] = await _judge(request, project_id, [asset_id], body.approval_status)
    return judged


async def _judge(request: Request, project_id: str, asset_ids: list[str], status: str
                 ) -> list[dict[str, Any]]:
    """A person's verdict on listed assets (an older version of a file is not listed:
    404, as an unknown id); the assets as they are now."""
    listed = {a["id"] for a in await _assets(request, await visible_project(request,
                                                                             project_id))}
    unknown = [i for i in asset_ids if i not in listed]
    if unknown:
        raise ApiError(404, f"no asset {unknown[0][:128]!r} in the project", "not_found")
    project = await studio(request).judge_assets(project_id, asset_ids, status)
    return [a for a in await _assets(request, project) if a["id"] in asset_ids]


@router.post("/projects/{project_id}/assets/{asset_id}/regenerate")
async def regenerate_asset(request: Request, project_id: str, asset_id: str) -> Response:
    await visible_project(request, project_id)
    raise ApiError(501, "アセットを一つだけ作り直すことはできません。完了したプロジェクトの"
                   "ブラッシュアップで「アセット」を選び、指示を書いてください。", "unavailable")


async def _assets(request: Request, project: dict[str, Any]) -> list[dict[str, Any]]:
    project_id = project["id"]
    records = studio(request).records
    latest: dict[tuple[str, str], dict[str, Any]] = {}  # a version written again replaces
    for r in await records.outputs(project_id=project_id):  # oldest first
        if r["output_type"] in _ASSET_TYPES and r["file_path"]:
            latest.pop((r["agent_id"], r["file_path"]), None)
            latest[(r["agent_id"], r["file_path"])] = r
    agents = {a["id"]: a for a in await records.agents(project_id)}
    judged = (project["state"] or {}).get("assetApprovals") or {}
    tree = workspace(request, project_id)
    assets = []
    for r in latest.values():
        kind = _ASSET_TYPES[r["output_type"]]
        agent = agents.get(r["agent_id"]) or {}
        url = f"/api/projects/{project_id}/files/{quote(r['file_path'])}"
        assets.append({
            "id": r["id"], "agentId": r["agent_id"], "name": Path(r["file_path"]).name,
            "type": kind, "outputType": r["output_type"], "filePath": r["file_path"],
            "agent": agent.get("type", ""), "size": _size(tree, r["file_path"]),
            "url": url, "thumbnail": url if kind == "image" else None, "duration": None,
            "content": str((r["content"] or {}).get("summary") or "") or None,
            "approvalStatus": judged.get(r["id"], "pending"),
            "createdAt": dump(AgentOutput.model_validate(r))["createdAt"]})
    return assets


def _size(tree: SafeTree, path: str) -> str:
    """The file's size as the client reads it (``"12.3 KB"``); ``"0 B"`` if it is gone."""
    try:
        return file_size(tree.stat(path).st_size)
    except (OSError, UnsafePath):
        return "0 B"


UPLOADS = "uploads"  # a project's uploaded files, in its workspace (uploads.py)


def workspace(request: Request, project_id: str) -> SafeTree:
    """The project's workspace, which its agents' kernels can write: no link is followed."""
    return SafeTree(studio(request).runner.workspace(project_id))


def _read_output(tree: SafeTree, path: str) -> bytes:
    names = parts(path)
    if names[:1] not in (["outputs"], [UPLOADS]) or len(names) < 2:
        raise UnsafePath(f"{path!r} is not in the project's outputs or uploads")
    return tree.read_bytes("/".join(names), MAX_FILE_BYTES)


@router.get("/projects/{project_id}/files/{path:path}")
async def project_file(request: Request, project_id: str, path: str) -> Response:
    await visible_project(request, project_id)
    try:
        data = await asyncio.to_thread(_read_output, workspace(request, project_id), path)
    except (OSError, UnsafePath):
        raise ApiError(404, f"no file {path[:200]!r} in the project's outputs",
                       "not_found") from None
    media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
    return Response(data, media_type=media_type)


@router.get("/projects/{project_id}/outputs.zip")
async def project_zip(request: Request, project_id: str) -> Response:
    """Every output: each agent's latest document as JSON and every file it wrote."""
    project = await visible_project(request, project_id)
    rows = await studio(request).records.outputs(project_id=project_id)
    tree = workspace(request, project_id)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        latest = {}
        for row in rows:
            latest[row["agent_id"]] = row
        for row in latest.values():
            if row["file_path"] is None:
                archive.writestr(f"documents/{row['output_type']}.json", json.dumps(
                    dump(AgentOutput.model_validate(row)), ensure_ascii=False, indent=2))
        for name in await asyncio.to_thread(tree.files, "outputs"):
            if not name.endswith(".part"):
                with contextlib.suppress(OSError, UnsafePath):  # a link planted there: left out
                    archive.writestr(name, await asyncio.to_thread(
                        tree.read_bytes, name, MAX_FILE_BYTES))
    name = "".join(c if c.isalnum() else "_" for c in project["name"])[:60] or "project"
    return Response(buffer.getvalue(), media_type="application/zip", headers={
        "Content-Disposition": f"attachment; filename=\"{project_id}.zip\"; "
                               f"filename*=UTF-8''{quote(name)}.zip"})


# agents
async def _agent(request: Request, agent_id: str) -> dict[str, Any]:
    return await _visible(request, await studio(request).agent(agent_id))


@router.get("/agents/{agent_id}")
async def get_agent(request: Request, agent_id: str) -> dict[str, Any]:
    return dump(Agent.model_validate(await _agent(request, agent_id)))


@router.get("/agents/{agent_id}/logs")
async def agent_logs(request: Request, agent_id: str) -> list[dict[str, Any]]:
    await _agent(request, agent_id)
    rows = await studio(request).records.logs(agent_id=agent_id)
    return [dump(AgentLogEntry.model_validate(r)) for r in rows]


@router.get("/agents/{agent_id}/outputs")
async def agent_outputs(request: Request, agent_id: str) -> list[dict[str, Any]]:
    await _agent(request, agent_id)
    rows = await studio(request).records.outputs(agent_id=agent_id)
    return dump([AgentOutput.model_validate(r) for r in rows], many=True)


@router.get("/agents/{agent_id}/metrics")
async def agent_metrics_(request: Request, agent_id: str) -> dict[str, Any]:
    agent = await _agent(request, agent_id)
    records = studio(request).records
    children = [a for a in await records.agents(agent["project_id"])
                if a["parent_agent_id"] == agent_id]
    return agent_metrics_json(await agent_metrics(records, agent, children))


@router.post("/agents/{agent_id}/retry")
async def retry_agent(request: Request, agent_id: str) -> dict[str, Any]:
    """The client's 再試行: a failed or blocked agent tries again (``Studio.retry``); its
    record as it is now, in the form that client reads (``{success, agent}``)."""
    await _agent(request, agent_id)
    row = await studio(request).retry(agent_id)
    return {"success": True, "agent": dump(Agent.model_validate(row))}


# checkpoints
@router.get("/checkpoints/{checkpoint_id}")
async def get_checkpoint(request: Request, checkpoint_id: str) -> dict[str, Any]:
    row = await _visible(request, await studio(request).checkpoint(checkpoint_id))
    return dump(Checkpoint.model_validate(row))


@router.post("/checkpoints/{checkpoint_id}/resolve")
async def resolve_checkpoint(request: Request, checkpoint_id: str,
                             body: ResolveCheckpointRequest) -> dict[str, Any]:
    service = studio(request)
    await _visible(request, await service.checkpoint(checkpoint_id))
    row = await service.resolve(checkpoint_id, body.resolution, body.feedback)
    return dump(Checkpoint.model_validate(row))
