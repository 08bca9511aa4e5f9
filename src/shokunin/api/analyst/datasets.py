"""The Analyst's datasets (seed 004 upload): upload a CSV, TSV or .xlsx into a thread, read
its record and profile, preview its first rows, delete it. Read options are detected unless
the form gives them: ``encoding``, ``delimiter``, ``header`` and ``header_row`` (the row of
the column names under title lines, from 1 as in Excel; the profile's ``header_row`` says
which was taken). Errors are ``{"error", "code"}`` (api/errors.py): 400 ``bad_request`` for
a bad option, ``not_a_table``/``bad_table`` for a file that is not a readable table (or a
``header_row`` that names no row of it), 413 ``too_large`` past
``SHOKUNIN_ANALYST_MAX_UPLOAD_MB``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from shokunin.agents.analyst import (
    MAX_HEADER_ROW,
    DatasetRecord,
    Datasets,
    ReadOptions,
    text_encoding,
)
from shokunin.api.errors import ApiError
from shokunin.api.perimeter import unless_client_leaves
from shokunin.api.perimeter.content_type import check as check_content_type
from shokunin.api.perimeter.declared_body import MULTIPART
from shokunin.auth import principal

router = APIRouter(prefix="/api/analyst", tags=["analyst"])

MAX_PREVIEW_ROWS = 1000
DELIMITER_NAMES = {"comma": ",", "tab": "\t", "\\t": "\t", "semicolon": ";", "pipe": "|"}
_MAX_OPTION_CHARS = 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UPLOAD_BODY = {"requestBody": {"required": True, "content": {MULTIPART: {"schema": {
    "type": "object", "required": ["file"], "properties": {
        "file": {"type": "string", "format": "binary"},
        "thread_id": {"type": "string"},
        "encoding": {"type": "string", "description": "e.g. cp932; detected when absent"},
        "delimiter": {"type": "string", "description": ", tab ; | (or a name: comma, tab, "
                      "semicolon, pipe); detected when absent"},
        "header": {"type": "boolean", "description": "detected when absent"},
        "header_row": {"type": "integer", "minimum": 1, "maximum": MAX_HEADER_ROW,
                       "description": "the row that holds the column names, counted from 1 "
                       "as in Excel (rows above it, such as a title, are skipped); found "
                       "under title lines when absent"}}}}}}}


def datasets_of(request: Request) -> Datasets:
    return request.app.state.engine.datasets


def _limit(request: Request) -> int:
    return datasets_of(request).max_upload_bytes


def _too_large(limit: int) -> ApiError:
    return ApiError(413, f"the file is larger than {limit} bytes "
                    "(SHOKUNIN_ANALYST_MAX_UPLOAD_MB)", "too_large")


async def _bounded(request: Request, limit: int) -> AsyncGenerator[bytes, None]:
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise _too_large(limit)
        yield chunk


def _field(form: Any, name: str) -> str:
    """The text of the form field ``name`` ("" when absent), refused with a 400 when it is a
    file, too long to be a read option, or holds a control character (a NUL breaks
    ``codecs.lookup``)."""
    value = form.get(name) or ""
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be a text field, not a file", "bad_request")
    if len(value) > _MAX_OPTION_CHARS or _CONTROL.search(value.replace("\t", "")):
        raise ApiError(400, f"{name} must be at most {_MAX_OPTION_CHARS} printable "
                       "characters", "bad_request")
    return value


def _options(form: Any) -> ReadOptions:
    encoding = _field(form, "encoding").strip() or None
    if encoding is not None:
        encoding = text_encoding(encoding)  # NotTextEncoding: 400 bad_request
    delimiter = _field(form, "delimiter") or None
    if delimiter is not None:
        delimiter = DELIMITER_NAMES.get(delimiter.lower(), delimiter)
        if len(delimiter) != 1 or delimiter in "\"\r\n":
            raise ApiError(400, "delimiter must be one character (or comma, tab, semicolon, "
                           "pipe)", "bad_request")
    header = _field(form, "header").strip().lower() or None
    if header not in (None, "true", "false", "1", "0"):
        raise ApiError(400, "header must be true or false", "bad_request")
    header_row = _header_row(_field(form, "header_row").strip())
    if header_row is not None and header in ("false", "0"):
        raise ApiError(400, "header_row names the row of the column names, but header is "
                       "false: leave one of them out", "bad_request")
    return ReadOptions(encoding=encoding, delimiter=delimiter,
                       header=None if header is None else header in ("true", "1"),
                       header_row=header_row)


def _header_row(value: str) -> int | None:
    if not value:
        return None
    if not (value.isascii() and value.isdigit() and 1 <= int(value) <= MAX_HEADER_ROW):
        raise ApiError(400, f"header_row must be a whole number from 1 to {MAX_HEADER_ROW}: "
                       "the row that holds the column names, counted from 1 as in Excel",
                       "bad_request")
    return int(value)


@router.post("/datasets", status_code=201, openapi_extra=_UPLOAD_BODY)
async def upload_dataset(request: Request) -> dict[str, Any]:
    check_content_type(request.scope)  # the parser reads the boundary before the body
    limit = _limit(request)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit + 64 * 1024:  # room for the form's parts
        raise _too_large(limit)
    try:
        form = await MultiPartParser(request.headers, _bounded(request, limit),
                                     max_files=1, max_fields=10).parse()
    except MultiPartException as exc:
        raise ApiError(400, f"the body must be multipart/form-data with a file: {exc.message}",
                       "bad_request") from None
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise ApiError(400, "send the table as the form field 'file'", "bad_request")
        if upload.size is not None and upload.size > limit:
            raise _too_large(limit)
        options = _options(form)
        name = (upload.filename or "upload.csv")[:255]
        record = await unless_client_leaves(request, datasets_of(request).upload(
            principal(request), str(form.get("thread_id") or "") or None, name, upload.file,
            options))
    finally:
        await form.close()
    return record.model_dump(mode="json")


async def visible_dataset(request: Request, dataset_id: str) -> DatasetRecord:
    """The dataset, if the caller may see its thread; else 404."""
    return await datasets_of(request).visible(principal(request), dataset_id)


@router.get("/datasets/{dataset_id}")
async def get_dataset(request: Request, dataset_id: str) -> dict[str, Any]:
    return (await visible_dataset(request, dataset_id)).model_dump(mode="json")


@router.get("/datasets/{dataset_id}/preview")
async def preview_dataset(request: Request, dataset_id: str, rows: str = "20"
                          ) -> dict[str, Any]:
    if not rows.isascii() or not rows.isdigit() or not 1 <= int(rows) <= MAX_PREVIEW_ROWS:
        raise ApiError(400, f"rows must be a whole number from 1 to {MAX_PREVIEW_ROWS}",
                       "bad_request")
    preview = await unless_client_leaves(
        request, datasets_of(request).preview(principal(request), dataset_id, int(rows)))
    return preview.model_dump(mode="json")


@router.delete("/datasets/{dataset_id}", status_code=204)
async def delete_dataset(request: Request, dataset_id: str) -> Response:
    await datasets_of(request).delete(principal(request), dataset_id)
    return Response(status_code=204)
