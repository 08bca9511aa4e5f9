"""The Workbench's map over HTTP: the definition, and the images it names.

Only files the definition names are served, so a request cannot reach anything else in
(or outside) the map folder.
"""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse

from shokunin.maps import MapError, MapPackage

router = APIRouter(tags=["workbench"])


def current_map(request_app: object) -> MapPackage | MapError:
    """The map package loaded at startup (or the error that stopped it loading), the same
    object the agent uses."""
    return request_app.state.engine.map_package  # type: ignore[attr-defined]


@router.get("/api/map", response_model=None)
async def get_map(request: Request) -> dict | JSONResponse:
    pkg = current_map(request.app)
    if isinstance(pkg, MapError):
        return JSONResponse({"error": str(pkg), "problems": pkg.problems}, status_code=503)
    return pkg.as_wire()


def _serve(path: Path | None, filename: str) -> FileResponse:
    if path is None or not path.is_file():
        raise HTTPException(404, f"no map asset named {filename!r}")
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return FileResponse(path, media_type=media_type)


@router.get("/api/map/assets/{filename}")
async def get_asset(filename: str, request: Request) -> FileResponse:
    pkg = current_map(request.app)
    return _serve(None if isinstance(pkg, MapError) else pkg.asset(filename), filename)


# The seed's own browser client loads floor images from /backend/data/ and bitmaps (and
# its legacy arrows, arrow_<direction>.bmp) from /backend/bitmaps/: the same named files.
_LEGACY_ARROW = re.compile(r"(arrow_(?:up|down|left|right))\.bmp")


@router.get("/backend/data/{filename}", include_in_schema=False)
async def get_legacy_floor_image(filename: str, request: Request) -> FileResponse:
    pkg = current_map(request.app)
    return _serve(None if isinstance(pkg, MapError) else pkg.asset(filename), filename)


@router.get("/backend/bitmaps/{filename}", include_in_schema=False)
async def get_legacy_bitmap(filename: str, request: Request) -> FileResponse:
    pkg = current_map(request.app)
    if isinstance(pkg, MapError):
        return _serve(None, filename)
    path = pkg.asset(filename)
    if path is None and (arrow := _LEGACY_ARROW.fullmatch(filename)):
        bitmap = pkg.bitmap(arrow.group(1))  # the package's arrow, whatever its format
        path = pkg.asset(bitmap.bitmapFile) if bitmap else None
    return _serve(path, filename)
