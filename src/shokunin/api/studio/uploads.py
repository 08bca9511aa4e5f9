"""A project's uploaded files (the seed project's React client's "initial files"): kept in
its workspace's ``uploads/``, listed in the client's uploaded-file form, served like its
outputs (``GET /api/projects/{id}/files/uploads/<name>``).

    GET  /api/projects/{id}/files         the list (none until one is uploaded)
    POST /api/projects/{id}/files         multipart: ``file``, ``description`` (optional)
    POST /api/projects/{id}/files/batch   multipart: ``files`` (one or more)

A name is the upload's own file name made safe (no folders, no control characters); a
name taken gets a number. The body is bounded by ``SHOKUNIN_MAX_UPLOAD_BYTES``.
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import re
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from shokunin.api.errors import ApiError
from shokunin.api.perimeter.content_type import check as check_content_type
from shokunin.api.perimeter.declared_body import MULTIPART
from shokunin.api.studio.rest import UPLOADS, visible_project, workspace
from shokunin.api.studio.validation import StudioRoute
from shokunin.store.safe_files import SafeTree, UnsafePath

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)
MAX_FILES = 20  # in one batch
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]")
_FILE = {"type": "string", "format": "binary"}
_ONE = {"requestBody": {"required": True, "content": {MULTIPART: {"schema": {
    "type": "object", "required": ["file"], "properties": {
        "file": _FILE, "description": {"type": "string"}}}}}}}
_BATCH = {"requestBody": {"required": True, "content": {MULTIPART: {"schema": {
    "type": "object", "required": ["files"], "properties": {
        "files": {"type": "array", "items": _FILE}}}}}}}


def _record(tree: SafeTree, project_id: str, name: str, description: str = ""
            ) -> dict[str, Any]:
    """The file ``uploads/<name>`` as the client reads an uploaded file."""
    info = tree.stat(f"{UPLOADS}/{name}")
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return {"id": name, "projectId": project_id, "filename": name,
            "originalFilename": name, "mimeType": mime, "category": _category(name, mime),
            "sizeBytes": info.st_size, "status": "ready", "description": description,
            "uploadedAt": datetime.fromtimestamp(info.st_mtime, UTC).isoformat()
            .replace("+00:00", "Z"),
            "url": f"/api/projects/{project_id}/files/{UPLOADS}/{quote(name)}"}


def _category(name: str, mime: str) -> str:
    """The client's FileCategory."""
    kind = mime.split("/", 1)[0]
    suffix = PurePosixPath(name).suffix.lower()
    if kind in ("image", "audio", "video"):
        return kind
    if suffix in (".py", ".js", ".ts", ".tsx", ".jsx", ".html", ".css", ".json", ".gd",
                  ".cs", ".lua"):
        return "code"
    if suffix in (".zip", ".tar", ".gz", ".7z"):
        return "archive"
    if kind == "text" or suffix in (".pdf", ".md", ".doc", ".docx", ".xlsx"):
        return "document"
    return "other"


def _listing(tree: SafeTree, project_id: str) -> list[dict[str, Any]]:
    found = []
    for path in tree.files(UPLOADS):
        name = path.removeprefix(f"{UPLOADS}/")
        if "/" not in name:  # one level: what this face wrote
            with contextlib.suppress(OSError, UnsafePath):
                found.append(_record(tree, project_id, name))
    return found


def _store(tree: SafeTree, filename: str, data: bytes) -> str:
    """Write the upload under a free safe name; return the name."""
    base = _UNSAFE.sub("_", PurePosixPath(filename.replace("\\", "/")).name).strip(". ")
    base = base[-120:] or "upload"
    stem, suffix = PurePosixPath(base).stem, PurePosixPath(base).suffix
    name, number = base, 1
    while tree.is_file(f"{UPLOADS}/{name}"):
        number += 1
        name = f"{stem}-{number}{suffix}"
    tree.replace(f"{UPLOADS}/{name}", data)
    return name


async def _form(request: Request, max_files: int) -> Any:
    check_content_type(request.scope)  # the parser reads the boundary before the body
    try:
        return await MultiPartParser(request.headers, request.stream(),
                                     max_files=max_files, max_fields=10).parse()
    except MultiPartException as exc:
        raise ApiError(400, f"ファイルを multipart/form-data で送ってください: {exc.message}",
                       "bad_request") from None


async def _save(request: Request, project_id: str, upload: UploadFile, description: str = ""
                ) -> dict[str, Any]:
    tree = workspace(request, project_id)
    data = await upload.read()
    try:
        name = await asyncio.to_thread(_store, tree, upload.filename or "upload", data)
    except UnsafePath as exc:
        raise ApiError(400, f"このファイル名では保存できません: {exc}", "bad_request") from None
    return await asyncio.to_thread(_record, tree, project_id, name, description)


@router.get("/projects/{project_id}/files")
async def project_uploads(request: Request, project_id: str) -> list[dict[str, Any]]:
    await visible_project(request, project_id)
    return await asyncio.to_thread(_listing, workspace(request, project_id), project_id)


@router.post("/projects/{project_id}/files", status_code=201, openapi_extra=_ONE)
async def upload_file(request: Request, project_id: str) -> dict[str, Any]:
    await visible_project(request, project_id)
    form = await _form(request, 1)
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise ApiError(400, "ファイルをフォーム項目 file で送ってください", "bad_request")
        description = form.get("description")
        return await _save(request, project_id, upload,
                           description[:2000] if isinstance(description, str) else "")
    finally:
        await form.close()


@router.post("/projects/{project_id}/files/batch", openapi_extra=_BATCH)
async def upload_files(request: Request, project_id: str) -> dict[str, Any]:
    await visible_project(request, project_id)
    form = await _form(request, MAX_FILES)
    try:
        uploads = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
        if not uploads:
            raise ApiError(400, "ファイルをフォーム項目 files で送ってください", "bad_request")
        saved, errors = [], []
        for upload in uploads:
            try:
                saved.append(await _save(request, project_id, upload))
            except ApiError as exc:
                errors.append({"filename": upload.filename or "", "error": exc.message})
        return {"success": saved, "errors": errors, "totalUploaded": len(saved),
                "totalErrors": len(errors)}
    finally:
        await form.close()
