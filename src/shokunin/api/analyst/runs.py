"""Analyst runs: ask a question about a dataset. ``POST /api/analyst/runs`` with
``{"dataset_id", "question"}`` starts a run of the analyst agent on the dataset's thread
and answers ``{"run_id", "thread_id"}``; the run streams over ``GET /api/runs/{id}/events``
(SSE), a clarification is answered with ``POST /api/runs/{id}/resume``, and
``POST /api/runs/{id}/cancel`` stops it. ``GET /api/analyst/runs/{id}/report.{md,html,ipynb}``
downloads its report."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from shokunin.agents.analyst import MAX_QUESTION_CHARS, kernel_code, load_record, report_files
from shokunin.agents.analyst import NAME as AGENT
from shokunin.api.analyst.datasets import datasets_of
from shokunin.api.errors import ApiError, json_object
from shokunin.api.runs.runs import visible_run
from shokunin.auth import principal
from shokunin.store import RunRow

router = APIRouter(prefix="/api/analyst", tags=["analyst"])


@router.post("/runs", status_code=201)
async def start_run(request: Request) -> dict[str, Any]:
    body = await json_object(request, '{"dataset_id": "...", "question": "..."}')
    dataset_id, question = body.get("dataset_id"), body.get("question")
    if not isinstance(dataset_id, str) or not dataset_id:
        raise ApiError(400, "'dataset_id' must be the id of an uploaded dataset", "bad_request")
    if not isinstance(question, str) or not question.strip():
        raise ApiError(400, "'question' must be a non-empty string", "bad_request")
    if len(question) > MAX_QUESTION_CHARS:
        raise ApiError(400, f"'question' is longer than {MAX_QUESTION_CHARS} characters",
                       "bad_request")
    record, run_id = await datasets_of(request).ask(principal(request), dataset_id,
                                                   question.strip())
    return {"run_id": run_id, "thread_id": record.thread_id}


@router.get("/runs/{run_id}/report.{fmt}")
async def download_report(request: Request, fmt: str,
                          run: RunRow = Depends(visible_run)) -> Response:
    """The run's report as Markdown, one self-contained HTML page, or a notebook of its
    cells (``report.md`` / ``report.html`` / ``report.ipynb``)."""
    if fmt not in report_files.BUILDERS:
        raise ApiError(404, f"no report format {fmt[:20]!r}; use md, html or ipynb", "not_found")
    if run.agent != AGENT:
        raise ApiError(404, f"run {run.id!r} is not an Analyst run", "not_found")
    _row, events = await request.app.state.engine.store.run_with_events(run.id)
    try:
        if fmt == "ipynb":
            record = await load_record(request.app.state.engine.store.engine,
                                       run.input.get("dataset_id", ""))
            body = report_files.notebook(
                events, None if record is None else kernel_code.setup(record))
        else:
            body = report_files.BUILDERS[fmt](events)
    except report_files.NoReport as exc:
        raise ApiError(409, f"{exc} (the run is {run.status})", "no_report") from None
    return Response(body, media_type=report_files.MEDIA[fmt], headers={
        "content-disposition": f'attachment; filename="report-{run.id[:8]}.{fmt}"'})
