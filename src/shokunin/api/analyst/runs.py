"""Analyst runs: ask a question about a dataset. ``POST /api/analyst/runs`` with
``{"dataset_id", "question"}`` starts a run of the analyst agent on the dataset's thread
and answers ``{"run_id", "thread_id"}``; the run streams over ``GET /api/runs/{id}/events``
(SSE), a clarification is answered with ``POST /api/runs/{id}/resume``, and
``POST /api/runs/{id}/cancel`` stops it. ``GET /api/analyst/runs/{id}/report.{md,html,ipynb}``
downloads its report."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from shokunin.agents.analyst import report_files
from shokunin.api.analyst.datasets import datasets_of
from shokunin.api.errors import ApiError, json_object
from shokunin.auth import principal

router = APIRouter(prefix="/api/analyst", tags=["analyst"])


@router.post("/runs", status_code=201)
async def start_run(request: Request) -> dict[str, Any]:
    body = await json_object(request, '{"dataset_id": "...", "question": "..."}')
    dataset_id, question = body.get("dataset_id"), body.get("question")
    if not isinstance(dataset_id, str) or not dataset_id:
        raise ApiError(400, "'dataset_id' must be the id of an uploaded dataset", "bad_request")
    if not isinstance(question, str):
        raise ApiError(400, "'question' must be a non-empty string", "bad_request")
    # its length and content: the use case's InvalidRunInput (400), as for every face
    record, run_id = await datasets_of(request).ask(principal(request), dataset_id,
                                                   question.strip())
    return {"run_id": run_id, "thread_id": record.thread_id}


@router.get("/runs/{run_id}/report.{fmt}")
async def download_report(request: Request, run_id: str, fmt: str) -> Response:
    """The run's report as Markdown, one self-contained HTML page, or a notebook of its
    cells (``report.md`` / ``report.html`` / ``report.ipynb``): the files ``shokunin analyze
    --out`` writes (one use case). 404 for a run the caller may not see or no Analyst run,
    409 ``no_report`` before it has written one."""
    if fmt not in report_files.BUILDERS:
        raise ApiError(404, f"no report format {fmt[:20]!r}; use md, html or ipynb", "not_found")
    body = await datasets_of(request).report(principal(request), run_id, fmt)
    # run_id names a run the caller sees: an id the store gave, safe in a header
    return Response(body, media_type=report_files.MEDIA[fmt], headers={
        "content-disposition": f'attachment; filename="report-{run_id[:8]}.{fmt}"'})
