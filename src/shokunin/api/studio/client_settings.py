"""What the seed project's React client's settings and data views ask for that shokunin
can answer truthfully (the rest is listed in docs/faces/studio.md as not served):

    GET /api/languages                      the languages shokunin's interface speaks
    GET /api/projects/{id}/tree             the project's files: outputs/ and uploads/
    GET /api/ai-providers                   the one configured model (SHOKUNIN_MODEL)
    GET /api/api-keys                       {}: keys live in the server's environment
    GET /api/backups, /api/archives         none: shokunin makes no backups or archives
    GET /api/projects/{id}/auto-approval-rules   none: every checkpoint waits for a person
    GET /api/config/principles              no principles; the pipeline's phases
"""

from __future__ import annotations

import asyncio
import mimetypes
from typing import Any

from fastapi import APIRouter, Request

from shokunin.api.studio.config import _pipeline, _ui_phases
from shokunin.api.studio.costs import LOCAL, _model
from shokunin.api.studio.rest import UPLOADS, studio, visible_project, workspace
from shokunin.api.studio.validation import StudioRoute
from shokunin.store.safe_files import SafeTree, UnsafePath

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)
LANGUAGES = [{"value": "ja", "label": "日本語", "nativeName": "日本語"},
             {"value": "en", "label": "英語", "nativeName": "English"}]


@router.get("/languages")
async def languages() -> dict[str, Any]:
    return {"defaultPrimary": "ja", "defaultLanguages": ["ja"], "languages": LANGUAGES}


def _tree(tree: SafeTree, name: str) -> dict[str, Any]:
    root: dict[str, Any] = {"id": name, "name": name, "type": "directory", "path": name,
                            "children": []}
    folders = {name: root}
    for path, is_dir in sorted(tree.entries(name)):
        parent = folders[path.rsplit("/", 1)[0]]
        node: dict[str, Any] = {"id": path, "name": path.rsplit("/", 1)[-1], "path": path,
                                "type": "directory" if is_dir else "file"}
        if is_dir:
            node["children"] = []
            folders[path] = node
        else:
            try:
                node["size"] = tree.stat(path).st_size
            except (OSError, UnsafePath):  # gone since it was listed
                continue
            node["mimeType"] = mimetypes.guess_type(path)[0] or "application/octet-stream"
        parent["children"].append(node)
    return root


@router.get("/projects/{project_id}/tree")
async def project_tree(request: Request, project_id: str) -> dict[str, Any]:
    """The project's folder as the client's file tree: what the agents wrote (``outputs``)
    and what was uploaded (``uploads``), each file with its size and type."""
    project = await visible_project(request, project_id)
    tree = workspace(request, project_id)
    children = await asyncio.to_thread(lambda: [_tree(tree, "outputs"), _tree(tree, UPLOADS)])
    return {"id": project_id, "name": project["name"], "type": "directory", "path": "",
            "children": children}


@router.get("/ai-providers")
async def ai_providers(request: Request) -> list[dict[str, Any]]:
    studio(request)
    provider, model = _model(request)
    return [{"id": provider, "name": LOCAL.get(provider, provider), "models": [model],
             "shortLabel": provider, "phase": 1, "serviceTypes": ["llm"]}]


@router.get("/api-keys")
async def api_keys() -> dict[str, Any]:
    return {}  # a provider's key is the server's environment's, never shown


@router.get("/backups")
async def backups() -> dict[str, Any]:
    return {"backups": []}


@router.get("/archives")
async def archives() -> dict[str, Any]:
    return {"archives": []}


@router.get("/projects/{project_id}/auto-approval-rules")
async def auto_approval_rules(request: Request, project_id: str) -> dict[str, Any]:
    await visible_project(request, project_id)
    return {"rules": []}


@router.get("/config/principles")
async def principles(request: Request) -> dict[str, Any]:
    return {"principles": [], "defaults": {}, "agents": {},
            "uiPhases": _ui_phases(_pipeline(request))}
