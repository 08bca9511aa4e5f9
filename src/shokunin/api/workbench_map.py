"""The Workbench's map over HTTP: the definition, and the images it names.

Only files the definition names are served, so a request cannot reach anything else in
(or outside) the map folder.
"""

from __future__ import annotations

import mimetypes

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse

from shokunin.maps import MapError, MapPackage

router = APIRouter(tags=["workbench"])


def current_map(request_app: object) -> MapPackage | MapError:
    """The map package loaded at startup (or the error that stopped it loading), the same
    object the agent uses."""
    return request_app.state.services.map_package  # type: ignore[attr-defined]


@router.get("/api/map", response_model=None)
async def get_map(request: Request) -> dict | JSONResponse:
    pkg = current_map(request.app)
    if isinstance(pkg, MapError):
        return JSONResponse({"error": str(pkg), "problems": pkg.problems}, status_code=503)
    return pkg.as_wire()


@router.get("/api/map/assets/{filename}")
async def get_asset(filename: str, request: Request) -> FileResponse:
    pkg = current_map(request.app)
    path = None if isinstance(pkg, MapError) else pkg.asset(filename)
    if path is None or not path.is_file():
        raise HTTPException(404, f"no map asset named {filename!r}")
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return FileResponse(path, media_type=media_type)
