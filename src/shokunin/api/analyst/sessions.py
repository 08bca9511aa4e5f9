"""Analyst sessions: an Analyst thread seen whole, for a face that reopens it.
``GET /api/analyst/threads/{thread_id}/datasets`` lists the tables uploaded into it (its
questions and answers are the thread's runs and messages, ``/api/threads/{id}/...``), and
``GET /api/analyst/threads/{thread_id}/report.{md,html,ipynb}?lang=ja|en`` downloads one
report of every question in order. 404 for a thread the caller may not see or that is not
the Analyst's, 409 ``no_report`` before any question has a report."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request, Response

from shokunin.agents.analyst import report_files
from shokunin.api.analyst.datasets import datasets_of
from shokunin.api.errors import ApiError
from shokunin.auth import principal

router = APIRouter(prefix="/api/analyst/threads", tags=["analyst"])

_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f"\\/:*?<>|]+')


def _filename(title: str, fmt: str) -> str:
    """``Content-Disposition`` naming the file after the session (its table's name), with
    an ASCII fallback: no id of the server's in what a person saves."""
    stem = _UNSAFE_NAME.sub("_", title.rsplit(".", 1)[0]).strip(" ._")[:80] or "analysis"
    return (f'attachment; filename="analysis-report.{fmt}"; '
            f"filename*=UTF-8''{quote(f'{stem}-report.{fmt}', safe='')}")


@router.get("/{thread_id}/datasets")
async def session_datasets(request: Request, thread_id: str) -> dict[str, Any]:
    records = await datasets_of(request).of_session(principal(request), thread_id)
    return {"datasets": [record.model_dump(mode="json") for record in records]}


@router.get("/{thread_id}/report.{fmt}")
async def download_session_report(request: Request, thread_id: str, fmt: str,
                                  lang: str = "ja") -> Response:
    """Every question of the session with its report and plots: Markdown, one
    self-contained HTML page, or a notebook of all its cells (the per-run report's files,
    a section per question)."""
    if fmt not in report_files.SESSION_BUILDERS:
        raise ApiError(404, f"no report format {fmt[:20]!r}; use md, html or ipynb", "not_found")
    if lang not in report_files.LANGUAGES:
        raise ApiError(400, "lang must be ja or en", "bad_request")
    title, body = await datasets_of(request).session_report(principal(request), thread_id,
                                                           fmt, lang)
    return Response(body, media_type=report_files.MEDIA[fmt],
                    headers={"content-disposition": _filename(title, fmt)})
