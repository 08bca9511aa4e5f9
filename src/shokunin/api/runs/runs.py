"""The runs API: a run's row, its events as SSE (replay, then live), resume and cancel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from shokunin.api.errors import ApiError, json_object
from shokunin.api.runs import sse
from shokunin.api.runs.threads import run_view, runner_of
from shokunin.auth import principal
from shokunin.runs import access
from shokunin.store import RunRow

router = APIRouter(prefix="/api/runs", tags=["runs"])

RESUME_BODY = '{"value": <any JSON>}'


async def visible_run(request: Request, run_id: str) -> RunRow:
    """Dependency: the run's row, if it exists and the caller may see its thread."""
    run = await access.visible_run(runner_of(request).store, principal(request), run_id)
    if run is None:
        raise ApiError(404, f"no run {run_id[:100]!r}", "not_found")
    return run


@router.get("/{run_id}")
async def get_run(run: RunRow = Depends(visible_run)) -> dict[str, Any]:
    return run_view(run)


@router.get("/{run_id}/events", response_class=sse.EventSourceResponse)
async def run_events(request: Request, run: RunRow = Depends(visible_run),
                     after: int = Depends(sse.resume_after)
                     ) -> AsyncIterator[sse.ServerSentEvent]:
    async for message in sse.run_messages(runner_of(request), run.id, after):
        yield message


@router.post("/{run_id}/resume", status_code=202)
async def resume_run(request: Request, run: RunRow = Depends(visible_run)) -> JSONResponse:
    body = await json_object(request, RESUME_BODY)
    if "value" not in body or set(body) != {"value"}:
        raise ApiError(400, f"expected {RESUME_BODY}", "bad_request")
    # InvalidRunInput 400, RunNotFound 404 (deleted meanwhile), RunStateError 409 not_waiting
    await runner_of(request).resume(run.id, body["value"])
    return JSONResponse({"run_id": run.id}, status_code=202)


@router.post("/{run_id}/cancel", status_code=202)
async def cancel_run(request: Request, run: RunRow = Depends(visible_run)) -> JSONResponse:
    cancelled = await runner_of(request).cancel(run.id)  # RunNotFound: 404
    if not cancelled:
        current = await runner_of(request).store.get_run(run.id)
        status = current.status if current else "deleted"
        raise ApiError(409, f"run {run.id} is {status}, not running", "not_running")
    return JSONResponse({"run_id": run.id}, status_code=202)
